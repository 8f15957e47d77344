"""LangGraph checkpoint blobs as plain values: msgpack decoded here, nothing revived, imported or executed.

A SqliteSaver stores each checkpoint, and each pending write, as a ``(type,
bytes)`` pair made by LangGraph's ``JsonPlusSerializer``: ``msgpack`` (the
usual), ``json``, ``null``, ``bytes``, ``bytearray`` or ``pickle``. Its
msgpack carries Python objects as extension types holding ``(module, name,
data, ...)``; LangGraph's own loader imports ``module`` and calls ``name`` on
the data. planviz never does: :func:`decode_blob` reads the msgpack with the
small decoder below (standard library only) and turns the value shapes of an
allow-list into plain values:

- LangGraph's safe types (``langgraph.checkpoint.serde._msgpack.SAFE_MSGPACK_TYPES``):
  datetimes, dates, times and time zones (ISO text), timedeltas (seconds),
  UUIDs (hex), decimals (text), sets, frozensets and deques (lists), paths
  (text), IP addresses (text), ``re.compile`` (the pattern), ``ZoneInfo``
  (its key);
- LangChain messages and documents (``langchain_core.messages.*``,
  ``langchain_core.documents.base.Document``): the dict of their fields, as
  ``model_dump()`` gives them (``type``, ``content``, ``tool_calls``...);
- LangGraph's types (``Send``, ``Interrupt``, ``Command``...): the dict of
  their fields;

and anything else (a user's class, numpy arrays, a ``pickle`` blob, an
unknown extension type) to opaque text such as ``'<myapp.State: not read>'``.
Nesting deeper than :data:`planviz.io.limits.MAX_DEPTH` and lengths past
the end of the blob are refused (:class:`~planviz.errors.TraceFormatError`).

>>> decode_blob("msgpack", bytes([0x82, 0xa1, 0x78, 0x01, 0xa1, 0x79, 0x93, 0xc3, 0xc0, 0xa2]) + b"hi")
{'x': 1, 'y': [True, None, 'hi']}
>>> decode_blob("pickle", b"\\x80\\x04K\\x01.")
'<pickle, 5 bytes: not read>'
"""

from __future__ import annotations

import json
import struct
from datetime import datetime, timezone
from typing import Any

from planviz.errors import TraceFormatError
from planviz.io import limits

__all__ = ["decode_blob", "decode_msgpack", "SAFE_TYPES", "MESSAGE_MODULES"]

# LangGraph's msgpack extension codes (langgraph.checkpoint.serde.jsonplus)
(
    EXT_CONSTRUCTOR_SINGLE_ARG,
    EXT_CONSTRUCTOR_POS_ARGS,
    EXT_CONSTRUCTOR_KW_ARGS,
    EXT_METHOD_SINGLE_ARG,
) = 0, 1, 2, 3
EXT_PYDANTIC_V1, EXT_PYDANTIC_V2, EXT_NUMPY_ARRAY, EXT_DELTA_SNAPSHOT = 4, 5, 6, 7
EXT_TIMESTAMP = -1  # msgpack's own timestamp type

SAFE_TYPES = frozenset(
    {
        ("datetime", "datetime"),
        ("datetime", "date"),
        ("datetime", "time"),
        ("datetime", "timedelta"),
        ("datetime", "timezone"),
        ("uuid", "UUID"),
        ("decimal", "Decimal"),
        ("builtins", "set"),
        ("builtins", "frozenset"),
        ("collections", "deque"),
        ("ipaddress", "IPv4Address"),
        ("ipaddress", "IPv4Interface"),
        ("ipaddress", "IPv4Network"),
        ("ipaddress", "IPv6Address"),
        ("ipaddress", "IPv6Interface"),
        ("ipaddress", "IPv6Network"),
        ("pathlib", "Path"),
        ("pathlib", "PosixPath"),
        ("pathlib", "WindowsPath"),
        ("pathlib._local", "Path"),
        ("pathlib._local", "PosixPath"),
        ("pathlib._local", "WindowsPath"),
        ("zoneinfo", "ZoneInfo"),
        ("re", "compile"),
        ("langchain_core.documents.base", "Document"),
        ("langgraph.types", "Send"),
        ("langgraph.types", "TimeoutPolicy"),
        ("langgraph.types", "Interrupt"),
        ("langgraph.types", "Command"),
        ("langgraph.types", "StateSnapshot"),
        ("langgraph.types", "PregelTask"),
        ("langgraph.types", "Overwrite"),
        ("langgraph.store.base", "Item"),
        ("langgraph.store.base", "GetOp"),
    }
)
"""The (module, name) pairs whose values are read (LangGraph's own allow-list, plus the message modules)."""
MESSAGE_MODULES = frozenset(
    {
        "langchain_core.messages.base",
        "langchain_core.messages.human",
        "langchain_core.messages.ai",
        "langchain_core.messages.system",
        "langchain_core.messages.chat",
        "langchain_core.messages.tool",
        "langchain_core.messages.function",
        "langchain_core.messages.modifier",
    }
)
"""LangChain's message modules: a message is read as the dict of its fields."""
_SEND_FIELDS = ("node", "arg", "timeout")


