"""load_trace / parse_trace tell trace formats apart by shape; format= forces one; every way in gives one run."""

from __future__ import annotations

import io
import json

import pytest

from planviz import (
    PlanvizTypeError,
    TraceFormatError,
    load_trace,
    parse_trace,
    save_trace,
    simulate,
)
from planviz.traces import Sample, detect
from tests.runs.otlp import agent, chat, envelope, text, tool

from .test_langgraph import LINE

SPANS = [agent(1, 0, 5), tool(2, "a", 1, 2), tool(3, "b", 3, 4)]
SDK_SPAN = {
    "name": "x",
    "context": {"span_id": "0x01", "trace_id": "0x02"},
    "start_time": 5,
    "end_time": 9,
    "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "x"},
}


@pytest.mark.parametrize(
    "blob, expected",
    [
        (text(SPANS), "otel"),
        (json.dumps({"spans": [SDK_SPAN], "final_output": None}), "otel"),
        (json.dumps(SDK_SPAN) + "\n" + json.dumps(SDK_SPAN), "otel"),
        (json.dumps(LINE), "langgraph"),
        (json.dumps({"history": LINE}), "langgraph"),
        ('{"type": "header", "schema": "planviz-trace", "version": 1}\n', "planviz"),
    ],
)
def test_detect_from_the_first_bytes(blob, expected):
    assert detect(Sample.of(blob.encode())) == expected


@pytest.mark.parametrize(
    "data, expected",
    [
        (envelope(SPANS), "otel"),
        ({"spans": [SDK_SPAN]}, "otel"),
        ([SDK_SPAN], "otel"),
        (LINE, "langgraph"),
        ({"checkpoints": LINE}, "langgraph"),
        ({"unrelated": 1}, None),
        ([], None),
    ],
)
def test_detect_from_parsed_data(data, expected):
    assert detect(Sample(data=data, parsed=True)) == expected


def test_every_way_in_gives_the_same_run(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(text(SPANS))
    runs = [
        load_trace(path),
        load_trace(str(path)),
        load_trace(io.BytesIO(path.read_bytes())),
        load_trace(envelope(SPANS)),
        parse_trace(path.read_text()),
        parse_trace(path.read_bytes()),
        load_trace(path, format="otel"),
    ]
    with open(path, encoding="utf-8") as fh:  # a file opened in text mode
        runs.append(load_trace(fh))
    assert all(r.plan == runs[0].plan and r.events == runs[0].events for r in runs)


def test_planviz_traces_still_load_and_round_trip(tmp_path, cache_plan):
    run = simulate(cache_plan)
    save_trace(run, tmp_path / "run.jsonl")
    assert load_trace(tmp_path / "run.jsonl") == run
    assert load_trace(tmp_path / "run.jsonl", format="planviz") == run
    with open(tmp_path / "run.jsonl", "rb") as fh:
        assert load_trace(fh) == run


def test_an_imported_run_saves_as_a_planviz_trace_and_loads_back_equal(tmp_path):
    run = parse_trace(
        text(SPANS + [chat(4, 0, 0.5, tokens=(7, 3)), chat(5, 4.2, 4.8, tokens=(9, 1))])
    )
    assert [(c.input_tokens, c.step) for c in run.model_calls] == [(7, "a"), (9, None)]
    save_trace(run, tmp_path / "otel.jsonl")
    again = load_trace(tmp_path / "otel.jsonl")
    assert again.plan == run.plan and again.events == run.events
    assert again.model_calls == run.model_calls


@pytest.mark.parametrize(
    "call, error, why",
    [
        (
            lambda: load_trace(envelope(SPANS), format="zipkin"),
            TraceFormatError,
            "unknown trace format 'zipkin'",
        ),
        (
            lambda: parse_trace(text(SPANS), format="jaeger"),
            TraceFormatError,
            "unknown trace format",
        ),
        (
            lambda: load_trace({"unrelated": 1}),
            TraceFormatError,
            "not a trace planviz reads: it is a JSON object with keys unrelated",
        ),
        (lambda: load_trace(42), PlanvizTypeError, "path, an open file or parsed trace data"),
        (lambda: parse_trace(json.dumps(LINE), format="otel"), TraceFormatError, "span"),
        (
            lambda: parse_trace(text(SPANS), format="langgraph"),
            TraceFormatError,
            "state snapshot .* or checkpoint tuple",
        ),
        (lambda: load_trace("/no/such/trace.json"), TraceFormatError, "cannot read the trace"),
    ],
)
def test_wrong_formats_and_types_are_explained(call, error, why):
    with pytest.raises(error, match=why):
        call()


def test_a_history_whose_keys_come_after_the_first_64_kib_is_still_detected(tmp_path):
    """Detection is not only the head: JSON the first bytes do not settle is parsed (once) and detected by data."""
    big = {"blob": "x" * (100 * 1024)}
    history = [
        {
            **big,
            "values": {"x": 1},
            "next": [],
            "config": {"configurable": {"thread_id": "t", "checkpoint_id": "a"}},
            "metadata": {"source": "input", "step": -1},
            "created_at": "2025-01-01T00:00:00+00:00",
        }
    ]
    text = json.dumps(history[0])
    assert text.index('"values"') > 64 * 1024
    path = tmp_path / "h.json"
    path.write_text(json.dumps(history))
    assert load_trace(path).strategy == "recorded"
