"""What was said in a recorded run: :class:`Turn` (who said what, and when), and reading turns from a message list.

A chat thread (a LangGraph run's ``messages``) or an agent's trace holds the
user's message, the model's replies and the tools' answers. ``Run.turns``
keeps them in order, as the trace recorded them: ``role`` is ``user``,
``assistant``, ``tool`` or ``system`` (another role is kept as written), and
``text`` what was said (a reply that only asks for tools reads as the calls it
asks for). :func:`turns_of` reads the message shapes in use: LangChain
messages (``type: human/ai/tool``, as ``model_dump()`` writes them, or the
``{"lc": 1, "type": "constructor", ...}`` form), OpenAI chat messages
(``role``, ``content`` text or parts) and Anthropic content blocks.

>>> turns_of([{"type": "human", "content": "Weather in Paris?"},
...           {"type": "ai", "content": "", "tool_calls": [{"name": "weather", "args": {"city": "Paris"}}]},
...           {"type": "tool", "content": "18 C", "name": "weather"},
...           {"type": "ai", "content": "It is 18 C."}])
(Turn(role='user', text='Weather in Paris?', time=None), Turn(role='assistant', text='calls weather({"city": "Paris"})', time=None), Turn(role='tool', text='18 C', time=None), Turn(role='assistant', text='It is 18 C.', time=None))
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable

__all__ = ["Turn", "turns_of", "message_text"]

_ROLES = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "model": "assistant",
    "tool": "tool",
    "function": "tool",
    "system": "system",
    "developer": "system",
    "HumanMessage": "user",
    "AIMessage": "assistant",
    "AIMessageChunk": "assistant",
    "ToolMessage": "tool",
    "SystemMessage": "system",
    "FunctionMessage": "tool",
}
_MAX_TURNS = 10_000


@dataclass(frozen=True)
class Turn:
    """One message of a recorded conversation: ``role`` (``user``, ``assistant``, ``tool``, ``system``...),
    ``text`` (what was said, as the trace wrote it) and ``time`` (on the run's clock; None when the trace does
    not say).

    >>> Turn("user", "Find the cheapest flight").role
    'user'
    """

    role: str
    text: str
    time: float | None = None


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)


def message_text(content: Any) -> str:
    """The text of a message's content: a string as is; a list of parts or blocks (OpenAI, Anthropic, GenAI
    ``parts``, Gemini) their texts joined by blank lines, a part without text (an image, a tool use) as JSON.

    >>> message_text([{"type": "text", "text": "a"}, {"type": "text", "content": "b"}])
    'a\\n\\nb'
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out: list[str] = []
        for part in content:
            said = part.get("text", part.get("content")) if isinstance(part, dict) else part
            if isinstance(said, str):
                out.append(said)
            elif part is not None:
                out.append(_json(part))
        return "\n\n".join(x for x in out if x)
    return _json(content)


def _calls_text(calls: Any) -> str:
    """The tool calls a reply asks for, as ``calls name(arguments)`` lines (LangChain and OpenAI shapes)."""
    lines = []
    for call in calls if isinstance(calls, list) else ():
        if not isinstance(call, dict):
            continue
        inner = call.get("function")
        fn: dict[str, Any] = inner if isinstance(inner, dict) else call
        args = fn.get("args", fn.get("arguments", fn.get("input")))
        shown = args if isinstance(args, str) else _json(args if args is not None else {})
        lines.append(f"calls {fn.get('name') or 'a tool'}({shown})")
    return "\n".join(lines)


def _fields(message: Any) -> tuple[str, dict[str, Any]] | None:
    """(role as written, fields) of one message in any shape read here, else None."""
    if not isinstance(message, dict):
        return None
    if message.get("lc") == 1 and message.get("type") == "constructor":
        ident, kwargs = message.get("id"), message.get("kwargs")
        if (
            isinstance(ident, list)
            and ident
            and isinstance(ident[-1], str)
            and isinstance(kwargs, dict)
        ):
            return ident[-1], kwargs
        return None
    role = message.get("role", message.get("type"))
    return (role, message) if isinstance(role, str) else None


def turns_of(messages: Iterable[Any], time: float | None = None) -> tuple[Turn, ...]:
    """The turns of a message list, in its order (a value that is no message is skipped); ``time`` is given to
    every turn (None: the trace does not say when each was said)."""
    out = []
    for message in messages:
        found = _fields(message)
        if found is None:
            continue
        written, fields = found
        role = _ROLES.get(written, written)
        text = message_text(fields.get("content", fields.get("parts")))
        if role == "assistant":
            extra = fields.get("additional_kwargs")
            asked = _calls_text(
                fields.get("tool_calls")
                or (extra.get("tool_calls") if isinstance(extra, dict) else None)
            )
            text = "\n".join(x for x in (text, asked) if x)
        out.append(Turn(role, text, time))
        if len(out) >= _MAX_TURNS:
            break
    return tuple(out)
