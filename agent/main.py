"""The agent image's entrypoint: settings from the environment, then the AgentCore app on 0.0.0.0:8080."""

from __future__ import annotations

import os
import sys

from voice_agent.app import SHUTDOWN_GRACE_S, create_app
from voice_agent.settings import SettingsError, settings_from_env

AGENTCORE_PORT = 8080


def main() -> None:
    try:
        settings = settings_from_env(os.environ)
    except SettingsError as err:
        sys.exit(f"configuration error: {err}")
    # AgentCore's contract is 0.0.0.0:8080; app.run() would pick 127.0.0.1 outside Docker.
    app = create_app(settings)
    app.run(port=AGENTCORE_PORT, host="0.0.0.0", timeout_graceful_shutdown=SHUTDOWN_GRACE_S)  # nosec B104


if __name__ == "__main__":
    main()
