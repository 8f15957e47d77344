"""diff_runs(a, b): first divergence, steps only in one, changed outcomes and arguments, time and cost."""

from __future__ import annotations

import itertools
import json

import pytest

from planviz import Fault, PlanvizTypeError, diff_runs, load_trace, parse_trace, run_usage, simulate

from ..otlp import agent, chat, text, tool


def trace(*calls) -> str:
    return text([agent(1, 0, 100)] + list(calls))


A = trace(
    chat(2, 0, 1, tokens=(100, 10)),
    tool(3, "search", 1, 2, args={"q": "x"}),
    tool(4, "fetch", 3, 4),
    chat(5, 4, 5, tokens=(50, 5)),
)


def test_a_run_is_the_same_as_itself(cache_plan):
    run = simulate(cache_plan)
    d = diff_runs(run, run)
    assert d.same and d.first_divergence is None and d.deltas()["time"] == 0


@pytest.mark.parametrize(
    "query, first",
    [
        ("x", 4),  # propose, start search, complete search, start fetch, then: complete vs fail
        ("y", 1),  # search is called with other arguments: the runs part at its start
    ],
)
def test_two_traces_differ_where_a_call_fails_and_arguments_change(query, first):
    b = trace(
        chat(2, 0, 1, tokens=(100, 10)),
        tool(3, "search", 1, 2, args={"q": query}),
        tool(4, "fetch", 3, 7, error="HTTPError: 500"),
        tool(5, "retry_later", 8, 9),
    )
    d = diff_runs(parse_trace(A), parse_trace(b))
    assert d.first_divergence == first
    assert d.only_a == () and d.only_b == ("retry_later",)
    changes = {c.step: c.what for c in d.changes}
    assert (
        changes == {"search": ("arguments",), "fetch": ("outcome",)}
        if query == "y"
        else {"fetch": ("outcome",)}
    )
    ua, ub = d.usage
    assert (ua.model_calls, ua.input_tokens, ub.model_calls, ub.input_tokens) == (2, 150, 1, 100)
    assert d.deltas()["tool_calls"] == 1 and d.outcomes == ("plan_complete", "step_failed")
    assert f"first divergence: event {first}" in d.to_text() and d.to_dict()["only_b"] == [
        "retry_later"
    ]


@pytest.mark.corpus
def test_corpus_runs_of_one_task_part_at_the_first_call_with_other_arguments(corpus):
    """The any-agent runs of one task: the first divergence is the first tool call (in order) whose tool or
    arguments differ between the two raw files (computed here from the spans), at that call's start."""

    def calls(path):
        spans = {s["context"]["span_id"]: s for s in json.loads(path.read_text())["spans"]}.values()
        tools = sorted(
            (s for s in spans if s["attributes"].get("gen_ai.operation.name") == "execute_tool"),
            key=lambda s: s["start_time"],
        )
        return [
            (s["attributes"]["gen_ai.tool.name"], json.loads(s["attributes"]["gen_ai.tool.args"]))
            for s in tools
        ]

    files = [
        corpus / "otel" / "any-agent_SMOLAGENTS_trace.json",
        corpus / "otel" / "more" / "TINYAGENT_trace.json",
        corpus / "otel" / "any-agent_OPENAI_trace.json",
    ]
    checked = 0
    for pa, pb in itertools.permutations(files, 2):
        ca, cb = calls(pa), calls(pb)
        k = next((i for i, (x, y) in enumerate(zip(ca, cb)) if x != y), None)
        d = diff_runs(load_trace(pa), load_trace(pb))
        if k is None:
            assert len(ca) != len(cb) and d.first_divergence is not None, (pa.name, pb.name)
            continue
        event = d.a.events[d.first_divergence]
        assert event.kind == "start", (pa.name, pb.name)
        assert sum(e.kind == "start" for e in d.a.events[: d.first_divergence]) == k, (
            pa.name,
            pb.name,
        )
        assert "the runs agree" not in d.to_text()
        checked += 1
    assert checked == 2  # SMOLAGENTS and TINYAGENT both end with final_answer, with other answers


def test_a_trace_against_a_simulation_of_its_own_plan():
    run = parse_trace(A)
    sim = simulate(run.plan, faults=[Fault("fetch", "tool_error", times=5)], strategy="workflow")
    d = diff_runs(run, sim)
    assert d.pairs == (("search", "search"), ("fetch", "fetch"))
    assert [(c.step, c.a_status, c.b_status) for c in d.changes] == [("fetch", "done", "failed")]
    assert run_usage(sim).input_tokens is None and run_usage(run).input_tokens == 150


def test_runs_of_different_lengths_diverge_where_the_shorter_ends(cache_plan):
    full = simulate(cache_plan)
    d = diff_runs(
        full, simulate(cache_plan, faults=[Fault("S1", "tool_error", times=9)], strategy="workflow")
    )
    assert d.first_divergence is not None and d.first_divergence < len(full.events)


def test_wrong_types_are_refused(cache_plan):
    with pytest.raises(PlanvizTypeError, match="diff_runs\\(b=...\\)"):
        diff_runs(simulate(cache_plan), "b.jsonl")


from hypothesis import (  # noqa: E402
    given,
    settings,
    strategies as st,  # noqa: E402
)

from planviz import examples  # noqa: E402

KINDS = ("transient", "tool_error", "side_effect", "missing_evidence")


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["S0", "S1", "S2", "S3", "S4"]), st.sampled_from(KINDS)),
        max_size=2,
    )
)
def test_a_run_diffs_equal_to_itself_and_the_divergence_is_where_events_first_differ(faults):
    plan = examples.load("cache_isolation")
    run = simulate(plan, faults=[Fault(s, k) for s, k in faults])
    assert diff_runs(run, run).same
    clean = simulate(plan)
    d = diff_runs(clean, run)
    pairs = list(zip(clean.events, run.events))
    first = next(
        (
            i
            for i, (x, y) in enumerate(pairs)
            if (x.kind, x.step, x.category, x.outcome) != (y.kind, y.step, y.category, y.outcome)
        ),
        None,
    )
    if first is None and len(clean.events) != len(run.events):
        first = len(pairs)
    assert d.first_divergence == first
