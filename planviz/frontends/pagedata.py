"""The one format of the data every page and the widget draw a run from: a snapshot stored as columns.

A run's snapshot (:func:`~planviz.frontends.snapshot.run_snapshot`) is mostly
long lists of small records: one per event (its changes, its caption), one
log row per event, one detail record per step, the look table. Stored as JSON
objects, each record repeats its keys and its strings; a 10k-span run's
snapshot was 5.3 MB of JSON. :func:`encode_page` stores each such list as a
*table* of *columns* instead: every string once, in one table (``strings``)
that columns point into; integers as deltas from the row before (sorted lists
of indices: from the item before); times as exact integer deltas of
thousandths; lists of any of these as one flat column and a count per row. A
key a record lacks is listed once per column (``absent``), so a sparse key
costs nothing where it is missing.

The format is written once, as a JSON Schema shipped beside this module
(``pagedata.schema.json``); ``explorer.js`` reads it back with its one decoder
(``decodePage``) into the snapshot it always drew, and the tests with an
independent Python decoder. Every page (one run, two runs, the flipbook, the
widget's static fallback) carries its data in this format; values that are no
table (pictures, the timeline, metrics) stay as they are.

>>> page = encode_page({"events": [{"t": 0.0, "c": ["a"]}, {"t": 1.5, "v": 1, "c": ["a", "b"]}],
...                     "facts": ["x", "y"]})
>>> page["strings"], page["page"]["events"]["cols"]["t"], page["page"]["events"]["cols"]["v"]
(['a', 'b', 'x', 'y'], {'num': [0, 1500], 'scale': 1000}, {'int': [1], 'absent': [0]})
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib.resources import files
from typing import Any

__all__ = ["encode_page", "page_schema", "FORMAT", "VERSION", "RUN_TABLES", "PAGE_TABLES"]

FORMAT, VERSION = "planviz-page", 1
SCALE = 1000  # times as integer thousandths, when that is exact
_SAFE = 2**52  # integers JavaScript adds exactly, deltas and sums included

RUN_TABLES = {
    "events": "records",
    "log": "tuples",
    "details": "mapping",
    "looks": "tuples",
    "facts": "values",
    "steps": "values",
    "look_legend": "values",
    "last_facts": "values",
    "last_ready": "values",
}
"""The values of a run's snapshot stored as tables, and each one's kind (the rest are stored as they are)."""
PAGE_TABLES = {"ticks": "tuples", "labels": "values", "notes": "values"}
"""The values of a two-run (or flipbook) snapshot stored as tables; its runs (``pair``) are run snapshots."""


@lru_cache(maxsize=None)
def page_schema() -> dict[str, Any]:
    """The JSON Schema of the page data (``pagedata.schema.json``, shipped in the package)."""
    schema: dict[str, Any] = json.loads(
        files(__package__).joinpath("pagedata.schema.json").read_text(encoding="utf-8")
    )
    return schema


class _Strings:
    """The page's string table: each distinct string once, numbered in order of first use."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def of(self, text: str) -> int:
        found = self.ids.get(text)
        if found is None:
            found = self.ids[text] = len(self.ids)
        return found


def _is_int(v: Any) -> bool:
    return type(v) is int and -_SAFE < v < _SAFE


def _deltas(values: list[int]) -> list[int] | None:
    out, before = [], 0
    for v in values:
        out.append(v - before)
        before = v
    return out if all(-_SAFE < d < _SAFE for d in out) else None


def _thousandths(values: list[Any]) -> list[Any] | None:
    """Numbers (or None) as deltas of integer thousandths, or None when that is not exact for every one."""
    out: list[Any] = []
    before = 0
    for v in values:
        if v is None:
            out.append(None)
            continue
        if (
            isinstance(v, bool)
            or not isinstance(v, (int, float))
            or not math.isfinite(v)
            or abs(v) >= _SAFE / SCALE
        ):
            return None
        k = round(v * SCALE)
        if k / SCALE != v:
            return None
        out.append(k - before)
        before = k
    return out


def _column(values: list[Any], strings: _Strings) -> dict[str, Any]:
    """The column of ``values`` (one per present row), in the first kind that holds them all exactly."""
    if (
        values
        and all(v is None or type(v) is str for v in values)
        and any(v is not None for v in values)
    ):
        return {"str": [None if v is None else strings.of(v) for v in values]}
    if values and all(_is_int(v) for v in values):
        deltas = _deltas(values)
        if deltas is not None:
            return {"int": deltas}
    if values and any(type(v) is float for v in values):
        scaled = _thousandths(values)
        if scaled is not None:
            return {"num": scaled, "scale": SCALE}
    if values and all(type(v) in (list, tuple) for v in values):
        flat = [x for v in values for x in v]
        if all(type(x) is str for x in flat):
            return {"strs": [strings.of(x) for x in flat], "n": [len(v) for v in values]}
        if all(_is_int(x) for x in flat):
            within = [_deltas(list(v)) for v in values]
            if all(d is not None for d in within):
                return {
                    "ints": [x for d in within if d is not None for x in d],
                    "n": [len(v) for v in values],
                }
    return {"json": list(values)}


def _absent(rows: list[dict[str, Any]], key: str) -> list[int]:
    return _deltas([i for i, row in enumerate(rows) if key not in row]) or []


def _records(rows: list[dict[str, Any]], strings: _Strings) -> dict[str, Any]:
    keys = sorted({k for row in rows for k in row})
    cols = {}
    for key in keys:
        col = _column([row[key] for row in rows if key in row], strings)
        absent = _absent(rows, key)
        cols[key] = {**col, "absent": absent} if absent else col
    return {"cols": cols}


def _table(value: Any, kind: str, strings: _Strings) -> Any:
    """``value`` as a table of ``kind``, or as it is when its rows do not have that shape."""
    if kind == "values" and isinstance(value, list):
        return {"@table": "values", "rows": len(value), "col": _column(value, strings)}
    if kind == "records" and isinstance(value, list) and all(type(r) is dict for r in value):
        return {"@table": "records", "rows": len(value), **_records(value, strings)}
    if kind == "mapping" and type(value) is dict and all(type(r) is dict for r in value.values()):
        rows = list(value.values())
        return {
            "@table": "mapping",
            "rows": len(rows),
            "keys": _column(list(value), strings),
            **_records(rows, strings),
        }
    if (
        kind == "tuples"
        and isinstance(value, list)
        and value
        and all(type(r) in (list, tuple) for r in value)
    ):
        width = len(value[0])
        if all(len(r) == width for r in value):
            return {
                "@table": "tuples",
                "rows": len(value),
                "cols": [_column([r[j] for r in value], strings) for j in range(width)],
            }
    return value


def _encode(snapshot: dict[str, Any], tables: dict[str, str], strings: _Strings) -> dict[str, Any]:
    out = {}
    for key, value in snapshot.items():
        if key == "pair" and tables is PAGE_TABLES:
            out[key] = [_encode(run, RUN_TABLES, strings) for run in value]
        else:
            out[key] = _table(value, tables[key], strings) if key in tables else value
    return out


def encode_page(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The page data of ``snapshot`` (a run's, or several runs' with ``pair``): ``{"format", "version",
    "strings", "page"}``, where ``page`` is the snapshot with its long lists stored as tables of columns (see
    the module's docstring and ``pagedata.schema.json``)."""
    strings = _Strings()
    page = _encode(snapshot, PAGE_TABLES if "pair" in snapshot else RUN_TABLES, strings)
    return {"format": FORMAT, "version": VERSION, "strings": list(strings.ids), "page": page}
