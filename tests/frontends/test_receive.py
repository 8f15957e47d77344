"""planviz.receive: spans sent live by the real OpenTelemetry SDK read as the same spans in a file; hostile bodies
are refused and change nothing; a burst is taken whole; stopping keeps what was accepted.

The truth is the spans themselves: the file each test compares with is written here from the SDK's finished
spans (OTLP/JSON by hand, or the SDK's own ``to_json``), never by planviz.
"""

from __future__ import annotations

import gzip
import json
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

pytest.importorskip("opentelemetry.sdk.trace")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import Status, StatusCode  # noqa: E402

import planviz  # noqa: E402
from planviz.io import limits  # noqa: E402
from planviz.traces.own.tracefile import run_to_lines  # noqa: E402

from ..runs.otlp import any_value  # noqa: E402


def _agent(tracer) -> None:
    """A small GenAI agent: a model call, two tool calls (the second uses the first's result), one that fails."""
    with tracer.start_as_current_span(
        "invoke_agent planner",
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner"},
    ):
        with tracer.start_as_current_span(
            "chat gpt-x",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-x",
                "gen_ai.usage.input_tokens": 120,
                "gen_ai.usage.output_tokens": 17,
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool search",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "search",
                "gen_ai.tool.call.arguments": json.dumps({"q": "otlp receivers"}),
                "gen_ai.tool.call.result": "doc-42",
            },
        ):
            pass
        with tracer.start_as_current_span(
            "chat gpt-x",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-x",
                "gen_ai.usage.input_tokens": 300,
                "gen_ai.usage.output_tokens": 9,
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool fetch",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "fetch",
                "gen_ai.tool.call.arguments": json.dumps({"id": "doc-42"}),
            },
        ) as span:
            span.set_status(Status(StatusCode.ERROR, "timeout after 5 s"))


def _attributes(mapping) -> list:
    return [{"key": k, "value": any_value(v)} for k, v in (mapping or {}).items()]


def otlp_json_file(spans) -> dict:
    """The OTLP/JSON a collector's file exporter writes for ``spans`` (hex ids, nanoseconds as digit strings)."""
    out = []
    for s in spans:
        out.append(
            {
                "traceId": f"{s.context.trace_id:032x}",
                "spanId": f"{s.context.span_id:016x}",
                "parentSpanId": f"{s.parent.span_id:016x}" if s.parent else "",
                "name": s.name,
                "kind": s.kind.value + 1,
                "startTimeUnixNano": str(s.start_time),
                "endTimeUnixNano": str(s.end_time),
                "attributes": _attributes(s.attributes),
                "events": [
                    {
                        "name": e.name,
                        "timeUnixNano": str(e.timestamp),
                        "attributes": _attributes(e.attributes),
                    }
                    for e in s.events
                ],
                "status": {
                    "code": s.status.status_code.value,
                    "message": s.status.description or "",
                },
            }
        )
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": _attributes(spans[0].resource.attributes)},
                "scopeSpans": [{"scope": {"name": "agent"}, "spans": out}],
            }
        ]
    }


def _provider(*exporters, batch: bool = False):
    provider = TracerProvider()
    for exporter in exporters:
        provider.add_span_processor(
            BatchSpanProcessor(
                exporter, max_queue_size=20_000, max_export_batch_size=500, schedule_delay_millis=50
            )
            if batch
            else SimpleSpanProcessor(exporter)
        )
    return provider


def _post(rx, body: bytes, content_type: str = "application/json", encoding: str | None = None):
    request = urllib.request.Request(
        rx.endpoint, data=body, method="POST", headers={"Content-Type": content_type}
    )
    if encoding:
        request.add_header("Content-Encoding", encoding)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gzip"])
