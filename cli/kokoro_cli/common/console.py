"""Where the CLIs' words go: progress and logs on stderr, the result on stdout (JSON with ``--json``).

Keeping stdout for the result alone is what lets a CI job pipe ``deploy-model --json`` into ``jq`` while
cdk's stack events still scroll by on stderr. Errors become a message, the fix and AWS's reasons, plus an
``{"ok": false, "error": ...}`` document in JSON mode: never a traceback for an expected failure.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import typer
from rich.console import Console as RichConsole
from rich.table import Table
from rich.text import Text

from kokoro_cli.common.errors import CliError, CommandFailed, ExitCode
from kokoro_processes.errors import ServerFailed


@dataclass
class Console:
    json_mode: bool = False
    err: RichConsole = field(default_factory=lambda: RichConsole(stderr=True, highlight=False))
    out: RichConsole = field(default_factory=lambda: RichConsole(highlight=False, soft_wrap=True))

    def step(self, message: str) -> None:
        """A stage of the flow starting (prerequisites, synth, deploy, wait, verify)."""
        self.err.print(Text(f"==> {message}", style="bold"))

    def line(self, text: str) -> None:
        """One line of a child process (cdk): verbatim, never read as markup."""
        self.err.print(Text(text), soft_wrap=True)

    def note(self, message: str) -> None:
        self.err.print(Text(message, style="yellow"))

    def result(self, data: Mapping, rows: list[tuple[str, str]] | None = None, title: str = "") -> None:
        """The command's result: the JSON document, or a table of ``rows`` for a person."""
        if self.json_mode:
            sys.stdout.write(json.dumps({"ok": True, **data}, indent=2, default=str) + "\n")
            return
        table = Table(title=title or None, show_header=False, box=None, title_justify="left")
        for key, value in rows or [(k, str(v)) for k, v in data.items()]:
            table.add_row(Text(key, style="bold"), Text(value))
        self.out.print(table)

    def commands(self, commands: list[str]) -> None:
        """``--dry-run``'s result: each command on one unwrapped line, ready to paste."""
        if self.json_mode:
            sys.stdout.write(json.dumps({"ok": True, "dry_run": True, "commands": commands}, indent=2) + "\n")
            return
        for command in commands:
            self.out.print(Text(command), soft_wrap=True)

    def fail(self, error: CliError) -> ExitCode:
        """Report ``error`` to the user and return the exit code it maps to."""
        # soft_wrap: each stays one line at any width, so the fix can be copied and grepped whole
        self.err.print(Text(f"error: {error.message}", style="bold red"), soft_wrap=True)
        for detail in error.details:
            self.err.print(Text(f"  {detail}"), soft_wrap=True)
        if error.fix:
            self.err.print(Text(f"fix: {error.fix}", style="cyan"), soft_wrap=True)
        if self.json_mode:
            body = {
                "type": type(error).__name__,
                "message": error.message,
                "fix": error.fix,
                "details": list(error.details),
                "exit_code": int(error.exit_code),
            }
            sys.stdout.write(json.dumps({"ok": False, "error": body}, indent=2) + "\n")
        return error.exit_code

    @contextlib.contextmanager
    def reporting_errors(self) -> Iterator[None]:
        """Turn expected failures and Ctrl-C into exit codes; anything else is a bug and propagates."""
        try:
            yield
        except CliError as error:
            raise typer.Exit(int(self.fail(error))) from None
        except ServerFailed as error:  # a local server that did not start: a failed command (exit 1)
            raise typer.Exit(int(self.fail(CommandFailed(error.message, error.fix, error.details)))) from None
        except KeyboardInterrupt:
            self.err.print(Text("interrupted", style="bold red"))
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
