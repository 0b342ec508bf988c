"""Inside the runtime's network namespace (started by ``unshare --net``): its loopback up, the bridges to this
machine, then the agent's entry point, whose exit status becomes this process's.

``python -m kokoro_devtools.agentcore_emulator.runtime.sandbox --sockets DIR --environment FILE --code DIR
[--outbound PORT ...] -- PYTHON ENTRYPOINT...``: ``DIR/inbound.sock`` reaches the agent's port 8080; each
``--outbound`` port on the namespace's 127.0.0.1 reaches ``DIR/outbound-PORT.sock``, which the host side joins to
the same port on this machine. The agent gets exactly the environment in ``FILE`` (JSON), nothing of this one.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import signal
import socket
import struct
from functools import partial
from pathlib import Path

from kokoro_devtools.agentcore_emulator.runtime.bridge import splice, to_tcp, to_unix

AGENT_PORT = 8080  # AgentCore's contract: the entry point serves 0.0.0.0:8080
INBOUND = "inbound.sock"
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1


def outbound_socket(port: int) -> str:
    return f"outbound-{port}.sock"


def loopback_up() -> None:
    """A new network namespace's ``lo`` is down, and 127.0.0.1 unreachable, until it is brought up."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(sock, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, _SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | _IFF_UP))


async def run(sockets: Path, outbound: list[int], environment: dict[str, str], code: Path, command: list[str]) -> int:
    inbound = partial(splice, to_tcp("127.0.0.1", AGENT_PORT))
    servers = [await asyncio.start_unix_server(inbound, path=str(sockets / INBOUND))]
    for port in outbound:
        here = partial(splice, to_unix(str(sockets / outbound_socket(port))))
        servers.append(await asyncio.start_server(here, "127.0.0.1", port))
    agent = await asyncio.create_subprocess_exec(*command, cwd=code, env=environment)

    def pass_on(sig: signal.Signals) -> None:  # a stop of this process is a stop of the agent
        if agent.returncode is None:
            agent.send_signal(sig)

    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, pass_on, sig)
    status = await agent.wait()
    for server in servers:
        server.close()
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kokoro_devtools.agentcore_emulator.runtime.sandbox")
    parser.add_argument("--sockets", type=Path, required=True)
    parser.add_argument("--environment", type=Path, required=True)
    parser.add_argument("--code", type=Path, required=True)
    parser.add_argument("--outbound", type=int, action="append", default=[])
    parser.add_argument("command", nargs="+")
    args = parser.parse_args(argv)
    loopback_up()
    environment = json.loads(args.environment.read_text())
    status = asyncio.run(run(args.sockets, args.outbound, environment, args.code, args.command))
    return status if status >= 0 else 128 - status  # killed by a signal: the shell's convention


if __name__ == "__main__":
    raise SystemExit(main())
