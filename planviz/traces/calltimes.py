"""How long a call really took: the one rule every span reader uses for the end of a model or tool call.

A span's own end is not always the end of the call it stands for:

- a **streamed** model call's span may end when the stream object is
  returned, before the first chunk arrives (0.2-0.8 ms for a 1-2 s
  generation). What the span recorded after that is the evidence: its events
  (``First Token Stream Event``, ``gen_ai.content.completion``,
  ``ai.stream.finish``...), the AI SDK's ``ai.response.msToFinish``, Langfuse's
  ``completionStartTime`` and the ends of the spans below it. The call lasts
  until the latest of them (:func:`clues` reads them, :func:`settle` applies
  them); when that latest moment is only the first token's (``First Token
  Stream Event``, ``ai.stream.firstChunk``, ``completionStartTime``), the reply
  went on after it: the call is read as unended (below), never before it;
- an **unended** call (no end recorded) under a span that ended lasts until
  the next span under its parent began, else until the nearest ended span
  above it ended (never before its own latest evidence); its duration is then
  inferred (``ModelCall.duration_inferred``). A tool call is so ended only
  when it returned (a result, no error), a model call that is a step only when
  its reply is recorded: a call that was still running leaves the run
  unfinished. A model call that is no step is always so bounded: it cannot
  outlast the span that holds it;
- a streamed model call that records nothing after its end and whose span
  lasted under :data:`INSTANT` (no model streams a reply in under a
  millisecond) took an **unknown** time: its duration is None, shown as
  unknown, never as the span's few microseconds.

``Span.timing`` says which rule gave the end: None (the span's own),
``"streamed"`` (extended by its evidence), ``"inferred"`` or ``"unknown"``.

>>> c = clues([{"name": "First Token Stream Event", "timeUnixNano": "2000000000"}], {"llm.is_streaming": True})
>>> c.evidence, c.streamed
(2000000000, True)
"""

from __future__ import annotations

import bisect
import json
import re
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping, Protocol, TypeVar

from planviz.errors import TraceFormatError
from planviz.io.limits import read_float, read_int
from planviz.io.plaindata import iso_nanos
from planviz.io.syntax import show_value
from planviz.runs.modelcall import ModelCall

__all__ = ["Clues", "TimedCall", "clues", "settle", "timed", "INSTANT", "OUTPUTS"]

INSTANT = (
    1_000_000  # ns: a streamed span shorter than this measured the stream's creation, not the reply
)
# Attributes that hold a model call's reply (GenAI, older GenAI, any-agent, OpenInference, OpenLLMetry, AI SDK).
OUTPUTS = (
    "gen_ai.output.messages",
    "gen_ai.completion",
    "gen_ai.output",
    "output.value",
    "llm.output_messages",
    "gen_ai.completion.0.content",
    "gen_ai.completion.0.tool_calls.0.name",
    "ai.response.text",
    "ai.response.toolCalls",
    "llm.output_messages.0.message.content",
)
# an event of the first token or chunk: the reply went on after it
_FIRST = re.compile(r"first", re.IGNORECASE)
_STREAM_FLAGS = ("llm.is_streaming", "gen_ai.request.stream", "gen_ai.openai.request.stream")


@dataclass(frozen=True)
class Clues:
    """What a model span recorded about its call's time besides its own start and end: ``evidence``, the latest
    moment it shows the call alive (nanoseconds, None when none); ``opening``: that moment is only the first
    token's (``First Token Stream Event``, ``ai.stream.firstChunk``, ``completionStartTime``): the call ended
    later, when is not said; ``streamed``: the call streamed its reply; ``answered``: its reply is recorded."""

    evidence: int | None = None
    streamed: bool = False
    answered: bool = False
    opening: bool = False


# every attribute clues reads: a span with none of them (and no event) has no clue
_CLUE_KEYS = frozenset(
    (
        "ai.response.msToFinish",
        "ai.stream.msToFinish",
        "ai.operationId",
        "llm.invocation_parameters",
        *_STREAM_FLAGS,
        *OUTPUTS,
    )
)
_NO_CLUES = Clues()

# nanoseconds since the epoch a time may hold (20 digits, as read_int reads them): year 5138
_LATEST = 10**20


