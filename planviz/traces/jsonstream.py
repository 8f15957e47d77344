"""Reading big JSON trace files record by record, in bounded memory.

Trace exports are often one huge JSON document (an OTLP ``{"resourceSpans":
[...]}`` envelope of 50 MB) or many concatenated values (JSON Lines, or the
OpenTelemetry console exporter's pretty-printed spans one after another).
:func:`records` walks such a stream and yields each record as soon as it is
complete, never holding the whole document: the containers named in
``containers`` (``resourceSpans``, ``scopeSpans``, ``spans``...) are walked
member by member, and everything else is decoded by the C JSON decoder
(``json.JSONDecoder.raw_decode``), one record at a time.

A record is yielded with the small context around it (the other members of
the objects that hold it, e.g. an OTLP ``resource``) and its place
(``resourceSpans[0].scopeSpans[1].spans[7]``), so an error can name it.

>>> import io
>>> data = b'{"resourceSpans": [{"resource": {"r": 1}, "scopeSpans": [{"spans": [{"a": 1}, {"a": 2}]}]}]}'
>>> [(r, where) for r, ctx, where, line in records(io.BytesIO(data), {"resourceSpans", "scopeSpans", "spans"})]
[({'a': 1}, 'resourceSpans[0].scopeSpans[0].spans[0]'), ({'a': 2}, 'resourceSpans[0].scopeSpans[0].spans[1]')]
>>> [(r, line) for r, _, _, line in records(io.BytesIO(b'{"a": 1}\\n{"a": 2}\\n'), set())]
[({'a': 1}, 1), ({'a': 2}, 2)]
"""

from __future__ import annotations

import codecs
import json
import re
from itertools import accumulate
from typing import Any, BinaryIO, Iterator

from planviz.errors import PlanFormatError, TraceFormatError, show_value
from planviz.io import limits
from planviz.io.plaindata import check_unicode_data

_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")

__all__ = ["records", "walk", "values", "MAX_RECORD", "CHUNK"]

CHUNK = 1 << 20
WINDOW = 1 << 16  # how far ahead a value is looked into for a container before it is decoded whole
MAX_RECORD = limits.MAX_TRACE_RECORD  # the one record limit (io/limits.py), in characters here
"""Largest single record (one span, one checkpoint), in characters."""

_SPACE = " \t\n\r"
_NOT_STRUCTURE = re.compile(r'[^\[\]{}"]+')
_STRINGS = re.compile(r'"[^"]*"?')
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class _TooManyDigits(ValueError):
    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


def _bounded_int(text: str) -> int:
    """A JSON integer, refused past :data:`planviz.io.limits.MAX_DIGITS` digits (never converted)."""
    if (
        len(text) <= limits.MAX_DIGITS and len(text) <= 640
    ):  # within both limits (Python's is 640 at least)
        return int(text)
    digits = len(text) - text.startswith("-")
    if digits > limits.max_digits():
        raise _TooManyDigits(digits)
    return int(text)


_DECODER = json.JSONDecoder(parse_int=_bounded_int)


def deeper_than(text: str, cap: int) -> bool:
    """True when the JSON ``text`` nests lists and objects more than ``cap`` deep (brackets inside strings
    do not count). Cheap for shallow text: whole passes of ``str.replace``, each taking at most one level
    off, then an exact count only when those do not settle it.

    >>> deeper_than('{"a": [[1]], "b": "[[[["}', 3), deeper_than('[[[[1]]]]', 3)
    (False, True)
    """
    if text.count("[") + text.count("{") <= cap:
        return False
    skeleton = _STRINGS.sub("", _NOT_STRUCTURE.sub("", text.replace("\\\\", "").replace('\\"', "")))
    rest, rounds, idle, pair = skeleton, 0, 0, "[]"
    while rest and rounds <= cap and idle < 2:
        shorter = rest.replace(pair, "")
        pair = "{}" if pair == "[]" else "[]"
        idle = idle + 1 if len(shorter) == len(rest) else 0
        rounds += len(shorter) != len(rest)
        rest = shorter
    if not rest and rounds <= cap:
        return False
    return max(accumulate(map(_STEP.__getitem__, skeleton)), default=0) > cap


Record = tuple[Any, dict[str, Any], str, "int | None"]


