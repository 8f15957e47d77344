"""The page data format: every page kind's data fits the shipped JSON Schema, reads back (through the tests' own
decoder, tests/frontends/pagedata.py) to what the run says, and a big run's report is a fraction of its trace.

The schema check is a small validator of the JSON Schema keywords the schema file uses, written here (jsonschema
is no declared test dependency); it refuses a keyword it does not know, so the schema cannot grow past it
unchecked.
"""

from __future__ import annotations

import html
import json
import math
import re
from importlib.resources import files
from pathlib import Path

import pytest

from planviz import Fault, animate, examples, load_trace, report_html, simulate
from planviz.frontends.runpage import fallback_html
from planviz.frontends.snapshot import run_snapshot

from ..runs.otlp import react_trace
from .pagedata import NAMES, decode_page, named, packed_text, page_data

SCHEMA = json.loads(
    files("planviz.frontends").joinpath("pagedata.schema.json").read_text(encoding="utf-8")
)
_KNOWN = {
    "$schema",
    "$id",
    "title",
    "description",
    "$defs",
    "$ref",
    "type",
    "const",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "oneOf",
    "not",
    "maxItems",
}
_TYPES = {"object": dict, "array": list, "string": str, "null": type(None)}


def _type_ok(value, name: str) -> bool:
    if name == "integer":
        return type(value) is int
    return isinstance(value, _TYPES[name]) and not isinstance(value, bool)


def errors(value, schema: dict, path: str = "$") -> list[str]:
    """What in ``value`` breaks ``schema`` (the keywords of pagedata.schema.json), as paths; [] when it fits."""
    unknown = set(schema) - _KNOWN
    assert not unknown, f"the test's validator does not know {unknown}"
    if "$ref" in schema:
        return errors(value, SCHEMA["$defs"][schema["$ref"].removeprefix("#/$defs/")], path)
    out: list[str] = []
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_type_ok(value, t) for t in names):
            return [f"{path}: {type(value).__name__} is not {names}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{path}: {value!r} is not {schema['const']!r}")
    if "oneOf" in schema:
        fits = [k for k, option in enumerate(schema["oneOf"]) if not errors(value, option, path)]
        if len(fits) != 1:
            out.append(f"{path}: fits options {fits} of oneOf, not exactly one")
    if "not" in schema and not errors(value, schema["not"], path):
        out.append(f"{path}: fits what `not` refuses")
    if isinstance(value, dict):
        out += [f"{path}: no {key!r}" for key in schema.get("required", ()) if key not in value]
        props, extra = schema.get("properties", {}), schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                out += errors(item, props[key], f"{path}.{key}")
            elif extra is False:
                out.append(f"{path}: {key!r} is not allowed")
            elif isinstance(extra, dict):
                out += errors(item, extra, f"{path}.{key}")
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append(f"{path}: more than {schema['maxItems']} items")
        if "items" in schema:
            for k, item in enumerate(value):
                out += errors(item, schema["items"], f"{path}[{k}]")
    return out


def test_the_validator_refuses_what_the_schema_refuses():
    good = {
        "format": "planviz-page",
        "version": 2,
        "strings": ["a"],
        "page": {
            "pair": [],
            "ticks": [],
            "labels": {"@table": "values", "rows": 1, "col": {"str": [0]}},
            "notes": {"@table": "values", "rows": 0, "col": {"json": []}},
        },
    }
    assert errors(good, SCHEMA) == []
    assert errors({**good, "version": 1}, SCHEMA) and errors({**good, "version": 3}, SCHEMA)
    bad_column = json.loads(json.dumps(good))
    # a string where an index into `strings` belongs
    bad_column["page"]["labels"]["col"] = {"str": ["a"]}
    assert errors(bad_column, SCHEMA)
    two_kinds = json.loads(json.dumps(good))
    two_kinds["page"]["labels"]["col"] = {"str": [0], "int": [0]}
    assert errors(two_kinds, SCHEMA)


def _run():
    return simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])


