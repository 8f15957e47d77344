"""save_trace, load_trace, parse_trace: JSON Lines traces (round trip, truncation, errors) and the Recorder."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planviz import (
    Contract,
    Fault,
    Observation,
    Plan,
    Recorder,
    SimulationError,
    Step,
    ToolSpec,
    load_trace,
    load_traces,
    parse_trace,
    save_trace,
    simulate,
)
from planviz.errors import TraceFormatError
from planviz.traces.own.tracefile import SCHEMA, SCHEMA_VERSION, run_to_lines
from tests.strategies import plans as random_plans, plans_and_faults as random_plans_and_faults

FAULTS = [
    "",
    "S4:side_effect",
    "S3:withdraw",
    "S1:transientx2",
    "S2:goal_change",
    "S1:premise_false",
    "S3:extra_fact:not key_builder_located",
    "S4:side_effectx3",
    "S1:missing_evidence",
]


@pytest.mark.corpus
@pytest.mark.parametrize(
    "folder, fmt",
    [
        ("otel", "otel"),
        ("openinference", "openinference"),
        ("langfuse", "langfuse"),
        ("otel-js", "otel-js"),
        ("langgraph", "langgraph"),
        ("langgraph/sqlite", "langgraph-sqlite"),
    ],
)
def test_another_tool_s_trace_saves_and_loads_back_equal(corpus, tmp_path, folder, fmt):
    paths = [p for p in sorted((corpus / folder).iterdir()) if p.suffix in (".json", ".db")]
    checked = 0
    for path in paths:
        if fmt == "langgraph-sqlite":
            con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
            threads = sorted(
                t for (t,) in con.execute("SELECT DISTINCT thread_id FROM checkpoints")
            )
            con.close()
        runs = load_traces(path)
        for run in runs:
            assert run.trace_format == fmt, path.name
            save_trace(run, tmp_path / "run.jsonl")
            again = load_trace(tmp_path / "run.jsonl")
            # the plan's name (a LangGraph thread) and where it came from too
            assert again == run, path.name
            assert [p.name for p in again.plans] == [p.name for p in run.plans]
            checked += 1
        if fmt == "langgraph-sqlite":  # each run names its thread, as the database does
            assert sorted(r.plans[0].name for r in runs) == [f"thread {t}" for t in threads]
    assert checked >= len(paths) >= 1


def test_an_imported_plan_s_run_keeps_where_the_plan_came_from(tmp_path, cache_plan):
    plan = cache_plan.replace(name="record 17", source_format="worfbench")
    save_trace(simulate(plan), tmp_path / "run.jsonl")
    loaded = load_trace(tmp_path / "run.jsonl")
    assert (loaded.plan.name, loaded.plan.source_format, loaded.trace_format) == (
        "record 17",
        "worfbench",
        None,
    )


@pytest.mark.parametrize("strategy", ["direct", "workflow", "planner"])
@pytest.mark.parametrize("fault", FAULTS)
def test_round_trip(tmp_path, cache_plan, strategy, fault):
    run = simulate(cache_plan, faults=[Fault.parse(fault)] if fault else [], strategy=strategy)
    path = tmp_path / "run.jsonl"
    save_trace(run, path)
    loaded = load_trace(path)
    assert loaded == run
    assert [p.version for p in loaded.plans] == [p.version for p in run.plans]
    assert all(
        a.parent is None if i == 0 else a.parent is loaded.plans[i - 1]
        for i, a in enumerate(loaded.plans)
    )
    assert loaded.contract == cache_plan.contract and loaded.strategy == strategy


def test_the_file_is_a_header_then_one_record_per_line(tmp_path, cache_plan):
    run = simulate(cache_plan, faults=[Fault("S4", "side_effect")])
    path = tmp_path / "run.jsonl"
    save_trace(run, path)
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert records[0]["type"] == "header"
    assert (records[0]["schema"], records[0]["version"]) == (SCHEMA, SCHEMA_VERSION)
    assert records[0]["faults"] == [{"step": "S4", "kind": "side_effect", "fact": None, "times": 1}]
    types = [r["type"] for r in records[1:]]
    assert types.count("event") == len(run.events) and types.count("plan") == 2
    # each plan version is written just before the first event that shows it
    replan_at = next(
        i for i, r in enumerate(records) if r["type"] == "event" and r["event"]["kind"] == "replan"
    )
    assert (
        records[replan_at - 1]["type"] == "plan" and records[replan_at - 1]["plan"]["version"] == 2
    )
    assert records[replan_at - 1]["plan"]["parent_ref"] == 0


def test_a_truncated_trace_loads_up_to_its_last_whole_event(tmp_path, cache_plan):
    run = simulate(cache_plan, faults=[Fault("S4", "side_effect")])
    text = "".join(run_to_lines(run))
    lines = text.splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:-3]) + lines[-3][: len(lines[-3]) // 2], encoding="utf-8")
    loaded = load_trace(cut)
    whole_events = sum(1 for line in lines[:-3] if '"type":"event"' in line)
    assert loaded.events == run.events[:whole_events]
    assert loaded.outcome is None and loaded.state.outcome is None
    assert loaded.plans == run.plans
    cut.write_text("".join(lines[:-1]), encoding="utf-8")  # cut exactly at a line end
    assert load_trace(cut).events == run.events[:-1]


def _bad(lines: list[str], n: int, text: str) -> list[str]:
    out = list(lines)
    out[n - 1] = text + "\n"
    return out


def _event_line(lines, n, **changes):
    record = json.loads(lines[n - 1])
    record["event"].update(changes)
    for key in [k for k, v in changes.items() if v is ...]:
        del record["event"][key]
    return json.dumps(record)


_HEADER = lambda ls, **kw: json.dumps({**json.loads(ls[0]), **kw})  # noqa: E731


def _plan_line(lines, **changes):
    record = json.loads(lines[1])
    record["plan"].update(changes)
    return json.dumps(record)


@pytest.mark.parametrize(
    "edit, line, match",
    [
        (lambda ls: _bad(ls, 4, "{not json"), 4, "not a JSON object"),
        (lambda ls: _bad(ls, 4, "[1, 2]"), 4, r"record: expected an object, got \[1, 2\]"),
        (lambda ls: _bad(ls, 1, '{"type": "event"}'), 1, "expected a trace header"),
        (
            lambda ls: _bad(ls, 1, _HEADER(ls, version=99)),
            1,
            "header.version: trace schema version 99 is not supported; this planviz reads versions 1, 2 and 3",
        ),
        (
            lambda ls: _bad(ls, 1, _HEADER(ls, version=True)),
            1,
            "header.version: trace schema version True",
        ),
        (lambda ls: _bad(ls, 1, _HEADER(ls, extra=1)), 1, "header.extra: unknown field"),
        (
            lambda ls: _bad(ls, 1, _HEADER(ls, strategy=3)),
            1,
            "header.strategy: expected one of direct",
        ),
        (
            lambda ls: _bad(ls, 1, _HEADER(ls, faults=5)),
            1,
            "header.faults: expected a list of faults, got 5",
        ),
        (
            lambda ls: _bad(ls, 1, _HEADER(ls, faults=[{"step": ["S1"], "kind": "transient"}])),
            1,
            r"header.faults\[0\].step: expected a string, got \['S1'\]",
        ),
        (
            lambda ls: _bad(
                ls, 1, _HEADER(ls, faults=[{"step": "S1", "kind": "transient", "times": 0}])
            ),
            1,
            r"header.faults\[0\].times: expected an integer >= 1, got 0",
        ),
        (
            lambda ls: _bad(ls, 1, _HEADER(ls, contract=[1])),
            1,
            r"header.contract: expected an object, got \[1\]",
        ),
        (
            lambda ls: _bad(ls, 1, _HEADER(ls, trace_format="planviz")),
            1,
            "header.trace_format: expected one of otel, openinference, phoenix, mlflow, otel-js, otlp-proto, "
            "langfuse, langgraph, langgraph-sqlite, got",
        ),
        (
            lambda ls: _bad(ls, 1, _HEADER(ls, trace_format=["otel"])),
            1,
            "header.trace_format: expected one of otel",
        ),
        (lambda ls: _bad(ls, 2, _plan_line(ls, name=7)), 2, "plan.name: expected a string, got 7"),
        (
            lambda ls: _bad(ls, 2, _plan_line(ls, source_format=None)),
            2,
            "plan.source_format: expected a string, got None",
        ),
        (
            lambda ls: _bad(ls, 1, _HEADER(ls, contract={"intent": "delete"})),
            1,
            "header.contract.intent: expected one of",
        ),
        (
            lambda ls: _bad(ls, 4, '{"type": "frame"}'),
            4,
            "type: expected 'plan', 'event', 'model_call' or 'turn', got 'frame'",
        ),
        (
            lambda ls: _bad(ls, 4, '{"type": "event", "event": {}, "more": 1}'),
            4,
            "more: unknown field of an? event",
        ),
        (lambda ls: _bad(ls, 4, _event_line(ls, 4, kind=...)), 4, "event.kind: missing"),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, colour="red")),
            4,
            "event.colour: unknown field; expected one of",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, index=7)),
            4,
            "event.index: events out of order: expected 1, got 7",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, plan_version=5)),
            4,
            "event.plan_version: plan version 5",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, time="soon")),
            4,
            "event.time: expected a finite number, got 'soon'",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, time=True)),
            4,
            "event.time: expected a finite number, got True",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, time=float("inf"))),
            4,
            "event.time: expected a finite number, got Infinity",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, time=float("nan"))),
            4,
            "event.time: expected a finite number, got NaN",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, time=10**400)),
            4,
            "event.time: expected a finite number, got an integer of 401 digits",
        ),
        (
            lambda ls: _bad(ls, 4, re.sub(r'"time": [^,]+', '"time": 1e400', _event_line(ls, 4))),
            4,
            "event.time: expected a finite number, got inf",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, step=3)),
            4,
            "event.step: expected a string, got 3",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, step=["S0"])),
            4,
            r"event.step: expected a string, got \['S0'\]",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, message=None)),
            4,
            "event.message: expected a string, got None",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, changes=["S0"])),
            4,
            r"event.changes: expected an object",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, kind="explode")),
            4,
            "event.kind: expected one of propose",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, changes={"S0": "exploded"})),
            4,
            r"event.changes\['S0'\]: expected one of pending, ready",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, changes={"S9": "done"})),
            4,
            "event: event 1 changes the status of 'S9', which the snapshot of plan version 1",
        ),
        (
            lambda ls: _bad(
                ls, 4, _event_line(ls, 4, gained=["the service uses the level-1 cache"])
            ),
            4,
            "event: event 1 gains the fact 'the service uses the level-1 cache', which is already held",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, lost=["nothing held"])),
            4,
            "loses the fact 'nothing held', which is not held",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, outcome="won")),
            4,
            "event.outcome: expected one of",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, gained="abc")),
            4,
            "event.gained: expected a list of strings, got 'abc'",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, voided=[1])),
            4,
            r"event.voided\[0\]: expected a string, got 1",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, attempt=-1)),
            4,
            "event.attempt: expected an integer >= 0, got -1",
        ),
        (
            lambda ls: _bad(ls, 4, '{"type": "event", "event": [1]}'),
            4,
            r"event: expected an object, got \[1\]",
        ),
        (
            lambda ls: _bad(ls, 2, '{"type": "plan", "plan": null}'),
            2,
            "plan: expected an object, got None",
        ),
        (
            lambda ls: _bad(ls, 2, _plan_line(ls, steps=[{"id": 3, "action": "a"}])),
            2,
            r"plan.steps\[0\].id: step ids are strings",
        ),
        (
            lambda ls: _bad(ls, 2, _plan_line(ls, parent_ref=4)),
            2,
            "plan.parent_ref: 4 names no earlier plan record",
        ),
        (
            lambda ls: _bad(
                ls,
                2,
                _plan_line(
                    ls,
                    import_findings=[
                        {
                            "code": "c",
                            "layer": "import",
                            "severity": "warning",
                            "message": "m",
                            "steps": [{"id": "S1"}],
                        }
                    ],
                ),
            ),
            2,
            r"plan.import_findings\[0\].steps\[0\]: expected a string, got \{'id': 'S1'\}",
        ),
        (
            lambda ls: _bad(
                ls,
                2,
                _plan_line(
                    ls,
                    import_findings=[
                        {"code": "c", "layer": "import", "severity": "fatal", "message": "m"}
                    ],
                ),
            ),
            2,
            r"plan.import_findings\[0\].severity: expected one of",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, observation=[1])),
            4,
            r"event.observation: expected an object",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, observation={"ok": "yes"})),
            4,
            "event.observation.ok: expected true or false",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, conflict="c")),
            4,
            "event.conflict: expected an object, got 'c'",
        ),
        (
            lambda ls: _bad(ls, 4, _event_line(ls, 4, conflict={"fact": "f"})),
            4,
            "event.conflict.source: missing",
        ),
    ],
)
def test_a_bad_trace_says_which_line_and_why(tmp_path, cache_plan, edit, line, match):
    lines = list(run_to_lines(simulate(cache_plan)))
    path = tmp_path / "bad.jsonl"
    path.write_text(
        "".join(s if s.endswith("\n") else s + "\n" for s in edit(lines)), encoding="utf-8"
    )
    with pytest.raises(TraceFormatError, match=match) as info:
        load_trace(path)
    assert (
        info.value.line == line and str(path) in str(info.value) and f":{line}:" in str(info.value)
    )


def test_an_empty_trace_is_an_error(tmp_path):
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(TraceFormatError, match="empty trace"):
        load_trace(tmp_path / "empty.jsonl")


def test_contract_tools_and_step_arguments_survive(tmp_path):
    plan = Plan(
        "g",
        [
            Step("step_0", "log in", expected_evidence="e", tool="auth", produces="session"),
            Step(
                "step_1",
                "lookup",
                expected_evidence="e",
                tool="search",
                arguments={"q": "x", "n": [1, 2]},
                depends_on="step_0",
                produces="r",
            ),
            Step(
                "step_2",
                "use",
                expected_evidence="e",
                depends_on="step_1",
                requires="r",
                arguments={"v": "{{step_1.r}}"},
                produces="done",
                effect="read",
                kind="use",
            ),
        ],
        time_unit="s",
        unknowns=["u"],
    )
    contract = Contract(
        tools={"search": ToolSpec(writes=False, preconditions=["auth"]), "auth": ToolSpec()},
        intent="read",
        obtainable_facts=["session", "r", "done"],
        given_facts=["g0"],
    )
    new_goal = Contract(
        tools=contract.tools, obtainable_facts=["r", "done"], required=["step_0", "use"]
    )
    run = simulate(
        plan, contract, faults=[Fault("step_2", "goal_change", goal="g2", contract=new_goal)]
    )
    save_trace(run, tmp_path / "t.jsonl")
    loaded = load_trace(tmp_path / "t.jsonl")
    assert loaded == run and loaded.contract.tools["search"].preconditions == ("auth",)
    assert loaded.faults[0].contract == new_goal and loaded.faults[0].goal == "g2"
    assert [e.kind for e in loaded.events if e.kind in ("recheck", "replan")] == [
        "recheck",
        "recheck",
        "replan",
    ]
    # step_0 required, step_1's r wanted
    assert all(e.kept for e in loaded.events if e.kind == "recheck")
    assert loaded.plans[-1].goal == "g2" and loaded.plans[0].step("step_2").effect == "read"
    assert loaded.plans[-1].step("step_2.v2").arguments == {"v": "{{step_1.r}}"}


@st.composite
def random_runs(draw):
    plans = random_plans(
        max_steps=6, max_deps=2, durations=st.integers(0, 5), requires="all", kinds=True
    )
    plan, faults = draw(random_plans_and_faults(plans, max_faults=2))
    return simulate(
        plan,
        faults=faults,
        strategy=draw(st.sampled_from(["direct", "workflow", "planner"])),
        workers=draw(st.sampled_from([None, 1])),
    )


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(random_runs())
def test_random_runs_round_trip(tmp_path, run):
    path = tmp_path / "r.jsonl"
    save_trace(run, path)
    assert load_trace(path) == run


# --------------------------------------------------------------------------- recorder


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def fake_agent(rec: Recorder, clock: FakeClock, plan: Plan) -> None:
    """A small agent: reproduces, locates, hits a tool error, retries, patches, then finds its premise fact gone."""
    rec.propose(plan)
    rec.start("S0")
    clock.now = 5
    rec.complete("S0")
    rec.start("S1")
    clock.now = 7
    rec.fail("S1", "grep timed out", "transient")
    rec.retry("S1")
    rec.start("S1")
    clock.now = 12
    rec.observe(
        "S1",
        Observation(
            True, {"key_builder_located", "uses_l1"}, kind="ok", data={"file": "keys.py:42"}
        ),
    )
    rec.start("S2")
    clock.now = 15
    # the test was not written: evidence missing
    rec.observe("S2", Observation(True, set(), kind="ok"))
    rev = Plan(
        plan.goal,
        [
            *plan.steps[:2],
            Step(
                "S2b",
                "write the test again",
                expected_evidence="a failing test",
                depends_on="S0",
                produces="isolation_test_written",
            ),
            Step(
                "S3",
                "patch",
                expected_evidence="diff",
                depends_on=["S1", "S2b"],
                requires=["key_builder_located", "isolation_test_written"],
                produces="patched",
            ),
        ],
    )
    rec.replan(rev, "S2 produced no test")
    rec.start("S2b")
    clock.now = 18
    rec.complete("S2b")
    rec.start("S3")
    clock.now = 20
    rec.observe(
        "S3",
        Observation(
            False,
            withdrawn={"key_builder_located"},
            kind="precondition",
            data={"message": "the key is built elsewhere"},
        ),
    )
    rec.stop("blocked", "the agent gave up")


@pytest.fixture
def small_plan() -> Plan:
    return Plan(
        "fix the cache",
        [
            Step("S0", "reproduce", expected_evidence="failing test", produces="leak_reproduced"),
            Step(
                "S1",
                "locate",
                expected_evidence="file:line",
                depends_on="S0",
                requires="leak_reproduced",
                produces="key_builder_located",
            ),
            Step(
                "S2",
                "write the test",
                expected_evidence="a failing test",
                depends_on="S0",
                produces="isolation_test_written",
            ),
            Step(
                "S3",
                "patch",
                expected_evidence="diff",
                depends_on=["S1", "S2"],
                requires=["key_builder_located", "isolation_test_written"],
                produces="patched",
            ),
        ],
    )


def test_recorder_frames_a_real_failed_run(tmp_path, small_plan):
    clock = FakeClock()
    rec = Recorder(path=tmp_path / "live.jsonl", clock=clock)
    fake_agent(rec, clock, small_plan)
    run = rec.run
    assert run.strategy == "recorded" and run.outcome == "blocked"
    assert [e.kind for e in run.events] == [
        "propose",
        "start",
        "complete",
        "start",
        "fail",
        "retry",
        "start",
        "complete",
        "start",
        "fail",
        "replan",
        "start",
        "complete",
        "start",
        "fail",
        "withdraw",
        "stop",
    ]
    by_kind = {}
    for e in run.events:
        by_kind.setdefault(e.kind, []).append(e)
    assert by_kind["fail"][0].category == "transient" and by_kind["fail"][0].time == 7
    assert (
        by_kind["fail"][1].category == "evidence"
        and "isolation_test_written" in by_kind["fail"][1].message
    )
    frame = {kind: [run.frame(e.index) for e in events] for kind, events in by_kind.items()}
    assert frame["retry"][0].statuses["S1"] == "ready"
    assert "uses_l1" in frame["complete"][1].facts  # extra observed facts are kept
    replan = by_kind["replan"][0]
    assert (replan.plan_version, replan.voided) == (2, {"S2"})
    assert run.plans[1].parent is run.plans[0] and run.plans[1].trigger == "S2 produced no test"
    assert frame["replan"][0].statuses == {
        "S0": "done",
        "S1": "done",
        "S2b": "ready",
        "S3": "pending",
    }
    withdraw = frame["withdraw"][0]
    assert "key_builder_located" not in withdraw.facts and withdraw.statuses["S3"] == "failed"
    assert run.frame(-1).statuses == {"S0": "done", "S1": "done", "S2b": "done", "S3": "failed"}
    assert run.state.completed == {"S0", "S1", "S2b"} and run.state.observations[1][1].data == {
        "file": "keys.py:42"
    }
    # streamed as it happened, and saved on demand: both load back to the same run
    assert load_trace(tmp_path / "live.jsonl") == run
    rec.save(tmp_path / "saved.jsonl")
    assert load_trace(tmp_path / "saved.jsonl") == run


def test_a_crashed_recording_loads_up_to_its_last_event(tmp_path, small_plan):
    clock = FakeClock()
    path = tmp_path / "live.jsonl"
    rec = Recorder(path=path, clock=clock)
    rec.propose(small_plan)
    rec.start("S0")
    clock.now = 5
    rec.complete("S0")
    with open(path, "a", encoding="utf-8") as fh:  # the process died while writing the next line
        fh.write('{"type":"event","event":{"index":3,"ti')
    loaded = load_trace(path)
    assert loaded.events == rec.run.events and loaded.outcome is None
    assert loaded.frame(-1).statuses == {
        "S0": "done",
        "S1": "ready",
        "S2": "ready",
        "S3": "pending",
    }


def test_recorder_withdrawal_blocks_what_is_no_longer_reachable_and_voids_nothing_that_never_ran(
    small_plan,
):
    rec = Recorder(clock=lambda: 0.0)
    rec.propose(small_plan)
    for sid in ("S0", "S2"):
        rec.start(sid)
        rec.complete(sid)
    rec.start("S1")
    events = rec.observe(
        "S1", Observation(True, {"key_builder_located"}, withdrawn={"isolation_test_written"})
    )
    # S3 never started: it had no work to void
    assert [e.kind for e in events] == [
        "complete",
        "withdraw",
    ]
    assert rec.run.frame(-1).statuses["S3"] == "blocked" and not rec.run.frame(-1).voided
    # the recorded trace ends: S3 is still blocked, never voided
    rec.stop("step_failed", "the agent gave up")
    last = rec.run.frame(-1)
    assert (
        last.statuses["S3"] == "blocked"
        and not last.voided
        and not any(e.voided for e in rec.run.events)
    )


def test_recorder_frames_a_plan_with_a_dependency_on_a_missing_step():
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", produces="x"),
            Step("B", "b", expected_evidence="e", depends_on="ghost"),
            Step("C", "c", expected_evidence="e", depends_on="A", requires="x"),
        ],
    )
    rec = Recorder(clock=lambda: 0.0)
    assert rec.propose(plan).changes == {"A": "ready", "B": "blocked", "C": "pending"}
    rec.start("A")
    events = rec.observe("A", Observation(True, {"x"}, withdrawn={"x"}))
    # C never started: blocked, not voided
    assert [e.kind for e in events] == [
        "complete",
        "withdraw",
    ]
    assert dict(rec.run.frame(-1).statuses) == {"A": "done", "B": "blocked", "C": "blocked"}


def test_recorder_refuses_misuse(small_plan):
    rec = Recorder(clock=lambda: 0.0)
    with pytest.raises(SimulationError, match="cannot start 'S0': no plan was proposed"):
        rec.start("S0")
    with pytest.raises(SimulationError, match="cannot finish 'S0': no plan was proposed"):
        rec.complete("S0")
    with pytest.raises(SimulationError, match="cannot fail 'S0': no plan was proposed"):
        rec.fail("S0", "boom")
    with pytest.raises(SimulationError, match="cannot retry 'S0': no plan was proposed"):
        rec.retry("S0")
    with pytest.raises(SimulationError, match="cannot invalidate 'S0, S1': no plan was proposed"):
        rec.invalidate(["S1", "S0"], "void")
    assert rec.run.events == ()
    rec.propose(small_plan)
    with pytest.raises(SimulationError, match="unknown outcome 'done'.*plan_complete"):
        rec.stop("done")
    rec.stop("step_failed")
    with pytest.raises(SimulationError, match="already stopped"):
        rec.start("S0")


def test_every_plan_record_names_its_version(cache_plan, tmp_path):
    import json

    from planviz import Fault, save_trace, simulate

    path = tmp_path / "run.jsonl"
    save_trace(simulate(cache_plan, faults=[Fault("S4", "side_effect")]), path)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    plans = [r["plan"] for r in records if r["type"] == "plan"]
    assert [p["version"] for p in plans] == [1, 2]


# --------------------------------------------------------------------------- schema 1, caps, files that are not traces


def v1_lines(run) -> list[str]:
    """The run as a schema-1 trace: every event a full frame (what planviz 0.2 wrote)."""
    lines = list(run_to_lines(run))
    out = [json.dumps({**json.loads(lines[0]), "version": 1}) + "\n"]
    conflicts = []
    for line in lines[1:]:
        record = json.loads(line)
        if record["type"] == "event":
            e = record["event"]
            f = run.frame(e["index"])
            if e.get("conflict"):
                conflicts.append(e["conflict"])
            e = {k: v for k, v in e.items() if k not in ("changes", "gained", "lost", "conflict")}
            record["event"] = {
                **e,
                "statuses": dict(f.statuses),
                "facts": sorted(f.facts),
                "ready": sorted(f.ready),
                "conflicts": list(conflicts),
            }
        out.append(json.dumps(record) + "\n")
    return out


@pytest.mark.parametrize("fault", FAULTS + ["S2:extra_fact:not leak_reproduced"])
def test_schema_1_traces_still_load(tmp_path, cache_plan, fault):
    run = simulate(cache_plan, faults=[Fault.parse(fault)] if fault else [])
    path = tmp_path / "v1.jsonl"
    path.write_text("".join(v1_lines(run)), encoding="utf-8")
    loaded = load_trace(path)
    assert loaded == run
    assert all(
        dict(loaded.frame(i).statuses) == dict(run.frame(i).statuses) for i in range(len(run))
    )


@pytest.mark.parametrize(
    "edit, match",
    [
        (
            lambda e: {**e, "ready": []},
            r"event.ready: expected the steps whose status is ready, got \[\]",
        ),
        (
            lambda e: {**e, "statuses": {**e["statuses"], "S9": "done"}},
            "event.statuses: names other steps",
        ),
        (lambda e: {**e, "conflicts": "x"}, "event.conflicts: expected a list of conflicts"),
        (lambda e: {**e, "facts": [1]}, r"event.facts\[0\]: expected a string, got 1"),
    ],
)
def test_a_bad_schema_1_trace_says_which_line_and_why(tmp_path, cache_plan, edit, match):
    lines = v1_lines(simulate(cache_plan))
    record = json.loads(lines[4])  # event 2: S0 complete, S1 and S2 ready
    record["event"] = edit(record["event"])
    lines[4] = json.dumps(record) + "\n"
    with pytest.raises(TraceFormatError, match=match) as info:
        parse_trace("".join(lines))
    assert info.value.line == 5


def test_event_lines_hold_only_what_changed(tmp_path):
    steps = [
        Step(
            f"S{i:03d}",
            "a",
            expected_evidence="e",
            depends_on=[f"S{i - 1:03d}"] if i else [],
            produces=[f"f{i}"],
        )
        for i in range(300)
    ]
    run = simulate(Plan("g", steps))
    lines = [line for line in run_to_lines(run) if '"type":"event"' in line]
    assert len(lines[0]) > 300 * 10  # the first event is the snapshot of every status
    assert max(map(len, lines[1:])) < 400


def test_size_caps(tmp_path, cache_plan, monkeypatch):
    from planviz.io import limits

    path = tmp_path / "run.jsonl"
    save_trace(simulate(cache_plan), path)
    size = path.stat().st_size
    with pytest.raises(TraceFormatError, match="larger than the 1,000-byte cap .* pass max_bytes="):
        load_trace(path, max_bytes=1000)
    with pytest.raises(TraceFormatError, match="larger than the"):
        parse_trace(path.read_bytes(), max_bytes=size - 1)
    assert load_trace(path, max_bytes=size) == load_trace(path)
    monkeypatch.setattr(limits, "MAX_TRACE_RECORD", 100)
    with pytest.raises(TraceFormatError, match="line is longer than the") as info:
        load_trace(path)
    assert info.value.line == 1


def _child(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter with a time limit: a hang is a failure, not a stuck test run."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    "make, kind",
    [
        (lambda tmp: "/dev/zero", "a device"),
        (lambda tmp: os.mkfifo(tmp / "fifo") or tmp / "fifo", "a FIFO"),
        (lambda tmp: tmp, "a directory"),
    ],
)
def test_only_regular_files_are_read(tmp_path, make, kind):
    path = make(tmp_path)
    done = _child(
        f"from planviz import load_trace\ntry:\n    load_trace({str(path)!r})\n"
        f"except Exception as exc:\n    print(type(exc).__name__, exc)"
    )
    assert done.stdout.startswith("TraceFormatError"), done
    assert f"this is {kind}" in done.stdout and str(path) in done.stdout


def test_cli_report_of_dev_zero_exits_2(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "planviz", "report", "/dev/zero", "-o", str(tmp_path / "x.html")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (
        done.returncode == 2
        and "this is a device" in done.stderr
        and "Traceback" not in done.stderr
    )
    assert not (tmp_path / "x.html").exists()


def test_a_recorder_refuses_a_clock_that_is_not_finite(small_plan):
    rec = Recorder(clock=lambda: float("nan"))
    with pytest.raises(SimulationError, match="the clock gave nan"):
        rec.propose(small_plan)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_traces_load_or_say_why(data):
    """A real trace with one value anywhere replaced by arbitrary JSON: it loads, or a TraceFormatError says why."""
    from planviz import examples, metrics

    run = simulate(
        examples.load("cache_isolation"),
        faults=[Fault.parse(data.draw(st.sampled_from(FAULTS[1:])))],
    )
    lines = [json.loads(line) for line in run_to_lines(run)]
    n = data.draw(st.integers(0, len(lines) - 1))
    record, path = lines[n], []
    node = record
    while isinstance(node, (dict, list)) and node and data.draw(st.booleans()):
        key = data.draw(
            st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node)))
        )
        path.append(key)
        node = node[key]
    value = data.draw(_JSON)
    if path:
        parent = record
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = value
    else:
        lines[n] = value
    text = "".join(json.dumps(r) + "\n" for r in lines)
    try:
        loaded = parse_trace(text)
    except TraceFormatError as exc:
        # a damaged record is refused where it is, or where it first contradicts what came before
        # (a delta that gains a fact at line n shows as a loss nobody gained further down); never earlier
        assert exc.line is not None and exc.line >= n + 1, (exc.line, n + 1, str(exc))
        return
    for i in range(len(loaded.events)):  # whatever loads can be read and measured
        f = loaded.frame(i)
        assert set(f.ready) <= set(f.statuses) and len(f.facts) == len(set(f.facts))
    metrics(loaded)
