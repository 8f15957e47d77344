"""Bad input, fourth catalogue (../shared/repro/bad-input-4): each case built here as a small copy of its
reproduction, kept as a regression test. A case ends with its output, or exit 2 and one line naming the place.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import planviz
from planviz.io.limits import read_float
from planviz.plan.model import natural_key

from .test_bad_input_3 import _check

SUPERSCRIPT_PLAN = (
    'goal: g\nsteps:\n  - {id: "S1²", action: a, expected_evidence: e}\n'
    "  - {id: B, action: b, expected_evidence: e}\n"
)
SUPERSCRIPT_OTEL = [
    {
        "name": "execute_tool f1\u00b2",
        "context": {"span_id": 2, "trace_id": 1},
        "start_time": 1000,
        "end_time": 2000,
        "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "f1\u00b2"},
    }
]


@pytest.mark.parametrize(
    "command",
    [
        ["validate"],
        ["simulate"],
        ["render", "-o", "{out}.svg"],
        ["simulate", "--report", "{out}.html"],
    ],
)
def test_an_id_with_a_digit_then_a_superscript_digit_is_an_id_like_any_other(
    cli, tmp_path, command
):
    path = tmp_path / "plan.yaml"
    path.write_text(SUPERSCRIPT_PLAN, encoding="utf-8")
    argv = [a.replace("{out}", str(tmp_path / "out")) for a in command]
    out = cli(argv[0], str(path), *argv[1:])
    _check(out, 0)
    if command[0] == "validate":
        assert "S1²" in out.stdout


def test_a_trace_whose_tool_name_ends_in_a_superscript_digit_reports(cli, tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(SUPERSCRIPT_OTEL), encoding="utf-8")
    _check(cli("report", str(path), "-o", str(tmp_path / "r.html")), 0)
    assert "f1²" in (tmp_path / "r.html").read_text(encoding="utf-8")


@given(st.lists(st.text(max_size=12), max_size=8))
@settings(max_examples=300, deadline=None)
def test_any_unicode_ids_sort_and_ascii_numbers_sort_by_value(ids):
    ordered = sorted(ids, key=natural_key)
    assert sorted(ordered, key=natural_key) == ordered
    numbers = [f"S{n}" for n in (10, 9, 100, 1)]
    assert sorted(numbers, key=natural_key) == ["S1", "S9", "S10", "S100"]


def test_an_id_of_more_digits_than_python_converts_sorts():
    huge = "S" + "9" * 6000
    assert sorted([huge, "S2", "S" + "0" * 7000 + "3"], key=natural_key) == [
        "S2",
        "S" + "0" * 7000 + "3",
        huge,
    ]


def test_a_dead_end_branch_that_is_a_cycle_is_two_findings_not_a_crash(cli, tmp_path):
    teval = [
        {"id": 0, "prev": [1], "name": "A.f", "args": {}},
        {"id": 1, "prev": [0], "name": "A.g", "args": {}},
        {"id": 2, "prev": [], "name": "FinishAction", "args": {}},
    ]
    path = tmp_path / "teval.json"
    path.write_text(json.dumps(teval), encoding="utf-8")
    out = cli("validate", str(path))
    _check(out, 1, r"error  cycle  0, 1 .*warning  dead_end  0, 1 .*loop is broken")


@pytest.mark.parametrize("value", ["1" + "0" * 309, "1e999", "-1e400"])
def test_an_otlp_double_out_of_float_range_is_refused_naming_the_attribute(cli, tmp_path, value):
    span = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": "0000000000000002",
        "name": "chat m",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000000000001000",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
            {"key": "gen_ai.usage.cost", "value": {"doubleValue": "@"}},
        ],
    }
    text = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).replace(
        '"@"', value
    )
    path = tmp_path / "otlp.json"
    path.write_text(text, encoding="utf-8")
    _check(
        cli("report", str(path), "-o", str(tmp_path / "r.html")),
        2,
        r"spans\[0\]\.attributes\[1\]\.value: doubleValue holds .* not a valid doubleValue",
    )
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    "value, expected",
    [
        (3, 3.0),
        ("2.5", 2.5),
        (10**400, None),
        ("1e999", None),
        (float("nan"), None),
        (True, None),
        ("٣", None),
        ("9" * 9000, None),
    ],
)
def test_read_float_is_the_one_conversion_of_untrusted_numbers(value, expected):
    assert read_float(value) == expected


ROOT = Path(__file__).resolve().parent.parent
PLAN = ROOT / "planviz" / "examples" / "cache_isolation.yaml"


@pytest.mark.parametrize("command", ["campaign", "ablation"])
@pytest.mark.parametrize("alias", ["symlink", "hardlink"])
def test_a_chart_that_is_the_file_standard_input_reads_is_refused(tmp_path, command, alias):
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLAN.read_text())
    chart = tmp_path / "chart.svg"
    chart.symlink_to(plan) if alias == "symlink" else os.link(plan, chart)
    with open(plan) as stdin:
        out = subprocess.run(
            [sys.executable, "-m", "planviz", command, "-", "--samples", "1", "-o", str(chart)],
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    _check(
        out,
        2,
        r"-o .*chart\.svg is one of the plan files \(- \(standard input\)\): write the chart to another file",
    )
    assert plan.read_text() == PLAN.read_text()


ESC = "\x1b]8;;https://evil.example/x\x1b\\click\x1b]8;;\x1b\\\x1b[2J\x1b[31mRED\x07\x9b"


def _escape_plan() -> dict:
    return {
        "goal": "g " + ESC,
        "time_unit": "min" + ESC,
        "steps": [
            {
                "id": "S0" + ESC,
                "action": "a " + ESC,
                "expected_evidence": "e " + ESC,
                "produces": ["f" + ESC],
                "duration": 1,
            },
            {
                "id": "S1",
                "action": "b",
                "expected_evidence": "e",
                "depends_on": ["S0" + ESC],
                "requires": ["f" + ESC],
                "produces": ["done"],
                "duration": 1,
            },
        ],
    }


@pytest.mark.parametrize(
    "command",
    [
        "validate {plan}",
        "validate --json {plan}",
        "grade {plan}",
        "simulate {plan}",
        "simulate --json {plan}",
        "diff {trace} {trace}",
        "diff --json {trace} {trace}",
        "hindsight {trace}",
        "align {plan} {trace}",
        "report {trace} -o {out}.html",
        "render {plan} -o {out}.svg",
        "validate {missing}",
    ],
)
def test_no_command_prints_a_terminal_control_character_from_a_plan_or_trace(
    cli, tmp_path, command
):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(_escape_plan()), encoding="utf-8")
    trace = tmp_path / "run.jsonl"
    assert cli("simulate", str(plan), "--trace", str(trace)).returncode in (0, 1)
    missing = tmp_path / ("gone" + ESC + ".yaml")
    argv = command.format(plan=plan, trace=trace, out=tmp_path / "out", missing=missing).split()
    out = cli(*argv)
    assert "Traceback" not in out.stdout + out.stderr
    shown = out.stdout + out.stderr
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", shown), repr(shown[:500])
    if "--json" in argv:
        json.loads(out.stdout)  # still JSON


CORPUS = ROOT.parent / "shared" / "corpus"
SPAN_FILES = [
    "otel/any-agent_OPENAI_trace.json",
    "otel/any-agent_LANGCHAIN_trace.json",
    "openinference/SMOLAGENTS_trace_openinference.json",
    "langfuse/langgraph-2025-08-22.json",
    "langfuse/openai-agents-2025-09-30.json",
    "otel-js/ai-generateText.json",
    "langgraph/langgraph_saved_checkpoints_v3.json",
    "langgraph/langgraph_docs_get_state_history_example.json",
]


def _leaves(value, where=()):
    """Every string of parsed JSON, with its path; a string holding JSON text also gives its own leaves."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, where + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, where + (i,))
    elif isinstance(value, str):
        yield where, None
        if value[:1] in "{[":
            try:
                inner = json.loads(value)
            except ValueError:
                return
            for path, _ in _leaves(inner):
                yield where, path


