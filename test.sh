#!/usr/bin/env bash
# The project's test command.
#
#   ./test.sh                  everything (CI): ruff check, ruff format --check, mypy, then the whole suite on
#                              .venv (Python 3.11, one worker per core) and, beside it, the agent's
#                              SageMaker-path tests on .venv312 (3.12); the 15 slowest tests are listed
#   ./test.sh --fast           the same checks, then only the tests that need no model (a server or in the
#                              process), recognizer, browser, cdk or network (markers: tests/needs.py)
#   ./test.sh --cost-map       everything, and each test file's wall and CPU seconds written to tests/costs.json
#                              and docs/test-costs.md (the one mode that writes into the repository)
#   ./test.sh [--fast] ARGS    pytest ARGS (paths, -k, -m, ...) on each Python that has tests among them, in
#                              one process; the checks are left out (it says so). With no path, both Pythons.
#
# Every step runs even when an earlier one failed; the summary at the end names each step's result, and
# the exit status is 1 if any failed. Markers, workers and timeouts: docs/decisions/095-test-markers.md.
set -uo pipefail
cd "$(dirname "$0")"
export HF_HUB_OFFLINE=1
# Bytecode is kept beside the sources (__pycache__/, which git ignores), so that the run's many Python
# processes (workers, servers, CLIs, pytest's assertion rewrite) compile the project once, not each time: a
# shell with PYTHONDONTWRITEBYTECODE set made every one of them compile all it imports (decision 095).
unset PYTHONDONTWRITEBYTECODE

# The tests of the agent's SageMaker path: the SDK exists for Python >= 3.12 only (tests/conftest.py leaves
# them out of the 3.11 run).
PY312_TESTS=(tests/agent/test_sagemaker_transport.py tests/devtools/test_sagemaker_emulator.py
  tests/devtools/test_emulator_model_server.py)
FAST_FILTER="not server and not recognizer and not browser and not cdk and not model and not network"

