"""The `deploy-model` and `deploy-agent` command-line tools: thin Typer commands over pure functions.

The two front doors, :mod:`kokoro_cli.deploy_model` and :mod:`kokoro_cli.deploy_agent` (the console scripts), and
:mod:`kokoro_cli.typer_app`, which builds both, only wire options to functions. What those functions do is
grouped by job, so that each job can be read, tested and changed without the others:

- :mod:`kokoro_cli.deploy`: from nothing to a deployed stack (settings, `cdk` command lines, prerequisites,
  the deploy flows, waiting for the endpoint);
- :mod:`kokoro_cli.checks`: does a model server or an agent answer with speech, local or deployed (the
  ``smoke`` commands, and the last step of every deploy);
- :mod:`kokoro_cli.local`: the model server and the agent run on this machine (``local``, ``invoke``,
  ``web``), and the conversation page;
- :mod:`kokoro_cli.common`: what all three share: typed errors and exit codes, the console, the slice of AWS
  the CLIs call, child processes that end with the CLI, and the agent's Python 3.12 environment.
"""
