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
