"""OpenInference span attributes decoded: the span kinds, a tool call's arguments, an agent's task.

The one home of OpenInference's attribute conventions, below every reader that meets them:
:mod:`~planviz.runs.traces.otelspans` (each span by its own convention),
:mod:`~planviz.runs.traces.oteljs` and :mod:`~planviz.runs.traces.langfuse`. The format itself (detecting
and reading a file) is :mod:`~planviz.runs.traces.openinference`.

- a tool call's arguments are its ``input.value``, unwrapped from the
  ``{"args": [...], "kwargs": {...}}`` that smolagents and LlamaIndex write,
  JSON-decoded, or read as a Python literal when it is the ``str()`` of a dict
  (LangChain's OpenInference instrumentation writes ``"{'city': 'Paris'}"``;
  nothing is evaluated); other text is kept as text. Never
  ``tool.parameters``: that is the tool's JSON schema, not the call;
- the goal is the user's task in the AGENT span's ``input.value`` (else a
  CHAIN span's).

>>> arguments('{"args": [], "sanitize_inputs_outputs": true, "kwargs": {"timezone": "America/New_York"}}')
{'timezone': 'America/New_York'}
>>> arguments("{'timezone': 'America/New_York'}")
{'timezone': 'America/New_York'}
>>> arguments("{'when': datetime.date(2025, 1, 1)}")
{'input': "{'when': datetime.date(2025, 1, 1)}"}
>>> task('{"messages": [["user", "Find the year"]]}')
'Find the year'
>>> task("system: Be brief.\\nuser: Find the year\\nassistant: 2025")
'Find the year'
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...errors import PlanFormatError
from ...plan.plaindata import check_plain, python_literal

__all__ = ["KIND", "KINDS", "arguments", "task"]

KIND = "openinference.span.kind"
KINDS = {"LLM": "chat", "TOOL": "execute_tool", "AGENT": "invoke_agent", "CHAIN": "invoke_agent"}
"""OpenInference span kinds to the GenAI operations planviz reads them as (EMBEDDING, RETRIEVER... are
neither steps nor model calls)."""
_USER_KEYS = ("task", "input", "query", "question", "user_input", "prompt", "new_message", "contents")
_TURN = re.compile(r"^(system|developer|user|human|assistant|ai|tool|function): ", re.M)
_REPR_CONTENT = re.compile(r"""content=(['"])(.*?)\1""", re.S)


def decoded(value: Any) -> Any:
    """JSON text decoded (twice, when it was encoded twice); anything else (a Python repr, prose) as it is."""
    for _ in range(3):
        if not (isinstance(value, str) and value[:1] in ("{", "[", '"')):
            return value
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def arguments(value: Any) -> dict[str, Any]:
    """A tool call's arguments from its ``input.value``: the keyword arguments of an ``args``/``kwargs``
    wrapper (positional ones under ``args``), a JSON object itself or the ``str()`` of a Python dict (LangChain's
    tool input: ``"{'city': 'Paris'}"``, read as a literal, never evaluated), anything else under ``input``."""
    data = decoded(value)
    if isinstance(data, str) and data.lstrip()[:1] == "{" and isinstance(found := python_literal(data), dict):
        try:
            check_plain(found)
            data = found
        except PlanFormatError:  # a lone surrogate, an integer too long to write: kept as the text it was
            pass
    if data is None or data == "":
        return {}
    if isinstance(data, dict) and ("kwargs" in data or "args" in data) and \
            isinstance(data.get("kwargs", {}), dict) and isinstance(data.get("args", []), list):
        out = dict(data.get("kwargs") or {})
        if data.get("args"):
            out.setdefault("args", data["args"])
        return out
    return data if isinstance(data, dict) else {"input": data}


def task(value: Any) -> str | None:
    """The user's task in an agent's or chain's ``input.value``: a ``task``/``input``/``query`` field, the
    first user message of ``messages`` (dicts, ``[role, text]`` pairs or LangChain reprs), or plain text."""
    data = decoded(value)
    if isinstance(data, str):
        return _user_turn(data) or data.strip() or None
    if isinstance(data, dict):
        for key in _USER_KEYS:
            found = _text_of(data.get(key))
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


def _user_turn(text: str) -> str | None:
    """The first user turn of a chat written as text, one ``role: text`` turn after another (Agno's model
    spans: ``"developer: ...\nuser: What is trending?"``), or None when the text is not such a transcript."""
    turns = list(_TURN.finditer(text))
    if not turns or turns[0].start() != 0:
        return None
    for i, turn in enumerate(turns):
        if turn.group(1) in ("user", "human"):
            return text[turn.end():turns[i + 1].start() if i + 1 < len(turns) else len(text)].strip() or None
    return None


def _text_of(value: Any) -> str | None:
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, dict):  # {"parts": [{"text": ...}]} (Google ADK), {"content": ...}
        parts = value.get("parts")
        if isinstance(parts, list):
            texts = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
            return " ".join(texts).strip() or None
        return _text_of(value.get("content"))
    if isinstance(value, list):  # content parts [{"type": "text", "text": ...}], or messages
        texts = [p["text"] for p in value if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return " ".join(texts).strip() or None if texts else _first_user(value)
    return None


def _first_user(messages: list) -> str | None:
    for m in messages:
        if isinstance(m, list) and len(m) == 2 and m[0] in ("user", "human") and isinstance(m[1], str):
            return m[1].strip() or None
        if isinstance(m, list):
            inner = _first_user(m)
            if inner:
                return inner
        if isinstance(m, dict) and m.get("role") in ("user", "human") or \
                isinstance(m, dict) and m.get("type") in ("human", "user"):
            found = _text_of(m.get("content"))
            if found:
                return found
        if isinstance(m, str) and m.startswith("content="):  # a LangChain message's repr
            match = _REPR_CONTENT.match(m)
            if match and "HumanMessage" in m or match and "type='human'" in m:
                return match.group(2).strip() or None
    return None