def _poison(value, where, inner):
    """A copy of ``value`` with a lone surrogate added to the string at ``where`` (inside its JSON text
    when ``inner`` is a path there)."""
    value = json.loads(json.dumps(value))
    *parents, last = where
    node = value
    for key in parents:
        node = node[key]
    if inner is None:
        node[last] = node[last] + "\ud800"
    else:
        node[last] = json.dumps(_poison(json.loads(node[last]), inner, None))
    return value


@pytest.mark.parametrize("name", SPAN_FILES)
def test_a_lone_surrogate_anywhere_in_a_real_trace_is_refused_naming_the_file_or_reads_back(
    corpus, tmp_path, name
):
    import random

    raw = json.loads((CORPUS / name).read_text(encoding="utf-8"))
    leaves = list(_leaves(raw))
    rnd = random.Random(f"surrogate-{name}")
    for where, inner in rnd.sample(leaves, min(25, len(leaves))):
        # ensure_ascii: the surrogate is a \\ud800 escape
        text = json.dumps(_poison(raw, where, inner))
        assert "\\ud800" in text
        try:
            run = planviz.parse_trace(text, source=f"{name}.poisoned")
        except planviz.PlanvizError as exc:
            # any refusal names the file (and its field)
            assert f"{name}.poisoned" in str(exc), str(exc)
            continue
        path = tmp_path / "t.jsonl"  # accepted (the string was not kept): every writer writes it
        planviz.save_trace(run, path)
        back = planviz.load_trace(path)
        assert [(e.kind, e.step, e.message) for e in back.events] == [
            (e.kind, e.step, e.message) for e in run.events
        ]
        assert back.model_calls == run.model_calls
        planviz.report_html(run, tmp_path / "r.html")


@pytest.mark.parametrize("field", ["message"])
def test_a_lone_surrogate_in_planvizs_own_trace_is_refused_naming_the_field(field):
    from planviz.traces.own.tracefile import run_to_lines

    records = [
        json.loads(line)
        for line in run_to_lines(planviz.simulate(planviz.examples.load("cache_isolation")))
    ]
    k = next(i for i, r in enumerate(records) if r["type"] == "event" and r["event"].get(field))
    records[k]["event"][field] += "\ud800"
    n = sum(r["type"] == "event" for r in records[:k])
    text = "".join(json.dumps(r) + "\n" for r in records)
    with pytest.raises(
        planviz.PlanvizError, match=rf"own\.jsonl: events\[{n}\]\.{field}: lone surrogate"
    ):
        planviz.parse_trace(text, source="own.jsonl")


class _CountingDecoder:
    """json.JSONDecoder whose raw_decode counts the calls and the characters it is handed."""

    def __init__(self) -> None:
        self.calls, self.chars, self._inner = 0, 0, json.JSONDecoder()

    def raw_decode(self, text: str, idx: int = 0):
        self.calls, self.chars = self.calls + 1, self.chars + len(text) - idx
        return self._inner.raw_decode(text, idx)


def _taskbench_work(monkeypatch, text: str) -> tuple[int, int, int]:
    from planviz.plan.importers import taskbench

    counter = _CountingDecoder()
    monkeypatch.setattr(taskbench, "_DECODER", counter)
    plans = planviz.parse_plans(text, format="taskbench")
    return counter.calls, counter.chars, sum(len(p.steps) for p in plans)


def _junk_list(n: int) -> str:
    return (
        "["
        + ", ".join('{"task": "t", "id": %d, "dep": [-1], "args": {}} junk' % i for i in range(n))
        + "]"
    )


def test_a_task_list_with_junk_between_objects_is_read_in_linear_work(monkeypatch):
    calls, chars, steps = _taskbench_work(monkeypatch, _junk_list(500))
    calls4, chars4, steps4 = _taskbench_work(monkeypatch, _junk_list(2000))
    assert (steps, steps4) == (500, 2000)
    assert chars4 <= 4.5 * chars and calls4 <= 4.5 * calls


