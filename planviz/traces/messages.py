"""Messages of a model call, in every shape a trace writes them: the user's task, what a call was given, its reply.

The one home of message shapes, read by every span reader (:mod:`~planviz.traces.otel.otelspans`,
:mod:`~planviz.traces.otel.oteljs`, :mod:`~planviz.traces.langfuse.export`, and OpenInference's
:mod:`~planviz.traces.otel.openinferencevalues`):

- OpenAI chat messages (``{"role", "content"}``, ``tool_calls``), Anthropic
  content blocks (``[{"type": "text", "text"}, {"type": "tool_use"...}]``),
  GenAI ``parts`` (``[{"role": "user", "parts": [{"type": "text",
  "content": ...}]}]``), Gemini ``contents[].parts[].text`` (and
  ``function_call``), LangChain messages (``type: human``, ``[role, text]``
  pairs, their reprs), LlamaIndex ``blocks``, and any of these as JSON text;
- where a span's attributes hold them (flattened ``llm.input_messages.N.*``,
  Google ADK's request, the AI SDK's prompt) is
  :mod:`~planviz.traces.spanmessages`.

:func:`task` is the user's request; :func:`last_input` the last user or tool
message a call was given; :func:`reply` its answer, or the tool call(s) it
asked for, written ``name({"arg": value})``.

>>> task('[{"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]}]')
'Weather in Paris?'
>>> task({"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]})
'Hi'
>>> reply([{"role": "assistant",
...         "tool_calls": [{"function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]}])
'get_weather({"city": "Paris"})'
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "decoded",
    "task",
    "text_of",
    "last_input",
    "reply",
    "tool_call_text",
    "shortened",
    "SHORT",
]

SHORT = 2000  # characters of a message kept for display
_USER = ("user", "human")
_INPUT = ("user", "human", "tool", "function", "ipython", "tool-response")
_ASSISTANT = ("assistant", "ai", "model", "bot")
_USER_KEYS = (
    "task",
    "input",
    "query",
    "question",
    "user_input",
    "prompt",
    "new_message",
    "contents",
)
_TURN = re.compile(r"^(system|developer|user|human|assistant|ai|tool|function): ", re.M)
_REPR_CONTENT = re.compile(r"""content=(['"])(.*?)\1""", re.S)
# litellm's repr
_REPR_CALL = re.compile(r"""Function\(arguments=(['"])(.*?)\1, name=(['"])(.*?)\3""", re.S)


def decoded(value: Any) -> Any:
    """JSON text decoded (twice, when it was encoded twice); anything else (a Python repr, prose) as it is."""
    for _ in range(3):
        if not (isinstance(value, str) and value.lstrip()[:1] in ("{", "[", '"')):
            return value
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def shortened(text: str | None) -> str | None:
    """Text stripped, at most :data:`SHORT` characters (``…`` marks a cut); None when empty or None."""
    if text is None:
        return None
    text = text.strip()
    return (text[:SHORT] + "…" if len(text) > SHORT else text) or None


def tool_call_text(name: Any, arguments: Any) -> str:
    """A tool call as the model asked for it: ``name({"arg": value})``; ``name(…)`` when the trace does not
    record its arguments."""
    args = decoded(arguments)
    if args is None:
        return f"{name}(…)"
    if args == "":
        args = {}
    shown = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, default=str)
    return f"{name}({shown})"


def _calls_in(m: Any) -> list[str]:
    """The tool calls a message (or a part of one) asks for, each as :func:`tool_call_text`."""
    out: list[str] = []
    if isinstance(m, list):
        for x in m:
            out += _calls_in(x)
        return out
    m = _lc(m)
    if not isinstance(m, dict):
        return out
    kind = m.get("type")
    if isinstance(m.get("tool_calls"), list):  # OpenAI, flattened OpenInference
        for c in m["tool_calls"]:
            f = (
                c.get("function")
                if isinstance(c, dict) and isinstance(c.get("function"), dict)
                else c
            )
            if isinstance(f, dict) and f.get("name"):
                out.append(tool_call_text(f["name"], f.get("arguments", f.get("args"))))
    # kind None: the AI SDK's {toolCallId, toolName, input | args} as Langfuse shows its tool calls
    if (kind in ("tool_call", "tool_use", "function_call", "tool-call") or kind is None) and (
        (m.get("name") or m.get("toolName")) if kind else m.get("toolName")
    ):
        out.append(
            tool_call_text(
                m.get("name") or m.get("toolName"),
                m.get("arguments", m.get("input", m.get("args"))),
            )
        )
    use = m.get("toolUse")  # Bedrock Converse's (and Strands') content block
    if isinstance(use, dict) and use.get("name"):
        out.append(tool_call_text(use["name"], use.get("input")))
    for key in ("function_call", "functionCall"):  # Gemini parts
        f = m.get(key)
        if isinstance(f, dict) and f.get("name"):
            out.append(tool_call_text(f["name"], f.get("args", f.get("arguments"))))
    # LangChain: not_implemented
    if isinstance(m.get("repr"), str) and (found := _REPR_CALL.search(m["repr"])):
        out.append(tool_call_text(found[4], found[2]))
    if isinstance(m.get("tool.name"), str):  # any-agent's gen_ai.output
        out.append(tool_call_text(m["tool.name"], m.get("tool.args")))
    # Koog; an OpenAI tool_calls entry given alone
    if kind == "function" and isinstance(m.get("function"), dict) and m["function"].get("name"):
        out.append(tool_call_text(m["function"]["name"], m["function"].get("arguments")))
    # a bare {"name", "arguments"} (OpenAI's function_call; any-agent's smolagents and TinyAgent outputs)
    if (
        kind is None
        and "role" not in m
        and isinstance(m.get("name"), str)
        and m["name"]
        and "arguments" in m
    ):
        out.append(tool_call_text(m["name"], m["arguments"]))
    for key in ("content", "parts", "blocks"):
        if isinstance(m.get(key), list):
            out += _calls_in(m[key])
    # LangChain: OpenAI's tool_calls kept there
    if not out and isinstance(m.get("additional_kwargs"), dict):
        out += _calls_in(m["additional_kwargs"])
    return out


def text_of(value: Any) -> str | None:
    """The text of a message or of its content, in any shape: a string, a list of parts or blocks, a dict
    with ``content``/``parts``/``text``/``blocks``; tool results (``response``, ``tool_call_response``) as
    their value's text. None when it holds no text."""
    if isinstance(value, str):
        data = decoded(value) if value.lstrip()[:1] in ("[", "{") else value
        # JSON text of parts or a message: its text; JSON text of anything else (a tool's result): the text itself
        return (text_of(data) if not isinstance(data, str) else None) or value.strip() or None
    if isinstance(value, list):
        texts = [t for t in (text_of(p) for p in value if not isinstance(p, (list, tuple))) if t]
        return " ".join(texts).strip() or None
    if not isinstance(value, dict):
        return None
    kind = value.get("type")
    if kind in ("tool_call", "tool_use", "function_call", "tool-call", "function"):
        return None
    # toolResult: Bedrock Converse's
    for key in (
        "text",
        "content",
        "parts",
        "blocks",
        "toolResult",
    ):
        if key in value and value[key] is not None:
            found = text_of(value[key])
            if found:
                return found
    for key in ("response", "result", "output", "function_response", "functionResponse"):
        if key in value and value[key] is not None:
            inner = value[key]
            return (
                inner.strip() or None
                if isinstance(inner, str)
                else json.dumps(inner, ensure_ascii=False, default=str)
            )
    return None


def _lc(m: Any) -> Any:
    """A LangChain message serialised as a constructor (``{"lc": 1, "id": [..., "HumanMessage"], "kwargs"}``) as
    ``{"type": "HumanMessage", **kwargs}``; anything else as it is."""
    if (
        isinstance(m, dict)
        and m.get("lc")
        and isinstance(m.get("kwargs"), dict)
        and isinstance(m.get("id"), list)
    ):
        return {**m["kwargs"], "type": str(m["id"][-1]) if m["id"] else ""}
    return m


def _role(m: Any) -> str | None:
    m = _lc(m)
    if isinstance(m, dict):
        role = m.get("role") or m.get("type")
        if not isinstance(role, str):
            return None
        role = role.lower()  # LangChain's class names: HumanMessage, AIMessageChunk, ToolMessage
        return (
            role.removesuffix("chunk").removesuffix("message")
            if role.endswith(("message", "messagechunk"))
            else role
        )
    if isinstance(m, (list, tuple)) and len(m) == 2 and isinstance(m[0], str):
        return m[0].lower()
    if isinstance(m, str) and m.startswith("content="):
        return "human" if ("HumanMessage" in m or "type='human'" in m) else None
    return None


def _message_text(m: Any) -> str | None:
    if isinstance(m, (list, tuple)) and len(m) == 2 and isinstance(m[1], str):
        return m[1].strip() or None
    if isinstance(m, str) and m.startswith("content="):
        match = _REPR_CONTENT.match(m)
        return match.group(2).strip() or None if match else None
    m = _lc(m)
    if isinstance(m, dict):
        return text_of({k: v for k, v in m.items() if k not in ("role", "type", "name")})
    return None


def _messages(data: Any) -> list[Any] | None:
    """The message list a value holds: a list itself, or ``messages``/``contents``/``input`` of a request."""
    data = decoded(data)
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in ("messages", "contents", "input"):
            held = data.get(key)
            if isinstance(held, list):
                return held
        # smolagents' model call: {"args": [[messages...]], "kwargs": {...}}
        args = data.get("args")
        if isinstance(args, list) and args and isinstance(args[0], list):
            return args[0]
    return None


def _first_user(messages: list[Any]) -> str | None:
    for m in messages:
        if isinstance(m, list) and not (len(m) == 2 and isinstance(m[0], str)):
            inner = _first_user(m)
            if inner:
                return inner
            continue
        if _role(m) in _USER:
            found = _message_text(m)
            if found:
                return found
    return None


def task(value: Any) -> str | None:
    """The user's task in a request: a ``task``/``input``/``query`` field, the first user message of
    ``messages`` or ``contents`` (any message shape above), a chat written as text (``user: ...``), or plain
    text. None when it holds none."""
    data = decoded(value)
    if isinstance(data, str):
        return _user_turn(data) or data.strip() or None
    if isinstance(data, dict) and _role(data) in _USER:  # one user message, not a list
        return _message_text(data)
    if isinstance(data, dict):
        for key in _USER_KEYS:
            found = _field_text(data.get(key))
            if found:
                return found
        messages = data.get("messages")
        if isinstance(messages, list):
            return _first_user(messages)
        args = data.get("args")
        if isinstance(args, list):
            return next((a.strip() for a in args if isinstance(a, str) and a.strip()), None)
    if isinstance(data, list):
        return _first_user(data)
    return None


def _field_text(value: Any) -> str | None:
    """The text of a request's ``input``/``query``/``contents`` field: text, a message, or a message list."""
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, dict):
        if _role(value) in _ASSISTANT + ("system",):
            return None
        return text_of(value)
    if isinstance(value, list):
        if any(_role(m) for m in value):
            return _first_user(value)
        return text_of(value)
    return None


