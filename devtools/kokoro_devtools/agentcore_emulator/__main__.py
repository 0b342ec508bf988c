"""``python -m kokoro_devtools.agentcore_emulator --runtime ARN=URL [--runtime ARN=URL ...]``

Prints the endpoint and the ``export`` that points boto3 at it, then serves until stopped. Callers sign with
the access key and secret given here (default ``test``/``test``), e.g. ``AWS_ACCESS_KEY_ID=test
AWS_SECRET_ACCESS_KEY=test``; each runtime ARN is answered by the agent served at its URL.
"""

from __future__ import annotations

import argparse
import socket

import uvicorn

from kokoro_devtools.agentcore_emulator.app import RUNTIME_ARN, Settings, create_app
from kokoro_devtools.agentcore_emulator.sigv4 import Signer
from kokoro_server.listener import stop_requests_end


def runtime(value: str) -> tuple[str, str]:
    arn, separator, url = value.partition("=")
    if not separator or RUNTIME_ARN.fullmatch(arn) is None or not url.startswith(("http://", "https://")):
        raise argparse.ArgumentTypeError(
            f"not ARN=URL: {value!r} (give one like arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/"
            "kokoro_voice_agent-abc123=http://127.0.0.1:8080)"
        )
    return arn, url.rstrip("/")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kokoro_devtools.agentcore_emulator", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8500, help="port (default 8500; 0 picks a free one)")
    parser.add_argument("--runtime", type=runtime, action="append", required=True, metavar="ARN=URL")
    parser.add_argument("--region", default=None, help="the endpoint's region (default: the first runtime's)")
    parser.add_argument("--access-key", default="test", help="the access key callers must sign with")
    parser.add_argument("--secret-key", default="test", help="its secret")
    parser.add_argument("--max-per-s", type=float, default=None, help="invocations per second per runtime")
    parser.add_argument("--timeout-s", type=float, default=900.0, help="how long the agent may stay silent")
    args = parser.parse_args(argv)
    region = args.region or args.runtime[0][0].split(":")[3]
    signer = Signer(args.access_key, args.secret_key)
    settings = Settings(dict(args.runtime), signer, region, args.max_per_s, args.timeout_s)
    sock = socket.create_server((args.host, args.port))  # bound first, so the banner can name a port 0 picked
    port = sock.getsockname()[1]
    print(f"AgentCore emulator: http://{args.host}:{port} ({region}, {len(settings.runtimes)} runtimes)", flush=True)
    print(f"export AWS_ENDPOINT_URL_BEDROCK_AGENTCORE=http://{args.host}:{port}", flush=True)
    server = uvicorn.Server(uvicorn.Config(create_app(settings), log_level="warning"))
    with stop_requests_end(server):  # Ctrl-C or SIGTERM: a stop that was asked for, exit 0
        server.run(sockets=[sock])


if __name__ == "__main__":
    main()
