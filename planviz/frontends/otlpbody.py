"""One OTLP/HTTP trace request body as the OTLP/JSON planviz's trace readers read, or a refusal with its reason.

An exporter posts an ``ExportTraceServiceRequest`` to ``/v1/traces``, as protobuf
(``application/x-protobuf``) or as OTLP/JSON (``application/json``), gzipped or not. Fields a newer OTLP
adds are ignored beside spans, as the specification asks of receivers; a body of unknown fields alone is
refused. :func:`decode` checks
the size before reading (:data:`~planviz.io.limits.MAX_OTLP_BYTES`, the body and its inflated text
alike: a gzip bomb is stopped while it inflates), decodes it with the official ``opentelemetry-proto``
message classes (``json_format`` for JSON: hex ids, as OTLP/JSON writes them, become the bytes the message
holds), and writes it back as the OTLP/JSON envelope a file exported by a collector holds (``resourceSpans``,
hex ids, nanoseconds as digit strings), so a received span is read by the same reader as the same span in a
file. Anything else is a :class:`Refused` carrying the HTTP status (400, 413 or 415) and a one-line reason.

Nothing here writes a wire parser: protobuf decodes, planviz only checks what it decoded.

>>> from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
>>> request = ExportTraceServiceRequest()
>>> span = request.resource_spans.add().scope_spans.add().spans.add(name="chat m", start_time_unix_nano=5)
>>> span.trace_id, span.span_id = bytes(range(16)), bytes(range(1, 9))
>>> doc = decode(request.SerializeToString(), "application/x-protobuf", "")
>>> doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
'000102030405060708090a0b0c0d0e0f'
>>> decode(b"\\x78\\x05", "application/x-protobuf", "").status  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
planviz.frontends.otlpbody.Refused: 400: the body is not an OTLP ExportTraceServiceRequest: it holds
fields the message does not have
"""

from __future__ import annotations

import base64
import binascii
import zlib
from typing import Any

from planviz.errors import PlanFormatError, PlanvizError
from planviz.io import limits
from planviz.io.jsonsyntax import parse_json
from planviz.traces.otel.otlpproto import to_otlp_json

__all__ = ["decode", "Refused", "PROTOBUF", "JSON", "ID_FIELDS"]

PROTOBUF = ("application/x-protobuf", "application/protobuf")
JSON = ("application/json",)
ID_FIELDS = ("traceId", "spanId", "parentSpanId")
_ID_BYTES = {"traceId": 16, "spanId": 8, "parentSpanId": 8}


class Refused(PlanvizError, ValueError):
    """A request body refused: ``status`` is the HTTP status to answer, the message says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.reason = message


def _cap() -> int:
    return limits.MAX_OTLP_BYTES


def too_large(size: int) -> Refused:
    """The refusal of a body (or its inflated text) of ``size`` bytes or more."""
    return Refused(
        413,
        f"the body is larger than {limits.mib(_cap())} ({size:,} bytes or more): send smaller "
        f"batches, or {limits.raise_hint('MAX_OTLP_BYTES')}",
    )


def inflate(body: bytes, encoding: str) -> bytes:
    """``body`` as sent, or inflated when ``Content-Encoding`` says gzip; never more than the cap inflated."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding not in ("gzip", "deflate"):
        raise Refused(
            415, f"Content-Encoding {encoding[:40]!r} is not supported: send gzip or identity"
        )
    inflater = zlib.decompressobj(wbits=31 if encoding == "gzip" else 15)
    try:
        # stops at cap + 1 bytes: a bomb is never inflated whole
        out = inflater.decompress(body, _cap() + 1)
    except zlib.error as exc:
        raise Refused(400, f"the body is not valid {encoding} data ({exc})") from None
    if len(out) > _cap():
        raise too_large(len(out))
    if not inflater.eof:
        raise Refused(400, f"the {encoding} body is cut short (its end is missing)")
    if inflater.unused_data:
        raise Refused(
            400, f"the {encoding} body has {len(inflater.unused_data):,} bytes after its end"
        )
    return out


def _request_class() -> Any:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    return ExportTraceServiceRequest


