"""Files that are not traces get an answer naming what they are and what planviz reads: never a JSON syntax
error for valid JSON, never a codec error."""

from __future__ import annotations

import json
import sqlite3

import pytest

from planviz import TraceFormatError, load_trace, parse_trace

KINDS = {
    "planbench": "PlanBench",
    "swe-agent": "SWE-agent trajectory",
    "toolbench-dfsdt": "ToolBench",
    "travelplanner": "TravelPlanner",
}


@pytest.mark.corpus
def test_every_other_format_is_named(corpus):
    files = [
        p
        for p in sorted((corpus / "other-formats").glob("*/*"))
        if p.suffix in (".json", ".traj", ".jsonl")
    ]
    assert len(files) >= 15
    for path in files:
        with pytest.raises(TraceFormatError) as info:
            load_trace(path)
        message = str(info.value)
        assert KINDS[path.parent.name] in message, message
        assert "planviz reads traces as" in message and "not valid JSON" not in message, message


@pytest.mark.parametrize(
    "text, match",
    [
        (
            json.dumps({"goal": "g", "steps": [{"id": "A", "action": "a"}]}, indent=2),
            "planviz plan .*load_plan",
        ),
        ("goal: g\nsteps:\n  - id: A\n    action: a\n", "planviz plan in YAML"),
        ("Plan: look\n#E1 = Wikipedia[x]\n", "ReWOO planner output.*format='rewoo'"),
        (
            json.dumps({"unrelated": [1, 2]}, indent=2),
            "not a trace planviz reads: it is a JSON object with keys unrelated",
        ),
        (
            json.dumps([{"a": 1}, {"b": 2}], indent=4),
            "not a trace planviz reads: it is a JSON list of 2",
        ),
        ("just some prose\n", "not a trace planviz reads: it begins 'just some prose"),
    ],
)
def test_what_a_non_trace_is_is_said(text, match):
    with pytest.raises(TraceFormatError, match=match):
        parse_trace(text)


@pytest.mark.parametrize(
    "blob, match",
    [
        (b"\x7fELF\x02\x01\x01\x00\x00\x00", "binary file"),
        ("caf\xe9 au lait".encode("latin-1") + b" " * 20, r"not UTF-8 text \(byte 3"),
    ],
)
def test_bytes_that_are_not_text_are_named_never_a_codec_error(tmp_path, blob, match):
    path = tmp_path / "x.json"
    path.write_bytes(blob)
    with pytest.raises(TraceFormatError, match=match):
        load_trace(path)


def test_a_sqlite_database_that_is_no_checkpointer_lists_its_tables(tmp_path):
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE users (id INTEGER)")
        db.execute("CREATE TABLE orders (id INTEGER)")
    with pytest.raises(
        TraceFormatError, match=r"not a LangGraph checkpointer.*tables: orders, users"
    ):
        load_trace(path)
