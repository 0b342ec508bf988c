"""Every session failure has one kind (speech_protocol.errors.failure), which both framework plugins map to
their own error types."""

from __future__ import annotations

import pytest

from speech_protocol.errors import (
    NOT_READY,
    Failure,
    TtsBusy,
    TtsError,
    TtsProtocolError,
    TtsServerError,
    TtsSessionClosed,
    TtsTimeout,
    TtsTransportUnavailable,
    TtsUnreachable,
    failure,
)

KINDS = [
    (TtsUnreachable("no route"), Failure.LOST),
    (TtsSessionClosed("closed"), Failure.LOST),
    (TtsTimeout("quiet"), Failure.TIMEOUT),
    (TtsBusy("full"), Failure.BUSY),
    (TtsServerError("not_ready: loading", server_code=NOT_READY), Failure.LOADING),
    (TtsServerError("unknown_voice: zz", server_code="unknown_voice"), Failure.REFUSED),
    (TtsProtocolError("garbage"), Failure.OTHER),
    (TtsTransportUnavailable("no SDK"), Failure.OTHER),
]


@pytest.mark.parametrize(("err", "kind"), KINDS, ids=[f"{type(e).__name__}-{k.value}" for e, k in KINDS])
def test_each_failure_has_its_kind(err: TtsError, kind: Failure) -> None:
    assert failure(err) is kind


def test_every_kind_is_reached() -> None:
    assert {kind for _, kind in KINDS} == set(Failure)
