"""OpenTelemetry spans as planviz reads them: both JSON shapes, the GenAI attributes and their deviations.

Two shapes carry the same spans:

- the **OTel Python SDK span JSON** (``ReadableSpan.to_json()``: ``context``
  with ``trace_id``/``span_id``, ``parent_id`` or ``parent``, ``start_time``
  and ``end_time`` as ISO text or nanoseconds, ``status.status_code``,
  ``attributes`` as a mapping);
- the **OTLP/JSON** wire envelope (``resourceSpans`` / ``scopeSpans`` /
  ``spans``: hex ``traceId``/``spanId``/``parentSpanId``,
  ``startTimeUnixNano`` as a string of nanoseconds, ``attributes`` as
  ``[{"key", "value": {"stringValue" | "intValue" | ...}}]``, ``status.code``).

:func:`span_of` turns either into a :class:`Span` holding only what a run
needs, checking every field it reads (a bad one is a
:class:`~planviz.errors.TraceFormatError` naming the record and the field).
The GenAI semantic conventions are still "development" status and real
emitters deviate from them; :data:`ATTRIBUTES` lists, for each thing read, the
documented name first and then the deviations accepted. Every deviation used
is counted in ``Span.deviations`` and reported once per name.

>>> s = span_of({"name": "execute_tool add", "context": {"span_id": 5, "trace_id": 1},
...              "start_time": 1000, "end_time": 3000, "status": {"status_code": "ok"},
...              "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "add",
...                             "gen_ai.tool.args": '{"a": 1}'}}, {}, "spans[0]", 1, "t.json")
>>> s.span_id, s.operation, s.tool, s.arguments, s.deviations
('0000000000000005', 'execute_tool', 'add', {'a': 1}, ('gen_ai.tool.args',))
"""

from __future__ import annotations

import json
from sys import intern
from typing import Any, Callable, Mapping

from planviz.errors import TraceFormatError
from planviz.plan.fields import EFFECTS
from planviz.traces import calltimes, messages, toolcalls
from planviz.traces.messages import reply
from planviz.traces.otel import openinferencevalues, producerquirks
from planviz.traces.otel.otlpvalues import nanos, number, otel_id, otlp_attributes, short
from planviz.traces.spanmessages import event_messages, flat_names, model_input, model_output
from planviz.traces.tokens import ATTRIBUTES as TOKEN_ATTRIBUTES, tokens_of

__all__ = [
    "Span",
    "span_of",
    "leaves",
    "ATTRIBUTES",
    "DOCUMENTED",
    "TOOL",
    "MODEL",
    "AGENT",
    "OPERATIONS",
    "SHORT",
]

SHORT = messages.SHORT  # characters of a result or message kept for display

