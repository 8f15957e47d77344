"""Bad input, third catalogue (../shared/repro/bad-input-3): the plan-side and file-system cases, each kept
as a regression test. Inputs are built here (small copies of the reproductions); each case ends with exit
2 and one line naming the place, or with the output it should give.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import planviz
from planviz.errors import PlanFormatError, TraceFormatError
from planviz.traces.own.tracefile import run_to_lines


def _check(out, code: int, pattern: str = "") -> None:
    output = out.stdout + out.stderr
    assert "Traceback" not in output, output[-3000:]
    assert out.returncode == code, output[-3000:]
    if code == 2:
        assert out.stderr.startswith("planviz: error: ") and len(out.stderr.splitlines()) == 1, (
            out.stderr[:2000]
        )
    assert re.search(pattern, output, re.S), output[-3000:]


PLAN_CASES = [
    (
        "deep_taskbench",
        '{"task_nodes": [], "x": ' + "[" * 5000 + "]" * 5000 + "}",
        r"deep_taskbench\.json:1:\d+: nesting deeper than 100 levels: .*MAX_DEPTH",
    ),
    (
        "taskbench_surrogate",
        '{"user_request": "r", "task_nodes": [{"task": "A", "arguments": ["x"]}], '
        '"task_links": {"bad": "\\udfff"}}',
        r"taskbench_surrogate\.json:1:\d+: task_links\.bad: lone surrogate '\\udfff'",
    ),
    (
        "teval_surrogate",
        '[{"id": {"x": "\\udfff"}, "prev": [], "name": "A.b", "args": {}}, '
        '{"id": 1, "prev": [], "name": "FinishAction", "args": {}}]',
        r"teval_surrogate\.json:1:\d+: \[0\]\.id\.x: lone surrogate",
    ),
    (
        "taskbench_chat_deep",
        json.dumps(
            [
                {
                    "role": "assistant",
                    "content": '[{"task": "A", "args": ' + "[" * 3000 + "]" * 3000 + "}]",
                }
            ]
        ),
        r"taskbench_chat_deep\.json: JSON text inside the input: nesting deeper than 100 levels",
    ),
    (
        "taskbench_chat_surrogate",
        json.dumps([{"role": "assistant", "content": '[{"task": "A", "args": {"x": "\\udfff"}}]'}]),
        r"JSON text inside the input: .*lone surrogate",
    ),
]


@pytest.mark.parametrize("name, text, pattern", PLAN_CASES, ids=[c[0] for c in PLAN_CASES])
@pytest.mark.parametrize(
    "command",
    [["validate"], ["simulate", "--trace", "{out}.jsonl"], ["simulate", "--report", "{out}.html"]],
)
def test_plan_input_the_importers_once_crashed_on_is_refused_in_one_line(
    cli, tmp_path, name, text, pattern, command
):
    path = tmp_path / f"{name}.json"
    path.write_text(text, encoding="utf-8")
    argv = [a.replace("{out}", str(tmp_path / "out")) for a in command]
    _check(cli(argv[0], str(path), *argv[1:]), 2, pattern)
    assert not list(tmp_path.glob("out*"))


@pytest.mark.parametrize("suffix", ["png", "dot", "svg"])
def test_a_step_id_of_sixteen_thousand_characters_draws(cli, tmp_path, suffix):
    a, b = "L" * 16_384, "M" * 20_000 + "\u00e9"
    path = tmp_path / "longid.json"
    path.write_text(
        json.dumps(
            {
                "goal": "g",
                "steps": [{"id": a, "action": "x"}, {"id": b, "action": "y", "depends_on": [a]}],
            }
        )
    )
    out = tmp_path / f"longid.{suffix}"
    _check(cli("render", str(path), "-o", str(out)), 0, "wrote")
    assert out.stat().st_size > 100
    if suffix == "dot":
        assert "->" in out.read_text()  # the edge between the two long ids is drawn


def _trace_lines() -> list[str]:
    return list(run_to_lines(planviz.simulate(planviz.examples.load("cache_isolation"))))


def _edit_plan(lines: list[str], edit) -> list[str]:
    out = []
    for line in lines:
        record = json.loads(line)
        if record["type"] == "plan":
            record["plan"]["steps"] = edit(record["plan"]["steps"])
        out.append(json.dumps(record) + "\n")
    return out


def _rename(steps):
    return [{**s, "id": "S9"} if s["id"] == "S4" else s for s in steps]


def _drop(steps):
    return [s for s in steps if s["id"] != "S4"]


@pytest.mark.parametrize("edit", [_rename, _drop], ids=["renamed", "dropped"])
def test_events_are_checked_against_the_plan_version_they_belong_to(cli, tmp_path, edit):
    lines = _edit_plan(_trace_lines(), edit)
    first_event = next(i for i, line in enumerate(lines, 1) if json.loads(line)["type"] == "event")
    path = tmp_path / "esnip.jsonl"
    path.write_text("".join(lines))
    with pytest.raises(
        TraceFormatError,
        match=rf"esnip\.jsonl:{first_event}: event\.changes: step 'S4' is not in "
        r"plan version 1 \(its plan record has 'S0', 'S1'",
    ):
        planviz.load_trace(path)
    for command in (
        ["report", str(path), "-o", str(tmp_path / "r.html")],
        ["diff", str(path), str(path)],
    ):
        _check(
            cli(*command),
            2,
            rf"esnip\.jsonl:{first_event}: event\.changes: step 'S4' is not in plan version 1",
        )


# --------------------------------------------------------------------------- files: FIFOs, same file, pipes

ROOT = Path(__file__).resolve().parent.parent
PLAN = ROOT / "planviz" / "examples" / "cache_isolation.yaml"


def _planviz(args: list[str], *, stdin=None, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "planviz", *args],
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=ROOT,
    )


@pytest.mark.parametrize("where", ["FILE", "--contract", "--new-contract", "-o"])
def test_a_fifo_as_any_input_or_output_is_refused_at_once(tmp_path, where):
    fifo = tmp_path / ("out.svg" if where == "-o" else "fifo.yaml")
    os.mkfifo(fifo)
    argv = {
        "FILE": ["validate", str(fifo)],
        "--contract": ["validate", str(PLAN), "--contract", str(fifo)],
        "--new-contract": [
            "simulate",
            str(PLAN),
            "--fault",
            "S0:goal_change",
            "--new-contract",
            str(fifo),
        ],
        "-o": ["render", str(PLAN), "-o", str(fifo)],
    }[where]
    out = _planviz(argv, timeout=30)  # blocked forever before
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert len(out.stderr.splitlines()) == 1 and str(fifo) in out.stderr and "FIFO" in out.stderr, (
        out.stderr
    )


@pytest.mark.parametrize(
    "output",
    [
        "--trace {victim}",
        "--report /dev/stdin",
        "--trace /proc/self/fd/0",
        "--trace {link}",
        "--trace {hard}",
    ],
)
def test_an_output_that_is_the_file_standard_input_reads_is_refused(tmp_path, output):
    victim = tmp_path / "victim.yaml"
    victim.write_text(PLAN.read_text())
    (tmp_path / "link.yaml").symlink_to(victim)
    os.link(victim, tmp_path / "hard.yaml")
    args = output.format(
        victim=victim, link=tmp_path / "link.yaml", hard=tmp_path / "hard.yaml"
    ).split()
    with open(victim) as stdin:
        out = _planviz(["simulate", "-", *args], stdin=stdin)
    assert out.returncode == 2 and len(out.stderr.splitlines()) == 1, out.stderr
    assert "is the input FILE - (standard input): write the output to another file" in out.stderr
    assert victim.read_text() == PLAN.read_text()


def test_dev_stdout_as_an_output_works_through_a_pipe(tmp_path):
    code = (
        "import planviz; planviz.save_trace(planviz.simulate(planviz.examples.load('cache_isolation')), "
        "'/dev/stdout')"
    )
    # stdout is a pipe here
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert json.loads(lines[0])["schema"] == "planviz-trace"
    assert planviz.parse_trace(out.stdout).outcome is not None


@pytest.mark.parametrize("path", ["a\x00b.yaml", "a\ud800b.yaml"])
@pytest.mark.parametrize("reader", [planviz.load_plan, planviz.load_contract])
def test_a_path_no_file_can_have_is_a_planviz_error(path, reader):
    with pytest.raises(PlanFormatError, match="no file can have that name"):
        reader(path)


def _otel_spans() -> dict:
    run = {
        "spans": [
            {
                "name": "invoke_agent a",
                "kind": "INTERNAL",
                "parent": None,
                "start_time": 1,
                "end_time": 9,
                "status": {"status_code": "OK"},
                "context": {"span_id": "1", "trace_id": "t"},
                "attributes": {"gen_ai.operation.name": "invoke_agent"},
            }
        ]
    }
    return run


def _cycle(d):
    d["spans"][0]["attributes"]["loop"] = d["spans"][0]["attributes"]


@pytest.mark.parametrize(
    "edit, pattern",
    [
        (_cycle, r"spans\[0\]\.attributes\.loop: this mapping contains itself"),
        (
            lambda d: d["spans"][0]["attributes"].__setitem__("s", {1, 2}),
            r"spans\[0\]\.attributes\.s: .*got set",
        ),
        (
            lambda d: d["spans"][0]["attributes"].__setitem__(5, "k"),
            r"spans\[0\]\.attributes: keys are strings, got 5",
        ),
        (
            lambda d: d["spans"][0].__setitem__("start_time", 10**5000),
            r"spans\[0\]\.start_time: integer of about 5,001",
        ),
        (
            lambda d: d["spans"][0]["attributes"].__setitem__("x", "\udfff"),
            r"spans\[0\]\.attributes\.x: lone surrogate",
        ),
        (
            lambda d: d["spans"][0]["attributes"].__setitem__("x", float("nan")),
            r"spans\[0\]\.attributes\.x: expected a finite",
        ),
    ],
)
def test_load_trace_holds_python_data_to_what_a_trace_file_could_hold(edit, pattern):
    data = _otel_spans()
    edit(data)
    with pytest.raises(TraceFormatError, match=rf"^<data>: {pattern}"):
        planviz.load_trace(data)


def _deep(k: int) -> list:
    value: list = ["x"]
    for _ in range(k - 1):
        value = [value]
    return value


@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_dump_plan_never_writes_arguments_too_deep_to_read_back(tmp_path, suffix):
    # 100 levels in the file
    fits = planviz.Plan("g", [planviz.Step("A", "a", arguments={"x": _deep(96)})])
    path = tmp_path / f"p.{suffix}"
    planviz.dump_plan(fits, path)
    assert planviz.load_plan(path) == fits
    with pytest.raises(
        PlanFormatError,
        match=r"nesting deeper than 100 levels \(counting the 3 that hold it in a "
        r"plan file\)",
    ):
        planviz.Plan("g", [planviz.Step("A", "a", arguments={"x": _deep(97)})])


@pytest.mark.parametrize("k, readable", [(96, True), (97, False)])
def test_an_imported_plan_reads_back_from_its_dump_or_is_refused_on_the_way_in(
    tmp_path, k, readable
):
    record = {
        "user_request": "r",
        "task_nodes": [{"task": "A", "arguments": [_deep(k)]}],
        "task_links": [],
    }
    if not readable:
        with pytest.raises(PlanFormatError, match="nesting deeper than 100 levels"):
            planviz.parse_plan(json.dumps(record))
        return
    plan = planviz.parse_plan(json.dumps(record))
    for suffix in ("yaml", "json"):
        planviz.dump_plan(plan, tmp_path / f"p.{suffix}")
        assert planviz.load_plan(tmp_path / f"p.{suffix}") == plan.replace(source_format="")


# --------------------------------------------------------------------------- round trip of long plan records


@pytest.mark.parametrize("fault", ["", "S4:side_effect", "S2:goal_change", "S1:transientx2"])
def test_a_plan_record_longer_than_a_line_is_written_over_several_and_reads_back(
    tmp_path, monkeypatch, fault
):
    from planviz.traces.own import traceplans

    # as a 100k-step plan against the 16 MiB line limit
    monkeypatch.setattr(traceplans, "CHUNK", 400)
    run = planviz.simulate(
        planviz.examples.load("cache_isolation"),
        faults=[planviz.Fault.parse(fault)] if fault else [],
        strategy="planner",
    )
    path = tmp_path / "run.jsonl"
    planviz.save_trace(run, path)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records[0]["version"] == 3
    heads = [r for r in records if r["type"] == "plan"]
    assert all(r["plan"]["steps"] == [] and r["steps_lines"] > 1 for r in heads)
    assert sum(r["type"] == "steps" for r in records) == sum(r["steps_lines"] for r in heads)
    assert all(
        len(line) < 2000 for line in path.read_text().splitlines() if '"type":"steps"' in line
    )
    assert planviz.load_trace(path) == run


def test_a_short_trace_stays_schema_2_and_an_old_reader_refuses_schema_3_clearly(
    tmp_path, monkeypatch
):
    from planviz.traces.own import tracefile, traceplans

    run = planviz.simulate(planviz.examples.load("cache_isolation"))
    planviz.save_trace(run, tmp_path / "short.jsonl")
    assert json.loads((tmp_path / "short.jsonl").read_text().splitlines()[0])["version"] == 2
    monkeypatch.setattr(traceplans, "CHUNK", 400)
    planviz.save_trace(run, tmp_path / "long.jsonl")
    monkeypatch.setattr(tracefile, "READS", (1, 2))  # a planviz from before schema 3
    with pytest.raises(
        TraceFormatError,
        match=r"long\.jsonl:1: header\.version: trace schema version 3 is not "
        r"supported; this planviz reads versions 1 and 2 \(a newer planviz",
    ):
        planviz.load_trace(tmp_path / "long.jsonl")


def test_steps_lines_must_follow_their_plan_record(tmp_path, monkeypatch):
    from planviz.traces.own import tracefile, traceplans

    monkeypatch.setattr(traceplans, "CHUNK", 400)
    run = planviz.simulate(planviz.examples.load("cache_isolation"))
    lines = list(tracefile.run_to_lines(run))
    del lines[2]  # the first steps line: an event now comes before the plan record is whole
    (tmp_path / "cut.jsonl").write_text("".join(lines))
    with pytest.raises(
        TraceFormatError,
        match=r"cut\.jsonl:\d+: type: expected 'steps' \(1 more line\(s\) of the "
        r"plan record above\), got 'event'",
    ):
        planviz.load_trace(tmp_path / "cut.jsonl")


def test_bidi_controls_in_the_html_report_are_shown_as_code_points_as_in_the_svg(tmp_path):
    plan = planviz.Plan(
        "goal \u202eevil\u202c",
        [planviz.Step("A", "pay \u202e01$\u2066 now", expected_evidence="ok")],
    )
    page = planviz.report_html(planviz.simulate(plan), tmp_path / "r.html").read_text(
        encoding="utf-8"
    )
    for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069":
        assert ch not in page
    assert "&lt;U+202E&gt;evil" in page  # the title and heading, as text
    assert "pay &lt;U+202E&gt;01$&lt;U+2066&gt; now" in page  # the step's text, in its picture
    from planviz.frontends.page import script_json

    # the page's data
    assert script_json({"a": "x\u202ey\udfff"}) == '{"a": "x\\u003cU+202E\\u003ey\\udfff"}'
