"""The Kokoro ONNX graph cut into the parts the edge study decodes apart (docs/decisions/122-the-edge-silence-is-decoded.md).

Three parts, each the verified graph's own nodes and weights, cut out in memory on the protobuf wire format
(:func:`extract`, like :mod:`kokoro_server.engine.timed_onnx`; no ``onnx`` package, no new file):

* *durations*: ``tokens, style, speed -> durations, features``: up to kokoro's ``pred_dur``
  (:data:`~kokoro_server.engine.timed_onnx.DURATIONS_OUTPUT`) and ``d`` (:data:`FEATURES`), the duration
  encoder's features that the prosody is predicted from once spread over the frames;
* *prosody*: ``tokens, style, durations, features -> decoded, pitch, energy``: the alignment, the pitch and
  energy curves (half-frames) and the decoder's blocks before its waveform generator, all at frame rate
  (about 6 % of a render on a CPU);
* *generator*: ``style, decoded, pitch -> audio``: the waveform generator (about 92 %).

Passed through unchanged, durations and tensors give the whole graph's audio bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

from kokoro_server.engine.onnx_wire import (
    GRAPH_INITIALIZER,
    GRAPH_INPUT,
    GRAPH_NODE,
    GRAPH_OUTPUT,
    GRAPH_QUANTIZATION_ANNOTATION,
    GRAPH_SPARSE_INITIALIZER,
    GRAPH_VALUE_INFO,
    NODE_INPUT,
    NODE_OUTPUT,
    TENSOR_NAME,
    VALUE_INFO_NAME,
    GraphEditError,
    field,
    fields,
    name_of,
    strings,
    with_graph,
)
from kokoro_server.engine.timed_onnx import DURATIONS_OUTPUT

# kokoro's ``d``: float [1, tokens, 640], the predictor's text encoder output (its LSTM reads it for the
# durations; spread over the frames it gives the prosody).
FEATURES = "/encoder/predictor/text_encoder/Concat_4_output_0"
DECODED = "/decoder/decoder/decode.3/Div_4_output_0"  # float [1, 512, half-frames]: the generator's input
PITCH = "/decoder/decoder/Unsqueeze_output_0"  # float [1, 1, half-frames]: F0 in Hz, the harmonic source's
ENERGY = "/encoder/N_proj/Conv_output_0"  # float [1, 1, half-frames]: the predicted energy (about -10 in silence)
MODEL_INPUTS = ("tokens", "style", "speed")


def split(model: bytes) -> tuple[bytes, bytes, bytes]:
    """``(durations, prosody, generator)`` as the module says."""
    return (
        extract(model, MODEL_INPUTS, (DURATIONS_OUTPUT, FEATURES)),
        extract(model, ("tokens", "style", DURATIONS_OUTPUT, FEATURES), (DECODED, PITCH, ENERGY)),
        extract(model, ("style", DECODED, PITCH), ("audio",)),
    )


def extract(model: bytes, inputs: Sequence[str], outputs: Sequence[str]) -> bytes:
    """The part of ``model`` that computes ``outputs`` from ``inputs`` (graph inputs or inner tensors, which
    become the part's inputs): the nodes they need, in the graph's order, with the weights those read."""
    return with_graph(model, lambda graph: _subgraph(graph, inputs, outputs))


class _Graph:
    """The fields of one ``GraphProto``, by kind; each entry's bytes as they are in the model."""

    def __init__(self, graph: memoryview):
        self.nodes: list[tuple[memoryview, list[str], list[str]]] = []
        self.initializers: dict[str | None, memoryview] = {}
        self.typed: dict[int, dict[str | None, memoryview]] = {GRAPH_INPUT: {}, GRAPH_OUTPUT: {}, GRAPH_VALUE_INFO: {}}
        self.rest: list[memoryview] = []  # the graph's name, doc string, metadata: kept as they are
        for number, start, payload, end in fields(graph):
            whole = graph[start:end]
            if payload is None:
                self.rest.append(whole)
                continue
            body = graph[payload:end]
            if number == GRAPH_NODE:
                self.nodes.append((whole, strings(body, NODE_INPUT), strings(body, NODE_OUTPUT)))
            elif number == GRAPH_INITIALIZER:
                self.initializers[name_of(body, TENSOR_NAME)] = whole
            elif number in self.typed:
                self.typed[number][name_of(body, VALUE_INFO_NAME)] = body
            elif number == GRAPH_SPARSE_INITIALIZER:
                raise GraphEditError("graphs with sparse initializers are not supported")
            elif number != GRAPH_QUANTIZATION_ANNOTATION:  # names tensors that may not survive the cut
                self.rest.append(whole)

    def type_of(self, tensor: str) -> memoryview:
        for table in self.typed.values():
            if tensor in table:
                return table[tensor]
        raise GraphEditError(f"the graph has no typed tensor named {tensor!r}")

    def needed(self, inputs: set[str], outputs: Sequence[str]) -> list[int]:
        """Indexes of the nodes ``outputs`` need when ``inputs`` are given, in graph order."""
        producer = {tensor: i for i, (_, _, outs) in enumerate(self.nodes) for tensor in outs}
        keep: set[int] = set()
        stack, seen = list(outputs), set()
        while stack:
            tensor = stack.pop()
            if tensor in seen or tensor in inputs or tensor == "" or tensor in self.initializers:
                continue
            seen.add(tensor)
            if tensor not in producer:
                raise GraphEditError(f"{tensor!r} is needed for {list(outputs)} but neither computed nor given")
            keep.add(producer[tensor])
            stack.extend(self.nodes[producer[tensor]][1])
        return sorted(keep)


def _subgraph(graph: memoryview, inputs: Sequence[str], outputs: Sequence[str]) -> bytes:
    whole = _Graph(graph)
    given = set(inputs)
    kept = whole.needed(given, outputs)
    read = {tensor for i in kept for tensor in whole.nodes[i][1]}
    made = {tensor for i in kept for tensor in whole.nodes[i][2]}
    out = bytearray(b"".join(bytes(part) for part in whole.rest))
    for i in kept:
        out += whole.nodes[i][0]
    for name, initializer in whole.initializers.items():
        if name in read and name not in given:
            out += initializer
    for name in inputs:
        out += field(GRAPH_INPUT, whole.type_of(name))
    for name in outputs:
        out += field(GRAPH_OUTPUT, whole.type_of(name))
    for name, body in whole.typed[GRAPH_VALUE_INFO].items():
        if name in made and name not in outputs:
            out += field(GRAPH_VALUE_INFO, body)
    return bytes(out)
