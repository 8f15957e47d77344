"""The bad-input catalogue for traces: each case through ``planviz report TRACE`` in a subprocess.

For every trace: the command finishes within its time limit, prints no
traceback, exits 2 with one line naming the file, the line and the field (or
0 for a trace an agent left unfinished, which is reported where it stopped).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from planviz import examples, simulate
from planviz.traces.own.tracefile import run_to_lines

ROOT = Path(__file__).resolve().parent.parent


def _lines() -> list[dict]:
    return [json.loads(line) for line in run_to_lines(simulate(examples.load("cache_isolation")))]


def _edit_event(n: int, **fields) -> str:
    """The worked example's trace with event ``n`` (0-based) changed; JSON written as Python's json writes it."""
    records = _lines()
    event = [r for r in records if r["type"] == "event"][n]["event"]
    event.update(fields)
    return "".join(json.dumps(r) + "\n" for r in records)


def _edit_plan(**fields) -> str:
    records = _lines()
    records[1]["plan"].update(fields)
    return "".join(json.dumps(r) + "\n" for r in records)


def _truncated() -> str:
    text = "".join(json.dumps(r) + "\n" for r in _lines())
    # the agent died mid-line, before its stop event
    return text[: text.index('"kind": "complete"') + 30]


# name, content (text, or a callable making the path), exit code, pattern the output must match
CASES = [
    (
        "step_id_number",
        _edit_event(1, step=3),
        2,
        r"{path}:4: event\.step: expected a string, got 3",
    ),
    (
        "step_id_list",
        _edit_event(1, step=["S0"]),
        2,
        r"{path}:4: event\.step: expected a string, got \['S0'\]",
    ),
    (
        "time_infinity",
        _edit_event(2, time=float("inf")),
        2,
        r"{path}:5: event\.time: expected a finite number, got Infinity",
    ),
    (
        "time_nan",
        _edit_event(2, time=float("nan")),
        2,
        r"{path}:5: event\.time: expected a finite number, got NaN",
    ),
    (
        "time_1e400",
        _edit_event(2).replace('"time": 5.0', '"time": 1e400', 1),
        2,
        r"{path}:5: event\.time: expected a finite number, got inf",
    ),
    (
        "time_400_digits",
        _edit_event(2, time=10**400),
        2,
        r"{path}:5: event\.time: expected a finite number, got an integer of 401 digits",
    ),
    (
        "finding_steps_objects",
        _edit_plan(
            import_findings=[
                {
                    "code": "x",
                    "layer": "import",
                    "severity": "warning",
                    "message": "m",
                    "steps": [{"id": "S0"}],
                }
            ]
        ),
        2,
        r"{path}:2: plan\.import_findings\[0\]\.steps\[0\]: expected a string",
    ),
    (
        "status_unknown",
        _edit_event(1, changes={"S0": "exploded"}),
        2,
        r"{path}:4: event\.changes\['S0'\]: expected one of",
    ),
    (
        "schema_from_the_future",
        "".join(
            json.dumps({**r, "version": 99} if r["type"] == "header" else r) + "\n"
            for r in _lines()
        ),
        2,
        r"{path}:1: header\.version: trace schema version 99",
    ),
    ("not_json", "{nope\n", 2, r"{path}:1: not valid JSON"),
    (
        "duplicate_key",
        _edit_event(0).replace('{"type": "event", ', '{"type": "event", "type": "model_call", ', 1),
        2,
        r"{path}:3: duplicate key 'type': each key may appear once",
    ),
    ("empty", "", 2, r"{path}:1: empty trace"),
    (
        "dev_zero",
        lambda tmp: Path("/dev/zero"),
        2,
        r"/dev/zero: this is a device, not a trace file",
    ),
    (
        "fifo",
        lambda tmp: (os.mkfifo(tmp / "pipe.jsonl"), tmp / "pipe.jsonl")[1],
        2,
        r"pipe\.jsonl: this is a FIFO",
    ),
    ("directory", lambda tmp: tmp, 2, r"this is a directory, not a trace file"),
    ("unfinished", _truncated(), 0, r"wrote .*unfinished\.html"),
]


@pytest.mark.parametrize("name, content, code, pattern", CASES, ids=[c[0] for c in CASES])
def test_report_survives_bad_traces(tmp_path, name, content, code, pattern):
    if callable(content):
        path = content(tmp_path)
    else:
        path = tmp_path / f"{name}.jsonl"
        path.write_text(content, encoding="utf-8")
    out_file = tmp_path / f"{name}.html"
    out = subprocess.run(
        [sys.executable, "-m", "planviz", "report", str(path), "-o", str(out_file)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    output = out.stdout + out.stderr
    assert "Traceback" not in output, output[-3000:]
    assert out.returncode == code, output[-3000:]
    if code == 2:
        assert out.stderr.startswith("planviz: error: ") and len(out.stderr.splitlines()) == 1, (
            out.stderr[:2000]
        )
        assert not out_file.exists()
    else:
        assert "unfinished" in out_file.read_text(encoding="utf-8")
    assert re.search(pattern.replace("{path}", re.escape(str(path))), output), output[-3000:]
