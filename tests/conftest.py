"""The suite's settings (markers, hypothesis, timeouts) and its shared fixtures: one real model server, one G2P,
the rebuilt torch weights and one torch server on them."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

# torch's OpenMP threads (the torch engine's tests and their server) sleep when idle instead of spinning: on
# the suite's 2 busy cores a spinning thread only takes time from the other worker's processes (a torch
# convolution loop beside the suite: 0.83-0.86 CPU-s passive against 1.53-1.64 spinning, and faster). It must
# be set before libgomp starts: here, before anything imports torch; the servers the tests start inherit it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# Likewise the ONNX engine's threads, in every model server the suite starts (its own and the CLIs'; the
# documented pages run with a reader's environment, without either): a spinning thread there cost the
# suite's other processes a third more CPU per render (decision 158).
os.environ.setdefault("KOKORO_ONNX_SPIN", "false")

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir
from needs import heaviest_first, mark, scope

from kokoro_server.text.phonemes import Phonemizer
from kokoro_stacks.agent.bundle_cache import CACHE_VARIABLE
from kokoro_stacks.project import use_project_node
from speech_protocol.voices import DEFAULT_VOICE

if TYPE_CHECKING:
    from kokoro_server.engine.synthesizer import Synthesizer

# The stack tests synthesize in-process: jsii runs on the project's supported Node, as `cdk synth` does.
use_project_node(os.environ)

# The SageMaker stream's SDK exists for Python >= 3.12 only: test.sh runs these files on .venv312 (the
# agent's Python), so the 3.11 run leaves them out rather than reporting them skipped.
if sys.version_info < (3, 12):
    collect_ignore = [
        "agent/test_sagemaker_transport.py",
        "devtools/test_emulator_model_server.py",
        "devtools/test_sagemaker_emulator.py",
    ]

# Property tests check correctness, never speed: no per-example deadline on a busy 2-core CI machine. Each
# test draws the same examples on every run (derandomize: the seed comes from the test's own code), and no
# example database replays an earlier run's failures: a verdict depends on the code only, never on the run
# or the runs before it (tests/test_hypothesis_profile.py). What hypothesis still keeps (a cache of the
# code's constants) goes to the temporary folder, not to .hypothesis/ in the repository.
settings.register_profile(
    "project", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True, database=None
)
settings.load_profile("project")
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / f"hypothesis-{os.getuid()}")


@pytest.fixture(autouse=True)
def _sigterm_handler_restored() -> Iterator[None]:
    """A CLI run in-process (CliRunner) turns SIGTERM into KeyboardInterrupt for its children's sake
    (kokoro_processes.children): that must not outlive the test, or SIGTERM to this run raises anywhere."""
    handler = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, handler)


def pytest_configure(config: pytest.Config) -> None:
    """One agent bundle cache for the whole run (docs/decisions/164-agent-bundles-kept-across-cdk-outs.md):
    its workers, and the CLIs, synths and emulators they start, bundle the agent once per set of inputs instead
    of once per ``cdk.out``. The run's own, never a reader's: a test's fake projects must not reach theirs.
    A worker inherits the controller's."""
    if hasattr(config, "workerinput"):
        return
    folder = tempfile.mkdtemp(prefix="kokoro-agent-bundles-")
    os.environ[CACHE_VARIABLE] = folder
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test marked by what it needs (tests/needs.py): ``./test.sh --fast`` selects by these marks. On
    parallel workers, the scopes with the longest tests go first (``--no-loadscope-reorder`` keeps it)."""
    mark(items)
    # A pytest-xdist worker collects with ``dist`` reset to "no" (xdist's remote setup_config), and the
    # controller schedules in the order the workers collected: the order must be made there.
    if config.getoption("dist", "no") == "loadscope" or hasattr(config, "workerinput"):
        heaviest_first(items)


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: .venv312 runs without it
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist loadscope`` takes the suite's own scopes (tests/needs.py): a file, or a folder of files that
    share session fixtures. (``loadgroup`` would do it by marker, but pytest-xdist 3.8 cannot rename a test
    under pytest 9.)"""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SuiteScopes(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope(nodeid)

    return SuiteScopes(config, log)


@pytest.fixture(scope="session")
def model_server_url() -> Iterator[str]:
    """Base URL (``http://127.0.0.1:PORT``) of a warm, real model server."""
    from servers import SERVER_START_S, model_server_process  # imported here: the Python 3.12 SDK run has no httpx

    # Lifted listener limit: these tests check behaviour, not capacity (tests/container/test_admission.py).
    with model_server_process("onnx", "--max-sessions", "64", timeout_s=SERVER_START_S) as url:
        yield url


@pytest.fixture(scope="session")
def rebuilt_torch_weights(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    """Kokoro's real weights for the torch engine, rebuilt from the ONNX export (seconds, so once per process:
    the files that use them are one scope, tests/needs.py): the state dicts and the .pth file."""
    from rebuilt_weights import rebuild  # imports torch: only the torch engine's tests pay for it

    return rebuild(tmp_path_factory.mktemp("torch-weights"))


@pytest.fixture(scope="session")
def torch_server_url(rebuilt_torch_weights: tuple[dict, Path]) -> Iterator[str]:
    """A model server on the torch engine (the GPU image's) with the rebuilt weights, batching up to 4 pieces of
    4 listeners, as the torch tests need it; its warm-up is one word (the pace is not what they check)."""
    from servers import QUICK_WARM_UP, SERVER_START_S, model_server_process

    _, weights = rebuilt_torch_weights
    with model_server_process(
        "torch",
        "--torch-model",
        str(weights),
        *QUICK_WARM_UP,
        "--max-batch",
        "4",
        "--max-sessions",
        "4",
        timeout_s=SERVER_START_S,
    ) as url:
        yield url


@pytest.fixture(scope="session")
def phonemizer() -> Phonemizer:
    """One misaki G2P per test process, as a server has one: building one loads spaCy and misaki's lexicons
    (seconds), and it keeps nothing from one read to the next."""
    return Phonemizer()


@pytest.fixture(scope="session")
def synth() -> Synthesizer:
    """The ONNX engine with the offline weights in the test's own process, as a server's worker holds it, with the
    server's default voice: one per test process (loading it is a second of CPU), and it keeps nothing from one
    render to the next."""
    from kokoro_server import assets as model_assets
    from kokoro_server.engine.registry import load_backend
    from kokoro_server.engine.synthesizer import Synthesizer
    from kokoro_server.engine.voices import VoiceBank

    assets = model_assets.resolve("onnx")
    return Synthesizer(load_backend("onnx", assets, "cpu", 0), VoiceBank(assets), default_voice=DEFAULT_VOICE)
