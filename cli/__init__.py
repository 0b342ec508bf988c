"""The `deploy-model` and `deploy-agent` command-line tools: thin Typer commands over pure functions.

Each command wires a pure function (which `cdk` command line to run, how to read stack outputs, what a
smoke check expects) to the terminal; the logic lives in the small modules beside this one.
"""
