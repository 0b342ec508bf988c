"""A prebuilt image given by URI: parsed once, so IAM can name exactly the repository it pulls from.

SageMaker endpoints and AgentCore runtimes both pull private images from ECR only; a URI that is not an
ECR URI would fail minutes into a deployment, so it fails at synth instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ECR_URI = re.compile(
    r"^(?P<account>\d{12})\.dkr\.ecr\.(?P<region>[a-z]{2}(?:-[a-z]+)+-\d)\.amazonaws\.com(?:\.cn)?"
    r"/(?P<repository>[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*)"
    r"(?::(?P<tag>[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})|@(?P<digest>sha256:[0-9a-f]{64}))$"
)


@dataclass(frozen=True)
class EcrImage:
    """``{account}.dkr.ecr.{region}.amazonaws.com/{repository}:{tag}`` (or ``@sha256:...``)."""

    uri: str
    account: str
    region: str
    repository: str

    def repository_arn(self, partition: str) -> str:
        return f"arn:{partition}:ecr:{self.region}:{self.account}:repository/{self.repository}"


def parse_ecr_image(uri: str) -> EcrImage:
    """Raise ``ValueError`` unless ``uri`` is a complete ECR image URI with a tag or a digest."""
    match = _ECR_URI.fullmatch(uri)
    if match is None:
        raise ValueError("expected an ECR image URI such as 123456789012.dkr.ecr.us-east-1.amazonaws.com/repo:tag")
    return EcrImage(uri, match["account"], match["region"], match["repository"])
