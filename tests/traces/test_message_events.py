"""Messages written as span events (the GenAI conventions 1.28 to 1.36, before ``gen_ai.input.messages``):
``gen_ai.system/user/assistant/tool.message`` events hold what a call was given, ``gen_ai.choice`` what it
answered. Strands Agents writes them on its ``invoke_agent``, ``chat`` and ``execute_tool`` spans (content as JSON
content blocks, ``toolUse``/``toolResult``), in the spans CloudWatch stores for AgentCore (OTLP's camelCase fields
with attributes as a flat object); Azure's instrumentations put the whole message in ``gen_ai.event.content``;
Logfire's OpenAI instrumentation puts the choice in ``message``. No permissively licensed real file of these was
found: the spans below follow those producers' shapes (Strands' as AWS's AgentCore documentation prints a
``search_flights`` tool span; Azure's and Logfire's as their tests assert them), and the truth is computed from
their events here. Before, every call's input and output, the task, and Strands' tool arguments and results
were lost (None), and the CloudWatch shape was refused ("attributes: expected a list of {key, value} objects")."""

from __future__ import annotations

import json

import pytest

from planviz import load_trace, run_usage

TRACE = "69e9cc4d132b180909ba49f613f273dd"


def _span(sid, parent, name, start, end, attrs, events):
    return {
        "traceId": TRACE,
        "spanId": sid,
        "parentSpanId": parent,
        "scope": {"name": "strands.telemetry.tracer"},
        "name": name,
        "kind": "INTERNAL",
        "startTimeUnixNano": start,
        "endTimeUnixNano": end,
        "attributes": attrs,
        "status": {"code": "UNSET"},
        "events": events,
    }


ASK = json.dumps([{"text": "Find flights from SEA to NYC on 2025-03-15"}])
USE = {"toolUse": {"toolUseId": "tooluse_JuG", "name": "search_flights",
                   "input": {"origin": "SEA", "destination": "NYC", "date": "2025-03-15"}}}  # fmt: skip
FOUND = json.dumps({"origin": "SEA", "destination": "NYC", "flights": ["AS 12", "DL 408"]})
STRANDS = [
    _span("0a988e27758ebb50", None, "invoke_agent", 1_000_000_000, 9_000_000_000,
          {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "Strands Agents"},
          [{"name": "gen_ai.user.message", "attributes": {"content": ASK}},
           {"name": "gen_ai.choice", "attributes": {"message": "AS 12 and DL 408 fly SEA-NYC.",
                                                    "finish_reason": "end_turn"}}]),
    _span("0a988e27758ebb51", "0a988e27758ebb50", "chat", 1_100_000_000, 3_000_000_000,
          {"gen_ai.operation.name": "chat", "gen_ai.request.model": "us.anthropic.claude-sonnet",
           "gen_ai.usage.input_tokens": 1200, "gen_ai.usage.output_tokens": 80},
          [{"name": "gen_ai.user.message", "attributes": {"content": ASK}},
           {"name": "gen_ai.choice", "attributes": {"message": json.dumps([USE]), "finish_reason": "tool_use"}}]),
    _span("0a988e27758ebb53", "0a988e27758ebb50", "execute_tool search_flights", 3_100_000_000, 4_000_000_000,
          {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search_flights",
           "gen_ai.tool.call.id": "tooluse_JuG", "gen_ai.tool.status": "success"},
          [{"name": "gen_ai.tool.message",
            "attributes": {"content": json.dumps(USE["toolUse"]["input"]), "role": "tool", "id": "tooluse_JuG"}},
           {"name": "gen_ai.choice", "attributes": {"message": json.dumps([{"text": FOUND}]), "id": "tooluse_JuG"}}]),
    _span("0a988e27758ebb54", "0a988e27758ebb50", "chat", 4_100_000_000, 8_900_000_000,
          {"gen_ai.operation.name": "chat", "gen_ai.request.model": "us.anthropic.claude-sonnet",
           "gen_ai.usage.input_tokens": 1500, "gen_ai.usage.output_tokens": 20},
          [{"name": "gen_ai.user.message", "attributes": {"content": ASK}},
           {"name": "gen_ai.assistant.message", "attributes": {"content": json.dumps([USE])}},
           {"name": "gen_ai.tool.message", "attributes": {"content": json.dumps(
               [{"toolResult": {"toolUseId": "tooluse_JuG", "status": "success", "content": [{"text": FOUND}]}}]),
               "id": "tooluse_JuG"}},
           {"name": "gen_ai.choice", "attributes": {"message": json.dumps([{"text": "AS 12 and DL 408 fly SEA-NYC."}]),
                                                    "finish_reason": "end_turn"}}]),
]  # fmt: skip