class _Reader:
    """A msgpack decoder over one blob: plain values out, extension types through :func:`_ext`."""

    __slots__ = ("data", "at", "source", "where")

    def __init__(self, data: bytes, source: str, where: str) -> None:
        self.data, self.at, self.source, self.where = data, 0, source, where

    def fail(self, why: str) -> TraceFormatError:
        return TraceFormatError(
            f"{why} (byte {self.at} of {len(self.data)}); the blob is not valid msgpack",
            source=self.source,
            path=self.where,
        )

    def take(self, n: int) -> bytes:
        end = self.at + n
        if end > len(self.data):
            raise self.fail(f"a value of {n} bytes runs past the end")
        chunk = self.data[self.at : end]
        self.at = end
        return chunk

    def unpack(self, fmt: str, n: int) -> Any:
        return struct.unpack(fmt, self.take(n))[0]

    def count(self, n: int) -> int:
        if n > len(self.data) - self.at:  # every item takes at least one byte
            raise self.fail(f"a container of {n} items is longer than the blob")
        return n

    def value(self, depth: int) -> Any:
        if depth > limits.MAX_DEPTH:
            raise TraceFormatError(
                f"nesting deeper than {limits.MAX_DEPTH} levels; {limits.raise_hint('MAX_DEPTH')}",
                source=self.source,
                path=self.where,
            )
        b = self.take(1)[0]
        if b <= 0x7F:
            return b
        if b >= 0xE0:
            return b - 0x100
        if 0xA0 <= b <= 0xBF:
            return self.text(b & 0x1F)
        if 0x90 <= b <= 0x9F:
            return self.array(b & 0x0F, depth)
        if 0x80 <= b <= 0x8F:
            return self.map(b & 0x0F, depth)
        if b == 0xC0:
            return None
        if b in (0xC2, 0xC3):
            return b == 0xC3
        if b in (0xC4, 0xC5, 0xC6):
            n = self.unpack((">B", ">H", ">I")[b - 0xC4], (1, 2, 4)[b - 0xC4])
            return f"<{len(self.take(n))} bytes: not read>"
        if b in (0xC7, 0xC8, 0xC9):
            n = self.unpack((">B", ">H", ">I")[b - 0xC7], (1, 2, 4)[b - 0xC7])
            code = self.unpack(">b", 1)
            return self.ext(code, self.take(n), depth)
        if b == 0xCA:
            return self.unpack(">f", 4)
        if b == 0xCB:
            return self.unpack(">d", 8)
        if 0xCC <= b <= 0xD3:
            fmt, n = (
                (">B", 1),
                (">H", 2),
                (">I", 4),
                (">Q", 8),
                (">b", 1),
                (">h", 2),
                (">i", 4),
                (">q", 8),
            )[b - 0xCC]
            return self.unpack(fmt, n)
        if 0xD4 <= b <= 0xD8:
            code = self.unpack(">b", 1)
            return self.ext(code, self.take(1 << (b - 0xD4)), depth)
        if b in (0xD9, 0xDA, 0xDB):
            return self.text(self.unpack((">B", ">H", ">I")[b - 0xD9], (1, 2, 4)[b - 0xD9]))
        if b in (0xDC, 0xDD):
            return self.array(self.unpack((">H", ">I")[b - 0xDC], (2, 4)[b - 0xDC]), depth)
        if b in (0xDE, 0xDF):
            return self.map(self.unpack((">H", ">I")[b - 0xDE], (2, 4)[b - 0xDE]), depth)
        raise self.fail(f"byte 0x{b:02x} starts no msgpack value")

    def text(self, n: int) -> str:
        return self.take(n).decode("utf-8", "replace")

    def array(self, n: int, depth: int) -> list[Any]:
        return [self.value(depth + 1) for _ in range(self.count(n))]

    def map(self, n: int, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for _ in range(self.count(n)):
            key = self.value(depth + 1)
            out[key if isinstance(key, str) else _key(key)] = self.value(depth + 1)
        return out

    def ext(self, code: int, data: bytes, depth: int) -> Any:
        if code == EXT_TIMESTAMP:
            return _timestamp(data)
        if code not in range(EXT_CONSTRUCTOR_SINGLE_ARG, EXT_DELTA_SNAPSHOT + 1):
            return f"<msgpack extension type {code}, {len(data)} bytes: not read>"
        inner = _Reader(data, self.source, self.where)
        value = inner.value(depth + 1)
        if code == EXT_DELTA_SNAPSHOT:
            return value
        if code == EXT_NUMPY_ARRAY:
            return "<numpy array: not read>"
        return _revive_nothing(code, value)


def _key(key: Any) -> str:
    return json.dumps(key, ensure_ascii=False, default=str) if not isinstance(key, str) else key


def _timestamp(data: bytes) -> str:
    if len(data) == 4:
        seconds, nanos = struct.unpack(">I", data)[0], 0
    elif len(data) == 8:
        both = struct.unpack(">Q", data)[0]
        seconds, nanos = both & 0x3FFFFFFFF, both >> 34
    elif len(data) == 12:
        nanos, seconds = struct.unpack(">Iq", data)
    else:
        return f"<msgpack timestamp of {len(data)} bytes: not read>"
    try:
        return datetime.fromtimestamp(seconds + nanos / 1e9, timezone.utc).isoformat()
    except (OverflowError, OSError, ValueError):
        return f"<msgpack timestamp {seconds} s: out of range>"


def _revive_nothing(code: int, value: Any) -> Any:
    """The plain value an extension's ``(module, name, data, ...)`` stands for, or opaque text."""
    if not (
        isinstance(value, list)
        and len(value) >= 3
        and isinstance(value[0], str)
        and isinstance(value[1], str)
    ):
        return f"<msgpack extension type {code}: not read>"
    module, name, data = value[0], value[1], value[2]
    if module in MESSAGE_MODULES or (module, name) in SAFE_TYPES:
        return _plain(module, name, data)
    return f"<{module}.{name}: not read>"


def _plain(module: str, name: str, data: Any) -> Any:
    if (
        module == "datetime"
        and name == "timedelta"
        and isinstance(data, list)
        and len(data) == 3
        and all(isinstance(x, int) and not isinstance(x, bool) for x in data)
    ):
        return data[0] * 86400 + data[1] + data[2] / 1e6
    if module == "datetime" and name == "date" and isinstance(data, list) and len(data) == 3:
        return "-".join(f"{x:02d}" if isinstance(x, int) else str(x) for x in data)
    if module == "datetime" and name == "timezone" and isinstance(data, list) and data:
        return f"timezone{tuple(data)!r}"
    if module == "datetime" and name == "time" and isinstance(data, dict):
        return "{hour:02}:{minute:02}:{second:02}".format(
            **{
                k: data.get(k, 0) if isinstance(data.get(k, 0), int) else 0
                for k in ("hour", "minute", "second")
            }
        )
    if module == "re" and name == "compile" and isinstance(data, list) and data:
        return data[0]
    if module.startswith("pathlib") and isinstance(data, list):
        parts = [str(p) for p in data]
        return "/".join(parts).replace("//", "/") if parts else "."
    if module == "langgraph.types" and name == "Send" and isinstance(data, list):
        return dict(zip(_SEND_FIELDS, data))
    if isinstance(data, list) and module in ("builtins", "collections"):
        return data
    return data  # messages, documents, LangGraph's types: the dict of their fields; the rest: their text


def decode_msgpack(data: bytes, source: str = "<blob>", where: str = "") -> Any:
    """One msgpack value as plain Python values (see the module's docstring); trailing bytes are refused.

    >>> decode_msgpack(bytes([0x92, 0x01, 0xa1]) + b"a")
    [1, 'a']
    """
    reader = _Reader(bytes(data), source, where)
    value = reader.value(0)
    if reader.at != len(reader.data):
        raise reader.fail(f"{len(reader.data) - reader.at} bytes follow the value")
    return value


def decode_blob(kind: Any, data: Any, source: str = "<blob>", where: str = "") -> Any:
    """The plain value of a ``(type, bytes)`` pair as LangGraph's serializer wrote it; never revived."""
    if kind == "null" or data is None:
        return None
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        return f"<{type(data).__name__}: not read>"
    if kind == "msgpack":
        return decode_msgpack(bytes(data), source, where)
    if kind == "json":
        try:
            return json.loads(bytes(data).decode("utf-8", "replace"))
        except (ValueError, RecursionError) as exc:
            raise TraceFormatError(
                f"the JSON blob does not parse: {exc}", source=source, path=where
            ) from None
    if kind in ("bytes", "bytearray"):
        return f"<{len(data)} bytes: not read>"
    shown = (
        kind
        if isinstance(kind, str) and kind.isidentifier() and len(kind) <= 30
        else "unknown type"
    )
    return f"<{shown}, {len(data)} bytes: not read>"