def test_sdk_protobuf_run_equals_the_same_spans_in_a_file(tmp_path, gzipped):
    from opentelemetry.exporter.otlp.proto.http import Compression

    memory = InMemorySpanExporter()
    with planviz.receive(port=0) as rx:
        exporter = OTLPSpanExporter(
            endpoint=rx.endpoint,
            compression=Compression.Gzip if gzipped else Compression.NoCompression,
        )
        provider = _provider(memory, exporter)
        _agent(provider.get_tracer("agent"))
        provider.shutdown()
        live = rx.wait(timeout=20)
        assert rx.runs == [live] and rx.finished(rx.trace_ids[0])
    spans = memory.get_finished_spans()
    path = tmp_path / "otlp.json"
    path.write_text(json.dumps(otlp_json_file(spans)))
    assert list(run_to_lines(live)) == list(run_to_lines(planviz.load_trace(path)))
    # against the raw spans: the tool calls are the steps, with their arguments, results, error and times
    tools = [s for s in spans if s.attributes["gen_ai.operation.name"] == "execute_tool"]
    assert [s.id for s in live.plan.steps] == [s.attributes["gen_ai.tool.name"] for s in tools]
    assert [s.arguments for s in live.plan.steps] == [
        json.loads(s.attributes["gen_ai.tool.call.arguments"]) for s in tools
    ]
    done = {e.step: e.observation for e in live.events if e.kind in ("complete", "fail")}
    assert (
        done["search"].data["result"] == "doc-42"
        and done["fetch"].data["error"] == "timeout after 5 s"
    )
    t0 = min(s.start_time for s in spans)
    starts = {e.step: e.time for e in live.events if e.kind == "start"}
    assert starts == {s.attributes["gen_ai.tool.name"]: (s.start_time - t0) / 1e9 for s in tools}
    chats = [s for s in spans if s.attributes["gen_ai.operation.name"] == "chat"]
    calls = planviz.run_usage(live)
    assert (
        calls.input_tokens == sum(s.attributes["gen_ai.usage.input_tokens"] for s in chats) == 420
    )
    assert calls.output_tokens == sum(s.attributes["gen_ai.usage.output_tokens"] for s in chats)
    # the SDK's own span JSON (times in microseconds) reads as the same run
    sdk = tmp_path / "sdk.json"
    sdk.write_text(json.dumps([json.loads(s.to_json()) for s in spans]))
    other = planviz.load_trace(sdk)
    assert [(s.id, s.arguments) for s in other.plan.steps] == [
        (s.id, s.arguments) for s in live.plan.steps
    ]
    assert [(e.kind, e.step) for e in other.events] == [(e.kind, e.step) for e in live.events]
    assert [e.time for e in other.events] == pytest.approx([e.time for e in live.events], abs=2e-6)


@pytest.mark.parametrize("encoding", [None, "gzip"])
def test_an_otlp_json_body_reads_as_the_same_json_in_a_file(tmp_path, encoding):
    memory = InMemorySpanExporter()
    provider = _provider(memory)
    _agent(provider.get_tracer("agent"))
    provider.shutdown()
    doc = otlp_json_file(memory.get_finished_spans())
    body = json.dumps(doc).encode()
    with planviz.receive(port=0) as rx:
        status, _ = _post(rx, gzip.compress(body) if encoding else body, encoding=encoding)
        assert status == 200
        live = rx.wait(timeout=5)
    path = tmp_path / "otlp.json"
    path.write_bytes(body)
    assert list(run_to_lines(live)) == list(run_to_lines(planviz.load_trace(path)))
    assert rx.accepted == len(doc["resourceSpans"][0]["scopeSpans"][0]["spans"]) == 5


def _small_span_json(start: str = "1000") -> bytes:
    return json.dumps(
        {
            "resourceSpans": [
                {
                    "scopeSpans": [
                        {
                            "spans": [
                                {
                                    "traceId": "0af7651916cd43dd8448eb211c80319c",
                                    "spanId": "b7ad6b7169203331",
                                    "name": "execute_tool t",
                                    "startTimeUnixNano": start,
                                    "endTimeUnixNano": "2000",
                                    "attributes": [
                                        {
                                            "key": "gen_ai.operation.name",
                                            "value": {"stringValue": "execute_tool"},
                                        },
                                        {"key": "gen_ai.tool.name", "value": {"stringValue": "t"}},
                                    ],
                                }
                            ]
                        }
                    ]
                }
            ]
        }
    ).encode()


