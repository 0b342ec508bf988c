"""What both frameworks' first-audio scripts share (they run in .venv-clients, beside the frameworks, so they
import this file as a sibling, not the benchmark's package).

* ``tokens(text)``: the answer as an LLM streams it, a word or a mark per delta;
* ``server_cpu_s(pids)``: the CPU seconds the model server's processes (its own and its G2P workers', listed
  by the benchmark, ``kokoro_processes.tree``) have used so far, from ``/proc``: read before and after an
  answer, it is what the answer cost the server;
* ``answer_figures(first, last, samples, cpu_s)``: one answer's row.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from speech_protocol.framing import SAMPLE_RATE  # .venv-clients installs the protocol package

_TICK = os.sysconf("SC_CLK_TCK")


def tokens(text: str) -> list[str]:
    """Roughly how an LLM streams: a word or a mark per delta, the space before a word kept with it."""
    return re.findall(r"\s*\w+|\s*[^\w\s]+", text)


def server_cpu_s(pids: list[int]) -> float:
    """CPU seconds used so far by these processes (the model server and the processes below it, as the
    benchmark listed them) and by the children they have reaped."""
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended since it was listed
            continue
        ticks += sum(int(f) for f in fields[11:15])
    return ticks / _TICK


def answer_figures(first_s: float | None, last_s: float | None, samples: int, cpu_s: float) -> dict:
    """Seconds from the first token to the first and the last audio frame, the audio's length, the server's
    CPU seconds for the answer."""
    if first_s is None or last_s is None:
        raise RuntimeError("no audio came")
    return {
        "first_audio_s": round(first_s, 3),
        "last_audio_s": round(last_s, 3),
        "audio_s": round(samples / SAMPLE_RATE, 2),
        "server_cpu_s": round(cpu_s, 2),
    }
