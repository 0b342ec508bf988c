"""An environment with no AWS at all: every credential source and region removed (the CLI tests' shell)."""

from __future__ import annotations

import os

NO_AWS = {
    "AWS_CONFIG_FILE": "/nonexistent/aws-config",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
    "AWS_EC2_METADATA_DISABLED": "true",
}
AWS_VARS = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_ENDPOINT_URL",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
)


def env_without_aws(**extra: str) -> dict[str, str]:
    """This process's environment with every AWS credential source removed (plus ``extra``)."""
    env = {k: v for k, v in os.environ.items() if k not in AWS_VARS and k != "CI"}
    return {**env, **NO_AWS, **extra}
