"""OpenTelemetry GenAI traces as planviz runs: tool calls become steps, and what was guessed is said.

The GenAI conventions record what an agent did, not why: a tool call span
says which tool ran with which arguments and what it returned, but not which
earlier call it waited for. :func:`run_of_spans` builds the plan the run
followed and replays the spans through the run state machine:

- every ``execute_tool`` span is a step (id: the tool name, ``#2``... when it
  ran again); its arguments, result, status and times are the step's;
  a call that failed and was repeated with the same arguments under the same
  parent is one step retried (listed as an import finding);
- ``chat`` (and other model) spans are model calls: their model, token usage
  and cost ride on the observation of the tool call they led to (the next one
  under the same parent, else the last one); with no tool call at all, model
  calls are the steps;
- ``invoke_agent`` / ``invoke_workflow`` spans and the first user message give
  the goal; nesting scopes the dependencies below;
- dependencies are **inferred**: a call whose arguments contain a value an
  earlier call returned depends on it (the edge carries ``<step>.result``),
  and a call that started after another ended, within the same parent span,
  depends on it (the latest such calls only). Every inferred edge is listed
  in an ``inferred_dependency`` import finding and drawn dashed;
- a span with status ERROR fails its step (category ``tool_error``; the
  message from ``error.type``, the status description or an ``exception``
  event), kept as ``data["error"]`` on its observation beside what it
  returned (``data["result"]``, as every call's); an ERROR on an agent span fails the run; a call that never ended
  leaves the run unfinished (no stop event, outcome None), unless it returned
  (a result or a reply, no error) under a span that ended: some
  instrumentations export a call before ending it. Such a call ends when the
  next span under its parent began, else when the span above it ended
  (finding ``end_inferred``); a streamed model call lasts until its last
  event or child ended. One rule for both: :mod:`~planviz.traces.calltimes`.

Times are seconds from the first span's start (``plan.time_unit`` ``"s"``).

>>> from planviz.traces.otel.otelspans import span_of
>>> raw = [{"name": "execute_tool " + t, "context": {"span_id": i + 1}, "start_time": 10 * i + 1,
...         "end_time": 10 * i + 5, "attributes": {"gen_ai.operation.name": "execute_tool",
...         "gen_ai.tool.name": t}} for i, t in enumerate(["search", "fetch"])]
>>> run = run_of_spans([span_of(r, {}, f"[{i}]", 1, "t.json") for i, r in enumerate(raw)], "t.json")
>>> run.plan.step("fetch").depends_on, run.outcome
(('search',), 'plan_complete')
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import replace
from sys import intern
from typing import Any, Iterable, Iterator, TypeVar

from planviz.plan.bulk import built_steps
from planviz.plan.model import Finding, Plan, Step
from planviz.runs.events import ModelCall, Run, read_observation
from planviz.runs.turns import Turn
from planviz.traces import Document, Sample, calltimes
from planviz.traces.jsonstream import records, walk
from planviz.traces.otel.modelcalls import model_calls
from planviz.traces.otel.otelspans import AGENT, ATTRIBUTES, MODEL, TOOL, Span, span_of
from planviz.traces.otel.spandependencies import MAX_PREDECESSORS, data_flow, timing_edges
from planviz.traces.playback import Action, play

__all__ = ["run_of_spans", "CONTAINERS", "TITLE", "detect", "read", "spans_of", "is_span_data"]

TITLE = "OpenTelemetry"

CONTAINERS = frozenset(
    {
        "resourceSpans",
        "scopeSpans",
        "instrumentationLibrarySpans",
        "spans",
        "resource_spans",
        "scope_spans",
    }
)
_NS = 1e9
_RETURNED_NOTHING: frozenset[str] = frozenset()
# json.dumps(value, ensure_ascii=False, default=str), its encoder made once, not once per call
_json_text = json.JSONEncoder(ensure_ascii=False, default=str).encode
_KEYS = re.compile(
    r'"(resourceSpans|scopeSpans|spanId|span_id|traceId|startTimeUnixNano|start_time)"\s*:'
)


def detect(sample: Sample) -> float:
    """How surely a sample is OpenTelemetry span JSON: its keys (the earlier the first one, the surer)."""
    if sample.parsed:
        return 0.9 if is_span_data(sample.data) else 0.0
    return sample.keys_confidence(_KEYS)


def is_span_data(data: Any) -> bool:
    """Parsed data holding OTel spans: an OTLP envelope, ``{"spans": [...]}`` or a list of span objects."""
    if isinstance(data, dict):
        if any(k in data for k in ("resourceSpans", "resource_spans")):
            return True
        if isinstance(data.get("spans"), list):
            return True
        data = [data]
    first = data[0] if isinstance(data, list) and data else None
    return isinstance(first, dict) and any(
        k in first for k in ("spanId", "context", "resourceSpans", "scopeSpans")
    )


def spans_of(doc: Any) -> Iterable[Span]:
    """The spans of a document: streamed record by record from a file, or walked in data parsed already."""
    found = (
        walk(doc.data(), CONTAINERS)
        if doc.parsed
        else records(doc.stream(), set(CONTAINERS), doc.name)
    )
    return (span_of(raw, ctx, where, line, doc.name) for raw, ctx, where, line in found)


def read(doc: Document) -> Run:
    """The run of an OpenTelemetry trace (SDK span JSON or OTLP/JSON, one document or one span per line)."""
    return run_of_spans(spans_of(doc), doc.name)


def _finding(
    code: str,
    message: str,
    steps: Iterable[str] = (),
    edges: Iterable[tuple[str, str]] = (),
    where: str = "",
) -> Finding:
    return Finding(code, "import", "warning", message, tuple(steps), tuple(edges), where)


def _place(s: Span) -> str:
    return ":".join(x for x in (f"line {s.line}" if s.line else "", s.where) if x)


def run_of_spans(spans: Iterable[Span], source: str = "<trace>", ended: int | None = None) -> Run:
    """The recorded :class:`~planviz.Run` of a trace's spans (any order), with its import findings; ``ended``:
    when the trace says it ended (nanoseconds), if it says so apart from its spans."""
    # the spans are read in a function of their own, so that those no caller holds are freed before the run is
    # played (a big trace's spans and its run are not held at once)
    plan, actions, calls, turns = _timeline(spans, source, ended)
    return replace(play(plan, _drained(actions)), model_calls=calls, turns=turns)


_T = TypeVar("_T")


def _drained(actions: list[_T]) -> Iterator[_T]:
    """``actions`` in order, each let go by the list as it is taken: once played, an action is freed (the
    timeline of a big trace is not held whole beside the run it becomes; the tool calls' spans likewise once
    their actions are made)."""
    actions.reverse()
    while actions:
        yield actions.pop()


def _timeline(
    spans: Iterable[Span], source: str, ended: int | None
) -> tuple[Plan, list[Action], tuple[ModelCall, ...], tuple[Turn, ...]]:
    """The plan of a trace's spans, its timeline of actions, its model calls and its turns."""
    findings: list[Finding] = []
    by_id: dict[str, Span] = {}
    order: list[Span] = []
    dupes: list[Span] = []
    deviations: Counter[str] = Counter()
    first_at: dict[str, str] = {}
    pending: list[Span] = []
    for s in spans:
        # Logfire's feedback annotations, made after the run, are no work of it; its pending-span copy of a span
        # (a child of the span) stands for the span only when the span itself never came (a run cut short)
        if s.aside == "annotation":
            continue
        if s.aside:
            pending.append(s)
            continue
        for d in s.deviations:
            deviations[d] += 1
            first_at.setdefault(d, _place(s))
        if s.span_id in by_id:
            dupes.append(s)
            continue
        by_id[s.span_id] = s
        order.append(s)
    for s in pending:
        if s.parent_id not in by_id and s.span_id not in by_id:
            by_id[s.span_id] = s
            order.append(s)
    if dupes:
        findings.append(
            _finding(
                "duplicate_span",
                f"{len(dupes)} span(s) repeat the id of an earlier span "
                f"(first: {dupes[0].span_id} at {_place(dupes[0])}); the first is kept",
                where=_place(dupes[0]),
            )
        )
    for name, n in sorted(deviations.items()):
        findings.append(
            _finding("deviating_attribute", _deviation_text(name, n), where=first_at[name])
        )
    oi = sum(1 for s in order if s.convention == "openinference")
    if oi:
        findings.append(
            Finding(
                "read_as_openinference",
                "import",
                "info",
                f"read as OpenInference: {oi} span(s) "
                "carry openinference.span.kind (arguments from input.value, results from "
                "output.value, tokens from llm.token_count.*)",
                (),
                (),
                "",
            )
        )
    parent = _parents(order, by_id, findings)
    order.sort(key=lambda s: s.start)
    traces = {s.trace_id for s in order if s.trace_id}
    if len(traces) > 1:
        findings.append(
            _finding(
                "several_traces",
                f"the file holds {len(traces)} traces; they are read as one run, "
                "and no call is taken to wait for a call of another trace",
            )
        )
    t0 = order[0].start if order else 0
    steps_spans = [s for s in order if s.operation == TOOL]
    if not steps_spans:
        steps_spans = [s for s in order if s.operation == MODEL]
        if steps_spans:
            findings.append(
                _finding(
                    "no_tool_calls",
                    "the trace records no tool call: its model calls are shown as the steps",
                )
            )
    for s in order:
        if s.end is not None and s.end < s.start:
            findings.append(
                _finding(
                    "negative_duration",
                    f"span {s.span_id} ends before it starts; read as ending when it starts",
                    where=_place(s),
                )
            )
            s.end = s.start
    inferred = calltimes.settle(
        order, parent, steps_spans, [s for s in order if s.operation == MODEL], ended
    )
    # a result's text and a model call's clues to its end are read by settle alone: let go now
    for s in order:
        s.result = s.clues = None
    step_of, attempts, retried = _step_ids(steps_spans, parent)
    if inferred:
        names = [step_of[s.span_id] for s in inferred]
        findings.append(
            _finding(
                "end_inferred",
                f"{len(inferred)} call(s) returned (a result or reply, no error) but "
                "never recorded an end, under a span that ended: each is read as ending when the "
                "next span under its parent began, else when the span above it ended: "
                f"{', '.join(names[:10])}",
                steps=names,
            )
        )
    if retried:
        findings.append(
            _finding(
                "retry_inferred",
                "a failed call repeated with the same tool and arguments under "
                f"the same parent is read as a retry of one step: {', '.join(sorted(retried))}",
                steps=sorted(retried),
            )
        )
    if steps_spans and steps_spans[0].operation == TOOL and not any(s.call_id for s in steps_spans):
        findings.append(
            _finding(
                "no_call_ids",
                f"no tool call carries {ATTRIBUTES['call_id'][0]!r}: a declared "
                "plan is matched to these calls by tool name and arguments",
            )
        )
    flow = data_flow(steps_spans, step_of, attempts)
    # what each call returned served the data flow only: freed before the plan and the timeline are built,
    # not held beside them (issue 43's peak)
    for s in steps_spans:
        s.leaves = _RETURNED_NOTHING
    thinned: list[str] = []
    timing = timing_edges(order, parent, step_of, attempts, set(flow), thinned)
    # the fact of each step's result: one string for the step that produces it, the steps that require it and
    # the observation that establishes it
    result_of = {sid: f"{sid}.result" for sid in attempts}
    deps: dict[str, dict[str, None]] = defaultdict(dict)
    needs: dict[str, list[str]] = defaultdict(list)
    for u, v in list(flow) + timing:
        deps[v][u] = None
    for u, v in flow:
        needs[v].append(result_of[u])
    if flow:
        findings.append(
            _finding(
                "inferred_dependency",
                f"{len(flow)} dependencies inferred from data: a call's "
                "arguments hold a value an earlier call returned (the edge carries that "
                "call's result)",
                edges=sorted(flow),
            )
        )
    if timing:
        findings.append(
            _finding(
                "inferred_dependency",
                f"{len(timing)} dependencies inferred from timing: a call "
                "started after another ended, under the same parent span (the trace does not "
                "say why it waited)"
                + (
                    f"; {len(thinned)} call(s) waited after more calls than "
                    f"{MAX_PREDECESSORS}: linked to the {MAX_PREDECESSORS} that ended last"
                    if thinned
                    else ""
                ),
                edges=sorted(timing),
            )
        )
    calls = model_calls(order, steps_spans, parent, step_of, t0)
    plan_steps: list[Step] = []
    fields: list[dict[str, Any]] = []
    for sid, spans_of_step in attempts.items():
        first = spans_of_step[0]
        last = spans_of_step[-1]
        ended = last.end if last.end is not None else last.start
        # Step(sid, ...) itself, made the fast way when provably the same (plan/bulk.built_steps), a few
        # hundred at a time
        fields.append(
            {
                "id": sid,
                "action": _action(first),
                # one string for the steps that say the same, as Step does
                "expected_evidence": intern(
                    f"{first.tool or first.model or first.name} returns without error"
                ),
                "depends_on": tuple(deps.pop(sid, ())),  # (popped: each table freed once read)
                "requires": needs.pop(sid, ()),
                "produces": (result_of[sid],),
                "duration": (ended - first.start) / _NS,
                "tool": first.tool or first.model or None,
                "arguments": first.arguments or {},
                "effect": first.effect,
            }
        )
        if len(fields) == 256:
            plan_steps.extend(built_steps(fields))
            fields.clear()
    plan_steps.extend(built_steps(fields))
    fields.clear()
    unfinished = [step_of[s.span_id] for s in steps_spans if s.end is None]
    if unfinished:
        findings.append(
            _finding(
                "unfinished_span",
                f"{len(unfinished)} call(s) never ended (still running when "
                f"the trace was written): {', '.join(unfinished[:10])}",
                steps=unfinished,
            )
        )
    plan = Plan(_goal(order, parent), plan_steps, time_unit="s", import_findings=tuple(findings))
    stop = _stop(order, parent, attempts, t0) if not unfinished and order else None
    turns = _turns(order, calls)
    # the spans have served the plan, the model calls, the stop and the turns: only the tool calls' are still read,
    # each let go once its actions are made, so that a big trace's spans and its timeline are not held at once
    # (issue 43's peak)
    by_id.clear()
    order.clear()
    attempts.clear()
    dupes.clear()
    inferred.clear()
    actions = _actions(_drained(steps_spans), step_of, result_of, t0)
    if stop is not None:
        actions.append(stop)
    return plan, actions, calls, turns


