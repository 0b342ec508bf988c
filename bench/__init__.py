"""``python -m bench``: how much sooner speech starts, and whether it stalls, measured side by side.

One run starts the real model server, drives it with the agent's own pipeline fed by a paced scripted
LLM, re-creates the two designs it replaces over the same server and session protocol, and prints,
plots and (``--json``) writes every figure. See :mod:`bench.run` for the order of the steps.
"""
