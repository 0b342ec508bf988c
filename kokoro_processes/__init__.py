"""Local processes: what the deploy CLIs, the benchmark and the tests start on this machine and stop again.

Below both the CLIs and the benchmark, so neither imports the other for it (docs/decisions/134-bench-layout.md).
Its public modules:

* :mod:`kokoro_processes.children`: child processes in their own process groups, stopped as a whole;
* :mod:`kokoro_processes.servers`: a model server subprocess and an ASGI app in a thread, each on a free
  loopback port and warm before it is used;
* :mod:`kokoro_processes.tree`: a process tree's CPU seconds, from ``/proc``;
* :mod:`kokoro_processes.errors`: :class:`~kokoro_processes.errors.ServerFailed`, a server that did not start.

Nothing is imported here (docs/decisions/119-public-names.md).
"""

__all__ = ["children", "errors", "servers", "tree"]
