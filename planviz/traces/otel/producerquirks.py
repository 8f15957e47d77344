"""What particular span producers write beyond the GenAI conventions, each read by :mod:`otelspans` by one rule.

- Google ADK repeats parallel tool calls in one more ``execute_tool (merged)`` span (tool ``(merged tools)``):
  no call of its own (:data:`ADK_MERGED`).
- Logfire sends a pending-span copy of every span when it starts (a child of the span) and records feedback as
  annotation spans afterwards (:data:`LOGFIRE_ASIDE`, the values of ``logfire.span_type``): an annotation is no
  work of the run, a pending copy stands for its span only when the span itself is not in the file.
- Pydantic AI (``event_mode="attributes"``) holds a span's GenAI message events as one JSON list in an
  attribute (:func:`events_in_attributes`).
- OpenLLMetry's and AgentOps' ``@tool`` write the Python call as ``{"args": [...], "kwargs": {...}}``
  (:func:`traceloop_arguments`).

>>> events_in_attributes({"events": '[{"event.name": "gen_ai.user.message", "content": "Hi"}]'})
[('gen_ai.user.message', {'event.name': 'gen_ai.user.message', 'content': 'Hi'})]
>>> traceloop_arguments({"args": [], "kwargs": {"city": "Paris"}}, TRACELOOP_INPUT)
{'city': 'Paris'}
"""

from __future__ import annotations

from typing import Any, Mapping

from planviz.traces.messages import decoded

__all__ = [
    "ADK_MERGED",
    "LOGFIRE_ASIDE",
    "TRACELOOP_INPUT",
    "events_in_attributes",
    "traceloop_arguments",
]

ADK_MERGED = (
    "(merged tools)"  # the gen_ai.tool.name of Google ADK's span repeating parallel tool calls
)
LOGFIRE_ASIDE = frozenset({"pending_span", "annotation"})
TRACELOOP_INPUT = "traceloop.entity.input"
# where a Python call is written as {"args": [...], "kwargs": {...}}: OpenLLMetry's and AgentOps' decorators
_CALL_INPUTS = frozenset({TRACELOOP_INPUT, "agentops.tool.input", "agentops.entity.input"})
# "events" on a model span, "all_messages_events" on the agent run
_EVENT_ATTRIBUTES = ("events", "all_messages_events")


def events_in_attributes(attrs: Mapping[str, Any]) -> list[tuple[Any, Any]]:
    """The ``(name, attributes)`` of the GenAI events an attribute holds as a JSON list of objects, each naming
    itself in ``event.name`` (Pydantic AI); none when no such attribute is there."""
    for key in _EVENT_ATTRIBUTES:
        listed = attrs.get(key)
        if isinstance(listed, str) and listed[:1] == "[":
            found = decoded(listed)
            if isinstance(found, list):
                return [(e.get("event.name"), e) for e in found if isinstance(e, dict)]
    return []


def traceloop_arguments(arguments: dict[str, Any], read_from: str | None) -> dict[str, Any]:
    """A tool call's arguments read from ``read_from``: OpenLLMetry's ``{"args": [...], "kwargs": {...}}`` as the
    keyword arguments, positional ones (nameless) kept under ``args``; any other shape, or arguments read from
    another attribute, as they are."""
    if read_from not in _CALL_INPUTS or set(arguments) != {"args", "kwargs"}:
        return arguments
    positional, named = arguments["args"], arguments["kwargs"]
    if not isinstance(positional, list) or not isinstance(named, dict) or "args" in named:
        return arguments
    return {**({"args": positional} if positional else {}), **named}