def test_failed_starts_cost_their_window_not_the_text_before_them(monkeypatch):
    def text(prefix: int) -> str:
        return (
            "[" + "\n" * prefix + "{x} " * 2000 + '{"task": "t", "id": 1, "dep": [-1], "args": {}}]'
        )

    _, chars, steps = _taskbench_work(monkeypatch, text(50_000))
    _, chars4, steps4 = _taskbench_work(monkeypatch, text(200_000))
    assert steps == steps4 == 1
    assert chars4 <= 1.2 * chars  # the prefix is never handed to the decoder again


def test_failed_starts_are_capped(monkeypatch):
    from planviz.plan.importers import taskbench

    monkeypatch.setattr(taskbench, "_MAX_ATTEMPTS", 300)
    calls, _, _ = _taskbench_work(monkeypatch, "[" + "{x} " * 5000 + "]")
    assert calls == 300


@pytest.mark.parametrize("shape", ["joins", "repeated_end"])
def test_llmcompiler_joins_make_linear_edges(shape):
    def text(n: int) -> str:
        if shape == "joins":
            return 'Question: q\n1. search("x")\n' + "".join(
                f"{i}. join()\n" for i in range(2, n + 2)
            )
        return 'Question: q\n1. search("x")\n2. search("y")\n' + "3. join()<END_OF_PLAN>\n" * n

    def edges(n: int) -> int:
        return sum(
            len(s.depends_on)
            for p in planviz.parse_plans(text(n), format="llmcompiler")
            for s in p.steps
        )

    assert edges(2000) <= 4.5 * edges(500)


def test_a_join_still_waits_for_every_earlier_task():
    text = (
        'Question: q\n1. search("a")\n2. search("b")\n3. join()\n4. search("c")\n5. math("$4")\n'
        "6. join()<END_OF_PLAN>\n"
    )
    plan = planviz.parse_plan(text, format="llmcompiler")
    assert plan.step("3").depends_on == ("1", "2") and plan.step("6").depends_on == ("3", "4", "5")
    import networkx as nx

    assert nx.ancestors(planviz.to_graph(plan), "6") == {"1", "2", "3", "4", "5"}


def test_rewoo_steps_sharing_an_input_give_one_finding_each():
    def findings(n: int) -> list:
        text = "".join(
            f"Plan: look it up\n#E{k} = Google[hometown of the 2024 winner]\n"
            for k in range(1, n + 1)
        )
        return [
            f
            for f in planviz.parse_plan(text, format="rewoo").import_findings
            if f.code == "implicit_reference"
        ]

    small, big = findings(50), findings(200)
    assert len(small) == 49 and len(big) == 199  # every step after the first, once
    assert "and the inputs of 198 more earlier steps" in big[-1].message


# -- item 4 of issue 42: LangGraph histories whose clock goes back or whose parents are missing ----------------

LANGGRAPH_FILES = [
    "langgraph/langgraph_docs_get_state_history_example.json",
    "langgraph/langgraph_saved_checkpoints_v3.json",
]


def _chain(n: int, back_at: int) -> list:
    """A one-thread chain of ``n`` checkpoints (a task per checkpoint but the last) whose clock goes back
    ``n`` seconds at checkpoint ``back_at`` (the repro lg_clock_backwards)."""
    from datetime import datetime, timezone

    def snap(k):
        t = 1_700_000_000 + k - (n if k >= back_at else 0)
        r = {
            "values": {"x": k},
            "next": [f"n{k + 1}"] if k < n - 1 else [],
            "created_at": datetime.fromtimestamp(t, timezone.utc).isoformat(),
            "config": {"configurable": {"thread_id": "t", "checkpoint_id": f"c{k:03d}"}},
            "metadata": {"source": "loop", "step": k},
            "tasks": [{"id": f"t{k}", "name": f"n{k + 1}", "error": None, "interrupts": []}]
            if k < n - 1
            else [],
        }
        if k:
            r["parent_config"] = {
                "configurable": {"thread_id": "t", "checkpoint_id": f"c{k - 1:03d}"}
            }
        return r

    return [snap(k) for k in range(n)]


def _played_in_order(run) -> None:
    """Every event names a step of its plan version, and each step starts before it ends."""
    running = set()
    for i, e in enumerate(run.events):
        if e.step is not None and e.kind in ("start", "complete", "fail"):
            plan = run.plan_at(i)
            assert e.step in plan.ids, (i, e.kind, e.step, plan.ids)
            if e.kind == "start":
                running.add(e.step)
            else:
                assert e.step in running, (i, e.kind, e.step)
                running.discard(e.step)


def _reads_back(run, tmp_path) -> None:
    path = tmp_path / "own.jsonl"
    planviz.save_trace(run, path)
    back = planviz.load_trace(path)
    assert [(e.kind, e.step, e.time, e.plan_version) for e in back.events] == [
        (e.kind, e.step, e.time, e.plan_version) for e in run.events
    ]


def test_a_langgraph_clock_that_goes_back_keeps_every_step_and_says_so(tmp_path):
    history = _chain(10, back_at=6)
    run = planviz.load_trace(history)
    # the node runs the raw history records
    tasks = [t["name"] for r in history for t in r["tasks"]]
    assert sorted(e.step for e in run.events if e.kind == "start") == sorted(tasks)
    assert sorted(e.step for e in run.events if e.kind == "complete") == sorted(tasks)
    _played_in_order(run)
    found = {f.code: f for f in run.plan.import_findings}
    assert "clock_backwards" in found and found["clock_backwards"].where == "[6]"
    assert found["clock_backwards"].message.startswith("4 checkpoint(s) are older")
    # the steps ending at a checkpoint older than its parent ran for an unknown time, not an invented one
    assert set(found["unknown_duration"].steps) == {"n6", "n7", "n8", "n9"}
    assert [s.duration for s in run.plan.steps[:5]] == [1.0] * 5
    assert run.outcome == "plan_complete"
    _reads_back(run, tmp_path)


