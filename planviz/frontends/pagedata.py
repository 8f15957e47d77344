"""The one format of the data every page and the widget draw a run from: a snapshot stored as columns.

A run's snapshot (:func:`~planviz.frontends.snapshot.run_snapshot`) is mostly
long lists of small records: one per event (its changes; its caption lines,
``c``, only where the page's script cannot compose them from the event's log
row, see ``deltatable``), one log row per event, one detail record per step,
the look table. Stored as JSON
objects, each record repeats its keys and its strings; a 10k-span run's
snapshot was 5.3 MB of JSON. :func:`encode_page` stores each such list as a
*table* of *columns* instead: every string once, in one table (``strings``)
that columns point into, but for columns of mostly distinct texts (messages,
results), written inline where numbering them would not save room (a sample
decides); integers as deltas from the row before (sorted lists of indices: from
the item before); times as exact integer deltas of thousandths; lists of any of
these as one flat column and a count per row, lists of records (a step's model
calls) as one table of them all and a count per row. A
key a record lacks is listed once per column (``absent``), so a sparse key
costs nothing where it is missing. Rows the snapshot holds as lists of fixed
meaning (a log row, a look) travel as records with named fields
(:data:`NAMED_FIELDS`), so the reader says ``row.kind``, never ``row[1]``.

The format is written once, as a JSON Schema shipped beside this module
(``pagedata.schema.json``); ``js/pagedata.js`` reads it back with its one decoder
(``decodePage``) into the snapshot it always drew, and the tests with an
independent Python decoder. Every page (one run, two runs, the flipbook, the
widget's static fallback) carries its data in this format; values that are no
table (pictures, the timeline, metrics) stay as they are.

>>> page = encode_page({"events": [{"t": 0.0, "c": ["started"]}, {"t": 1.5, "v": 1, "c": ["started", "done"]},
...                                 {"t": 2.0, "c": ["started"]}], "facts": ["the answer is 42", "x"]})
>>> page["strings"], page["page"]["events"]["cols"]["c"], page["page"]["facts"]["col"]
(['started', 'done'], {'strs': [0, 0, 1, 0], 'n': [1, 2, 1]}, {'text': ['the answer is 42', 'x']})
>>> page["page"]["events"]["cols"]["t"], page["page"]["events"]["cols"]["v"]
({'num': [0, 1500, 500], 'scale': 1000}, {'int': [1], 'absent': [0, 2]})
"""

from __future__ import annotations

import json
import math
from collections import Counter
from functools import cache, partial
from importlib.resources import files
from itertools import accumulate, chain, compress, count, repeat
from operator import contains, itemgetter, not_, sub
from typing import Any, Callable

from planviz.errors import show_value
from planviz.frontends.rowtables import ColumnRecords, _ReadOnlyRows
from planviz.plan.bulk import paused_gc

__all__ = [
    "encode_page",
    "page_schema",
    "FORMAT",
    "VERSION",
    "RUN_TABLES",
    "PAGE_TABLES",
    "NAMED_FIELDS",
    "DETAIL_FIELDS",
    "ColumnRecords",
]

FORMAT, VERSION = "planviz-page", 2
SCALE = 1000  # times as integer thousandths, when that is exact
_SAFE = 2**52  # integers JavaScript adds exactly, deltas and sums included