@pytest.mark.parametrize(
    "name, body, content_type, encoding, status, reason",
    [
        (
            "garbage protobuf",
            b"\xff\xff\xff\xff\x0f garbage",
            "application/x-protobuf",
            None,
            400,
            "protobuf",
        ),
        (
            "unknown fields",
            b"\x78\x05",
            "application/x-protobuf",
            None,
            400,
            "fields the message does not have",
        ),
        ("malformed JSON", b'{"resourceSpans": [', "application/json", None, 400, "not valid JSON"),
        (
            "JSON of another shape",
            b'{"resourceSpans": 5}',
            "application/json",
            None,
            400,
            "ExportTraceServiceRequest",
        ),
        (
            "JSON of no spans",
            b'{"traces": []}',
            "application/json",
            None,
            400,
            "holds no resourceSpans, only 'traces'",
        ),
        (
            "ids not hex",
            _small_span_json().replace(b"b7ad6b7169203331", b"zzzz"),
            "application/json",
            None,
            400,
            "not hex",
        ),
        (
            "a span the reader refuses",
            _small_span_json(start="yesterday"),
            "application/json",
            None,
            400,
            "startTimeUnixNano",
        ),
        (
            "gzip cut short",
            gzip.compress(_small_span_json())[:-12],
            "application/json",
            "gzip",
            400,
            "cut short",
        ),
        ("not gzip", b"plain", "application/json", "gzip", 400, "not valid gzip"),
        ("another encoding", b"{}", "application/json", "br", 415, "Content-Encoding"),
        ("another type", b"{}", "text/plain", None, 415, "Content-Type"),
    ],
)
def test_hostile_bodies_are_refused_with_a_reason_and_change_nothing(
    name, body, content_type, encoding, status, reason
):
    with planviz.receive(port=0) as rx:
        got, text = _post(rx, body, content_type, encoding)
        assert (got, rx.accepted, rx.trace_ids) == (status, 0, []), text
        assert reason in text
        assert _post(rx, _small_span_json())[0] == 200  # still serving
        assert rx.accepted == 1 and rx.wait(timeout=5).plan.steps[0].id == "t"


def test_oversized_bodies_and_gzip_bombs_are_refused_before_they_are_read_whole(monkeypatch):
    monkeypatch.setattr(limits, "MAX_OTLP_BYTES", 1 << 20)
    bomb = gzip.compress(b"\0" * (200 << 20), 9)  # 200 MiB of zeros in about 200 KB
    assert len(bomb) < 1 << 20
    with planviz.receive(port=0) as rx:
        status, text = _post(rx, bomb, "application/x-protobuf", "gzip")
        assert status == 413 and "larger than 1 MiB" in text and "MAX_OTLP_BYTES" in text
        status, text = _post(rx, b" " * ((1 << 20) + 1))
        assert status == 413 and "larger than 1 MiB" in text
        assert rx.accepted == 0 and _post(rx, _small_span_json())[0] == 200


def test_a_burst_of_ten_thousand_spans_is_taken_without_loss():
    with planviz.receive(port=0) as rx:
        provider = _provider(OTLPSpanExporter(endpoint=rx.endpoint), batch=True)
        tracer = provider.get_tracer("burst")
        ids = set()
        # 20 traces of 500 spans, sent in batches of 500 by the SDK's batch processor
        for _ in range(20):
            with tracer.start_as_current_span(
                "invoke_agent a", attributes={"gen_ai.operation.name": "invoke_agent"}
            ):
                for i in range(499):
                    with tracer.start_as_current_span(
                        f"execute_tool t{i}",
                        attributes={
                            "gen_ai.operation.name": "execute_tool",
                            "gen_ai.tool.name": f"t{i % 7}",
                        },
                    ) as s:
                        ids.add(s.get_span_context().span_id)
        assert provider.force_flush(60_000)
        provider.shutdown()
        assert rx.accepted == 10_000 and len(rx.trace_ids) == 20
        assert all(rx.finished(t) for t in rx.trace_ids)
        assert sum(len(r.plan.steps) for r in rx.runs[:2]) == 2 * 499


