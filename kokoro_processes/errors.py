"""The one error of a local process or server that did not start: what failed, its own last words, a fix.

The deploy CLIs report it with exit code 1 (``kokoro_cli.common.console``), the benchmark as one line with exit
code 2: each caller maps it, so this package depends on neither.
"""

from __future__ import annotations


class ServerFailed(Exception):
    """A local server did not start or become ready: ``message`` says which, ``details`` holds the last
    lines it printed, ``fix`` what to try."""

    def __init__(self, message: str, fix: str | None = None, details: tuple[str, ...] = ()):
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.details = details