# What planviz reads, by the names it accepts: the documented GenAI name first, then deviations seen in the wild
# (any-agent, OpenInference/Phoenix, OpenLLMetry/Traceloop, older semantic-convention versions).
ATTRIBUTES: Mapping[str, tuple[str, ...]] = {
    # llm.request.type: OpenLLMetry's model spans (openai.chat, anthropic.chat...), which have no other kind
    "operation": (
        "gen_ai.operation.name",
        "openinference.span.kind",
        "traceloop.span.kind",
        "llm.request.type",
        "agentops.span.kind",  # AgentOps' decorators (session, agent, workflow, task, tool)
    ),
    # operation.name: AgentOps' @tool spans ("{name}.tool"), agentops.operation.name in its earlier versions
    "tool": (
        "gen_ai.tool.name",
        "tool.name",
        "traceloop.entity.name",
        "operation.name",
        "agentops.operation.name",
    ),
    # tool.id: OpenInference TOOL spans
    "call_id": (
        "gen_ai.tool.call.id",
        "gen_ai.tool_call.id",  # Google ADK for Java and Dart
        "tool_call.id",
        "tool.id",
    ),
    "arguments": (
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.args",
        "input.value",
        "traceloop.entity.input",
        "gcp.vertex.agent.tool_call_args",  # Google ADK (Python, Java, JS, Go)
        "tool_arguments",  # Pydantic AI's 'running tool' span (instrumentation before 1.0)
        "agentops.tool.input",  # AgentOps' @tool (agentops.entity.input before)
        "agentops.entity.input",
    ),
    "result": (
        "gen_ai.tool.call.result",
        "gen_ai.output",
        "genai.output",  # any-agent of May 2025 (0.15): its tools' and model calls' output
        "output.value",
        "traceloop.entity.output",
        "gcp.vertex.agent.tool_response",  # Google ADK: a dict, a non-dict answer under "result"
        "tool_response",  # Pydantic AI's 'running tool' span (instrumentation before 1.0)
        "agentops.tool.output",
        "agentops.entity.output",
    ),
    "agent": ("gen_ai.agent.name", "gen_ai.workflow.name", "agent.name"),
    "model": ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name"),
    "input_tokens": (
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.prompt_tokens",
        "llm.token_count.prompt",
    ),
    "output_tokens": (
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.completion_tokens",
        "llm.token_count.completion",
    ),
    "cost": ("gen_ai.usage.cost", "llm.cost.total"),
    "error": ("error.type",),
    "effect": ("gen_ai.agent.tool.tier",),  # read | write | destructive: the step's effect
    "messages": ("gen_ai.input.messages", "gen_ai.prompt"),
}
# each thing's names as a set: a span holding none of them is answered at once
_NAMES = {what: frozenset(names) for what, names in ATTRIBUTES.items()}
# The names the conventions document (reading any other name of ATTRIBUTES is a deviation, reported).
DOCUMENTED = frozenset(
    {
        "gen_ai.operation.name",
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.agent.name",
        "gen_ai.workflow.name",
        "gen_ai.response.model",
        "gen_ai.request.model",
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "error.type",
        "gen_ai.input.messages",
        "gen_ai.agent.tool.tier",
    }
)
# Costs some emitters split in two, summed when the total is absent: any-agent's GenAI and OpenInference names, and
# OpenInference's own; the first pair a span holds is read.
_SPLIT_COST = (
    ("gen_ai.usage.input_cost", "gen_ai.usage.output_cost"),
    ("cost_prompt", "cost_completion"),
    ("llm.cost.prompt", "llm.cost.completion"),
)

TOOL, MODEL, AGENT, PLAN = "execute_tool", "chat", "invoke_agent", "plan"
# Operation names, documented and deviating, to what planviz makes of them.
OPERATIONS: Mapping[str, str] = {
    "execute_tool": TOOL,
    "tool": TOOL,
    "TOOL": TOOL,
    "chat": MODEL,
    "text_completion": MODEL,
    "completion": MODEL,  # OpenLLMetry's llm.request.type of a completion call
    "chat.completions": MODEL,  # Semantic Kernel's model calls
    "text.completions": MODEL,  # Semantic Kernel's model calls
    "embedding": MODEL,  # OpenLLMetry's llm.request.type of an embedding call
    "generate_content": MODEL,
    "call_llm": MODEL,
    "llm": MODEL,
    "LLM": MODEL,
    "embeddings": MODEL,
    "invoke_agent": AGENT,
    "invoke_workflow": AGENT,
    "create_agent": AGENT,
    "agent": AGENT,
    "AGENT": AGENT,
    "workflow": AGENT,
    "CHAIN": AGENT,
    "task": AGENT,
    "plan": PLAN,
}
_DOCUMENTED_OPERATIONS = frozenset(
    {
        "execute_tool",
        "chat",
        "text_completion",
        "generate_content",
        "embeddings",
        "invoke_agent",
        "invoke_workflow",
        "create_agent",
        "plan",
    }
)
_SPLIT_NAMES = frozenset(name for pair in _SPLIT_COST for name in pair)
_STATUS = {
    0: "unset",
    1: "ok",
    2: "error",
    "unset": "unset",
    "ok": "ok",
    "error": "error",
    "status_code_unset": "unset",
    "status_code_ok": "ok",
    "status_code_error": "error",
}
_NO_LEAVES: frozenset[str] = frozenset()  # one empty set for every span that returned nothing
# json.dumps(value, ensure_ascii=False, default=str), its encoder made once, not once per call
_json_text = json.JSONEncoder(ensure_ascii=False, default=str).encode


