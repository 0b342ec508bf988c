"""``python -m kokoro_devtools.local_aws [--port 5000] [--agentcore-port 8500] [--model-server URL [--sagemaker-port 8443]
[--ca-file PATH]] [-e NAME=VALUE]``

Serves moto on http://localhost:PORT (every AWS API the CLIs and ``cdk`` call) and the AgentCore emulator on
http://127.0.0.1:AGENTCORE-PORT; prints the ``export`` line that points boto3 and ``cdk`` at both, then serves until
stopped. A code runtime that a stack creates is started from the agent's bundle and answers by its ARN; Bedrock is
not here, so its words come from the scripted LLM. ``--model-server`` puts the SageMaker emulator in front of a
model server and gives every runtime its address: then the runtimes speak as deployed, and ``deploy-model``'s
smoke test reaches the container through ``AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME`` and the CA bundle ``--ca-file``. ``-e`` sets or replaces a
variable of every runtime's.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import certifi
from moto.moto_server.threaded_moto_server import ThreadedMotoServer

from kokoro_devtools.agentcore_emulator.app import Settings, create_app
from kokoro_devtools.agentcore_emulator.sigv4 import Signer
from kokoro_devtools.env_option import setting
from kokoro_devtools.local_aws import moto_as_aws
from kokoro_devtools.local_aws.runtime_resource import AgentRuntimeResource
from kokoro_devtools.local_aws.runtimes import LocalRuntimes
from kokoro_processes import children
from kokoro_processes.servers import agent_server_thread

ACCESS_KEY = SECRET_KEY = "test"  # what callers sign with; moto takes any, the AgentCore emulator checks these


@contextlib.contextmanager
def sagemaker_endpoint(model_server: str, port: int, trusted: Path | None) -> Iterator[tuple[str, Path]]:
    """The SageMaker emulator in front of ``model_server``: its URL, and a CA bundle (at ``trusted``, or in a
    temporary folder) that trusts it as well as the public CAs (``SSL_CERT_FILE`` replaces Python's trust store:
    pip must still reach PyPI at synth)."""
    with tempfile.TemporaryDirectory(prefix="local-aws-") as folder:
        ca_file = Path(folder) / "ca.pem"
        trusted = (trusted or Path(folder) / "trusted.pem").resolve()
        trusted.parent.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "kokoro_devtools.sagemaker_emulator", "--port", str(port)]
        command += ["--container", model_server, "--ca-file", str(ca_file)]
        with children.running(command, grace_s=15, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
            assert proc.stdout is not None  # a pipe: stdout=PIPE
            banner = proc.stdout.readline()
            if "https://" not in banner:
                raise SystemExit(f"error: the SageMaker emulator did not start: {banner}{proc.stdout.read()[-2000:]}")
            trusted.write_text(Path(certifi.where()).read_text() + ca_file.read_text())
            yield banner.split()[2], trusted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kokoro_devtools.local_aws", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--port", type=int, default=5000, help="moto's port on 127.0.0.1 (default 5000)")
    parser.add_argument("--agentcore-port", type=int, default=8500, help="the AgentCore emulator's (default 8500)")
    parser.add_argument("--region", default="us-east-1", help="the AgentCore endpoint's region (default us-east-1)")
    parser.add_argument("--model-server", default=None, metavar="URL", help="a model server for the runtimes' speech")
    parser.add_argument("--sagemaker-port", type=int, default=8443, help="its SageMaker emulator's (default 8443)")
    parser.add_argument("--ca-file", type=Path, default=None, help="where to write the CA bundle that trusts it")
    parser.add_argument("-e", "--env", action="append", default=[], type=setting, metavar="NAME=VALUE",
                        help="set or replace a variable of every runtime's")  # fmt: skip
    args = parser.parse_args(argv)
    children.end_children_with_parent()
    overrides = {"LLM_PROVIDER": "scripted", "AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY}
    exports = {"AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY}
    routes: dict[str, str] = {}
    emulator = create_app(Settings(routes, Signer(ACCESS_KEY, SECRET_KEY), args.region))
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's server logs every request otherwise
    moto = ThreadedMotoServer("127.0.0.1", args.port, verbose=False)
    try:
        with contextlib.ExitStack() as stack:
            if args.model_server:
                url, trusted = stack.enter_context(
                    sagemaker_endpoint(args.model_server, args.sagemaker_port, args.ca_file)
                )
                overrides |= {"TTS_ENDPOINT_URL": url, "SSL_CERT_FILE": str(trusted)}
                # boto3's InvokeEndpoint and the CLIs' session check both read the runtime's URL from here
                exports |= {"AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME": url, "AWS_CA_BUNDLE": str(trusted)}
                exports |= {"SSL_CERT_FILE": str(trusted)}
            overrides |= dict(item.split("=", 1) for item in args.env)
            runtimes = LocalRuntimes(routes, overrides, log=sys.stderr)
            AgentRuntimeResource.runtimes = runtimes
            moto_as_aws.install()
            stack.callback(runtimes.close)
            agentcore = stack.enter_context(agent_server_thread(emulator, port=args.agentcore_port))
            moto.start()
            stack.callback(moto.stop)
            port = moto.get_host_and_port()[1]
            print(f"Local AWS: moto on http://localhost:{port}, AgentCore on {agentcore}", flush=True)
            exports = {
                "AWS_ENDPOINT_URL": f"http://localhost:{port}",
                "AWS_ENDPOINT_URL_BEDROCK_AGENTCORE": agentcore,
            } | exports
            print("export " + " ".join(f"{name}={value}" for name, value in exports.items()), flush=True)
            threading.Event().wait()  # until Ctrl-C or SIGTERM
    except KeyboardInterrupt:
        return 0  # a stop that was asked for (docs/decisions/110-a-requested-stop-exits-0.md)
    except OSError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
