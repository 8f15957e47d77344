"""The model calls of a LangGraph run: each AI message a node wrote into the state is one call.

A checkpoint does not record model calls as such, but the messages a node
wrote do: a LangChain ``AIMessage`` (``type: "ai"`` as ``model_dump()`` gives
it, or ``{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs":
{...}}`` as LangChain serialises it) is the reply of one model call, naming
its model (``response_metadata.model_name`` or ``model``) and, when recorded,
its tokens (``usage_metadata``, else ``response_metadata.token_usage``). A
message counts once, the first time a node run writes it (known by its
``id``; one without an id is new where the checkpoint holds more copies of
it than the one before), so a message carried from checkpoint to checkpoint,
or into a fork, is not a new call. Messages
written by the user (``update_state``, a new input) are not model calls. The
call is tied to the node run that wrote it and starts when that run
started; its duration is None (a checkpoint does not say how long the model
took: at most the node run's).

>>> ask = {"type": "human", "content": "hi", "id": "m1"}
>>> reply = {"type": "ai", "content": "hello", "id": "m2", "response_metadata": {"model_name": "gpt-4o"},
...          "usage_metadata": {"input_tokens": 9, "output_tokens": 2}}
>>> [(ch, m["id"]) for ch, m in new_replies({"messages": [ask]}, [("messages", [ask, reply])], set())]
[('messages', 'm2')]
>>> call = call_of(reply, 1.5, "agent", [ask, reply])
>>> call.model, call.input_tokens, call.step, call.input, call.output
('gpt-4o', 9, 'agent', 'hi', 'hello')

A call's ``input`` is the last user or tool message before its reply in the
message list, its ``output`` the reply's text and the tool calls it asked
for (``search({"q": "x"})``). The tool calls themselves are the
ToolMessages a node run wrote (the ``tools`` node's): each one once, by
id (:func:`tool_results`); their text is the run's result, those of status
``error`` its error (:func:`tool_data`).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Iterable, Iterator, Mapping

from planviz.io.limits import read_int
from planviz.runs.events import ModelCall
from planviz.runs.turns import Turn, turns_of

__all__ = [
    "new_replies",
    "call_of",
    "reply_of",
    "tool_results",
    "tool_data",
    "message_text",
    "thread_turns",
]

_AI_CLASSES = ("AIMessage", "AIMessageChunk")
_KINDS = {
    "AIMessage": "ai",
    "AIMessageChunk": "ai",
    "HumanMessage": "human",
    "ToolMessage": "tool",
    "SystemMessage": "system",
    "ChatMessage": "chat",
    "FunctionMessage": "function",
}


def message_of(value: Any) -> tuple[str, dict[str, Any]] | None:
    """(kind, fields) of a LangChain message in either serialised shape (``human``, ``ai``, ``tool``...), or
    None when ``value`` is no message."""
    if not isinstance(value, dict):
        return None
    if value.get("lc") == 1 and value.get("type") == "constructor":
        ident, kwargs = value.get("id"), value.get("kwargs")
        if isinstance(ident, list) and ident and ident[-1] in _KINDS and isinstance(kwargs, dict):
            return _KINDS[ident[-1]], kwargs
        return None
    kind = value.get("type")
    return (
        ("ai" if kind == "AIMessageChunk" else kind, value)
        if isinstance(kind, str) and "content" in value
        else None
    )


def reply_of(value: Any) -> dict[str, Any] | None:
    """The fields of an AI message (either serialised shape), or None when ``value`` is no AI message."""
    found = message_of(value)
    return found[1] if found is not None and found[0] == "ai" else None


def tool_message(value: Any) -> dict[str, Any] | None:
    """The fields of a ToolMessage (a tool call's result, as the ``tools`` node writes it), or None."""
    found = message_of(value)
    return found[1] if found is not None and found[0] == "tool" else None


def message_text(message: dict[str, Any]) -> str:
    """The text of a message's content: a string, or the text blocks of a list of content blocks."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b if isinstance(b, str) else str(b.get("text"))
            for b in content
            if isinstance(b, str) or isinstance(b, dict) and isinstance(b.get("text"), str)
        )
    return ""


def asked_for(message: dict[str, Any]) -> str:
    """What a model's reply said: its text, and each tool call it asked for as ``name({"arg": ...})`` (LangChain's
    ``tool_calls``, else OpenAI's own in ``additional_kwargs``: ``tool_calls``, or the older ``function_call``)."""
    calls = message.get("tool_calls")
    pairs = (
        [(c.get("name"), c.get("args", {})) for c in calls if isinstance(c, dict)]
        if isinstance(calls, list)
        else []
    )
    extra = message.get("additional_kwargs")
    if not pairs and isinstance(extra, dict):
        listed = extra.get("tool_calls")
        raw: list[Any] = listed if isinstance(listed, list) else [extra.get("function_call")]
        for c in raw:
            function = c.get("function", c) if isinstance(c, dict) else None
            if isinstance(function, dict):
                pairs.append((function.get("name"), _arguments(function.get("arguments"))))
    shown = [
        f"{name}({json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)})"
        for name, args in pairs
        if isinstance(name, str)
    ]
    return "\n".join([t for t in [message_text(message).strip()] if t] + shown)


def _arguments(text: Any) -> Any:
    """A function call's arguments as OpenAI sends them (JSON text), read when they are JSON."""
    try:
        return json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return text


def given_to(history: Any, reply: dict[str, Any]) -> str | None:
    """The last user or tool message before ``reply`` in a message list (what the model was given), as text."""
    if not isinstance(history, list):
        return None
    at = next((i for i, m in enumerate(history) if reply_of(m) is reply), len(history))
    for item in reversed(history[:at]):
        found = message_of(item)
        if found is not None and found[0] in ("human", "tool"):
            return message_text(found[1])
    return None


def tool_results(
    values: Mapping[str, Any], written: Iterable[tuple[str, Any]], counted: set[str]
) -> dict[str, list[Any]]:
    """Channel -> the ToolMessages the channels ``written`` hold that the same channels before did not (each
    counted once by id, ``counted`` extended): the tool calls a node run made."""
    out: dict[str, list[Any]] = {}
    for ch, value in written:
        if not isinstance(value, list):
            continue
        before = values.get(ch)
        kept = before if isinstance(before, list) else []
        items = value
        if len(value) >= len(kept) and value[: len(kept)] == kept:
            # appended to, as message lists are: only the new part is read
            items, kept = (
                value[len(kept) :],
                [],
            )
        held = {m.get("id") for m in map(tool_message, kept) if m is not None} if kept else set()
        for message in map(tool_message, items):
            ident = message.get("id") if message is not None else None
            if message is None or ident in held or isinstance(ident, str) and ident in counted:
                continue
            if isinstance(ident, str) and ident:
                counted.add(ident)
            out.setdefault(ch, []).append(message)
    return out


def tool_data(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """What a node run's ToolMessages say, for its observation's data: ``tool_calls`` (how many), ``result``
    (their text, each after its tool's name when there are several) and ``error`` (those whose status is
    ``error``)."""
    if not messages:
        return {}

    def shown(group: list[dict[str, Any]]) -> str:
        return "\n".join(
            message_text(m)
            if len(messages) == 1
            else f"{m.get('name') or 'tool'}: {message_text(m)}"
            for m in group
        )

    failed = [m for m in messages if m.get("status") == "error"]
    return {
        "tool_calls": len(messages),
        "result": shown([m for m in messages if m not in failed]),
        **({"error": shown(failed)} if failed else {}),
    }


def _content(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, default=str, sort_keys=True)


def new_replies(
    values: Mapping[str, Any], written: Iterable[tuple[str, Any]], counted: set[str]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The AI messages the channels ``written`` (``(channel, new value)``) hold that the same channels of the
    checkpoint before (its ``values``) did not, as ``(channel, message fields)``.

    A message with an ``id`` is new when the checkpoint before did not hold it and no earlier call had that id
    (``counted``, which this extends); one without, when the new value holds more copies of it than the old.
    """
    for ch, value in written:
        if not isinstance(value, (list, dict)):
            continue
        before = values.get(ch)
        items = value if isinstance(value, list) else [value]
        kept = before if isinstance(before, list) else [before]
        if len(items) > len(kept) and items[: len(kept)] == kept:
            # appended to, as message lists are: only the new part is read
            items, kept = (
                items[len(kept) :],
                [],
            )
        had: tuple[set[str], Counter[str]] | None = None
        for item in items:
            message = reply_of(item)
            if message is None:
                continue
            if had is None:
                had = _held(kept)
            ident = message.get("id")
            if isinstance(ident, str) and ident:
                if ident not in counted and ident not in had[0]:
                    counted.add(ident)
                    yield ch, message
                continue
            text = _content(message)
            if had[1][text]:
                had[1][text] -= 1
            else:
                yield ch, message


def _held(values: list[Any]) -> tuple[set[str], Counter[str]]:
    """The ids of the AI messages among ``values``, and how many copies of each one without an id."""
    ids: set[str] = set()
    copies: Counter[str] = Counter()
    for message in map(reply_of, values):
        if message is not None:
            ident = message.get("id")
            if isinstance(ident, str) and ident:
                ids.add(ident)
            else:
                copies[_content(message)] += 1
    return ids, copies


def _count(value: Any, name: str = "") -> int | None:
    """A token count: a whole number >= 0, else not stated (None); one past float range is refused (ValueError
    naming ``name``), as every number out of float range is (:func:`~planviz.io.limits.read_int`)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        return None
    if read_int(value) is None:
        raise ValueError(
            f"{name}: expected a token count within float range, got an integer of "
            f"{len(str(value)):,} digits"
        )
    return value


def call_of(
    message: dict[str, Any], start: float, step: str | None, history: Any = None
) -> ModelCall:
    """The :class:`~planviz.runs.events.ModelCall` an AI message stands for, made by the node run ``step``;
    ``history``, the message list holding it, gives its input (the last user or tool message before it)."""
    meta = message.get("response_metadata")
    meta = meta if isinstance(meta, dict) else {}
    model = next(
        (m for m in (meta.get("model_name"), meta.get("model")) if isinstance(m, str) and m),
        "AI message",
    )
    usage = message.get("usage_metadata")
    if isinstance(usage, dict):
        tokens = (
            _count(usage.get("input_tokens"), "usage_metadata.input_tokens"),
            _count(usage.get("output_tokens"), "usage_metadata.output_tokens"),
        )
    else:
        legacy = meta.get("token_usage")
        legacy = legacy if isinstance(legacy, dict) else {}
        tokens = (
            _count(legacy.get("prompt_tokens"), "response_metadata.token_usage.prompt_tokens"),
            _count(
                legacy.get("completion_tokens"), "response_metadata.token_usage.completion_tokens"
            ),
        )
    ident = message.get("id")
    return ModelCall(
        model,
        start,
        None,
        tokens[0],
        tokens[1],
        step=step,
        id=ident if isinstance(ident, str) else "",
        input=given_to(history, message),
        output=asked_for(message) or None,
    )


def _channel(values: Mapping[str, Any]) -> Any:
    """The message list of a checkpoint: its ``messages`` channel, else the list channel holding the most messages."""
    if isinstance(values.get("messages"), list):
        return values["messages"]
    lists = [(len(turns_of(v)), ch) for ch, v in values.items() if isinstance(v, list)]
    best = max(lists, default=(0, ""))
    return values[best[1]] if best[0] else []


def _ident(message: Any) -> str | None:
    fields = (
        message.get("kwargs") if isinstance(message, dict) and message.get("lc") == 1 else message
    )
    ident = fields.get("id") if isinstance(fields, dict) else None
    return ident if isinstance(ident, str) and ident else None


def thread_turns(checkpoints: Iterable[tuple[Mapping[str, Any], float | None]]) -> tuple[Turn, ...]:
    """What was said in a thread: the messages of its checkpoints (``(values, time)`` from the first to the
    last of one branch), each the first time a checkpoint holds it, the last reply included; a turn's time is
    its checkpoint's. A list that grew (``add_messages``) says its new tail; a list replaced (a graph that
    resets its messages each turn, the user asking again) says every message but those of the list before
    that carry the same ``id``.

    >>> ask, reply = {"type": "human", "content": "hi"}, {"type": "ai", "content": "hello", "id": "a1"}
    >>> [(t.role, t.text, t.time)
    ...  for t in thread_turns([({"messages": [ask]}, 0.0), ({"messages": [ask, reply]}, 1.5)])]
    [('user', 'hi', 0.0), ('assistant', 'hello', 1.5)]
    >>> len(thread_turns([({"messages": [ask, reply]}, None), ({"messages": [ask]}, None)]))  # asked again
    3
    """
    out: list[Turn] = []
    before: list[Any] = []
    for values, time in checkpoints:
        messages = _channel(values)
        if not isinstance(messages, list):
            continue
        if len(messages) >= len(before) and messages[: len(before)] == before:
            new = messages[len(before) :]
        else:
            had = {i for i in map(_ident, before) if i is not None}
            new = [m for m in messages if _ident(m) is None or _ident(m) not in had]
        out.extend(turns_of(new, time))
        before = messages
    return tuple(out)
