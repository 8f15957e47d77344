"""Reading untrusted plan text: bytes to text, text to plain data, field paths to line and column.

Plans are often written by a model, so nothing here trusts its input: files
are capped at :data:`MAX_BYTES`, encodings are checked (UTF-8, or UTF-16/32
with a byte-order mark), nesting is capped at :data:`MAX_DEPTH` before deep
structures are built, YAML aliases may expand to at most
:data:`MAX_ALIAS_NODES` nodes (no billion laughs), duplicate keys and YAML
tags are refused, and nothing is ever constructed but dicts, lists, strings,
numbers, booleans and None. YAML scalars resolve like JSON (``null``,
``true``, ``false``, decimal numbers); everything else stays a string, so
``012``, ``no``, ``on`` and ``1:20`` keep their text.

>>> doc = parse_document("goal: ship\\nsteps:\\n  - id: 012\\n    ok: no\\n    duration: 1:20\\n")
>>> doc.data["steps"][0]
{'id': '012', 'ok': 'no', 'duration': '1:20'}
>>> doc.locate("steps[0].duration")
(5, 15)
>>> parse_document("a: 1\\na: 2\\n", "plan.yaml")
Traceback (most recent call last):
...
planviz.errors.PlanFormatError: plan.yaml:2:1: a: duplicate key 'a' (first at line 1): each key may appear once
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import yaml

from ._syntax import (
    FLOAT_PATTERN,
    MAX_ALIAS_NODES,
    MAX_DEPTH,
    _show,
    join_path,
    json_events,
    line_col,
    locate,
    parse_json,
    parse_json_lines,
    parse_yaml,
    resolve_scalar,
    split_exact,
    split_path,
    yaml_events,
)
from .errors import PlanFormatError

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_ALIAS_NODES",
    "FLOAT_PATTERN",
    "STRING_NAME",
    "Document",
    "read_text",
    "decode",
    "parse_document",
    "resolve_scalar",
    "split_path",
    "join_path",
]

MAX_BYTES = 20 * 1024 * 1024
"""Largest plan file read, in bytes (text: characters)."""
STRING_NAME = "<string>"

_PATH_SUFFIXES = (".yaml", ".yml", ".json", ".jsonl", ".ndjson", ".txt", ".plan", ".md")
_BOMS = (  # longest first: the UTF-32-LE mark starts with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


# --------------------------------------------------------------------------- text


def read_text(source: Any) -> tuple[str, str]:
    """The text of ``source`` and a name for messages: ``(text, name)``.

    ``source`` is a path (``str`` or ``os.PathLike``; a string counts as a path
    when that file exists, or when it is one line ending in a plan-file suffix
    such as ``.yaml``), raw text, bytes, or a file object. A leading byte-order
    mark is removed; bytes must be UTF-8 unless a BOM says UTF-16 or UTF-32.

    >>> read_text("goal: g")
    ('goal: g', '<string>')
    >>> read_text(b"\\xef\\xbb\\xbfgoal: g")
    ('goal: g', '<string>')
    >>> read_text("goal: g".encode("utf-16"))
    ('goal: g', '<string>')
    >>> read_text(b"goal: caf\\xe9")
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: <string>:1:10: invalid UTF-8 at byte offset 9 (byte 0xe9): expected UTF-8 text (save the file as UTF-8)
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        return decode(bytes(source), STRING_NAME), STRING_NAME
    if isinstance(source, os.PathLike) or (isinstance(source, str) and _looks_like_path(source)):
        return _read_file(Path(source))
    if isinstance(source, str):
        if len(source) > MAX_BYTES:
            raise PlanFormatError(f"text of {len(source):,} characters is larger than the {_mib(MAX_BYTES)} cap",
                                  source=STRING_NAME)
        return _check_text(source.removeprefix("\ufeff"), STRING_NAME), STRING_NAME
    if hasattr(source, "read"):
        name = str(getattr(source, "name", STRING_NAME))
        try:
            content = source.read(MAX_BYTES + 1)
        except (OSError, ValueError) as exc:
            raise PlanFormatError(f"cannot read: {exc}", source=name) from None
        if len(content) > MAX_BYTES:
            raise PlanFormatError(f"larger than the {_mib(MAX_BYTES)} cap", source=name)
        if isinstance(content, (bytes, bytearray)):
            return decode(bytes(content), name), name
        if isinstance(content, str):
            return _check_text(content.removeprefix("\ufeff"), name), name
    raise PlanFormatError(f"expected a path, text, bytes or a file object, got {_show(source)}",
                          source=STRING_NAME)


def decode(data: bytes, name: str = STRING_NAME) -> str:
    """Decode file bytes: UTF-8, or the encoding a byte-order mark names; the mark is dropped.

    >>> decode(b"\\xff\\xfeg\\x00")
    'g'
    """
    codec, start = "utf-8", 0
    for bom, bom_codec in _BOMS:
        if data.startswith(bom):
            codec, start = bom_codec, len(bom)
            break
    try:
        text = data[start:].decode(codec)
    except UnicodeDecodeError as exc:
        offset = start + exc.start
        line = data.count(b"\n", 0, offset) + 1
        column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
        bad = data[offset:offset + 1].hex()
        expected = "UTF-8 text (save the file as UTF-8)" if codec == "utf-8" else f"{codec} text, as its byte-order mark says"
        raise PlanFormatError(f"invalid {codec.upper().replace('-LE', '').replace('-BE', '')} at byte offset "
                              f"{offset} (byte 0x{bad}): expected {expected}",
                              source=name, line=line, column=column) from None
    return _check_text(text, name)