class Span:
    """What planviz keeps of one span (times in nanoseconds; ``end`` None while it has not ended)."""

    __slots__ = (
        "span_id",
        "trace_id",
        "parent_id",
        "name",
        "start",
        "end",
        "clues",
        "timing",
        "status",
        "message",
        "operation",
        "tool",
        "call_id",
        "arguments",
        "result",
        "agent",
        "model",
        "input_tokens",
        "output_tokens",
        "cost",
        "error",
        "goal",
        "goal_rank",
        "convention",
        "where",
        "line",
        "deviations",
        "leaves",
        "effect",
        "reasoning_tokens",
        "cached_tokens",
        "total_tokens",
        "input_text",
        "output_text",
        "value",
        "aside",
    )
    # What span_of stores (the constructor takes any subset; a field not given is None).
    span_id: str
    trace_id: str | None
    parent_id: str | None
    name: str
    start: int
    end: int | None
    clues: calltimes.Clues | None
    timing: str | None  # what else tells the call's end; which rule gave it
    status: str
    message: str
    operation: str | None
    tool: str | None
    call_id: str
    arguments: dict[str, Any] | None
    result: str | None
    agent: str
    model: str | None
    input_tokens: int | None
    output_tokens: int | None
    cost: float | None
    error: str
    goal: str | None
    goal_rank: int
    convention: str
    where: str
    line: int | None
    deviations: tuple[str, ...]
    leaves: frozenset[str]
    effect: str | None
    reasoning_tokens: int | None
    cached_tokens: int | None
    total_tokens: int | None
    input_text: str | None
    output_text: str | None
    value: Any  # a model call's input and reply; a tool's result
    aside: (
        str | None
    )  # Logfire's "pending_span" copy of a span, or an "annotation" (feedback) made later

    def __init__(self, **fields: Any) -> None:  # replaced below by the same, written out
        for name in self.__slots__:
            setattr(self, name, fields.get(name))

    def __repr__(self) -> str:
        return f"<Span {self.span_id} {self.name!r} {self.operation}>"


def _span_init() -> Callable[..., None]:
    """``Span.__init__`` written out, one keyword per slot (None when not given) and one store each: a
    third of the loop's cost, once per span of a big trace (issue 43)."""
    names = Span.__slots__
    code = f"def __init__(self, *, {', '.join(f'{n}=None' for n in names)}):\n    " + "\n    ".join(
        f"self.{n} = {n}" for n in names
    )
    scope: dict[str, Any] = {}
    exec(code, scope)  # noqa: S102 (the names are Span's slots: identifiers)
    init: Callable[..., None] = scope["__init__"]
    return init


Span.__init__ = _span_init()  # type: ignore[method-assign]


def _fail(why: str, source: str, where: str, line: int | None) -> TraceFormatError:
    return TraceFormatError(why, source=source, line=line, path=where or None)


def span_record(
    raw: Any, what: str, where: str, line: int | None, source: str
) -> tuple[dict[str, Any], Callable[[str, str], TraceFormatError]]:
    """``raw`` if it is a span object (else the error names ``what`` was expected, the value and the place),
    and the error for one of its fields: ``bad(field, why)``. Every span reader of the family opens with it."""

    def bad(field: str, why: str) -> TraceFormatError:
        return _fail(why, source, f"{where}.{field}" if where else field, line)

    if not isinstance(raw, dict):
        raise _fail(f"expected {what}, got {type(raw).__name__} {short(raw)}", source, where, line)
    return raw, bad