@pytest.mark.parametrize("shape", ["cloudwatch", "otlp"])
def test_strands_message_events_are_the_calls_input_output_arguments_and_result(shape, tmp_path):
    path = tmp_path / "strands.json"
    if shape == "cloudwatch":  # CloudWatch's aws/spans records: attributes a flat object
        path.write_text("".join(json.dumps(s) + "\n" for s in STRANDS), encoding="utf-8")
    else:  # the same spans as OTLP/JSON: attributes as {key, value} lists

        def kv(attrs):
            return [{"key": k, "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}}
                    for k, v in attrs.items()]  # fmt: skip

        spans = [
            {**s, "attributes": kv(s["attributes"]),
             "events": [{**e, "attributes": kv(e["attributes"])} for e in s["events"]]}
            for s in STRANDS
        ]  # fmt: skip
        path.write_text(
            json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}), encoding="utf-8"
        )
    run = load_trace(path)
    events = {s["spanId"]: {e["name"]: e["attributes"] for e in s["events"]} for s in STRANDS}
    task = json.loads(events["0a988e27758ebb50"]["gen_ai.user.message"]["content"])[0]["text"]
    assert task in run.plan.goal
    tool = events["0a988e27758ebb53"]
    (step,) = run.plan.steps
    assert (step.tool, step.arguments) == (
        "search_flights",
        json.loads(tool["gen_ai.tool.message"]["content"]),
    )
    (observation,) = (o for _, o in run.state.observations)
    assert observation.data["result"] == json.loads(tool["gen_ai.choice"]["message"])
    first, second = sorted(run.model_calls, key=lambda c: c.start)
    use = json.loads(events["0a988e27758ebb51"]["gen_ai.choice"]["message"])[0]["toolUse"]
    assert first.input == task
    assert first.output == f"{use['name']}({json.dumps(use['input'])})"
    result = json.loads(events["0a988e27758ebb54"]["gen_ai.tool.message"]["content"])[0][
        "toolResult"
    ]
    assert second.input == result["content"][0]["text"]
    assert (
        second.output
        == json.loads(events["0a988e27758ebb54"]["gen_ai.choice"]["message"])[0]["text"]
    )
    assert run_usage(run).input_tokens == sum(
        s["attributes"].get("gen_ai.usage.input_tokens", 0) for s in STRANDS
    )


def test_azure_and_logfire_choice_events(tmp_path):
    """Azure AI Inference: ``gen_ai.event.content`` holds the message (the user's, then the choice with its
    tool calls); Logfire's OpenAI spans: ``content`` on the user event, ``message`` JSON on ``gen_ai.choice``."""
    azure = {"role": "assistant", "tool_calls": [{"id": "call_Z6", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\": \"Seattle\"}"}}]}  # fmt: skip
    spans = [
        {"name": "chat gpt-4o", "context": {"trace_id": "0x" + "1" * 32, "span_id": "0x" + "2" * 16},
         "parent_id": None, "start_time": 10, "end_time": 20, "status": {"status_code": "OK"},
         "attributes": {"gen_ai.operation.name": "chat", "gen_ai.system": "az.ai.inference"},
         "events": [{"name": "gen_ai.user.message", "attributes": {"gen_ai.event.content": json.dumps(
                         {"role": "user", "content": "How is the weather in Seattle?"})}},
                    {"name": "gen_ai.choice", "attributes": {"gen_ai.event.content": json.dumps(
                         {"message": azure, "finish_reason": "tool_calls", "index": 0})}}]},
        {"name": "chat gpt-4o", "context": {"trace_id": "0x" + "1" * 32, "span_id": "0x" + "3" * 16},
         "parent_id": None, "start_time": 30, "end_time": 40, "status": {"status_code": "OK"},
         "attributes": {"gen_ai.operation.name": "chat", "gen_ai.system": "openai"},
         "events": [{"name": "gen_ai.user.message", "attributes": {"content": "Hello, say 'Hi' back to me"}},
                    {"name": "gen_ai.choice", "attributes": {"message": json.dumps(
                         {"role": "assistant", "content": "Hi"}), "index": 0, "finish_reason": "stop"}}]},
    ]  # fmt: skip
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(spans), encoding="utf-8")
    run = load_trace(path)
    first, second = sorted(run.model_calls, key=lambda c: c.start)
    assert (
        first.input
        == json.loads(spans[0]["events"][0]["attributes"]["gen_ai.event.content"])["content"]
    )
    call = azure["tool_calls"][0]["function"]
    assert first.output == f"{call['name']}({json.dumps(json.loads(call['arguments']))})"
    assert second.input == spans[1]["events"][0]["attributes"]["content"]
    assert second.output == json.loads(spans[1]["events"][1]["attributes"]["message"])["content"]
