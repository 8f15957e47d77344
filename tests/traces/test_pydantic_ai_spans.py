"""Pydantic AI's spans as Logfire records them (``InstrumentationSettings(event_mode="attributes")``, the default
before 1.0): a model span holds its GenAI message events as one JSON list in ``events`` (each naming itself in
``event.name``; the choice's ``message`` an object), the agent run holds the whole conversation in
``all_messages_events``, and a ``running tool`` span holds ``tool_arguments`` and ``tool_response``. ``FEEDBACK`` is
Logfire's ``exported_spans_as_dict()`` of a real run as pydantic/pydantic-ai tests/test_logfire.py::test_feedback
records it (MIT; ``context``/``parent`` objects with integer ids); ``TOOL_RUN`` is test_logfire's ``my_ret`` run
(its agent-run and chat attributes as that test asserts them, the tool call id filled in, the tool span as
``_call_tool_traced`` writes it). Before, every model call's input and output were None, the task was the span
name "agent run", and the tool's arguments were ``{}`` and its result None. The truth is computed here."""

from __future__ import annotations

import json

import pytest

from planviz import load_trace, run_usage

FEEDBACK = [
    {
        "name": "chat test",
        "context": {"trace_id": 1, "span_id": 3, "is_remote": False},
        "parent": {"trace_id": 1, "span_id": 1, "is_remote": False},
        "start_time": 2000000000,
        "end_time": 3000000000,
        "attributes": {
            "gen_ai.operation.name": "chat",
            "gen_ai.system": "test",
            "gen_ai.request.model": "test",
            "model_request_parameters": '{"function_tools": [], "allow_text_output": true, "output_tools": []}',
            "logfire.span_type": "span",
            "logfire.msg": "chat test",
            "gen_ai.usage.input_tokens": 51,
            "gen_ai.usage.output_tokens": 4,
            "gen_ai.response.model": "test",
            "events": '[{"content": "Hello", "role": "user", "gen_ai.system": "test", "gen_ai.message.index": 0, "event.name": "gen_ai.user.message"}, {"index": 0, "message": {"role": "assistant", "content": "success (no tool calls)"}, "gen_ai.system": "test", "event.name": "gen_ai.choice"}]',  # noqa: E501 (as recorded)
            "logfire.json_schema": '{"type": "object", "properties": {"events": {"type": "array"}, "model_request_parameters": {"type": "object"}}}',  # noqa: E501 (as recorded)
        },
    },
    {
        "name": "agent run",
        "context": {"trace_id": 1, "span_id": 1, "is_remote": False},
        "parent": None,
        "start_time": 1000000000,
        "end_time": 4000000000,
        "attributes": {
            "model_name": "test",
            "agent_name": "agent",
            "logfire.msg": "agent run",
            "logfire.span_type": "span",
            "gen_ai.usage.input_tokens": 51,
            "gen_ai.usage.output_tokens": 4,
            "all_messages_events": '[{"content": "Hello", "role": "user", "gen_ai.message.index": 0, "event.name": "gen_ai.user.message"}, {"role": "assistant", "content": "success (no tool calls)", "gen_ai.message.index": 1, "event.name": "gen_ai.assistant.message"}]',  # noqa: E501 (as recorded)
            "final_result": "success (no tool calls)",
            "logfire.json_schema": '{"type": "object", "properties": {"all_messages_events": {"type": "array"}, "final_result": {"type": "object"}}}',  # noqa: E501 (as recorded)
        },
    },
    {
        "name": "feedback: factuality",
        "context": {"trace_id": 1, "span_id": 5, "is_remote": False},
        "parent": {"trace_id": 1, "span_id": 1, "is_remote": True},
        "start_time": 5000000000,
        "end_time": 5000000000,
        "attributes": {
            "logfire.span_type": "annotation",
            "logfire.level_num": 9,
            "logfire.msg_template": "feedback: factuality",
            "logfire.msg": "feedback: factuality = 0.1",
            "code.filepath": "test_logfire.py",
            "code.function": "test_feedback",
            "code.lineno": 123,
            "logfire.feedback.name": "factuality",
            "factuality": 0.1,
            "foo": "bar",
            "logfire.feedback.comment": "the agent lied",
            "logfire.disable_console_log": True,
            "logfire.json_schema": '{"type":"object","properties":{"logfire.feedback.name":{},"factuality":{},"foo":{},"logfire.feedback.comment":{},"logfire.span_type":{},"logfire.disable_console_log":{}}}',  # noqa: E501 (as recorded)
        },
    },
]

