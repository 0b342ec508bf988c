"""The shell commands of README.md and docs/*.md, found by their fences and run as a reader would run them.

A ```bash block holds commands, one per line (a trailing backslash continues one, ``# ...`` comments are
bash's). Words after ``bash`` in the fence's info string are tags (GitHub shows only the language):

``aws``     needs an AWS account. Run with no credentials at all, each command must end in its clean
            failure: exit 3, one ``error: ...`` line and its fix (docs/errors.md), unless ``#>`` lines
            document another exit code.
``server``  its last command serves until stopped, as a command ending in ``&`` does; both run in the
            background, are waited for, and get Ctrl-C when the page is done: then they must exit 0
            (docs/decisions/110-a-requested-stop-exits-0.md).
``long``    each command runs as written until it has printed its first line (every long command of
            the pages prints one once it is past its start, its model server ready, and into its own work)
            or for :data:`LONG_RUN_S` at most, then gets Ctrl-C: it must exit 130 and leave no process
            behind (or have finished by then, with its documented exit code). A long command starts at its
            place in the page and runs beside the commands after it: the page's end waits for each (a
            page's long commands would otherwise add up to minutes of a suite run spent waiting on them
            one at a time).
``manual``  not run here (set-up itself, the whole suite): its programs must exist.
``gpu``     run where CUDA is; elsewhere as ``manual``.

``#> TEXT`` lines right after a command are its documented output: the first is compared with the first
line it prints (stdout and stderr together; ``XXXX`` and ``<...>`` match anything). ``#> [exit N]`` says
it exits with N.

The well-known ports of a page (:data:`PAGE_PORTS`) are that page's: each is replaced by a free port,
the same one throughout the page, in its commands and in their documented output.

What several pages run identically runs once in a suite run (:class:`Shared`): a server that more than one
page starts with the same command (``kokoro-serve --port 8090 &`` starts six pages' examples) is started by
the first and served to the others on the same port, and stopped with Ctrl-C (exit 0) after the last page;
a command that an earlier page ran with the same text and the same exports is not run again, its exit code
and output are checked against this page's documentation.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx

TAGS = frozenset({"aws", "server", "long", "manual", "gpu"})
PAGE_PORTS = ("5000", "8000", "8080", "8090", "8443", "8500", "8501", "8600")
COMMAND_TIMEOUT_S = 900.0  # a command that loads the model on a loaded 2-core machine: minutes
READY_TIMEOUT_S = 900.0
# The most a long command runs before its Ctrl-C, if it prints nothing: a bound against a command that hangs in
# its start (a model server's start is 5 s on an idle 2-core machine, decision 143; three times that under a
# suite's load). Each is stopped once it has printed its first line: then it is past its start and into its
# own work (decision 095).
LONG_RUN_S = 120.0
STOP_TIMEOUT_S = 120.0
_FENCE = re.compile(r"^```(\S*)\s*(.*)$")
_EXIT = re.compile(r"^\[exit (\d+)\]$")
_PORT = re.compile(r"(?<![\d.])(" + "|".join(PAGE_PORTS) + r")(?!\d)")


@dataclass
class Command:
    text: str
    line: int
    background: bool = False
    output: list[str] = field(default_factory=list)
    exit_code: int | None = None


@dataclass
class Block:
    page: str
    line: int
    tags: frozenset[str]
    commands: list[Command]

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def _without_comment(line: str) -> str:
    """``line`` up to an unquoted ``#`` that starts a word: what bash runs."""
    quote = None
    for i, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def blocks(page: Path, root: Path) -> list[Block]:
    """The ```bash blocks of one page, in order."""
    found: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    current: Block | None = None
    pending = ""
    for number, raw in enumerate(lines, start=1):
        fence = _FENCE.match(raw)
        if current is None:
            if fence and fence.group(1) == "bash":
                tags = frozenset(fence.group(2).split())
                if not tags <= TAGS:
                    raise ValueError(f"{page}:{number}: unknown tags {sorted(tags - TAGS)} (known: {sorted(TAGS)})")
                current = Block(str(page.relative_to(root)), number, tags, [])
            continue
        if fence:
            found.append(current)
            current = None
            continue
        stripped = raw.strip()
        if stripped.startswith("#>") and current.commands and not pending:
            said = stripped[2:].strip()
            code = _EXIT.match(said)
            if code:
                current.commands[-1].exit_code = int(code.group(1))
            else:
                current.commands[-1].output.append(said)
            continue
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        text = _without_comment(raw) if not pending else _without_comment(raw).strip()
        if text.endswith("\\"):
            pending += text[:-1].rstrip() + " "
            continue
        text = (pending + text).strip()
        pending = ""
        background = text.endswith("&") and not text.endswith("&&")
        current.commands.append(Command(text.rstrip("&").strip(), number, background))
    if current is not None:
        raise ValueError(f"{page}:{current.line}: unclosed fence")
    for block in found:
        if "server" in block.tags and block.commands:
            block.commands[-1].background = True
    return found