class _Buffer:
    """Decoded text read ahead from a binary stream, with a read position."""

    def __init__(self, stream: BinaryIO, source: str) -> None:
        self.stream, self.source = stream, source
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")("strict")
        self.text, self.pos, self.eof, self.escaped = "", 0, False, False
        self.offset = 0  # characters dropped before self.text
        self.cap: int | None = (
            None  # most characters read in all (None: no cap beyond MAX_RECORD per record)
        )
        # the line number at self._line_pos (an index into self.text)
        self._line, self._line_pos = (
            1,
            0,
        )

    def line(self) -> int:
        """The 1-based line of the read position (counted incrementally, so cheap to ask often)."""
        if self.pos < self._line_pos:  # the position went back (a value retried member by member)
            self._line -= self.text.count("\n", self.pos, self._line_pos)
        else:
            self._line += self.text.count("\n", self._line_pos, self.pos)
        self._line_pos = self.pos
        return self._line

    def fill(self, want: int = 0) -> bool:
        """Read at least ``want`` (default :data:`CHUNK`) more characters (fewer at the end); False at the end."""
        want = want or CHUNK
        if self.eof:
            return False
        if self.pos > CHUNK:
            self.line()
            self.offset += self.pos
            self.text, self.pos, self._line_pos = self.text[self.pos :], 0, 0
        got = []
        size = 0
        while size < want:
            raw = self.stream.read(max(want, CHUNK))
            if isinstance(raw, str):  # a file opened in text mode
                raw = raw.encode("utf-8", "surrogatepass")
            try:
                part = self.decoder.decode(raw, final=not raw)
            except UnicodeDecodeError as exc:
                raise TraceFormatError(
                    f"invalid UTF-8 near character {self.offset + len(self.text) + size:,} "
                    f"({exc.reason}): expected UTF-8 JSON",
                    source=self.source,
                ) from None
            got.append(part)
            size += len(part)
            if not raw:
                self.eof = True
                break
        self.text += "".join(got)
        # a surrogate escape (\\ud800): lone ones are found in the parsed values
        if not self.escaped:
            self.escaped = (
                _SURROGATE.search(self.text, max(0, len(self.text) - size - 5)) is not None
            )
        if self.cap is not None and self.offset + len(self.text) > self.cap:
            raise TraceFormatError(
                f"the trace is larger than {self.cap:,} characters; pass max_bytes= or "
                f"{limits.raise_hint('MAX_TRACE_BYTES')}",
                source=self.source,
            )
        return size > 0 or not self.eof

    def peek(self) -> str:
        """The next character that is not white space ('' at the end), without consuming it."""
        while True:
            text, pos = self.text, self.pos
            while pos < len(text) and text[pos] in _SPACE:
                pos += 1
            self.pos = pos
            if pos < len(text):
                return text[pos]
            if not self.fill():
                return ""

    def holds(self, holder: re.Pattern[str] | None) -> bool:
        """Whether the :data:`WINDOW` characters from the read position name a container (``holder``): a guess
        that only picks how much is decoded at once, never what is read."""
        if holder is None:
            return False
        if len(self.text) - self.pos < WINDOW:
            self.fill()
        return holder.search(self.text, self.pos, self.pos + WINDOW) is not None

    def take(self, char: str, where: str) -> None:
        found = self.peek()
        if found != char:
            shown = repr(found) if found else "the end of the file"
            raise TraceFormatError(
                f"expected {char!r}, found {shown} at character {self.offset + self.pos:,}",
                source=self.source,
                path=where or None,
            )
        self.pos += 1

    def decode(self, where: str) -> tuple[Any, int]:
        """The JSON value at the read position and where it ends, within the number and nesting limits of
        :mod:`planviz.io.limits` (a value past them is refused where it stands)."""
        try:
            value, end = _DECODER.raw_decode(self.text, self.pos)
        except _TooManyDigits as exc:
            raise TraceFormatError(
                limits.too_many_digits(exc.digits),
                source=self.source,
                line=self.line(),
                path=where or None,
            ) from None
        except RecursionError:
            raise self.too_deep(where) from None
        if (
            isinstance(value, (dict, list))
            and end - self.pos > limits.MAX_DEPTH
            # deeper_than's own first test, on the buffer in place: most records are copied for nothing
            and self.text.count("[", self.pos, end) + self.text.count("{", self.pos, end)
            > limits.MAX_DEPTH
            and deeper_than(self.text[self.pos : end], limits.MAX_DEPTH)
        ):
            raise self.too_deep(where)
        return value, end

    def too_deep(self, where: str) -> TraceFormatError:
        return TraceFormatError(
            f"nesting deeper than {limits.MAX_DEPTH} levels: expected trace records, not a "
            f"deep structure; {limits.raise_hint('MAX_DEPTH')}",
            source=self.source,
            line=self.line(),
            path=where or None,
        )

    def value(self, where: str, limit: int = MAX_RECORD) -> Any:
        """Decode the next JSON value whole, reading more text until it is complete (at most ``limit``)."""
        self.peek()
        while True:
            try:
                value, end = self.decode(where)
            except json.JSONDecodeError as exc:
                buffered = len(self.text) - self.pos
                # never more than the limit (plus one character) is held for one record
                if buffered > limit:
                    raise TraceFormatError(
                        f"a record larger than {limit:,} characters (or not JSON): {exc.msg}",
                        source=self.source,
                        path=where or None,
                    ) from None
                # double what is buffered
                if self.fill(min(max(CHUNK, buffered), limit + 1 - buffered)):
                    continue
                self.pos = exc.pos
                raise TraceFormatError(
                    f"not valid JSON: {exc.msg} at character {self.offset + exc.pos:,}",
                    source=self.source,
                    line=self.line(),
                    path=where or None,
                ) from None
            self.pos = end
            return value

    def try_value(self, limit: int) -> tuple[bool, Any]:
        """Decode the next value if it is complete within ``limit`` characters; (False, None) if it is bigger."""
        self.peek()
        while len(self.text) - self.pos < limit and self.fill():
            pass
        try:
            value, end = self.decode("")
        except json.JSONDecodeError:
            if self.eof:
                return True, self.value("")  # raises the located error
            return False, None
        self.pos = end
        return True, value