fast=0 cost_map=0
if [ "${1:-}" = "--fast" ]; then fast=1; shift
elif [ "${1:-}" = "--cost-map" ]; then cost_map=1; shift; fi
args=("$@")
if [ $cost_map -eq 1 ] && [ ${#args[@]} -gt 0 ]; then echo "--cost-map measures the whole suite: no arguments" >&2; exit 2; fi

declare -a summary=()
failed=0
step() {  # step NAME COMMAND...: run it, remember how it went
  local name=$1; shift
  echo "==> $name"
  "$@"
  local rc=$?
  if [ $rc -eq 0 ]; then summary+=("ok      $name"); else summary+=("FAILED  $name (exit $rc)"); failed=1; fi
}

if [ ${#args[@]} -eq 0 ]; then
  step "ruff check" .venv/bin/ruff check .
  step "ruff format --check" .venv/bin/ruff format --check .
  step "mypy" .venv/bin/mypy
else
  summary+=("skipped ruff, ruff format, mypy (pytest arguments given: run ./test.sh or ./test.sh --fast for them)")
fi

# Which arguments are test paths (a file or folder, optionally ::a test) and which 3.12 tests they hold.
paths=() options=() paths312=()
for arg in "${args[@]}"; do
  if [[ $arg != -* ]] && [ -e "${arg%%::*}" ]; then paths+=("$arg"); else options+=("$arg"); fi
done
for path in "${paths[@]}"; do
  for test in "${PY312_TESTS[@]}"; do
    target=${path%%::*}
    target=${target%/}
    if [ "$target" = "$test" ]; then paths312+=("$path")
    elif [[ -d $target && $test == "$target"/* ]]; then paths312+=("$test"); fi
  done
done
paths311=()
for path in "${paths[@]}"; do
  is312=0
  for test in "${PY312_TESTS[@]}"; do [ "${path%%::*}" = "$test" ] && is312=1; done
  [ $is312 -eq 1 ] || paths311+=("$path")
done

common=(-p no:cacheprovider)
[ $fast -eq 1 ] && common+=(-m "$FAST_FILTER")
[ ${#args[@]} -eq 0 ] && common+=(--durations=15 -rfEs)  # the 15 slowest tests; any skip, with its reason (.ci/run fails on one)
# A selection (--fast, -m, -k) may leave one Python without a test: its pytest "no tests ran" (exit 5) is no
# failure then, unless no test ran at all.
selects=$fast
for option in "${options[@]}"; do [[ $option == -m* || $option == -k* ]] && selects=1; done
runs=0 empty_runs=0
pytest_on() {  # pytest_on PYTHON PYTHONPATH_OR_EMPTY [PYTEST ARGS...]: its exit status as it is
  env ${2:+PYTHONPATH="$2"} "$1" -m pytest "${common[@]}" "${options[@]}" "${@:3}"
}
judged() {  # judged RC: a run's exit status, with "no tests ran" (exit 5) no failure under a selection
  runs=$((runs + 1))
  if [ "$1" -eq 5 ] && [ "$selects" -eq 1 ]; then
    echo "(no test of this Python is in the selection)"
    empty_runs=$((empty_runs + 1))
    return 0
  fi
  return "$1"
}

# The 3.12 half (a few tests that mostly wait on sockets) runs beside the 3.11 half, on the time the 3.11 run
# leaves idle; its output is held in a temporary file and shown after the 3.11 run's.
step312=""
if [ ${#paths[@]} -gt 0 ] && [ ${#paths312[@]} -eq 0 ]; then
  summary312="skipped tests on Python 3.12 (no SageMaker-path test among the paths given: ${PY312_TESTS[*]})"
elif [ ! -x .venv312/bin/python ]; then
  summary312="FAILED  tests on Python 3.12 (.venv312 is missing: rerun ./setup.sh)"
else
  [ ${#paths312[@]} -eq 0 ] && paths312=("${PY312_TESTS[@]}")
  step312="tests on Python 3.12 (.venv312): the agent's SageMaker path"
  out312=$(mktemp)
  trap 'rm -f "$out312"' EXIT
  # A background command of a script ignores Ctrl-C; this one takes it, as the 3.11 run beside it does.
  (trap - INT; pytest_on .venv312/bin/python container:agent:cli:stacks:bench:devtools:. "${paths312[@]}") >"$out312" 2>&1 &
  pid312=$!
fi

if [ ${#paths[@]} -gt 0 ] && [ ${#paths311[@]} -eq 0 ]; then
  summary+=("skipped tests on Python 3.11 (every path given is a 3.12 test)")
else
  parallel=()  # one worker per core, each taking a file (or tests/stacks/) whole, longest first: tests/needs.py
  [ ${#args[@]} -eq 0 ] && parallel=(-n auto --dist loadscope --no-loadscope-reorder)
  [ $cost_map -eq 1 ] && parallel+=(-p kokoro_devtools.suite_costs.measure --cost-map tests/costs.json)
  run311() { pytest_on .venv/bin/python "" "${parallel[@]}" "${paths311[@]}"; judged $?; }
  step "tests on Python 3.11 (.venv)" run311
fi

if [ -n "$step312" ]; then
  wait "$pid312"
  rc312=$?
  show312() { cat "$out312"; judged "$rc312"; }
  step "$step312" show312
else
  if [[ $summary312 == FAILED* ]]; then
    echo "ERROR: .venv312 (Python 3.12) is missing, so the agent's SageMaker tests cannot run: rerun ./setup.sh" >&2
    failed=1
  fi
  summary+=("$summary312")
fi
if [ $cost_map -eq 1 ]; then
  step "docs/test-costs.md from tests/costs.json" .venv/bin/python -m kokoro_devtools.suite_costs
fi
if [ $runs -gt 0 ] && [ $empty_runs -eq $runs ]; then
  summary+=("FAILED  no test matched the selection")
  failed=1
fi

echo
echo "==> summary"
printf '  %s\n' "${summary[@]}"
exit $failed