def _check_text(text: str, name: str) -> str:
    nul = text.find("\x00")
    if nul >= 0:
        line, column = line_col(text, nul)
        raise PlanFormatError("NUL character: expected text, got binary data (or UTF-16 without a byte-order mark)",
                              source=name, line=line, column=column)
    return text


def _looks_like_path(text: str) -> bool:
    if "\n" in text or len(text) > 4096 or not text.strip():
        return False
    try:
        if os.path.exists(text):
            return True
    except (OSError, ValueError):
        return False
    stripped = text.strip()
    return (": " not in stripped and stripped[:1] not in "{[\"'#-"
            and stripped.lower().endswith(_PATH_SUFFIXES))


def _read_file(path: Path) -> tuple[str, str]:
    name = str(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise PlanFormatError(f"cannot read the file: {exc.strerror or exc}", source=name) from None
    if len(data) > MAX_BYTES:
        raise PlanFormatError(f"file is larger than the {_mib(MAX_BYTES)} cap", source=name)
    return decode(data, name), name


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB"

# --------------------------------------------------------------------------- documents


@dataclass(frozen=True)
class Document:
    """A parsed plan file: its records (one per YAML document or JSON Lines line) and where things are.

    ``format`` is ``"json"``, ``"jsonl"`` or ``"yaml"``. ``data`` is the single
    value, or the list of records when the file holds several (JSON Lines,
    a multi-document YAML stream). :meth:`locate` maps a field path back to
    a 1-based ``(line, column)``; it re-reads the text, so it costs nothing
    until an error needs it.
    """

    name: str
    format: str
    values: tuple[Any, ...]
    text: str = field(repr=False, compare=False)
    lines: tuple[int, ...] = field(default=(), repr=False, compare=False)

    @property
    def multi(self) -> bool:
        """True when the file holds several records (JSON Lines, or several YAML documents)."""
        return self.format == "jsonl" or len(self.values) != 1

    @property
    def data(self) -> Any:
        return list(self.values) if self.multi else self.values[0]

    def locate(self, path: str | Iterable[str | int], record: int = 0) -> tuple[int, int] | None:
        """``(line, column)`` of the value at ``path`` in record ``record`` (or of its deepest existing parent)."""
        target = split_path(path)
        try:
            if self.format == "json":
                return locate(json_events(self.text), target)
            if self.format == "jsonl":
                line = self.lines[record]
                found = locate(json_events(self.text.split("\n")[line - 1]), target)
                return (line, found[1]) if found else (line, 1)
            return locate(yaml_events(self.text, self.lines[record] if self.lines else record), target)
        except (yaml.YAMLError, IndexError, ValueError, RecursionError):
            return None

    def error(self, exc: PlanFormatError, record: int = 0, prefix: Iterable[str | int] = ()) -> PlanFormatError:
        """``exc`` with this file's name and the line and column of its field path filled in.

        >>> doc = parse_document("goal: g\\nsteps:\\n  - id: A\\n    duration: soon\\n", "p.yaml")
        >>> str(doc.error(PlanFormatError("expected a number", path="steps[0].duration")))
        'p.yaml:4:15: steps[0].duration: expected a number'
        """
        parts = split_exact(exc.path or "")
        path = exc.path
        if parts is not None:
            parts = tuple(prefix) + parts
            path = join_path(parts) or None
        line, column = exc.line, exc.column
        if line is None and parts is not None:
            found = self.locate(parts, record)
            if found is not None:
                line, column = found
        return type(exc)(exc.message, source=exc.source or self.name, line=line, column=column, path=path)


def parse_document(text: str, name: str = STRING_NAME) -> Document:
    """Parse plan text as JSON, JSON Lines or YAML (safely), whichever it is.

    Text starting with ``{`` or ``[`` is read as JSON (several ``{...}`` lines
    as JSON Lines); anything else, or JSON-looking text that only YAML
    accepts, as YAML. Raises :class:`PlanFormatError` with line and column.

    >>> parse_document('{"goal": "g"}\\n\\n{"goal": "h"}\\n').data
    [{'goal': 'g'}, {'goal': 'h'}]
    >>> parse_document("x: !!python/object/apply:os.system [ls]")
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: <string>:1:4: x: YAML tag 'tag:yaml.org,2002:python/object/apply:os.system' is not allowed: plan files hold plain data only (mappings, lists, strings, numbers, true/false/null)
    """
    if len(text) > MAX_BYTES:
        raise PlanFormatError(f"text of {len(text):,} characters is larger than the {_mib(MAX_BYTES)} cap", source=name)
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise PlanFormatError("empty document: expected a plan (a mapping with goal and steps)",
                              source=name, line=1, column=1)
    first = text.lstrip()[0]
    if first in "{[":
        try:
            return Document(name, "json", (parse_json(text, name),), text)
        except PlanFormatError as json_error:
            if not json_error.message.startswith("invalid JSON"):
                raise
            if first == "{" and "Extra data" in json_error.message:
                records = parse_json_lines(text, name)
                if records is not None:
                    return Document(name, "jsonl", records[0], text, records[1])
            try:
                values, indexes = parse_yaml(text, name)
            except PlanFormatError:
                raise json_error from None
            return Document(name, "yaml", values, text, indexes)
    values, indexes = parse_yaml(text, name)
    if not values:
        raise PlanFormatError("empty document (only comments): expected a plan (a mapping with goal and steps)",
                              source=name, line=1, column=1)
    return Document(name, "yaml", values, text, indexes)

