"""The agent's Bedrock model id, and the exact ARNs an IAM policy must name to invoke it.

A cross-Region inference profile id (``us.``, ``eu.``, ``global.`` ...) routes each request to the
foundation model in one of several Regions, so the caller needs the profile ARN in its own Region plus
the foundation model in the destination Regions; AWS documents scoping the latter with the
``bedrock:InferenceProfileArn`` condition, so the model is reachable only through that profile. A
``global.`` profile also needs the Region-less foundation-model ARN.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Claude Haiku 4.5 through the global cross-Region profile: the fastest current Claude (first token
# decides first audio: 005-latency-and-first-piece.md), callable from every commercial Region that Bedrock serves.
DEFAULT_MODEL_ID = "global.anthropic.claude-haiku-4-5-20251001-v1:0"
PROFILE_PREFIXES = ("us", "us-gov", "eu", "apac", "jp", "au", "ca", "global")
INVOKE_ACTIONS = ("bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream")

_FOUNDATION_MODEL = re.compile(r"^[a-z0-9-]+\.[A-Za-z0-9._:-]{1,120}$")


@dataclass(frozen=True)
class BedrockModel:
    """``profile`` is the inference-profile prefix (``global``), or None for a plain foundation model."""

    foundation_model_id: str
    profile: str | None = None

    @property
    def model_id(self) -> str:
        """What the agent passes to Bedrock (``LLM_MODEL_ID``)."""
        return f"{self.profile}.{self.foundation_model_id}" if self.profile else self.foundation_model_id

    def inference_profile_arn(self, partition: str, region: str, account: str) -> str | None:
        if self.profile is None:
            return None
        return f"arn:{partition}:bedrock:{region}:{account}:inference-profile/{self.model_id}"

    def foundation_model_arns(self, partition: str, region: str) -> list[str]:
        """Only this model; any Region only when a profile routes there (see the module docstring)."""
        regions = [region] if self.profile is None else ["*", ""] if self.profile == "global" else ["*"]
        return [f"arn:{partition}:bedrock:{where}::foundation-model/{self.foundation_model_id}" for where in regions]


def parse_bedrock_model(model_id: str) -> BedrockModel:
    """Raise ``ValueError`` unless ``model_id`` is a foundation-model id, optionally profile-prefixed."""
    head, _, rest = model_id.partition(".")
    profile, base = (head, rest) if head in PROFILE_PREFIXES else (None, model_id)
    if not _FOUNDATION_MODEL.fullmatch(base):
        raise ValueError(
            "expected a Bedrock model id such as anthropic.claude-haiku-4-5-20251001-v1:0, optionally "
            f"prefixed by an inference profile ({', '.join(p + '.' for p in PROFILE_PREFIXES)})"
        )
    return BedrockModel(base, profile)
