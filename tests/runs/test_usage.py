"""One usage figure: run_usage, metrics, diff_runs and the panels agree on model calls, tokens, cost and time.

Truth for recorded runs is counted here from the raw span files (plain json), never from planviz's output.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings, strategies as st

from planviz import (
    Plan,
    PlanvizTypeError,
    Recorder,
    Step,
    diff_runs,
    examples,
    load_trace,
    metrics,
    run_usage,
    save_trace,
    simulate,
)
from planviz.frontends.panels import metrics_rows
from planviz.runs import usage
from planviz.runs.modelcall import ModelCall

MODEL_OPERATIONS = {"chat", "call_llm", "text_completion", "generate_content"}


def _raw_usage(path) -> dict | None:
    raw = json.loads(path.read_text())
    # a span id written twice is one span (the first kept)
    spans = list(
        {
            s["context"]["span_id"]: s
            for s in reversed(raw["spans"] if isinstance(raw, dict) else raw)
        }.values()
    )
    ops = [(s.get("attributes") or {}).get("gen_ai.operation.name") for s in spans]
    models = [s["attributes"] for s, op in zip(spans, ops) if op in MODEL_OPERATIONS]

    def total(*names):
        values = [a[n] for a in models for n in names if isinstance(a.get(n), (int, float))]
        return sum(values) if values else None

    cost = total("gen_ai.usage.cost")
    if cost is None and total("gen_ai.usage.input_cost") is not None:
        cost = total("gen_ai.usage.input_cost", "gen_ai.usage.output_cost")
    t0 = min(s["start_time"] for s in spans)
    ended = all(s.get("end_time") is not None for s in spans)
    return {
        "model_calls": len(models),
        "input_tokens": total("gen_ai.usage.input_tokens"),
        "output_tokens": total("gen_ai.usage.output_tokens"),
        "cost": cost,
        # with no tool call at all, the model calls are the steps: still no tool call made
        "tool_calls": ops.count("execute_tool"),
        "time": (max(s["end_time"] for s in spans) - t0) / 1e9 if ended else None,
    }


def _raw_tool_calls(path) -> int:
    """The tool calls an OTel JS span file (``ai.operationId`` ``ai.toolCall``) or a Langfuse export records, read by
    hand: ``TOOL`` observations, OpenInference kind ``TOOL``, the runs of a LangGraph ToolNode (``tools``)."""
    raw = json.loads(path.read_text())
    if isinstance(raw, dict) and "observations" in raw:
        metadata = [
            o["metadata"] if isinstance(o.get("metadata"), dict) else {}
            for o in raw["observations"]
        ]
        return sum(
            o["type"] == "TOOL"
            or (md.get("attributes") or {}).get("openinference.span.kind") == "TOOL"
            or md.get("langgraph_node") == "tools"
            for o, md in zip(raw["observations"], metadata)
        )
    return [s["attributes"].get("ai.operationId") for s in raw].count("ai.toolCall")


@pytest.mark.corpus
def test_a_trace_without_tool_calls_counts_none_and_each_model_call_once(corpus):
    """Its model calls stand in as the steps, yet the trace made no tool call: every view says 0 tool calls
    (not one per model call, which would count each call twice)."""
    paths = (
        [corpus / "otel" / "more" / "LLAMA_INDEX_trace__50fd4348_no_tool_spans.json"]
        + sorted((corpus / "otel-js").glob("*.json"))
        + sorted((corpus / "langfuse").glob("*.json"))
    )
    checked = 0
    for path in paths:
        if _raw_usage(path)["tool_calls"] if path.parent.name == "more" else _raw_tool_calls(path):
            continue
        run = load_trace(path)
        assert run.model_calls, path.name
        u, m = run_usage(run), metrics(run)
        assert (u.tool_calls, m.tool_calls, diff_runs(run, run).usage[0].tool_calls) == (0, 0, 0), (
            path.name
        )
        assert dict(metrics_rows(run))["tool calls"].startswith("0"), path.name
        checked += 1
    assert checked == 7  # 1 OTel, 2 OTel JS, 4 Langfuse exports with no tool call


@pytest.mark.corpus
def test_every_view_of_a_recorded_run_counts_the_model_calls_in_the_file(corpus):
    files = sorted((corpus / "otel").glob("*.json")) + sorted(
        (corpus / "otel" / "more").glob("*.json")
    )
    checked = 0
    for path in files:
        truth = _raw_usage(path)
        run = load_trace(path)
        u, m = run_usage(run), metrics(run)
        d = diff_runs(run, run)
        assert (u.model_calls, m.model_calls, d.usage[0].model_calls) == (
            truth["model_calls"],
        ) * 3, path.name
        assert (u.tool_calls, m.tool_calls) == (truth["tool_calls"],) * 2, path.name
        assert (u.input_tokens, u.output_tokens) == (
            truth["input_tokens"],
            truth["output_tokens"],
        ), path.name
        assert (
            u.cost == pytest.approx(truth["cost"]) if truth["cost"] is not None else u.cost is None
        )
        # a trace whose calls never all ended ends at its last recorded moment
        if truth["time"] is not None:
            assert u.time == m.time == pytest.approx(truth["time"]), path.name
        rows = dict(metrics_rows(run))  # what the report and the explorer show
        assert rows["model calls"] == str(truth["model_calls"]), path.name
        assert rows["input tokens"] == f"{truth['input_tokens']} tokens", path.name
        checked += 1
    assert checked == len(files) >= 9


@pytest.mark.parametrize("strategy, calls", [("planner", 1), ("direct", 5), ("workflow", 0)])
def test_a_simulation_pays_its_strategy_s_model_calls_in_every_view(strategy, calls):
    run = simulate(examples.load("cache_isolation"), strategy=strategy)
    assert (
        run_usage(run).model_calls
        == metrics(run).model_calls
        == diff_runs(run, run).usage[0].model_calls
        == calls
    )


def _ai_messages(value) -> int:
    """AI messages anywhere in raw LangGraph JSON (``type: "ai"`` or LangChain's constructor form)."""
    if isinstance(value, dict):
        own = value.get("type") == "ai" or (
            value.get("lc") == 1 and "AIMessage" in (value.get("id") or [])
        )
        return int(own) + sum(_ai_messages(v) for v in value.values())
    if isinstance(value, list):
        return sum(_ai_messages(v) for v in value)
    return 0


@pytest.mark.corpus
@pytest.mark.parametrize(
    "name", ["langgraph_docs_get_state_history_example.json", "langgraph_saved_checkpoints_v3.json"]
)
def test_another_tool_s_trace_without_model_calls_says_not_recorded(corpus, name, tmp_path):
    path = corpus / "langgraph" / name
    assert _ai_messages(json.loads(path.read_text())) == 0  # the file holds no model call at all
    run = load_trace(path)
    assert run.trace_format == "langgraph"
    assert run_usage(run).model_calls is None
    assert metrics(run).model_calls is None and diff_runs(run, run).usage[0].model_calls is None
    assert dict(metrics_rows(run))["model calls"] == "not recorded"
    save_trace(run, tmp_path / "run.jsonl")  # a saved copy still says where it came from
    again = load_trace(tmp_path / "run.jsonl")
    assert again == run and run_usage(again).model_calls is None


def test_planviz_s_own_recorded_run_counts_one_call_per_plan_proposal():
    rec = Recorder()
    rec.propose(Plan("g", [Step("A", "do", expected_evidence="done")]))
    rec.start("A")
    rec.complete("A")
    run = rec.run
    assert run.trace_format is None
    assert run_usage(run).model_calls == metrics(run).model_calls == 1


def test_run_usage_of_something_else_says_what_to_call():
    with pytest.raises(
        PlanvizTypeError, match=r"run_usage\(run=...\) expects a planviz Run, got str"
    ):
        run_usage("trace.jsonl")


def _recorded(times: list[float]) -> Recorder:
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", duration=9, produces="x"),
            Step("B", "b", expected_evidence="e", duration=9, depends_on="A", requires="x"),
        ],
    )
    rec = Recorder(clock=iter(times).__next__)
    rec.propose(plan)
    rec.start("A")
    rec.complete("A")
    rec.start("B")
    rec.complete("B")
    rec.stop("plan_complete")
    return rec


