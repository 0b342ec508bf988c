"""``python -m bench``: how much sooner speech starts, and whether it stalls, measured side by side.

One run starts the real model server, drives it with the agent's own pipeline fed by a paced scripted
LLM, re-creates the two designs it replaces over the same server and session protocol, and prints,
plots and (``--json``) writes every figure. See :mod:`bench.run` for the order of the steps.

Its layout, top to bottom (import contracts in pyproject.toml, docs/decisions/134-bench-layout.md):

* :mod:`bench.app`: the one command line, ``python -m bench [SUBCOMMAND]``;
* :mod:`bench.run`: one benchmark run, measuring then reporting;
* :mod:`bench.reporting`: the figures as tables, plots, JSON, cost, targets and generated pages;
* :mod:`bench.measuring`: what is measured (strategies, concurrency, overhead, soak, barge-in, G2P, ...);
* :mod:`bench.settings`, :mod:`bench.texts`, :mod:`bench.stats`, :mod:`bench.paths`, :mod:`bench.errors`:
  what every part shares.
"""
