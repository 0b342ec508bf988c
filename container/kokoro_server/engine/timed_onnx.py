"""The int8 ONNX model with its predicted durations exposed: the same graph, one more output.

Why: word timing needs how many frames the model gave each phoneme token, and the int8 export's only
output is ``audio``. The durations already exist inside the graph as one tensor (kokoro's ``pred_dur``:
``round(sum(sigmoid(duration_proj)) / speed)`` clamped to at least 1, cast to int64, shape ``[1, tokens]``),
which the graph then expands into the frame alignment. Listing that tensor as a second graph output
changes no node and no weight, so the audio is unchanged (docs/decisions/060-onnx-durations-output.md).

The edit is done on the protobuf wire format with the standard library, so set-up and the CPU image need
no ``onnx`` package: ``ModelProto.graph`` (field 7) gets one more ``GraphProto.output`` (field 12), a copy
of the tensor's own ``GraphProto.value_info`` entry (field 13), which already carries its name and type.
"""

from __future__ import annotations

from kokoro_server.engine.onnx_wire import (
    GRAPH_OUTPUT,
    GRAPH_VALUE_INFO,
    VALUE_INFO_NAME,
    GraphEditError,
    field,
    fields,
    name_of,
    with_graph,
)

DURATIONS_OUTPUT = "/encoder/Cast_output_0"  # int64 [1, tokens]: frames per token, pads included


def _with_output(graph: memoryview, tensor: str) -> bytes:
    value_info = None
    for number, _, payload, end in fields(graph):
        if payload is None or number not in (GRAPH_OUTPUT, GRAPH_VALUE_INFO):
            continue
        name = name_of(graph[payload:end], VALUE_INFO_NAME)
        if number == GRAPH_OUTPUT and name == tensor:
            return bytes(graph)  # already an output
        if number == GRAPH_VALUE_INFO and name == tensor:
            value_info = graph[payload:end]
    if value_info is None:
        raise GraphEditError(f"the graph has no typed tensor named {tensor!r}")
    return bytes(graph) + field(GRAPH_OUTPUT, value_info)


def expose(model: bytes, tensor: str = DURATIONS_OUTPUT) -> bytes:
    """``model`` (serialized ``ModelProto``) with the internal ``tensor`` added as its last output."""
    return with_graph(model, lambda graph: _with_output(graph, tensor))
