"""What each test needs beyond its own process, as a pytest marker, found from what the test uses.

The markers (registered in pyproject.toml, where ``--strict-markers`` refuses any other):

* ``server``: a real model server (the session's shared one, or one of its own);
* ``recognizer``: the speech recognizer judges its audio;
* ``browser``: headless Chromium;
* ``cdk``: aws-cdk-lib synthesis over jsii, or the ``cdk`` CLI;
* ``aws_emulator``: moto, or the SageMaker bidirectional-stream emulator;
* ``model``: runs the speech model in the test's own process (the real ONNX weights, or torch);
* ``network``: reaches a package registry;
* ``unit``: none of these.

``./test.sh --fast`` runs the tests marked ``unit`` or ``aws_emulator`` only (docs/decisions/095-test-markers.md).

Nobody writes these marks by hand, so none goes stale: a test needs what its fixtures are (FIXTURES), and
what the code it runs names or imports itself (NAMES, MODULES), followed through the suite's own helpers in tests/ (a
fixture's function, ``stack_synth.synthesize``, ``speech.transcribe`` ...). What a subprocess or a CLI
starts is out of that sight: those tests are listed by path in BEHIND_A_COMMAND.

``scope`` is what a parallel worker (pytest-xdist, ``--dist loadscope``) takes whole: a file, or a folder
whose files share session fixtures.
"""

from __future__ import annotations

