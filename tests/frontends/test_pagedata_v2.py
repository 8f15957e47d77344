"""The page data's version 2 column kinds: a step's model calls and arguments as one table of every step's records
with a count per step (`table`), and mostly distinct strings written inline (`text`, `texts`) instead of numbered
one by one in the string table. Generated tables are encoded and read back by the tests' own decoder
(tests/frontends/pagedata.py, which imports nothing of planviz) to what was encoded; the encoder chooses the kinds
the format documents; a recorded run's page carries both kinds and reads back whole.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings, strategies as st

from planviz import load_trace, report_html
from planviz.frontends.pagedata import DETAIL_FIELDS, StepDetails, encode_page
from planviz.frontends.snapshot import run_snapshot

from ..runs.otlp import react_trace
from .pagedata import decode_page, named, packed_text, page_data
from .test_pagedata import SCHEMA, errors


def _normal(value):
    return json.loads(json.dumps(value))


def _same(a, b) -> bool:
    """Equal as JSON writes them (so 1 is not True, nor 1.0 an int that came back a float)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


_TEXT = st.text(max_size=12)
_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**60), 2**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.5, 1.25, 3.0, 0.001]),
    _TEXT,
)
# a column of one kind, then mixed: texts (few distinct, or all distinct), numbers, lists of texts, lists of records
_VALUE = st.one_of(
    _SCALAR,
    st.lists(_TEXT, max_size=4),
    st.lists(st.integers(-1000, 1000), max_size=4),
    st.lists(st.dictionaries(st.sampled_from("abc"), _SCALAR, max_size=3), max_size=3),
)


def _column_of(kind: str, n: int):
    if kind == "distinct":
        return st.just([f"text number {k} " * (k % 3 + 1) for k in range(n)])
    if kind == "few":
        return st.lists(st.sampled_from(["a", "bb", None]), min_size=n, max_size=n)
    if kind == "texts":
        return st.lists(st.lists(_TEXT, max_size=3), min_size=n, max_size=n)
    if kind == "records":
        return st.lists(
            st.lists(st.fixed_dictionaries({"x": _SCALAR, "y": _TEXT}), max_size=3),
            min_size=n,
            max_size=n,
        )
    return st.lists(_VALUE, min_size=n, max_size=n)


@st.composite
def _tables(draw):
    n = draw(st.integers(0, 40))
    kinds = draw(
        st.lists(
            st.sampled_from(["distinct", "few", "texts", "records", "any"]), min_size=1, max_size=4
        )
    )
    columns = {f"k{j}": draw(_column_of(kind, n)) for j, kind in enumerate(kinds)}
    rows = [{key: col[i] for key, col in columns.items()} for i in range(n)]
    for row in rows:  # some keys absent in some rows
        for key in list(row):
            if draw(st.integers(0, 5)) == 0:
                del row[key]
    facts = draw(st.lists(_TEXT, max_size=30))
    return {"events": rows, "facts": facts, "steps": [f"S{k}" for k in range(n)]}, kinds


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tables())
def test_generated_tables_read_back_to_what_was_encoded(drawn):
    """Whatever the columns hold, they read back; distinct texts are written inline, lists of records as a
    table."""
    snapshot, kinds = drawn
    data = _normal(encode_page(snapshot))
    assert _same(decode_page(data), snapshot)
    cols = data["page"]["events"]["cols"]
    for j, kind in enumerate(kinds):
        present = [row[f"k{j}"] for row in snapshot["events"] if f"k{j}" in row]
        if kind == "distinct" and present:
            assert "text" in cols[f"k{j}"], cols[f"k{j}"]
        if kind == "records" and any(present):
            assert (
                "table" in cols[f"k{j}"] and errors(cols[f"k{j}"], SCHEMA["$defs"]["column"]) == []
            )


@st.composite
def _details(draw):
    n = draw(st.integers(1, 12))
    call = st.tuples(
        st.sampled_from(["gpt-4o", "claude"]),
        st.one_of(st.none(), st.sampled_from([0.5, 2.0, 7.25]), st.floats(0, 1e6)),
        st.one_of(st.none(), st.floats(0, 100)),
        st.one_of(st.none(), st.integers(0, 10**6)),
        st.one_of(st.none(), st.integers(0, 10**6)),
        st.one_of(st.none(), st.floats(0, 1)),
        st.booleans(),
        st.one_of(st.none(), _TEXT),
        st.one_of(st.none(), _TEXT),
    ).map(list)
    argument = st.tuples(st.sampled_from(["page", "query"]), _TEXT).map(list)
    columns = {
        "action": [draw(_TEXT) for _ in range(n)],
        "arguments": [draw(st.lists(argument, max_size=3)) for _ in range(n)],
        "calls": [draw(st.lists(call, max_size=3)) for _ in range(n)],
        "result": [draw(st.one_of(st.none(), _TEXT)) for _ in range(n)],
    }
    records = {f"S{i}": {key: col[i] for key, col in columns.items()} for i in range(n)}
    return StepDetails(records, columns)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_details())
