"""OpenInference span attributes decoded: the span kinds, a tool call's arguments, an agent's task.

The one home of OpenInference's attribute conventions, below every reader that meets them:
:mod:`~planviz.traces.otel.otelspans` (each span by its own convention),
:mod:`~planviz.traces.otel.oteljs` and :mod:`~planviz.traces.langfuse.export`. The format itself (detecting
and reading a file) is :mod:`~planviz.traces.otel.openinference`.

- a tool call's arguments are its ``input.value``, unwrapped from the
  ``{"args": [...], "kwargs": {...}}`` that smolagents and LlamaIndex write,
  JSON-decoded, or read as a Python literal when it is the ``str()`` of a dict
  (LangChain's OpenInference instrumentation writes ``"{'city': 'Paris'}"``;
  nothing is evaluated); other text is kept as text. Never
  ``tool.parameters``: that is the tool's JSON schema, not the call;
- the goal is the user's task in the AGENT span's ``input.value`` (else a
  CHAIN span's, else the first LLM span's ``llm.input_messages``), read by
  :func:`~planviz.traces.messages.task`, the one reading of every message shape.

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

from typing import Any

from planviz.errors import PlanFormatError
from planviz.io.plaindata import check_plain, python_literal
from planviz.traces.messages import decoded, task

__all__ = ["KIND", "KINDS", "arguments", "dict_literal", "task"]

KIND = "openinference.span.kind"
KINDS = {"LLM": "chat", "TOOL": "execute_tool", "AGENT": "invoke_agent", "CHAIN": "invoke_agent"}
"""OpenInference span kinds to the GenAI operations planviz reads them as (EMBEDDING, RETRIEVER... are
neither steps nor model calls)."""


def dict_literal(data: Any) -> Any:
    """The ``str()`` of a Python dict (``"{'city': 'Paris'}"``) as that dict, read as a literal (nothing is
    evaluated); any other value, or text that is no plain dict literal, as it is.

    >>> dict_literal("{'text': '2025', 'n': None}"), dict_literal("{oops")
    ({'text': '2025', 'n': None}, '{oops')
    """
    if (
        isinstance(data, str)
        and data.lstrip()[:1] == "{"
        and isinstance(found := python_literal(data), dict)
    ):
        try:
            check_plain(found)
            return found
        # a lone surrogate, an integer too long to write: kept as the text it was
        except PlanFormatError:
            pass
    return data


def arguments(value: Any) -> dict[str, Any]:
    """A tool call's arguments from its ``input.value``: the keyword arguments of an ``args``/``kwargs``
    wrapper (positional ones under ``args``), a JSON object itself or the ``str()`` of a Python dict (LangChain's
    tool input: ``"{'city': 'Paris'}"``, read as a literal, never evaluated), anything else under ``input``."""
    data = dict_literal(decoded(value))
    if data is None or data == "":
        return {}
    if (
        isinstance(data, dict)
        and ("kwargs" in data or "args" in data)
        and isinstance(data.get("kwargs", {}), dict)
        and isinstance(data.get("args", []), list)
    ):
        out = dict(data.get("kwargs") or {})
        if data.get("args"):
            out.setdefault("args", data["args"])
        return out
    return data if isinstance(data, dict) else {"input": data}