def test_stopping_finishes_a_request_already_begun():
    body = _small_span_json()
    rx = planviz.receive(port=0)
    with socket.create_connection(("127.0.0.1", rx.port), timeout=10) as sock:
        sock.sendall(
            f"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body[:40]
        )
        deadline = time.monotonic() + 10
        # the request is begun
        while not isinstance(rx._server._threads, list) and time.monotonic() < deadline:
            time.sleep(0.01)
        stopper = threading.Thread(target=rx.stop)
        stopper.start()
        stopper.join(0.3)
        assert stopper.is_alive()  # stop() waits for the request begun
        sock.sendall(body[40:])
        answer = sock.recv(200)
    stopper.join(10)
    assert not stopper.is_alive() and answer.startswith(b"HTTP/1.0 200")
    assert rx.accepted == 1 and rx.runs[0].plan.steps[0].id == "t"
    with pytest.raises(ConnectionError):  # stopped: nothing listens any more
        socket.create_connection(("127.0.0.1", rx.port), timeout=2).close()


def test_receive_refuses_wrong_arguments_and_a_taken_port():
    with pytest.raises(planviz.PlanvizTypeError, match="port"):
        planviz.receive(port="4318")
    with pytest.raises(planviz.PlanvizTypeError, match="host"):
        planviz.receive(port=0, host=None)
    with planviz.receive(port=0) as rx:
        with pytest.raises(planviz.PlanvizError, match="cannot listen"):
            planviz.receive(port=rx.port)
        with pytest.raises(TimeoutError, match="no trace finished"):
            rx.wait(timeout=0.05)
        with pytest.raises(planviz.PlanvizTypeError, match="timeout"):
            rx.wait(timeout="1")


def _start_cli(tmp_path, *extra):
    import subprocess
    import sys

    from tests.conftest import sigint_stops

    # Ctrl-C stops it even when this process ignores SIGINT
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "planviz",
            "receive",
            "--port",
            "0",
            "-o",
            str(tmp_path / "out"),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_stops,
    )
    banner = proc.stderr.readline()
    assert "receiving OTLP traces at http://127.0.0.1:" in banner, banner
    return proc, banner.split(" at ")[1].split()[0]


def test_the_command_writes_each_finished_run_and_its_report(tmp_path):
    proc, endpoint = _start_cli(tmp_path, "--runs", "1")
    try:
        memory = InMemorySpanExporter()
        provider = _provider(memory, OTLPSpanExporter(endpoint=endpoint))
        _agent(provider.get_tracer("agent"))
        provider.shutdown()
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    trace_id = f"{memory.get_finished_spans()[0].context.trace_id:032x}"
    spans = memory.get_finished_spans()
    took = (max(s.end_time for s in spans) - min(s.start_time for s in spans)) / 1e9
    assert out.splitlines() == [
        f"{trace_id}: 'run of agent planner' - step_failed - 2 tool calls, 2 model calls - "
        f"tokens 420 in, 26 out - {took:.3g} s"
    ]
    saved = planviz.load_trace(tmp_path / "out" / f"{trace_id}.jsonl")
    (tmp_path / "otlp.json").write_text(json.dumps(otlp_json_file(memory.get_finished_spans())))
    assert list(run_to_lines(saved)) == list(
        run_to_lines(planviz.load_trace(tmp_path / "otlp.json"))
    )
    assert (tmp_path / "out" / f"{trace_id}.html").read_text().startswith("<!DOCTYPE html>")


def test_ctrl_c_stops_the_command_and_keeps_an_unfinished_run(tmp_path):
    import signal

    proc, endpoint = _start_cli(tmp_path)
    try:
        # no root yet
        body = _small_span_json().replace(b'"name"', b'"parentSpanId": "00f067aa0ba902b7", "name"')
        status = urllib.request.urlopen(
            urllib.request.Request(
                endpoint, data=body, headers={"Content-Type": "application/json"}
            ),
            timeout=10,
        ).status
        assert status == 200
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert out.startswith(
        "0af7651916cd43dd8448eb211c80319c: 'execute_tool t' - unfinished (its root span never arrived) - "
        "1 tool calls, ? model calls - tokens unknown"
    )
    assert "1 runs written" in err and "1 spans taken" in err and "Traceback" not in err
    run = planviz.load_trace(tmp_path / "out" / "0af7651916cd43dd8448eb211c80319c.jsonl")
    assert [s.id for s in run.plan.steps] == ["t"]


