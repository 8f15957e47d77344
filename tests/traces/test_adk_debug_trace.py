"""Google ADK's own trace dump: what ``adk web``'s trace tab and ``GET /debug/trace/session/{session_id}``
answer (and VeADK's tracer ``dump()`` writes): a JSON list of ``{"name", "span_id", "trace_id", "start_time",
"end_time", "attributes", "parent_span_id"}``, the SDK span's fields flat, ids and times as integers. A README
of a public ADK demo prints one such answer (ADK 1.21: a ``call_llm`` span, gemini-2.0-flash-lite 2335/120, the
ids redacted to 121/211/1232, the parent not in the list); no file of it under a licence was found, so the spans
below follow that printout and ADK's ``trace_tool_call`` / ``trace_merged_tool_calls``: ``execute_tool`` spans
hold the arguments in ``gcp.vertex.agent.tool_call_args`` and the answer in ``gcp.vertex.agent.tool_response``,
and parallel calls are repeated once more by an ``execute_tool (merged)`` span (tool ``(merged tools)``,
arguments ``N/A``). Before, the list was refused ("context: expected an object with span_id and trace_id"); with
a ``context`` added, every ADK tool call's arguments were ``{}`` and results None, and the merged span was one
more tool call. The truth is computed from the raw spans here."""

from __future__ import annotations

import json

import pytest

from planviz import load_trace, run_usage

TRACE = 176662007179865700031775966572438849363
ASK = "What is the weather in New York and in London?"


def _request(contents):
    return json.dumps({"model": "gemini-2.0-flash-lite", "config": {"system_instruction": "You are a weather agent."},
                       "contents": contents})  # fmt: skip


def _response(parts, prompt, candidates):
    return json.dumps({"model_version": "gemini-2.0-flash-lite", "content": {"parts": parts, "role": "model"},
                       "finish_reason": "STOP", "usage_metadata": {"candidates_token_count": candidates,
                       "prompt_token_count": prompt, "total_token_count": prompt + candidates}})  # fmt: skip


CALLS = [{"function_call": {"id": "adk-1", "args": {"city": "New York"}, "name": "get_weather"}},
         {"function_call": {"id": "adk-2", "args": {"city": "London"}, "name": "get_weather"}}]  # fmt: skip
ANSWERS = [
    {"status": "success", "report": "Sunny, 25 C"},
    {"status": "error", "error_message": "no data"},
]


def _span(sid, parent, name, start, end, attrs):
    return {"name": name, "span_id": sid, "trace_id": TRACE, "start_time": start, "end_time": end,
            "attributes": attrs, "parent_span_id": parent}  # fmt: skip


def _llm(sid, start, end, contents, parts, prompt, candidates):
    return _span(sid, 11793420044709008278, "call_llm", start, end, {
        "gen_ai.system": "gcp.vertex.agent", "gen_ai.request.model": "gemini-2.0-flash-lite",
        "gcp.vertex.agent.invocation_id": "e-c9a8d818", "gcp.vertex.agent.session_id": "60f2642d",
        "gcp.vertex.agent.event_id": f"ev-{sid}", "gcp.vertex.agent.llm_request": _request(contents),
        "gcp.vertex.agent.llm_response": _response(parts, prompt, candidates),
        "gen_ai.usage.input_tokens": prompt, "gen_ai.usage.output_tokens": candidates,
        "gen_ai.response.finish_reasons": ["stop"]})  # fmt: skip


def _tool(sid, start, end, call, answer):
    name = call["function_call"]["name"]
    return _span(sid, 11793420044709008278, f"execute_tool {name}", start, end, {
        "gen_ai.system": "gcp.vertex.agent", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
        "gen_ai.tool.description": "Weather of a city.", "gen_ai.tool.type": "FunctionTool",
        "gen_ai.tool.call.id": call["function_call"]["id"],
        "gcp.vertex.agent.tool_call_args": json.dumps(call["function_call"]["args"]),
        "gcp.vertex.agent.event_id": f"ev-{sid}", "gcp.vertex.agent.tool_response": json.dumps(answer),
        "gcp.vertex.agent.llm_request": "{}", "gcp.vertex.agent.llm_response": "{}"})  # fmt: skip


