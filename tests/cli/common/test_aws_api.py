"""The boto3 implementation of the CLIs' AWS seam, against a real moto server and with no AWS at all."""

from __future__ import annotations

import json

import boto3
import pytest

from kokoro_cli.common.aws_api import Boto3Aws, failure_reasons
from kokoro_cli.common.errors import ExitCode, PrerequisiteMissing

TEMPLATE = json.dumps(
    {
        "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}},
        "Outputs": {"EndpointName": {"Value": "kokoro-tts"}},
    }
)


def test_no_credentials_is_a_prerequisite_with_the_fix(no_aws):
    aws = Boto3Aws(region="eu-west-1")
    with pytest.raises(PrerequisiteMissing) as caught:
        aws.identity()
    assert caught.value.message == "no AWS credentials found"
    assert "aws configure" in caught.value.fix and caught.value.exit_code == ExitCode.PREREQUISITE
    with pytest.raises(PrerequisiteMissing, match="no AWS credentials"):
        aws.stack("KokoroTtsModel")  # any call: missing credentials are never "the stack is missing"


def test_no_region_and_unknown_profile_are_prerequisites(no_aws):
    with pytest.raises(PrerequisiteMissing, match="no AWS region"):
        Boto3Aws()
    with pytest.raises(PrerequisiteMissing, match="profile 'nope' not found"):
        Boto3Aws(region="eu-west-1", profile="nope")


def test_identity_stacks_and_endpoints_through_moto(moto_env):
    aws = Boto3Aws(region="eu-west-1")
    identity = aws.identity()
    assert identity.account.isdigit() and identity.region == "eu-west-1"
    assert aws.stack("NotThere") is None
    assert aws.endpoint("not-there") is None
    boto3.client("cloudformation", region_name="eu-west-1").create_stack(StackName="CliApiTest", TemplateBody=TEMPLATE)
    state = aws.stack("CliApiTest")
    assert state.status == "CREATE_COMPLETE" and state.outputs == {"EndpointName": "kokoro-tts"}
    assert aws.stack_failures("CliApiTest") == []


def test_failure_reasons_are_those_of_the_latest_operation_oldest_first():
    events = [  # DescribeStackEvents order: newest first
        {"LogicalResourceId": "S", "ResourceType": "AWS::CloudFormation::Stack", "ResourceStatus": "ROLLBACK_COMPLETE"},
        {
            "LogicalResourceId": "Role",
            "ResourceType": "AWS::IAM::Role",
            "ResourceStatus": "CREATE_FAILED",
            "ResourceStatusReason": "Resource creation cancelled",
        },
        {
            "LogicalResourceId": "Endpoint",
            "ResourceType": "AWS::SageMaker::Endpoint",
            "ResourceStatus": "CREATE_FAILED",
            "ResourceStatusReason": "ping health check failed",
        },
        {
            "LogicalResourceId": "S",
            "ResourceType": "AWS::CloudFormation::Stack",
            "ResourceStatus": "CREATE_IN_PROGRESS",
            "ResourceStatusReason": "User Initiated",
        },
        {
            "LogicalResourceId": "Old",
            "ResourceType": "AWS::IAM::Role",
            "ResourceStatus": "CREATE_FAILED",
            "ResourceStatusReason": "from an earlier deploy",
        },
    ]
    assert failure_reasons(events) == ["Endpoint (AWS::SageMaker::Endpoint): ping health check failed"]
