"""Medians and percentiles of small samples (a run has 1 to 8 of each figure)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .errors import BenchError


def median(values: Sequence[float | None]) -> float | None:
    """The median of the values present; ``None`` when none is (a figure no run produced)."""
    present = [v for v in values if v is not None]
    return round(float(np.median(present)), 4) if present else None


def median_of(values: Sequence[float], figure: str) -> float:
    """The median of a figure every run has; an empty sample is a :class:`BenchError` naming ``figure``."""
    if not values:
        raise BenchError(f"no measurements of {figure}")
    return round(float(np.median(values)), 4)


def percentile(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 4)
