"""ECR image URIs: what parses, what the repository ARN is, and what is refused."""

from __future__ import annotations

import pytest

from kokoro_stacks.settings.ecr_image import parse_ecr_image

DIGEST = "sha256:" + "0f" * 32


@pytest.mark.parametrize(
    ("uri", "repository", "region"),
    [
        ("123456789012.dkr.ecr.us-east-1.amazonaws.com/kokoro:gpu", "kokoro", "us-east-1"),
        ("123456789012.dkr.ecr.eu-west-1.amazonaws.com/team/kokoro-tts:v1.2_3", "team/kokoro-tts", "eu-west-1"),
        (f"123456789012.dkr.ecr.ap-southeast-2.amazonaws.com/a.b/c@{DIGEST}", "a.b/c", "ap-southeast-2"),
        ("123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn/kokoro:latest", "kokoro", "cn-north-1"),
        ("123456789012.dkr.ecr.us-gov-west-1.amazonaws.com/kokoro:1", "kokoro", "us-gov-west-1"),
    ],
)
def test_ecr_uris_parse_into_their_repository(uri: str, repository: str, region: str):
    image = parse_ecr_image(uri)
    assert (image.uri, image.account, image.region, image.repository) == (uri, "123456789012", region, repository)
    assert image.repository_arn("aws") == f"arn:aws:ecr:{region}:123456789012:repository/{repository}"


@pytest.mark.parametrize(
    "uri",
    [
        "",
        "kokoro:gpu",  # Docker Hub
        "public.ecr.aws/xyz/kokoro:gpu",  # ECR Public: SageMaker and AgentCore pull private ECR only
        "123456789012.dkr.ecr.us-east-1.amazonaws.com/kokoro",  # no tag or digest
        "123456789012.dkr.ecr.us-east-1.amazonaws.com/Kokoro:gpu",  # upper case repository
        "12345678901.dkr.ecr.us-east-1.amazonaws.com/kokoro:gpu",  # 11-digit account
        "123456789012.dkr.ecr.us-east-1.amazonaws.com/kokoro@sha256:abc",  # short digest
        "123456789012.dkr.ecr.us-east-1.amazonaws.com/kokoro:gpu\n",
        "123456789012.dkr.ecr.us-east-1.amazonaws.com/kokoro:gpu; rm -rf /",
        "123456789012.dkr.ecr.us-east-1.amazonaws.com/../kokoro:gpu",
        "123456789012.dkr.ecr.us-east-1.amazonaws.com/kokoro:" + "t" * 129,
        "https://123456789012.dkr.ecr.us-east-1.amazonaws.com/kokoro:gpu",
    ],
)
def test_anything_else_is_refused(uri: str):
    with pytest.raises(ValueError, match="expected an ECR image URI"):
        parse_ecr_image(uri)
