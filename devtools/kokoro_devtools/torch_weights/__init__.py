"""Rebuild kokoro's ``KModel`` weights from the int8 ONNX export, for measuring the torch engine offline.

Why: the torch engine loads ``kokoro-v1_0.pth`` from the Hugging Face hub, which this project's machines
cannot reach; the only Kokoro-82M v1.0 weights here are the int8 ONNX export in ``assets/``. Every
parameter of ``KModel`` is in that graph, quantized or fused, and this undoes each transformation so the
torch engine computes what the ONNX engine computes (docs/decisions/086-torch-weights-from-onnx.md):

* int8/uint8 weights of ``MatMulInteger``, ``ConvInteger`` and the embedding ``Gather`` are dequantized,
  ``(q - zero_point) * scale``; ``MatMul`` weights are ``[in, out]`` and are transposed to ``Linear``'s
  ``[out, in]``;
* weight norm is folded in the export (the graph holds ``g * v / ||v||``): ``weight_v`` takes the folded
  weight and ``weight_g`` its norm over every dimension but the first, so their product is that weight
  (int8 rounding left some channels all zero: those get ``v = 1``, ``g = 0``);
* ``DynamicQuantizeLSTM`` packs each direction as ``W [in, 4h]``, ``R [h, 4h]`` and ``B [8h]`` with gates in
  ONNX order i, o, f, c; torch wants ``[4h, in]`` in order i, f, c (g), o;
* the module a weight belongs to is read from the node's scope name (``/decoder/decoder/decode.1/conv1/...``);
  the export dropped the ``predictor`` scope of the prosody blocks and names nested scopes in full
  (``cnn.0/cnn.0.0``), which :func:`module_of` undoes;
* two parameter groups are absent from the graph because the export does not use them: the instance
  norms' affine weights (the graph normalizes without them, so they are 1 and 0 here) and ALBERT's pooler
  (``KModel`` never reads its output; zeros).

The result is not the official checkpoint: it carries the int8 rounding of the export, which is what the
ONNX engine serves. It loads into ``KModel`` with every key present (strict).
"""

from __future__ import annotations

import numpy as np
import torch
from onnx import ModelProto, numpy_helper

PARTS = ("bert", "bert_encoder", "predictor", "text_encoder", "decoder")
_PREDICTOR_SCOPES = ("F0.", "N.", "F0_proj", "N_proj", "shared")  # exported without their parent's scope
_ONNX_TO_TORCH_GATES = (0, 2, 3, 1)  # blocks i, o, f, c -> i, f, c, o


def module_of(scope: str) -> str:
    """``/encoder/text_encoder/cnn.0/cnn.0.0`` -> ``text_encoder.cnn.0.0``; ``/decoder/decoder/x`` -> ``decoder.x``."""
    parts = [p for p in scope.split("/") if p]
    if parts[:2] == ["decoder", "decoder"]:
        parts = ["decoder", *parts[2:]]
    elif parts[:1] == ["encoder"]:
        parts = parts[1:]
        if parts and parts[0].startswith(_PREDICTOR_SCOPES):
            parts = ["predictor", *parts]
    out: list[str] = []
    for part in parts:
        if out and part.startswith(out[-1] + "."):
            out[-1] = part
        else:
            out.append(part)
    return ".".join(out)


def _param_name(initializer: str) -> str | None:
    """The KModel name of a float initializer that kept its PyTorch name, else None."""
    if initializer.startswith("decoder.decoder."):
        return "decoder." + initializer[len("decoder.decoder.") :]
    if initializer.startswith("encoder."):
        return initializer[len("encoder.") :]
    return None


class _Graph:
    def __init__(self, model: ModelProto):
        self.nodes = list(model.graph.node)
        self.inits = {t.name: t for t in model.graph.initializer}
        self._arrays: dict[str, np.ndarray] = {}

    def array(self, name: str) -> np.ndarray:
        if name not in self._arrays:
            self._arrays[name] = numpy_helper.to_array(self.inits[name])
        return self._arrays[name]

    def dequantized(self, quantized: str, zero_point: str) -> np.ndarray:
        scale = self.array(quantized.removesuffix("_quantized") + "_scale")
        return (self.array(quantized).astype(np.float32) - self.array(zero_point).astype(np.float32)) * scale


