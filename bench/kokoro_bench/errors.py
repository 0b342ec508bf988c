"""The benchmark's one error type: bad options, a server that will not start, a run with no audio.

The CLI turns it into one line on stderr and exit code 2 (:mod:`kokoro_bench.app`); nothing else is caught.
"""


class BenchError(Exception):
    """The benchmark cannot produce a figure; the message says which and why."""
