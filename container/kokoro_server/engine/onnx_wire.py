"""Reading and writing ONNX models on the protobuf wire format, with the standard library only.

Why not the ``onnx`` package: set-up and the CPU image load and edit the model without it (decision 060).
The few messages the edits touch are read field by field; every other field is copied byte for byte.
Field numbers are ONNX's own (``onnx/onnx.proto``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

MODEL_GRAPH = 7  # ModelProto.graph
GRAPH_NODE, GRAPH_INITIALIZER, GRAPH_INPUT, GRAPH_OUTPUT, GRAPH_VALUE_INFO = 1, 5, 11, 12, 13
GRAPH_SPARSE_INITIALIZER, GRAPH_QUANTIZATION_ANNOTATION = 15, 14
NODE_INPUT, NODE_OUTPUT = 1, 2
VALUE_INFO_NAME = 1  # ValueInfoProto.name
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


def fields(buf: memoryview) -> Iterator[tuple[int, int, int | None, int]]:
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


def field(number: int, payload: bytes | memoryview) -> bytes:
    """One length-delimited field, encoded."""
    return _encode_varint(number << 3 | _LEN) + _encode_varint(len(payload)) + bytes(payload)


def strings(message: memoryview, number: int) -> list[str]:
    """Every string field ``number`` of ``message``, in order (a node's inputs, its outputs, a name)."""
    return [
        bytes(message[payload:end]).decode("utf-8", "replace")
        for n, _, payload, end in fields(message)
        if n == number and payload is not None
    ]


def name_of(message: memoryview, number: int) -> str | None:
    """The first string field ``number`` of ``message``: a value info's or a tensor's name."""
    found = strings(message, number)
    return found[0] if found else None


def with_graph(model: bytes, edit: Callable[[memoryview], bytes]) -> bytes:
    """``model`` (a serialized ``ModelProto``) with its graph replaced by ``edit(graph)``; every other field
    is kept as it was."""
    buf = memoryview(model)
    out, graphs = bytearray(), 0
    for number, start, payload, end in fields(buf):
        if number == MODEL_GRAPH and payload is not None:
            out += field(MODEL_GRAPH, edit(buf[payload:end]))
            graphs += 1
        else:
            out += buf[start:end]
    if graphs != 1:
        raise GraphEditError("not an ONNX model: expected exactly one graph")
    return bytes(out)