def records(stream: BinaryIO, containers: set[str], source: str = "<stream>") -> Iterator[Record]:
    """Yield ``(record, context, where, line)`` for every record of a stream of JSON values.

    A top-level array is walked element by element; an object whose member
    is named in ``containers`` and holds an array has that array walked
    (recursively, so ``resourceSpans`` -> ``scopeSpans`` -> ``spans``); any
    other value is a record. ``context`` holds, by member name, the other
    members of the objects on the way to the record.
    """
    buf = _Buffer(stream, source)
    holder = _holder(containers)
    while buf.peek():
        line = buf.line()
        # small enough: decoded at once (the fast path); a value that opens a container (an OTLP envelope, a list
        # of spans) is tried within a small window only, so a big one is not decoded in part and thrown away
        ok, value = buf.try_value(
            WINDOW if buf.text[buf.pos] == "[" or buf.holds(holder) else 4 * CHUNK
        )
        if ok:
            yield from _walk_value(value, containers, {}, "", line)
        else:
            yield from _stream_value(buf, containers, {}, "", holder)


def walk(value: Any, containers: set[str] | frozenset[str]) -> Iterator[Record]:
    """The records of an already parsed document, as :func:`records` yields them from a stream.

    >>> [(r, where) for r, _, where, _ in walk({"spans": [{"a": 1}]}, {"spans"})]
    [({'a': 1}, 'spans[0]')]
    """
    return _walk_value(value, set(containers), {}, "", None)


