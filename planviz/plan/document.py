"""A parsed plan file: its records and where each field is, for located errors.

:func:`parse_document` reads plan text as JSON, JSON Lines or YAML
(safely, see :mod:`planviz.io.jsonsyntax` and :mod:`planviz.io.yamlsyntax`); a :class:`Document` maps a field
path back to a line and column, so every error names its place.

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

from dataclasses import dataclass, field
from typing import Any, Iterable

from planviz.errors import PlanFormatError
from planviz.io import limits
from planviz.io.jsonsyntax import json_events, parse_json, parse_json_lines
from planviz.io.syntax import join_path, locate, split_exact, split_path
from planviz.io.text import STRING_NAME, too_large

__all__ = ["Document", "parse_document"]


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
            return _locate_yaml(self.text, self.lines[record] if self.lines else record, target)
        except (IndexError, ValueError, RecursionError):
            return None

    def error(
        self, exc: PlanFormatError, record: int = 0, prefix: Iterable[str | int] = ()
    ) -> PlanFormatError:
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
        return type(exc)(
            exc.message, source=exc.source or self.name, line=line, column=column, path=path
        )


def _locate_yaml(text: str, record: int, target: tuple[Any, ...]) -> tuple[int, int] | None:
    import yaml  # only YAML documents need it (JSON ones load without PyYAML)

    from planviz.io.yamlsyntax import yaml_events

    try:
        return locate(yaml_events(text, record), target)
    except yaml.YAMLError:
        return None


def _parse_yaml(text: str, name: str) -> tuple[tuple[Any, ...], tuple[int, ...]]:
    from planviz.io.yamlsyntax import parse_yaml

    return parse_yaml(text, name)


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
    if len(text) > limits.MAX_BYTES:
        raise too_large(f"text of {len(text):,} characters is", name)
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise PlanFormatError(
            "empty document: expected a plan (a mapping with goal and steps)",
            source=name,
            line=1,
            column=1,
        )
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
                values, indexes = _parse_yaml(text, name)
            except PlanFormatError:
                raise json_error from None
            return Document(name, "yaml", values, text, indexes)
    values, indexes = _parse_yaml(text, name)
    if not values:
        raise PlanFormatError(
            "empty document (only comments): expected a plan (a mapping with goal and steps)",
            source=name,
            line=1,
            column=1,
        )
    return Document(name, "yaml", values, text, indexes)
