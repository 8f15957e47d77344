"""OpenTelemetry JS span objects without ``spanContext``: the file and console exporters' shapes, and the near miss.

The files (tests/data/real/otel-js/, see SOURCES.md) are one agent run traced with the OpenTelemetry JS SDK 2.12
and written as vscode-copilot-chat's FileSpanExporter writes spans (``traceId``, ``spanId``, ``parentSpanId`` flat,
hrtime times) and as the SDK's ConsoleSpanExporter describes them (``id``, ``parentSpanContext``, ``timestamp``
and ``duration`` in microseconds). Before, both were refused as OpenTelemetry span JSON with a complaint about
``attributes`` or ``context``. The truth is computed here from the raw lines.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planviz import load_trace, parse_trace, run_usage
from planviz.errors import TraceFormatError

REAL = Path(__file__).parent.parent / "data" / "real" / "otel-js"


def _rows(name):
    """(id, parent, start ns, end ns, record) of every span line, from either shape."""
    rows = []
    for line in (REAL / name).read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        if "startTime" in raw:
            start = raw["startTime"][0] * 10**9 + raw["startTime"][1]
            end = raw["endTime"][0] * 10**9 + raw["endTime"][1]
            rows.append((raw["spanId"], raw.get("parentSpanId"), start, end, raw))
        else:
            start = round(raw["timestamp"] * 1000)
            parent = (raw.get("parentSpanContext") or {}).get("spanId")
            rows.append((raw["id"], parent, start, start + round(raw["duration"] * 1000), raw))
    return rows


@pytest.mark.parametrize("name", ["copilot_file_exporter.jsonl", "console_exporter.jsonl"])
def test_flat_js_spans_are_read(name):
    rows = _rows(name)
    run = load_trace(REAL / name)
    assert run.trace_format == "otel-js"
    t0 = min(r[2] for r in rows)
    tools = sorted(
        (r for r in rows if r[4]["attributes"].get("gen_ai.operation.name") == "execute_tool"),
        key=lambda r: r[2],
    )
    by_tool = {r[4]["attributes"]["gen_ai.tool.name"]: r for r in tools}
    assert sorted(s.tool for s in run.plan.steps) == sorted(by_tool)
    starts = {e.step: e.time for e in run.events if e.kind == "start"}
    for step in run.plan.steps:
        sid, parent, start, end, raw = by_tool[step.tool]
        assert step.arguments == json.loads(raw["attributes"]["gen_ai.tool.call.arguments"])
        assert step.duration == pytest.approx((end - start) / 1e9, abs=1e-6)
        assert starts[step.id] == pytest.approx((start - t0) / 1e9, abs=1e-6)
    root = next(r for r in rows if r[1] is None)
    assert all(r[1] == root[0] for r in tools)  # nesting: the tool calls ran in the agent span
    failed = {r[4]["attributes"]["gen_ai.tool.name"] for r in tools if r[4]["status"]["code"] == 2}
    assert {
        e.step for e in run.events if e.kind == "fail"
    } == failed and run.outcome == "step_failed"
    chats = [r for r in rows if r[4]["attributes"].get("gen_ai.operation.name") == "chat"]
    usage = run_usage(run)
    assert usage.model_calls == len(chats)
    assert usage.input_tokens == sum(r[4]["attributes"]["gen_ai.usage.input_tokens"] for r in chats)
    assert usage.output_tokens == sum(
        r[4]["attributes"]["gen_ai.usage.output_tokens"] for r in chats
    )
    task = json.loads(root[4]["attributes"]["gen_ai.input.messages"])[0]["parts"][0]["content"]
    assert task in run.plan.goal
    assert run.time == pytest.approx((max(r[3] for r in rows) - t0) / 1e9, abs=1e-6)


def test_other_records_of_the_file_are_skipped():
    """Copilot CLI's file holds ``{"type": "span", ...}`` lines beside records of other types (metrics)."""
    lines = (REAL / "copilot_file_exporter.jsonl").read_text(encoding="utf-8").splitlines()
    mixed = [json.dumps({"type": "span", **json.loads(line)}) for line in lines] + [
        '{"type": "metric", "name": "x"}'
    ]
    assert len(parse_trace("\n".join(mixed)).plan.steps) == 2


def test_plain_number_times_are_named_not_guessed():
    """Span objects with flat ids and times as plain numbers (Mastra's store writes such rows): the unit is not
    stated, so they are refused with a message naming the format and what it reads; never a guessed unit."""
    spans = [
        {
            "id": f"a{i}",
            "traceId": "t1",
            "parentSpanId": None if i == 0 else "a0",
            "name": "agent",
            "startTime": 1737040000000 + i,
            "endTime": 1737040001000 + i,
            "attributes": {},
        }
        for i in range(21)
    ]
    with pytest.raises(
        TraceFormatError,
        match=r"OpenTelemetry JS span objects .*without spanContext.*unit is not "
        r"stated.*\[seconds, nanoseconds\].*microseconds",
    ):
        parse_trace(json.dumps(spans))


SDK_SPANS = [
    "ai-streamText-doStream.json",
    "ai-generateText-doGenerate.json",
    "copilot_file_exporter.jsonl",
]


def _spans(name):
    text = (REAL / name).read_text(encoding="utf-8")
    return [json.loads(x) for x in text.splitlines()] if name.endswith("l") else json.loads(text)


@pytest.mark.parametrize("name", SDK_SPANS)
@pytest.mark.parametrize("written_end", ["duration", "_duration"])
def test_the_sdk_span_object_itself_stringified_reads_as_its_spans(name, written_end, tmp_path):
    """``JSON.stringify(span)`` of the JS SDK's span object (Copilot's JSON Lines exports write spans so) holds the
    context as ``_spanContext`` (``spanContext()`` is a method: JSON leaves it out), ``endTime`` ``[0, 0]`` until it
    is set and the length as ``duration``/``_duration``: it was refused ("spanContext: expected an object with
    traceId and spanId, got None"). Each span's ids, parent and times are computed here from the raw file."""
    rows = []
    for raw in _spans(name):
        start, end = raw["startTime"], raw["endTime"]
        length = (end[0] - start[0]) * 10**9 + end[1] - start[1]
        parent = raw.get("parentSpanContext", {}).get("spanId", raw.get("parentSpanId"))
        rows.append((ctx_of(raw)["spanId"], parent, start[0] * 10**9 + start[1], length, raw))
    lines = tmp_path / "spans.jsonl"
    lines.write_text(
        "".join(
            json.dumps(
                {
                    "name": raw["name"],
                    "_spanContext": {**ctx_of(raw), "traceFlags": 1},
                    "parentSpanContext": {"spanId": parent} if parent else None,
                    "attributes": raw["attributes"],
                    "status": raw["status"],
                    "startTime": raw["startTime"],
                    "endTime": [0, 0],
                    written_end: [length // 10**9, length % 10**9],
                    "_ended": True,
                    "events": raw.get("events", []),
                }
            )
            + "\n"
            for _, parent, _, length, raw in rows
        ),
        encoding="utf-8",
    )
    run, want = load_trace(lines), load_trace(REAL / name)
    assert run.plan.steps == want.plan.steps and run.model_calls == want.model_calls
    t0 = min(start for _, _, start, _, _ in rows)
    assert run.time == pytest.approx(
        max(s + n for _, _, s, n, _ in rows) / 1e9 - t0 / 1e9, abs=1e-6
    )
    assert len(run.model_calls) == len(want.model_calls) > 0


def ctx_of(raw):
    return raw.get("spanContext") or {"traceId": raw["traceId"], "spanId": raw["spanId"]}
