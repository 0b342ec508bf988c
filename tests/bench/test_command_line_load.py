"""``python -m kokoro_bench`` builds its command line without the model's libraries or the agent's LLM
framework: ``--help``, ``report`` and ``policy`` start in under a second instead of 10-12 s (Strands
alone was 0.6 s of it), and each command loads what it needs when it runs
(docs/decisions/110-a-requested-stop-exits-0.md)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("torch", "kokoro", "misaki", "spacy", "onnxruntime", "transformers", "matplotlib", "strands")


def test_the_command_line_loads_none_of_the_models_libraries() -> None:
    code = f"import sys, kokoro_bench.app; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_the_control_a_command_module_that_loads_them_is_seen() -> None:
    code = "import sys, kokoro_bench.reporting.plots; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "True"