@pytest.mark.parametrize(
    "times, delay",
    [
        # B right after A: what happened is its own critical path, whatever the estimates
        (
            [0, 0, 2, 2, 5, 5],
            0.0,
        ),
        # a second between A's end and B's start that no step accounts for
        (
            [0, 0, 2, 3, 5, 5],
            1.0,
        ),
        ([0, 0, 2, 2, 5, 7], 2.0),  # the run ended two seconds after its last step
    ],
)
def test_a_recorded_run_s_delay_is_measured_on_what_happened(times, delay):
    assert metrics(_recorded(times).run).critical_path_delay == pytest.approx(delay)


@pytest.mark.corpus
def test_recorded_corpus_runs_have_no_negative_delay(corpus):
    paths = (
        sorted((corpus / "otel").glob("*.json"))
        + sorted((corpus / "otel" / "more").glob("*.json"))
        + sorted((corpus / "langgraph").glob("*.json"))
    )
    for path in paths:
        run = load_trace(path)
        delay = metrics(run).critical_path_delay
        if run.outcome == "plan_complete":
            assert delay is not None and 0.0 <= delay <= run.time + 1e-9, path.name


_TRACE_RUN = load_trace(examples.trace(examples.traces()[0]))


# the figures a trace's model call records may hold (the field types say int or float; a reader may hand over a
# bool, a stated total, None)
_FIGURE = st.one_of(st.none(), st.integers(-5, 10**6), st.booleans())
_COST = st.one_of(st.none(), st.floats(0, 10, allow_nan=False), st.integers(0, 9), st.booleans())


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "input_tokens": _FIGURE,
                "output_tokens": _FIGURE,
                "cost": _COST,
                "reasoning_tokens": _FIGURE,
                "cached_tokens": _FIGURE,
                "total_tokens": st.one_of(st.none(), st.none(), st.integers(0, 10**6)),
            }
        ),
        min_size=1,
        max_size=6,
    )
)
def test_usage_of_records_is_that_of_the_calls_dicts(figures):
    run = dataclasses.replace(
        _TRACE_RUN,
        model_calls=tuple(ModelCall("m", float(k), 1.0, **f) for k, f in enumerate(figures)),
    )
    fast = run_usage(run)
    with pytest.MonkeyPatch.context() as mp:  # the calls' dicts alone decide
        mp.setattr(usage, "_record_figures", lambda records: None)
        slow = run_usage(run)
    assert repr(fast) == repr(slow)


def test_usage_of_plain_records_makes_no_dict_per_call(monkeypatch):
    run = load_trace(examples.trace(examples.traces()[0]))
    assert run.model_calls and run_usage(run).model_calls == len(run.model_calls)
    expected = run_usage(run)
    monkeypatch.setattr(usage, "model_calls", lambda run: pytest.fail("dicts made"))
    assert run_usage(run) == expected
