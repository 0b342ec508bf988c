"""``python -m kokoro_bench``: how much sooner speech starts, and whether it stalls, measured side by side.

One run starts the real model server, drives it with the agent's own pipeline fed by a paced scripted
LLM, re-creates the two designs it replaces over the same server and session protocol, and prints,
plots and (``--json``) writes every figure. See :mod:`kokoro_bench.run` for the order of the steps.

Its layout, top to bottom (import contracts in pyproject.toml, docs/decisions/134-bench-layout.md):

* :mod:`kokoro_bench.app`: the one command line, ``python -m kokoro_bench [SUBCOMMAND]``;
* :mod:`kokoro_bench.run`: one benchmark run, measuring then reporting;
* :mod:`kokoro_bench.reporting`: the figures as tables, plots, JSON, cost, targets and generated pages;
* :mod:`kokoro_bench.measuring`: what is measured (strategies, concurrency, overhead, soak, barge-in, G2P, ...);
* :mod:`kokoro_bench.settings`, :mod:`kokoro_bench.texts`, :mod:`kokoro_bench.stats`, :mod:`kokoro_bench.paths`, :mod:`kokoro_bench.errors`:
  what every part shares.
"""