def test_a_langgraph_history_with_times_swapped_and_a_missing_parent_reads_back(corpus, tmp_path):
    h = json.loads((corpus / LANGGRAPH_FILES[0]).read_text(encoding="utf-8"))
    a, b = h["history"][0], h["history"][1]
    a["created_at"], b["created_at"] = b["created_at"], a["created_at"]
    b["parent_config"]["configurable"].update(thread_id="x", checkpoint_id="x")
    run = planviz.load_trace(h)
    codes = {f.code for f in run.plan.import_findings}
    assert {"clock_backwards", "missing_parent"} <= codes
    parents = {
        (r.get("parent_config") or {}).get("configurable", {}).get("checkpoint_id")
        for r in h["history"]
    }
    ran = {
        t["name"]
        for r in h["history"]
        for t in r["tasks"]
        if r["config"]["configurable"]["checkpoint_id"] in parents
    }
    # node_a's checkpoint has no child left: no run of it is recorded
    assert ran == {
        "__start__",
        "node_b",
    }
    assert {e.step for e in run.events if e.kind == "complete"} == ran
    _played_in_order(run)
    _reads_back(run, tmp_path)


@pytest.mark.parametrize("name", LANGGRAPH_FILES)
def test_any_disorder_of_a_real_langgraph_history_is_kept_and_read_back(corpus, tmp_path, name):
    import random

    raw = json.loads((corpus / name).read_text(encoding="utf-8"))
    records = raw["history"] if isinstance(raw, dict) and "history" in raw else raw
    rnd = random.Random(f"disorder-{name}")
    for trial in range(20):
        h = json.loads(json.dumps(raw))
        recs = h["history"] if isinstance(h, dict) and "history" in h else h
        timed = [
            r for r in recs if isinstance(r, dict) and ("created_at" in r or "checkpoint" in r)
        ]
        for _ in range(rnd.randint(1, 3)):  # swap two records' times
            x, y = rnd.sample(timed, 2)
            if "checkpoint" in x:
                x["checkpoint"]["ts"], y["checkpoint"]["ts"] = (
                    y["checkpoint"]["ts"],
                    x["checkpoint"]["ts"],
                )
            else:
                x["created_at"], y["created_at"] = y["created_at"], x["created_at"]
        if trial % 2:  # and cut one record from its parent
            r = rnd.choice([r for r in recs if r.get("parent_config")])
            r["parent_config"]["configurable"]["checkpoint_id"] = "gone"
        try:
            run = planviz.parse_trace(json.dumps(h), source=f"{name}.disordered")
        except planviz.PlanvizError as exc:
            assert f"{name}.disordered" in str(exc)
            continue
        assert len(records) == len(recs)
        _played_in_order(run)
        _reads_back(run, tmp_path)