def _deviation_text(name: str, n: int) -> str:
    if name == "span name":
        return (
            f"{n} span(s) have no gen_ai.operation.name: the operation was read from the span name"
        )
    if name == "tool attributes":
        return (
            f"{n} span(s) have gen_ai.tool.name or gen_ai.tool.call.id but no gen_ai.operation.name: read as "
            "tool calls"
        )
    if name.startswith("operation "):
        return f"{n} span(s) name their operation {name[10:]!r}, which the GenAI conventions do not define"
    canonical = next(names[0] for names in ATTRIBUTES.values() if name in names)
    return f"{n} span(s) use {name!r} instead of {canonical!r} (read as such)"


def _parents(
    order: list[Span], by_id: dict[str, Span], findings: list[Finding]
) -> dict[str, str | None]:
    """Each span's parent id, None for a root: missing parents and cycles are broken and reported."""
    parent: dict[str, str | None] = {}
    missing = [s for s in order if s.parent_id is not None and s.parent_id not in by_id]
    for s in order:
        parent[s.span_id] = s.parent_id if s.parent_id in by_id else None
    if missing:
        findings.append(
            _finding(
                "missing_parent",
                f"{len(missing)} span(s) name a parent that is not in the trace "
                f"(first: {missing[0].span_id} at {_place(missing[0])}, parent "
                f"{missing[0].parent_id}); they are read as top-level spans",
                where=_place(missing[0]),
            )
        )
    state: dict[str, int] = {}  # 1: on the current path, 2: known to reach a root
    cut = []
    for s in order:
        path = []
        node: str | None = s.span_id
        while node is not None and state.get(node) is None:
            state[node] = 1
            path.append(node)
            node = parent[node]
        if node is not None and state.get(node) == 1:  # the walk came back to its own path: a cycle
            cycle = path[path.index(node) :]
            head = min(cycle, key=lambda x: (by_id[x].start, x))
            parent[head] = None
            cut.append((head, cycle))
        for p in path:
            state[p] = 2
    if cut:
        head, cycle = cut[0]
        findings.append(
            _finding(
                "parent_cycle",
                f"{len(cut)} cycle(s) of parent spans (first: "
                f"{' -> '.join(cycle)}); each is cut at its earliest span, read as top-level",
                where=_place(by_id[head]),
            )
        )
    return parent


