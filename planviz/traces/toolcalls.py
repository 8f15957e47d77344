"""Whether a span or an observation is a tool call: the one answer every span reader gives.

A span is a tool call when any of these says so:

- ``gen_ai.operation.name`` ``execute_tool`` (GenAI; ``tool``, ``TOOL`` as deviations);
- ``gen_ai.tool.name`` or ``gen_ai.tool.call.id`` on a span with no
  operation name at all (Koog, AG2: their tool spans carry the tool's name and
  call id, never an operation; two parallel tool calls would vanish);
- OpenInference's span kind ``TOOL``;
- a Langfuse observation of type ``TOOL``, or one whose metadata says so:
  its OpenTelemetry attributes as above, or a run inside LangGraph's ``tools``
  node (``langgraph_node: tools``), neither the node itself nor LangGraph's own
  plumbing run inside it (``ChannelWrite<...>``, ``Branch<...>``, ``RunnableSequence``...:
  LangGraph JS reports them, and each would be a tool call that never ran). Langfuse writes
  ``metadata`` as an object through its API and as JSON text in the trace its
  web UI downloads: both read the same (:func:`metadata`).

What a tool call returned is kept on its step's observation as ``data["result"]``
(:func:`kept`: the value as the trace gives it, JSON text decoded; cut when
very long), and its error text as ``data["error"]``.

>>> by_attributes({"gen_ai.tool.name": "HelloTool", "gen_ai.tool.call.id": "call_1"})
True
>>> by_attributes({"gen_ai.operation.name": "chat", "gen_ai.tool.name": "HelloTool"})
False
>>> observation({"type": "SPAN", "name": "search", "metadata": '{"langgraph_node": "tools"}'})
True
>>> observation({"type": "SPAN", "name": "ChannelWrite<branch:to:agent>", "metadata": {"langgraph_node": "tools"}})
False
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "by_attributes",
    "metadata",
    "attributes",
    "observation",
    "kept",
    "TOOL_OPERATIONS",
    "KEPT",
]

KEPT = 10_000  # characters of a tool's result kept as its value; a longer one is kept as its first KEPT characters

TOOL_OPERATIONS = frozenset({"execute_tool", "tool", "TOOL"})
_OPERATION_KEYS = ("gen_ai.operation.name", "traceloop.span.kind")
_TOOL_KEYS = ("gen_ai.tool.name", "gen_ai.tool.call.id")
# LangGraph's own runnables, which run inside a node beside (or around) the tools it calls: writing the node's
# output to channels, choosing the next node, the node's sequence itself. Never a tool call.
_LANGGRAPH_PLUMBING = re.compile(
    r"^(?:(?:ChannelWrite|ChannelRead|ChannelInvoke|Branch|RunnableParallel|RunnableMap)<.*>"
    r"|ChannelWrite|ChannelRead|RunnableSequence|RunnableLambda|RunnableCallable|__start__|__end__)$",
    re.S,
)


def by_attributes(attrs: Any) -> bool:
    """True when a span's attributes make it a tool call (see the module)."""
    if not isinstance(attrs, dict):
        return False
    kind = attrs.get("openinference.span.kind")
    if isinstance(kind, str):
        return kind.upper() == "TOOL"
    operation = next((attrs[k] for k in _OPERATION_KEYS if attrs.get(k) is not None), None)
    if operation is not None:
        return operation in TOOL_OPERATIONS
    return any(isinstance(attrs.get(k), str) and attrs[k] for k in _TOOL_KEYS)


def metadata(o: Any) -> dict[str, Any]:
    """A Langfuse observation's (or trace's) ``metadata`` as an object: the object itself, or its JSON text
    decoded (the web UI's download); ``{}`` when it is neither."""
    md = o.get("metadata") if isinstance(o, dict) else None
    if isinstance(md, str) and md.lstrip().startswith("{"):
        try:
            md = json.loads(md)
        except (ValueError, RecursionError):
            return {}
    return md if isinstance(md, dict) else {}


def attributes(o: Any) -> dict[str, Any]:
    """The OpenTelemetry attributes a Langfuse observation's metadata holds (``metadata.attributes``)."""
    attrs = metadata(o).get("attributes")
    return attrs if isinstance(attrs, dict) else {}


def observation(o: Any) -> bool:
    """True when a Langfuse observation is a tool call (see the module)."""
    if not isinstance(o, dict):
        return False
    kind = o.get("type")
    if kind == "TOOL":
        return True
    if kind in ("GENERATION", "EMBEDDING", "EVENT"):
        return False
    if by_attributes(attributes(o)):
        return True
    # a tool run under LangGraph's ToolNode, not LangGraph's own writes and branches
    return (
        kind in ("SPAN", "AGENT", "CHAIN")
        and metadata(o).get("langgraph_node") == "tools"
        and o.get("name") != "tools"
        and not (isinstance(o.get("name"), str) and _LANGGRAPH_PLUMBING.match(o["name"]))
    )


def kept(value: Any) -> Any:
    """A tool's result as its step's observation keeps it: the value itself (JSON text decoded), or, when its
    text is longer than :data:`KEPT` characters, its first :data:`KEPT` characters followed by ``…``."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return value if len(text) <= KEPT else text[:KEPT] + "…"
