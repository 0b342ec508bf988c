"""What the application's lifespan owns: the loaded model, its scheduler and its readiness.

The socket opens at once and ``/ping`` answers 503 until the model is loaded and warm (SageMaker waits on
``/ping``; a WebSocket must be accepted within ~250 ms, so loading never happens inside a handler).

G2P has its own queue and worker processes, apart from the model's workers, so a text being read never
delays audio. A text is read in bounded slices, each one job in that queue at its session's deadline, so
a long text (seconds for 5,000 characters of symbols, docs/decisions/040-bounded-g2p.md) never holds back
another listener's first piece either (docs/decisions/130-fair-g2p-slices.md). Both queues drop the work
of a client that hung up, their threads are daemons, and the G2P processes end with the server.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
import time
from collections.abc import AsyncIterator

from kokoro_server.admission import Admission
from kokoro_server.assets import ModelAssets
from kokoro_server.engine.backend import FRAME_SAMPLES, CancelToken, RenderCancelled
from kokoro_server.engine.batch import token_bucket
from kokoro_server.engine.registry import load_backend
from kokoro_server.engine.synthesizer import Rendered, Synthesizer
from kokoro_server.engine.voices import VoiceBank
from kokoro_server.engine.warm_up import WARM_UP_TEXT
from kokoro_server.engine.word_timing import WordTimeline
from kokoro_server.refusals import Refusal
from kokoro_server.scheduler import PlaybackClock, Scheduler
from kokoro_server.settings import ServerSettings
from kokoro_server.text.chunks import PHONEMES_PER_AUDIO_S, Chunk
from kokoro_server.text.g2p_pool import G2PPool, default_workers
from kokoro_server.text.phonemes import ReadSlice
from kokoro_server.text.reading import Reading
from speech_protocol.client_messages import Synthesize
from speech_protocol.errors import NOT_READY
from speech_protocol.framing import SAMPLE_RATE
from speech_protocol.pace import PaceMeter, SpeechModel, Timing
from speech_protocol.server_events import WordSpan

log = logging.getLogger("kokoro_server")


class NotReady(Refusal):
    """The model is still loading (or failed to load)."""

    status, code = 503, NOT_READY


class Spoken:
    """One text on its way out: its chunks, and what the speaking loop has made of them so far (its samples,
    each written word's span in them), kept by :meth:`SpeechRuntime.speak` alike for every front door."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self.chunks = chunks
        self._timeline = WordTimeline(chunks[0].words)

    @property
    def samples(self) -> int:
        return self._timeline.samples

    def frames(self) -> int:
        """The model's 25 ms frames spoken so far (the OpenAI API's output tokens)."""
        return math.ceil(self.samples / FRAME_SAMPLES)

    def words(self) -> list[WordSpan]:
        return self._timeline.spans()

    def add(self, rendered: Rendered) -> None:
        self._timeline.add(rendered.spans, len(rendered.audio))


class SpeechRuntime:
    def __init__(self, settings: ServerSettings, assets: ModelAssets):
        self.settings = settings
        self.assets = assets
        self.scheduler = Scheduler(
            settings.workers, max_batch=settings.max_batch, batch_wait_s=settings.batch_wait_ms / 1000
        )
        self.g2p_workers = settings.g2p_workers or default_workers()
        self.g2p = Scheduler(self.g2p_workers, name="g2p")  # one thread per G2P process (misaki: not thread-safe)
        self.g2p_pool: G2PPool | None = None  # started with the model's load
        self.synthesizer: Synthesizer | None = None
        self.load_error: BaseException | None = None
        self.pace: SpeechModel | None = None  # measured at warm-up: the meter's baseline
        self.meter = PaceMeter()  # the running pace, from every render: admission's capacity and the sessions'
        self.admission = Admission(settings.workers, self.meter, settings.max_sessions)
        self.batched = 0  # renders that shared a model pass with others: /ping's proof that batching happens
        self._batched_lock = threading.Lock()  # passes end on worker threads
        self._ready = asyncio.Event()

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    def _load(self) -> Synthesizer:
        start = time.perf_counter()
        s = self.settings
        self.g2p_pool = G2PPool(self.g2p_workers)  # its processes load G2P while this thread loads the model
        synthesizer = Synthesizer(
            load_backend(s.engine, self.assets, s.device, s.threads, simulate_rtf=s.simulate_rtf, spin=s.onnx_spin),
            VoiceBank(self.assets),
            default_voice=s.voice,
            trim=s.trim,
        )
        if s.max_batch > 1 and not synthesizer.can_batch:
            log.warning("--max-batch %d: the %s engine does not batch, each chunk runs alone", s.max_batch, s.engine)
        self.g2p_pool.wait_ready()
        # The warm-up's text is read by the G2P processes too: this process loads no misaki of its own (decision 141).
        self.pace = warm_up(synthesizer, self.g2p_pool.read, s.warm_up_text)
        self.meter.baseline = self.pace
        log.info(
            "model ready: engine=%s device=%s in %.1f s (real-time factor %.2f, %.2f s per utterance)",
            s.engine,
            s.device,
            time.perf_counter() - start,
            self.pace.rtf,
            self.pace.overhead_s,
        )
        return synthesizer

    async def load(self) -> None:
        try:
            # On a model worker (a daemon thread): nothing else runs there before the model is ready, and
            # SIGTERM during the load does not wait for it (asyncio.to_thread's threads are joined at exit).
            self.synthesizer = await self.scheduler.run(self._load)
            self._ready.set()
        except Exception as exc:  # reported by /ping and in the log; the process stays up for SageMaker
            self.load_error = exc
            log.exception("model failed to load")

    def running_pace(self) -> SpeechModel | None:
        """The pace sessions advertise (Ready, then ``end`` when it changes): the warm-up's, scaled by how
        the server has run since (docs/decisions/121-first-piece-from-the-running-pace.md)."""
        return self.meter.model()

    def _synth(self) -> Synthesizer:
        if self.synthesizer is None:
            raise NotReady(f"model failed to load: {self.load_error}" if self.load_error else "model is loading")
        return self.synthesizer

    def check_voice(self, voice: str | None) -> None:
        """Raise UnknownVoice now for a voice or blend this server cannot speak (cached, cheap)."""
        self._synth().voice(voice)

    async def plan(self, request: Synthesize, clock: PlaybackClock) -> list[Chunk]:
        """The chunks of ``request``'s text, read slice by slice on the G2P processes, each slice queued at
        ``clock``'s deadline (docs/decisions/130-fair-g2p-slices.md), in its language (None: the voice's own)."""
        synth = self._synth()
        assert self.g2p_pool is not None  # started before the synthesizer
        read = self.g2p_pool.read
        voice = synth.voice(request.voice)
        reading = Reading(
            request.text, voice, request.speed, read, normalize=request.normalize, language=request.language
        )
        while (chunks := await self.g2p.run(reading.step, clock)) is None:
            pass
        return chunks

    def g2p_status(self) -> dict[str, int]:
        """For /ping: the G2P processes, how many were replaced after they died, and the slices read so far."""
        pool = self.g2p_pool
        return {
            "g2p_workers": self.g2p_workers,
            "g2p_replaced": pool.replaced if pool else 0,
            "g2p_slices": pool.slices_read if pool else 0,
        }

    async def render(self, chunk: Chunk, clock: PlaybackClock, cancel: CancelToken | None = None) -> Rendered:
        """Speak ``chunk`` on a model worker. Cancelling ``cancel`` (or the awaiting task) stops the render
        where it is and frees the worker; the awaiting call then raises
        :class:`~kokoro_server.engine.backend.RenderCancelled` (or is cancelled), and the speed meter
        records nothing of it (docs/decisions/120-cancel-the-running-inference.md)."""
        synth = self._synth()
        token = cancel or CancelToken()
        cost_s = self.render_cost_s(chunk)
        if self.scheduler.max_batch > 1 and synth.can_batch:
            key = token_bucket(len(chunk.phonemes))
            return await self.scheduler.run_batched(self._render_batch, chunk, key, clock, token, cost_s)

        def render(run: CancelToken) -> Rendered:
            start = time.perf_counter()
            rendered = synth.render(chunk, run)
            self.meter.observe(Timing(time.perf_counter() - start, len(rendered.audio) / SAMPLE_RATE))
            return rendered

        # A render alone may be stopped for a more pressing listener and run again (decision 168).
        return await self.scheduler.run_preemptible(render, clock, token, cost_s)

    def render_cost_s(self, chunk: Chunk) -> float:
        """The seconds the running pace predicts ``chunk``'s render takes (its fixed cost, and its audio from
        its phonemes at the running real-time factor): how the scheduler orders listeners who have heard
        nothing yet. 0 before the warm-up has measured a pace."""
        model = self.meter.model()
        if model is None:
            return 0.0
        return model.overhead_s + model.rtf * len(chunk.phonemes) / PHONEMES_PER_AUDIO_S / chunk.speed

    async def speak(
        self, spoken: Spoken, clock: PlaybackClock, cancel: CancelToken | None = None
    ) -> AsyncIterator[Rendered]:
        """The one speaking loop of every front door (``/invocations``, the OpenAI routes, the session):
        each chunk rendered in its listener's turn, yielded, and counted as played once the caller has
        handed it on, so the next chunk is queued at the deadline of a listener who has that much more
        audio. Each chunk yielded is added to ``spoken`` first (its samples, its words' spans). A cancel
        (``cancel``) ends the loop before, during or after a render, yielding nothing more."""
        for chunk in spoken.chunks:
            if cancel is not None and cancel.cancelled:
                return
            try:
                rendered = await self.render(chunk, clock, cancel)
            except RenderCancelled:  # stopped mid-render: the worker is already free
                return
            if cancel is not None and cancel.cancelled:
                return
            spoken.add(rendered)
            yield rendered
            clock.played(len(rendered.audio) / SAMPLE_RATE)

    def _render_batch(self, chunks: list[Chunk], tokens: list[CancelToken]) -> list[Rendered | RenderCancelled]:
        """Several sessions' chunks in one pass (docs/decisions/125-batched-synthesis.md). The meter gets one
        timing per chunk spoken, the pass's time shared in proportion to audio: what admission's capacity
        and the advertised pace then measure is the batched throughput."""
        start = time.perf_counter()
        outs = self._synth().render_batch(chunks, tokens)
        spent = time.perf_counter() - start
        heard = [len(out.audio) / SAMPLE_RATE for out in outs if isinstance(out, Rendered)]
        if len(chunks) > 1:
            with self._batched_lock:
                self.batched += len(heard)
        for audio_s in heard:
            self.meter.observe(Timing(spent * audio_s / max(sum(heard), 1e-9), audio_s))
        return outs

    def close(self) -> None:
        """End the G2P processes, cancel queued G2P and synthesis and stop the running renders."""
        if self.g2p_pool is not None:
            self.g2p_pool.close()
        self.g2p.close(wait_s=0.5)
        self.scheduler.close(wait_s=0.5)


# The short piece timed beside the warm-up text ("Thanks for asking,"): the length of an eager first piece.
SHORT_PIECE_WORDS = 3


def warm_up(synth: Synthesizer, read: ReadSlice, text: str = WARM_UP_TEXT, rounds: int = 3) -> SpeechModel:
    """The pace clients size their pieces by (:meth:`SpeechModel.measured`): ``text``'s first few words
    (the process's first call, which warms it), then ``text`` once for the real-time factor, then the
    short piece ``rounds - 1`` more times for its median, since its cost is a small difference of noisy
    figures (docs/decisions/088-piece-overhead.md). Timing the sentence once, not three times, halved
    the warm-up (docs/decisions/143-warm-up-times-the-sentence-once.md). Each is read and rendered as a
    request's text is (:class:`~kokoro_server.text.reading.Reading`, then the synthesizer), on the calling
    thread: the model worker, before the server takes requests. A slowed backend
    (:mod:`kokoro_server.engine.slowed`) is timed as it runs."""
    if rounds < 1:
        raise ValueError("warm-up needs at least one round")

    def timed(words: str) -> Timing:
        start = time.perf_counter()
        chunks = Reading(words, synth.voice(None), 1.0, read).whole()
        heard = sum(len(synth.render(chunk).audio) for chunk in chunks) / SAMPLE_RATE
        return Timing(time.perf_counter() - start, max(heard, 1e-3))

    short = " ".join(text.split()[:SHORT_PIECE_WORDS])
    first = timed(short)
    sentence = timed(text)
    shorts = sorted([first, *(timed(short) for _ in range(rounds - 1))], key=lambda t: t.synth_s)
    return SpeechModel.measured(short=shorts[len(shorts) // 2], sentence=sentence)