import dis
import fnmatch
import importlib
import inspect
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
FIXTURES = {"model_server_url": "server", "moto_url": "aws_emulator"}
# Names that mean the need wherever the code names them (a global, an import inside a function, an attribute).
NAMES = {
    "model_server_process": "server",
    "model_server_child": "server",
    "SpeechRuntime": "server",  # the model server's runtime, loaded in the test's own process
    "faster_whisper": "recognizer",
    "chromium_page": "browser",
    "sagemaker_emulator": "aws_emulator",
    "agentcore_emulator": "aws_emulator",
    "local_aws": "aws_emulator",
    "aws_cdk": "cdk",
    "load_backend": "model",
    "InferenceSession": "model",
}
# The module (or package) an object the code names comes from.
MODULES = {
    "faster_whisper": "recognizer",
    "browser": "browser",
    "aws_cdk": "cdk",
    "moto": "aws_emulator",
    "kokoro": "model",
    "kokoro_devtools.torch_weights": "model",
}
# Tests whose need runs behind a command: "path relative to tests/::test name pattern" -> markers.
BEHIND_A_COMMAND = {
    # kokoro_bench --quick with no --server-url starts its own server (whose model then fails to load)
    "bench/test_broken_server.py::test_a_model_that_fails_to_load_*": ("server",),
    # every documented command, as written: model servers, the stock cdk synth (pip bundles from PyPI)
    "docs/test_documented_commands.py::*": ("server", "cdk", "network"),
    "container/test_listener.py::*": ("server",),  # python -m kokoro_server
    # kokoro-serve started until /ping answers (the model then loads), and stopped
    "container/test_server_advice.py::test_a_voices_dir_*": ("server",),
    "container/test_server_advice.py::test_a_bad_engine_*": ("server",),
    "container/test_server_advice.py::test_an_assets_dir_*": ("server",),
    "container/test_server_advice.py::test_torch_without_*": ("server", "model"),  # rebuilds the torch weights
    "container/test_cli.py::test_a_signal_stops_the_server_*": ("server",),
    "cli/local/test_agent_local.py::test_a_model_server_still_loading_*": ("server",),  # deploy-model local
    "devtools/test_emulator_model_server.py::*": ("server",),  # .venv's python -m kokoro_server, from 3.12
    "cli/local/test_agent_local.py::test_local_starts_its_own_model_server": ("server",),
    "cli/common/test_signals.py::test_sigterm_to_deploy_agent_local_*": ("server",),
    "cli/common/test_signals.py::test_sigterm_to_the_benchmark_*": ("server",),  # kokoro_bench --quick
    "cli/common/test_signals.py::test_ctrl_c_to_the_benchmark_mid_render_*": ("server", "model"),  # --quick
    "cli/common/test_signals.py::test_sigint_to_the_pid_of_deploy_model_synth_*": ("cdk",),
    "cli/deploy/test_deploy_model.py::test_synth_*": ("cdk",),
    "cli/deploy/test_deploy_agent.py::test_synth_*": ("cdk",),
    "cli/deploy/test_moto_deploy.py::*": ("cdk",),
    "stacks/test_cdk_synth.py::*": ("cdk",),
    "stacks/test_stock_synth.py::*": ("cdk", "network"),  # pip fetches the agent's arm64 wheels from PyPI
    "stacks/test_unreachable_index.py::test_the_stock_synth_*": ("cdk",),  # npx cdk synth, the model stack
    "cli/common/test_region_and_credentials.py::test_diff_and_destroy_*": ("cdk",),  # the fix runs cdk destroy
    "stacks/test_agent_bundle.py::test_following_the_old_pip_hint_*": ("network",),  # pip installs pip
    # python -m kokoro_devtools.images: builds reach PyPI, npm and Debian; the images serve the model
    "images/test_images.py::*": ("server", "network"),
    # the template from python app.py (the CDK app); the runtime bundles the agent with pip from PyPI
    "devtools/test_agentcore_runtime.py::*": ("cdk",),
    "cli/deploy/test_local_aws_deploy.py::*": ("cdk", "network"),  # the stock synth bundles the agent from PyPI
    "cli/deploy/test_local_aws_failures.py::*": ("cdk", "network"),
    "devtools/test_agentcore_runtime.py::test_*_bundle*": ("network",),
    "devtools/test_agentcore_runtime.py::test_the_entry_point_*": ("network",),
    "devtools/test_agentcore_runtime.py::test_an_entry_point_*": ("network",),
}


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """A function's code and the code nested in it (closures, comprehensions, lambdas)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _suite_functions(obj: object) -> list[Callable]:
    """The functions of the suite's own helpers behind ``obj``: itself (under its decorators: a cached
    function is a wrapper object), or a helper class's methods. Remembered: a collection asks thousands of
    times about the same few hundred objects, and finding a source file is slow."""
    known = _SUITE_FUNCTIONS.get(id(obj))
    if known is not None and known[0] is obj:
        return known[1]
    found = _find_suite_functions(obj)
    _SUITE_FUNCTIONS[id(obj)] = (obj, found)  # the object is kept, so its id is not reused
    return found


_SUITE_FUNCTIONS: dict[int, tuple[object, list[Callable]]] = {}


def _find_suite_functions(obj: object) -> list[Callable]:
    obj = inspect.unwrap(obj) if hasattr(obj, "__wrapped__") and not inspect.ismodule(obj) else obj
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return []
    try:
        source = inspect.getsourcefile(obj)
    except TypeError:  # a built-in class
        return []
    if source is None or TESTS not in Path(source).resolve().parents:
        return []
    if inspect.isclass(obj):
        return [f for f in vars(obj).values() if inspect.isfunction(f)]
    return [obj]


# The suite's helper modules (tests/speech.py, tests/servers.py ...), which a test may import inside itself.
HELPER_MODULES = {p.stem for p in TESTS.rglob("*.py") if not p.stem.startswith(("test_", "conftest"))}


def _helper(name: str) -> types.ModuleType | None:
    """A helper module by name, if this run's sys.path reaches it (it holds the folders of collected tests)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _named(code: types.CodeType, function: Callable) -> Iterator[object]:
    """What the names in ``code`` are: the function's globals, and the attributes of the suite's helper
    modules that it imports itself (``from speech import transcribe`` inside a test)."""
    helpers = [module for name in code.co_names if name in HELPER_MODULES and (module := _helper(name))]
    for name in code.co_names:
        for namespace in (function.__globals__, *(vars(module) for module in helpers)):
            if name in namespace:
                yield namespace[name]
                break


def _imported_needs(code: types.CodeType) -> set[str]:
    """The needs of the modules ``code`` imports itself (``from kokoro import KModel`` inside a helper, kept
    out of the module's top so that collecting it stays light). An imported module's name is among the code's
    names: only code naming one of MODULES is disassembled, which is slow."""
    if not any(_within(name, prefix) for name in code.co_names for prefix in MODULES):
        return set()
    imported = [i.argval for i in dis.get_instructions(code) if i.opname == "IMPORT_NAME"]
    return {need for module in imported for prefix, need in MODULES.items() if _within(module, prefix)}


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def needs_of_function(function: Callable, seen: set[types.CodeType]) -> set[str]:
    found: set[str] = set()
    for code in _codes(function.__code__):
        if code in seen:
            continue
        seen.add(code)
        found |= {NAMES[name] for name in code.co_names if name in NAMES}
        found |= _imported_needs(code)
        for obj in _named(code, function):
            module = obj.__name__ if inspect.ismodule(obj) else getattr(obj, "__module__", None)
            found |= {need for prefix, need in MODULES.items() if isinstance(module, str) and _within(module, prefix)}
            for helper in _suite_functions(obj):
                found |= needs_of_function(helper, seen)
    return found