USER = {
    "content": "Hello",
    "role": "user",
    "gen_ai.message.index": 0,
    "event.name": "gen_ai.user.message",
}
CALL = {
    "id": "pyd_ai_tool_call_id__my_ret",
    "type": "function",
    "function": {"name": "my_ret", "arguments": {"x": 0}},
}
ALL = [USER, {"role": "assistant", "tool_calls": [CALL], "gen_ai.message.index": 1,
              "event.name": "gen_ai.assistant.message"},
       {"content": "1", "role": "tool", "id": CALL["id"], "name": "my_ret", "gen_ai.message.index": 2,
        "event.name": "gen_ai.tool.message"},
       {"role": "assistant", "content": '{"my_ret":"1"}', "gen_ai.message.index": 3,
        "event.name": "gen_ai.assistant.message"}]  # fmt: skip


def _span(sid, parent, name, start, end, attrs):
    return {"name": name, "context": {"trace_id": 1, "span_id": sid, "is_remote": False},
            "parent": None if parent is None else {"trace_id": 1, "span_id": parent, "is_remote": False},
            "start_time": start, "end_time": end, "attributes": attrs}  # fmt: skip


def _chat(sid, start, end, given, choice, tokens):
    return _span(sid, 1, "chat test", start, end, {
        "gen_ai.operation.name": "chat", "gen_ai.system": "test", "gen_ai.request.model": "test",
        "logfire.span_type": "span", "logfire.msg": "chat test", "gen_ai.response.model": "test",
        "gen_ai.usage.input_tokens": tokens[0], "gen_ai.usage.output_tokens": tokens[1],
        "events": json.dumps([{**m, "gen_ai.system": "test"} for m in given]
                             + [{"index": 0, "message": choice, "gen_ai.system": "test",
                                 "event.name": "gen_ai.choice"}])})  # fmt: skip


TOOL_RUN = [
    _span(1, None, "agent run", 1_000_000_000, 8_000_000_000, {
        "model_name": "test", "agent_name": "my_agent", "logfire.msg": "my_agent run", "logfire.span_type": "span",
        "gen_ai.usage.input_tokens": 103, "gen_ai.usage.output_tokens": 12, "all_messages_events": json.dumps(ALL),
        "final_result": '{"my_ret":"1"}'}),
    _chat(2, 2_000_000_000, 3_000_000_000, [USER], {"role": "assistant", "tool_calls": [CALL]}, (51, 4)),
    _span(3, 1, "running tools", 3_100_000_000, 4_000_000_000, {"tools": ["my_ret"], "logfire.msg": "running 1 tool"}),
    _span(4, 3, "running tool", 3_200_000_000, 3_900_000_000, {
        "gen_ai.tool.name": "my_ret", "gen_ai.tool.call.id": CALL["id"], "tool_arguments": '{"x":0}',
        "logfire.msg": "running tool: my_ret", "tool_response": "1"}),
    _chat(5, 5_000_000_000, 7_000_000_000, ALL[:3], {"role": "assistant", "content": '{"my_ret":"1"}'}, (52, 8)),
]  # fmt: skip


def _load(tmp_path, spans):
    path = tmp_path / "pydantic_ai_logfire.json"
    path.write_text(json.dumps(spans))
    return load_trace(path)


def _events(span, key):
    return json.loads(span["attributes"][key])


