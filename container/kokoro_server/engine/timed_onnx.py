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

DURATIONS_OUTPUT = "/encoder/Cast_output_0"  # int64 [1, tokens]: frames per token, pads included

_MODEL_GRAPH, _GRAPH_OUTPUT, _GRAPH_VALUE_INFO, _VALUE_INFO_NAME = 7, 12, 13, 1
_LEN = 2  # wire type of strings, bytes and embedded messages


class GraphEditError(ValueError):
    """The model is not one this edit applies to (no such tensor, or not an ONNX model)."""


def _varint(buf: memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(buf):
            raise GraphEditError("truncated protobuf varint")
        byte = buf[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if not byte & 0x80:
            return value, pos
        shift += 7


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _fields(buf: memoryview):
    """Yield ``(field_number, start, payload_start, end)`` for each top-level field of a message;
    ``payload`` is the bytes of a length-delimited field (``None`` for scalars)."""
    pos = 0
    while pos < len(buf):
        start = pos
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = _varint(buf, pos)
            yield number, start, None, pos
        elif wire == 1:
            pos += 8
            yield number, start, None, pos
        elif wire == 5:
            pos += 4
            yield number, start, None, pos
        elif wire == _LEN:
            size, pos = _varint(buf, pos)
            if pos + size > len(buf):
                raise GraphEditError("truncated protobuf field")
            yield number, start, pos, pos + size
            pos += size
        else:
            raise GraphEditError(f"unsupported protobuf wire type {wire}")


def _field(number: int, payload: bytes | memoryview) -> bytes:
    return _encode_varint(number << 3 | _LEN) + _encode_varint(len(payload)) + bytes(payload)


def _name(message: memoryview) -> str | None:
    for number, _, payload, end in _fields(message):
        if number == _VALUE_INFO_NAME and payload is not None:
            return bytes(message[payload:end]).decode("utf-8", "replace")
    return None


def _with_output(graph: memoryview, tensor: str) -> bytes:
    value_info = None
    for number, _, payload, end in _fields(graph):
        if payload is None or number not in (_GRAPH_OUTPUT, _GRAPH_VALUE_INFO):
            continue
        name = _name(graph[payload:end])
        if number == _GRAPH_OUTPUT and name == tensor:
            return bytes(graph)  # already an output
        if number == _GRAPH_VALUE_INFO and name == tensor:
            value_info = graph[payload:end]
    if value_info is None:
        raise GraphEditError(f"the graph has no typed tensor named {tensor!r}")
    return bytes(graph) + _field(_GRAPH_OUTPUT, value_info)


def expose(model: bytes, tensor: str = DURATIONS_OUTPUT) -> bytes:
    """``model`` (serialized ``ModelProto``) with the internal ``tensor`` added as its last output."""
    buf = memoryview(model)
    out, graphs = bytearray(), 0
    for number, start, payload, end in _fields(buf):
        if number == _MODEL_GRAPH and payload is not None:
            out += _field(_MODEL_GRAPH, _with_output(buf[payload:end], tensor))
            graphs += 1
        else:
            out += buf[start:end]
    if graphs != 1:
        raise GraphEditError("not an ONNX model: expected exactly one graph")
    return bytes(out)
