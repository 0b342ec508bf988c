"""What the application's lifespan owns: the loaded model, its scheduler and its readiness.

The socket opens at once and ``/ping`` answers 503 until the model is loaded and warm (SageMaker waits on
``/ping``; a WebSocket must be accepted within ~250 ms, so loading never happens inside a handler).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time

import numpy as np

from kokoro_server.admission import Admission, SpeedMeter
from kokoro_server.assets import ModelAssets
from kokoro_server.engine.backend import load_backend
from kokoro_server.engine.phonemes import Phonemizer
from kokoro_server.engine.synthesizer import Chunk, Synthesizer
from kokoro_server.engine.voices import VoiceBank
from speech_protocol.messages import SAMPLE_RATE
from kokoro_server.scheduler import PlaybackClock, Scheduler
from kokoro_server.settings import ServerSettings

log = logging.getLogger("kokoro_server")


class NotReady(RuntimeError):
    """The model is still loading (or failed to load)."""


class SpeechRuntime:
    def __init__(self, settings: ServerSettings, assets: ModelAssets):
        self.settings = settings
        self.assets = assets
        self.scheduler = Scheduler(settings.workers)
        self.synthesizer: Synthesizer | None = None
        self.load_error: BaseException | None = None
        self.rtf: float | None = None  # measured at warm-up; advertised in each session's Ready
        self.speed = SpeedMeter()  # the running rtf, from every render: admission's capacity
        self.admission = Admission(settings.workers, self.speed, settings.max_sessions)
        self._g2p_lock = threading.Lock()  # misaki is not thread-safe; G2P is milliseconds
        self._ready = asyncio.Event()

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    def _load(self) -> Synthesizer:
        start = time.perf_counter()
        s = self.settings
        synthesizer = Synthesizer(
            load_backend(s.engine, self.assets, s.device, s.threads), Phonemizer(), VoiceBank(self.assets),
            default_voice=s.voice, trim=s.trim,
        )
        self.rtf = round(max(synthesizer.warm_up(s.warm_up_text), s.simulate_rtf), 3)
        self.speed.baseline = self.rtf
        log.info("model ready: engine=%s device=%s in %.1f s (real-time factor %.2f)", s.engine, s.device,
                 time.perf_counter() - start, self.rtf)
        return synthesizer

    async def load(self) -> None:
        try:
            self.synthesizer = await asyncio.to_thread(self._load)
            self._ready.set()
        except Exception as exc:  # reported by /ping and in the log; the process stays up for SageMaker
            self.load_error = exc
            log.exception("model failed to load")

    def _synth(self) -> Synthesizer:
        if self.synthesizer is None:
            raise NotReady(f"model failed to load: {self.load_error}" if self.load_error
                           else "model is loading")
        return self.synthesizer

    def check_voice(self, voice: str | None) -> None:
        """Raise UnknownVoice now for a voice or blend this server cannot speak (cached, cheap)."""
        synth = self._synth()
        synth.voices.get(voice or synth.default_voice)

    async def plan(self, text: str, voice: str | None, speed: float, clock: PlaybackClock, *,
                   normalize: bool = True) -> list[Chunk]:
        synth = self._synth()

        def plan() -> list[Chunk]:
            with self._g2p_lock:
                return synth.plan(text, voice, speed, normalize=normalize)

        return await self.scheduler.run(plan, clock)

    async def render(self, chunk: Chunk, clock: PlaybackClock) -> np.ndarray:
        synth = self._synth()

        def render() -> np.ndarray:
            start = time.perf_counter()
            audio = synth.render(chunk)
            audio_s = len(audio) / SAMPLE_RATE
            slower = self.settings.simulate_rtf * audio_s - (time.perf_counter() - start)
            if slower > 0:  # --simulate-rtf: hold the worker as a slower engine would
                time.sleep(slower)
            self.speed.observe(time.perf_counter() - start, audio_s)
            return audio

        return await self.scheduler.run(render, clock)

    def close(self) -> None:
        self.scheduler.close()