def _pages(tmp_path: Path) -> dict[str, str]:
    """One page of each kind that carries page data: a run, two runs, the flipbook, the widget's fallback."""
    run, other = _run(), simulate(examples.load("cache_isolation"))
    one = report_html(run, tmp_path / "one.html").read_text(encoding="utf-8")
    two = report_html([run, other], tmp_path / "two.html").read_text(encoding="utf-8")
    book = animate([run, other], tmp_path / "book.html").path.read_text(encoding="utf-8")
    srcdoc = re.search(r"srcdoc='([^']*)'", fallback_html(run_snapshot(run, legend=False)))[1]
    return {"run": one, "two runs": two, "flipbook": book, "widget fallback": html.unescape(srcdoc)}


def test_every_page_kind_carries_data_the_schema_describes(tmp_path):
    for kind, page in _pages(tmp_path).items():
        data = json.loads(packed_text(page))
        assert errors(data, SCHEMA) == [], kind
        tables = data["page"]["pair"] if "pair" in data["page"] else [data["page"]]
        # the run's long lists are stored as columns, not as repeated objects
        assert all(
            run["events"]["@table"] == "records" and run["log"]["@table"] == "records"
            for run in tables
        ), kind
        for run in tables:  # a log row, a look, a swatch, a finding, a metric, a turn: named fields, never positions
            for key, names in NAMES.items():
                assert run[key]["@table"] == "records", (kind, key)
                assert list(run[key]["cols"]) == (sorted(names) if run[key]["rows"] else []), (
                    kind,
                    key,
                )
        # inside each step's details: its model calls and arguments as named objects
        decoded = decode_page(data)
        for run in decoded["pair"] if "pair" in decoded else [decoded]:
            for sid, d in run["details"].items():
                assert all(errors(c, SCHEMA["$defs"]["call"]) == [] for c in d["calls"]), (
                    kind,
                    sid,
                )
                assert all(errors(a, SCHEMA["$defs"]["argument"]) == [] for a in d["arguments"]), (
                    kind,
                    sid,
                )


def test_the_widget_sends_its_snapshot_as_page_data():
    """The explorer and the two-run widget: what the browser gets (and a saved notebook keeps) is page data."""
    from planviz import explore, side_by_side

    run = _run()
    for widget in (explore(run), side_by_side(run, simulate(examples.load("cache_isolation")))):
        state = widget.get_state()["snapshot"]
        assert errors(state, SCHEMA) == [], type(widget).__name__
        assert decode_page(_normal(state)) == named(_normal(widget.snapshot)), type(widget).__name__


def _normal(value):
    return json.loads(json.dumps(value))


def test_the_page_reads_back_to_what_the_run_says(tmp_path):
    run = _run()
    snap = page_data(report_html(run, tmp_path / "r.html").read_text(encoding="utf-8"))
    assert len(snap["events"]) == len(snap["log"]) == len(run.events)
    for i, (e, row, out) in enumerate(zip(run.events, snap["log"], snap["events"])):
        assert [row["kind"], row["step"], row["message"], row["attempt"]] == [
            str(e.kind),
            e.step or "",
            str(e.message or ""),
            e.attempt,
        ], i
        assert out["t"] == e.time, i
        facts, before = run.frame(i).facts, run.frame(i - 1).facts if i else frozenset()
        assert {snap["facts"][k] for k in out.get("g", [])} == facts - before, i
        assert {snap["facts"][k] for k in out.get("l", [])} == before - facts, i
        assert [snap["steps"][k] for k in out.get("vo", [])] == sorted(
            e.voided, key=snap["steps"].index
        ), i
    assert set(snap["details"]) == {s for plan in run.plans for s in plan.ids}
    for step in run.plans[-1].steps:  # the latest version's step wins
        assert snap["details"][step.id]["requires"] == list(step.requires), step.id
        assert snap["details"][step.id]["action"] == step.action, step.id
    assert {snap["facts"][k] for k in snap["last_facts"]} == run.frame(-1).facts


