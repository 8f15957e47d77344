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
>>> call = call_of(reply, 1.5, "agent")
>>> call.model, call.start, call.duration, call.input_tokens, call.output_tokens, call.step, call.id
('gpt-4o', 1.5, None, 9, 2, 'agent', 'm2')
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Iterable, Iterator, Mapping

from ..events import ModelCall
from ..turns import Turn, turns_of

__all__ = ["new_replies", "call_of", "reply_of", "thread_turns"]

_AI_CLASSES = ("AIMessage", "AIMessageChunk")


def reply_of(value: Any) -> dict | None:
    """The fields of an AI message (either serialised shape), or None when ``value`` is no AI message."""
    if not isinstance(value, dict):
        return None
    if value.get("lc") == 1 and value.get("type") == "constructor":
        ident, kwargs = value.get("id"), value.get("kwargs")
        if isinstance(ident, list) and ident and ident[-1] in _AI_CLASSES and isinstance(kwargs, dict):
            return kwargs
        return None
    return value if value.get("type") in ("ai", "AIMessageChunk") else None


def _content(message: dict) -> str:
    return json.dumps(message, ensure_ascii=False, default=str, sort_keys=True)


def new_replies(values: Mapping[str, Any], written: Iterable[tuple[str, Any]],
                counted: set[str]) -> Iterator[tuple[str, dict]]:
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
        if len(items) > len(kept) and items[:len(kept)] == kept:
            items, kept = items[len(kept):], []  # appended to, as message lists are: only the new part is read
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


def _held(values: list) -> tuple[set[str], Counter[str]]:
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


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def call_of(message: dict, start: float, step: str | None) -> ModelCall:
    """The :class:`~planviz.runs.events.ModelCall` an AI message stands for, made by the node run ``step``."""
    meta = message.get("response_metadata")
    meta = meta if isinstance(meta, dict) else {}
    model = next((m for m in (meta.get("model_name"), meta.get("model")) if isinstance(m, str) and m), "AI message")
    usage = message.get("usage_metadata")
    if isinstance(usage, dict):
        tokens = _count(usage.get("input_tokens")), _count(usage.get("output_tokens"))
    else:
        legacy = meta.get("token_usage")
        legacy = legacy if isinstance(legacy, dict) else {}
        tokens = _count(legacy.get("prompt_tokens")), _count(legacy.get("completion_tokens"))
    ident = message.get("id")
    return ModelCall(model, start, None, tokens[0], tokens[1], step=step, id=ident if isinstance(ident, str) else "")


def _channel(values: Mapping[str, Any]) -> Any:
    """The message list of a checkpoint: its ``messages`` channel, else the list channel holding the most messages."""
    if isinstance(values.get("messages"), list):
        return values["messages"]
    lists = [(len(turns_of(v)), ch) for ch, v in values.items() if isinstance(v, list)]
    best = max(lists, default=(0, ""))
    return values[best[1]] if best[0] else []


def _ident(message: Any) -> str | None:
    fields = message.get("kwargs") if isinstance(message, dict) and message.get("lc") == 1 else message
    ident = fields.get("id") if isinstance(fields, dict) else None
    return ident if isinstance(ident, str) and ident else None


def thread_turns(checkpoints: Iterable[tuple[Mapping[str, Any], float | None]]) -> tuple[Turn, ...]:
    """What was said in a thread: the messages of its checkpoints (``(values, time)`` from the first to the
    last of one branch), each the first time a checkpoint holds it, the last reply included; a turn's time is
    its checkpoint's. A list that grew (``add_messages``) says its new tail; a list replaced (a graph that
    resets its messages each turn, the user asking again) says every message but those of the list before
    that carry the same ``id``.

    >>> ask, reply = {"type": "human", "content": "hi"}, {"type": "ai", "content": "hello", "id": "a1"}
    >>> [(t.role, t.text, t.time) for t in thread_turns([({"messages": [ask]}, 0.0), ({"messages": [ask, reply]}, 1.5)])]
    [('user', 'hi', 0.0), ('assistant', 'hello', 1.5)]
    >>> len(thread_turns([({"messages": [ask, reply]}, None), ({"messages": [ask]}, None)]))  # asked again
    3
    """
    out: list[Turn] = []
    before: list = []
    for values, time in checkpoints:
        messages = _channel(values)
        if not isinstance(messages, list):
            continue
        if len(messages) >= len(before) and messages[:len(before)] == before:
            new = messages[len(before):]
        else:
            had = {i for i in map(_ident, before) if i is not None}
            new = [m for m in messages if _ident(m) is None or _ident(m) not in had]
        out.extend(turns_of(new, time))
        before = messages
    return tuple(out)