def _step_ids(
    spans: list[Span], parent: dict[str, str | None]
) -> tuple[dict[str, str], dict[str, list[Span]], set[str]]:
    """Step id of each step span: the tool name, ``name#k`` when it ran again; a repeated failed call is a retry."""
    step_of: dict[str, str] = {}
    attempts: dict[str, list[Span]] = {}
    used: Counter[str] = Counter()
    failed: dict[
        tuple[str | None, str, str] | None, str
    ] = {}  # keyed by (parent, name, arguments), made only when a call failed
    retried: set[str] = set()
    for s in spans:
        base = (s.tool or s.model or s.name or "call").strip() or "call"
        # the call's arguments as text only when a failed call could be repeated or this one failed
        key = (
            (parent[s.span_id], base, json.dumps(s.arguments, sort_keys=True, default=str))
            if failed or s.status == "error"
            else None
        )
        previous = failed.pop(key, None) if failed else None
        previous_end = attempts[previous][-1].end if previous is not None else None
        if previous is not None and previous_end is not None and previous_end <= s.start:
            sid = previous
            retried.add(sid)
        else:
            used[base] += 1
            sid = base if used[base] == 1 else f"{base}#{used[base]}"
            while sid in attempts:  # a tool literally named like an earlier call's numbered id
                used[base] += 1
                sid = f"{base}#{used[base]}"
            attempts[sid] = []
        attempts[sid].append(s)
        step_of[s.span_id] = sid
        if s.status == "error":
            failed[key] = sid
    return step_of, attempts, retried