def test_the_snapshot_round_trips_whole(tmp_path):
    """Every value of the snapshot comes back equal (the strings the no-script view holds included)."""
    run = _run()
    page = report_html(run, tmp_path / "r.html").read_text(encoding="utf-8")
    assert page_data(page) == named(_normal(run_snapshot(run, legend=False)))


def test_a_column_holds_what_json_would():
    """Kinds chosen per column: numbers that are no exact thousandths, big integers, mixed lists, None."""
    from planviz.frontends.pagedata import encode_page

    rows = [
        {"t": 0.1, "a": 2**60, "b": [1, "x"], "c": None, "d": [3, 1, 2]},
        {"t": 1 / 3, "a": -1, "b": [], "d": [], "e": float("inf")},
        {"t": None, "a": 0, "b": [None], "c": "y", "d": [7]},
    ]
    snap = {"events": rows, "facts": [], "last_facts": [2, 5, 9]}
    data = encode_page(snap)
    assert decode_page(_normal(data)) == {**snap, "events": rows}
    assert math.isinf(decode_page(data)["events"][1]["e"])


def _ratio(tmp_path: Path, spans: int) -> float:
    trace = tmp_path / f"t{spans}.json"
    trace.write_text(json.dumps(react_trace(spans)), encoding="utf-8")
    run = load_trace(trace)
    page = report_html(run, tmp_path / f"r{spans}.html")
    # the page still holds every event, its timeline too:
    snap = page_data(page.read_text(encoding="utf-8"))
    # the per-step chart, or past 300 steps the lanes of every call
    assert len(snap["log"]) == len(run.events)
    assert snap["gantt"].startswith("<svg") or (len(run.plans[-1].steps) > 300 and snap["lanes"])
    return page.stat().st_size / trace.stat().st_size


@pytest.mark.slow
def test_a_big_report_is_a_fraction_of_its_trace(tmp_path):
    """The synthetic ReAct trace (tests/runs/otlp.react_trace) at n and 4n spans: at 10k spans the report is at
    most half the trace file's size (it was 1.05 times it: a 3.2 MB timeline and every log row in the no-script
    view, beside the data), and the share does not grow with the run (the picture, about 0.5 MB, is the same at
    every size, so it falls)."""
    small, big = _ratio(tmp_path, 2_500), _ratio(tmp_path, 10_000)
    assert big <= 0.5, f"10k spans: the report is {big:.2f} of the trace's size"
    assert big <= small, (small, big)


def test_a_long_run_shows_its_last_log_rows_without_script(tmp_path):
    """The no-script view of a run of more than 500 events lists the last 500 and says so; the data has them all."""
    from planviz import Plan, Step

    plan = Plan(
        "many steps",
        [
            Step(
                f"S{i}", f"step {i}", expected_evidence="ok", depends_on=[f"S{i - 1}"] if i else []
            )
            for i in range(300)
        ],
    )
    run = simulate(plan)
    n = len(run.events)
    assert n > 500
    page = report_html(run, tmp_path / "r.html").read_text(encoding="utf-8")
    static = page[page.index('<div class="pv-static">') : page.index('id="planviz-data"')]
    shown = [int(k) for k in re.findall(r'<tr class="pv-kind-[^"]*"><td>(\d+)</td>', static)]
    assert shown == list(range(n - 500, n))
    assert f"the last 500 of {n:,} events" in static
    assert len(page_data(page)["log"]) == n


def test_a_row_of_the_wrong_length_is_refused_not_misnamed():
    """The page data names a log row's items by position once (pagedata.NAMED_FIELDS): a row with an item more or
    less is refused, saying which table and which names, instead of shifting every name after it."""
    from planviz.frontends.pagedata import encode_page

    snap = run_snapshot(_run(), legend=False)
    assert encode_page(snap)["page"]["log"]["@table"] == "records"
    for key in NAMES:
        bad = {**snap, key: [list(snap[key][0]) + ["one more"]] if snap[key] else [["x"]]}
        with pytest.raises(
            ValueError, match=f"'{key}' must be a list of rows of {len(NAMES[key])} items"
        ):
            encode_page(bad)