def page_ports(page_blocks: list[Block], shared: Shared | None = None) -> dict[str, str]:
    """A port for each well-known port the page's commands or outputs use: a free one, or where the page
    starts a server that other pages start too, that server's (:class:`Shared`)."""
    used = {m for b in page_blocks for c in b.commands for t in (c.text, *c.output) for m in _PORT.findall(t)}
    ports = {port: str(_free_port()) for port in sorted(used)}
    for command in (c for b in page_blocks for c in b.commands if c.background):
        if shared is not None and command.text in shared.repeated:
            ports.update({port: shared.port(command.text, port) for port in _PORT.findall(command.text)})
    return ports


@dataclass
class Shared:
    """What the pages of one suite run share. ``repeated``: the background commands that more than one page
    starts, each started once (by the first page to reach it) on the same ports for every page, and stopped
    by :meth:`stop`; ``outcomes``: each command's page, exit code and output by its text and the exports it
    ran under, so that a command an earlier page ran is not run again (within a page, a command run twice
    runs twice: what it sees may have changed in between)."""

    repeated: frozenset[str]
    servers: dict[str, Background] = field(default_factory=dict)
    outcomes: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[str, int | None, str]] = field(default_factory=dict)
    _ports: dict[tuple[str, str], str] = field(default_factory=dict)

    @classmethod
    def of(cls, pages: list[list[Block]]) -> Shared:
        starts = [{c.text for b in page for c in b.commands if c.background} for page in pages]
        return cls(frozenset(text for text in set().union(*starts) if sum(text in page for page in starts) > 1))

    def port(self, text: str, port: str) -> str:
        return self._ports.setdefault((text, port), str(_free_port()))

    def stop(self) -> list[str]:
        """Ctrl-C to every shared server, last started first: the failures of those that did not exit 0."""
        failures = []
        for text, started in reversed(list(self.servers.items())):
            code = _stop_group(started.proc, signal.SIGINT)
            if code != 0:
                failures.append(f"{text[:160]}: Ctrl-C: exit {code}, documented 0\n{started.output()[-3000:]}")
        self.servers.clear()
        return failures


def with_ports(text: str, ports: Mapping[str, str]) -> str:
    return _PORT.sub(lambda m: ports.get(m.group(1), m.group(1)), text)


def matches(documented: str, printed: str) -> bool:
    """``printed`` is ``documented``, where ``XXXX`` and ``<...>`` stand for anything."""
    pattern = re.escape(documented)
    pattern = re.sub(r"X{4,}", ".*", pattern)
    pattern = re.sub(r"<[^>]*>", ".*", pattern.replace(r"\<", "<").replace(r"\>", ">"))
    return re.fullmatch(pattern, printed.strip()) is not None


