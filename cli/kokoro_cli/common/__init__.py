"""What deploying, checking and running locally all need, kept apart so none of them owns it.

Typed errors and their exit codes, where the words go (stderr for progress, stdout for the result), the
narrow slice of AWS the CLIs call, child processes that end with the CLI, and the agent's Python 3.12
environment for what needs the SageMaker streaming SDK.
"""
