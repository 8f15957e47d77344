"""How long a model call took (planviz.traces.calltimes), on real traces whose model spans do not measure it.

Every truth is computed here from the raw spans: their times, their events, their parents and siblings.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planviz import hindsight, load_trace, metrics, parse_trace, run_usage
from planviz.pictures.captions import run_notes
from planviz.pictures.gantt import _model_bars
from planviz.runs.usage import model_calls as usage_calls

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
UNENDED = sorted((REAL / "otel").glob("any-agent-*-unended.json"))
STREAMED = sorted((REAL / "openinference").glob("any-agent-*-streamed.json"))


def _kind(s):
    attrs = s.get("attributes") or {}
    return attrs.get("gen_ai.operation.name") or attrs.get("openinference.span.kind")


def _truth(spans):
    """Each span's end as the file tells it: the span's own, unless a model span never ended or ended before its
    first token (an event after its end), or a tool span that returned never ended: then the next span under its
    parent that started after it, else the end of the nearest ancestor that ended (never before its events)."""
    ids = {s["context"]["span_id"]: s for s in spans}
    parent = {sid: (s.get("parent") or {}).get("span_id") for sid, s in ids.items()}
    parent = {sid: p if p in ids else None for sid, p in parent.items()}
    under = {}
    for sid, p in parent.items():
        under.setdefault(p, []).append(ids[sid]["start_time"])

    def ended_above(p):
        while p is not None and ids[p]["end_time"] is None:
            p = parent[p]
        return None if p is None else ids[p]["end_time"]

    ends, inferred = {}, set()
    for sid, s in ids.items():
        events = [(e["timestamp"], e["name"]) for e in s.get("events") or []]
        last = max(events, default=None)
        model = _kind(s) in ("call_llm", "chat", "LLM")
        returned = _kind(s) in ("execute_tool", "TOOL") and any(
            k in s["attributes"]
            for k in ("gen_ai.output", "output.value", "gen_ai.tool.call.result")
        )
        opened = (
            model
            and last is not None
            and "first" in last[1].lower()
            and last[0] > (s["end_time"] or 0)
        )
        if opened or (s["end_time"] is None and (model or returned)):
            later = [t for t in under[parent[sid]] if t > s["start_time"]]
            limit = ended_above(parent[sid])
            assert limit is not None  # every such call of these files sits under a span that ended
            ends[sid] = max(s["start_time"], last[0] if last else 0, min(later + [limit]))
            inferred.add(sid)
        else:
            ends[sid] = s["end_time"]
    return ids, parent, ends, inferred


@pytest.mark.parametrize("path", UNENDED + STREAMED, ids=lambda p: p.name)
def test_model_calls_last_what_the_trace_tells(path):
    spans = json.loads(path.read_text())["spans"]
    ids, parent, ends, inferred = _truth(spans)
    t0 = min(s["start_time"] for s in spans)
    run = load_trace(path)
    models = sorted(
        (s["start_time"], sid) for sid, s in ids.items() if _kind(s) in ("call_llm", "chat", "LLM")
    )
    assert len(run.model_calls) == len(models)
    for call, (start, sid) in zip(run.model_calls, models):
        assert call.start == pytest.approx((start - t0) / 1e9, abs=1e-9)
        # before: None, or 0.2-0.8 ms
        assert call.duration == pytest.approx((ends[sid] - start) / 1e9, abs=1e-9)
        assert call.duration_inferred == (sid in inferred)
        assert call.duration > 0.1  # a model answering in a tenth of a second or more: not free
    assert run.outcome == "plan_complete"
    assert run.time == pytest.approx((max(ends.values()) - t0) / 1e9, abs=1e-9)
    usage = [c for _, c in usage_calls(run)]  # what the report, explorer and captions read
    assert [c.get("duration_inferred", False) for c in usage] == [
        sid in inferred for _, sid in models
    ]

    # hindsight: each tool call's work is its own time plus the model time that led to it (no data edge here:
    # write_file's "2025" is no value get_current_time returned), so the ideal is the longest such work
    tools = sorted(
        (s["start_time"], sid) for sid, s in ids.items() if _kind(s) in ("execute_tool", "TOOL")
    )
    lead = {sid: [] for _, sid in tools}
    for start, sid in models:
        same = [(t, x) for t, x in tools if parent[x] == parent[sid]] or tools
        led = next((x for t, x in same if t >= ends[sid]), None)
        if led is not None:
            lead[led].append((max(start, t0), min(ends[sid], ids[led]["start_time"])))
    work = []
    for start, sid in tools:
        covered, reach = 0, None
        for a, b in sorted(lead[sid]):
            if b > a and (reach is None or b > reach):
                covered += b - max(a, reach if reach is not None else a)
                reach = b
        work.append((ends[sid] - start + covered) / 1e9)
    h = hindsight(run)
    # the only result another call read
    assert {u for u, _, _ in h.data_edges} <= {"get_current_time"}
    assert h.actual_makespan == pytest.approx(run.time, abs=1e-9)
    # the ideal schedule holds each tool call after the model time that led to it, and never beats the run
    assert max(work) - 1e-6 <= h.ideal_makespan <= h.actual_makespan + 1e-9
    assert h.ideal_makespan > 0.5  # before: 0.0044 to 0.378 s, the model calls free
    assert h.unknown_model_time == () and "unknown" not in h.summary()
    delay = metrics(run).critical_path_delay
    assert delay is not None and delay < run.time - max(work) + 1e-6
    # the timeline's model bars say when an end was inferred
    tips = [b.result for b in _model_bars(run)]
    assert [("end inferred" in t) for t in tips] == [sid in inferred for _, sid in models]


def _otlp(spans):
    def attrs(d):
        return [
            {
                "key": k,
                "value": {"boolValue": v}
                if isinstance(v, bool)
                else {"intValue": str(v)}
                if isinstance(v, int)
                else {"stringValue": v},
            }
            for k, v in d.items()
        ]

    return json.dumps(
        {
            "resourceSpans": [
                {
                    "scopeSpans": [
                        {
                            "spans": [
                                {
                                    "traceId": "ab" * 16,
                                    "spanId": f"{i + 1:016x}",
                                    "parentSpanId": p and f"{p:016x}",
                                    "name": n,
                                    "startTimeUnixNano": str(T0 + a),
                                    "endTimeUnixNano": str(T0 + b) if b else None,
                                    "attributes": attrs(at),
                                    "events": [
                                        {"name": en, "timeUnixNano": str(T0 + et)} for en, et in ev
                                    ],
                                }
                                for i, (n, p, a, b, at, ev) in enumerate(spans)
                            ]
                        }
                    ]
                }
            ]
        }
    )


S = 1_000_000_000
T0 = 1_770_000_000 * S
AGENT = {"gen_ai.operation.name": "invoke_agent"}
TOOL = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "search",
    "gen_ai.tool.call.result": "ok",
}


def test_a_streamed_call_that_records_nothing_after_its_stream_object_took_an_unknown_time():
    chat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "llm.is_streaming": True}
    run = parse_trace(
        _otlp(
            [
                ("agent", None, 0, 5 * S, AGENT, []),
                ("chat m", 1, S // 10, S // 10 + 400_000, chat, []),  # 0.4 ms: the stream object
                ("execute_tool search", 1, 3 * S, 4 * S, TOOL, []),
            ]
        )
    )
    (call,) = run.model_calls
    assert call.duration is None and call.step == "search"
    h = hindsight(run)
    assert h.unknown_model_time == ("search",)
    # never free
    assert h.ideal_makespan is None and h.summary().startswith("5 s ran, possible unknown")
    assert metrics(run).critical_path_delay is None
    assert "duration" not in usage_calls(run)[0][1]
    assert run_usage(run).model_calls == 1


def test_the_same_call_unstreamed_keeps_its_time_and_a_completion_event_after_the_end_extends_it():
    chat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}
    run = parse_trace(
        _otlp(
            [
                ("agent", None, 0, 5 * S, AGENT, []),
                ("chat m", 1, S // 10, S // 10 + 400_000, chat, []),
                (
                    "chat m",
                    1,
                    2 * S,
                    2 * S + 400_000,
                    dict(chat, **{"llm.is_streaming": True}),
                    [("gen_ai.content.completion", 2 * S + 700_000_000)],
                ),
                ("execute_tool search", 1, 3 * S, 4 * S, TOOL, []),
            ]
        )
    )
    first, second = run.model_calls
    # not streamed: its own time
    assert first.duration == pytest.approx(0.0004) and not first.duration_inferred
    # measured by its last event
    assert second.duration == pytest.approx(0.7) and not second.duration_inferred
    assert hindsight(run).unknown_model_time == ()


def test_a_first_token_after_the_span_ended_makes_the_call_last_until_the_next_span_under_its_parent():
    chat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}
    run = parse_trace(
        _otlp(
            [
                ("agent", None, 0, 5 * S, AGENT, []),
                ("chat m", 1, S // 10, S // 10 + 400_000, chat, [("First Token Stream Event", S)]),
                ("parse", 1, 2 * S, 2 * S + 1000, {}, []),
                ("execute_tool search", 1, 3 * S, 4 * S, TOOL, []),
            ]
        )
    )
    (call,) = run.model_calls
    assert call.duration == pytest.approx(1.9) and call.duration_inferred


def _lf(id, type, start, end, parent=None, **more):
    return {
        "id": id,
        "type": type,
        "name": more.pop("name", id),
        "parentObservationId": parent,
        "startTime": f"2025-01-01T00:00:{start:06.3f}Z",
        "endTime": end and f"2025-01-01T00:00:{end:06.3f}Z",
        **more,
    }


def test_a_langfuse_generation_exported_unended_ends_with_the_trace_when_it_answered():
    for latency, output, finished in [(9.5, "hi", True), (None, "hi", False), (9.5, None, False)]:
        export = {
            "trace": {"id": "t", "latency": latency},
            "observations": [
                _lf("a", "SPAN", 0.5, 2.0),
                _lf("g", "GENERATION", 9.0, None, model="m", output=output),
            ],
        }
        run = parse_trace(json.dumps(export))
        assert run.outcome == ("plan_complete" if finished else None), (latency, output)
        (call,) = run.model_calls
        if finished:  # the trace's latency runs from its first observation's start
            assert (
                run.time == pytest.approx(9.5)
                and call.duration == pytest.approx(1.0)
                and call.duration_inferred
            )
        else:  # no latency to bound it, or no reply: still running when exported
            assert call.duration is None


def test_langfuse_completion_start_after_the_end_is_a_first_token():
    export = {
        "trace": {"id": "t"},
        "observations": [
            _lf("a", "SPAN", 0.0, 6.0),
            _lf(
                "g",
                "GENERATION",
                1.0,
                1.001,
                "a",
                model="m",
                output="hi",
                completionStartTime="2025-01-01T00:00:02.000Z",
            ),
            _lf("t", "TOOL", 5.0, 5.5, "a", output="ok"),
        ],
    }
    run = parse_trace(json.dumps(export))
    (call,) = run.model_calls
    assert call.duration == pytest.approx(4.0) and call.duration_inferred and call.step == "t"


def test_an_ai_sdk_stream_lasts_its_ms_to_finish():
    span = {
        "name": "ai.streamText.doStream",
        "spanContext": {"traceId": "ab" * 16, "spanId": "01" * 8},
        "startTime": [1770000000, 0],
        "endTime": [1770000000, 500_000],
        "attributes": {
            "ai.operationId": "ai.streamText.doStream",
            "ai.model.id": "m",
            "ai.response.msToFinish": 1500.0,
        },
        "status": {"code": 1},
        "events": [],
    }
    run = parse_trace(json.dumps([span]))
    (call,) = run.model_calls
    assert call.duration == pytest.approx(1.5) and not call.duration_inferred


def test_a_caption_says_time_unknown_rather_than_the_known_part():
    chat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}
    run = parse_trace(
        _otlp(
            [
                ("agent", None, 0, 5 * S, AGENT, []),
                ("chat m", 1, S // 10, S // 2, chat, []),
                ("chat m", 1, S, S + 300_000, dict(chat, **{"llm.is_streaming": True}), []),
                ("execute_tool search", 1, 3 * S, 4 * S, TOOL, []),
            ]
        )
    )
    notes = dict(run_notes(run))
    assert notes["search"].startswith("2 model calls, time unknown")


def test_an_ai_sdk_stream_lasts_until_its_finish_event_even_when_its_span_ended_at_once():
    """The AI SDK v6's own doStream span (openinference-vercel's capture): as recorded it ends just after its
    ai.stream.finish event, and it lasts its own time; the same span ended 0.5 ms after it began (as an
    instrumentation that ends the span when the stream object is returned writes it) lasts until that event."""
    path = REAL / "otel-js" / "openinference-vercel-v6-ai-streamText-doStream.json"
    (raw,) = json.loads(path.read_text())
    start, end = (t[0] * S + t[1] for t in (raw["startTime"], raw["endTime"]))
    finish = max(e["time"][0] * S + e["time"][1] for e in raw["events"])
    assert start < finish < end
    (call,) = load_trace(path).model_calls
    assert (
        call.duration == pytest.approx((end - start) / 1e9, abs=1e-9) and not call.duration_inferred
    )
    cut = dict(raw, endTime=[raw["startTime"][0], raw["startTime"][1] + 500_000])
    run = parse_trace(json.dumps([cut]))
    (call,) = run.model_calls
    assert (
        call.duration == pytest.approx((finish - start) / 1e9, abs=1e-9)
        and not call.duration_inferred
    )
    assert (
        run.time == pytest.approx((finish - start) / 1e9, abs=1e-9)
        and run.outcome == "plan_complete"
    )
    assert hindsight(run).ideal_makespan == pytest.approx((finish - start) / 1e9, abs=1e-9)


def test_a_model_call_that_is_a_step_and_never_ended_ends_under_its_agent_only_when_its_reply_is_recorded():
    for reply, finished in [({"gen_ai.output": '[{"content": "2025"}]'}, True), ({}, False)]:
        chat = {"gen_ai.operation.name": "call_llm", "gen_ai.request.model": "m", **reply}
        run = parse_trace(
            _otlp([("agent", None, 0, 3 * S, AGENT, []), ("call_llm m", 1, S, None, chat, [])])
        )
        assert run.outcome == ("plan_complete" if finished else None), reply
        # the model call is the step (no tool call); bounded by the agent's end
        (call,) = run.model_calls
        if finished:
            assert call.duration == pytest.approx(2.0) and call.duration_inferred
        else:  # maybe still running when exported: how long it ran is not known
            assert call.duration is None and not call.duration_inferred


def test_metrics_and_the_report_say_unknown_for_a_delay_no_one_can_tell():
    from planviz.frontends.panels import metrics_rows

    chat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "llm.is_streaming": True}
    run = parse_trace(
        _otlp(
            [
                ("agent", None, 0, 5 * S, AGENT, []),
                ("chat m", 1, S // 10, S // 10 + 400_000, chat, []),
                ("execute_tool search", 1, 3 * S, 4 * S, TOOL, []),
            ]
        )
    )
    assert dict(metrics(run).cells())["critical_path_delay"] == "unknown"
    rows = dict(metrics_rows(run))
    assert rows["critical path delay"] == "unknown" and rows["hindsight"].startswith(
        "5 s ran, possible unknown"
    )
