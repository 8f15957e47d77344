"""Arize Phoenix span exports read as runs. The truth is computed here from the raw files, never from planviz.

The real files (tests/data/real/phoenix/, see SOURCES.md) are the spans phoenix-client's own ATIF converter
writes for its test trajectories: Phoenix's span shape (``span_kind``, ``context``, ``parent_id``, ISO times,
``status_code``), hex ids, OpenInference attributes. Before the Phoenix reader, the same spans without
``openinference.span.kind`` in their attributes (as Phoenix's REST API returns them) read as a run of 0 steps,
and spans with Phoenix's non-hex ids were refused with a hex-id complaint.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from planviz import load_trace, parse_trace, run_usage
from planviz.traces import Sample, detect

REAL = Path(__file__).parent.parent / "data" / "real" / "phoenix"
FILES = sorted(p.name for p in REAL.glob("*.spans.json*"))


def _spans(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    data = json.loads(text)
    return data["data"] if isinstance(data, dict) else data


def _ns(text: str) -> int:
    moment = datetime.fromisoformat(text)
    return round(moment.timestamp() * 1e6) * 1000


def _check(run, spans):
    """Steps, arguments, results, model calls, tokens, times, goal and nesting against the raw spans."""
    t0 = min(_ns(s["start_time"]) for s in spans)
    tools = sorted(
        (s for s in spans if s["span_kind"] == "TOOL"), key=lambda s: _ns(s["start_time"])
    )
    assert [s.tool for s in run.plan.steps] == [t["attributes"]["tool.name"] for t in tools]
    assert [s.arguments for s in run.plan.steps] == [
        json.loads(t["attributes"]["input.value"]) for t in tools
    ]
    starts = {e.step: e.time for e in run.events if e.kind == "start"}
    for step, t in zip(run.plan.steps, tools):
        assert starts[step.id] == pytest.approx((_ns(t["start_time"]) - t0) / 1e9)
        assert step.duration == pytest.approx((_ns(t["end_time"]) - _ns(t["start_time"])) / 1e9)
    llms = [s for s in spans if s["span_kind"] == "LLM"]
    assert len(run.model_calls) == len(llms)
    assert sorted(c.start for c in run.model_calls) == pytest.approx(
        sorted((_ns(s["start_time"]) - t0) / 1e9 for s in llms)
    )
    usage = run_usage(run)
    assert usage.input_tokens == sum(s["attributes"]["llm.token_count.prompt"] for s in llms)
    assert usage.output_tokens == sum(s["attributes"]["llm.token_count.completion"] for s in llms)
    assert {c.model for c in run.model_calls} == {s["attributes"]["llm.model_name"] for s in llms}
    agent = next(s for s in spans if s["span_kind"] == "AGENT" and not s.get("parent_id"))
    # a long task is kept as its first 2,000 characters and "…"
    task = agent["attributes"]["input.value"]
    goal = run.plan.goal
    assert (
        goal == task
        if len(task) <= 2000
        else (goal.endswith("…") and task.startswith(goal[:-1]) and len(goal) >= 2000)
    )
    # nesting: tools under the agent
    assert all(t["parent_id"] == agent["context"]["span_id"] for t in tools)
    assert run.time == pytest.approx((max(_ns(s["end_time"]) for s in spans) - t0) / 1e9)
    failed = {t["attributes"]["tool.name"] for t in tools if t.get("status_code") == "ERROR"}
    assert {e.step for e in run.events if e.kind == "fail"} == failed
    assert run.outcome == ("plan_complete" if not failed else "step_failed")


@pytest.mark.parametrize("name", FILES)
def test_real_phoenix_exports(name):
    path = REAL / name
    spans = _spans(path)
    run = load_trace(path)
    assert run.trace_format == "phoenix"
    _check(run, spans)


def test_without_the_openinference_kind_attribute_the_top_level_span_kind_is_read():
    """Phoenix's REST API keeps the kind at top level only: before, a run of 0 steps."""
    spans = _spans(REAL / "atif_parallel_tools_mixed_results.spans.json")
    stripped = [
        {
            **s,
            "attributes": {
                k: v for k, v in s["attributes"].items() if k != "openinference.span.kind"
            },
        }
        for s in spans
    ]
    run = parse_trace(json.dumps({"next_cursor": None, "data": stripped}))
    assert run.trace_format == "phoenix"
    _check(run, spans)


def test_non_hex_ids_keep_the_nesting():
    """Phoenix accepts any text as a span id ("s01"): before, a hex-id complaint."""
    spans = _spans(REAL / "atif_simple_trajectory.spans.json")
    names = {s["context"]["span_id"]: f"s{i:02d}" for i, s in enumerate(spans)}
    renamed = [
        {
            **s,
            "context": {"trace_id": "fixture-trace", "span_id": names[s["context"]["span_id"]]},
            "parent_id": names.get(s.get("parent_id")),
        }
        for s in spans
    ]
    run = parse_trace(json.dumps(renamed))
    _check(run, spans)


def test_span_dataframe_records():
    """``get_spans_dataframe().to_json(orient="records")``: flat columns and times in epoch milliseconds."""
    spans = _spans(REAL / "atif_parallel_tools_mixed_results.spans.json")
    records = []
    for s in spans:
        rec = {
            "name": s["name"],
            "span_kind": s["span_kind"],
            "parent_id": s.get("parent_id"),
            "context.span_id": s["context"]["span_id"],
            "context.trace_id": s["context"]["trace_id"],
            "start_time": _ns(s["start_time"]) // 10**6,
            "end_time": _ns(s["end_time"]) // 10**6,
            "status_code": s["status_code"],
        }
        rec.update({f"attributes.{k}": v for k, v in s["attributes"].items()})
        records.append(rec)
    run = parse_trace("\n".join(json.dumps(r) for r in records))  # lines=True
    assert run.trace_format == "phoenix"
    _check(run, spans)


def test_nested_attributes_are_flattened():
    tool = {
        "name": "get_weather",
        "span_kind": "TOOL",
        "context": {"span_id": "b", "trace_id": "t"},
        "parent_id": "a",
        "start_time": "2025-01-01T00:00:01+00:00",
        "end_time": "2025-01-01T00:00:02+00:00",
        "status_code": "OK",
        "attributes": {
            "tool": {"name": "get_weather"},
            "input": {"value": '{"city": "NYC"}'},
            "output": {"value": "42F"},
        },
    }
    agent = {
        "name": "agent",
        "span_kind": "AGENT",
        "context": {"span_id": "a", "trace_id": "t"},
        "parent_id": None,
        "start_time": "2025-01-01T00:00:00+00:00",
        "end_time": "2025-01-01T00:00:03+00:00",
        "status_code": "OK",
        "attributes": {"input": {"value": "weather in NYC?"}},
    }
    run = parse_trace(json.dumps([agent, tool]))
    assert [(s.tool, s.arguments) for s in run.plan.steps] == [("get_weather", {"city": "NYC"})]
    assert run.plan.goal == "weather in NYC?"


@pytest.mark.parametrize("name", FILES)
def test_detected_from_the_first_bytes(name):
    head = (REAL / name).read_bytes()[:65536]
    assert detect(Sample.of(head)) == "phoenix"