def _openinference_agent(tracer) -> None:
    """The same shape an OpenInference instrumentation writes: AGENT, LLM and TOOL spans, input/output values."""
    with tracer.start_as_current_span(
        "Agent.run",
        attributes={"openinference.span.kind": "AGENT", "input.value": "find the receiver docs"},
    ):
        with tracer.start_as_current_span(
            "ChatModel",
            attributes={
                "openinference.span.kind": "LLM",
                "llm.model_name": "fake-llm",
                "llm.token_count.prompt": 55,
                "llm.token_count.completion": 8,
            },
        ):
            pass
        with tracer.start_as_current_span(
            "lookup",
            attributes={
                "openinference.span.kind": "TOOL",
                "tool.name": "lookup",
                "input.value": json.dumps({"topic": "otlp"}),
                "output.value": "page 7",
            },
        ):
            pass


def test_openinference_spans_sent_live_read_as_the_same_spans_in_a_file(tmp_path):
    memory = InMemorySpanExporter()
    with planviz.receive(port=0) as rx:
        provider = _provider(memory, OTLPSpanExporter(endpoint=rx.endpoint))
        _openinference_agent(provider.get_tracer("oi"))
        provider.shutdown()
        live = rx.wait(timeout=20)
    path = tmp_path / "oi.json"
    path.write_text(json.dumps(otlp_json_file(memory.get_finished_spans())))
    assert list(run_to_lines(live)) == list(run_to_lines(planviz.load_trace(path)))
    assert [(s.id, s.arguments) for s in live.plan.steps] == [("lookup", {"topic": "otlp"})]
    assert planviz.run_usage(live).input_tokens == 55


def _span_json(
    span_id: str, name: str, start: int, end: int, parent: str | None = "00f067aa0ba902b7"
) -> bytes:
    span = {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": span_id,
        "name": name,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(end),
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": name.split()[0]}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": name.split()[-1]}},
        ],
    }
    if parent:
        span["parentSpanId"] = parent
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode()


def test_the_explorer_follows_a_live_run_until_its_root_span_ends():
    with planviz.receive(port=0) as rx:
        assert (
            _post(rx, _span_json("b7ad6b7169203331", "execute_tool search", 1000, 2000))[0] == 200
        )
        ex = planviz.explore(rx)
        assert (
            [s.id for s in ex.run.plan.steps] == ["search"]
            and ex.following
            and not rx.finished(rx.trace_ids[0])
        )
        ex.index = 1  # stepping back while it runs: the view stays there as the run grows
        assert _post(rx, _span_json("b7ad6b7169203332", "execute_tool fetch", 3000, 4000))[0] == 200
        deadline = time.monotonic() + 20
        # the newer reading shown whole
        while getattr(ex, "_readings", 0) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (
            [s.id for s in ex.run.plan.steps] == ["search", "fetch"]
            and ex.index == 1
            and ex.following
        )
        # the mode line says the run is not over
        assert ex.mode.startswith("live run, receiving spans")
        # back at the newest event: the view follows the run again
        ex.index = len(ex.run.events) - 1
        assert (
            _post(rx, _span_json("00f067aa0ba902b7", "invoke_agent a", 500, 5000, parent=None))[0]
            == 200
        )
        while ex.following and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not ex.following
        assert [s.id for s in ex.run.plan.steps] == [
            "search",
            "fetch",
        ] and ex.run.outcome == "plan_complete"
        assert ex.index == len(ex.run.events) - 1 and ex.run == rx.run(rx.trace_ids[0])
        assert "fetch" in ex.svg
        assert ex.mode.startswith("live run, final (root span ended)")  # and then that it is final


def test_a_busy_receiver_answers_503_with_retry_after_and_takes_nothing(monkeypatch):
    from planviz.frontends import receiver

    monkeypatch.setattr(receiver, "BUSY", 1)
    with planviz.receive(port=0) as rx:
        # one request being decoded: the next must wait, then hear 503
        assert rx._busy.acquire(timeout=1)
        request = urllib.request.Request(
            rx.endpoint,
            data=_small_span_json(),
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=10)
        assert caught.value.code == 503 and caught.value.headers["Retry-After"] == "1"
        assert rx.accepted == 0 and rx.trace_ids == []
        rx._busy.release()
        assert _post(rx, _small_span_json())[0] == 200 and rx.accepted == 1


