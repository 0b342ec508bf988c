"""``-e NAME=VALUE``, as ``docker run`` takes it: the devtools commands that start a service take settings so."""

from __future__ import annotations

import argparse


def setting(value: str) -> str:
    """``-e NAME=VALUE``, refused by argparse (exit 2) when it is not that."""
    name, equals, _ = value.partition("=")
    if not (name and equals):
        raise argparse.ArgumentTypeError(f"not NAME=VALUE: {value[:100]!r}")
    return value
