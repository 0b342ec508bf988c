"""``python -m kokoro_bench``: the benchmark's command line (:mod:`kokoro_bench.app`)."""

from kokoro_bench.interruption import interruptible_while_loading

with interruptible_while_loading("bench"):
    from kokoro_bench.app import app

app(prog_name="python -m kokoro_bench")