RUN_TABLES = {
    "events": "records",
    "log": "records",
    "details": "mapping",
    "looks": "records",
    "facts": "values",
    "steps": "values",
    "look_legend": "values",
    "last_facts": "values",
    "last_ready": "values",
    "legend": "records",
    "findings": "records",
    "metrics": "records",
    "turns": "records",
}
"""The values of a run's snapshot stored as tables, and each one's kind (the rest are stored as they are)."""
NAMED_FIELDS = {
    "log": ("time", "kind", "step", "message", "attempt", "observed", "calls"),
    "looks": (
        "status",
        "flags",
        "fill",
        "stroke",
        "width",
        "dash",
        "outer_stroke",
        "outer_width",
        "outer_dash",
        "word",
        "tip",
    ),
    "legend": ("key", "text", "fill", "stroke", "width", "style"),
    "findings": ("severity", "code", "message", "steps"),
    "metrics": ("name", "value"),
    "turns": ("role", "text", "time"),
}
DETAIL_FIELDS = {
    "calls": (
        "model",
        "start",
        "duration",
        "input_tokens",
        "output_tokens",
        "cost",
        "ok",
        "input",
        "output",
    ),
    "arguments": ("name", "value"),
}
"""The run tables whose rows the snapshot holds as lists (snapshot.py ``_log``: time text, kind, step, message,
attempt, observed facts, model calls; deltatable.py's look table: status class, flag bits, the first shape's fill,
stroke, width and dash, the outer shape's stroke, width and dash, the status word, the tooltip's last line; the
legend's swatches; the importers' findings; the metrics as name and value; the thread's turns), and the names
their items get in the page data, in the lists' order."""
# DETAIL_FIELDS: the same for the lists inside each step's details (snapshot.py ``_calls``: a step's model calls as
# model, start, duration, input tokens, output tokens, cost, ok, input, output; its arguments as name and value).
PAGE_TABLES = {"ticks": "tuples", "labels": "values", "notes": "values"}
"""The values of a two-run (or flipbook) snapshot stored as tables; its runs (``pair``) are run snapshots."""


@cache
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

    def all_of(self, texts: list[str]) -> list[int]:
        """:meth:`of` each of ``texts``: the new ones numbered in order of first use, then every one looked up."""
        ids = self.ids
        known = ids.setdefault  # a new text gets the next number (the length before it is added)
        return [known(t, len(ids)) for t in texts]


def _is_int(v: Any) -> bool:
    return type(v) is int and -_SAFE < v < _SAFE


def _deltas(values: list[int]) -> list[int] | None:
    if not values:
        return []
    out = [values[0], *map(sub, values[1:], values)]
    return out if -_SAFE < min(out) and max(out) < _SAFE else None


def _row_deltas(flat: list[int], n: list[int]) -> list[int] | None:
    """The deltas of each row's integers (``n`` of them per row, ``flat`` one after another), from 0 in each row."""
    if not flat:
        return []
    if n[-1] and max(n) == 1:  # rows of at most one item: each counts from 0, so is itself
        out = list(flat)
        return out if -_SAFE < min(out) and max(out) < _SAFE else None
    before = [0, *flat[:-1]]
    for start in accumulate(n[:-1]):  # each row's first item counts from 0
        before[start] = 0
    out = list(map(sub, flat, before))
    return out if -_SAFE < min(out) and max(out) < _SAFE else None


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
    kinds = set(map(type, values))
    if kinds == {str} or kinds == {str, type(None)}:
        if _inline(values, strings):
            return {"text": list(values)}
        if type(None) not in kinds:
            return {"str": strings.all_of(values)}
        known, ids = strings.ids.setdefault, strings.ids  # strings.of each, inline
        return {"str": [None if v is None else known(v, len(ids)) for v in values]}
    if kinds == {int} and -_SAFE < min(values) and max(values) < _SAFE:
        deltas = _deltas(values)
        if deltas is not None:
            return {"int": deltas}
    if float in kinds:
        scaled = _thousandths(values)
        if scaled is not None:
            return {"num": scaled, "scale": SCALE}
    if values and kinds <= {list, tuple}:
        flat = list(chain.from_iterable(values))
        items = set(map(type, flat))
        if items <= {str}:
            if flat and _inline(flat, strings):
                return {"texts": flat, "n": list(map(len, values))}
            return {"strs": strings.all_of(flat), "n": list(map(len, values))}
        if items == {int} and -_SAFE < min(flat) and max(flat) < _SAFE:
            n = list(map(len, values))
            within = _row_deltas(flat, n)
            if within is not None:
                return {"ints": within, "n": n}
        if items == {dict} and all(set(map(type, item)) <= _STR_KEYS for item in flat):
            # lists of records (a step's model calls): one table of them all, ``n`` per row
            return {
                "table": {"@table": "records", "rows": len(flat), **_records(flat, strings)},
                "n": list(map(len, values)),
            }
    return {"json": list(values)}


