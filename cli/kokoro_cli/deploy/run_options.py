"""One frozen object per invocation: the user's context, its validated settings and how to run.

Built once in each CLI's callback, before anything slow: a bad value stops the run here with exit code 2
and the option's name, using the stacks' own validation (``kokoro_stacks.settings.deploy_settings.parse_settings``), so the CLI
and ``cdk synth`` can never disagree about what is valid.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from kokoro_cli.common.aws_api import env_region
from kokoro_cli.common.errors import UsageError
from kokoro_cli.deploy.cdk_command import CdkTarget
from kokoro_cli.deploy.flags import flag_for
from kokoro_stacks.settings.deploy_settings import DeploySettings, SettingsError, parse_settings


@dataclass(frozen=True)
class RunOptions:
    context: Mapping[str, str]  # only what the user gave: the stacks own every default
    settings: DeploySettings
    profile: str | None = None
    dry_run: bool = False
    assume_yes: bool = False
    bootstrap: bool = False
    direct: bool = False  # cdk deploy --method direct: no change set
    unattended: bool = False
    cdk_bin: str = ""
    docker_bin: str = "docker"

    @property
    def region(self) -> str | None:
        """The region the user chose; ``None`` lets boto3 and cdk resolve it (AWS_REGION, profile)."""
        return self.context.get("region")

    def cdk_target(self) -> CdkTarget:
        return CdkTarget(
            context=self.context,
            region=self.region,
            profile=self.profile,
            unattended=self.unattended,
            cdk_bin=self.cdk_bin,
        )


def is_unattended(env: Mapping[str, str], stdin_is_terminal: bool) -> bool:
    """No prompts in CI (``CI`` set to anything but false/0) or when nobody is at a terminal."""
    return not stdin_is_terminal or env.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _checked_text(flag: str, value: str) -> str:
    text = value.strip()
    if not text:
        raise UsageError(f"{flag} is empty", fix=f"give {flag} a value, or leave it out for the default")
    if not text.isprintable() or len(text) > 256:
        raise UsageError(f"{flag} must be at most 256 printable characters")
    return text


def build_run_options(
    given: Mapping[str, object | None],
    *,
    profile: str | None = None,
    dry_run: bool = False,
    assume_yes: bool = False,
    bootstrap: bool = False,
    direct: bool = False,
    cdk_bin: str,
    docker_bin: str = "docker",
    env: Mapping[str, str] = os.environ,
    stdin_is_terminal: bool | None = None,
) -> RunOptions:
    """Validate the options the user gave (``given``: context key -> value or ``None``)."""
    context = {k: _checked_text(flag_for(k), str(v)) for k, v in given.items() if v is not None}
    try:
        settings = parse_settings(context, fallback_region=env_region(env))
    except SettingsError as err:
        flag = flag_for(err.key)
        raise UsageError(f"{flag}: {err.problem}", fix=f"pass {flag} VALUE before the subcommand") from None
    terminal = sys.stdin.isatty() if stdin_is_terminal is None else stdin_is_terminal
    return RunOptions(
        context=context,
        settings=settings,
        profile=_checked_text("--profile", profile) if profile is not None else None,
        dry_run=dry_run,
        assume_yes=assume_yes,
        bootstrap=bootstrap,
        direct=direct,
        unattended=is_unattended(env, terminal),
        cdk_bin=_checked_text("--cdk-bin", cdk_bin),
        docker_bin=_checked_text("--docker-bin", docker_bin),
    )
