"""Where a model span's attributes hold its messages: what it was given and what it answered.

The attributes, in the order they are tried (the documented GenAI name first), read with the shapes of
:mod:`~planviz.traces.messages`:

- given: ``gen_ai.input.messages``; OpenInference's flattened
  ``llm.input_messages.N.message.role`` / ``.content`` (``.contents.M.message_content.text``);
  the older GenAI ``gen_ai.prompt.N.role`` / ``.content`` (Koog, OpenLLMetry)
  or ``gen_ai.prompt``; Google ADK's ``gcp.vertex.agent.llm_request``; the AI
  SDK's ``ai.prompt.messages`` / ``ai.prompt``; ``input.value``;
- answered: ``gen_ai.output.messages``; any-agent's ``gen_ai.output`` (``genai.output`` in May 2025);
  ``llm.output_messages.N...`` (``.tool_calls.K.tool_call.function.name`` /
  ``.arguments``); ``gen_ai.completion.N...``; ``gcp.vertex.agent.llm_response``;
  ``ai.response.text`` / ``.object`` / ``.toolCalls``; ``output.value``.

>>> flattened({"llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "Hi"},
...           "llm.input_messages")
[{'role': 'user', 'content': 'Hi'}]
>>> model_output({"ai.response.text": "", "ai.response.toolCalls": '[{"toolName": "f", "args": {"a": 1}}]'})
'f({"a": 1})'
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from planviz.traces.messages import decoded, reply

__all__ = ["flattened", "flat_names", "model_input", "model_output", "event_messages", "Heard"]

_FLAT = re.compile(r"^(\d+)\.(.+)$")
_INDEX = re.compile(r"\.\d")  # where a flattened name's index starts: prefix.0.role


def flattened(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]] | None:
    """Messages written as flat attributes (``prefix.0.message.role``, ``prefix.0.role``...) as message dicts
    (``role``, ``content``, ``tool_calls``), in index order; None when there are none."""
    found: dict[int, dict[str, Any]] = {}
    head = prefix + "."
    for key, value in attrs.items():
        if not key.startswith(head):
            continue
        match = _FLAT.match(key[len(head) :])
        if not match:
            continue
        slot = found.setdefault(int(match[1]), {})
        rest = match[2].removeprefix("message.")
        if rest in ("role", "content", "name"):
            slot[rest] = value
        # message.contents.M.message_content.text
        elif rest.startswith("contents.") and rest.endswith("text"):
            slot.setdefault("blocks", []).append(value)
        elif rest.startswith("tool_calls."):  # tool_calls.K.tool_call.function.name / .arguments
            k, _, field = rest[len("tool_calls.") :].partition(".")
            call = slot.setdefault("calls", {}).setdefault(k, {})
            call[field.removeprefix("tool_call.").removeprefix("function.")] = value
    if not found:
        return None
    out = []
    for i in sorted(found):
        slot = found[i]
        m: dict[str, Any] = {"role": slot.get("role")}
        content = slot.get("content")
        if content is None and slot.get("blocks"):
            content = " ".join(str(b) for b in slot["blocks"])
        m["content"] = content
        if slot.get("calls"):
            m["tool_calls"] = [
                {"function": {"name": c.get("name"), "arguments": c.get("arguments")}}
                for _, c in sorted(slot["calls"].items())
            ]
        out.append(m)
    return out


# What a model span was given and what it answered, by the attributes that hold them: GenAI (documented first),
# its older flattened names, OpenInference's, Google ADK's request and response, the AI SDK's.
_GIVEN = (
    "gen_ai.input.messages",
    "llm.input_messages",
    "gen_ai.prompt",
    "gcp.vertex.agent.llm_request",
    "ai.prompt.messages",
    "ai.prompt",
    "input.value",
)
_ANSWERED = (
    "gen_ai.output.messages",
    "gen_ai.output",
    "genai.output",
    "llm.output_messages",
    "gen_ai.completion",
    "gcp.vertex.agent.llm_response",
    "ai.response.text",
    "ai.response.object",
    "ai.response.toolCalls",
    "output.value",
)


def flat_names(attrs: dict[str, Any]) -> set[str]:
    """The names some attribute is flattened under (``prefix`` of ``prefix.0.role``), in one pass over the keys:
    :func:`flattened` scans every key, so it runs only for a name found here."""
    return {key[: found.start()] for key in attrs if (found := _INDEX.search(key))}


def _attribute(attrs: dict[str, Any], name: str, flat: set[str]) -> Any:
    value = attrs.get(name)
    if (value is None or value == "" or value == "{}") and name in flat:
        value = flattened(attrs, name)
    return value


def model_input(attrs: dict[str, Any], flat: set[str] | None = None) -> Any:
    """The messages (or prompt) a model span was given, from the first attribute of the list above it holds
    (``flat``: :func:`flat_names` of ``attrs``, when known already)."""
    flat = flat_names(attrs) if flat is None else flat
    if not flat and attrs.keys().isdisjoint(_GIVEN):
        return None  # none of the names, flat or flattened: most spans of a big trace
    return next((v for v in (_attribute(attrs, k, flat) for k in _GIVEN) if v is not None), None)


def model_output(attrs: dict[str, Any], flat: set[str] | None = None) -> str | None:
    """What a model span answered (:func:`reply` of the first attribute above that holds one): its text, else
    the tool calls it asked for; a reply naming calls without their arguments gives way to a fuller one
    (``flat``: :func:`flat_names` of ``attrs``, when known already)."""
    first, flat = None, flat_names(attrs) if flat is None else flat
    if not flat and attrs.keys().isdisjoint(_ANSWERED):
        return None  # none of the names, flat or flattened: most spans of a big trace
    for key in _ANSWERED:
        value = _attribute(attrs, key, flat)
        if key == "ai.response.toolCalls" and value is not None:  # [{"toolName", "args"}]
            calls = decoded(value)
            value = (
                [{"type": "tool-call", **c} for c in calls if isinstance(c, dict)]
                if isinstance(calls, list)
                else None
            )
        found = reply(value) if value is not None and value != "" else None
        if found is not None and not found.endswith("(…)"):
            return found
        first = first or found
    return first


# The GenAI conventions' message events (semantic conventions 1.28 to 1.36, before the messages became the
# attributes above): what a span was given, one event per message, and what it answered (``gen_ai.choice``).
_EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


# The conventions 1.26's content events, before those: one ``gen_ai.content.prompt`` event holding the whole prompt in
# ``gen_ai.prompt`` and one ``gen_ai.content.completion`` holding the answer in ``gen_ai.completion`` (OpenLIT's
# "role: text" lines, Semantic Kernel's and LangChain4j's JSON messages or text)
_CONTENT_EVENTS = {
    "gen_ai.content.prompt": "gen_ai.prompt",
    "gen_ai.content.completion": "gen_ai.completion",
}


class Heard(NamedTuple):
    """The messages a span's events hold: the ones it was given (None: none), what it answered (None:
    no ``gen_ai.choice``), and a tool call's arguments (a ``gen_ai.tool.message`` event's content)."""

    given: list[dict[str, Any]] | None
    answered: Any
    arguments: Any


def event_messages(events: list[tuple[Any, Any]]) -> Heard | None:
    """The messages a span's events hold, or None when no event is a GenAI message event. Strands writes
    ``content`` (a JSON list of content blocks) and ``message`` on the ``gen_ai.choice`` event; Azure's
    instrumentations write the whole message as ``gen_ai.event.content`` JSON.

    >>> heard = event_messages([("gen_ai.user.message", {"content": '[{"text": "Weather in Paris?"}]'}),
    ...                         ("gen_ai.choice", {"message": '[{"text": "Sunny"}]', "finish_reason": "end_turn"})])
    >>> heard.given, heard.answered
    ([{'role': 'user', 'content': [{'text': 'Weather in Paris?'}]}], [{'text': 'Sunny'}])
    """
    given: list[dict[str, Any]] = []
    answered, arguments, found = None, None, False
    prompt: Any = None
    for name, attrs in events:
        if not isinstance(name, str) or not isinstance(attrs, dict):
            continue
        if name in _CONTENT_EVENTS:
            held = decoded(attrs.get(_CONTENT_EVENTS[name]))
            if held is None or held == "":
                continue
            found = True
            if name == "gen_ai.content.prompt":
                prompt = held
            else:
                answered = held
            continue
        if name not in _EVENT_ROLES and name != "gen_ai.choice":
            continue
        found = True
        body = decoded(attrs.get("gen_ai.event.content"))
        body = body if isinstance(body, dict) else {}
        # message (Strands, Logfire), content (LiveKit), or Azure's whole body
        if name == "gen_ai.choice":
            held = next((attrs[k] for k in ("message", "content") if k in attrs), None)
            answered = decoded(held if held is not None else body.get("message", body) or None)
            continue
        content = decoded(attrs["content"] if "content" in attrs else body.get("content"))
        message: dict[str, Any] = {
            "role": attrs.get("role") or body.get("role") or _EVENT_ROLES[name]
        }
        message["content"] = content
        calls = decoded(attrs.get("tool_calls", body.get("tool_calls")))
        if isinstance(calls, list):
            message["tool_calls"] = calls
        given.append(message)
        if name == "gen_ai.tool.message":
            arguments = content
    if prompt is not None and not given:
        # the whole prompt: a list of messages as they are, else one user message of its text
        listed = isinstance(prompt, list) and all(isinstance(m, dict) for m in prompt)
        given = prompt if listed else [{"role": "user", "content": prompt}]
    return Heard(given or None, answered, arguments) if found else None
