#!/usr/bin/env bash
# The project's test command: the whole suite on .venv (Python 3.11), then the SageMaker streaming
# client's SDK tests on .venv312 where set-up made one.
set -euo pipefail
cd "$(dirname "$0")"
export HF_HUB_OFFLINE=1
.venv/bin/python -m pytest "$@"
if [ -x .venv312/bin/python ] && [ $# -eq 0 ]; then
  PYTHONPATH=container:agent:. .venv312/bin/python -m pytest -p no:cacheprovider tests/agent/test_sagemaker_transport.py
fi
