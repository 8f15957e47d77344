"""The report's events table is made a column at a time and carries its columns (pagedata.ColumnRecords): the
records are what each event says (read here from the run's own deltas and captions), the page data read from the
columns is the page data read from the records, string numbering included, and the table is read-only, a copy of
it a plain list."""

from __future__ import annotations

import copy
import json
import math
import pickle

import pytest

from planviz import Fault, examples, load_trace, simulate
from planviz.frontends.pagedata import ColumnRecords, encode_page
from planviz.frontends.snapshot import run_snapshot
from planviz.pictures.captions import event_lines

from ..runs.otlp import react_trace
from .pagedata import composed_lines

KEYS = ("t", "v", "d", "g", "l", "ri", "ro", "vo", "ke", "c")


def _simulated():
    plan = examples.load("cache_isolation")
    return simulate(plan, faults=[Fault("S4", "side_effect")])


def _goal_change():
    plan = examples.load("cache_isolation")
    return simulate(plan, faults=[Fault("S2", "goal_change")])


def _recorded(tmp_path):
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps(react_trace(40)), encoding="utf-8")
    return load_trace(trace)


def _expected(run, snap) -> list[dict]:
    """Each event's record as the run says it, every key but the restyles (``d``, the picture's looks)."""
    fact_no = {f: k for k, f in enumerate(snap["facts"])}
    step_no = {s: k for k, s in enumerate(snap["steps"])}
    versions = [e.plan_version for e in run.events]
    out = []
    for i, (e, d) in enumerate(zip(run.events, run.deltas())):
        plan = next(p for p in run.plans if p.version == e.plan_version)
        record = {"t": float(e.time) if math.isfinite(e.time) else None}
        if i == 0 or versions[i] != versions[i - 1]:
            record["v"] = len(
                {v for k, v in enumerate(versions[:i]) if k == 0 or v != versions[k - 1]}
            )
        for key, items, number in (
            ("g", e.gained, fact_no),
            ("l", e.lost, fact_no),
            ("ri", d.ready_in, step_no),
            ("ro", d.ready_out, step_no),
            ("vo", e.voided, step_no),
            ("ke", e.kept, step_no),
        ):
            if items:
                record[key] = sorted(number[x] for x in set(items))
        # the caption lines kept where the log row does not compose them (the last event's always)
        lines = list(event_lines(e, i, run, plan))
        if i == len(run.events) - 1 or composed_lines(snap, i) != lines:
            record["c"] = lines
        out.append(record)
    return out


@pytest.mark.parametrize("make", [_simulated, _goal_change, _recorded])
def test_the_events_table_holds_each_events_record_and_its_columns(make, tmp_path):
    run = make(tmp_path) if make is _recorded else make()
    snap = run_snapshot(run, legend=False)
    events = snap["events"]
    assert type(events) is ColumnRecords and len(events) == len(run.events)
    assert any("d" in r for r in events) and any("g" in r for r in events)
    # each record's keys in the table's one order, and each column the values of the rows holding its key
    assert all(list(r) == [k for k in KEYS if k in r] for r in events)
    for key, (values, absent) in events.columns.items():
        assert values == [r[key] for r in events if key in r]
        assert absent == [i for i, r in enumerate(events) if key not in r]
    assert [{k: v for k, v in r.items() if k != "d"} for r in events] == _expected(run, snap)
    # the page data from the columns is the page data from the records
    plain = {**snap, "events": list(events)}
    assert json.dumps(encode_page(snap)) == json.dumps(encode_page(plain))


@pytest.mark.parametrize(
    "change",
    [
        lambda t: t.__setitem__(0, {}),
        lambda t: t.__delitem__(0),
        lambda t: t.append({}),
        lambda t: t.extend([{}]),
        lambda t: t.insert(0, {}),
        lambda t: t.pop(),
        lambda t: t.remove(t[0]),
        lambda t: t.clear(),
        lambda t: t.sort(),
        lambda t: t.reverse(),
        lambda t: t.__iadd__([{}]),
        lambda t: t.__imul__(2),
    ],
)
def test_the_events_table_is_read_only(change):
    table = ColumnRecords({"t": ([0.0, 1.5], []), "v": ([1], [0])}, 2)
    with pytest.raises(TypeError, match="read-only"):
        change(table)
    assert table == [{"t": 0.0}, {"t": 1.5, "v": 1}]


@pytest.mark.parametrize(
    "copied",
    [copy.copy, copy.deepcopy, lambda t: pickle.loads(pickle.dumps(t)), list, lambda t: t[:]],
)
def test_a_copy_of_the_events_table_is_a_plain_list_encoded_from_its_records(copied):
    table = ColumnRecords({"t": ([0.0, 1.5, 2.0], []), "g": ([[0], [0, 1]], [0])}, 3)
    out = copied(table)
    assert type(out) is list and out == [{"t": 0.0}, {"t": 1.5, "g": [0]}, {"t": 2.0, "g": [0, 1]}]
    assert encode_page({"events": out}) == encode_page({"events": table})


