"""``python -m kokoro_devtools.agentcore_emulator.runtime TEMPLATE [--port 8600] [-e NAME=VALUE ...]``

Serves the runtime that TEMPLATE (the agent stack's, from ``cdk synth``) declares, as AgentCore runs it, on
http://127.0.0.1:PORT, until stopped; give that URL to the AgentCore emulator as ``--runtime ARN=URL``. ``-e``
sets or replaces a variable of the template's (the LLM, the model server's address, credentials for it). The
agent's log goes to standard error; standard output carries the address once ``/ping`` answers.
"""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

from kokoro_devtools.agentcore_emulator.runtime.host import RuntimeStartError, running
from kokoro_devtools.agentcore_emulator.runtime.template import TemplateError, read_runtime
from kokoro_devtools.env_option import setting
from kokoro_devtools.local_python import NoSuchPython
from kokoro_processes import children
from kokoro_stacks.agent.bundle_pip import BundlingError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kokoro_devtools.agentcore_emulator.runtime", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument(
        "template", type=Path, help="the agent stack's template, e.g. cdk.out/KokoroVoiceAgent.template.json"
    )
    parser.add_argument("--name", default=None, help="the runtime's name, where the template declares several")
    parser.add_argument("--port", type=int, default=8600, help="port on 127.0.0.1 (default 8600; 0 picks a free one)")
    parser.add_argument("--region", default="us-east-1", help="what the template's AWS::Region stands for")
    parser.add_argument("-e", "--env", action="append", default=[], type=setting, metavar="NAME=VALUE",
                        help="set or replace a variable of the runtime's")  # fmt: skip
    args = parser.parse_args(argv)
    children.end_children_with_parent()
    overrides = dict(item.split("=", 1) for item in args.env)
    try:
        runtime = read_runtime(args.template, args.region, args.name, overrides)
        listener = socket.socket()  # bound now, so a busy port fails first; it listens once the agent answers
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", args.port))
        with listener, running(runtime, listener, log=sys.stderr) as agent:
            port = listener.getsockname()[1]
            print(f"AgentCore runtime {runtime.name}: http://127.0.0.1:{port} (Ctrl-C stops it)", flush=True)
            return agent.wait()
    except KeyboardInterrupt:
        return 0  # a stop that was asked for (docs/decisions/110-a-requested-stop-exits-0.md)
    except (TemplateError, NoSuchPython, BundlingError, RuntimeStartError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