_STR_KEYS = frozenset({str})
_SAMPLE = 1024  # strings of a column looked at to choose between the string table and inline text


def _inline(values: list[Any], strings: _Strings) -> bool:
    """Whether the strings ``values`` (None among them) are written inline rather than numbered in the string table:
    when numbering them would not save room, as a sample says (up to :data:`_SAMPLE` of them, spread evenly over
    the column, so a column of a few kinds shows its repeats): each written in full (its text, quotes and
    separator), against each distinct one the table does not hold yet written there once and an index per value
    (its digits and separator). Mostly distinct texts (messages, results, times) are then never hashed and
    numbered one by one; a repeat further apart than the sample's step is not seen, which costs room, never
    exactness."""
    sample = [v for v in values[:: len(values) // _SAMPLE + 1] if v is not None]
    if not sample:
        return False
    ids = strings.ids
    new = {v for v in sample if v not in ids}
    inline = sum(map(len, sample)) + 4 * len(sample)
    index = len(str(len(ids) + len(values))) + 2
    return inline <= sum(map(len, new)) + 4 * len(new) + index * len(sample)


def _record_lists(names: tuple[str, ...], lists: list[Any]) -> list[Any] | None:
    """The rows of ``lists`` one after another, when ``lists`` are lists of rows of ``len(names)`` items each (what
    :func:`_named` takes); None when they are not."""
    if not set(map(type, lists)) <= {list}:
        return None
    flat = list(chain.from_iterable(lists))
    if not (set(map(type, flat)) <= {list, tuple} and set(map(len, flat)) <= {len(names)}):
        return None
    return flat


def _rows_column(
    names: tuple[str, ...], lists: list[Any], flat: list[Any], strings: _Strings
) -> dict[str, Any]:
    """``_column`` of ``lists`` with each row a record of ``names`` (``flat``: their rows one after another,
    :func:`_record_lists`), read from the rows' positions: no record per row. A table of the records (every
    record holds every name: its columns in sorted name order, each the items at one position) and a count per
    list; lists all empty: the column :func:`_column` makes of them."""
    if not flat:
        return _column(list(lists), strings)
    fields = list(zip(*flat))
    at = {name: j for j, name in enumerate(names)}
    cols = {name: _column(list(fields[at[name]]), strings) for name in sorted(names)}
    return {
        "table": {"@table": "records", "rows": len(flat), "cols": cols},
        "n": list(map(len, lists)),
    }


def _records(
    rows: list[dict[str, Any]],
    strings: _Strings,
    made: dict[str, Callable[[list[Any]], dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """The columns of ``rows`` (dicts), in sorted key order; ``made`` makes some keys' columns from their values
    (for the rows that hold them, in order) instead of :func:`_column` (the details' lists of rows as tables)."""
    # how many rows hold each key: a key every row holds is read
    present = Counter(chain.from_iterable(rows))
    cols = {}  # in one pass (no gaps to find)
    for key in sorted(present):
        full = present[key] == len(rows)
        if not full:  # which rows hold it: their values, the others' positions (each in C)
            holds = list(map(contains, rows, repeat(key)))
        if full:
            values = list(map(itemgetter(key), rows))
        else:
            values = list(map(itemgetter(key), compress(rows, holds)))
        column = made[key](values) if made is not None and key in made else _column(values, strings)
        if full:
            cols[key] = column
            continue
        gaps = list(compress(count(), map(not_, holds)))
        cols[key] = {**column, "absent": _deltas(gaps)}
    return {"cols": cols}


def _details_table(value: dict[Any, Any], strings: _Strings) -> dict[str, Any] | None:
    """The details' ``mapping`` table (:func:`_table` of each step's details with :func:`_named` lists), their lists
    of rows made tables from the rows' positions (:func:`_rows_column`); None (nothing numbered yet) when a step's
    details are not a dict of the usual lists."""
    rows = list(value.values())
    if not set(map(type, rows)) <= {dict}:
        return None
    flats: dict[str, list[Any]] = {}
    for key, names in DETAIL_FIELDS.items():
        flat = _record_lists(names, [row[key] for row in rows if key in row])
        if flat is None:
            return None
        flats[key] = flat
    made: dict[str, Callable[[list[Any]], dict[str, Any]]] = {
        key: partial(_rows_column, DETAIL_FIELDS[key], flat=flat, strings=strings)
        for key, flat in flats.items()
    }
    return {
        "@table": "mapping",
        "rows": len(rows),
        "keys": _column(list(value), strings),
        **_records(rows, strings, made),
    }


class StepDetails(dict):  # type: ignore[type-arg]
    """A run's step details (step id -> details) that also carries them as columns, so :func:`encode_page` reads
    the columns (no record per step taken apart again); read-only: made once and never changed, so the columns
    stay the records' own. A copy (``copy.copy``, pickling) is a plain dict, which is encoded from its records."""

    __slots__ = ("columns",)

    def __init__(self, records: dict[str, dict[str, Any]], columns: dict[str, list[Any]]) -> None:
        """``records``: step id -> its details; ``columns``: each key of those details to its values, one per
        record in order (the same objects the records hold)."""
        if any(len(c) != len(records) for c in columns.values()):
            raise ValueError(
                f"each column of the step details must hold {len(records)} values, one per step"
            )
        dict.__init__(self, records)
        self.columns = columns

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            "a run's step details are read-only: copy them with dict(details) to change them"
        )

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __reduce__(self) -> Any:
        return (dict, (dict(self),))


class NamedRows(_ReadOnlyRows):
    """Rows of a run table of :data:`NAMED_FIELDS` (a list of lists, one item per name) that also carries them as
    columns, so :func:`encode_page` reads the columns (no row taken apart again, no look at each row's shape);
    read-only, as :class:`StepDetails`. A copy (``copy.copy``, pickling) is a plain list of the rows."""

    __slots__ = ("columns",)

    def __init__(self, columns: list[list[Any]]) -> None:
        """``columns``: each field's values, one per row, in the order of the table's names; the rows are made of
        them (the same objects)."""
        if len(set(map(len, columns))) > 1:
            raise ValueError("the columns of named rows must hold one value per row each")
        list.__init__(self, map(list, zip(*columns)))
        self.columns = columns


def _column_records(value: ColumnRecords, strings: _Strings) -> dict[str, Any]:
    """The ``records`` table of ``value`` from its own columns: what :func:`_records` makes of its records (the
    keys some row holds, in sorted order; ``absent`` where some row lacks it)."""
    cols = {}
    for key in sorted(value.columns):
        values, absent = value.columns[key]
        if not values:  # no row holds it
            continue
        col = _column(values, strings)
        cols[key] = {**col, "absent": _deltas(absent)} if absent else col
    return {"@table": "records", "rows": len(value), "cols": cols}


def _column_details(value: StepDetails, strings: _Strings) -> dict[str, Any] | None:
    """:func:`_details_table` from the details' own columns (the same table: the keys, then the columns in sorted
    key order, the lists of :data:`DETAIL_FIELDS` as tables of their records read from the rows' positions,
    :func:`_rows_column`, no record per row); None (nothing numbered yet) when their lists are not the usual
    ones."""
    cols = value.columns
    flats: dict[str, list[Any]] = {}
    for key, names in DETAIL_FIELDS.items():
        flat = _record_lists(names, cols.get(key, []))
        if flat is None:
            return None
        flats[key] = flat
    return {
        "@table": "mapping",
        "rows": len(value),
        "keys": _column(list(value), strings),
        "cols": {
            key: _rows_column(DETAIL_FIELDS[key], cols[key], flats[key], strings)
            if key in flats
            else _column(cols[key], strings)
            for key in sorted(cols)
        }
        if value
        else {},
    }


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


def _named(
    key: str, rows: Any, fields: dict[str, tuple[str, ...]] = NAMED_FIELDS
) -> list[dict[str, Any]]:
    """The list rows of run table ``key`` as records with the names of :data:`NAMED_FIELDS` (or ``fields``)."""
    names = fields[key]
    if not isinstance(rows, list) or not all(
        type(r) in (list, tuple) and len(r) == len(names) for r in rows
    ):
        raise ValueError(
            f"the snapshot's {key!r} must be a list of rows of {len(names)} items ({', '.join(names)}) "
            f"for the page data to name them: {show_value(rows, 120)}"
        )
    return [dict(zip(names, row)) for row in rows]


def _named_table(key: str, rows: Any, strings: _Strings) -> dict[str, Any]:
    """:func:`_table` of ``_named(key, rows)``, read straight from the rows' positions (no record per row): every
    row has every name, so each column is the items at one position, the names in sorted order."""
    names = NAMED_FIELDS[key]
    at = {name: j for j, name in enumerate(names)}
    if type(rows) is NamedRows and len(rows.columns) == len(names):  # its columns, as they are
        cols = (
            {name: _column(rows.columns[at[name]], strings) for name in sorted(names)}
            if rows
            else {}
        )
        return {"@table": "records", "rows": len(rows), "cols": cols}
    if not isinstance(rows, list) or not (
        set(map(type, rows)) <= {list, tuple} and set(map(len, rows)) <= {len(names)}
    ):
        _named(key, rows)  # raises, naming the table and its fields
    cols = (
        {name: _column(list(map(itemgetter(at[name]), rows)), strings) for name in sorted(names)}
        if rows
        else {}
    )
    return {"@table": "records", "rows": len(rows), "cols": cols}


def _encode(snapshot: dict[str, Any], tables: dict[str, str], strings: _Strings) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in snapshot.items():
        if key == "pair" and tables is PAGE_TABLES:
            out[key] = [_encode(run, RUN_TABLES, strings) for run in value]
        elif key in NAMED_FIELDS and tables is RUN_TABLES:
            out[key] = _named_table(key, value, strings)
        elif type(value) is ColumnRecords and tables.get(key) == "records":
            out[key] = _column_records(value, strings)
        elif key == "details" and tables is RUN_TABLES and type(value) is StepDetails:
            fast = _column_details(value, strings) if tables[key] == "mapping" else None
            out[key] = (
                fast if fast is not None else _encode({key: dict(value)}, tables, strings)[key]
            )
        elif key == "details" and tables is RUN_TABLES and type(value) is dict:
            fast = _details_table(value, strings) if tables[key] == "mapping" else None
            out[key] = (
                fast
                if fast is not None
                else _table(
                    {
                        sid: {
                            k: _named(k, v, DETAIL_FIELDS) if k in DETAIL_FIELDS else v
                            for k, v in d.items()
                        }
                        if type(d) is dict
                        else d
                        for sid, d in value.items()
                    },
                    tables[key],
                    strings,
                )
            )
        else:
            out[key] = _table(value, tables[key], strings) if key in tables else value
    return out


def encode_page(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The page data of ``snapshot`` (a run's, or several runs' with ``pair``): ``{"format", "version",
    "strings", "page"}``, where ``page`` is the snapshot with its long lists stored as tables of columns (see
    the module's docstring and ``pagedata.schema.json``)."""
    strings = _Strings()
    # hundreds of thousands of small containers, none in a cycle (the widget encodes with the collector on)
    with paused_gc():
        page = _encode(snapshot, PAGE_TABLES if "pair" in snapshot else RUN_TABLES, strings)
    return {"format": FORMAT, "version": VERSION, "strings": list(strings.ids), "page": page}
