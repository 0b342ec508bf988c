"""``listening_pid``: the benchmark finds the process serving a port (to read its CPU time), and says so
clearly when nothing serves it."""

from __future__ import annotations

import os
import socket

import pytest
from servers import free_port

from kokoro_bench.errors import BenchError
from kokoro_bench.measuring.process_stats import listening_pid


def test_the_process_holding_the_listening_socket_is_found():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        assert listening_pid(server.getsockname()[1]) == os.getpid()


def test_a_port_nothing_listens_on_is_a_clear_error():
    port = free_port()
    with pytest.raises(BenchError, match=f"no one process serves port {port}"):
        listening_pid(port)