def test_generated_step_details_read_back_and_their_columns_give_what_their_records_give(details):
    """A step's model calls and arguments (rows of DETAIL_FIELDS) come back as records with those names; the
    details' columns (pagedata.StepDetails) give the same page as the same details as plain dicts."""
    snap = {"details": details}
    data = encode_page(snap)
    assert json.dumps(data) == json.dumps(encode_page({"details": dict(details)}))
    cols = data["page"]["details"]["cols"]
    for key in ("calls", "arguments"):
        assert ("table" in cols[key]) == any(details.columns[key]), cols[key]
    assert _same(decode_page(_normal(data))["details"], named(_normal(snap))["details"])


def test_model_calls_and_arguments_are_one_table_with_a_count_per_step():
    calls = [
        [["m", 1.5, 0.25, 10, 2, None, True, "in", "out"]],
        [],
        [
            ["m", 2.0, None, 3, 4, 0.5, False, None, None],
            ["n", 3.0, 1.0, 1, 1, None, True, "a", "b"],
        ],
    ]
    arguments = [[["city", '"Paris"']], [["page", "2"], ["q", '"x"']], []]
    details = StepDetails(
        {f"S{i}": {"arguments": arguments[i], "calls": calls[i]} for i in range(3)},
        {"arguments": arguments, "calls": calls},
    )
    data = _normal(encode_page({"details": details}))
    cols = data["page"]["details"]["cols"]
    assert cols["calls"]["n"] == [1, 0, 2] and cols["arguments"]["n"] == [1, 2, 0]
    table = cols["calls"]["table"]
    assert table["@table"] == "records" and table["rows"] == 3
    assert sorted(table["cols"]) == sorted(DETAIL_FIELDS["calls"])
    assert set(cols["arguments"]["table"]["cols"]) == {"name", "value"}
    assert errors(data["page"]["details"], SCHEMA["$defs"]["mapping"]) == []
    back = decode_page(data)["details"]
    assert back["S2"]["calls"][1] == dict(zip(DETAIL_FIELDS["calls"], calls[2][1]))
    assert back["S1"]["arguments"] == [
        {"name": "page", "value": "2"},
        {"name": "q", "value": '"x"'},
    ]
    assert back["S1"]["calls"] == [] and back["S2"]["arguments"] == []


def test_distinct_texts_are_written_inline_and_repeated_ones_numbered():
    """A column of distinct messages is written as its text (no string table entry, no index per row); a column of
    a few statuses is numbered; a list column of distinct lines (captions) inline, of repeated facts numbered."""
    n = 3000
    snap = {
        "events": [
            {
                "m": f"step {i} returned {i * 7}",
                "k": ["start", "complete", "fail"][i % 3],
                "c": [f"event {i} of {n}", " "],
                "f": [f"fact {i % 5}"],
            }
            for i in range(n)
        ]
    }
    data = _normal(encode_page(snap))
    cols = data["page"]["events"]["cols"]
    assert cols["m"] == {"text": [f"step {i} returned {i * 7}" for i in range(n)]}
    assert list(cols["k"]) == ["str"] and list(cols["f"]) == ["strs", "n"]
    assert list(cols["c"]) == ["texts", "n"] and cols["c"]["texts"][:3] == [
        "event 0 of 3000",
        " ",
        "event 1 of 3000",
    ]
    assert not any(s.startswith(("step ", "event ")) for s in data["strings"])
    assert errors(data["page"]["events"], SCHEMA["$defs"]["records"]) == []
    assert decode_page(data) == snap
    # distinct ids alone are written inline; once an earlier column numbered them (repeated), they are numbered
    ids = [f"step id {i}" for i in range(50)]
    alone = _normal(encode_page({"steps": ids}))
    assert list(alone["page"]["steps"]["col"]) == ["text"] and alone["strings"] == []
    shared = _normal(encode_page({"facts": ids * 10, "steps": ids}))
    assert list(shared["page"]["facts"]["col"]) == list(shared["page"]["steps"]["col"]) == ["str"]
    assert shared["strings"] == ids and decode_page(shared)["steps"] == ids


def test_a_recorded_runs_page_carries_calls_tables_and_inline_text_and_reads_back_whole(tmp_path):
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps(react_trace(400)), encoding="utf-8")
    run = load_trace(trace)
    page = report_html(run, tmp_path / "r.html").read_text(encoding="utf-8")
    data = json.loads(packed_text(page))
    assert data["version"] == 2 and errors(data, SCHEMA) == []
    details = data["page"]["details"]["cols"]
    assert "table" in details["calls"] and "table" in details["arguments"]
    assert "text" in data["page"]["log"]["cols"]["message"]
    assert page_data(page) == named(_normal(run_snapshot(run, legend=False)))
    assert any(d["calls"] for d in page_data(page)["details"].values())