@pytest.mark.parametrize(
    ("columns", "rows", "message"),
    [
        (
            {"t": ([0.0], [])},
            2,
            r"column 't' must hold a value for each of the 2 rows .*1 values, 0 absent",
        ),
        ({"v": ([1], [0, 1])}, 2, r"column 'v' must hold a value for each of the 2 rows"),
        (
            {"v": ([1], [1, 0])},
            3,
            r"absent rows of column 'v' must be distinct rows of 0\.\.2 in ascending",
        ),
        ({"v": ([1], [1, 1])}, 3, r"absent rows of column 'v' must be distinct"),
        ({"v": ([1], [3])}, 2, r"absent rows of column 'v' must be distinct rows of 0\.\.1"),
        ({"v": ([1], [-1])}, 2, r"absent rows of column 'v' must be distinct rows of 0\.\.1"),
    ],
)
def test_columns_that_do_not_fit_their_rows_are_refused(columns, rows, message):
    with pytest.raises(ValueError, match=message):
        ColumnRecords(columns, rows)


def test_the_page_data_reads_the_columns_and_makes_no_record(tmp_path):
    run = _recorded(tmp_path)
    snap = run_snapshot(run, legend=False)
    events = snap["events"]
    encode_page(snap)
    assert len(events) == len(run.events) and list.__len__(events) == 0  # no record made yet
    assert events[0]["t"] == float(run.events[0].time) and list.__len__(events) == len(run.events)


# --- the records are made when first read: every reading sees the same as the plain list of them -------------

from hypothesis import (  # noqa: E402
    given,
    settings,
    strategies as st,  # noqa: E402
)


@st.composite
def _tables(draw):
    """Columns of a few rows (keys in a drawn order, values or absent rows drawn per key) and their records,
    made here row by row."""
    rows = draw(st.integers(0, 6))
    keys = draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=5))
    columns, records = {}, [{} for _ in range(rows)]
    for key in keys:
        holds = draw(st.lists(st.booleans(), min_size=rows, max_size=rows))
        values = draw(
            st.lists(
                st.one_of(
                    st.integers(-3, 3), st.floats(allow_nan=False), st.lists(st.integers(0, 9))
                ),
                min_size=sum(holds),
                max_size=sum(holds),
            )
        )
        columns[key] = (values, [i for i, h in enumerate(holds) if not h])
        for record, value in zip([r for r, h in zip(records, holds) if h], values):
            record[key] = value
    return columns, rows, records


_READINGS = {
    "len": len,
    "bool": bool,
    "item": lambda t: [t[i] for i in range(-len(t), len(t))],
    "slice": lambda t: (t[:], t[1:], t[::-1], t[::2]),
    "iter": list,
    "tuple": tuple,
    "unpack": lambda t: [*t],
    "reversed": lambda t: list(reversed(t)),
    "contains": lambda t: ({"t": 0.0} in t, (t[0] in t) if len(t) else None),
    "eq": lambda t: (t == [], t == [{}] * len(t), [] == t, t != [], [] != t),
    "order": lambda t: (t < [{}], t <= [], [{}] > t, t >= [], t > [] if not t else None),
    "add": lambda t: (t + [1], [1] + t, t * 2, 2 * t),
    "repr": lambda t: (repr(t), str(t), f"{t}", repr({"events": t}), repr([t])),
    "copy": lambda t: (t.copy(), copy.copy(t), copy.deepcopy(t), pickle.loads(pickle.dumps(t))),
    "index": lambda t: (t.index(t[-1]), t.count(t[0])) if len(t) else t.count({}),
    "json": lambda t: (
        json.dumps(t),
        json.dumps({"e": t}, indent=1),
        json.dumps(t, sort_keys=True),
    ),
    "join": lambda t: "|".join(map(json.dumps, t)),
    "sorted": lambda t: sorted(t, key=json.dumps),
    "encode": lambda t: encode_page({"events": t}),
}
try:  # IPython's display, as a notebook shows the table
    from IPython.lib.pretty import pretty

    _READINGS["pretty"] = pretty
except ImportError:  # pragma: no cover
    pass


def _outcome(read, table):
    """What ``read`` gives of ``table``, or the error it raises (type and message)."""
    try:
        return read(table)
    except Exception as exc:  # a reading a plain list refuses too (ordering dicts)
        return ("raised", type(exc), str(exc))


@settings(max_examples=60, deadline=None)
@given(_tables(), st.sampled_from(sorted(_READINGS)))
def test_a_table_read_first_in_any_way_reads_as_its_records(table, reading):
    columns, rows, records = table
    read = _READINGS[reading]
    expected = _outcome(read, records)
    got = _outcome(read, ColumnRecords(columns, rows))
    assert repr(got) == repr(expected) and got == expected
    # a table read once reads the same again, its records made once
    twice = ColumnRecords(columns, rows)
    _outcome(read, twice)
    assert _outcome(read, twice) == expected and twice == records
    assert list(twice.columns) == list(columns)