@st.composite
def _forked_histories(draw) -> list:
    """A LangGraph state history drawn from what the reader is told: ``n`` checkpoints where every ``period``-th
    forks from the one ``distance`` back (past the branch it is on when ``distance`` > ``period``), tasks that
    fail or wait for input at random checkpoints (an abandoned branch's included), some parents cut off
    ("gone"), a clock that may stand still over a few checkpoints, some times swapped or repeated, and the
    records in either order (newest first, as ``get_state_history`` lists them, or oldest first)."""
    from datetime import datetime, timezone

    n = draw(st.integers(2, 40))
    period, distance = draw(st.integers(2, 12)), draw(st.integers(2, 9))
    nodes = draw(st.integers(2, 50))  # node names repeat past this: n3, n3#2, ...
    ks = st.integers(0, n - 1)
    errors, waits = draw(st.sets(ks, max_size=6)), draw(st.sets(ks, max_size=3))
    gone = draw(st.sets(st.integers(1, n - 1), max_size=2))
    # a clock that moves every tick-th checkpoint: node runs of no time
    tick = draw(st.integers(1, 3))
    times = [1_700_000_000 + k // tick / 1000 for k in range(n)]
    for a, b in draw(st.lists(st.tuples(ks, ks), max_size=4)):  # swapped, or the same time twice
        times[a], times[b] = (times[b], times[a]) if draw(st.booleans()) else (times[b], times[b])

    def snap(k: int) -> dict:
        name = f"n{(k + 1) % nodes}"
        task = {
            "id": f"t{k}",
            "name": name,
            "error": f"boom at {k}" if k in errors else None,
            "interrupts": [{"value": f"ask {k}", "when": "during"}] if k in waits else [],
        }
        r = {
            "values": {"x": k},
            "next": [name],
            "config": {"configurable": {"thread_id": "t", "checkpoint_id": f"c{k:03d}"}},
            "metadata": {"source": "loop", "step": k},
            "created_at": datetime.fromtimestamp(times[k], timezone.utc).isoformat(),
            "tasks": [task],
        }
        if k:
            parent = k - distance if k % period == 0 and k >= distance else k - 1
            r["parent_config"] = {
                "configurable": {
                    "thread_id": "t",
                    "checkpoint_id": "gone" if k in gone else f"c{parent:03d}",
                }
            }
        return r

    history = [snap(k) for k in range(n)]
    return history[::-1] if draw(st.booleans()) else history


@settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(_forked_histories())
def test_a_forked_langgraph_history_says_where_each_task_failed_and_reads_back_equal(
    tmp_path, history
):
    """Issue 42, "What to build" 4 and 1: a forked history, however its forks, failures, waits, times and
    parents fall, keeps every checkpoint, records each failed task once per run of it in a plan version that
    holds its step, and what save_trace writes load_trace reads back equal (main refused its own trace: a
    task failing where an abandoned branch ends was played after the fork, in the new plan version, which
    lacks its step; a task failing at a fork point, re-run on the new branch, was played before the fork)."""
    run = planviz.parse_trace(json.dumps(history), format="langgraph")
    ids = {r["config"]["configurable"]["checkpoint_id"] for r in history}
    parent = {
        r["config"]["configurable"]["checkpoint_id"]: r["parent_config"]["configurable"][
            "checkpoint_id"
        ]
        for r in history
        if "parent_config" in r
    }
    children = {c: sum(1 for p in parent.values() if p == c) for c in ids}
    # every checkpoint with its parent in the history ends a node run: a completion there
    ended = {
        e.observation.data["checkpoint"]
        for e in run.events
        if e.kind == "complete" and e.observation is not None
    }
    assert ended == {c for c, p in parent.items() if p in ids}
    # each task that failed: a failure per branch it ran on (a standing one where its branch ends), each in a
    # plan version holding its step
    failed = {
        t["id"]: children[r["config"]["configurable"]["checkpoint_id"]] or 1
        for r in history
        for t in r["tasks"]
        if t["error"]
    }
    fails = [(i, e) for i, e in enumerate(run.events) if e.kind == "fail"]
    assert sorted(e.observation.data["task_id"] for _, e in fails) == sorted(
        t for t, times in failed.items() for _ in range(times)
    )
    for i, e in enumerate(run.events):
        if e.step is not None and e.kind in ("start", "complete", "fail", "wait", "retry"):
            assert e.step in run.plan_at(i).ids, (i, e.kind, e.step, e.plan_version)
    # a failure at a checkpoint with a child was resumed there: its step's next event is a retry, then a
    # start; a failure where a branch ends stands: nothing of its step follows
    at = {
        t["id"]: r["config"]["configurable"]["checkpoint_id"] for r in history for t in r["tasks"]
    }
    for i, e in fails:
        after = [x.kind for x in run.events[i + 1 :] if x.step == e.step]
        resumed = children[at[e.observation.data["task_id"]]] > 0
        assert after[:2] == ["retry", "start"] if resumed else not after, (i, e.step, after)
    path = tmp_path / "own.jsonl"
    planviz.save_trace(run, path)
    assert planviz.load_trace(path) == run


def test_a_task_failing_where_an_abandoned_branch_ends_fails_there_and_reads_back(tmp_path):
    """The repro: lg_forks_quadratic forking every 6th checkpoint from the one 4 back, a task failing at every
    checkpoint k with k % 11 == 5. The task of c00000005 (a branch's end: c00000006 forks from c00000002)
    failed on that branch: its start and failure are events of the plan version holding that checkpoint,
    before the fork voids it (main played them after the fork, in plan v2, and then refused its own trace:
    "step 'n39#2' is not in plan version 7")."""
    history = _forked(60)
    for k, r in enumerate(history):
        if k and k % 6 == 0 and k >= 4:
            r["parent_config"]["configurable"]["checkpoint_id"] = f"c{k - 4:08d}"
        elif k:
            r["parent_config"]["configurable"]["checkpoint_id"] = f"c{k - 1:08d}"
        r["tasks"][0]["error"] = "boom" if k % 11 == 5 else None
    run = planviz.parse_trace(json.dumps(history), format="langgraph")
    fails = {e.observation.data["task_id"]: i for i, e in enumerate(run.events) if e.kind == "fail"}
    i = fails["t5"]
    holder = next(  # the version whose step ends at c00000005 (the node run from c00000004)
        e.plan_version
        for e in run.events
        if e.kind == "complete" and e.observation.data["checkpoint"] == "c00000005"
    )
    assert run.events[i].plan_version == holder == 1
    assert run.events[i].step in run.plans[0].ids
    voided = next(e for e in run.events if e.kind == "invalidate")
    assert voided.index > i and run.events[i].step in voided.voided
    planviz.save_trace(run, tmp_path / "own.jsonl")
    assert planviz.load_trace(tmp_path / "own.jsonl") == run


# -- item 5 of issue 42: forked LangGraph histories -----------------------------------------------------------


def _forked(n: int) -> list:
    """The repro lg_forks_quadratic: a chain of ``n`` checkpoints where every 10th forks from the one 5 back."""
    from datetime import datetime, timezone

    def snap(k, parent):
        r = {
            "values": {"x": k},
            "next": [f"n{(k + 1) % 50}"],
            "config": {"configurable": {"thread_id": "t", "checkpoint_id": f"c{k:08d}"}},
            "metadata": {"source": "loop", "step": k},
            "created_at": datetime.fromtimestamp(
                1_700_000_000 + k / 1000, timezone.utc
            ).isoformat(),
            "tasks": [{"id": f"t{k}", "name": f"n{(k + 1) % 50}", "error": None, "interrupts": []}],
        }
        if parent is not None:
            r["parent_config"] = {
                "configurable": {"thread_id": "t", "checkpoint_id": f"c{parent:08d}"}
            }
        return r

    return [
        snap(k, None if k == 0 else (k - 5 if k % 10 == 0 and k >= 5 else k - 1)) for k in range(n)
    ]


def test_a_history_forking_every_ten_checkpoints_builds_each_step_once(monkeypatch):
    from planviz.traces.langgraph import langgraphversions

    built = []
    real = langgraphversions.Step
    monkeypatch.setattr(
        langgraphversions, "Step", lambda *a, **k: built.append(a[0]) or real(*a, **k)
    )

    def work(n: int) -> tuple[int, int, int]:
        built.clear()
        history = _forked(n)
        run = planviz.parse_trace(json.dumps(history), format="langgraph")
        # from the raw parents: a later child each
        forks = sum(1 for k in range(1, n) if k % 10 == 0 and k >= 5)
        assert len(run.plans) == forks + 1
        return len(built), len(run.plans), len(run.events)

    small, big = work(200), work(800)
    assert big[2] <= 4.5 * small[2]
    # a Step per node run (and per changed edge), not per version
    assert big[0] <= 4.5 * small[0], (
        small,
        big,
    )


# -- item 8 of issue 42: readers whose work grows faster than their input fail a test ---------------------------


def _work(read) -> tuple[int, int]:
    """The work ``read()`` does: Python function calls made (a profile hook counts them) and the items handed to
    ``sorted`` (a ``sorted(ids)`` per event is one call each, but n items each)."""
    import builtins

    calls, items = [0], [0]
    real = builtins.sorted

    def counted(iterable, *args, **kwargs):
        seq = list(iterable)
        items[0] += len(seq)
        return real(seq, *args, **kwargs)

    def profile(frame, event, arg):
        if event == "call":
            calls[0] += 1

    builtins.sorted = counted
    sys.setprofile(profile)
    try:
        read()
    finally:
        sys.setprofile(None)
        builtins.sorted = real
    return calls[0], items[0]


def _linear(small: tuple[int, int], big: tuple[int, int], factor: float = 5.0) -> None:
    assert big[0] <= factor * small[0], f"function calls {small[0]:,} -> {big[0]:,} at 4x the input"
    assert big[1] <= factor * max(small[1], 1), (
        f"items sorted {small[1]:,} -> {big[1]:,} at 4x the input"
    )


def _chain_plan(n: int):
    return planviz.Plan(
        "g",
        [
            planviz.Step(
                f"S{i}",
                "a",
                expected_evidence="e",
                produces=[f"f{i}"],
                depends_on=[f"S{i - 1}"] if i else [],
            )
            for i in range(n)
        ],
    )


def test_planvizs_own_trace_reader_does_linear_work(tmp_path):
    def trace(n: int):
        path = tmp_path / f"{n}.jsonl"
        planviz.save_trace(planviz.simulate(_chain_plan(n)), path)
        events = sum(
            1 for line in path.read_text().splitlines() if json.loads(line)["type"] == "event"
        )
        assert events >= 2 * n  # the raw file: a start and a completion per step
        return path

    small, big = trace(300), trace(1200)
    _linear(_work(lambda: planviz.load_trace(small)), _work(lambda: planviz.load_trace(big)))


def test_the_langgraph_history_reader_does_linear_work():
    small, big = _chain(300, back_at=300), _chain(1200, back_at=1200)  # clocks that never go back
    assert len(planviz.load_trace(big).plan.steps) == 1199
    _linear(_work(lambda: planviz.load_trace(small)), _work(lambda: planviz.load_trace(big)))


def test_a_history_forking_every_ten_checkpoints_is_read_in_linear_work():
    """lg_forks_quadratic: each fork's plan version is its fork point's prefix of an earlier version, copied
    whole, and the steps its own branch ran; the work counted (Python calls, items sorted) grows 4x at 4x the
    forks (it grew 7.5x: every version rebuilt from the whole path, each step looked at per version)."""

    def read(n: int):
        text = json.dumps(_forked(n))
        # from the raw parents: a later child each
        forks = sum(1 for k in range(1, n) if k % 10 == 0 and k >= 5)
        assert len(planviz.parse_trace(text, format="langgraph").plans) == forks + 1
        return lambda: planviz.parse_trace(text, format="langgraph")

    _linear(_work(read(400)), _work(read(1600)))


# -- item 7 of issue 42, continued: a forked history read in linear work and memory, and read the same -------------


def _forking(n: int, seed: int) -> list:
    """A chain of ``n`` checkpoints where about one in eight forks from 2 to 12 checkpoints back, onto the
    branch it is on (time travel to a checkpoint of the current run; seeded)."""
    import random

    rnd, history, start = random.Random(seed), _forked(n), 0
    for k in range(1, n):
        back = rnd.randint(2, min(k - start, 12)) if k - start > 2 and rnd.random() < 0.12 else 1
        start = k if back > 1 else start
        history[k]["parent_config"] = {
            "configurable": {"thread_id": "t", "checkpoint_id": f"c{k - back:08d}"}
        }
    return history


def _parents(history: list) -> list[int | None]:
    """Each checkpoint's parent, by its place in the list, read from the raw configs."""
    place = {r["config"]["configurable"]["checkpoint_id"]: i for i, r in enumerate(history)}
    return [
        place[r["parent_config"]["configurable"]["checkpoint_id"]] if "parent_config" in r else None
        for r in history
    ]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_each_fork_of_a_seeded_history_lists_what_the_raw_parents_say(seed):
    """Each fork (a checkpoint whose parent is not the one before it) is an invalidate and a replan: the steps
    on the path to the fork point are kept and done, the abandoned branch's are voided, the new branch's first
    step is ready and its others pending: counted from the raw parents (a step ends at every checkpoint but
    the first), whatever the reader shares between versions."""
    from collections import Counter

    history = _forking(300, seed)
    parent = _parents(history)
    depth = [0] * len(history)
    for k in range(1, len(history)):
        depth[k] = depth[parent[k]] + 1
    forks = [k for k in range(1, len(history)) if parent[k] != k - 1]
    ends = forks[1:] + [len(history)]  # a branch runs on to the checkpoint before the next fork
    run = planviz.parse_trace(json.dumps(history), format="langgraph")
    replans = [e for e in run.events if e.kind == "replan"]
    voids = [e for e in run.events if e.kind == "invalidate"]
    assert len(replans) == len(forks) == len(run.plans) - 1
    for k, end, replan, void, plan in zip(forks, ends, replans, voids, run.plans[1:]):
        p, chain = parent[k], end - k
        expected = {"done": depth[p], "ready": 1, "pending": chain - 1}
        assert Counter(replan.changes.values()) == Counter(
            {s: c for s, c in expected.items() if c}
        ), k
        assert len(plan.steps) == depth[p] + chain
        assert len(void.kept) == depth[p] and len(void.voided) == depth[k - 1] - depth[p], k


@pytest.mark.parametrize("seed", [0, 5])
def test_a_forked_history_reads_the_same_with_each_version_grown_from_the_last(
    seed, monkeypatch, tmp_path
):
    """The run machine grows a fork's version's index from the last version's (runs/engine/shape.Shape); with
    every version's index built whole instead, the trace saved is the same, byte for byte."""
    from planviz.structure import growing as index

    text = json.dumps(_forking(400, seed))
    grown = tmp_path / "grown.jsonl"
    planviz.save_trace(planviz.parse_trace(text, format="langgraph"), grown)
    made = []
    real = index.GrowingIndex.grow.__func__
    monkeypatch.setattr(
        index.GrowingIndex, "grow", classmethod(lambda cls, *a: made.append(real(cls, *a)) and None)
    )
    whole = tmp_path / "whole.jsonl"
    planviz.save_trace(planviz.parse_trace(text, format="langgraph"), whole)
    assert made and all(ix is not None for ix in made)  # every fork's version could grow
    assert grown.read_bytes() == whole.read_bytes()


def test_a_history_forking_every_ten_checkpoints_holds_what_it_changed_not_every_version_whole():
    """lg_forks_quadratic in what the run holds (issue 42, "What to build" 8): each fork's version is the path to
    its fork point and its own branch, so the versions listed whole hold about n²/40 step places, and so do
    their first events' statuses. Counted at 4x the checkpoints: the memory the run holds after the read
    (traced, not timed), the step places its plan versions hold made and the statuses its events hold in
    tables: each grows 4x, not 16x (main before: 8.2x memory, 14.4x step places and statuses)."""
    import gc
    import tracemalloc

    def held(n: int) -> tuple[int, int]:
        text = json.dumps(_forked(n))
        gc.collect()
        tracemalloc.start()
        try:
            run = planviz.parse_trace(text, format="langgraph")
            gc.collect()
            memory = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        assert len(run.plans) == sum(1 for k in range(1, n) if k % 10 == 0) + 1
        places = sum(len(vars(p)["steps"]) for p in run.plans if "steps" in vars(p))
        places += sum(len(e.changes) for e in run.events if type(e.changes) is dict)
        return memory, places

    held(100)  # imports and caches made once
    small, big = held(500), held(2000)
    assert big[0] <= 4.6 * small[0], f"memory held {small[0]:,} -> {big[0]:,} bytes at 4x"
    assert big[1] <= 4.6 * small[1], (
        f"step places and statuses held {small[1]:,} -> {big[1]:,} at 4x"
    )


@contextmanager
def _machine_lines(*names: str) -> Iterator[list[int]]:
    """Count the Python lines (a trace hook on each line, a comprehension's too) run inside the named methods
    of the run machine while the block runs; the count is the list's one item."""
    from planviz.runs.engine.machine import Machine

    count = [0]

    def tracer(frame, event, arg):
        count[0] += 1
        return tracer

    def counted(fn):
        def run(self, *args, **kwargs):
            before = sys.gettrace()
            sys.settrace(tracer)
            try:
                return fn(self, *args, **kwargs)
            finally:
                sys.settrace(before)

        return run

    real = {name: getattr(Machine, name) for name in names}
    try:
        for name, fn in real.items():
            setattr(Machine, name, counted(fn))
        yield count
    finally:
        for name, fn in real.items():
            setattr(Machine, name, fn)


def test_a_fork_costs_its_own_branch_whatever_the_path_to_it():
    """The Python lines the run machine runs for each fork (its invalidation of the abandoned branch, its new
    plan version and that version's first event; a trace hook counts each line, a comprehension's too) stay
    the same at 4x the checkpoints, though the path to each fork point is 4x as long: a fork re-derives the
    steps not done and those voided, not every step of its version (runs/engine/growth.py). Main copied
    each version's statuses in C, which the memory test above counts; this one catches a Python loop over a
    version's steps (a mutation scanning them per fork: 1.55x)."""

    def per_fork(n: int) -> float:
        with _machine_lines("replan", "invalidate", "kept") as count:
            run = planviz.parse_trace(json.dumps(_forked(n)), format="langgraph")
        forks = sum(1 for k in range(1, n) if k % 10 == 0)  # from the raw parents
        assert len(run.plans) == forks + 1
        return count[0] / forks

    small, big = per_fork(400), per_fork(1600)
    assert big <= 1.3 * small, f"lines run per fork {small:.0f} -> {big:.0f} at 4x the checkpoints"


@pytest.mark.parametrize("seed", [None, 0, 3, "other branch"])
def test_versions_stored_as_their_changes_read_as_versions_made_whole(seed, monkeypatch, tmp_path):
    """Each fork's version is stored as what it changes (plan/grown.grown_plan) and its statuses as changes
    (runs/statuslog); made whole instead (grown_plan making every version's steps at once, the machine then
    indexing and listing every version whole), the run reads the same: every plan version's steps, every
    event, every frame, and the trace saved, byte for byte. "other branch": every 6th checkpoint forks from
    the one 8 back, which lies on the branch before the current one (the two paths part near the start)."""
    from planviz.plan.grown import grown_plan
    from planviz.traces.langgraph import langgraphversions

    if seed == "other branch":
        history = _forked(200)
        for k in range(8, 200, 6):
            history[k]["parent_config"]["configurable"]["checkpoint_id"] = f"c{k - 8:08d}"
    else:
        history = _forked(230) if seed is None else _forking(300, seed)
    text = json.dumps(history)

    def read(name: str):
        run = planviz.parse_trace(text, format="langgraph")
        stored = sum("steps" not in vars(p) for p in run.plans)  # versions stored as their changes
        frames = [run.frame(i) for i in range(len(run.events))]
        path = tmp_path / f"{name}.jsonl"
        planviz.save_trace(run, path)
        return run, path.read_bytes(), frames, stored

    grown, grown_bytes, grown_frames, stored = read("grown")
    # every fork's version but the first few (a version sharing less than half its steps with the last is made
    # whole, as the machine indexes it whole), until read; onto another branch, the machine makes each whole
    assert stored >= (0 if seed == "other branch" else 0.8) * (len(grown.plans) - 1)
    monkeypatch.setattr(
        langgraphversions,
        "grown_plan",
        lambda *a, **k: grown_plan(*a, **k).replace(),  # replace(): made whole
    )
    whole, whole_bytes, whole_frames, stored = read("whole")
    assert stored == 0 and all("_grown" not in vars(p) for p in whole.plans)
    assert [p.steps for p in grown.plans] == [p.steps for p in whole.plans]
    assert grown.plans == whole.plans and grown.events == whole.events
    assert [dict(e.changes) for e in grown.events] == [dict(e.changes) for e in whole.events]
    assert [list(e.changes) for e in grown.events] == [list(e.changes) for e in whole.events]
    assert grown_frames == whole_frames
    assert [dict(f.statuses) for f in grown_frames] == [dict(f.statuses) for f in whole_frames]
    assert grown.deltas() == whole.deltas() and grown.statuses_seen() == whole.statuses_seen()
    assert grown_bytes == whole_bytes


def test_a_history_forking_every_ten_checkpoints_keeps_no_index_per_version():
    """lg_forks_quadratic in memory: what the structure index holds after the read grows 4x at 4x the forks
    (it held a whole index per plan version, each as long as its version: 16x)."""
    import gc
    import tracemalloc

    def held(n: int) -> int:
        text = json.dumps(_forked(n))
        gc.collect()
        tracemalloc.start()
        try:
            run = planviz.parse_trace(text, format="langgraph")
            assert len(run.plans) == sum(1 for k in range(1, n) if k % 10 == 0) + 1
            snapshot = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
        mine = [tracemalloc.Filter(True, "*planviz/structure/index.py")]
        return sum(s.size for s in snapshot.filter_traces(mine).statistics("filename"))

    small, big = held(400), held(1600)
    assert big <= 4.5 * small, (small, big)


def test_a_history_forking_every_ten_checkpoints_runs_linear_python_lines():
    """Stricter than the calls counted above: the Python lines run (a trace hook counts each, so a loop over
    every step of every version counts, in a comprehension too) grow under 4.5x at 4x the forks (3.7x; they
    grew 5.2x while each version's index, reachable set and status table were made over all its steps)."""

    def lines(n: int) -> int:
        text = json.dumps(_forked(n))
        count = [0]

        def tracer(frame, event, arg):
            count[0] += 1
            return tracer

        sys.settrace(tracer)
        try:
            run = planviz.parse_trace(text, format="langgraph")
        finally:
            sys.settrace(None)
        assert len(run.plans) == sum(1 for k in range(1, n) if k % 10 == 0) + 1
        return count[0]

    small, big = lines(200), lines(800)
    assert big <= 4.5 * small, f"Python lines run {small:,} -> {big:,} at 4x the checkpoints"


# -- item 5 of issue 42: forks onto an earlier, abandoned branch -------------------------------------------------


def _forked_back(n: int, period: int, back: int) -> list:
    """A chain of ``n`` checkpoints where every ``period``-th forks from the one ``back`` checkpoints back: past
    the start of the branch it is on when ``back`` > ``period``, so onto a branch an earlier fork abandoned."""
    history = _forked(n)
    for k in range(1, n):
        parent = k - back if k % period == 0 and k >= back else k - 1
        history[k]["parent_config"]["configurable"]["checkpoint_id"] = f"c{parent:08d}"
    return history


@pytest.mark.parametrize("period, back", [(6, 8), (4, 10), (5, 9), (10, 5)])
def test_a_fork_onto_an_abandoned_branch_takes_back_the_work_on_the_path_to_its_fork_point(
    period, back
):
    """A fork from a checkpoint of an earlier, abandoned branch starts from that checkpoint's state: the node
    runs on the path to it ran, so the new version shows them done (main showed those after the point where
    the two paths part ready and pending, never to run again, while the new branch ran after them); the
    invalidation voids the current path after that point and keeps what lies before it. Counted from the raw
    parents: depths, the point where the paths part (their deepest common checkpoint), each branch's length."""
    from collections import Counter

    history = _forked_back(300, period, back)
    parent = _parents(history)
    depth = [0] * len(history)
    for k in range(1, len(history)):
        depth[k] = depth[parent[k]] + 1

    def path(k: int) -> set[int]:
        on = set()
        while k is not None:
            on.add(k)
            k = parent[k]
        return on

    forks = [k for k in range(1, len(history)) if parent[k] != k - 1]
    ends = forks[1:] + [len(history)]
    run = planviz.parse_trace(json.dumps(history), format="langgraph")
    replans = [e for e in run.events if e.kind == "replan"]
    voids = [e for e in run.events if e.kind == "invalidate"]
    assert len(replans) == len(forks) == len(voids) == len(run.plans) - 1
    earlier = 0
    for k, end, replan, void, plan in zip(forks, ends, replans, voids, run.plans[1:]):
        p, chain = parent[k], end - k
        part = max(path(k - 1) & path(p), key=depth.__getitem__)  # where the two paths part
        earlier += part != p
        expected = {"done": depth[p], "ready": 1, "pending": chain - 1}
        assert Counter(replan.changes.values()) == +Counter(expected), (k, p, part)
        assert len(plan.steps) == depth[p] + chain
        assert len(void.kept) == depth[part] and len(void.voided) == depth[k - 1] - depth[part], k
        assert len(replan.kept) == depth[p] - depth[part], k  # the work taken back
    assert earlier == (
        len(forks) - 1 if back > period else 0
    )  # the first fork's branch is the chain's
    last = run.frame(len(run.events) - 1)
    assert set(last.statuses.values()) == {"done"}  # every node run on the head's path ran
    assert run.state.completed >= set(run.plans[-1].ids)


def test_a_fork_onto_an_earlier_branch_voids_it_in_work_that_does_not_grow_with_the_path():
    """Every 6th checkpoint forks from the one 8 back, onto the branch before the current one: the two paths
    part near the start, so each fork voids the whole current path (about n/2 steps, counted below from the
    events) and takes back the other. The Python lines its invalidation runs (Machine.invalidate and kept, with
    the statuses its event lists; a trace hook counts each line) stay the same per fork at 4x the checkpoints
    (main: 3,262 -> 12,261 per fork, a Python test per voided step in began, the never list and the status of
    each voided step derived one by one; now 221 -> 221, in set operations and a C filter)."""

    def per_fork(n: int) -> tuple[float, float]:
        with _machine_lines("invalidate", "kept") as count:
            run = planviz.parse_trace(json.dumps(_forked_back(n, 6, 8)), format="langgraph")
        forks = sum(1 for k in range(8, n) if k % 6 == 0)  # from the raw parents
        voids = [e for e in run.events if e.kind == "invalidate"]
        assert len(voids) == forks == len(run.plans) - 1
        return count[0] / forks, sum(len(e.voided) for e in voids) / forks

    (small, scope), (big, wide) = per_fork(400), per_fork(1600)
    assert wide >= 3.5 * scope  # each fork voids about 4x as many steps
    assert big <= 1.3 * small, f"lines run per fork {small:.0f} -> {big:.0f} at 4x the checkpoints"
