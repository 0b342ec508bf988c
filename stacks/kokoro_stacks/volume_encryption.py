"""Encryption at rest of the endpoint's instances: a customer-managed key, unless SageMaker forbids one.

Instance types with local NVMe storage encrypt it in hardware, and CreateEndpointConfig rejects a
``KmsKeyId`` for them (SageMaker API reference); every other instance type gets a rotating KMS key.
"""

from __future__ import annotations

import re

from aws_cdk import aws_kms as kms
from constructs import Construct

# EC2 marks local NVMe storage with a "d" attribute (g4dn, p4d, c5d, m6id); these families have it
# without the letter.
_NVME_FAMILIES = frozenset({"g5", "g6", "g6e", "gr6", "p5", "p5e", "p5en", "trn1", "trn1n", "trn2"})


def has_local_nvme(instance_type: str) -> bool:
    """``ml.g5.xlarge`` -> True; ``ml.c7i.xlarge`` -> False."""
    family = instance_type.split(".")[1]
    attributes = re.sub(r"^[a-z]+\d+", "", family)
    return family in _NVME_FAMILIES or "d" in attributes


def volume_key(scope: Construct, instance_type: str, endpoint_name: str) -> kms.Key | None:
    if has_local_nvme(instance_type):
        return None
    return kms.Key(scope, "VolumeKey", enable_key_rotation=True, description=f"{endpoint_name} instance volumes")
