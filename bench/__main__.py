"""``python -m bench``: the benchmark's command line (:mod:`bench.app`)."""

from bench.app import app

app(prog_name="python -m bench")
