"""The normalizer through the real server: the ``normalize`` flag on both routes, and every case of the
test set heard by the offline recognizer (written form normalized vs spoken form as written)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import defaultdict
from pathlib import Path

import httpx
import pytest
import websockets
from session_client import ends, read_until, ws_url
from speech import transcribe, wer

from speech_protocol.messages import (
    End,
    Error,
    ProtocolError,
    StreamDecoder,
    Synthesize,
    encode_client_message,
    parse_client_message,
)

REPO = Path(__file__).resolve().parents[2]
CASES = json.loads((Path(__file__).parent / "normalization_cases.json").read_text())["cases"]
RESULTS = REPO / "docs" / "results" / "normalization.json"
MAX_WER = 0.2


def test_the_flag_travels_in_the_session_message():
    msg = parse_client_message({"type": "synthesize", "text": "It is 10:45 pm.", "normalize": False})
    assert msg == Synthesize("It is 10:45 pm.", normalize=False)
    assert parse_client_message(json.loads(encode_client_message(msg))) == msg
    assert parse_client_message({"text": "Hi"}).normalize is True
    with pytest.raises(ProtocolError) as err:
        parse_client_message({"text": "Hi", "normalize": "no", "id": "n1"})
    assert (err.value.code, err.value.id) == ("bad_normalize", "n1")


def test_bad_flag_over_http_is_a_typed_error(model_server_url):
    r = httpx.post(f"{model_server_url}/invocations", json={"text": "Hi", "normalize": 0}, timeout=30)
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "bad_normalize"


def test_off_per_session_message_speaks_the_text_as_written(model_server_url):
    """ "$5M" normalized is "five million dollars"; as written, G2P says "five M dollars": more audio."""

    async def speak() -> dict[str, float]:
        async with websockets.connect(ws_url(model_server_url)) as ws:
            await ws.send(encode_client_message(Synthesize("The fund raised $5M.", id="on")))
            await ws.send(encode_client_message(Synthesize("The fund raised $5M.", id="off", normalize=False)))
            await ws.send(json.dumps({"type": "synthesize", "id": "bad", "text": "Fine.", "normalize": 1}))
            events = await read_until(ws, StreamDecoder(), ends(3))
        assert [e.code for e in events if isinstance(e, Error)] == ["bad_normalize"]
        return {e.id: e.audio_s for e in events if isinstance(e, End)}

    durations = asyncio.run(speak())
    assert durations["on"] > durations["off"] > 0


def _speak(client: httpx.Client, url: str, text: str, normalize: bool) -> bytes:
    r = client.post(f"{url}/invocations", json={"text": text, "format": "pcm", "normalize": normalize}, timeout=120)
    r.raise_for_status()
    return r.content


@pytest.mark.slow
def test_every_case_sounds_as_a_person_says_it(model_server_url):
    """For every case: the written form (normalized) and the spoken form (as written) are synthesized by
    one server and transcribed; the transcripts must agree (WER <= 0.2). The pass rate per category is
    printed and written to docs/results/normalization.json. With NORMALIZATION_BASELINE=1 the written form
    is also spoken without the normalizer, to show what G2P alone gets right (a third synthesis per case);
    NORMALIZATION_PER_CATEGORY=N speaks only the first N cases of each category (a quick check)."""
    baseline = os.environ.get("NORMALIZATION_BASELINE") == "1"
    per_category = int(os.environ.get("NORMALIZATION_PER_CATEGORY", "0")) or len(CASES)
    cases = [c for i, c in enumerate(CASES) if sum(d["category"] == c["category"] for d in CASES[:i]) < per_category]
    start, rows = time.perf_counter(), []
    with httpx.Client() as client:
        for case in cases:
            heard_spoken = transcribe(_speak(client, model_server_url, case["spoken"], False), 24_000)
            heard_written = transcribe(_speak(client, model_server_url, case["written"], True), 24_000)
            row = {
                **case,
                "heard_spoken": heard_spoken,
                "heard_written": heard_written,
                "wer": round(wer(heard_spoken, heard_written), 3),
            }
            if baseline:
                heard_raw = transcribe(_speak(client, model_server_url, case["written"], False), 24_000)
                row |= {"heard_without": heard_raw, "wer_without": round(wer(heard_spoken, heard_raw), 3)}
            rows.append(row)
    elapsed = time.perf_counter() - start

    by_category: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_category[row["category"]].append(row)
    summary = {}
    for category, group in by_category.items():
        summary[category] = {"cases": len(group), "passed": sum(r["wer"] <= MAX_WER for r in group)}
        if baseline:
            summary[category]["passed_without_normalizer"] = sum(r["wer_without"] <= MAX_WER for r in group)
    passed = sum(s["passed"] for s in summary.values())
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "max_wer": MAX_WER,
                "cases": len(rows),
                "of_cases": len(CASES),
                "passed": passed,
                "seconds": round(elapsed, 1),
                "by_category": summary,
                "rows": rows,
            },
            indent=1,
            ensure_ascii=False,
        )
        + "\n"
    )
    print(f"\nnormalization heard: {passed}/{len(rows)} cases pass (WER <= {MAX_WER}) in {elapsed:.0f} s")
    for category, s in summary.items():
        extra = f"  (without normalizer {s['passed_without_normalizer']})" if baseline else ""
        print(f"  {category:13} {s['passed']:3}/{s['cases']:<3}{extra}")
    failures = [(r["written"], r["heard_written"], r["heard_spoken"]) for r in rows if r["wer"] > MAX_WER]
    assert not failures, failures