def _action(s: Span) -> str:
    name = s.tool or s.model or s.name or "call"
    if not s.arguments:
        return f"{name}()" if s.tool else name
    args = ", ".join(f"{k}={_json_text(v)}" for k, v in s.arguments.items())
    return f"{name}({args[:120] + '…' if len(args) > 120 else args})"


def _turns(order: list[Span], calls: tuple[ModelCall, ...]) -> tuple[Turn, ...]:
    """What was said: the user's message (the task, when a span holds it) and the model's last reply (the output
    of the last model call that asked for no tool), where the trace records them."""
    asked = min(
        ((s.goal_rank or 0, i, s.goal) for i, s in enumerate(order) if s.goal), default=(0, 0, "")
    )[2]
    said = [Turn("user", asked)] if asked else []
    last = calls[-1] if calls else None
    if last is not None and last.step is None and last.output:
        end = last.start + last.duration if last.duration is not None else None
        said.append(Turn("assistant", last.output, end))
    return tuple(said)


def _goal(order: list[Span], parent: dict[str, str | None]) -> str:
    """The user's request (first user message), with the agent's name when there is one."""
    agent = next((s.agent for s in order if s.operation == AGENT and s.agent), "")
    asked = min(
        ((s.goal_rank or 0, i, s.goal) for i, s in enumerate(order) if s.goal), default=(0, 0, "")
    )[2]
    if asked:
        return f"{agent}: {asked}" if agent else asked
    if agent:
        return f"run of agent {agent}"
    root = next((s for s in order if parent[s.span_id] is None), None)
    return root.name if root is not None and root.name else "OpenTelemetry trace"


