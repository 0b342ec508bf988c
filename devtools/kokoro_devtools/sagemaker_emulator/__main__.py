"""``python -m kokoro_devtools.sagemaker_emulator --port 8443 --container http://127.0.0.1:8090``

Prints the endpoint URL and the CA file to trust, then serves until stopped: the SageMaker HTTP/2
SDK reads ``SSL_CERT_FILE``, boto3 (``InvokeEndpoint``, HTTP/1.1) reads ``AWS_CA_BUNDLE``.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from kokoro_devtools.sagemaker_emulator.bridge import Settings, serve_stream
from kokoro_devtools.sagemaker_emulator.http2 import Http2Connection
from kokoro_devtools.sagemaker_emulator.invocations import serve_invocations
from kokoro_devtools.sagemaker_emulator.tls import server_context


def container_base(url: str) -> str:
    parts = urlsplit(url)
    scheme = {"http": "http", "https": "https", "ws": "http", "wss": "https"}.get(parts.scheme)
    if scheme is None or not parts.hostname:
        raise argparse.ArgumentTypeError(f"not a container URL: {url!r} (give one like http://127.0.0.1:8090)")
    return f"{scheme}://{parts.netloc}{parts.path.rstrip('/')}"


async def serve(host: str, port: int, settings: Settings, ca_file: Path) -> None:
    context = server_context(ca_file)
    handler = functools.partial(serve_stream, settings)

    async def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if writer.get_extra_info("ssl_object").selected_alpn_protocol() == "h2":
            await Http2Connection(reader, writer, handler).serve()
        else:  # boto3's InvokeEndpoint speaks HTTP/1.1
            await serve_invocations(reader, writer, settings)

    server = await asyncio.start_server(on_connection, host, port, ssl=context)
    bound = server.sockets[0].getsockname()[1]
    print(f"SageMaker emulator: https://{host}:{bound} -> {settings.container_ws}", flush=True)
    print(f"export SSL_CERT_FILE={ca_file} AWS_CA_BUNDLE={ca_file}  # trust its CA", flush=True)
    async with server:
        await server.serve_forever()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kokoro_devtools.sagemaker_emulator", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8443, help="port (SageMaker's is 8443; 0 picks a free one)")
    parser.add_argument("--container", type=container_base, required=True, help="the model container's base URL")
    parser.add_argument(
        "--ca-file",
        type=Path,
        default=None,
        help="where to write the throwaway CA's PEM (default: a new temporary folder)",
    )
    parser.add_argument(
        "--open-timeout",
        type=float,
        default=2.0,
        help="seconds the container has to accept the WebSocket (the platform: ~0.25)",
    )
    args = parser.parse_args(argv)
    ca_file = (args.ca_file or Path(tempfile.mkdtemp(prefix="sagemaker-emulator-")) / "ca.pem").resolve()
    settings = Settings(container=args.container, open_timeout_s=args.open_timeout)
    try:
        asyncio.run(serve(args.host, args.port, settings, ca_file))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
