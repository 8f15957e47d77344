"""OpenInference spans read first class: arguments from input.value, nested LLM spans counted once, the goal
from the AGENT span. The truth is computed here from the raw files, never from planviz's output."""

from __future__ import annotations

import ast
import json

import pytest

from planviz import load_trace, parse_trace, run_usage

FILES = ("SMOLAGENTS_trace_openinference.json", "LANGCHAIN_trace_openinference.json")


def _spans(path):
    data = json.loads(path.read_text())
    return data["spans"] if isinstance(data, dict) else data


def _parent(s):
    p = s.get("parent")
    return p.get("span_id") if isinstance(p, dict) else s.get("parent_id")


def _kind(s):
    return s["attributes"].get("openinference.span.kind")


def _expected_arguments(value):
    try:
        data = json.loads(value)
    except ValueError:  # LangChain writes str() of the arguments dict: a Python literal
        data = ast.literal_eval(value)
    if isinstance(data, dict) and "kwargs" in data:
        return data["kwargs"]
    return data


def _calls(spans):
    """The LLM spans that hold no LLM span below them (the calls), by id."""
    by_id = {s["context"]["span_id"]: s for s in spans}
    wrappers = set()
    for s in spans:
        if _kind(s) != "LLM":
            continue
        p = _parent(s)
        while p in by_id:
            if _kind(by_id[p]) == "LLM":
                wrappers.add(p)
            p = _parent(by_id[p])
    return [s for s in spans if _kind(s) == "LLM" and s["context"]["span_id"] not in wrappers]


@pytest.mark.corpus
@pytest.mark.parametrize("name", FILES)
def test_openinference_corpus_is_read_by_its_own_convention(corpus, name):
    path = corpus / "openinference" / name
    spans = _spans(path)
    run = load_trace(path)
    tools = sorted((s for s in spans if _kind(s) == "TOOL"), key=lambda s: s["start_time"])
    steps = run.plan.steps
    assert [s.tool for s in steps] == [t["attributes"]["tool.name"] for t in tools]
    assert [s.arguments for s in steps] == [
        _expected_arguments(t["attributes"]["input.value"]) for t in tools
    ]
    for step, t in zip(steps, tools):  # never the schema
        schema = t["attributes"].get("tool.parameters")
        assert schema is None or step.arguments != json.loads(schema)
    calls = _calls(spans)
    assert len(run.model_calls) == len(calls)
    if name.startswith("SMOLAGENTS"):  # each call wrapped in three nested LLM spans: counted once
        assert 3 * len(calls) == sum(_kind(s) == "LLM" for s in spans)
    usage = run_usage(run)
    assert usage.model_calls == len(calls)
    assert usage.input_tokens == sum(int(s["attributes"]["llm.token_count.prompt"]) for s in calls)
    assert usage.output_tokens == sum(
        int(s["attributes"]["llm.token_count.completion"]) for s in calls
    )
    t0 = min(s["start_time"] for s in spans)
    assert sorted(c.start for c in run.model_calls) == sorted(
        (s["start_time"] - t0) / 1e9 for s in calls
    )
    assert run.time == pytest.approx((max(s["end_time"] for s in spans) - t0) / 1e9)
    agent = min((s for s in spans if _kind(s) == "AGENT"), key=lambda s: s["start_time"])
    assert run.plan.goal[:40] in agent["attributes"]["input.value"]
    codes = [f.code for f in run.plan.import_findings]
    assert "deviating_attribute" not in codes and codes.count("read_as_openinference") == 1
    assert (
        next(f for f in run.plan.import_findings if f.code == "read_as_openinference").severity
        == "info"
    )
    assert {c.step for c in run.model_calls} <= set(run.plan.ids) | {None}


def _oi(sid, kind, start, end, parent=None, **attrs):
    return {
        "name": kind.lower(),
        "context": {"span_id": sid, "trace_id": 1},
        "parent_id": parent,
        "start_time": int(start * 1e9) + 1,
        "end_time": int(end * 1e9) + 1,
        "attributes": {"openinference.span.kind": kind, **attrs},
    }


