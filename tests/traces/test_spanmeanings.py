"""One meaning, one reading, in every span reader: the user's task in every message shape, a tool call by any of
its marks, tokens by kind, what a model call was given and answered, a failed call's error text and result.
Each case is written in the shape a real emitter writes (named beside it); the truth is the value put in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planviz import load_trace, parse_trace, run_usage
from tests.runs.otlp import agent, envelope, span, tool

TASK = "Weather in Paris?"

SHAPES = {  # gen_ai.input.messages (or the attribute named) as each emitter writes the user's task
    "openai chat": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": TASK}],
    "anthropic blocks": [{"role": "user", "content": [{"type": "text", "text": TASK}]}],
    "genai parts": [{"role": "user", "parts": [{"type": "text", "content": TASK}]}],
    "gemini contents": {"contents": [{"role": "user", "parts": [{"text": TASK}]}]},
    "langchain messages": [{"type": "human", "content": TASK}],
    "langchain constructor": [
        {
            "lc": 1,
            "type": "constructor",
            "id": ["langchain", "schema", "HumanMessage"],
            "kwargs": {"content": TASK},
        }
    ],
    "json text of json text": json.dumps(
        [{"role": "user", "parts": [{"type": "text", "content": TASK}]}]
    ),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_the_task_is_read_from_every_message_shape(shape):
    value = SHAPES[shape]
    model = span(
        2,
        "chat gemini-2.5-flash",
        0.1,
        1,
        1,
        gen_ai__operation__name="chat",
        gen_ai__request__model="gemini-2.5-flash",
        gen_ai__input__messages=json.dumps(value),
    )
    run = parse_trace(json.dumps(envelope([span(1, "root", 0, 2), model])))
    assert run.plan.goal == TASK  # not the span name "chat gemini-2.5-flash"
    assert run.model_calls[0].input == TASK


def test_gemini_request_of_google_adk_gives_the_task_and_the_reply():
    """Google ADK writes the request as ``gcp.vertex.agent.llm_request`` (``contents[].parts[].text``) and the
    answer as ``gcp.vertex.agent.llm_response``, with no gen_ai.input.messages."""
    request = {
        "model": "gemini-2.5-flash",
        "contents": [{"role": "user", "parts": [{"text": TASK}]}],
    }
    response = {
        "content": {
            "role": "model",
            "parts": [{"function_call": {"name": "get_weather", "args": {"city": "Paris"}}}],
        }
    }
    model = span(
        2,
        "call_llm",
        0.1,
        1,
        1,
        gen_ai__operation__name="generate_content",
        gen_ai__request__model="gemini-2.5-flash",
        gcp__vertex__agent__llm_request=json.dumps(request),
        gcp__vertex__agent__llm_response=json.dumps(response),
    )
    run = parse_trace(json.dumps(envelope([span(1, "invocation", 0, 2), model])))
    assert run.plan.goal == TASK
    (call,) = run.model_calls
    assert (call.input, call.output) == (TASK, 'get_weather({"city": "Paris"})')


def test_an_openinference_agent_span_without_input_takes_the_first_model_calls_user_message():
    """any-agent's OpenInference LlamaIndex and OpenAI Agents traces: the AGENT span holds no input.value."""
    attrs = {
        "openinference__span__kind": "LLM",
        "llm__model_name": "gpt-4.1-mini",
        "llm__input_messages__0__message__role": "system",
        "llm__input_messages__0__message__content": "Be brief.",
        "llm__input_messages__1__message__role": "user",
        "llm__input_messages__1__message__content": TASK,
        "llm__output_messages__0__message__role": "assistant",
        "llm__output_messages__0__message__tool_calls__0__tool_call__function__name": "get_weather",
        "llm__output_messages__0__message__tool_calls__0__tool_call__function__arguments": '{"city": "Paris"}',
    }
    spans = [
        span(1, "agent_run", 0, 2, openinference__span__kind="AGENT"),
        span(2, "response", 0.1, 1, 1, **attrs),
    ]
    run = parse_trace(json.dumps(envelope(spans)))
    assert run.plan.goal == TASK  # was "agent_run"
    assert run.model_calls[0].output == 'get_weather({"city": "Paris"})'