def _user_turn(text: str) -> str | None:
    """The first user turn of a chat written as text, one ``role: text`` turn after another (Agno's model
    spans: ``"developer: ...\nuser: What is trending?"``), or None when the text is not such a transcript."""
    turns = list(_TURN.finditer(text))
    if not turns or turns[0].start() != 0:
        return None
    for i, turn in enumerate(turns):
        if turn.group(1) in _USER:
            return (
                text[turn.end() : turns[i + 1].start() if i + 1 < len(turns) else len(text)].strip()
                or None
            )
    return None


def last_input(value: Any) -> str | None:
    """The last user or tool message a model call was given, as text (at most :data:`SHORT` characters);
    plain text given as the prompt is itself; None when not recorded."""
    data = decoded(value)
    if isinstance(data, str):
        return shortened(data)
    messages = _messages(data)
    if messages is None and _role(data) in _INPUT:
        messages = [data]  # one message, not a list (LangSmith's Claude Agent SDK turns)
    # a request with its prompt as text ({"contents": "..."}, {"args": ["..."]})
    if messages is None:
        return (
            shortened(task(data) or text_of(data))
            if isinstance(data, dict) and not _role(data)
            else None
        )
    called = _called(messages)
    for m in reversed(messages):
        role = _role(m)
        # a tool's result whose role is the tool's name (LangChain JS through Langfuse)
        if role in called:
            role = "tool"
        if role in _INPUT or (role is None and isinstance(m, str)):
            found = _message_text(m) if role else m
            content = m.get("content") if isinstance(m, dict) else None
            # a tool's result with no text: its JSON
            if not found and content and not _definition(content):
                found = json.dumps(content, ensure_ascii=False, default=str)
            if found:
                return shortened(found)
        elif role == "tool_call_response" or (
            isinstance(m, dict) and m.get("type") in ("tool_result", "function_call_output")
        ):
            found = text_of(m.get("output", m.get("content")))
            if found:
                return shortened(found)
    return None


