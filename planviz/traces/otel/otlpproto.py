"""OTLP protobuf trace files: ``ExportTraceServiceRequest`` messages as bytes, read as the OTLP/JSON they hold.

Two layouts are read: one message (what ``request.SerializeToString()`` writes, and what an exporter
posts), or the OpenTelemetry Collector file exporter's ``format: proto``, each message preceded by its
length as a 4-byte big-endian number. The messages are decoded by the official ``opentelemetry-proto``
classes (nothing here parses the wire format), written back as the OTLP/JSON a file holds (hex ids,
integer enums: :func:`to_otlp_json`, which the live receiver uses too) and read by the registry like a
file of that JSON: OpenTelemetry GenAI, OpenInference or the AI SDK's ``ai.*`` spans alike.

Detected from the first bytes: a message opens with its ``resource_spans`` field (tag ``0x0A``) and a
length, then the ``ResourceSpans`` field ``resource`` or ``scope_spans`` (``0x0A`` or ``0x12``), and
the bytes are no UTF-8 text (ids are random bytes).

>>> from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
>>> from planviz.traces import Sample
>>> req = ExportTraceServiceRequest()
>>> span = req.resource_spans.add().scope_spans.add().spans.add(name="execute_tool f", span_id=b"\\x01" * 8)
>>> span.trace_id = b"\\xfe" * 16
>>> detect(Sample.of(req.SerializeToString()))
0.9
>>> to_otlp_json(req)["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["spanId"]
'0101010101010101'
"""

from __future__ import annotations

import base64
import json
from typing import Any

from planviz.errors import TraceFormatError
from planviz.io import limits
from planviz.runs.events import Run
from planviz.traces import Document, Sample, parse_runs

__all__ = ["TITLE", "detect", "read", "to_otlp_json", "messages_of"]

TITLE = "OTLP protobuf"
ID_FIELDS = ("traceId", "spanId", "parentSpanId")
_OPENS = (0x0A, 0x12)  # ResourceSpans' first field: resource (1) or scope_spans (2)


def _varint(data: bytes, at: int) -> tuple[int, int] | None:
    """The varint at ``at`` and the offset after it, or None (past the end, or longer than 10 bytes)."""
    value, shift = 0, 0
    for i in range(at, min(at + 10, len(data))):
        value |= (data[i] & 0x7F) << shift
        if not data[i] & 0x80:
            return value, i + 1
        shift += 7
    return None


def _opens_message(data: bytes, at: int) -> bool:
    """Whether ``data[at:]`` opens an ``ExportTraceServiceRequest``: field 1 with a length, then a field of
    ``ResourceSpans``."""
    if at >= len(data) or data[at] != 0x0A:
        return False
    found = _varint(data, at + 1)
    return found is not None and found[1] < len(data) and data[found[1]] in _OPENS


def _is_text(head: bytes) -> bool:
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(head) - 4  # only a character cut at the end of the head
    return b"\x00" not in head


def detect(sample: Sample) -> float:
    """Sure for bytes that open an OTLP protobuf request, alone or after a 4-byte length, and are no text."""
    head = sample.head
    if sample.parsed or len(head) < 8 or _is_text(head):
        return 0.0
    delimited = int.from_bytes(head[:4], "big") > 0 and _opens_message(head, 4)
    return 0.9 if _opens_message(head, 0) or delimited else 0.0


def messages_of(data: bytes) -> list[bytes]:
    """The messages of a file: each after its 4-byte length when every length fits the bytes exactly,
    else the whole file as one message."""
    parts, at = [], 0
    while at + 4 <= len(data):
        size = int.from_bytes(data[at : at + 4], "big")
        if size == 0 or at + 4 + size > len(data) or not _opens_message(data, at + 4):
            break
        parts.append(data[at + 4 : at + 4 + size])
        at += 4 + size
    return parts if parts and at == len(data) else [data]


def to_otlp_json(request: Any) -> dict[str, Any]:
    """A decoded ``ExportTraceServiceRequest`` as the OTLP/JSON a file holds: hex ids, integer enums."""
    from google.protobuf import json_format

    doc: dict[str, Any] = json_format.MessageToDict(request, use_integers_for_enums=True)
    for resource in _list(doc, "resourceSpans"):
        for scope in _list(resource, "scopeSpans"):
            for span in _list(scope, "spans"):
                for holder in [span, *_list(span, "links")]:
                    for field in ID_FIELDS:
                        if isinstance(holder.get(field), str):
                            holder[field] = base64.b64decode(holder[field]).hex()
    return doc


def _list(holder: Any, key: str) -> list[Any]:
    value = holder.get(key) if isinstance(holder, dict) else None
    return value if isinstance(value, list) else []


def read(doc: Document) -> Run | tuple[Run, ...]:
    """The runs of an OTLP protobuf file, read as the OTLP/JSON Lines of its messages."""
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    cap = doc.max_bytes or limits.MAX_TRACE_BYTES
    data = doc.stream().read(cap + 1)
    if len(data) > cap:
        raise TraceFormatError(
            f"the file is larger than {limits.mib(cap)}: pass load_trace(..., max_bytes=...) to read it",
            source=doc.name,
        )
    lines = []
    for i, message in enumerate(messages_of(data)):
        try:
            request = ExportTraceServiceRequest.FromString(message)
        except (DecodeError, RecursionError, ValueError) as exc:
            raise TraceFormatError(
                f"message {i + 1} is not an OTLP ExportTraceServiceRequest in protobuf ({exc})",
                source=doc.name,
            ) from None
        lines.append(json.dumps(to_otlp_json(request)))
    return parse_runs("\n".join(lines) + "\n", source=doc.name, max_bytes=doc.max_bytes)