def span_of(
    raw: Any, context: Mapping[str, Any], where: str, line: int | None, source: str
) -> Span:
    """The :class:`Span` of one raw span record (either shape), every field it reads checked."""
    raw, bad = span_record(raw, "a span object", where, line, source)
    otlp = "spanId" in raw or "startTimeUnixNano" in raw
    if otlp:
        attrs = otlp_attributes(raw.get("attributes"), bad)
        span_id = otel_id(raw.get("spanId"), "spanId", bad, required=True, own=True)
        trace_id = otel_id(raw.get("traceId"), "traceId", bad)
        parent_id = otel_id(raw.get("parentSpanId"), "parentSpanId", bad)
        start = nanos(raw.get("startTimeUnixNano"), "startTimeUnixNano", bad, required=True)
        end = nanos(raw.get("endTimeUnixNano"), "endTimeUnixNano", bad)
        status = raw.get("status") or {}
        code_field, message_field = "code", "message"
        raw_events = _events(raw, bad)
        events = (
            [(e.get("name"), otlp_attributes(e.get("attributes"), bad)) for e in raw_events]
            if raw_events
            else []
        )
    else:
        attrs = raw.get("attributes") or {}
        if not isinstance(attrs, dict):
            raise bad("attributes", f"expected an object of attribute values, got {short(attrs)}")
        ctx = raw.get("context")
        # Google ADK's ``/debug/trace/session/{id}`` answer (``adk web``'s trace tab) and VeADK's trace dump:
        # the SDK span's fields flat, ``span_id``/``trace_id``/``parent_span_id`` integers, no ``context``
        flat = ctx is None and "span_id" in raw
        if flat:
            ctx = raw
        if not isinstance(ctx, dict):
            raise bad("context", f"expected an object with span_id and trace_id, got {short(ctx)}")
        prefix = "" if flat else "context."
        span_id = otel_id(ctx.get("span_id"), f"{prefix}span_id", bad, required=True, own=True)
        trace_id = otel_id(ctx.get("trace_id"), f"{prefix}trace_id", bad)
        parent = raw.get("parent")
        if isinstance(parent, dict):
            parent_id = otel_id(parent.get("span_id"), "parent.span_id", bad)
        elif flat and "parent_id" not in raw:
            parent_id = otel_id(raw.get("parent_span_id"), "parent_span_id", bad)
        else:
            parent_id = otel_id(raw.get("parent_id"), "parent_id", bad)
        start = nanos(raw.get("start_time"), "start_time", bad, required=True)
        end = nanos(raw.get("end_time"), "end_time", bad)
        status = raw.get("status") or {}
        code_field, message_field = "status_code", "description"
        raw_events = _events(raw, bad)
        events = [(e.get("name"), e.get("attributes") or {}) for e in raw_events]
    if not events:
        events = producerquirks.events_in_attributes(attrs)
    if not isinstance(status, dict):
        raise bad("status", f"expected an object, got {short(status)}")
    code = status.get(code_field, 0 if otlp else "unset")
    state = (
        _STATUS.get(code.lower())
        if isinstance(code, str)
        else _STATUS.get(code)
        if isinstance(code, int) and not isinstance(code, bool)
        else None
    )
    if state is None:
        raise bad(
            f"status.{code_field}", f"expected UNSET, OK or ERROR (0, 1, 2), got {short(code)}"
        )
    name = raw.get("name", "")
    if not isinstance(name, str):
        raise bad("name", f"expected a string, got {short(name)}")
    deviations: list[str] = []
    oi_kind = attrs.get(openinferencevalues.KIND)
    # an OpenInference span: its own convention, not a deviation from GenAI's
    oi = isinstance(oi_kind, str)
    oi_upper = oi_kind.upper() if isinstance(oi_kind, str) else ""

    keys = attrs.keys()

    def get(what: str) -> Any:
        if keys.isdisjoint(_NAMES[what]):
            return None  # none of its names (most lookups): no loop
        for key in ATTRIBUTES[what]:
            if key in attrs and attrs[key] is not None:
                if key not in DOCUMENTED and not oi:
                    deviations.append(key)
                return attrs[key]
        return None

    op_value = openinferencevalues.KINDS.get(oi_upper) if oi else get("operation")
    if op_value is None and not oi and toolcalls.by_attributes(attrs):
        op_value = TOOL  # gen_ai.tool.name / gen_ai.tool.call.id and no operation name (Koog, AG2)
        deviations.append("tool attributes")
    if op_value is None and name.split(" ", 1)[0] in OPERATIONS:
        # the span name's first word, as the conventions name spans
        op_value = name.split(" ", 1)[0]
        deviations.append("span name")
    if op_value is not None and not isinstance(op_value, str):
        raise bad("attributes.gen_ai.operation.name", f"expected a string, got {short(op_value)}")
    operation = OPERATIONS.get(op_value) if op_value else None
    if op_value and op_value not in _DOCUMENTED_OPERATIONS and operation:
        deviations.append(f"operation {op_value}")
    message = status.get(message_field) or ""
    error = _text(get("error"))
    for ev_name, ev_attrs in events:
        if ev_name == "exception" and isinstance(ev_attrs, dict):
            error = error or _text(ev_attrs.get("exception.type"))
            message = message or _text(ev_attrs.get("exception.message")) or ""
    tool = get("tool") if operation == TOOL else None
    if tool is None and operation == TOOL and name.startswith("execute_tool "):
        tool = name[len("execute_tool ") :]
    if tool is None and operation == TOOL and oi:
        tool = name
    if operation == TOOL and tool == producerquirks.ADK_MERGED:
        # Google ADK's 'execute_tool (merged)': the parallel calls' responses again, after each call's own span
        operation, tool = None, None
    heard = event_messages(events) if events else None  # messages as span events (Strands, Azure)
    arguments = (
        (
            openinferencevalues.arguments(attrs.get("input.value", get("arguments")))
            if oi
            else _arguments(get("arguments"))
        )
        if operation == TOOL
        else None
    )
    if operation == TOOL and arguments and not oi:
        read_from = next((k for k in ATTRIBUTES["arguments"] if attrs.get(k) is not None), None)
        arguments = producerquirks.traceloop_arguments(arguments, read_from)
    if operation == TOOL and heard is not None and not arguments and heard.arguments is not None:
        arguments = _arguments(heard.arguments)  # the call as a gen_ai.tool.message event (Strands)
    result = _value(get("result")) if operation == TOOL else None
    if operation == TOOL and result is None and heard is not None:
        result = _value(heard.answered)
    goal, goal_rank = None, 0
    # once, for the input and the reply
    flat_attrs = flat_names(attrs) if operation in (MODEL, AGENT) else None
    given = model_input(attrs, flat_attrs) if operation in (MODEL, AGENT) else None
    if given is None and heard is not None and operation in (MODEL, AGENT):
        given = heard.given
    if oi and oi_upper in ("AGENT", "CHAIN"):
        goal, goal_rank = (
            openinferencevalues.task(attrs.get("input.value")),
            (0 if oi_upper == "AGENT" else 1),
        )
    # an agent span with no input: the first model call's user message
    elif oi and operation == MODEL:
        goal, goal_rank = messages.task(given), 2
    elif operation in (MODEL, AGENT) and not oi:
        stated = get("messages")
        goal = messages.task(stated if stated is not None else given)
    goal = messages.shortened(goal)
    # an agent may be the call
    input_text = messages.last_input(given) if operation in (MODEL, AGENT) else None
    if input_text == goal:
        goal = input_text  # one string, not two equal ones (a big trace keeps one per model call)
    usage = tokens_of(attrs, TOKEN_ATTRIBUTES, lambda key, why: bad(f"attributes ({key})", why))
    get("input_tokens"), get("output_tokens")  # the names read, for the deviations reported
    cost = get("cost")
    split = (
        next((pair for pair in _SPLIT_COST if any(k in attrs for k in pair)), None)
        if cost is None and not attrs.keys().isdisjoint(_SPLIT_NAMES)
        else None
    )
    if split is not None:
        cost = sum(number(attrs.get(k), f"attributes.{k}", bad) or 0.0 for k in split)
    # the result as text once, for both its display (_brief) and what its step keeps (toolcalls.kept)
    text = None if result is None or isinstance(result, str) else _json_text(result)
    return Span(
        aside=kind
        if (kind := attrs.get("logfire.span_type")) in producerquirks.LOGFIRE_ASIDE
        else None,
        span_id=span_id,
        trace_id=trace_id,
        parent_id=parent_id if parent_id != span_id else None,
        name=intern(name),
        start=start,
        end=end,
        status=state,
        clues=calltimes.clues(raw_events, attrs, start, bad=bad) if operation == MODEL else None,
        message=_text(message)[:SHORT],
        operation=operation,
        tool=intern(_text(tool)) if tool is not None else None,
        call_id=_text(get("call_id")),
        arguments=arguments,
        result=None if result is None else _brief(result, text),
        leaves=frozenset(leaves(result) - leaves(arguments)) if result is not None else _NO_LEAVES,
        agent=intern(_text(get("agent"))),
        model=intern(_text(get("model"))) if operation in (MODEL, AGENT) else None,
        input_tokens=usage.input,
        output_tokens=usage.output,
        cost=number(cost, "attributes.gen_ai.usage.cost", bad),
        error=error,
        goal=goal,
        goal_rank=goal_rank,
        convention="openinference" if oi else "genai",
        where=where,
        line=line,
        deviations=tuple(deviations),
        effect=tier.lower()
        if operation == TOOL and isinstance(tier := get("effect"), str) and tier.lower() in EFFECTS
        else None,
        reasoning_tokens=usage.reasoning,
        cached_tokens=usage.cached,
        total_tokens=usage.total,
        input_text=input_text,
        output_text=(model_output(attrs, flat_attrs) or (reply(heard.answered) if heard else None))
        if operation in (MODEL, AGENT)
        else None,
        value=_kept(result, text),
    )


