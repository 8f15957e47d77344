"""what_if(run, faults): a run replayed by simulate on its inferred plan; voided, kept, re-run, makespan, tokens.

Figures of real traces are computed here from the raw spans (plain json): which tool spans ran, their times and
the model spans that led to them, with their token counts; never from planviz's output.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings, strategies as st

from planviz import (
    Fault,
    Plan,
    PlanvizTypeError,
    Recorder,
    SimulationError,
    Step,
    WhatIf,
    examples,
    load_trace,
    render_what_if,
    save_trace,
    simulate,
    what_if,
)
from planviz.frontends.cli.commands import main
from planviz.pictures.style import LOOKS
from planviz.runs.hindsight.whatif import FINAL_ANSWER

from ..strategies import plans
from .otlp import agent, chat, text, tool

ANY_AGENT = (
    "otel/any-agent_OPENAI_trace.json",
    "otel/any-agent_LANGCHAIN_trace.json",
    "otel/any-agent_SMOLAGENTS_trace.json",
    "otel/more/AGNO_trace.json",
    "otel/more/TINYAGENT_trace.json",
    "otel/more/LLAMA_INDEX_trace.json",
    "openinference/SMOLAGENTS_trace_openinference.json",
    "langfuse/openai-agents-2025-09-30.json",
    "otel-js/all-spans.json",
    "langfuse/google-gemini-2025-08-01.json",
    "langfuse/llamaindex-2025-06-05.json",
    "langfuse/google-vertex-tools-langchain-2025-09-19.json",
    "langgraph/sqlite/exported/thread_test_checkpoint.json",
    "langgraph/sqlite/exported/thread_auto_2ff52282.json",
)


def _closed_downstream(w: WhatIf) -> None:
    ran = set(w.voided) | set(w.kept)
    assert not set(w.voided) & set(w.kept)
    for u, v, _ in w.data_edges:
        if u in w.voided and v in ran:
            assert v in w.voided, f"{v} consumed voided {u}'s result but is not voided"
    assert set(w.voided) <= set(w.rerun)


@pytest.mark.parametrize("name", ANY_AGENT)
def test_a_tool_error_at_any_recorded_step_voids_a_set_closed_downstream(corpus, name):
    run = load_trace(corpus / name)
    started = list(dict.fromkeys(e.step for e in run.events if e.kind == "start"))
    assert started
    # no fault: the replay completes, never later than the recording (model time counted once)
    clean = what_if(run)
    assert (
        clean.outcome == "plan_complete"
        and clean.voided == ()
        and clean.makespan <= clean.recorded_makespan + 1e-9
    )
    for sid in started:
        w = what_if(run, faults=[Fault(sid, "tool_error")])
        _closed_downstream(w)
        assert sid in w.voided and w.outcome == "step_failed"
        ran = set(started) | ({FINAL_ANSWER} if FINAL_ANSWER in w.plan else set())
        assert set(w.kept) == ran - set(w.voided)  # kept = ran and not voided
        assert w.makespan <= w.recorded_makespan + 1e-9


def _openai_raw(corpus):
    spans = json.loads((corpus / "otel/any-agent_OPENAI_trace.json").read_text())["spans"]
    t0 = min(s["start_time"] for s in spans)
    models = [s for s in spans if s["name"].startswith("call_llm")]
    tools = [s for s in spans if s["name"].startswith("execute_tool")]
    return (
        spans,
        t0,
        sorted(models, key=lambda s: s["start_time"]),
        sorted(tools, key=lambda s: s["start_time"]),
    )


def test_openai_trace_tool_error_costs_what_the_raw_spans_say(corpus):
    spans, t0, models, tools = _openai_raw(corpus)
    first = tools[0]["attributes"]["gen_ai.tool.name"]
    assert first == "get_current_time"
    w = what_if(
        load_trace(corpus / "otel/any-agent_OPENAI_trace.json"), faults=[Fault(first, "tool_error")]
    )
    # the replay stops when the first tool fails: its model call, then the tool call (nanoseconds in the raw file)
    took = lambda s: (s["end_time"] - s["start_time"]) / 1e9  # noqa: E731
    assert w.makespan == pytest.approx(took(models[0]) + took(tools[0]), abs=1e-6)
    # write_file wrote the year get_current_time returned (a derived value): it is voided and re-run too, so the
    # re-run costs the tokens of every model call (the one that chose each tool, and the final answer's)
    year = re.search(r"\d{4}", str(tools[0]["attributes"]["gen_ai.output"])).group(0)
    assert tools[1]["attributes"]["gen_ai.tool.name"] == "write_file" and year in str(
        tools[1]["attributes"]
    )

    def tokens(s):
        return (
            s["attributes"]["gen_ai.usage.input_tokens"]
            + s["attributes"]["gen_ai.usage.output_tokens"]
        )

    assert len(models) == 3 and w.tokens == sum(map(tokens, models))
    assert w.voided == (first, "write_file", FINAL_ANSWER)
    assert (max(s["end_time"] for s in spans) - t0) / 1e9 == pytest.approx(
        w.recorded_makespan, abs=1e-6
    )


def test_unknown_tokens_stay_none(corpus):
    data = json.loads((corpus / "otel/any-agent_OPENAI_trace.json").read_text())
    for s in data["spans"]:
        for key in [k for k in s["attributes"] if k.startswith("gen_ai.usage.")]:
            del s["attributes"][key]
    run = load_trace(data)
    assert run.model_calls and all(c.tokens is None for c in run.model_calls)
    w = what_if(run, faults=[Fault("get_current_time", "tool_error")])
    assert w.tokens is None and "unknown" in w.to_text()
    assert (
        what_if(simulate(examples.load("cache_isolation")), [Fault("S1", "tool_error")]).tokens
        is None
    )


def test_a_failed_recorded_run_without_faults_is_its_blast_radius(corpus):
    data = json.loads((corpus / "otel/any-agent_OPENAI_trace.json").read_text())
    for s in data["spans"]:
        if s["name"] == "execute_tool get_current_time":
            s["status"] = {"status_code": "error", "description": "timezone service unavailable"}
    run = load_trace(data)
    w = what_if(run)
    assert w.faults == (Fault("get_current_time", "tool_error"),)
    assert w.voided[0] == "get_current_time" and FINAL_ANSWER in w.voided
    _closed_downstream(w)


def test_a_fault_voids_what_consumed_the_result_through_data_edges_only():
    # get_weather's result is summarize's argument; get_weather#2 shares nothing with it
    spans = [
        agent(1, 0, 5),
        chat(2, 0, 1, tokens=(100, 7)),
        tool(3, "get_weather", 1, 2, args={"city": "Paris"}, result={"sky": "sunny over Paris"}),
        chat(4, 2, 2.5, tokens=(120, 8)),
        tool(5, "get_weather", 2.5, 3.5, args={"city": "Rome"}, result={"sky": "rain in Rome"}),
        chat(6, 3.5, 4, tokens=(150, 9)),
        tool(7, "summarize", 4, 5, args={"text": "sunny over Paris"}, result="done"),
    ]
    run = load_trace(json.loads(text(spans)))
    w = what_if(run, faults=[Fault("get_weather", "tool_error")])
    assert w.voided == ("get_weather", "summarize") and w.kept == ("get_weather#2",)
    assert w.tokens == 100 + 7 + 150 + 9  # the model calls that chose get_weather and summarize
    assert w.makespan == pytest.approx(2.0)  # chat 0-1 then the tool 1-2 fails: the planner stops
    assert what_if(run).voided == () and what_if(run).makespan == pytest.approx(5.0)


def test_blast_radius_of_a_recorded_failure_before_anything_reruns():
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", produces="a.result"),
            Step("B", "b", expected_evidence="e", requires="a.result", depends_on="A"),
            Step("C", "c", expected_evidence="e", produces="c.result"),
        ],
    )
    rec = Recorder(clock=iter(range(100)).__next__)
    rec.propose(plan)
    rec.start("A"), rec.fail("A", "service down"), rec.start("B"), rec.complete("B")
    rec.start("C"), rec.complete("C"), rec.stop("step_failed")
    w = what_if(rec.run)  # the agent went on: B read A's output anyway
    assert w.faults == (Fault("A", "tool_error"),)
    assert (
        w.voided == ("A", "B") and w.kept == ("C",) and w.rerun == ("A", "B") and w.tokens is None
    )


def test_transient_fault_reruns_without_voiding():
    w = what_if(simulate(examples.load("cache_isolation")), faults=[Fault("S1", "transient")])
    assert w.voided == () and w.rerun == ("S1",) and w.outcome == "plan_complete"
    assert (
        w.makespan
        == simulate(examples.load("cache_isolation"), faults=[Fault("S1", "transient")]).time
    )


def _oracle(s, ran, plan: Plan):
    """voided/rerun of simulate's run ``s`` read from its events, closed over the plan's data edges."""
    root = {}
    for p in s.plans:
        for st_ in p.steps:
            if st_.revises:
                root[st_.id] = st_.revises

    def r(x):
        while x in root:
            x = root[x]
        return x

    lost, last, starts = set(), {}, {}
    for e in s.events:
        if e.kind == "invalidate":
            lost |= {r(x) for x in e.voided}
        if e.step and e.kind in ("complete", "fail"):
            last[e.step] = e.kind
        if e.step and e.kind == "start":
            starts[r(e.step)] = starts.get(r(e.step), 0) + 1
    lost |= {r(x) for x, k in last.items() if k == "fail"}
    producer = {f: st_.id for st_ in plan.steps for f in st_.produces}
    after = {}
    for st_ in plan.steps:
        preds = {producer[f] for f in st_.requires if f in producer}
        if not st_.requires and not st_.arguments:
            preds |= set(st_.depends_on)
        for u in preds:
            after.setdefault(u, set()).add(st_.id)
    voided, todo = set(lost), list(lost)
    while todo:
        for v in after.get(todo.pop(), ()):
            if v not in voided:
                voided.add(v)
                todo.append(v)
    voided &= ran
    return voided, voided | {x for x, n in starts.items() if n > 1 and x in ran}


FAULT_KINDS = [
    "transient",
    "tool_error",
    "side_effect",
    "missing_evidence",
    "premise_false",
    "withdraw",
    "extra_fact",
]


@st.composite
def _case(draw):
    plan = draw(plans(max_steps=7))

    def faults():
        out = []
        for _ in range(draw(st.integers(0, 2))):
            step = plan.step(draw(st.sampled_from(sorted(plan.ids))))
            kind = draw(
                st.sampled_from([k for k in FAULT_KINDS if k != "withdraw" or step.requires])
            )
            fact = "noise" if kind == "extra_fact" else None
            out.append(Fault(step.id, kind, fact, draw(st.integers(1, 3))))
        return out

    return plan, faults(), faults()


@settings(max_examples=60, deadline=None)
@given(_case())
def test_what_if_on_a_simulated_run_agrees_with_simulate(case):
    plan, before, faults = case
    recorded = simulate(plan, faults=before)
    w = what_if(recorded, faults=faults)
    s = simulate(plan, faults=before + faults)
    assert w.outcome == s.outcome
    assert w.makespan == (s.time - s.events[0].time if s.events else 0.0)
    ran = {e.step for e in recorded.events if e.kind == "start" and e.step in plan}
    voided, rerun = _oracle(s, ran, plan)
    assert set(w.voided) == voided and set(w.rerun) == rerun
    assert set(w.kept) == ran - voided
    assert [(e.kind, e.step, e.time) for e in w.run.events] == [
        (e.kind, e.step, e.time) for e in s.events
    ]


def test_wrong_types_are_refused():
    run = simulate(examples.load("cache_isolation"))
    with pytest.raises(PlanvizTypeError, match=r"what_if\(run="):
        what_if("run.jsonl")
    with pytest.raises(PlanvizTypeError, match=r"Fault.parse\('S4:side_effect'\)"):
        what_if(run, faults="S4:side_effect")
    with pytest.raises(PlanvizTypeError, match=r"render_what_if\(what_if="):
        render_what_if(run)
    with pytest.raises(SimulationError, match="no step 'S9'"):
        what_if(run, faults=[Fault("S9", "tool_error")])


def test_the_picture_shows_each_recorded_attempt_kept_or_voided_in_its_look(corpus):
    w = what_if(
        load_trace(corpus / "otel/any-agent_OPENAI_trace.json"),
        [Fault("get_current_time", "tool_error")],
    )
    root = ET.fromstring(render_what_if(w))
    ns = "{http://www.w3.org/2000/svg}"
    rows = {g.get("data-step"): g for g in root.iter(f"{ns}g") if g.get("class") == "pv-row"}
    assert set(rows) == set(w.voided) | set(w.kept)
    for sid, g in rows.items():
        bars = [r for r in g.iter(f"{ns}rect") if "pv-recorded" in r.get("class")]
        assert bars, sid
        look = LOOKS["invalidated" if sid in w.voided else "kept"]
        assert all(r.get("fill") == look.fill and r.get("stroke") == look.stroke for r in bars)
    # rows in the order the raw tool spans started, then the final answer; each tool's row holds the model call
    # that chose it (the call_llm span whose output names the tool)
    _, _, models, tools = _openai_raw(corpus)
    names = [t["attributes"]["gen_ai.tool.name"] for t in tools]
    assert list(rows) == names + [FINAL_ANSWER]
    for name in names:
        chose = [m for m in models if name in m["attributes"]["gen_ai.output"]]
        drawn = [r for r in rows[name].iter(f"{ns}rect") if r.get("class") == "pv-model"]
        assert len(drawn) == len(chose) == 1


def _hostile_trace(tmp_path):
    bad = "evil\x1b[31m<b>"
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", produces="a.result"),
            Step(bad, "b", expected_evidence="e", requires="a.result", depends_on="A"),
        ],
    )
    rec = Recorder(clock=iter(range(100)).__next__)
    rec.propose(plan)
    rec.start("A"), rec.complete("A"), rec.start(bad), rec.complete(bad), rec.stop("plan_complete")
    path = tmp_path / "run.jsonl"
    save_trace(rec.run, path)
    return path, bad


def test_cli_what_if_prints_neutralised_text_and_draws(tmp_path, capsys):
    path, bad = _hostile_trace(tmp_path)
    out = tmp_path / "w.svg"
    assert main(["what-if", str(path), "--fault", "A:tool_error", "-o", str(out)]) == 1
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "voided: A, evil\\x1b[31m<b>" in printed
    svg = out.read_text()
    assert "<b>" not in svg and "&lt;b&gt;" in svg
    ET.fromstring(svg)
    assert main(["what-if", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["voided"] == []


def test_cli_what_if_refuses_overwriting_its_input_and_a_wrong_suffix(tmp_path, capsys):
    path, _ = _hostile_trace(tmp_path)
    assert main(["what-if", str(path), "-o", str(path)]) == 2
    assert main(["what-if", str(path), "-o", str(tmp_path / "w.png")]) == 2
    err = capsys.readouterr().err
    assert "name it OUT.svg" in err and re.search(r"is the input FILE|OUT\.svg", err)


def test_data_edges_as_triples_with_their_reason_are_read_too(monkeypatch):
    # hindsight's data edges become (earlier, later, reason) triples: what_if reads either form
    import types

    import planviz.runs.hindsight.whatif as module

    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", produces="a.result", arguments={"q": 1}),
            Step("B", "b", expected_evidence="e", arguments={"year": "2025"}),
            Step("C", "c", expected_evidence="e", arguments={"q": 2}),
        ],
    )
    run = simulate(plan)
    monkeypatch.setattr(
        module,
        "hindsight",
        lambda r: types.SimpleNamespace(
            data_edges=(("A", "B", "derived: '2025' in '2025-06-11T08:00'"),)
        ),
    )
    w = what_if(run, faults=[Fault("A", "tool_error")])
    assert w.voided == ("A", "B") and w.kept == ("C",)
    assert w.plan.step("B").depends_on == ("A",)  # the data edge made explicit
    assert "B consumed A's result (derived: '2025' in '2025-06-11T08:00')" in w.to_text()
