"""Kokoro's forward pass for several rows of different lengths at once, each row computed as if alone.

``KModel.forward_with_tokens`` takes one sequence. Padding a batch changes a row's result wherever a layer
looks along time, so this module runs the same modules (their weights, kokoro's own ``nn.Module`` calls
where they already handle a batch) with the padding masked at every such place
(docs/decisions/125-batched-synthesis.md):

- ALBERT gets the attention mask; the text and duration encoders get lengths (they pack their LSTMs);
  the duration and F0/energy LSTMs are packed here, over tokens and over frames.
- Durations are per row (each row's speed), the alignment is per row, padded frames align to no token.
- Every instance norm (AdaIN) takes its mean and variance over the row's valid frames only, and padded
  frames are zeroed before every convolution, so a row's last frames see the zeros they see alone (a
  convolution's own zero padding); upsampling layers double each row's length.
- The harmonic source, its STFT and the final inverse STFT run per row on the row's own length (they are
  cheap): the source's random phase and noise come from the row's own seeded generator, and the inverse
  STFT's window sum sees only the row's frames.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F  # noqa: N812 - torch's own convention
from torch import nn

if TYPE_CHECKING:  # kokoro's classes are annotations here; importing kokoro pulls in transformers and misaki
    from kokoro import KModel
    from kokoro.istftnet import AdaIN1d, AdainResBlk1d, AdaINResBlock1, Decoder, Generator, SourceModuleHnNSF
    from kokoro.modules import ProsodyPredictor


def _mask(lengths: torch.Tensor, size: int) -> torch.Tensor:
    """``[B, 1, size]`` float: 1 on each row's first ``lengths`` steps, 0 on its padding."""
    steps = torch.arange(size, device=lengths.device)
    return (steps.unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(1).float()


def _lstm(lstm: nn.LSTM, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """A batch-first LSTM over ``[B, T, C]`` that stops at each row's length (zeros after it)."""
    packed = nn.utils.rnn.pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
    out, _ = lstm(packed)
    padded, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
    return padded


def _conv_length(conv: nn.Conv1d | nn.ConvTranspose1d, lengths: torch.Tensor) -> torch.Tensor:
    """Each row's output length through ``conv``, as it would be for the row alone."""
    if isinstance(conv.padding, str):
        raise ValueError("Kokoro's convolutions have numeric padding")
    k, s, p, d = conv.kernel_size[0], conv.stride[0], conv.padding[0], conv.dilation[0]
    if isinstance(conv, nn.ConvTranspose1d):
        return (lengths - 1) * s - 2 * p + d * (k - 1) + conv.output_padding[0] + 1
    return (lengths + 2 * p - d * (k - 1) - 1) // s + 1


def _adain(norm: AdaIN1d, x: torch.Tensor, s: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``AdaIN1d`` with the instance norm's statistics over the valid steps of each row."""
    gamma, beta = torch.chunk(norm.fc(s).unsqueeze(-1), chunks=2, dim=1)
    count = mask.sum(dim=-1, keepdim=True)
    mean = (x * mask).sum(dim=-1, keepdim=True) / count
    var = (((x - mean) * mask) ** 2).sum(dim=-1, keepdim=True) / count
    inorm = norm.norm
    normed = (x - mean) * torch.rsqrt(var + inorm.eps)
    if inorm.affine:
        normed = normed * inorm.weight.view(1, -1, 1) + inorm.bias.view(1, -1, 1)
    return (1 + gamma) * normed + beta


def _resblk(
    block: AdainResBlk1d, x: torch.Tensor, s: torch.Tensor, lengths: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """``AdainResBlk1d.forward`` masked; returns the output and its lengths (doubled by an upsampling block)."""
    upsampled = block.upsample_type != "none"
    out_lengths = lengths * 2 if upsampled else lengths
    inside = _mask(lengths, x.shape[-1])
    x = x * inside
    h = block.actv(_adain(block.norm1, x, s, inside)) * inside
    h = block.pool(h)
    outside = _mask(out_lengths, h.shape[-1])
    h = block.conv1(h * outside)
    h = block.actv(_adain(block.norm2, h, s, outside)) * outside
    h = block.conv2(h)
    out = (h + block._shortcut(x)) * torch.rsqrt(torch.tensor(2))  # noqa: SLF001 - kokoro's own shortcut
    return out * outside, out_lengths


def _resblock1(block: AdaINResBlock1, x: torch.Tensor, s: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """``AdaINResBlock1.forward`` (the generator's Snake blocks) masked."""
    mask = _mask(lengths, x.shape[-1])
    x = x * mask
    for c1, c2, n1, n2, a1, a2 in zip(
        block.convs1, block.convs2, block.adain1, block.adain2, block.alpha1, block.alpha2, strict=True
    ):
        xt = _adain(n1, x, s, mask)
        xt = xt + (1 / a1) * (torch.sin(a1 * xt) ** 2)
        xt = c1(xt * mask)
        xt = _adain(n2, xt, s, mask)
        xt = xt + (1 / a2) * (torch.sin(a2 * xt) ** 2)
        xt = c2(xt * mask)
        x = (xt + x) * mask
    return x


def _harmonic_source(source: SourceModuleHnNSF, f0: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """``SourceModuleHnNSF`` for one row ``[1, samples, 1]``, its draws from ``generator`` in the order and
    shapes ``SineGen`` draws them from the global one (the noise branch's draw, never used, is skipped)."""
    sine = source.l_sin_gen
    harmonics = torch.arange(1, sine.harmonic_num + 2, dtype=torch.float32, device=f0.device)
    fn = f0 * harmonics.view(1, 1, -1)
    rad_values = (fn / sine.sampling_rate) % 1
    rand_ini = torch.rand(fn.shape[0], fn.shape[2], device=f0.device, generator=generator)
    rand_ini[:, 0] = 0
    rad_values[:, 0, :] = rad_values[:, 0, :] + rand_ini
    scale = sine.upsample_scale
    rad_values = F.interpolate(rad_values.transpose(1, 2), scale_factor=1 / scale, mode="linear").transpose(1, 2)
    phase = torch.cumsum(rad_values, dim=1) * 2 * torch.pi
    phase = F.interpolate(phase.transpose(1, 2) * scale, scale_factor=scale, mode="linear").transpose(1, 2)
    sines = torch.sin(phase) * sine.sine_amp
    uv = (f0 > sine.voiced_threshold).type(torch.float32)
    noise_amp = uv * sine.noise_std + (1 - uv) * sine.sine_amp / 3
    # randn_like's draws, in its order: it fills ``sines``'s memory layout (a transposed view), not its shape's
    noise = noise_amp * torch.empty_like(sines).normal_(generator=generator)
    return source.l_tanh(source.l_linear(sines * uv + noise))


def _generator(
    gen: Generator, x: torch.Tensor, s: torch.Tensor, f0: torch.Tensor, lengths: torch.Tensor, seeds: Sequence[int]
) -> list[torch.Tensor]:
    """``Generator.forward`` masked: ``lengths`` are each row's steps of ``x`` (twice its frames), which are
    also its steps of the F0 curve ``f0``. Returns each row's audio, 1-D."""
    har_rows = []
    for row, seed in enumerate(seeds):
        curve = f0[row : row + 1, : int(lengths[row])]
        upsampled = gen.f0_upsamp(curve[:, None]).transpose(1, 2)
        generator = torch.Generator(device=x.device).manual_seed(seed)
        source = _harmonic_source(gen.m_source, upsampled, generator).transpose(1, 2).squeeze(1)
        spec, phase = gen.stft.transform(source)
        har_rows.append(torch.cat([spec, phase], dim=1)[0])
    har_lengths = torch.tensor([h.shape[-1] for h in har_rows], device=x.device)
    har = torch.zeros(len(har_rows), har_rows[0].shape[0], int(har_lengths.max()), device=x.device)
    for row, h in enumerate(har_rows):
        har[row, :, : h.shape[-1]] = h
    for i in range(gen.num_upsamples):
        x = F.leaky_relu(x, negative_slope=0.1)
        source_lengths = _conv_length(gen.noise_convs[i], har_lengths)
        x_source = gen.noise_convs[i](har)
        x_source = _resblock1(gen.noise_res[i], x_source, s, source_lengths)
        x = gen.ups[i](x)
        lengths = _conv_length(gen.ups[i], lengths)
        if i == gen.num_upsamples - 1:
            x = gen.reflection_pad(x)
            lengths = lengths + 1
        x = (x + x_source) * _mask(lengths, x.shape[-1])
        xs = sum(_resblock1(gen.resblocks[i * gen.num_kernels + j], x, s, lengths) for j in range(gen.num_kernels))
        x = xs / gen.num_kernels
    x = gen.conv_post(F.leaky_relu(x) * _mask(lengths, x.shape[-1]))
    spec = torch.exp(x[:, : gen.post_n_fft // 2 + 1, :])
    phase = torch.sin(x[:, gen.post_n_fft // 2 + 1 :, :])
    return [
        gen.stft.inverse(spec[row : row + 1, :, :n], phase[row : row + 1, :, :n]).reshape(-1)
        for row, n in enumerate(lengths.tolist())
    ]


def _prosody(
    predictor: ProsodyPredictor, en: torch.Tensor, s: torch.Tensor, frames: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """``ProsodyPredictor.F0Ntrain`` masked: F0 and energy curves, ``[B, 2 * frames]``, zero past each row."""
    x = _lstm(predictor.shared, en.transpose(-1, -2), frames).transpose(-1, -2)
    curves = []
    for blocks, proj in ((predictor.F0, predictor.F0_proj), (predictor.N, predictor.N_proj)):
        h, lengths = x, frames
        for block in blocks:
            h, lengths = _resblk(block, h, s, lengths)
        curves.append((proj(h) * _mask(lengths, h.shape[-1])).squeeze(1))
    return curves[0], curves[1]


def _decoder(
    dec: Decoder,
    asr: torch.Tensor,
    f0: torch.Tensor,
    n: torch.Tensor,
    s: torch.Tensor,
    frames: torch.Tensor,
    seeds: Sequence[int],
) -> list[torch.Tensor]:
    """``Decoder.forward`` masked, each row's audio."""
    mask = _mask(frames, asr.shape[-1])
    f0_down = dec.F0_conv(f0.unsqueeze(1)) * mask
    n_down = dec.N_conv(n.unsqueeze(1)) * mask
    x, lengths = _resblk(dec.encode, torch.cat([asr, f0_down, n_down], dim=1), s, frames)
    asr_res = dec.asr_res(asr) * mask
    residual = True
    for block in dec.decode:
        if residual:
            x = torch.cat([x, asr_res, f0_down, n_down], dim=1)
        x, lengths = _resblk(block, x, s, lengths)
        if block.upsample_type != "none":
            residual = False
    return _generator(dec.generator, x, s, f0, lengths, seeds)


def token_mask(lengths: torch.Tensor, size: int) -> torch.Tensor:
    """KModel's text mask: True on padding."""
    return torch.arange(size, device=lengths.device).unsqueeze(0) >= lengths.unsqueeze(1)


def durations(
    model: KModel, ids: torch.Tensor, lengths: torch.Tensor, ref_s: torch.Tensor, speed: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Frames per token ``[B, T]`` (0 on padding) and the duration features ``d`` for :func:`decode`."""
    mask = token_mask(lengths, ids.shape[-1])
    d_en = model.bert_encoder(model.bert(ids, attention_mask=(~mask).int())).transpose(-1, -2)
    d = model.predictor.text_encoder(d_en, ref_s[:, 128:], lengths, mask)
    x = _lstm(model.predictor.lstm, d, lengths)
    duration = torch.sigmoid(model.predictor.duration_proj(x)).sum(dim=-1) / speed.unsqueeze(1)
    return torch.round(duration).clamp(min=1).long().masked_fill(mask, 0), d


def decode(
    model: KModel,
    ids: torch.Tensor,
    lengths: torch.Tensor,
    ref_s: torch.Tensor,
    d: torch.Tensor,
    pred_dur: torch.Tensor,
    seeds: Sequence[int],
) -> list[torch.Tensor]:
    """Each row's audio from its tokens, durations and features (rows of :func:`durations`)."""
    frames = pred_dur.sum(dim=1)
    ends = pred_dur.cumsum(dim=1).unsqueeze(-1)
    steps = torch.arange(int(frames.max()), device=ids.device).view(1, 1, -1)
    alignment = ((steps >= ends - pred_dur.unsqueeze(-1)) & (steps < ends)).float()  # [B, T, frames]
    s = ref_s[:, 128:]
    f0, n = _prosody(model.predictor, d.transpose(-1, -2) @ alignment, s, frames)
    asr = model.text_encoder(ids, lengths, token_mask(lengths, ids.shape[-1])) @ alignment
    return _decoder(model.decoder, asr, f0, n, ref_s[:, :128], frames, seeds)
