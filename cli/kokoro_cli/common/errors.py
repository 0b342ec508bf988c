"""The CLIs' typed errors and their exit codes, defined once.

Every expected failure (a missing prerequisite, a failed `cdk` run, an endpoint that never reaches
InService, a smoke check that gets no audio) is one of these; the Typer layer turns them into a message
and an exit code in :func:`kokoro_cli.common.console.fail`, so no traceback reaches the user for anything foreseen.

Exit codes (documented in the README and in each CLI's ``--help``):

====  =====================================================================
0     success
1     the deploy, destroy or verification failed (reason printed)
2     usage: a bad option or value (Typer's own usage errors use 2 as well)
3     a prerequisite is missing (credentials, region, CDK CLI, Docker, bootstrap)
130   interrupted (Ctrl-C)
====  =====================================================================
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FAILED = 1
    USAGE = 2
    PREREQUISITE = 3
    INTERRUPTED = 130


class CliError(Exception):
    """An expected failure: ``message`` says what went wrong, ``fix`` what to do about it."""

    exit_code: ExitCode = ExitCode.FAILED

    def __init__(self, message: str, fix: str | None = None, details: tuple[str, ...] = ()):
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.details = details


class UsageError(CliError):
    """An option or a combination of options that cannot work."""

    exit_code = ExitCode.USAGE


class PrerequisiteMissing(CliError):
    """Something the command needs before it may start: credentials, a region, the CDK CLI, Docker."""

    exit_code = ExitCode.PREREQUISITE


class CommandFailed(CliError):
    """A subprocess (`cdk ...`) exited non-zero; ``details`` holds the last lines it printed."""


class DeployFailed(CliError):
    """The stack or the endpoint/runtime did not become ready; ``details`` holds AWS's own reasons."""


class VerifyFailed(CliError):
    """The deployable is up but does not work: the smoke check's reasons are in ``details``."""


class AwsCallFailed(CliError):
    """An AWS API call was refused or could not be made; the message names the call and AWS's reason."""
