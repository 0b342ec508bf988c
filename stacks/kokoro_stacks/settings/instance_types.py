"""Which SageMaker real-time instance types exist, from a list kept in the project with its source.

``sagemaker_instance_types.txt`` is the ``ProductionVariantInstanceType`` enum of the SageMaker API
model in the pinned botocore (its header says which); a test keeps the two equal. A type that merely
looks right (``ml.bogus.huge``) fails at synth instead of 10 minutes into a deployment. Graviton (arm64)
families are refused as well: the model image is linux/amd64.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

LIST_FILE = Path(__file__).with_name("sagemaker_instance_types.txt")
_GRAVITON = re.compile(r"^ml\.[a-z]+\d+g[a-z]*\.")  # c6g, c7g, m6gd, r8g, ...: arm64


@cache
def known_instance_types() -> frozenset[str]:
    lines = LIST_FILE.read_text().splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


def instance_type_problem(value: str) -> str | None:
    """Why ``value`` cannot host the model image, or ``None`` when it can."""
    if value not in known_instance_types():
        family = value.split(".")[1] if value.count(".") == 2 else ""
        sizes = sorted(t for t in known_instance_types() if t.split(".")[1] == family)
        known = f"; {family} sizes: {', '.join(sizes)}" if sizes else ""
        return f"expected a SageMaker real-time instance type such as ml.g5.xlarge (listed in {LIST_FILE.name}){known}"
    if _GRAVITON.match(value):
        return "is an arm64 (Graviton) instance type; the model image is linux/amd64"
    return None


def _botocore_enum() -> list[str]:
    import botocore.session

    model = botocore.session.get_session().get_service_model("sagemaker")
    return list(model.shape_for("ProductionVariantInstanceType").enum)


if __name__ == "__main__":  # regenerates the list from the installed botocore
    import botocore

    print("# SageMaker real-time endpoint instance types: the ProductionVariantInstanceType enum of the SageMaker")
    print(f"# API model shipped in botocore {botocore.__version__} (botocore/data/sagemaker/*/service-2.json).")
    print(
        "# Regenerate: .venv/bin/python -m kokoro_stacks.settings.instance_types > stacks/kokoro_stacks/settings/sagemaker_instance_types.txt"
    )
    print("\n".join(_botocore_enum()))
