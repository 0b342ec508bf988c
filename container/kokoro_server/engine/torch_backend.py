"""Kokoro-82M on PyTorch through kokoro's own ``KModel``: the GPU image's engine.

Loaded with an explicit config and weights file, so the Hugging Face hub is never contacted. The forward
pass is ``KModel.forward_with_tokens`` in two stages, the durations and the decoder, so that a cancel
stops it between them (docs/decisions/120-cancel-the-running-inference.md), and inside the decoder, the most
of a render, before each of its layers: a hook on each checks the token of the render running on its thread,
so that a render stopped for a more pressing listener frees the worker at once
(docs/decisions/168-preempt-a-render-that-can-wait.md).

:meth:`TorchBackend.infer_batch` speaks several rows in one pass, each as it would be alone
(:mod:`.batched_forward`, docs/decisions/125-batched-synthesis.md).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import torch

from kokoro_server.assets import STYLE_DIM, ModelAssets
from kokoro_server.engine import batched_forward
from kokoro_server.engine.backend import CancelToken, Inference, RenderCancelled
from kokoro_server.engine.batch import FRAME_BUCKET_RATIO, MAX_BATCH_FRAMES, BatchRow, frame_groups
from kokoro_server.engine.tokens import frames_per_character, token_ids


class TorchBackend:
    name = "torch"
    # How infer_batch groups rows for the decoder (kokoro_server.engine.batch.frame_groups).
    frame_ratio = FRAME_BUCKET_RATIO
    max_frames = MAX_BATCH_FRAMES

    def __init__(self, assets: ModelAssets, *, device: str = "cpu", threads: int = 0):
        if device == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("--device cuda was asked for, but torch sees no CUDA device")
        if threads:
            torch.set_num_threads(threads)
        from kokoro import KModel  # here: kokoro pulls in transformers and misaki, which only a loading engine needs

        self._device = device
        self._model = (
            KModel(repo_id="hexgrad/Kokoro-82M", config=str(assets.config), model=str(assets.torch_model))
            .to(device)
            .eval()
        )
        self._rendering = threading.local()  # .cancel: the token of the render this thread runs, if any
        for layer in self._model.decoder.modules():
            layer.register_forward_pre_hook(self._check_cancel)

    def _check_cancel(self, _layer: torch.nn.Module, _inputs: object) -> None:
        """Before each decoder layer: raise RenderCancelled once this thread's render is cancelled."""
        cancel = getattr(self._rendering, "cancel", None)
        if cancel is not None:
            cancel.check()

    def infer(self, phonemes: str, style: np.ndarray, speed: float, cancel: CancelToken | None = None) -> Inference:
        ids = torch.tensor([[0, *token_ids(phonemes, self._model.vocab), 0]], dtype=torch.long, device=self._device)
        ref_s = torch.from_numpy(np.asarray(style, dtype=np.float32).reshape(1, STYLE_DIM)).to(self._device)
        with torch.inference_mode():
            pred_dur, d = self._durations(ids, ref_s, speed)
            if cancel is not None:
                cancel.check()
            self._rendering.cancel = cancel
            try:
                audio = self._decode(ids, ref_s, d, pred_dur)
            finally:
                self._rendering.cancel = None
        return Inference(
            audio=audio.reshape(-1).float().cpu().numpy(),
            frames=frames_per_character(phonemes, self._model.vocab, pred_dur.cpu().numpy()),
        )

    def infer_batch(
        self, rows: Sequence[BatchRow], cancels: Sequence[CancelToken | None]
    ) -> list[Inference | RenderCancelled]:
        """Durations for all ``rows`` in one pass, then the decoder in passes of rows of similar frames
        (:func:`~kokoro_server.engine.batch.frame_groups`); a row whose token is cancelled before its
        decoder pass is dropped from it. Each row's frames and sample count are exactly what :meth:`infer`
        gives it, its audio within the tolerance of docs/decisions/125-batched-synthesis.md when
        ``row.seed`` seeds the global generator before :meth:`infer`."""
        if len(rows) != len(cancels):
            raise ValueError("one cancel token (or None) per row")
        outcomes: list[Inference | RenderCancelled] = [RenderCancelled("the render was cancelled") for _ in rows]
        live = [i for i, token in enumerate(cancels) if not _cancelled(token)]
        if not live:
            return outcomes
        vocab = self._model.vocab
        seeds = [self._seed(rows[i].seed) for i in live]
        ids, lengths, ref_s, speed = self._padded([rows[i] for i in live])
        with torch.inference_mode():
            pred_dur, d = batched_forward.durations(self._model, ids, lengths, ref_s, speed)
            frames = pred_dur.sum(dim=1).tolist()
            for group in frame_groups(frames, max_frames=self.max_frames, ratio=self.frame_ratio):
                group = [row for row in group if not _cancelled(cancels[live[row]])]
                if not group:
                    continue
                pick = torch.tensor(group, device=self._device)
                longest = int(lengths[pick].max())
                audio = batched_forward.decode(
                    self._model,
                    ids[pick, :longest],
                    lengths[pick],
                    ref_s[pick],
                    d[pick, :longest],
                    pred_dur[pick, :longest],
                    [seeds[row] for row in group],
                )
                for row, wave in zip(group, audio, strict=True):
                    index = live[row]
                    outcomes[index] = Inference(
                        audio=wave.float().cpu().numpy(),
                        frames=frames_per_character(
                            rows[index].phonemes, vocab, pred_dur[row, : int(lengths[row])].cpu().numpy()
                        ),
                    )
        return outcomes

    def _padded(self, rows: Sequence[BatchRow]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """The rows' token ids padded with 0 ``[B, T]``, their lengths (pads included), styles and speeds."""
        token_rows = [[0, *token_ids(row.phonemes, self._model.vocab), 0] for row in rows]
        lengths = torch.tensor([len(t) for t in token_rows], dtype=torch.long, device=self._device)
        ids = torch.zeros((len(rows), int(lengths.max())), dtype=torch.long, device=self._device)
        for i, tokens in enumerate(token_rows):
            ids[i, : len(tokens)] = torch.tensor(tokens, dtype=torch.long)
        styles = np.stack([np.asarray(row.style, dtype=np.float32).reshape(STYLE_DIM) for row in rows])
        speed = torch.tensor([float(row.speed) for row in rows], device=self._device)
        return ids, lengths, torch.from_numpy(styles).to(self._device), speed

    @staticmethod
    def _seed(seed: int | None) -> int:
        """The row's seed, or one drawn from the global generator (a batch-1 render draws from it too)."""
        return int(torch.randint(0, 2**62, (1,)).item()) if seed is None else seed

    def _lengths_and_mask(self, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """KModel's input lengths and padding mask for one unpadded sequence (the mask is all False)."""
        lengths = torch.full((1,), ids.shape[-1], device=self._device, dtype=torch.long)
        return lengths, torch.gt(
            torch.arange(ids.shape[-1], device=self._device).unsqueeze(0) + 1, lengths.unsqueeze(1)
        )

    def _durations(self, ids: torch.Tensor, ref_s: torch.Tensor, speed: float) -> tuple[torch.Tensor, torch.Tensor]:
        """``KModel.forward_with_tokens`` up to ``pred_dur``: frames per token, and the features ``d`` the
        prosody is predicted from once they are expanded over those frames."""
        m = self._model
        lengths, mask = self._lengths_and_mask(ids)
        d_en = m.bert_encoder(m.bert(ids, attention_mask=(~mask).int())).transpose(-1, -2)
        d = m.predictor.text_encoder(d_en, ref_s[:, 128:], lengths, mask)
        x, _ = m.predictor.lstm(d)
        duration = torch.sigmoid(m.predictor.duration_proj(x)).sum(dim=-1) / speed
        return torch.round(duration).clamp(min=1).long().reshape(-1), d

    def _decode(self, ids: torch.Tensor, ref_s: torch.Tensor, d: torch.Tensor, pred_dur: torch.Tensor) -> torch.Tensor:
        """The rest of ``KModel.forward_with_tokens``: each token's features spread over its frames, the
        prosody (F0, energy) predicted on them, and the decoder's audio."""
        m = self._model
        tokens = ids.shape[-1]
        lengths, mask = self._lengths_and_mask(ids)
        indices = torch.repeat_interleave(torch.arange(tokens, device=self._device), pred_dur)
        alignment = torch.zeros((tokens, indices.shape[0]), device=self._device)
        alignment[indices, torch.arange(indices.shape[0])] = 1
        alignment = alignment.unsqueeze(0)
        f0, noise = m.predictor.F0Ntrain(d.transpose(-1, -2) @ alignment, ref_s[:, 128:])
        asr = m.text_encoder(ids, lengths, mask) @ alignment
        return m.decoder(asr, f0, noise, ref_s[:, :128])


def _cancelled(token: CancelToken | None) -> bool:
    return token is not None and token.cancelled
