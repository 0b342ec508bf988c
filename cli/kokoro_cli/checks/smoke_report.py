"""What a smoke check found: one result per path exercised, and the verdict over all of them.

A deploy is only "done" when the deployable answered: an InService endpoint whose session path rejects
the SDK's binary frames still fails here (001-sagemaker-container-contract.md), which is the point of
checking each path on its own.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from kokoro_cli.common.errors import VerifyFailed
from speech_protocol.framing import SAMPLE_RATE, SAMPLE_WIDTH

if TYPE_CHECKING:  # the session check imports this module in .venv312, which has no typer (the console's)
    from kokoro_cli.common.console import Console

SMOKE_TEXT = "The deployment works."  # one short sentence: about 1.5 s of speech
MIN_AUDIO_S = 0.3  # a spoken sentence is seconds long; less than this is silence or a stub


class Outcome(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"  # the check cannot run here (e.g. no SageMaker streaming client); said loudly


@dataclass(frozen=True)
class CheckResult:
    name: str
    outcome: Outcome
    detail: str
    audio_s: float | None = None
    elapsed_s: float | None = None

    def to_json(self) -> dict:
        return {**asdict(self), "outcome": self.outcome.value}


@dataclass(frozen=True)
class SmokeReport:
    target: str
    checks: tuple[CheckResult, ...]

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.outcome is not Outcome.FAILED for c in self.checks)

    def to_json(self) -> dict:
        return {"target": self.target, "ok": self.ok, "checks": [c.to_json() for c in self.checks]}

    def raise_if_failed(self) -> None:
        if not self.ok:
            failed = tuple(f"{c.name}: {c.detail}" for c in self.checks if c.outcome is Outcome.FAILED)
            raise VerifyFailed(f"smoke check failed against {self.target}", details=failed)


def judge_pcm(name: str, pcm: bytes, elapsed_s: float) -> CheckResult:
    """Passed when ``pcm`` is whole PCM16 samples and long enough to be speech."""
    audio_s = len(pcm) / (SAMPLE_RATE * SAMPLE_WIDTH)
    if len(pcm) % SAMPLE_WIDTH:
        return CheckResult(name, Outcome.FAILED, f"{len(pcm)} bytes is not whole PCM16 samples")
    if audio_s < MIN_AUDIO_S:
        return CheckResult(name, Outcome.FAILED, f"only {audio_s:.2f} s of audio came back", audio_s)
    detail = f"{audio_s:.2f} s of audio in {elapsed_s:.2f} s"
    return CheckResult(name, Outcome.PASSED, detail, round(audio_s, 3), round(elapsed_s, 3))


def report_rows(report: SmokeReport) -> list[tuple[str, str]]:
    """One table row per check, for people (``--json`` prints :meth:`SmokeReport.to_json`)."""
    return [(c.name, f"{c.outcome.value.upper()}  {c.detail}") for c in report.checks]


def print_result(console: Console, report: SmokeReport) -> None:
    """The ``smoke`` commands' result; a failed check exits 1 instead, listing every failure."""
    report.raise_if_failed()  # one JSON document on stdout either way: the result or the error
    console.result({"smoke": report.to_json()}, rows=report_rows(report), title=f"smoke: {report.target}")


def print_progress(console: Console, report: SmokeReport) -> None:
    """A deploy's last step: each check as a progress line; a failed check fails the deploy (exit 1)."""
    for name, line in report_rows(report):
        console.line(f"    {name}: {line}")
    report.raise_if_failed()