def _walk_value(
    value: Any, containers: set[str], context: dict[str, Any], where: str, line: int | None
) -> Iterator[Record]:
    """The records of an already decoded value (small top-level values)."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            yield from _walk_value(item, containers, context, f"{where}[{i}]", line)
    elif isinstance(value, dict) and any(
        k in containers and isinstance(v, list) for k, v in value.items()
    ):
        inner = {
            **context,
            **{k: v for k, v in value.items() if not (k in containers and isinstance(v, list))},
        }
        for key, items in value.items():
            if key in containers and isinstance(items, list):
                for i, item in enumerate(items):
                    yield from _walk_value(
                        item, containers, inner, f"{_join(where, key)}[{i}]", line
                    )
    else:
        yield value, context, where, line


def _holder(containers: set[str]) -> re.Pattern[str] | None:
    """What opens a container: one of ``containers`` as a member name, then an array."""
    if not containers:
        return None
    return re.compile('"(?:' + "|".join(re.escape(c) for c in sorted(containers)) + r')"\s*:\s*\[')


def _stream_value(
    buf: _Buffer,
    containers: set[str],
    context: dict[str, Any],
    where: str,
    holder: re.Pattern[str] | None = None,
) -> Iterator[Record]:
    """The records of a value too big to decode at once: arrays and container objects walked member by member
    (``holder``: what opens a container, so that an object holding one is tried whole within a small window)."""
    char = buf.peek()
    if char == "[":
        buf.take("[", where)
        i = 0
        if buf.peek() == "]":
            buf.pos += 1
            return
        while True:
            # only an array's first item is looked into: the rest of a list of records are records (a span
            # each), and looking 64 KiB ahead of every one would cost more than it saves
            if i and buf.peek() == "{":
                # the next record of a list of them, as _stream_value reads it, without two generators per
                # record: an object decoded whole that names no container is the record itself
                line = buf.line()
                start = buf.offset + buf.pos
                ok, value = buf.try_value(CHUNK)
                if ok and type(value) is dict and containers.isdisjoint(value):
                    yield value, context, f"{where}[{i}]", line
                elif ok:
                    yield from _walk_value(value, containers, context, f"{where}[{i}]", line)
                else:  # bigger than a chunk: member by member
                    buf.pos = start - buf.offset
                    yield from _stream_value(buf, containers, context, f"{where}[{i}]")
            else:
                yield from _stream_value(
                    buf, containers, context, f"{where}[{i}]", holder if i == 0 else None
                )
            i += 1
            if buf.peek() == ",":
                buf.pos += 1
                continue
            buf.take("]", where)
            return
    line = buf.line()
    if char != "{":
        yield buf.value(where), context, where, line
        return
    start = buf.offset + buf.pos  # an object: a record unless one of its members is a container
    ok, value = buf.try_value(WINDOW if buf.holds(holder) else CHUNK)
    if ok:
        yield from _walk_value(value, containers, context, where, line)
        return
    # reading ahead may have dropped text before the object, never the object
    buf.pos = start - buf.offset
    buf.take("{", where)
    members: dict[str, Any] = {}
    streamed = False
    if buf.peek() == "}":
        buf.pos += 1
        yield members, context, where, line
        return
    while True:
        key = buf.value(where, limit=CHUNK)
        if not isinstance(key, str):
            raise TraceFormatError(
                f"expected a member name, got {show_value(key, 60)}",
                source=buf.source,
                path=where or None,
            )
        buf.take(":", where)
        if key in containers and buf.peek() == "[":
            streamed = True
            yield from _stream_value(
                buf, containers, {**context, **members}, _join(where, key), holder
            )
        else:
            members[key] = buf.value(_join(where, key))
        if buf.peek() == ",":
            buf.pos += 1
            continue
        buf.take("}", where)
        break
    if not streamed:
        yield members, context, where, line


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _bytes_left(stream: BinaryIO) -> int | None:
    """How many bytes a seekable binary stream holds after its position (None: not known without reading)."""
    try:
        if not stream.seekable():
            return None
        here = stream.tell()
        end = stream.seek(0, 2)
        stream.seek(here)
    except (AttributeError, OSError, ValueError):
        return None
    return end - here if isinstance(end, int) and isinstance(here, int) else None


def values(stream: BinaryIO, source: str = "<stream>", max_bytes: int | None = None) -> list[Any]:
    """Every top-level JSON value of a stream, each decoded whole (one document, or JSON Lines), each at most
    ``max_bytes`` characters (default :data:`planviz.io.limits.MAX_TRACE_BYTES`).

    >>> import io
    >>> values(io.BytesIO(b'[[1, 2], 3]'))
    [[[1, 2], 3]]
    """
    buf = _Buffer(stream, source)
    buf.cap = max_bytes or limits.MAX_TRACE_BYTES
    left = _bytes_left(stream)
    if left is not None and left <= buf.cap:
        # every value is kept whole anyway: read a stream of known size at once, so that a value longer than
        # CHUNK is decoded once instead of once per doubling of the text read (issue 28: 1.6x the decoding
        # work at 100k LangGraph channels, none at 10k)
        buf.fill(max(left, 1))
    out: list[Any] = []
    while buf.peek():
        out.append(buf.value(f"value {len(out) + 1}" if out else "", limit=buf.cap))
    if buf.escaped:
        try:
            check_unicode_data(out if len(out) > 1 else out[0])
        except PlanFormatError as exc:
            raise TraceFormatError(exc.message, source=source, path=exc.path) from None
    return out
