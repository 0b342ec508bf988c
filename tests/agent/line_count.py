"""Linear time without a timer: count the lines of ``voice_agent`` code a call executes."""

from __future__ import annotations

import sys
from collections.abc import Callable


def lines_executed(work: Callable[[], object], package: str = "voice_agent") -> int:
    """Run ``work`` and return how many lines of ``package``'s code ran (repeatable, load-independent)."""
    count = 0

    def tracer(frame, event, _arg):  # sys.settrace's signature
        nonlocal count
        if package not in frame.f_code.co_filename:
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        work()
    finally:
        sys.settrace(None)
    return count
