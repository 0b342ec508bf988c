"""What the benchmark measures: each module drives a real server (or the real segmenter, or G2P) and
returns plain figures; none of them formats a page (that is :mod:`kokoro_bench.reporting`). Every results
file starts with :func:`kokoro_bench.measuring.machine.run_record`: the commit, the date and the machine it
was measured on, in the same keys."""