# --------------------------------------------------------------------------- field readers


def leaves(value: Any, out: set[str] | None = None, depth: int = 0) -> set[str]:
    """Scalar values inside ``value`` distinctive enough to show data flowing: strings of 4 to 1,000
    characters and numbers of three digits or more (no booleans, no short strings).

    >>> sorted(leaves({"a": "Paris", "b": [True, 2, 2025, "ok"]}))
    ['2025', 'Paris']
    """
    out = set() if out is None else out
    if depth > 20:
        return out
    if type(value) is str:  # most leaves: one test, not three
        text = value.strip()
        if 4 <= len(text) <= 1000:
            out.add(text)
    elif isinstance(value, dict):
        for v in value.values():
            leaves(v, out, depth + 1)
    elif isinstance(value, list):
        for v in value:
            leaves(v, out, depth + 1)
    elif isinstance(value, str):
        if 4 <= len(value.strip()) <= 1000:
            out.add(value.strip())
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) >= 100:
        out.add(str(value))
    return out


def _brief(value: Any, text: str | None = None) -> str:
    """A returned value as text for display, at most :data:`SHORT` characters (the rest is not kept); ``text``:
    the value as JSON text when it is no string, if made already."""
    if text is None:
        text = value if isinstance(value, str) else _json_text(value)
    return text[:SHORT] + "…" if len(text) > SHORT else text