def test_fields_of_a_newer_otlp_beside_spans_are_ignored_as_receivers_must():
    """OTLP: receivers ignore fields they do not know (protobuf, and JSON names), so a newer exporter still sends."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest()
    span = (
        request.resource_spans.add()
        .scope_spans.add()
        .spans.add(name="execute_tool t", start_time_unix_nano=1000, end_time_unix_nano=2000)
    )
    span.trace_id, span.span_id = bytes(range(1, 17)), bytes(range(1, 9))
    for key, value in (("gen_ai.operation.name", "execute_tool"), ("gen_ai.tool.name", "t")):
        span.attributes.add(key=key).value.string_value = value
    # field 127 (varint 1): unknown to this OTLP version
    newer = request.SerializeToString() + b"\xf8\x07\x01"
    doc = json.loads(_small_span_json())
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["futureField"] = {"x": 1}
    with planviz.receive(port=0) as rx:
        assert _post(rx, newer, "application/x-protobuf")[0] == 200
        assert _post(rx, json.dumps(doc).encode())[0] == 200
        assert rx.accepted == 2 and [r.plan.steps[0].id for r in rx.runs] == ["t", "t"]


def test_what_the_receiver_holds_is_bounded(monkeypatch):
    body = _small_span_json()
    monkeypatch.setattr(limits, "MAX_TRACE_BYTES", 2 * len(body) + 10)
    with planviz.receive(port=0) as rx:
        assert [_post(rx, body)[0] for _ in range(2)] == [200, 200]
        status, text = _post(rx, body)
        assert status == 413 and "MAX_TRACE_BYTES" in text and "stop it" in text
        assert rx.accepted == 2 and rx.held == 2 * len(body)


def test_a_client_that_leaves_mid_request_changes_nothing_and_prints_nothing(capfd):
    body = _small_span_json()
    with planviz.receive(port=0) as rx:
        with socket.create_connection(("127.0.0.1", rx.port), timeout=10) as sock:
            sock.sendall(
                f"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body[:40]
            )
        assert _post(rx, body)[0] == 200  # still serving
    assert rx.accepted == 1 and rx.refused == 1 and len(rx.trace_ids) == 1
    assert "Traceback" not in capfd.readouterr().err


def _unended(doc: dict, name: str) -> dict:
    """``doc`` with span ``name`` as an exporter sends it while it runs: no end time, no result yet."""
    doc = json.loads(json.dumps(doc))
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        if span["name"] == name:
            del span["endTimeUnixNano"]
            span["attributes"] = [
                a for a in span["attributes"] if a["key"] != "gen_ai.tool.call.result"
            ]
    return doc


@pytest.mark.parametrize("order", ["unended then ended", "ended then unended", "the same twice"])
def test_a_span_sent_twice_is_kept_once_its_ended_copy_winning(tmp_path, order):
    memory = InMemorySpanExporter()
    provider = _provider(memory)
    _agent(provider.get_tracer("agent"))
    provider.shutdown()
    spans = memory.get_finished_spans()
    final = otlp_json_file(spans)
    running = _unended(final, "execute_tool search")
    first, second = {
        "unended then ended": (running, final),
        "ended then unended": (final, running),
        "the same twice": (final, final),
    }[order]
    with planviz.receive(port=0) as rx:
        assert _post(rx, json.dumps(first).encode())[0] == 200
        after_first = rx.changes(rx.trace_ids[0])
        assert _post(rx, json.dumps(second).encode())[0] == 200
        live = rx.run(rx.trace_ids[0])
        # both requests taken whole; the receiver keeps one copy of each span
        assert rx.accepted == 10
        # nothing new: no re-read
        assert rx.changes(rx.trace_ids[0]) == after_first + (order == "unended then ended")
    path = tmp_path / "otlp.json"
    path.write_text(json.dumps(final))
    assert list(run_to_lines(live)) == list(run_to_lines(planviz.load_trace(path)))
    # against the raw spans: each tool call is one step, ended at its span's end, with its result
    tools = [s for s in spans if s.attributes["gen_ai.operation.name"] == "execute_tool"]
    assert [s.id for s in live.plan.steps] == [s.attributes["gen_ai.tool.name"] for s in tools]
    t0 = min(s.start_time for s in spans)
    ends = {e.step: e.time for e in live.events if e.kind in ("complete", "fail")}
    assert ends == pytest.approx(
        {s.attributes["gen_ai.tool.name"]: (s.end_time - t0) / 1e9 for s in tools}
    )
    assert [e.kind for e in live.events if e.step == "search"] == ["start", "complete"]
    done = {e.step: e.observation for e in live.events if e.kind == "complete"}
    assert done["search"].data["result"] == tools[0].attributes["gen_ai.tool.call.result"]
    assert live.outcome is not None  # not left running


def _without_root(doc: dict) -> tuple[dict, int]:
    """``doc`` without its root span (the one an agent ends last), and how many spans name a parent not in it."""
    doc = json.loads(json.dumps(doc))
    scope = doc["resourceSpans"][0]["scopeSpans"][0]
    scope["spans"] = [s for s in scope["spans"] if s["parentSpanId"]]
    ids = {s["spanId"] for s in scope["spans"]}
    return doc, sum(s["parentSpanId"] not in ids for s in scope["spans"])


def _codes(run) -> list[str]:
    return [f.code for p in run.plans for f in p.import_findings]


def test_a_parent_not_received_yet_is_no_finding_until_the_run_is_final(tmp_path):
    memory = InMemorySpanExporter()
    provider = _provider(memory)
    _agent(provider.get_tracer("agent"))
    provider.shutdown()
    final = otlp_json_file(memory.get_finished_spans())
    partial, orphans = _without_root(final)
    # the model and tool calls all name the agent's span, which ends (and is sent) last
    assert orphans == 4
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(partial))
    in_file = planviz.load_trace(path)
    assert _codes(in_file).count("missing_parent") == 1 and f"{orphans} span(s)" in str(
        in_file.plan.import_findings
    )
    rx = planviz.receive(port=0)
    try:
        assert _post(rx, json.dumps(partial).encode())[0] == 200
        from planviz.frontends.widget.livefollow import follow

        explorer = follow(rx, interval=0.05)  # explore(rx), re-reading often
        live = rx.run(rx.trace_ids[0])
        assert not rx.finished(rx.trace_ids[0]) and "missing_parent" not in _codes(live)
        assert [c for c in _codes(live)] == [c for c in _codes(in_file) if c != "missing_parent"]
        assert [(e.kind, e.step, e.time) for e in live.events] == [
            (e.kind, e.step, e.time) for e in in_file.events
        ]
        assert not any(f[1] == "missing_parent" for f in explorer.snapshot["findings"])
    finally:
        rx.stop()  # the root never came: the run is final without it, and its missing parent is reported
    deadline = time.monotonic() + 10
    while explorer.following and time.monotonic() < deadline:
        time.sleep(0.02)
    stopped = rx.run(rx.trace_ids[0])
    # the same findings as the file (which names places by line)
    assert _codes(stopped) == _codes(in_file)
    assert f"{orphans} span(s) name a parent" in next(
        f.message for f in stopped.plan.import_findings if f.code == "missing_parent"
    )
    assert [(e.kind, e.step, e.time) for e in stopped.events] == [
        (e.kind, e.step, e.time) for e in in_file.events
    ]
    assert [f[1] for f in explorer.snapshot["findings"]].count("missing_parent") == 1
    assert "stopped" in explorer.mode
    # final while the receiver serves: its root span ended, and a parent never sent is a finding at once
    doc = json.loads(json.dumps(final))
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    lost = next(s for s in spans if s["name"] == "execute_tool search")
    lost["parentSpanId"] = "00000000deadbeef"  # a parent span the exporter never sent
    with planviz.receive(port=0) as rx:
        assert _post(rx, json.dumps(doc).encode())[0] == 200
        # the root span ended: the run is final while the receiver serves
        assert rx.finished(rx.trace_ids[0])
        live = rx.run(rx.trace_ids[0])
        assert _codes(live).count("missing_parent") == 1
        assert "1 span(s)" in next(
            f.message for f in live.plan.import_findings if f.code == "missing_parent"
        )
