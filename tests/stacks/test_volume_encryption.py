"""Which instance types get a KMS key: SageMaker rejects one where the instance has local NVMe."""

from __future__ import annotations

import pytest

from kokoro_stacks.model.endpoint import has_local_nvme


@pytest.mark.parametrize(
    "instance_type",
    ["ml.g5.xlarge", "ml.g6e.2xlarge", "ml.g4dn.xlarge", "ml.p4d.24xlarge", "ml.c5d.large", "ml.m6id.xlarge"],
)
def test_local_nvme_instance_types(instance_type: str):
    assert has_local_nvme(instance_type)


@pytest.mark.parametrize(
    "instance_type", ["ml.c7i.xlarge", "ml.m5.large", "ml.g4.xlarge", "ml.inf2.xlarge", "ml.c6g.large"]
)
def test_ebs_only_instance_types(instance_type: str):
    assert not has_local_nvme(instance_type)
