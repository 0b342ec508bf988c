"""The benchmark's figures for people: plain-text tables, timeline plots, the JSON results file, capacity
and cost, the targets' verdicts and the generated blocks of the docs. It reads what :mod:`kokoro_bench.measuring`
returns and never measures."""
