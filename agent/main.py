"""The agent image's entrypoint: settings from the environment, then the AgentCore app on 0.0.0.0:8080."""

from __future__ import annotations

import os
import sys

from voice_agent.app import SHUTDOWN_GRACE_S, create_app
from voice_agent.settings import SettingsError, settings_from_env

AGENTCORE_PORT = 8080


def app_from_env():
    """The agent app from the environment (also ``uvicorn --factory main:app_from_env``, which
    ``deploy-agent local`` uses to run the agent on Python 3.12 when its own Python is 3.11)."""
    try:
        return create_app(settings_from_env(os.environ))
    except SettingsError as err:
        sys.exit(f"configuration error: {err}")


def main() -> None:
    # AgentCore's contract is 0.0.0.0:8080; app.run() would pick 127.0.0.1 outside Docker.
    app_from_env().run(port=AGENTCORE_PORT, host="0.0.0.0", timeout_graceful_shutdown=SHUTDOWN_GRACE_S)  # nosec B104


if __name__ == "__main__":
    main()
