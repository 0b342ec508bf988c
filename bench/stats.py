"""Medians and percentiles of small samples (a run has 1 to 8 of each figure)."""

from __future__ import annotations

import numpy as np


def median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(float(np.median(present)), 4) if present else None


def percentile(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 4)
