#!/usr/bin/env python3
"""The CDK app: reads the context and the CDK CLI's environment once, then composes both stacks.

``cdk synth`` needs no credentials and no Docker (images are only staged); bundling the agent needs the
package index (docs/decisions/111-what-offline-means.md). A bad context value stops synth with a one-line
error naming its key, and exit status 2; an agent that cannot be bundled, with its cause, and status 1.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from kokoro_stacks.project import use_project_node

use_project_node(os.environ)  # before aws_cdk starts jsii's node

import aws_cdk as cdk  # noqa: E402 - after use_project_node, which picks the node jsii starts

from kokoro_stacks.agent.bundle import bundling_failure  # noqa: E402 - after use_project_node, which picks the node jsii starts
from kokoro_stacks.deployment import build_app  # noqa: E402 - after use_project_node, which picks the node jsii starts
from kokoro_stacks.project import ProjectPaths  # noqa: E402 - after use_project_node, which picks the node jsii starts
from kokoro_stacks.settings.deploy_settings import CONTEXT_KEYS, SettingsError, check_known_keys, parse_settings  # noqa: E402 - after use_project_node, which picks the node jsii starts

ROOT = Path(__file__).resolve().parent


def main() -> int:
    app = cdk.App()
    context = {key.name: app.node.try_get_context(key.name) for key in CONTEXT_KEYS}
    try:
        own = json.loads((ROOT / "cdk.json").read_text()).get("context", {})
        check_known_keys(app.node.get_all_context(), own=own)
        settings = parse_settings(
            context,
            # Set by the CDK CLI from AWS_REGION, the profile or its own fallback (007-cdk-cli-environment.md).
            fallback_region=os.environ.get("CDK_DEFAULT_REGION") or os.environ.get("AWS_REGION"),
            fallback_account=os.environ.get("CDK_DEFAULT_ACCOUNT"),
        )
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        build_app(app, settings, ProjectPaths(ROOT))
        app.synth()
    except RuntimeError as error:  # jsii's wrapping of a failed bundling callback: its own words, no trace
        reason = bundling_failure(error)
        if reason is None:
            raise
        print(f"error: {reason}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