USER = [{"parts": [{"text": ASK}], "role": "user"}]
SPANS = [
    _span(1232, None, "invocation", 1766731818800000000, 1766731824000000000, {}),
    _span(11793420044709008278, 1232, "invoke_agent weather_agent", 1766731818810000000, 1766731823990000000,
          {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather_agent",
           "gen_ai.conversation.id": "60f2642d"}),
    _llm(121, 1766731818819841311, 1766731820946958404, USER, CALLS, 2335, 120),
    _tool(122, 1766731820950000000, 1766731821050000000, CALLS[0], ANSWERS[0]),
    _tool(123, 1766731820951000000, 1766731821150000000, CALLS[1], ANSWERS[1]),
    _span(124, 11793420044709008278, "execute_tool (merged)", 1766731821160000000, 1766731821170000000, {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "(merged tools)",
        "gen_ai.tool.description": "(merged tools)", "gen_ai.tool.call.id": "ev-merged",
        "gcp.vertex.agent.tool_call_args": "N/A", "gcp.vertex.agent.event_id": "ev-merged",
        "gcp.vertex.agent.tool_response": json.dumps({"parts": ANSWERS}),
        "gcp.vertex.agent.llm_request": "{}", "gcp.vertex.agent.llm_response": "{}"}),
    _llm(125, 1766731821200000000, 1766731823900000000, USER, [{"text": "New York is sunny, 25 C."}], 2480, 14),
]  # fmt: skip


def _write(tmp_path, spans):
    path = tmp_path / "adk_debug_trace_session.json"
    path.write_text(json.dumps(spans, indent=4))
    return path


def test_an_adk_debug_trace_reads_each_tool_call_with_its_arguments_and_answer(tmp_path):
    run = load_trace(_write(tmp_path, SPANS))
    # the truth from the raw spans: every execute_tool span but ADK's merged repeat is one call
    tools = [s for s in SPANS if s["attributes"].get("gen_ai.operation.name") == "execute_tool"
             and s["attributes"]["gen_ai.tool.name"] != "(merged tools)"]  # fmt: skip
    assert [(s.tool, s.arguments) for s in run.plan.steps] == [
        (
            t["attributes"]["gen_ai.tool.name"],
            json.loads(t["attributes"]["gcp.vertex.agent.tool_call_args"]),
        )
        for t in tools
    ]
    results = [e.observation.data.get("result") for e in run.events if e.observation is not None]
    assert results == [json.loads(t["attributes"]["gcp.vertex.agent.tool_response"]) for t in tools]
    call_ids = [e.observation.data.get("call_id") for e in run.events if e.observation is not None]
    assert call_ids == [t["attributes"]["gen_ai.tool.call.id"] for t in tools]


def test_an_adk_debug_trace_reads_its_model_calls_task_and_time(tmp_path):
    run = load_trace(_write(tmp_path, SPANS))
    llms = [s for s in SPANS if s["name"] == "call_llm"]
    assert [(c.model, c.input_tokens, c.output_tokens) for c in run.model_calls] == [
        (s["attributes"]["gen_ai.request.model"], s["attributes"]["gen_ai.usage.input_tokens"],
         s["attributes"]["gen_ai.usage.output_tokens"]) for s in llms
    ]  # fmt: skip
    assert [c.duration for c in run.model_calls] == pytest.approx(
        [(s["end_time"] - s["start_time"]) / 1e9 for s in llms]
    )
    first = json.loads(llms[0]["attributes"]["gcp.vertex.agent.llm_request"])["contents"][0][
        "parts"
    ][0]["text"]
    assert first in run.plan.goal
    last = json.loads(llms[-1]["attributes"]["gcp.vertex.agent.llm_response"])["content"]["parts"][
        0
    ]["text"]
    assert run.model_calls[-1].output == last
    root = SPANS[0]
    assert run_usage(run).time == pytest.approx(
        (root["end_time"] - root["start_time"]) / 1e9, abs=0.01
    )


def test_the_printed_adk_answer_whose_parent_is_not_in_the_list_loads(tmp_path):
    """The README's answer as printed: one call_llm span, small ids, its parent span absent."""
    span = _llm(
        121,
        1766731818819841311,
        1766731822946958404,
        USER,
        [{"text": "I can read the image."}],
        2335,
        120,
    )
    span["trace_id"], span["parent_span_id"] = 211, 1232
    run = load_trace(_write(tmp_path, [span]))
    (call,) = run.model_calls
    assert (call.input_tokens, call.output_tokens) == (2335, 120)
    assert call.duration == pytest.approx((span["end_time"] - span["start_time"]) / 1e9)
    assert "missing_parent" in {f.code for f in run.plan.import_findings}


def test_adk_for_java_names_the_call_id_gen_ai_tool_call_id(tmp_path):
    """ADK for Java (and Dart) writes the tool call's id as ``gen_ai.tool_call.id``; it was not read."""
    spans = json.loads(json.dumps(SPANS))
    for span in spans:
        if "gen_ai.tool.call.id" in span["attributes"]:
            span["attributes"]["gen_ai.tool_call.id"] = span["attributes"].pop(
                "gen_ai.tool.call.id"
            )
    run = load_trace(_write(tmp_path, spans))
    tools = [
        s["attributes"]
        for s in spans
        if s["attributes"].get("gen_ai.tool.name") not in (None, "(merged tools)")
    ]
    call_ids = [e.observation.data.get("call_id") for e in run.events if e.observation is not None]
    assert call_ids == [a["gen_ai.tool_call.id"] for a in tools]