def _actions(
    steps: Iterable[Span], step_of: dict[str, str], result_of: dict[str, str], t0: int
) -> list[Action]:
    actions = []
    tried: Counter[str] = Counter()  # attempts of each step so far (a retry storm stays linear)
    for s in steps:
        sid = step_of[s.span_id]
        k = tried[sid]
        tried[sid] += 1
        t = (s.start - t0) / _NS
        if k:
            actions.append(
                Action(t, "retry", sid, f"retry {sid!r}: the same call again after its failure")
            )
        actions.append(Action(t, "start", sid))
        if s.end is None:
            continue
        t_end = (s.end - t0) / _NS
        data: dict[str, Any] = {"span_id": s.span_id}
        for key, value in (("call_id", s.call_id), ("agent", s.agent)):
            if value:
                data[key] = value
        if s.value is not None:
            data["result"] = s.value  # the value as the trace gives it, JSON text decoded
        if s.status == "error":
            why = ": ".join(x for x in (s.error, s.message) if x) or "status ERROR"
            data["error"] = why
            data["message"] = why
            actions.append(
                Action(
                    t_end,
                    "finish",
                    sid,
                    read_observation(False, _RETURNED_NOTHING, "tool_error", data),
                )
            )
            continue
        obs = read_observation(True, frozenset((result_of[sid],)), "ok", data)
        actions.append(Action(t_end, "finish", sid, obs))
    return actions


def _stop(
    order: list[Span], parent: dict[str, str | None], attempts: dict[str, list[Span]], t0: int
) -> Action:
    end = max((s.end for s in order if s.end is not None), default=t0)
    bad_agents = [
        s
        for s in order
        if s.status == "error"
        and s.operation != TOOL
        and (parent[s.span_id] is None or s.operation == AGENT)
    ]
    failed = [sid for sid, spans in attempts.items() if spans[-1].status == "error"]
    if bad_agents:
        s = bad_agents[0]
        why = ": ".join(x for x in (s.error, s.message) if x) or "status ERROR"
        return Action(
            (end - t0) / _NS,
            "stop",
            None,
            ("step_failed", f"span {s.name!r} ended with an error: {why}"),
        )
    if failed:
        return Action(
            (end - t0) / _NS,
            "stop",
            None,
            ("step_failed", f"the trace ended with failed call(s): {', '.join(failed)}"),
        )
    return Action(
        (end - t0) / _NS, "stop", None, ("plan_complete", "the trace ended; every call returned")
    )