def test_a_span_with_tool_attributes_and_no_operation_name_is_a_tool_call():
    """Koog and AG2 write gen_ai.tool.name and gen_ai.tool.call.id on their tool spans, never an operation."""
    spans = [agent(1, 0, 3)] + [
        span(
            i,
            f"tool.{t}",
            1,
            2,
            1,
            gen_ai__tool__name=t,
            gen_ai__tool__call__id=f"c{i}",
            input__value='{"name": "Bob"}',
            output__value=f"{t} Bob!",
        )
        for i, t in ((2, "HelloTool"), (3, "ByeTool"))
    ]
    run = parse_trace(json.dumps(envelope(spans)))
    assert sorted(s.tool for s in run.plan.steps) == ["ByeTool", "HelloTool"]
    assert run_usage(run).tool_calls == 2
    assert any(
        "no gen_ai.operation.name: read as tool calls" in f.message
        for f in run.plan.import_findings
    )


def test_a_chat_span_naming_a_tool_is_no_tool_call():
    spans = [
        agent(1, 0, 3),
        span(2, "chat", 0.1, 1, 1, gen_ai__operation__name="chat", gen_ai__tool__name="x"),
    ]
    run = parse_trace(json.dumps(envelope(spans)))
    assert run_usage(run).tool_calls == 0


def test_tokens_by_kind_and_the_stated_total_are_kept():
    """A thinking model: the total (1,200) is more than input plus output (20 + 7); the reasoning count rides apart."""
    model = span(
        2,
        "chat",
        0.1,
        1,
        1,
        gen_ai__operation__name="chat",
        gen_ai__request__model="gemini-2.5-pro",
        gen_ai__usage__input_tokens=20,
        gen_ai__usage__output_tokens=7,
        gen_ai__usage__total_tokens=1200,
        gen_ai__usage__reasoning__output_tokens=1173,
        gen_ai__usage__cache_read__input_tokens=4,
    )
    run = parse_trace(json.dumps(envelope([agent(1, 0, 2), model])))
    (call,) = run.model_calls
    assert (
        call.input_tokens,
        call.output_tokens,
        call.reasoning_tokens,
        call.cached_tokens,
        call.total_tokens,
    ) == (20, 7, 1173, 4, 1200)
    usage = run_usage(run)
    assert (usage.total_tokens, usage.reasoning_tokens, usage.cached_tokens) == (1200, 1173, 4)


def test_a_failed_tool_call_keeps_its_error_text_and_its_result():
    spans = [
        agent(1, 0, 3),
        tool(
            2,
            "fetch",
            0.5,
            1,
            args={"url": "https://x.example"},
            result={"status": 503},
            error="HTTPError: 503 Service Unavailable",
        ),
    ]
    run = parse_trace(json.dumps(envelope(spans)))
    ((sid, obs),) = run.state.observations
    assert sid == "fetch" and not obs.ok
    assert "503 Service Unavailable" in obs.data["error"]
    assert obs.data["result"] == {"status": 503}  # the value, JSON text decoded
    assert run.frame(-1).statuses["fetch"] == "failed"


def test_a_returned_result_is_kept_as_the_value_the_trace_gives():
    spans = [agent(1, 0, 3), tool(2, "search", 0.5, 1, args={"q": "x"}, result={"hits": [1, 2]})]
    ((_, obs),) = parse_trace(json.dumps(envelope(spans))).state.observations
    assert obs.data["result"] == {"hits": [1, 2]}