def _from_protobuf(data: bytes) -> Any:
    from google.protobuf.message import DecodeError
    from google.protobuf.unknown_fields import UnknownFieldSet

    request = _request_class()()
    try:
        request.ParseFromString(data)
    except (DecodeError, RecursionError, ValueError) as exc:
        raise Refused(
            400, f"the body is not an OTLP ExportTraceServiceRequest in protobuf ({exc})"
        ) from None
    # fields of a newer OTLP beside spans: kept
    if len(UnknownFieldSet(request)) and not request.resource_spans:
        raise Refused(
            400,
            "the body is not an OTLP ExportTraceServiceRequest: it holds fields the message does not "
            "have",
        )
    return request


def _ids_to_base64(data: Any) -> None:
    """OTLP/JSON's hex ids, rewritten in place as the base64 protobuf's JSON mapping reads for bytes."""
    for resource in _list(data, "resourceSpans"):
        for scope in _list(resource, "scopeSpans"):
            for span in _list(scope, "spans"):
                for holder in [span, *_list(span, "links")]:
                    for field in ID_FIELDS:
                        value = holder.get(field) if isinstance(holder, dict) else None
                        if isinstance(value, str) and value:
                            try:
                                holder[field] = base64.b64encode(bytes.fromhex(value)).decode(
                                    "ascii"
                                )
                            except ValueError:
                                raise Refused(
                                    400,
                                    f"{field} {value[:40]!r} is not hex, as OTLP/JSON writes ids",
                                ) from None


def _list(holder: Any, key: str) -> list[Any]:
    value = holder.get(key) if isinstance(holder, dict) else None
    return value if isinstance(value, list) else []


def _from_json(data: bytes) -> Any:
    from google.protobuf import json_format

    try:
        parsed = parse_json(data.decode("utf-8"), "<request body>")
    except UnicodeDecodeError as exc:
        raise Refused(
            400, f"the JSON body is not UTF-8 ({exc.reason} at byte {exc.start})"
        ) from None
    except (PlanFormatError, RecursionError) as exc:
        raise Refused(
            400, f"the body is not valid JSON: {' '.join(str(exc).splitlines())[:300]}"
        ) from None
    if not isinstance(parsed, dict):
        raise Refused(
            400,
            f"the JSON body is a {type(parsed).__name__}, not an ExportTraceServiceRequest object",
        )
    _ids_to_base64(parsed)
    request = _request_class()()
    try:
        # as OTLP/JSON receivers must
        json_format.ParseDict(parsed, request, ignore_unknown_fields=True)
    except (json_format.ParseError, RecursionError, ValueError, TypeError) as exc:
        reason = " ".join(str(exc).split())[:300]
        raise Refused(
            400, f"the JSON body is not an OTLP ExportTraceServiceRequest: {reason}"
        ) from None
    if parsed and not request.resource_spans:
        raise Refused(
            400,
            "the JSON body is not an OTLP ExportTraceServiceRequest: it holds no resourceSpans, only "
            f"{', '.join(repr(k[:40]) for k in list(parsed)[:5])}",
        )
    return request


def _check_ids(request: Any) -> None:
    for r, resource in enumerate(request.resource_spans):
        for s, scope in enumerate(resource.scope_spans):
            for i, span in enumerate(scope.spans):
                where = f"resourceSpans[{r}].scopeSpans[{s}].spans[{i}]"
                for field, size, value in (
                    ("traceId", 16, span.trace_id),
                    ("spanId", 8, span.span_id),
                ):
                    if len(value) != size or not any(value):
                        raise Refused(
                            400,
                            f"{where}.{field}: expected {size} bytes, not all zero, got "
                            f"{binascii.hexlify(value).decode()[:40]!r}",
                        )
                if span.parent_span_id and len(span.parent_span_id) != 8:
                    raise Refused(
                        400,
                        f"{where}.parentSpanId: expected 8 bytes, got {len(span.parent_span_id)}",
                    )


def decode(body: bytes, content_type: str, encoding: str) -> dict[str, Any]:
    """The OTLP/JSON envelope of one request body (after :func:`inflate`), or :class:`Refused`."""
    if len(body) > _cap():
        raise too_large(len(body))
    kind = content_type.split(";")[0].strip().lower()
    if kind not in PROTOBUF + JSON:
        raise Refused(
            415,
            f"Content-Type {kind[:60]!r} is not OTLP: send application/x-protobuf or application/json",
        )
    data = inflate(body, encoding)
    request = _from_protobuf(data) if kind in PROTOBUF else _from_json(data)
    _check_ids(request)
    return to_otlp_json(request)