def _moment(value: Any, field: str, bad: Any) -> int | None:
    """An event time: nanoseconds (a number or digits), an ISO time, or an hrtime pair ``[s, ns]``; a number
    past :data:`_LATEST` is refused naming ``field`` (``bad(field, why)`` makes the error)."""
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in value)
    ):
        value = value[0] * 1_000_000_000 + value[1] if 0 <= value[1] < 1_000_000_000 else -1
    if isinstance(value, int) and not isinstance(value, bool):
        if value >= _LATEST:
            raise bad(field, f"expected a time in nanoseconds, got {show_value(value, 40)}")
        return value if value > 0 else None
    if isinstance(value, str) and value:
        number = read_int(value) if len(value) < 20 else None
        return number if number is not None and number > 0 else iso_nanos(value)
    return None


def _true(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def clues(
    events: Iterable[Mapping[str, Any]],
    attrs: Mapping[str, Any],
    start: int | None = None,
    completion_start: Any = None,
    answered: bool | None = None,
    bad: Any = None,
) -> Clues:
    """The :class:`Clues` of a model span: its events' times (``timeUnixNano``, ``timestamp`` or ``time``), the
    AI SDK's ``ai.response.msToFinish`` after ``start``, a ``completion_start`` (Langfuse), its stream flags
    (``llm.is_streaming``, ``gen_ai.request.stream``, ``stream`` in ``llm.invocation_parameters``, an AI SDK
    ``doStream``) and whether its reply is recorded (``answered``, else one of :data:`OUTPUTS`). A time or a
    duration past any clock (a 401-digit integer, ``1e999``) is refused with ``bad(field, why)``, the reader's
    error naming the span."""
    if (
        answered is None
        and completion_start is None
        and type(events) is list
        and not events
        and attrs.keys().isdisjoint(_CLUE_KEYS)
    ):
        return _NO_CLUES  # most model spans: no event, no stream flag, no reply recorded, nothing to read
    bad = bad or (lambda field, why: TraceFormatError(why, path=field))
    times = [
        (t, _FIRST.search(str(e.get("name", ""))) is not None)
        for e in events
        if isinstance(e, Mapping)
        for t in [
            _moment(e.get("timeUnixNano", e.get("timestamp", e.get("time"))), "events[].time", bad)
        ]
        if t is not None
    ]
    first = _moment(completion_start, "completionStartTime", bad)
    if first is not None:
        times.append((first, True))
    key = "ai.response.msToFinish" if "ai.response.msToFinish" in attrs else "ai.stream.msToFinish"
    finish = attrs.get(key)
    if (
        start is not None
        and isinstance(finish, (int, float))
        and not isinstance(finish, bool)
        and finish >= 0
    ):
        ms = read_float(finish)
        if ms is None or start + ms * 1_000_000 >= _LATEST:
            raise bad(
                f"attributes.{key}",
                f"expected the milliseconds a call took, got {show_value(finish, 40)}",
            )
        times.append((start + int(ms * 1_000_000), False))
    latest = max(times, key=lambda tf: (tf[0], not tf[1])) if times else (None, False)
    streamed = (
        any(f for _, f in times)
        or any(_true(attrs.get(k)) for k in _STREAM_FLAGS)
        or str(attrs.get("ai.operationId", "")).endswith(".doStream")
    )
    params = attrs.get("llm.invocation_parameters")
    if not streamed and isinstance(params, str) and '"stream"' in params:
        try:
            decoded = json.loads(params)
        except ValueError:
            decoded = None
        streamed = isinstance(decoded, dict) and decoded.get("stream") is True
    if answered is None:
        answered = any(attrs.get(k) not in (None, "", "[]") for k in OUTPUTS)
    return Clues(latest[0], streamed, answered, latest[1])


class TimedCall(Protocol):
    """What :func:`settle` reads and sets of a span (the span readers' ``Span`` has these)."""

    span_id: str
    start: int
    end: int | None
    status: str
    result: str | None
    clues: Clues | None
    timing: str | None


_Call = TypeVar("_Call", bound=TimedCall)


def settle(
    order: list[_Call],
    parent: Mapping[str, str | None],
    steps: list[_Call],
    models: list[_Call],
    end: int | None = None,
) -> list[_Call]:
    """Give each call its real end (see the module) and mark ``timing``; return the step spans whose end was
    inferred (they returned but never recorded an end). ``order``: every span, sorted by start; ``parent``:
    each span id's parent id (None at the top); ``steps``: the step spans; ``models``: the model spans; ``end``:
    when the trace itself says it ended (a Langfuse trace's ``latency`` after its first observation's start), the
    bound of its top spans."""
    by_id: dict[str | None, _Call] = {s.span_id: s for s in order}
    below: dict[str | None, list[_Call]] = defaultdict(list)
    for s in order:
        below[parent[s.span_id]].append(s)
    depth: dict[str | None, int] = {None: -1}

    def level(sid: str | None) -> int:
        path = []
        while sid not in depth:
            path.append(sid)
            sid = parent[sid]  # type: ignore[index]
        d = depth[sid]
        for p in reversed(path):
            d += 1
            depth[p] = d
        return d

    reopened: set[str] = set()  # ended before its first token: its span's end is not the call's
    alive: dict[
        str, int
    ] = {}  # an unended model call -> the latest moment its events and children show it alive
    # deepest first: an inner call's end is known
    for m in sorted(models, key=lambda s: -level(s.span_id)):
        latest = [c.end for c in below.get(m.span_id, ()) if c.end is not None]
        if m.clues is not None and m.clues.evidence is not None:
            latest.append(m.clues.evidence)
        opening = (
            m.clues is not None
            and m.clues.opening
            and m.clues.evidence == max(latest, default=None)
        )
        if latest and (m.end is None or (opening and max(latest) > m.end)):
            # alive then; if it ended, it ended later: read as unended
            alive[m.span_id] = max(latest)
            if m.end is not None:
                m.end = None
                reopened.add(m.span_id)
        elif m.end is not None and latest and max(latest) > m.end:
            m.end, m.timing = max(latest), "streamed"
        elif (
            m.end is not None
            and m.clues is not None
            and m.clues.streamed
            and m.end - m.start < INSTANT
            and not any(t > m.start for t in latest)
        ):
            m.timing = "unknown"
    step_ids = {s.span_id for s in steps}
    open_calls = [
        s
        for s in steps
        if s.end is None
        and s.status != "error"
        and s.span_id not in reopened
        and (s.result is not None or (s.clues is not None and s.clues.answered))
    ]
    open_calls += [
        m for m in models if m.end is None and (m.span_id not in step_ids or m.span_id in reopened)
    ]
    starts = {p: [s.start for s in ss] for p, ss in below.items()}
    # span id -> the end of it or of its nearest ended ancestor
    bound: dict[str | None, int | None] = {None: end}

    def ended_above(node: str | None) -> int | None:
        path = []
        while node not in bound:
            path.append(node)
            up = by_id[node]
            if up.end is not None:
                bound[node] = up.end
                path.pop()
                break
            node = parent[node]  # type: ignore[index]
        for p in path:
            bound[p] = bound[node]
        return bound[node]

    out = []
    for s in sorted(open_calls, key=lambda s: (s.start, s.span_id)):
        up = parent[s.span_id]
        limit = ended_above(up)
        if limit is None:
            # it ran at least until its first token; how much longer is unknown
            if s.span_id in reopened:
                s.end, s.timing = alive[s.span_id], "unknown"
            continue
        later = starts[up]
        i = bisect.bisect_right(later, s.start)
        s.end = max(
            s.start,
            alive.get(s.span_id, s.start),
            min(later[i], limit) if i < len(later) else limit,
        )
        s.timing = "inferred"
        if s.span_id in step_ids:
            out.append(s)
    return out


def timed(call: ModelCall, span: TimedCall) -> ModelCall:
    """A model call record (:class:`~planviz.runs.modelcall.ModelCall`) with the duration :func:`settle` gave its
    span: None when it is unknown, ``duration_inferred`` when its end was inferred."""
    if span.timing == "unknown":
        return replace(call, duration=None, duration_inferred=False)
    return replace(call, duration_inferred=True) if span.timing == "inferred" else call