def _lstm(graph: _Graph, node) -> dict[str, np.ndarray]:
    w_q, r_q, bias = node.input[1], node.input[2], graph.array(node.input[3])
    w_scale, w_zp, r_scale, r_zp = (graph.array(n).astype(np.float32) for n in node.input[8:12])
    hidden = graph.array(r_q).shape[1]

    def gates(m: np.ndarray) -> np.ndarray:  # [4h, ...] in ONNX order -> torch order
        blocks = np.split(m, 4, axis=0)
        return np.concatenate([blocks[i] for i in _ONNX_TO_TORCH_GATES], axis=0)

    out = {}
    for d, suffix in enumerate(("", "_reverse")):
        w = (graph.array(w_q)[d].astype(np.float32) - w_zp[d]) * w_scale[d]
        r = (graph.array(r_q)[d].astype(np.float32) - r_zp[d]) * r_scale[d]
        out[f"weight_ih_l0{suffix}"] = gates(w.T)
        out[f"weight_hh_l0{suffix}"] = gates(r.T)
        out[f"bias_ih_l0{suffix}"] = gates(bias[d, : 4 * hidden])
        out[f"bias_hh_l0{suffix}"] = gates(bias[d, 4 * hidden :])
    return out


def weights_from_graph(model: ModelProto) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """``(module -> float weight as PyTorch lays it out, KModel parameter name -> array)`` from the graph."""
    graph = _Graph(model)
    weights: dict[str, np.ndarray] = {}
    params: dict[str, np.ndarray] = {}
    by_name = {n.name: n for n in graph.nodes}
    for node in graph.nodes:
        scope, _, op = node.name.rpartition("/")
        if node.op_type == "ConvInteger":
            weights[module_of(scope)] = graph.dequantized(node.input[1], node.input[3])
        elif node.op_type == "MatMulInteger":
            weights[module_of(scope)] = graph.dequantized(node.input[1], node.input[3]).T
        elif node.op_type in ("Conv", "ConvTranspose", "MatMul") and node.input[1] in graph.inits:
            w = graph.array(node.input[1])
            weights[module_of(scope)] = w.T if node.op_type == "MatMul" else w
        elif node.op_type == "Gather" and op == "Gather_quant":
            dq = by_name[node.name + "_DequantizeLinear"]
            weights[module_of(scope)] = graph.dequantized(node.input[0], dq.input[2])
        elif node.op_type == "DynamicQuantizeLSTM":
            prefix = module_of(scope)
            params.update({f"{prefix}.{k}": v for k, v in _lstm(graph, node).items()})
    for name in graph.inits:
        param = _param_name(name)
        if param is not None and not name.endswith(("_quantized", "_scale", "_zero_point")):
            params[param] = graph.array(name)
    return weights, params


def _weight_norm(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(v, g)`` with ``g * v / ||v|| == w``; a channel that int8 rounding left all zero gets ``v = 1`` and
    ``g = 0`` (``v = 0`` would make ``v / ||v||`` NaN)."""
    g = np.sqrt((w.astype(np.float64) ** 2).sum(axis=tuple(range(1, w.ndim)), keepdims=True))
    return np.where(g == 0, 1.0, w), g


def _squeezed(shape) -> tuple[int, ...]:
    return tuple(d for d in shape if d != 1)


def state_dicts(model: ModelProto, reference: dict[str, dict[str, torch.Tensor]]) -> dict[str, dict[str, torch.Tensor]]:
    """KModel's five state dicts (``reference`` gives the keys and shapes: a fresh model's), filled from
    the graph. Raises ``KeyError`` naming every parameter the graph does not give."""
    weights, params = weights_from_graph(model)
    out: dict[str, dict[str, torch.Tensor]] = {}
    missing = []
    for part, ref in reference.items():
        out[part] = {}
        for key, like in ref.items():
            full = f"{part}.{key}"
            module, _, leaf = full.rpartition(".")
            if leaf in ("weight_v", "weight_g") and module in weights:
                value = _weight_norm(weights[module])[leaf == "weight_g"]
            elif leaf == "weight" and module in weights:
                value = weights[module]
            elif full in params:
                value = params[full]
            elif module.endswith(".norm") and leaf in ("weight", "bias"):  # instance norm, applied without affine
                value = np.ones(like.shape) if leaf == "weight" else np.zeros(like.shape)
            elif part == "bert" and key.startswith("pooler."):  # unused by KModel
                value = np.zeros(like.shape)
            else:
                missing.append(full)
                continue
            value = np.asarray(value, dtype=np.float32)
            if _squeezed(value.shape) == _squeezed(like.shape):  # only singleton axes may differ
                value = value.reshape(like.shape)
            if tuple(value.shape) != tuple(like.shape):
                raise ValueError(f"{full}: graph gives shape {value.shape}, KModel wants {tuple(like.shape)}")
            out[part][key] = torch.from_numpy(value.copy())  # owned, writable, contiguous
    if missing:
        raise KeyError(f"not found in the graph: {', '.join(missing)}")
    return out
