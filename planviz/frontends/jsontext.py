"""JSON text written straight from columns: what ``json.dumps`` writes of records, without the records.

The page's data (:mod:`planviz.frontends.pagedata`) stores some lists as JSON as they are: a step's model calls
and its arguments, rows of fixed fields the snapshot holds as lists. ``json.dumps`` of them needs a dict per row
(50,000 model calls in a 100k-span run), each made only to be taken apart again by the encoder, its keys sorted
every time. :func:`records_text` writes the same text from the rows' columns: each field's values written in one
C loop (:func:`value_texts`), then each row by one format string whose keys are sorted once.
:class:`JsonText` carries such text to the page's writer (:func:`~planviz.frontends.page.gzip_script`).

>>> records_text(("name", "value"), [[["city", '"Paris"']], []])
'[[{"name": "city", "value": "\\\\"Paris\\\\""}], []]'
"""

from __future__ import annotations

import json
from functools import partial
from itertools import accumulate, chain
from typing import Any, Sequence

__all__ = ["JsonText", "records_text", "value_texts"]

_TEXT = json.encoder.encode_basestring  # a string as json.dumps(ensure_ascii=False) writes it
_ANY = partial(json.dumps, ensure_ascii=False, sort_keys=True, allow_nan=False)
_STR, _STR_NONE = frozenset({str}), frozenset({str, type(None)})
_SCALARS = frozenset({int, float, bool, type(None)})  # written by the encoder without a ", " inside
_KEYWORD_TYPES = frozenset({bool, type(None)})
_KEYWORDS = {None: "null", True: "true", False: "false"}


class JsonText:
    """JSON text already written (``text``), to be put in the page's text as it is: the page's writer
    (:func:`~planviz.frontends.page.gzip_script`) writes it; ``json.dumps`` refuses it (it is no plain data)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return type(other) is JsonText and other.text == self.text

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"JsonText({self.text[:60]!r}{'...' if len(self.text) > 60 else ''})"


def value_texts(values: Sequence[Any]) -> list[str]:
    """``[json.dumps(v, ensure_ascii=False, sort_keys=True, allow_nan=False) for v in values]``: texts by the
    string function of the encoder, a column of numbers, bools and None written by the encoder at once and cut at
    its separators (none of those values holds one), anything else one value at a time."""
    kinds = set(map(type, values))
    if kinds <= _STR:
        return list(map(_TEXT, values))
    if kinds <= _STR_NONE:
        return ["null" if v is None else _TEXT(v) for v in values]
    if kinds <= _KEYWORD_TYPES:  # None, true, false: the same three texts, none made anew
        return list(map(_KEYWORDS.__getitem__, values))
    if kinds <= _SCALARS:
        return json.dumps(list(values), allow_nan=False)[1:-1].split(", ")
    return list(map(_ANY, values))


def records_text(names: Sequence[str], lists: Sequence[Sequence[Sequence[Any]]]) -> str:
    """``json.dumps([[dict(zip(names, row)) for row in rows] for rows in lists], ensure_ascii=False,
    sort_keys=True, allow_nan=False)`` for rows of ``len(names)`` items each (distinct text names), written from
    the rows' columns: no dict per row, the keys sorted once."""
    if len(set(names)) != len(names) or not all(type(n) is str for n in names):
        raise ValueError(f"the names of records must be distinct texts: {names!r}")
    flat = list(chain.from_iterable(lists))
    if not set(map(len, flat)) <= {len(names)}:
        raise ValueError(f"every row must hold {len(names)} items ({', '.join(names)})")
    if not flat:
        return "[" + ", ".join(["[]"] * len(lists)) + "]"
    if not names:
        return "[" + ", ".join("[" + ", ".join(["{}"] * len(rows)) + "]" for rows in lists) + "]"
    order = sorted(range(len(names)), key=names.__getitem__)
    columns = list(zip(*flat))
    # '{"a": {}, "b": {}}' as a format: the keys' own braces doubled
    template = (
        "{{"
        + ", ".join(_TEXT(names[j]).replace("{", "{{").replace("}", "}}") + ": {}" for j in order)
        + "}}"
    )
    rows = list(map(template.format, *[value_texts(columns[j]) for j in order]))
    ends = list(accumulate(map(len, lists)))
    each = map(", ".join, map(rows.__getitem__, map(slice, [0, *ends[:-1]], ends)))
    return "[[" + "], [".join(each) + "]]"