def test_langfuse_generation_input_and_output_and_reasoning_usage(tmp_path):
    """Langfuse's usageDetails with ``output_reasoning`` and a total above input + output; the generation's input
    messages (GenAI parts) and its output (a tool call)."""
    export = {
        "trace": {
            "id": "t",
            "input": json.dumps([{"role": "user", "parts": [{"type": "text", "content": TASK}]}]),
        },
        "observations": [
            {
                "id": "g1",
                "type": "GENERATION",
                "name": "chat",
                "startTime": "2025-01-01T00:00:00Z",
                "endTime": "2025-01-01T00:00:02Z",
                "model": "gemini-2.5-flash",
                "input": [{"role": "user", "parts": [{"type": "text", "content": TASK}]}],
                "output": [
                    {
                        "role": "assistant",
                        "parts": [
                            {
                                "type": "tool_call",
                                "name": "get_weather",
                                "arguments": {"city": "Paris"},
                            }
                        ],
                    }
                ],
                "usageDetails": {
                    "input": 600,
                    "output": 250,
                    "output_reasoning": 1173,
                    "total": 2023,
                },
            }
        ],
    }
    path = tmp_path / "t.json"
    path.write_text(json.dumps(export))
    run = load_trace(path)
    assert run.plan.goal == TASK
    (call,) = run.model_calls
    # none of 2,023 lost
    assert (call.reasoning_tokens, call.total_tokens, call.tokens) == (
        1173,
        2023,
        2023,
    )
    assert (call.input, call.output) == (TASK, 'get_weather({"city": "Paris"})')


CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"


def test_smolagents_model_calls_read_their_request_and_the_calls_with_arguments():
    """smolagents (OpenInference, corpus): the request is ``input.value`` ``{"args": [[messages]]}``; the flattened
    output names the tool but not its arguments, ``output.value`` has both."""
    path = CORPUS / "openinference" / "SMOLAGENTS_trace_openinference.json"
    spans = json.loads(path.read_text(encoding="utf-8"))["spans"]
    llm = [
        s["attributes"] for s in spans if s["attributes"].get("openinference.span.kind") == "LLM"
    ]
    asked = []
    for a in llm:
        out = json.loads(a["output.value"]) if a.get("output.value") else {}
        for c in out.get("tool_calls") or ():
            text = f"{c['function']['name']}({json.dumps(json.loads(c['function']['arguments']))})"
            if text not in asked:
                asked.append(text)
    run = load_trace(path)
    assert [c.output for c in run.model_calls] == asked
    first = json.loads(llm[0]["input.value"])["args"][0]
    assert (
        run.model_calls[0].input
        == next(m for m in first if m["role"] == "user")["content"][0]["text"].strip()
    )


def test_langchain_tool_calls_written_as_litellm_reprs_are_read():
    """LangChain (OpenInference, corpus): the AIMessage's tool calls are ``not_implemented`` reprs of litellm's
    ``ChatCompletionMessageToolCall(function=Function(arguments='...', name='...'))``."""
    path = CORPUS / "openinference" / "LANGCHAIN_trace_openinference.json"
    spans = json.loads(path.read_text(encoding="utf-8"))["spans"]
    tools = [
        s["attributes"] for s in spans if s["attributes"].get("openinference.span.kind") == "TOOL"
    ]
    run = load_trace(path)
    asked = [c.output for c in run.model_calls if c.step is not None]
    assert [o.split("(")[0] for o in asked] == [a["tool.name"] for a in tools]
    assert asked[0] == f"get_current_time({json.dumps({'timezone': 'America/New_York'})})"


def test_a_langgraph_tool_result_is_the_next_model_calls_input_not_the_tool_definitions():
    """Langfuse's LangGraph export (corpus) writes tool definitions as ``tool`` messages after the tool's result."""
    path = CORPUS / "langfuse" / "langgraph-2025-08-22.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    second = [o for o in raw["observations"] if o["type"] == "GENERATION"][1]
    result = next(
        m["content"]
        for m in reversed(second["input"])
        if m["role"] == "tool"
        and not (isinstance(m["content"], dict) and m["content"].get("type") == "function")
    )
    run = load_trace(path)
    assert run.model_calls[1].input == json.dumps(result, ensure_ascii=False)