@pytest.mark.parametrize("spans", [FEEDBACK, TOOL_RUN], ids=["test_feedback", "my_ret"])
def test_each_model_call_is_given_and_answers_what_its_events_attribute_says(tmp_path, spans):
    run = _load(tmp_path, spans)
    chats = sorted((s for s in spans if "events" in s["attributes"]), key=lambda s: s["start_time"])
    assert [(c.input_tokens, c.output_tokens) for c in run.model_calls] == [
        (
            s["attributes"]["gen_ai.usage.input_tokens"],
            s["attributes"]["gen_ai.usage.output_tokens"],
        )
        for s in chats
    ]
    for call, span in zip(run.model_calls, chats):
        events = _events(span, "events")
        user = [e["content"] for e in events if e["event.name"] == "gen_ai.user.message"]
        assert call.input in user or call.input == events[-2].get("content")
        (choice,) = [e["message"] for e in events if e["event.name"] == "gen_ai.choice"]
        if "content" in choice:
            assert call.output == choice["content"]
        else:
            (asked,) = choice["tool_calls"]
            assert (
                call.output
                == f"{asked['function']['name']}({json.dumps(asked['function']['arguments'])})"
            )
    root = next(s for s in spans if s["parent"] is None)
    first = next(
        e for e in _events(root, "all_messages_events") if e["event.name"] == "gen_ai.user.message"
    )
    assert first["content"] in run.plan.goal


def test_a_running_tool_span_gives_its_arguments_and_response(tmp_path):
    run = _load(tmp_path, TOOL_RUN)
    tools = [s["attributes"] for s in TOOL_RUN if s["name"] == "running tool"]
    assert [(s.tool, s.arguments) for s in run.plan.steps] == [
        (a["gen_ai.tool.name"], json.loads(a["tool_arguments"])) for a in tools
    ]
    results = [e.observation.data.get("result") for e in run.events if e.observation is not None]
    assert [str(r) for r in results] == [a["tool_response"] for a in tools]


def _pending(span):
    """The copy Logfire sends when a span starts: same name and attributes, zero length, a child of the span."""
    ids = {"trace_id": 1, "span_id": 100 + span["context"]["span_id"], "is_remote": False}
    parent = (span["parent"] or {}).get("span_id")
    attrs = dict(
        span["attributes"],
        **{"logfire.span_type": "pending_span", "logfire.pending_parent_id": parent},
    )
    return {"name": span["name"], "context": ids, "parent": dict(span["context"]), "start_time": span["start_time"],
            "end_time": span["start_time"], "attributes": attrs}  # fmt: skip


def test_logfire_pending_spans_and_later_feedback_are_no_work_of_the_run(tmp_path):
    """Logfire's OTLP stream (a Collector's file, say) holds a pending-span copy of every span and, for a
    run given feedback, an annotation span made afterwards; before, the copy of 'running tool' was a second
    call of my_ret and the run lasted until the feedback."""
    annotation = dict(FEEDBACK[2], start_time=90_000_000_000, end_time=90_000_000_000)
    spans = TOOL_RUN + [_pending(s) for s in TOOL_RUN] + [annotation]
    run = _load(tmp_path, spans)
    work = [
        s
        for s in spans
        if s["attributes"].get("logfire.span_type") not in ("pending_span", "annotation")
    ]
    tools = [s for s in work if s["name"] == "running tool"]
    assert [(s.tool, s.arguments) for s in run.plan.steps] == [
        (t["attributes"]["gen_ai.tool.name"], json.loads(t["attributes"]["tool_arguments"]))
        for t in tools
    ]
    chats = [s for s in work if s["attributes"].get("gen_ai.operation.name") == "chat"]
    assert len(run.model_calls) == len(chats)
    root = next(s for s in work if s["parent"] is None)
    assert run_usage(run).time == pytest.approx((root["end_time"] - root["start_time"]) / 1e9)


def test_a_pending_span_whose_span_never_came_is_kept(tmp_path):
    """A run cut short: Logfire sent the pending copy of 'running tool' but never the span itself; the copy is
    the only record of that call and is kept (as a call, as before)."""
    tool = next(s for s in TOOL_RUN if s["name"] == "running tool")
    spans = [s for s in TOOL_RUN if s is not tool] + [_pending(tool)]
    run = _load(tmp_path, spans)
    assert [(s.tool, s.arguments) for s in run.plan.steps] == [
        (tool["attributes"]["gen_ai.tool.name"], json.loads(tool["attributes"]["tool_arguments"]))
    ]
