"""This project's LiveKit plugin (plugins/livekit-plugins-kokoro) in LiveKit Agents as released, against the
real server: an answer pushed token by token is heard whole, its frames carry timed words, and a stream
closed mid-answer leaves the same TTS able to speak the next turn (tests/frameworks/livekit_stream.py)."""

from __future__ import annotations

from framework_clients import ABORTED, ANSWER, MAX_WER, NEXT, run_client, run_client_across_restart
from scripted_model_server import PCM_CHUNK, Peer, greet, scripted_model_server_thread
from speech import heard_from_cuts, transcribe, wer, words

from speech_protocol.client_messages import Cancel, Synthesize
from speech_protocol.server_events import Audio, Start


def test_livekit_plugin_streams_answers_on_one_tts(model_server_url, tmp_path):
    report = run_client("livekit_stream.py", model_server_url, ANSWER, ABORTED, NEXT, str(tmp_path))
    assert report["sample_rates"] == [24_000] and report["errors"] == []

    assert wer(ANSWER, transcribe((tmp_path / "answer.pcm").read_bytes(), 24_000)) <= MAX_WER

    timed = report["words"]  # every written word, in order, timed inside the answer's audio
    assert words(" ".join(word["text"] for word in timed)) == words(ANSWER)
    starts = [word["start"] for word in timed]
    assert starts == sorted(starts)
    assert all(0 <= word["start"] <= word["end"] <= report["answer_seconds"] + 0.05 for word in timed)
    answer = (tmp_path / "answer.pcm").read_bytes()
    # Each word cut out alone at its times is heard as that word (times that are off cut words apart: the
    # negative control, over several utterances, is tests/container/test_word_timing_speech.py's).
    spans = [(word["start"], word["end"]) for word in timed]
    assert wer(ANSWER, heard_from_cuts(answer, 24_000, spans)) <= MAX_WER

    assert report["interrupted_bytes"] > 0  # the interrupted turn had begun speaking when it was closed
    # Its cancel reached the server: by the end of the next turn at most the piece it was rendering and the
    # next turn's few pieces were rendered, never the nine or more it still had queued.
    assert report["renders_after_abort"] < 9, report
    for name in ("next.pcm", "chunked.pcm"):  # then the same TTS spoke the next turn, streamed and whole
        heard = transcribe((tmp_path / name).read_bytes(), 24_000)
        assert wer(NEXT, heard) <= MAX_WER, (name, heard)
    assert report["next_words"] == len(NEXT.split())


def test_livekit_agent_session_speaks_streamed_answers_and_stops_an_interrupted_one(model_server_url, tmp_path):
    """The plugin as an agent uses it: LiveKit's AgentSession with kokoro.TTS, speaking text streamed as an LLM's
    tokens (tests/frameworks/livekit_session.py). The answer is heard; a turn interrupted at its first frame
    sends no audio after, and its queued pieces are never rendered; the next turn is heard. Then bad input: an
    empty text is no audio and no error, a voice the server does not have is LiveKit's own error event (the
    server's refusal, naming the voices there are) with no audio, and the session speaks on."""
    report = run_client("livekit_session.py", model_server_url, ANSWER, ABORTED, NEXT, str(tmp_path))
    assert report["errors_before_bad_input"] == [], report
    assert wer(ANSWER, transcribe((tmp_path / "answer.pcm").read_bytes(), 24_000)) <= MAX_WER
    assert report["interrupted_bytes"] > 0 and report["audio_after_interrupt_bytes"] == 0, report
    assert report["renders_after_abort"] < 9, report
    assert wer(NEXT, transcribe((tmp_path / "next.pcm").read_bytes(), 24_000)) <= MAX_WER

    assert report["empty_bytes"] == 0 and report["refused_bytes"] == 0, report
    [refused] = report["errors"]
    assert refused["type"] == "TTSError" and "unknown_voice" in refused["error"] and "af_heart" in refused["error"]
    assert wer(NEXT, transcribe((tmp_path / "after_error.pcm").read_bytes(), 24_000)) <= MAX_WER


def test_livekit_plugin_speaks_again_after_the_model_server_restarts(tmp_path):
    """The server dies between two turns and comes back on the same address: the same TTS opens a new session
    and the next turn is heard. An idle session reads nothing, so the dead one is found by the next turn's first
    message: reported once, as the connection error LiveKit retries, and the retry speaks on a new session."""
    report = run_client_across_restart("livekit_restart.py", NEXT, tmp_path)
    assert report["errors"] == ["APIConnectionError"]  # once, and retried: no other error, no second one
    for name in ("before.pcm", "after.pcm"):
        heard = transcribe((tmp_path / name).read_bytes(), 24_000)
        assert wer(NEXT, heard) <= MAX_WER, (name, heard, report)


async def speak_all_but_the_end(peer: Peer) -> None:
    """The stream's one piece, a second of its audio, and no end until the client cancels it."""
    await greet(peer)
    piece = await peer.expect(Synthesize)
    await peer.send(Start(id=piece.id or ""))
    for seq in range(10):
        await peer.send(Audio(id=piece.id or "", seq=seq, pcm=PCM_CHUNK))
    await peer.expect(Cancel)


def test_livekit_plugin_waits_for_its_last_piece_without_spinning():
    """With the text all sent and only the last piece's end owed, the stream waits on the session: its
    process uses a small part of one CPU second (a stream whose wait returned at once for its finished sender
    used all of it, and starved the server of a core)."""
    with scripted_model_server_thread(speak_all_but_the_end) as url:
        report = run_client("livekit_idle.py", url)
    assert report["waiting_cpu_s"] < 0.2 * report["wait_s"], report
