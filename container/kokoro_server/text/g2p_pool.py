"""G2P on a few worker processes: misaki is not thread-safe, and one process reads one slice at a time.

Each worker (:mod:`kokoro_server.text.g2p_worker`) is a spawned process (not forked: the server holds the
model's threads) that loads misaki and spaCy once, offline (it inherits ``HF_HUB_OFFLINE`` from the server, and the spaCy model is installed as
a package by ./setup.sh), then reads slices sent over its pipe. The G2P queue's threads, one per worker,
each borrow an idle worker for one slice (docs/decisions/130-fair-g2p-slices.md).

A worker that dies (killed, out of memory, a crash inside espeak) is replaced, and the slice it was
reading is read once more by its replacement; a slice that kills two workers gets :class:`G2PFailed`
(``g2p_failed``) and the server goes on serving. A worker exits when its pipe closes, so even a server
killed with SIGKILL leaves no orphan behind; :meth:`G2PPool.close` ends them all at shutdown.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import threading
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from typing import Any

from kokoro_server.refusals import Refusal
from kokoro_server.text import g2p_worker
from kokoro_server.text.phonemes import Token, UnreadableText

log = logging.getLogger("kokoro_server")
_STOP_S = 2.0  # how long a worker has to exit at shutdown before it is killed
# The most G2P workers a server starts by default, whatever its cores (docs/decisions/130-fair-g2p-slices.md).
MAX_DEFAULT_WORKERS = 4


def default_workers(cores: int | None = None) -> int:
    """Half the cores (the rest for the model and the event loop), at least 1, at most 4: one worker reads
    prose about a hundred times faster than one core speaks it (130-fair-g2p-slices.md)."""
    return max(1, min(MAX_DEFAULT_WORKERS, (cores or os.cpu_count() or 1) // 2))


class G2PFailed(Refusal):
    """A slice's G2P process died twice, or misaki failed on it: the text gets a typed error
    (``g2p_failed``), the server keeps serving (docs/decisions/130-fair-g2p-slices.md)."""

    status, code, log_level = 500, "g2p_failed", logging.ERROR


class _WorkerDied(RuntimeError):
    pass


class _Worker:
    def __init__(self, context: multiprocessing.context.SpawnContext):
        self.conn, child = context.Pipe()
        self.process: BaseProcess = context.Process(
            target=g2p_worker.serve, args=(child,), name="kokoro-g2p", daemon=True
        )
        self.process.start()
        child.close()
        self.ready = False

    def _reply(self) -> object:
        if self.conn not in wait([self.conn, self.process.sentinel]):
            raise _WorkerDied(f"G2P process {self.process.pid} died")
        try:
            return self.conn.recv()
        except (EOFError, OSError) as exc:
            raise _WorkerDied(f"G2P process {self.process.pid} died") from exc

    def wait_ready(self) -> None:
        """Block until the worker has loaded G2P (seconds); raises _WorkerDied if it dies first."""
        if not self.ready:
            if self._reply() != g2p_worker.READY:
                raise _WorkerDied("a G2P process started wrong")
            self.ready = True

    def read(self, text: str, lang: str) -> list[Token]:
        self.wait_ready()
        try:
            self.conn.send((text, lang))
        except OSError as exc:
            raise _WorkerDied(f"G2P process {self.process.pid} died") from exc
        reply: tuple[str, Any] = self._reply()  # type: ignore[assignment]  # the worker sends (status, value) only
        status, value = reply
        if status == "unreadable":
            raise UnreadableText(value)
        if status == "failed":
            raise G2PFailed(f"G2P failed on this text ({value})")
        return value

    def stop(self) -> None:
        """Ask the worker to exit, then make sure it has."""
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.process.join(_STOP_S)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(_STOP_S)
        self.conn.close()


class G2PPool:
    """``size`` G2P worker processes; :meth:`read` is blocking and called from at most ``size`` threads."""

    def __init__(self, size: int):
        if size < 1:
            raise ValueError("g2p_workers must be at least 1")
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._closed = False
        self.replaced = 0  # workers replaced after they died
        self.slices_read = 0  # slices read to the end, every worker together (/ping: work a hang-up stopped)
        self._workers = [_Worker(self._context) for _ in range(size)]
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        for worker in self._workers:
            self._idle.put(worker)

    @property
    def pids(self) -> list[int]:
        with self._lock:
            return [w.process.pid for w in self._workers if w.process.pid is not None]

    def wait_ready(self) -> None:
        """Block until every worker has loaded G2P (at start-up, beside the model's own load)."""
        for worker in list(self._workers):
            worker.wait_ready()

    def read(self, text: str, lang: str) -> list[Token]:
        """One slice's tokens, read by an idle worker; a worker that dies is replaced and the slice read once
        more. Raises :class:`UnreadableText` (misaki could not read it) or :class:`G2PFailed`."""
        worker = self._idle.get()
        try:
            for attempt in (1, 2):
                try:
                    tokens = worker.read(text, lang)
                    with self._lock:
                        self.slices_read += 1
                    return tokens
                except _WorkerDied as died:
                    log.warning("%s while reading a slice (attempt %d); replacing it", died, attempt)
                    worker = self._replace(worker)
            raise G2PFailed("reading the text failed twice on the server (its G2P process died); try again")
        finally:
            self._idle.put(worker)

    def _replace(self, dead: _Worker) -> _Worker:
        dead.stop()
        with self._lock:
            if self._closed:
                raise G2PFailed("the server is shutting down")
            fresh = _Worker(self._context)
            self._workers[self._workers.index(dead)] = fresh
            self.replaced += 1
        return fresh  # it loads G2P while the caller waits for it in its next read

    def close(self) -> None:
        """End every worker at once (the slices they read are abandoned); called once, at shutdown."""
        with self._lock:
            self._closed = True
            workers = list(self._workers)
        for worker in workers:
            worker.process.terminate()
        for worker in workers:
            worker.stop()