def needs(item: pytest.Item) -> set[str]:
    """The external needs of one collected test."""
    found = {FIXTURES[name] for name in getattr(item, "fixturenames", ()) if name in FIXTURES}
    seen: set[types.CodeType] = set()
    functions = [getattr(item, "function", None)]
    fixture_info = getattr(item, "_fixtureinfo", None)
    for definitions in fixture_info.name2fixturedefs.values() if fixture_info else ():
        functions += [definition.func for definition in definitions]
    for function in functions:
        for helper in _suite_functions(function) if function is not None else ():
            found |= needs_of_function(helper, seen)
    where = f"{item.path.relative_to(TESTS)}::{getattr(item, 'originalname', item.name)}"
    for pattern, markers in BEHIND_A_COMMAND.items():
        if fnmatch.fnmatchcase(where, pattern):
            found |= set(markers)
    return found


# On parallel workers (pytest-xdist) a file's tests run together on one worker, so its module fixtures are
# made once; a folder whose files share session fixtures goes together too.
SHARED_FOLDERS = ("tests/stacks/",)  # the three syntheses of tests/stacks/conftest.py (jsii, seconds each)
# Files of different folders that share a costly session fixture, by the name of their common scope: the torch
# engine's files share the rebuilt real weights and one torch server on them (tests/conftest.py).
SHARED_FILES = {
    "tests/container/test_torch_backend.py": "torch engine",
    "tests/container/test_torch_batching.py": "torch engine",
    "tests/devtools/test_torch_weights.py": "torch engine",
}
# The documented pages are one file, so one scope: its pages share the servers and commands that several of
# them run identically (tests/docs/documented_commands.py, Shared), which they could not on two workers.


def scope(nodeid: str) -> str:
    """The unit of work a parallel worker takes whole: the test's shared folder or group of files, or its file."""
    path = nodeid.split("::", 1)[0]
    if path in SHARED_FILES:
        return SHARED_FILES[path]
    return next((folder for folder in SHARED_FOLDERS if path.startswith(folder)), path)


# How long a test with this need tends to take, as a rank: workers take the scopes that hold the longest
# tests first, so that none of them is left running one alone at the end (recognition runs for minutes).
WEIGHT = {"recognizer": 5, "model": 3, "network": 3, "cdk": 2, "server": 2, "browser": 1, "aws_emulator": 1}
# Files whose scopes are longer than any recognition scope, whatever their needs, so they start first, one on
# each worker: the documented pages (about a quarter of the suite's time on a 2-core machine, four of them
# minutes each), and the images (a cold build of both, minutes, which docs/deploy.md's own build commands then
# find in the layer cache instead of waiting on its lock: 408 s for that page when the images came later).
LONGEST_SCOPES = {
    "tests/docs/test_documented_commands.py": max(WEIGHT.values()) + 1,
    "tests/images/test_images.py": max(WEIGHT.values()) + 1,
}


def heaviest_first(items: list[pytest.Item]) -> None:
    """Order ``items`` by their scope's heaviest need (stable: files keep their own order)."""
    weight: dict[str, int] = {}
    for item in items:
        weight.setdefault(scope(item.nodeid), LONGEST_SCOPES.get(item.nodeid.split("::", 1)[0], 0))
        rank = max((WEIGHT.get(m.name, 0) for m in item.iter_markers()), default=0)
        weight[scope(item.nodeid)] = max(weight.get(scope(item.nodeid), 0), rank)
    items.sort(key=lambda item: -weight[scope(item.nodeid)])


# Per-test limits beyond pyproject's 300 s, for a test that sets none itself: recognition runs at a fraction
# of real time on a 2-core CPU, over minutes of audio; a test with a model server of its own may wait for it
# to load in its body (minutes on a loaded machine), and sometimes for a second one.
RECOGNITION_TIMEOUT_S = 1200
OWN_SERVER_TIMEOUT_S = 900


def _timeout(item: pytest.Item, found: set[str]) -> int | None:
    if "recognizer" in found:
        return RECOGNITION_TIMEOUT_S
    if "server" in found and "model_server_url" not in getattr(item, "fixturenames", ()):
        return OWN_SERVER_TIMEOUT_S
    return None


def mark(items: list[pytest.Item]) -> None:
    """Add each test's need markers, or ``unit`` when it has none, and a longer limit where it needs one."""
    for item in items:
        found = needs(item)
        for marker in sorted(found) or ["unit"]:
            item.add_marker(marker)
        if item.get_closest_marker("timeout") is None and (limit := _timeout(item, found)):
            item.add_marker(pytest.mark.timeout(limit))