def first_line(output: str) -> str:
    return next((line.strip() for line in output.splitlines() if line.strip()), "")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _terminal_sigint() -> None:
    """As a terminal starts a program: SIGINT at its default even if this test run has it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class Background:
    command: Command
    proc: subprocess.Popen
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@dataclass
class LongRun(Background):
    where: str = ""
    started: float = 0.0


class PageRun:
    """One page's commands, in order, in ``cwd`` (a copy of the repository): exports carry on to the
    commands after them, background servers live until :meth:`finish` stops them."""

    def __init__(
        self, cwd: Path, env: Mapping[str, str], ports: Mapping[str, str], logs: Path, shared: Shared | None = None
    ):
        self.cwd = cwd
        self.env = dict(env)
        self.exported: dict[str, str] = {}  # what the page's own exports changed, so far
        self.ports = ports
        self.logs = logs
        self.shared = shared or Shared(frozenset())
        self.background: list[Background] = []
        self.long_runs: list[LongRun] = []
        self.failures: list[str] = []
        self.timings: list[tuple[float, str]] = []  # (seconds, where): what a slow page spends its time on
        self.served: set[str] = set()  # the ports of the page's servers so far: a later server listens on another

    def check(self, ok: bool, where: str, what: str, output: str = "") -> None:
        if not ok:
            self.failures.append(f"{where}: {what}\n{output[-3000:]}")

    def run(self, block: Block, cuda: bool) -> None:
        for command in block.commands:
            where = f"{block.page}:{command.line}: {command.text[:160]}"
            text = with_ports(command.text, self.ports)
            if "manual" in block.tags or ("gpu" in block.tags and not cuda):
                self._exists(text, where)
            elif text.startswith("export "):
                self._export(text, where)
            elif command.background:
                self._start(command, text, where)
            elif "long" in block.tags:
                self._long(command, text, where)
            else:
                self._once(command, text, where, block.page, aws="aws" in block.tags)

    def _exists(self, text: str, where: str) -> None:
        words = [w for w in shlex.split(text) if "=" not in w.split("/")[0]]
        program = words[0] if words else ""
        found = (
            (self.cwd / program).exists() if "/" in program else bool(shutil.which(program, path=self.env.get("PATH")))
        )
        self.check(found, where, f"{program!r} does not exist")

    def _export(self, text: str, where: str) -> None:
        done = subprocess.run(
            ["bash", "-c", f"{text}\nenv -0"], cwd=self.cwd, env=self.env, capture_output=True, text=True, timeout=30
        )
        self.check(done.returncode == 0, where, f"exit {done.returncode}", done.stderr)
        env = dict(item.split("=", 1) for item in done.stdout.split("\0") if "=" in item)
        self.exported.update({k: v for k, v in env.items() if self.env.get(k) != v})
        self.env = env

    def _popen(self, text: str, log: Path) -> subprocess.Popen:
        with log.open("w") as out:  # the child keeps its own copy of the descriptor
            return subprocess.Popen(
                ["bash", "-c", text],
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_terminal_sigint,
            )

    def _log(self) -> Path:
        return Path(tempfile.mkstemp(dir=self.logs, suffix=".log")[1])

    def _once(self, command: Command, text: str, where: str, page: str, aws: bool) -> None:
        key = (text, tuple(sorted(self.exported.items())))
        ran_on, code, output = self.shared.outcomes.get(key, (page, None, ""))
        if ran_on == page:
            log = self._log()
            started = time.monotonic()
            proc = self._popen(text, log)
            try:
                code = proc.wait(timeout=COMMAND_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                code = None
            finally:
                _stop_group(proc, signal.SIGKILL)
            self.timings.append((time.monotonic() - started, where))
            output = log.read_text(errors="replace")
            self.shared.outcomes[key] = page, code, output
        expected = command.exit_code if command.exit_code is not None else (3 if aws else 0)
        self.check(code == expected, where, f"exit {code}, documented {expected}", output)
        self._first_line(command, output, where)
        if aws and expected == 3:
            errors = [line for line in output.splitlines() if line.startswith("error: ")]
            self.check(len(errors) == 1, where, "not one `error:` line", output)
            self.check("fix:" in output, where, "no `fix:` advice", output)
        self.check("Traceback (most recent call last)" not in output, where, "a traceback", output)

    def _first_line(self, command: Command, output: str, where: str) -> None:
        if command.output:
            documented = with_ports(command.output[0], self.ports)
            printed = first_line(output)
            self.check(matches(documented, printed), where, f"first line {printed!r}, documented {documented!r}")

    def _start(self, command: Command, text: str, where: str) -> None:
        # The server's own port: the first its command names that no earlier server of the page listens on (a
        # server given another's address, an agent given its model server's, waits for its own).
        ports = [p for p in self.ports.values() if re.search(rf"(?<!\d){p}(?!\d)", text) and p not in self.served]
        self.served.update(ports[:1])
        running = self.shared.servers.get(command.text)
        if running is not None and running.proc.poll() is None:  # another page's, on this page's ports
            self._first_line(command, running.output(), where)
            return
        log = self._log()
        proc = self._popen(text, log)
        if command.text in self.shared.repeated:
            self.shared.servers[command.text] = Background(command, proc, log)
        else:
            self.background.append(Background(command, proc, log))
        started = time.monotonic()
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                self.check(False, where, f"a server that stopped by itself (exit {proc.returncode})", log.read_text())
                return
            if _ready(ports[0] if ports else None, log, len(command.output) > 0):
                self.timings.append((time.monotonic() - started, f"{where} (until ready)"))
                self._first_line(command, log.read_text(errors="replace"), where)
                return
            time.sleep(0.5)
        self.check(False, where, f"not ready after {READY_TIMEOUT_S:.0f} s", log.read_text())

    def _long(self, command: Command, text: str, where: str) -> None:
        log = self._log()
        self.long_runs.append(LongRun(command, self._popen(text, log), log, where, time.monotonic()))

    def _end_long_runs(self) -> None:
        """Each long command, once it has printed its first line or had :data:`LONG_RUN_S`: its documented
        exit code if it finished, else Ctrl-C (to all of them at once), exit 130 and nothing left behind."""
        for run in self.long_runs:
            while run.proc.poll() is None and not first_line(run.output()):
                if time.monotonic() > run.started + LONG_RUN_S:
                    break
                time.sleep(0.2)
            self.timings.append((time.monotonic() - run.started, f"{run.where} (until its first line)"))
        stopped = [run for run in self.long_runs if run.proc.poll() is None]
        for run in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(run.proc.pid, signal.SIGINT)
        for run in self.long_runs:
            if run not in stopped:
                expected = run.command.exit_code or 0
                code = run.proc.returncode
                self.check(code == expected, run.where, f"exit {code}, documented {expected}", run.output())
                continue
            code = _stop_group(run.proc, None)
            output = run.output()
            self.check(code == 130, run.where, f"Ctrl-C: exit {code}, documented 130", output)
            self.check(not _group_alive(run.proc.pid), run.where, "processes left behind after Ctrl-C", output)
        self.long_runs.clear()

    def finish(self) -> None:
        """The long commands' ends (:meth:`_end_long_runs`), then Ctrl-C to every background server, last
        started first: each must exit 0."""
        self._end_long_runs()
        for started in reversed(self.background):
            code = _stop_group(started.proc, signal.SIGINT)
            where = f"{started.command.line}: {started.command.text[:160]}"
            self.check(code == 0, where, f"Ctrl-C: exit {code}, documented 0", started.output())
        self.background.clear()


def _stop_group(proc: subprocess.Popen, sig: signal.Signals | None) -> int | None:
    """Send ``sig`` to the command's process group (None: it was sent already); SIGKILL what is left after
    the grace period."""
    if proc.poll() is None:
        if sig is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=STOP_TIMEOUT_S)
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return None
    deadline = time.monotonic() + 10
    while _group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    return proc.returncode


def _ready(port: str | None, log: Path, prints: bool) -> bool:
    """A server is ready when its port answers (and its /ping says 200 where there is one), or, with no
    port named, once it has printed its first line."""
    if port is None:
        return bool(first_line(log.read_text(errors="replace")))
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=1):
            pass
    except OSError:
        return False
    if prints and not first_line(log.read_text(errors="replace")):
        return False
    try:
        reply = httpx.get(f"http://127.0.0.1:{port}/ping", timeout=2)
    except httpx.TimeoutException:
        return False  # a server too busy loading its model to answer yet (a loaded machine): not ready
    except httpx.HTTPError:
        return True  # not an HTTP server with /ping (TLS, say): an open port is all there is to wait for
    loading = reply.status_code == 503 and reply.headers.get("content-type", "").startswith("application/json")
    return not loading or reply.json().get("status") == "failed"  # failed: the commands after it say so


@contextlib.contextmanager
def page_run(
    cwd: Path, env: Mapping[str, str], ports: Mapping[str, str], logs: Path, shared: Shared | None = None
) -> Iterator[PageRun]:
    run = PageRun(cwd, env, ports, logs, shared)
    try:
        yield run
    finally:
        run.finish()