def test_the_details_columns_give_the_table_their_records_give(tmp_path):
    """The snapshot's step details carry their columns (pagedata.StepDetails) and the page data reads them: the
    same page, string numbering included, as from the records (a simulated run with a fault, a recorded ReAct run
    with model calls and arguments); the details are read-only, and a copy is a plain dict (encoded from its
    records)."""
    import copy

    from planviz.frontends.pagedata import StepDetails, encode_page

    trace = tmp_path / "t.json"
    trace.write_text(json.dumps(react_trace(40)), encoding="utf-8")
    recorded = load_trace(trace)
    for run in (_run(), recorded):
        snap = run_snapshot(run, legend=False)
        details = snap["details"]
        assert type(details) is StepDetails and details
        plain = {**snap, "details": dict(details)}
        assert json.dumps(encode_page(snap)) == json.dumps(encode_page(plain))
    assert any(d["calls"] for d in details.values()) and any(
        d["arguments"] for d in details.values()
    )
    with pytest.raises(TypeError, match="read-only"):
        details["S1"] = {}
    with pytest.raises(TypeError, match="read-only"):
        details.update({})
    copied = copy.copy(details)
    assert type(copied) is dict and copied == details
    assert type(copy.deepcopy(details)) is dict


def test_the_page_data_is_gzipped_as_written_to_the_same_bytes():
    """The page's data is compressed a piece at a time as its text is written (page.gzip_script): the same bytes as
    gzip.compress of the whole script-safe text, for a string table longer than the slice it is written in, texts
    longer than the chunk compressed at a time, characters escaped or shown, and columns of every kind."""
    import gzip

    from planviz.frontends.page import GZIP_LEVEL, gzip_script, script_bytes
    from planviz.frontends.pagedata import encode_page

    rows = [
        {
            "t": k / 4,
            "c": [f"</script> é \u202e {k}", "&<>"],
            "d": [k, k + 3, k + 1],
            "v": k % 3 or None,
        }
        for k in range(25_000)
    ]
    snap = {
        "events": rows,
        "facts": [f"fact {k} \u2028" for k in range(30_000)],
        "last_facts": [0, 2],
        "gantt": "<svg>" + "x" * 1_500_000 + "\u2029</svg>",
        "metrics": [["a", "1"]],
        "lanes": {"start": [0.5, 1.25], "step": [1, -1]},
    }
    data = encode_page(snap)
    whole = script_bytes(data)
    assert gzip_script(data) == gzip.compress(whole, compresslevel=GZIP_LEVEL, mtime=0)
    assert b"</script>" not in whole and "\u202e".encode() not in whole


def test_the_log_columns_give_the_table_its_rows_give(tmp_path):
    """The snapshot's log rows carry their columns (pagedata.NamedRows) and the page data reads them: the same page,
    string numbering included, as from the rows (a simulated run with a fault, a recorded ReAct run); the rows are
    read-only, and a copy is a plain list."""
    import copy

    from planviz.frontends.pagedata import NamedRows, encode_page

    trace = tmp_path / "t.json"
    trace.write_text(json.dumps(react_trace(40)), encoding="utf-8")
    for run in (_run(), load_trace(trace)):
        snap = run_snapshot(run, legend=False)
        log = snap["log"]
        assert type(log) is NamedRows and len(log) == len(run.events)
        assert log == [list(row) for row in zip(*log.columns)]
        plain = {**snap, "log": [list(row) for row in log]}
        assert json.dumps(encode_page(snap)) == json.dumps(encode_page(plain))
    with pytest.raises(TypeError, match="read-only"):
        log.append([])
    with pytest.raises(TypeError, match="read-only"):
        log[0] = []
    assert type(copy.copy(log)) is list and copy.copy(log) == log
    assert type(copy.deepcopy(log)) is list
    with pytest.raises(ValueError, match="one value per row"):
        NamedRows([[1, 2], [3]])
