"""The GenAI conventions 1.26's content events, which came before the message events: a model span's whole
prompt in one ``gen_ai.content.prompt`` event (attribute ``gen_ai.prompt``) and its answer in one
``gen_ai.content.completion`` event (attribute ``gen_ai.completion``). OpenLIT writes them with "role: text" lines,
Semantic Kernel with its chat history as JSON messages, LangChain4j's and Spring's instrumentations with the text.
No permissively licensed file of them was found; the spans below follow those producers' code (OpenLIT's
``add_event(GEN_AI_CONTENT_PROMPT_EVENT, {GEN_AI_CONTENT_PROMPT: prompt})``, Semantic Kernel's
``ToGenAIConventionsFormat``), and the truth is read from their events here. Before, every such call's input and
output were None and the task the span's name; Semantic Kernel's calls (operation ``chat.completions``) were no
model calls at all."""

from __future__ import annotations

import json

import pytest

from planviz import load_trace

OPENLIT = {
    "name": "chat gpt-4o-mini", "kind": "SpanKind.CLIENT", "parent_id": None,
    "context": {"trace_id": "0x3f0c8a6d2b1e4f5a9c7d6e5f4a3b2c1d", "span_id": "0x5b4a3c2d1e0f9a8b"},
    "start_time": "2025-03-01T10:00:00.000000Z", "end_time": "2025-03-01T10:00:01.500000Z",
    "status": {"status_code": "OK"},
    "attributes": {"telemetry.sdk.name": "openlit", "gen_ai.operation.name": "chat", "gen_ai.system": "openai",
                   "gen_ai.request.model": "gpt-4o-mini", "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
                   "gen_ai.usage.input_tokens": 14, "gen_ai.usage.output_tokens": 9, "gen_ai.usage.total_tokens": 23,
                   "gen_ai.usage.cost": 7.5e-06, "gen_ai.server.ttft": 0.41},
    "events": [{"name": "gen_ai.content.prompt", "timestamp": "2025-03-01T10:00:01.499000Z",
                "attributes": {"gen_ai.prompt": "user: What is LLM Observability?"}},
               {"name": "gen_ai.content.completion", "timestamp": "2025-03-01T10:00:01.499000Z",
                "attributes": {"gen_ai.completion": "Tracing what a model was asked and answered."}}],
}  # fmt: skip
SK_PROMPT = [{"role": "system", "content": "You are a helpful assistant."},
             {"role": "user", "content": "Why is the sky blue? One sentence."}]  # fmt: skip
SK_ANSWER = [
    {
        "role": "assistant",
        "content": "Air scatters blue light more than red.",
        "finish_reason": "Stop",
    }
]
SEMANTIC_KERNEL = {
    "resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "sk"}}]},
        "scopeSpans": [{"scope": {"name": "Microsoft.SemanticKernel.Diagnostics"}, "spans": [{
            "traceId": "9a1b2c3d4e5f60718293a4b5c6d7e8f9", "spanId": "1a2b3c4d5e6f7081",
            "name": "chat.completions gpt-4o",
            "kind": 3, "startTimeUnixNano": "1735725600000000000", "endTimeUnixNano": "1735725601200000000",
            "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "chat.completions"}},
                {"key": "gen_ai.system", "value": {"stringValue": "openai"}},
                {"key": "gen_ai.request.model", "value": {"stringValue": "gpt-4o"}},
                {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "27"}},
                {"key": "gen_ai.usage.output_tokens", "value": {"intValue": "11"}}],
            "events": [
                {"timeUnixNano": "1735725600000100000", "name": "gen_ai.content.prompt",
                 "attributes": [{"key": "gen_ai.prompt", "value": {"stringValue": json.dumps(SK_PROMPT)}}]},
                {"timeUnixNano": "1735725601199000000", "name": "gen_ai.content.completion",
                 "attributes": [{"key": "gen_ai.completion", "value": {"stringValue": json.dumps(SK_ANSWER)}}]}],
            "status": {"code": 1}}]}]}]
}  # fmt: skip


def _events(doc):
    if "resourceSpans" in doc:
        (span,) = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
        return {e["name"]: e["attributes"][0]["value"]["stringValue"] for e in span["events"]}
    return {e["name"]: next(iter(e["attributes"].values())) for e in doc["events"]}


@pytest.mark.parametrize("doc", [[OPENLIT], SEMANTIC_KERNEL], ids=["openlit", "semantic-kernel"])
def test_a_model_call_is_given_and_answers_what_its_content_events_hold(tmp_path, doc):
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(doc))
    run = load_trace(path)
    events = _events(doc[0] if isinstance(doc, list) else doc)
    prompt, answer = events["gen_ai.content.prompt"], events["gen_ai.content.completion"]
    (call,) = run.model_calls
    if prompt.startswith("["):  # JSON messages: the last user message; the answer's text
        asked = [m["content"] for m in json.loads(prompt) if m["role"] == "user"][-1]
        answered = json.loads(answer)[0]["content"]
    else:  # text as written
        asked, answered = prompt, answer
    assert (call.input, call.output) == (asked, answered)
    assert asked.lower() in run.plan.goal.lower()
