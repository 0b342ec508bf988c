"""Signals to a real CLI process: everything it started ends with it, and an answer in flight is cut short.

The CLIs run as installed console scripts; their process trees are read from ``/proc`` just before the
signal, then every process of that tree must be gone once the CLI has exited.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from aws_env import env_without_aws
from process_tree import descendants
from servers import free_port

BIN = Path(sys.executable).parent
IMAGE = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/kokoro-tts:1"
# Without /proc every tree read here would be empty and every "all gone" check true: no /proc is a failure.
assert Path("/proc/self/task").is_dir(), "these tests read process trees from /proc: run them on Linux, as CI does"


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def start_cli(tmp_path: Path, *argv: str) -> subprocess.Popen:
    """The CLI as a terminal starts it: SIGINT at its default even when this run has it ignored (a
    background job's children inherit an ignored SIGINT, and Python then never raises KeyboardInterrupt)."""
    log = (tmp_path / "cli.log").open("w")
    return subprocess.Popen(
        [str(BIN / argv[0]), *argv[1:]],
        env=env_without_aws(AWS_REGION="eu-west-1"),
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def test_sigterm_to_deploy_agent_local_ends_the_model_server_and_the_answer_in_flight(tmp_path: Path):
    reply = "This answer is long on purpose. " * 20
    port = free_port()
    cli = start_cli(
        tmp_path,
        "deploy-agent",
        "local",
        "--port",
        str(port),
        "--tokens-per-s",
        "2",
        "--reply",
        reply,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: _answers(f"{url}/ping"), 240, "the agent and its model server")
        tree = descendants(cli.pid)
        assert tree, "deploy-agent local started a model server"
        streamed: list[str] = []
        asking = threading.Thread(target=_ask, args=(url, streamed), daemon=True)
        asking.start()
        wait_for(lambda: any(_event(line) for line in streamed), 60, "the answer to start")
        cli.send_signal(signal.SIGTERM)
        cli.wait(timeout=40)  # the answer alone would take a minute at 2 words per second
        asking.join(timeout=10)
        assert cli.returncode == 0, (tmp_path / "cli.log").read_text()  # a server asked to stop, stopped
        assert not [pid for pid in tree if alive(pid)]
        assert not _answers(f"{url}/ping")
        # The answer in flight was cut short: its stream has ended, before the summary that ends a whole
        # answer, with only the start of the reply's text.
        assert not asking.is_alive(), "the answer's stream outlived the agent"
        events = [event for line in streamed if (event := _event(line)) is not None]
        assert events, streamed
        assert "summary" not in [event["type"] for event in events], "the whole answer was given"
        said = "".join(event["text"] for event in events if event["type"] == "text")
        assert reply.startswith(said) and len(said) < len(reply), said
    finally:
        if cli.poll() is None:
            cli.kill()


def test_sigint_to_the_pid_of_deploy_model_synth_alone_ends_the_cdk_tree(tmp_path: Path):
    cli = start_cli(tmp_path, "deploy-model", "--image-uri", IMAGE, "--out-dir", str(tmp_path / "out"), "synth")
    try:
        # cdk -> the CDK app (Python) -> jsii's node: wait until the tree is that deep
        wait_for(lambda: len(descendants(cli.pid)) >= 3, 120, "cdk, the app and jsii")
        tree = descendants(cli.pid)
        os.kill(cli.pid, signal.SIGINT)  # the CLI's PID only, not its process group
        cli.wait(timeout=60)
        assert cli.returncode == 130, (tmp_path / "cli.log").read_text()
        wait_for(lambda: not [pid for pid in tree if alive(pid)], 15, "the cdk tree to end")
    finally:
        if cli.poll() is None:
            cli.kill()


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _event(line: str) -> dict | None:
    """The agent event of an SSE ``data:`` line; None for the stream's other lines."""
    return json.loads(line[5:]) if line.startswith("data:") else None


def _ask(url: str, streamed: list[str]) -> None:
    try:
        with httpx.stream("POST", f"{url}/invocations", json={"prompt": "Talk to me."}, timeout=120) as reply:
            for line in reply.iter_lines():
                streamed.append(line)
    except httpx.HTTPError:
        streamed.append("disconnected")


def test_sigterm_to_the_benchmark_ends_its_model_server(tmp_path: Path):
    log = (tmp_path / "bench.log").open("w")
    bench = subprocess.Popen(
        [sys.executable, "-m", "kokoro_bench", "--quick", "--json", str(tmp_path / "bench.json")],
        env=env_without_aws(),
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for(lambda: descendants(bench.pid), 60, "the benchmark's model server")
        tree = descendants(bench.pid)
        bench.send_signal(signal.SIGTERM)
        bench.wait(timeout=60)
        assert bench.returncode == 130, (tmp_path / "bench.log").read_text()
        assert (tmp_path / "bench.log").read_text().splitlines()[-1] == "bench: interrupted"
        wait_for(lambda: not [pid for pid in tree if alive(pid)], 20, "the model server to end")
    finally:
        if bench.poll() is None:
            bench.kill()


# Starts children in a loop while a thread sends the process SIGTERM every 3-20 ms, then prints how many
# starts a signal interrupted and which children are still running (and kills those, leaving nothing).
_STARTS_UNDER_SIGTERMS = """
import json, os, random, signal, threading, time
from kokoro_processes import children

children.end_children_with_parent()
done = threading.Event()

delays = random.Random(20261207)  # the same storm every run: only the machine's timing varies

def send():
    while not done.is_set():
        time.sleep(delays.uniform(0.003, 0.02))
        os.kill(os.getpid(), signal.SIGTERM)

threading.Thread(target=send, daemon=True).start()
interrupted = 0
for _ in range(300):
    try:
        with children.running(["sleep", "30"]):
            time.sleep(0.01)
    except KeyboardInterrupt:
        interrupted += 1
done.set()
while True:
    try:
        time.sleep(0.5)  # the last SIGTERMs in flight
        break
    except KeyboardInterrupt:
        pass

def is_running(pid):
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False

me = os.getpid()
mine = [int(pid) for task in os.listdir(f"/proc/{me}/task") for pid in open(f"/proc/{me}/task/{task}/children").read().split()]
left = [pid for pid in mine if is_running(pid)]
for pid in left:
    os.kill(pid, signal.SIGKILL)
print(json.dumps({"interrupted": interrupted, "left": left}))
"""


def test_a_signal_while_a_child_starts_never_leaves_it_running():
    """A SIGTERM inside ``Popen``, after its fork, once left the child running with nobody to stop it
    (about 1 start in 40 under this storm; decision 023): the benchmark's model server outlived it."""
    ran = subprocess.run(
        [sys.executable, "-c", _STARTS_UNDER_SIGTERMS], capture_output=True, text=True, timeout=120, check=True
    )
    report = json.loads(ran.stdout)
    assert report["interrupted"] > 0, "no signal landed during a start"
    assert report["left"] == [], f"{len(report['left'])} children outlived their start's interruption"


def _cpu_s(pid: int) -> float:
    """The user CPU seconds the process has used (``/proc/<pid>/stat``)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11]) / os.sysconf("SC_CLK_TCK")


def test_ctrl_c_to_the_benchmark_mid_render_exits_130(tmp_path: Path):
    """The run times the server's overhead against the engine loaded in its own process, with onnxruntime's
    threads running: before every command was registered through kokoro_bench.interruption, a Ctrl-C
    there aborted the interpreter (SIGABRT, decision 110)."""
    log = (tmp_path / "bench.log").open("w")
    bench = subprocess.Popen(
        [sys.executable, "-m", "kokoro_bench", "--quick", "--json", str(tmp_path / "bench.json")],
        env=env_without_aws(),
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # a group of its own, which gets the Ctrl-C as a terminal's would
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as in start_cli
    )
    try:
        wait_for(lambda: "timing the overhead" in (tmp_path / "bench.log").read_text(), 300, "the in-process engine")
        tree = descendants(bench.pid)
        started = _cpu_s(bench.pid)
        wait_for(lambda: _cpu_s(bench.pid) > started + 2, 300, "2 s of rendering")  # inside the renders
        os.killpg(bench.pid, signal.SIGINT)
        bench.wait(timeout=60)
        output = (tmp_path / "bench.log").read_text()
        assert bench.returncode == 130, output
        assert output.splitlines()[-1] == "bench: interrupted" and "Traceback" not in output, output
        wait_for(lambda: not [pid for pid in tree if alive(pid)], 20, "the model server and G2P processes to end")
    finally:
        if bench.poll() is None:
            os.killpg(bench.pid, signal.SIGKILL)


LOADING = """
import time
from kokoro_bench.interruption import interruptible_while_loading
with interruptible_while_loading("bench"):
    print("loading", flush=True)
    time.sleep(120)
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_while_the_benchmark_loads_its_libraries_exits_130(tmp_path: Path, sig: signal.Signals):
    """``python -m kokoro_bench`` imports its command line under ``interruptible_while_loading`` (seconds on
    a loaded machine); a Ctrl-C or SIGTERM then is one line and exit 130, as later, not a traceback."""
    log = tmp_path / "bench.log"
    with log.open("w") as out:
        bench = subprocess.Popen(
            [sys.executable, "-c", LOADING],
            env=env_without_aws(),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    try:
        wait_for(lambda: log.read_text() == "loading\n", 120, "the load to start")
        os.killpg(bench.pid, sig)
        bench.wait(timeout=60)
        assert bench.returncode == 130 and log.read_text() == "loading\nbench: interrupted\n", log.read_text()
    finally:
        if bench.poll() is None:
            os.killpg(bench.pid, signal.SIGKILL)