def _called(messages: list[Any]) -> set[str]:
    """The names of the tools an assistant message of ``messages`` asked for, lowercased (as :func:`_role`
    gives roles), leaving out every name that is also a role of its own."""
    names: set[str] = set()
    for m in messages:
        calls = _lc(m).get("tool_calls") if isinstance(m, dict) else None
        for call in calls if isinstance(calls, list) else ():
            fn = call.get("function", call) if isinstance(call, dict) else None
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                names.add(fn["name"].lower())
    return names - set(_INPUT + _ASSISTANT + ("system", "developer"))


def _definition(content: Any) -> bool:
    """A tool's definition written as a ``tool`` message (LangChain through Langfuse): not what a tool returned."""
    return (
        isinstance(content, dict)
        and content.get("type") == "function"
        and isinstance(content.get("function"), dict)
    )


def reply(value: Any) -> str | None:
    """A model call's answer: the text of its reply, else the tool call(s) it asked for
    (``name({"arg": value})``, joined by ``; ``); None when not recorded."""
    data = decoded(value)
    if isinstance(data, str):
        return shortened(data)
    if isinstance(data, dict):
        # LangChain's LLMResult
        if isinstance(data.get("generations"), list) and data["generations"]:
            first = data["generations"][0]
            first = first[0] if isinstance(first, list) and first else first
            return (
                reply(first.get("message") or first.get("text"))
                if isinstance(first, dict)
                else None
            )
        if isinstance(data.get("output"), list) and "role" not in data:  # OpenAI's Responses API
            return reply(data["output"])
        for key in ("choices", "candidates"):  # an API response
            if isinstance(data.get(key), list) and data[key]:
                first = data[key][0]
                chosen = (
                    first.get("message", first.get("content")) if isinstance(first, dict) else first
                )
                if isinstance(chosen, dict) and _role(chosen) not in _ASSISTANT:
                    # a choice is the answer whatever role it names (MLflow's Bedrock ChatModel says "user")
                    chosen = {**chosen, "role": "assistant"}
                return reply(chosen)
        if isinstance(data.get("message"), dict):
            return reply(data["message"])
        # Google ADK's llm_response
        if "role" not in data and isinstance(data.get("content"), (dict, list)):
            return reply(data["content"])
        # {"text": ...}, else a structured answer (generateObject)
        if not {"role", "type", "parts"} & data.keys():
            text = data.get("text")
            return shortened(
                text
                if isinstance(text, str) and text.strip()
                else json.dumps(data, ensure_ascii=False, default=str)
            )
        data = [data]
    if not isinstance(data, list):
        return None
    replies = [
        m
        for m in data
        if _role(m) in _ASSISTANT
        or _role(m) is None
        or isinstance(m, dict)
        and m.get("type") in ("function_call", "tool_call", "tool_use", "tool-call")
        or isinstance(m, dict)
        and m.get("type") == "function"
        # the tool_calls list itself, each entry an OpenAI call
        and isinstance(m.get("function"), dict)
    ]
    texts = [t for t in (_message_text(m) if _role(m) else text_of(m) for m in replies) if t]
    if texts:
        return shortened(" ".join(texts))
    calls = _calls_in(replies)
    return shortened("; ".join(calls)) if calls else None
