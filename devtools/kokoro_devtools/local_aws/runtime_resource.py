"""``AWS::BedrockAgentCore::Runtime`` for moto's CloudFormation, which has no model of its own for it.

moto builds its resource map from the subclasses of ``CloudFormationModel`` the first time a template is parsed,
so importing this module before the server takes its first request adds the type. The runtime is kept in moto's
bedrock-agentcore-control backend (``GetAgentRuntime`` and ``ListAgentRuntimes`` see it) under the id and ARN
AgentCore gives (``runtime/<name>-<10 letters or digits>``; moto's own are another shape), and a code runtime is
started by :attr:`AgentRuntimeResource.runtimes` before the resource counts as created, as CloudFormation waits
for AgentCore's READY.
"""

from __future__ import annotations

import io
import random
import string
import zipfile
from typing import Any, ClassVar

from moto.bedrockagentcorecontrol.models import AgentRuntime, bedrockagentcorecontrol_backends
from moto.core.common_models import CloudFormationModel
from moto.s3.models import s3_backends
from moto.utilities.utils import get_partition

from kokoro_devtools.agentcore_emulator.runtime.host import RuntimeStartError
from kokoro_devtools.agentcore_emulator.runtime.template import RUNTIME_TYPE, TemplateError, code_runtime
from kokoro_devtools.local_aws.moto_as_aws import RuntimeCreateFailed
from kokoro_devtools.local_aws.runtimes import LocalRuntimes
from kokoro_devtools.local_python import NoSuchPython
from kokoro_stacks.agent.bundle_pip import BundlingError

_ATTRIBUTES = {"AgentRuntimeArn", "AgentRuntimeId", "AgentRuntimeVersion", "Status", "WorkloadIdentityDetails"}
_ID_CHARACTERS = string.ascii_letters + string.digits


def code_zip_entries(properties: dict[str, Any], account_id: str, region: str) -> set[str] | str:
    """The names in the code zip the runtime's ``CodeConfiguration`` points at, read from moto's S3 (where
    ``cdk deploy`` uploaded it), as AgentCore fetches it before starting anything; or why it cannot be read."""
    location = properties["AgentRuntimeArtifact"]["CodeConfiguration"]["Code"]["S3"]
    bucket, key = location["Bucket"], location["Prefix"]
    backend = s3_backends[account_id][get_partition(region)]
    try:
        found = backend.get_object(bucket, key)
    except Exception:  # noqa: BLE001 - moto raises its own NoSuchBucket-like errors: all mean "not there"
        found = None
    if found is None:
        return f"the code zip s3://{bucket}/{key} does not exist"
    try:
        with zipfile.ZipFile(io.BytesIO(found.value)) as archive:
            return set(archive.namelist())
    except zipfile.BadZipFile:
        return f"s3://{bucket}/{key} is not a zip"


class AgentRuntimeResource(CloudFormationModel):
    runtimes: ClassVar[LocalRuntimes | None] = None  # set by the local AWS before its server starts

    def __init__(self, runtime: AgentRuntime):
        self.runtime = runtime

    @staticmethod
    def cloudformation_name_type() -> str:
        return "AgentRuntimeName"

    @staticmethod
    def cloudformation_type() -> str:
        return RUNTIME_TYPE

    @classmethod
    def has_cfn_attr(cls, attr: str) -> bool:
        return attr in _ATTRIBUTES

    @property
    def physical_resource_id(self) -> str:
        return self.runtime.agent_runtime_id

    def get_cfn_attribute(self, attribute_name: str) -> Any:
        return {
            "AgentRuntimeArn": self.runtime.agent_runtime_arn,
            "AgentRuntimeId": self.runtime.agent_runtime_id,
            "AgentRuntimeVersion": self.runtime.agent_runtime_version,
            "Status": "READY",
            "WorkloadIdentityDetails": self.runtime.workload_identity_details,
        }[attribute_name]

    def is_created(self) -> bool:
        return True

    @classmethod
    def create_from_cloudformation_json(
        cls, resource_name: str, cloudformation_json: dict[str, Any], account_id: str, region_name: str, **kwargs: Any
    ) -> AgentRuntimeResource:
        properties = cloudformation_json["Properties"]
        backend = bedrockagentcorecontrol_backends[account_id][region_name]
        runtime = backend.create_agent_runtime(
            agent_runtime_name=properties["AgentRuntimeName"],
            agent_runtime_artifact=properties["AgentRuntimeArtifact"],
            role_arn=properties["RoleArn"],
            network_configuration=properties.get("NetworkConfiguration", {}),
            description=properties.get("Description"),
            authorizer_configuration=properties.get("AuthorizerConfiguration"),
            request_header_configuration=properties.get("RequestHeaderConfiguration"),
            protocol_configuration=properties.get("ProtocolConfiguration"),
            lifecycle_configuration=properties.get("LifecycleConfiguration"),
            environment_variables=properties.get("EnvironmentVariables"),
            tags=properties.get("Tags"),
        )
        backend.agent_runtimes.pop(runtime.agent_runtime_id)
        runtime.agent_runtime_id = f"{runtime.agent_runtime_name}-{''.join(random.choices(_ID_CHARACTERS, k=10))}"
        runtime.agent_runtime_arn = (
            f"arn:{get_partition(region_name)}:bedrock-agentcore:{region_name}:{account_id}:runtime/"
            f"{runtime.agent_runtime_id}"
        )
        code = properties["AgentRuntimeArtifact"].get("CodeConfiguration")
        if code is not None and cls.runtimes is not None:
            cls._start(runtime.agent_runtime_arn, properties, account_id, region_name, kwargs["LogicalId"])
        backend.agent_runtimes[runtime.agent_runtime_id] = runtime
        return cls(runtime)

    @classmethod
    def _start(cls, arn: str, properties: dict[str, Any], account_id: str, region_name: str, logical_id: str) -> None:
        """The bundle (built for this machine from this checkout) started as the template says, once its code zip
        is where the template says; :class:`RuntimeCreateFailed` with the reason otherwise."""
        assert cls.runtimes is not None
        entries = code_zip_entries(properties, account_id, region_name)
        entrypoint = properties["AgentRuntimeArtifact"]["CodeConfiguration"].get("EntryPoint", [])
        missing = [name for name in entrypoint if name not in entries] if isinstance(entries, set) else []
        if isinstance(entries, str) or missing:
            raise RuntimeCreateFailed(
                logical_id, entries if isinstance(entries, str) else f"no {missing[0]} in the zip"
            )
        try:
            cls.runtimes.start(arn, code_runtime(properties, region_name, cls.runtimes.overrides))
        except (TemplateError, BundlingError, NoSuchPython, RuntimeStartError) as err:
            raise RuntimeCreateFailed(logical_id, f"the runtime did not start: {err}") from None

    def delete(self, account_id: str, region_name: str) -> None:
        if self.runtimes is not None:
            self.runtimes.stop(self.runtime.agent_runtime_arn)
        backend = bedrockagentcorecontrol_backends[account_id][region_name]
        backend.agent_runtimes.pop(self.runtime.agent_runtime_id, None)