def _kept(value: Any, text: str | None) -> Any:
    """:func:`planviz.traces.toolcalls.kept` of ``value``, its JSON ``text`` (when it is no string) made already."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if text is None:
        text = value if isinstance(value, str) else _json_text(value)
    return value if len(text) <= toolcalls.KEPT else text[: toolcalls.KEPT] + "…"


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else _json_text(value)


def _value(value: Any) -> Any:
    """A result or argument value: JSON text is decoded (attributes often hold JSON as a string)."""
    if isinstance(value, str) and value[:1] in '[{"' or value in ("null", "true", "false"):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _arguments(value: Any) -> dict[str, Any]:
    """A tool call's arguments: JSON text decoded, twice when it was encoded twice (any-agent's OpenAI Agents
    traces of mid-2025 hold ``"{\\"timezone\\": ...}"``), or the ``str()`` of a Python dict read as a literal
    (any-agent's LangChain traces of May 2025: ``"{'timezone': 'America/New_York'}"``), under ``input`` when
    they are no object."""
    decoded = openinferencevalues.dict_literal(messages.decoded(_value(value)))
    if decoded is None:
        return {}
    return decoded if isinstance(decoded, dict) else {"input": decoded}


def _events(raw: dict[str, Any], bad: Any) -> list[dict[str, Any]]:
    events = raw.get("events")
    if not events:
        return []  # most spans: none
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise bad("events", f"expected a list of event objects, got {short(events)}")
    return events
