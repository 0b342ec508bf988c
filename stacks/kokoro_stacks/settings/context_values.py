"""Typed readers for CDK context values: each one validates a single key and names it on failure.

Values arrive as strings from ``-c key=value`` and as JSON scalars from ``cdk.json``; an absent or empty
value means the key's default. The patterns are the services' own naming rules, so a bad name fails at
synth instead of minutes into a deployment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TypeVar

from kokoro_stacks.settings.bedrock_model import BedrockModel, parse_bedrock_model
from kokoro_stacks.settings.ecr_image import EcrImage, parse_ecr_image
from kokoro_stacks.settings.instance_types import instance_type_problem
from speech_protocol.http.browser_access import AccessListError, access_list, origin

T = TypeVar("T", bound=str)

_REGION = re.compile(r"^[a-z]{2}(?:-[a-z]+)+-\d$")
_ACCOUNT = re.compile(r"^\d{12}$")
_STACK_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9-]{0,127}$")  # CloudFormation
_ENDPOINT_NAME = re.compile(r"^[a-zA-Z0-9](?:-*[a-zA-Z0-9]){0,62}$")  # SageMaker
_RUNTIME_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_]{0,47}$")  # AgentCore: no hyphen (003-agentcore-runtime.md)
_VOICE = re.compile(r"^[a-z][a-z]_[a-z]+$")  # Kokoro: language + gender letter, "_", name
# AgentCore's runtime id: its name, "-", 10 letters or digits (botocore's AgentRuntimeArn pattern)
_RUNTIME_ID = re.compile(r"^[a-zA-Z][a-zA-Z0-9_]{0,47}-[a-zA-Z0-9]{10}$")
_MAX_VALUE_CHARS = 256


def runtime_arn_problem(arn: str) -> str | None:
    """What is wrong with an AgentCore runtime ARN, or ``None``: checked offline, before any AWS call."""
    parts = arn.split(":", 5)
    if len(parts) != 6 or parts[:3] != ["arn", "aws", "bedrock-agentcore"]:
        return "expected arn:aws:bedrock-agentcore:..."
    region, account, resource = parts[3:]
    if not _REGION.fullmatch(region):
        return f"{region[:40]!r} is not an AWS Region such as us-east-1"
    if not _ACCOUNT.fullmatch(account):
        return f"{account[:40]!r} is not a 12-digit account id"
    kind, _, runtime_id = resource.partition("/")
    if kind != "runtime" or not _RUNTIME_ID.fullmatch(runtime_id):
        return f"{resource[:60]!r} is not runtime/<name>-<10 letters or digits>"
    return None


class SettingsError(ValueError):
    """A context value is invalid; ``key`` is the context key, so the user knows what to change."""

    def __init__(self, key: str, problem: str, value: object = None, hint_key: str | None = None):
        shown = "" if value is None else f", got {str(value)[:80]!r}"
        self.key = key
        self.problem = f"{problem}{shown}"  # without the cdk hint: the CLIs name their own option instead
        super().__init__(f"context key '{key}': {self.problem} (set it with `cdk ... -c {hint_key or key}=VALUE`)")


class Reader:
    """Reads keys from one context mapping, falling back to the documented defaults."""

    def __init__(self, context: Mapping[str, object], defaults: Mapping[str, str | None]):
        self._context = context
        self._defaults = defaults

    def raw(self, key: str) -> str | None:
        value = self._context.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            return self._defaults[key]
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise SettingsError(key, "expected a string or an integer", value)
        text = str(value).strip()
        if len(text) > _MAX_VALUE_CHARS or not text.isprintable():
            raise SettingsError(key, f"expected at most {_MAX_VALUE_CHARS} printable characters", text)
        return text

    def _matching(self, key: str, pattern: re.Pattern[str], expected: str, fallback: str | None = None) -> str:
        value = self.raw(key) or fallback
        if value is None or not pattern.fullmatch(value):
            raise SettingsError(key, f"expected {expected}", value)
        return value

    def region(self, key: str, fallback: str) -> str:
        return self._matching(key, _REGION, "an AWS Region such as us-east-1", fallback)

    def account(self, key: str, fallback: str | None) -> str | None:
        value = self.raw(key) or fallback
        if value is not None and not _ACCOUNT.fullmatch(value):
            raise SettingsError(key, "expected a 12-digit AWS account id", value)
        return value

    def stack_name(self, key: str) -> str:
        return self._matching(key, _STACK_NAME, "a stack name: a letter, then letters, digits or '-'")

    def endpoint_name(self, key: str) -> str:
        return self._matching(key, _ENDPOINT_NAME, "a SageMaker endpoint name: letters, digits, '-' (max 63)")

    def runtime_name(self, key: str) -> str:
        return self._matching(key, _RUNTIME_NAME, "an AgentCore runtime name: a letter, then letters, digits, '_'")

    def instance_type(self, key: str) -> str:
        value = self.raw(key) or ""
        problem = instance_type_problem(value)
        if problem:
            raise SettingsError(key, problem, value)
        return value

    def voice(self, key: str) -> str:
        return self._matching(key, _VOICE, "a Kokoro voice name such as af_heart")

    def integer(self, key: str, *, low: int, high: int | None = None) -> int:
        value = self.raw(key)
        bounds = f">= {low}" if high is None else f"between {low} and {high}"
        try:
            number = int(value or "", 10)
        except ValueError:
            raise SettingsError(key, f"expected an integer {bounds}", value) from None
        if number < low or (high is not None and number > high):
            raise SettingsError(key, f"expected an integer {bounds}", value)
        return number

    def choice(self, key: str, choices: Sequence[T]) -> T:
        value = self.raw(key)
        for choice in choices:
            if value == choice:
                return choice
        raise SettingsError(key, f"expected one of {', '.join(choices)}", value)

    def ecr_image(self, key: str) -> EcrImage | None:
        value = self.raw(key)
        if value is None:
            return None
        try:
            return parse_ecr_image(value)
        except ValueError as error:
            raise SettingsError(key, str(error), value) from None

    def bedrock_model(self, key: str) -> BedrockModel:
        value = self.raw(key) or ""
        try:
            return parse_bedrock_model(value)
        except ValueError as error:
            raise SettingsError(key, str(error), value) from None

    def origins(self, key: str) -> tuple[str, ...]:
        """Web page origins split by commas or spaces, normalized and sorted; ``*`` or nothing: none."""
        value = self.raw(key) or ""
        try:
            allowed = access_list([value], origin)
        except AccessListError as error:
            raise SettingsError(key, str(error)) from None
        return tuple(sorted(allowed or ()))
