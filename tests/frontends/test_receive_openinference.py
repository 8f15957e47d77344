"""planviz.receive with the real thing: the ``openai`` client instrumented by ``openinference-instrumentation-openai``,
talking to a fake OpenAI-compatible server on 127.0.0.1, its spans sent live by the OpenTelemetry SDK over OTLP/HTTP
(protobuf). The run received equals ``load_trace`` of the same spans written to an OTLP/JSON file, and both say what
the spans and the canned replies say (model, tokens, the tool call's arguments, its result, the times).

The instrumentation writes the LLM spans; the agent loop around it (the AGENT span and the TOOL span of the tool it
runs) is written with OpenInference's own ``OITracer`` (its ``agent`` decorator, its TOOL span with ``tool.id``, the
convention's name of the call id the model gave), as a user of OpenInference writes it.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("opentelemetry.sdk.trace")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")
openai = pytest.importorskip(
    "openai", reason="the OpenInference client test needs `openai` (pip install -e .[test])"
)
instrumentor = pytest.importorskip(
    "openinference.instrumentation.openai",
    reason="the OpenInference client test needs `openinference-instrumentation-openai` (pip install -e .[test])",
)

from openinference.instrumentation import OITracer, TraceConfig  # noqa: E402
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

import planviz  # noqa: E402
from planviz.traces.own.tracefile import run_to_lines  # noqa: E402

from .test_receive import otlp_json_file  # noqa: E402

MODEL = "fake-gpt-4o"
ARGUMENTS = {"city": "Paris", "unit": "celsius"}
WEATHER = "18 C, cloudy"
ANSWER = "It is 18 C and cloudy in Paris."
REPLIES = [  # what the fake server answers, in turn: a tool call, then (given its result) the final answer
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": f"{MODEL}-2024-08-06",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": json.dumps(ARGUMENTS)},
                        }
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 61, "completion_tokens": 18, "total_tokens": 79},
    },
    {
        "id": "chatcmpl-2",
        "object": "chat.completion",
        "created": 1_700_000_001,
        "model": f"{MODEL}-2024-08-06",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": ANSWER},
            }
        ],
        "usage": {"prompt_tokens": 95, "completion_tokens": 9, "total_tokens": 104},
    },
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city now.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            },
        },
    }
]


class _FakeOpenAI(BaseHTTPRequestHandler):
    """POST /v1/chat/completions: the next canned reply; what each request asked is kept in ``server.asked``."""

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        asked = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.asked.append((self.path, asked))
        body = json.dumps(REPLIES[len(self.server.asked) - 1]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def fake_openai():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeOpenAI)
    server.asked = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(5)


def _run_agent(provider, base_url: str) -> str:
    """model -> run the tool it asks for -> model, under an AGENT span; the answer."""
    tracer = OITracer(provider.get_tracer("weather-agent"), config=TraceConfig())
    client = openai.OpenAI(base_url=base_url, api_key="not-a-key", max_retries=0)

    def get_weather(city: str, unit: str) -> str:
        return WEATHER

    def run_tool(
        call,
        # the TOOL span as OpenInference's manual API writes it, the model's call id its tool.id
    ) -> str:
        with tracer.start_as_current_span(
            call.function.name, openinference_span_kind="tool"
        ) as span:
            span.set_tool(name=call.function.name, parameters=TOOLS[0]["function"]["parameters"])
            span.set_attribute("tool.id", call.id)  # SpanAttributes.TOOL_ID in the conventions
            span.set_input(call.function.arguments, mime_type="application/json")
            result = get_weather(**json.loads(call.function.arguments))
            span.set_output(result)
            return result

    @tracer.agent(name="weather_agent")
    def agent(question: str) -> str:
        messages = [{"role": "user", "content": question}]
        while True:
            reply = (
                client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
                .choices[0]
                .message
            )
            if not reply.tool_calls:
                return reply.content
            messages.append(reply.model_dump(exclude_none=True))
            for call in reply.tool_calls:
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": run_tool(call)}
                )

    return agent("What is the weather in Paris?")


def test_an_openinference_instrumented_openai_client_read_live_equals_its_spans_in_a_file(
    tmp_path, fake_openai
):
    memory = InMemorySpanExporter()
    oi = instrumentor.OpenAIInstrumentor()
    with planviz.receive(port=0) as rx:
        provider = TracerProvider()
        # protobuf, the exporter's default
        for exporter in (
            memory,
            OTLPSpanExporter(endpoint=rx.endpoint),
        ):
            provider.add_span_processor(SimpleSpanProcessor(exporter))
        oi.instrument(tracer_provider=provider)
        try:
            answer = _run_agent(provider, f"http://127.0.0.1:{fake_openai.server_port}/v1")
        finally:
            oi.uninstrument()
        provider.shutdown()
        live = rx.wait(timeout=20)
    assert answer == ANSWER and [p for p, _ in fake_openai.asked] == ["/v1/chat/completions"] * 2
    spans = memory.get_finished_spans()
    path = tmp_path / "openinference-openai.json"
    path.write_text(json.dumps(otlp_json_file(spans)))
    in_file = planviz.load_trace(path)
    assert list(run_to_lines(live)) == list(run_to_lines(in_file))
    assert live.model_calls == in_file.model_calls and live.events == in_file.events
    # against the raw spans and the canned replies, never planviz: the AGENT span's task, the TOOL span's call
    by_kind = {}
    for s in spans:
        by_kind.setdefault(s.attributes["openinference.span.kind"], []).append(s)
    assert sorted(by_kind) == ["AGENT", "LLM", "TOOL"] and len(by_kind["LLM"]) == 2
    (agent,), (tool,), chats = by_kind["AGENT"], by_kind["TOOL"], by_kind["LLM"]
    asked = fake_openai.asked[0][1]["messages"][0]["content"]
    assert live.plan.goal == agent.attributes["input.value"] == asked
    asked_for = REPLIES[0]["choices"][0]["message"]["tool_calls"][0]["function"]
    assert [s.id for s in live.plan.steps] == [tool.attributes["tool.name"]] == [asked_for["name"]]
    assert (
        [s.arguments for s in live.plan.steps]
        == [json.loads(tool.attributes["input.value"])]
        == [json.loads(asked_for["arguments"])]
        == [ARGUMENTS]
    )
    assert (
        tool.attributes["tool.id"]
        == REPLIES[0]["choices"][0]["message"]["tool_calls"][0]["id"]
        == "call_1"
    )
    done = [e for e in live.events if e.kind == "complete"]
    # a declared plan can match the call by it
    assert [e.observation.data["call_id"] for e in done] == ["call_1"]
    assert "no_call_ids" not in [f.code for f in live.plan.import_findings]
    assert (
        [e.observation.data["result"] for e in done]
        == [tool.attributes["output.value"]]
        == [WEATHER]
    )
    # the result went back to the model
    assert fake_openai.asked[1][1]["messages"][-1]["content"] == WEATHER
    t0 = min(s.start_time for s in spans)
    assert {e.step: e.time for e in live.events if e.kind == "start"} == {
        "get_weather": (tool.start_time - t0) / 1e9
    }
    assert [e.time for e in done] == [(tool.end_time - t0) / 1e9]
    assert live.outcome == "plan_complete"
    # the model calls: model, tokens from the canned usage, times from the LLM spans, what each was given and said
    calls = live.model_calls
    assert (
        [c.model for c in calls]
        == [s.attributes["llm.model_name"] for s in chats]
        == [r["model"] for r in REPLIES]
    )
    assert [(c.input_tokens, c.output_tokens, c.total_tokens) for c in calls] == [
        (r["usage"]["prompt_tokens"], r["usage"]["completion_tokens"], r["usage"]["total_tokens"])
        for r in REPLIES
    ]
    assert [c.start for c in calls] == pytest.approx(
        [(s.start_time - t0) / 1e9 for s in chats], abs=1e-9
    )
    assert [c.duration for c in calls] == pytest.approx(
        [(s.end_time - s.start_time) / 1e9 for s in chats], abs=1e-9
    )
    # the first asked for the tool, the second answered
    assert [c.step for c in calls] == [
        "get_weather",
        None,
    ]
    assert [c.id for c in calls] == [f"{s.context.span_id:016x}" for s in chats]
    # the last user or tool message each was given
    assert [c.input for c in calls] == [
        asked,
        WEATHER,
    ]
    assert calls[0].output == f"{asked_for['name']}({asked_for['arguments']})"
    assert calls[1].output == REPLIES[1]["choices"][0]["message"]["content"] == ANSWER
    assert [(t.role, t.text) for t in live.turns] == [
        ("user", asked),
        ("assistant", agent.attributes["output.value"]),
    ]
    # said when the reply came
    assert live.turns[1].time == pytest.approx((chats[1].end_time - t0) / 1e9, abs=1e-9)
    usage = planviz.run_usage(live)
    assert (usage.input_tokens, usage.output_tokens) == (61 + 95, 18 + 9)
