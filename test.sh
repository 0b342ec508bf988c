#!/usr/bin/env bash
# The project's test command: the whole suite on .venv (Python 3.11), then, on .venv312 (the agent's
# Python 3.12), the tests of the agent's SageMaker path: the transport with the real SDK and the
# end-to-end runs over the local SageMaker emulator (tests/devtools/test_*emulator*.py).
set -euo pipefail
cd "$(dirname "$0")"
export HF_HUB_OFFLINE=1
.venv/bin/python -m pytest "$@"
if [ $# -eq 0 ]; then
  if [ ! -x .venv312/bin/python ]; then
    echo "ERROR: .venv312 (Python 3.12) is missing, so the agent's SageMaker tests cannot run: rerun ./setup.sh" >&2
    exit 1
  fi
  PYTHONPATH=container:agent:. .venv312/bin/python -m pytest -p no:cacheprovider \
    tests/agent/test_sagemaker_transport.py tests/devtools/test_sagemaker_emulator.py \
    tests/devtools/test_emulator_model_server.py
fi