@pytest.mark.parametrize(
    "value, expected",
    [
        ('{"args": [], "kwargs": {"city": "Paris"}}', {"city": "Paris"}),  # smolagents
        ('{"kwargs": {"city": "Paris"}}', {"city": "Paris"}),  # LlamaIndex
        ('{"args": ["Paris"], "kwargs": {}}', {"args": ["Paris"]}),
        ('{"city": "Paris"}', {"city": "Paris"}),
        ("{'city': 'Paris'}", {"city": "Paris"}),  # str() of a dict (LangChain): read as a literal
        # a call: kept as text, never evaluated
        (
            "{'city': Paris()}",
            {"input": "{'city': Paris()}"},
        ),
        ("{'city': __import__('os')}", {"input": "{'city': __import__('os')}"}),
        ('"Paris"', {"input": "Paris"}),
    ],
)
def test_arguments_come_from_input_value_unwrapped(value, expected):
    spans = [
        _oi(1, "AGENT", 0, 5, **{"input.value": '{"task": "weather"}'}),
        _oi(
            2,
            "TOOL",
            1,
            2,
            1,
            **{
                "tool.name": "w",
                "input.value": value,
                "tool.parameters": '{"city": {"type": "string"}}',
            },
        ),
    ]
    run = parse_trace("\n".join(json.dumps(s) for s in spans))
    assert run.plan.step("w").arguments == expected and run.plan.goal == "weather"


def test_a_wrapper_without_tokens_gives_none_and_a_chain_gives_its_tokens_down():
    spans = [
        _oi(1, "AGENT", 0, 9, **{"input.value": "do it"}),
        _oi(
            2, "LLM", 0, 3, 1, **{"llm.token_count.prompt": "40", "llm.token_count.completion": "2"}
        ),
        _oi(3, "LLM", 0.1, 2.9, 2),  # the call itself records no tokens: the wrapper's are its own
        # two calls under one wrapper: two calls
        _oi(4, "LLM", 4, 6, 1, **{"llm.token_count.prompt": "7"}),
        _oi(5, "LLM", 4.1, 4.5, 4, **{"llm.token_count.prompt": "3"}),
        _oi(6, "LLM", 4.6, 5.5, 4, **{"llm.token_count.prompt": "4"}),
    ]
    run = parse_trace("\n".join(json.dumps(s) for s in spans))
    assert [(c.id[-1], c.input_tokens) for c in run.model_calls] == [("3", 40), ("5", 3), ("6", 4)]


def test_a_tool_span_call_id_is_its_tool_id():
    """OpenInference names a TOOL span's call id ``tool.id`` (the id the model gave the call: ``tool_call.id`` in its
    messages, ``SpanAttributes.TOOL_ID`` in openinference-semantic-conventions); several instrumentations write it."""
    spans = [
        _oi(1, "AGENT", 0, 5, **{"input.value": "weather?"}),
        _oi(
            2,
            "LLM",
            0.5,
            1,
            1,
            **{"llm.output_messages.0.message.tool_calls.0.tool_call.id": "call_1"},
        ),
        _oi(
            3,
            "TOOL",
            1,
            2,
            1,
            **{"tool.name": "w", "tool.id": "call_1", "input.value": '{"city": "Paris"}'},
        ),
        _oi(4, "TOOL", 2, 3, 1, **{"tool.name": "w", "input.value": '{"city": "Rome"}'}),
    ]
    run = parse_trace("\n".join(json.dumps(s) for s in spans))
    done = [e.observation.data for e in run.events if e.kind == "complete"]
    assert [d.get("call_id") for d in done] == [spans[2]["attributes"]["tool.id"], None]
    assert "no_call_ids" not in [f.code for f in run.plan.import_findings]
