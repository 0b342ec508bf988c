"""What one benchmark run does: a frozen, validated object built once by the CLI (full or quick preset).

Every value a user can pass is checked here, with the option's name in the message, before anything
starts; :data:`QUICK` is the CI smoke test's preset (one short text, two concurrency levels, no sweep).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

from speech_protocol.voices import DEFAULT_VOICE

from .errors import BenchError
from .texts import TEXTS

MAX_SESSIONS = 64  # 8 saturate a 2-core machine; an H200 kept zero stall at 32 (087-gpu-capacity-from-another-card.md)
MAX_REPEATS = 20
# The scripted LLM's speed: a typical hosted LLM's streaming speed (006-benchmark-targets.md).
TOKENS_PER_S = 40.0
MAX_TOKENS_PER_S = 10_000.0
MAX_VOICE_CHARS = 128


@dataclass(frozen=True)
class BenchSettings:
    texts: tuple[str, ...] = ("short", "typical", "long")
    tokens_per_s: float = TOKENS_PER_S
    voice: str = DEFAULT_VOICE
    repeats: int = 3  # three sessions per text and strategy: a median, and how far first audio moves
    concurrency: tuple[int, ...] = (1, 2, 4, 8)
    concurrency_text: str = "typical"
    stagger_s: float = 0.5
    sweep_words: tuple[int, ...] = (3, 4, 6)  # fixed first-piece lengths compared with the adaptive one
    sweep_text: str = "typical"
    overhead_text: str = "typical"  # its sentences are the pieces timed in-process and on the server
    engine: str = "onnx"
    device: str = "cpu"
    server_url: str | None = None  # a running, warm server instead of starting one
    simulate_rtf: float = 0.0  # start the server with --simulate-rtf (slower synthesis on purpose); 0 = off
    json_path: Path | None = None
    plots_dir: Path | None = None

    def __post_init__(self) -> None:
        for option, names in (
            ("--texts", self.texts),
            ("--concurrency-text", (self.concurrency_text,)),
            ("--sweep-text", (self.sweep_text,)),
            ("--overhead-text", (self.overhead_text,)),
        ):
            unknown = [n for n in names if n not in TEXTS]
            if unknown or not names:
                raise BenchError(
                    f"{option}: {', '.join(map(repr, unknown)) or 'nothing'} is not one of {', '.join(TEXTS)}"
                )
        if not (
            isinstance(self.tokens_per_s, (int, float))
            and math.isfinite(self.tokens_per_s)
            and 0 < self.tokens_per_s <= MAX_TOKENS_PER_S
        ):
            raise BenchError(f"--tokens-per-s must be above 0 and at most {MAX_TOKENS_PER_S:g}")
        if not self.voice.strip() or len(self.voice) > MAX_VOICE_CHARS:
            raise BenchError(f"--voice must be a voice name of 1 to {MAX_VOICE_CHARS} characters")
        if not 1 <= self.repeats <= MAX_REPEATS:
            raise BenchError(f"--repeats must be between 1 and {MAX_REPEATS}")
        if any(not 1 <= n <= MAX_SESSIONS for n in self.concurrency) or len(set(self.concurrency)) != len(
            self.concurrency
        ):
            raise BenchError(f"--concurrency: distinct session counts between 1 and {MAX_SESSIONS}")
        if any(not 1 <= n <= 50 for n in self.sweep_words):
            raise BenchError("--sweep-words: first-piece lengths between 1 and 50 words")
        if not (math.isfinite(self.stagger_s) and 0 <= self.stagger_s <= 60):
            raise BenchError("--stagger-s must be between 0 and 60 seconds")
        if self.engine not in ("onnx", "torch") or self.device not in ("cpu", "cuda"):
            raise BenchError("--engine is onnx or torch, --device cpu or cuda")
        if not (isinstance(self.simulate_rtf, (int, float)) and 0 <= self.simulate_rtf <= 2):
            raise BenchError("--simulate-rtf must be between 0 (off) and 2")
        if self.server_url is not None and self.simulate_rtf:
            raise BenchError("--simulate-rtf starts its own server: leave out --server-url")
        if self.server_url is not None:
            parts = urlsplit(self.server_url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise BenchError(f"--server-url must be an http(s):// base URL, got {self.server_url[:80]!r}")


QUICK = BenchSettings(
    texts=("short",),
    repeats=1,
    concurrency=(1, 2),
    concurrency_text="short",
    stagger_s=0.2,
    sweep_words=(),
    overhead_text="short",
)


def preset(quick: bool) -> BenchSettings:
    return QUICK if quick else BenchSettings()


def with_options(base: BenchSettings, **options) -> BenchSettings:
    """``base`` with the options the user gave (``None`` = keep the preset's)."""
    return replace(base, **{k: v for k, v in options.items() if v is not None})


def int_list(option: str, raw: str) -> tuple[int, ...]:
    """``"1,2,4"`` -> (1, 2, 4); an empty string is an empty tuple (e.g. no sweep)."""
    if len(raw) > 200:
        raise BenchError(f"{option}: too long")
    items = [item.strip() for item in raw.split(",") if item.strip()]
    try:
        return tuple(int(item) for item in items)
    except ValueError:
        raise BenchError(f"{option}: expected comma-separated whole numbers, got {raw[:60]!r}") from None


def name_list(option: str, raw: str) -> tuple[str, ...]:
    if len(raw) > 200:
        raise BenchError(f"{option}: too long")
    return tuple(item.strip() for item in raw.split(",") if item.strip())
