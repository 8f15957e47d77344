"""The ideal schedule of a recorded run: one planning model call, the tool calls as their data allow, the answer.

:func:`ideal_schedule` turns a run, its data edges (:mod:`planviz.runs.hindsight.provenance`)
and each call's recorded time into a schedule an agent could actually run,
and returns it as a planviz :class:`~planviz.Plan` (so it validates, renders,
simulates and saves) with its makespan:

- ``plan`` (a model call): writes every tool call at once, as an LLMCompiler or
  ReWOO planner does; charged at the longest model call that issued a tool
  call in the run (a plan that issues every call takes at least as long as
  the longest decision of one); when no call says which tool call it issued,
  the model time before the first tool call (the step ``plan`` is primed,
  ``plan'``, when the run has a step of that id; so are the others);
- each tool call, at its recorded time (first start to last end), after the
  plan and after the calls its data comes from: a plain copy of a result
  (``exact``, ``contains``) is a placeholder ``{{S1.result}}`` filled when S1
  ends; a value derived from a result, or a dependence the reader could not
  rule out (``derived``, ``unknown``), needs a model call in between
  (``model for <call>``), charged at the run's median model-call time, whose
  output fills the call's arguments that came from somewhere and are no copy
  (``{{model for save.text}}``);
- ``answer`` (a model call): waits for every tool call (the final answer reads
  what it reports; the reader cannot tell which results it left out), charged
  at the model time after the last tool call ended.

A model call of unknown duration (a span that never ended) makes the makespan
unknown (None), never free. A run that records no model call (a simulated
run, a :class:`planviz.Recorder` run) gets no model step: its schedule is its
calls over their data edges. A trace whose steps are its model calls (no tool
call recorded) keeps its steps, over their data edges; so does a model call
that started within the step it led to (a LangGraph node that called a
model): it is that step's own work. A step a revision
brought waits for a step standing for the time until that revision.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import networkx as nx

from planviz.analysis.schedule import critical_path
from planviz.plan.bulk import schedule_plan
from planviz.plan.model import Plan, Step, natural_key
from planviz.plan.placeholder import PATTERN
from planviz.runs.events import Run
from planviz.runs.hindsight.callrecords import run_result_leaves, time_order
from planviz.runs.hindsight.provenance import distinctive_parts, known_words
from planviz.structure.graph import to_graph

__all__ = [
    "IdealSchedule",
    "ideal_schedule",
    "llmcompiler_text",
    "covered",
    "PLAN_STEP",
    "ANSWER_STEP",
]

PLAN_STEP, ANSWER_STEP = "plan", "answer"


@dataclass(frozen=True)
class IdealSchedule:
    """The ideal schedule as a :class:`Plan` (``plan``), its ``makespan`` (None when a model call on it has an
    unknown duration), its critical ``path``, the ``durations`` of its steps, which of them are ``model``
    calls, the ``model_time`` charged for a model call between calls (the run's median; None when unknown),
    and the ``ids`` of the plan's steps."""

    plan: Plan | None
    makespan: float | None
    path: tuple[str, ...]
    durations: Mapping[str, float]
    model: frozenset[str]
    model_time: float | None
    unknown_calls: int = 0
    unknown_steps: frozenset[str] = frozenset()
    ids: frozenset[str] = frozenset()  # the ids of the plan's steps (read without making its steps)


_NO_TIME = float("-inf")


def covered(parts: Sequence[tuple[float, float]]) -> float:
    """The length of the union of intervals (nested model spans count once)."""
    if len(parts) == 1:  # the common case, computed as the loop below would
        a, b = parts[0]
        return 0.0 + (b - a) if b > float("-inf") else 0.0
    total, reach = 0.0, float("-inf")
    for a, b in sorted(parts):
        if b > reach:
            total += b - max(a, reach)
            reach = b
    return total


def _unused(name: str, ids: set[str]) -> str:
    """``name``, primed until no step of the run has that id."""
    while name in ids:
        name += "'"
    return name


def _placeholders(
    step: Step, sources: Sequence[str], leaves: Mapping[str, list[tuple[tuple[str, ...], str]]]
) -> dict[str, Any]:
    """``step``'s arguments where each copy of a result field is a placeholder ``{{S1.field}}`` (a string that is
    the field, or holds it)."""
    args = dict(step.arguments)
    if not sources:  # nothing to refer to (most calls)
        return args
    for key, value in args.items():
        if not isinstance(value, str):
            continue
        for u in sources:
            for path, leaf in leaves.get(u, ()):
                leaf = leaf.strip()
                if not path or len(leaf) < 3 or leaf not in value:
                    continue
                ref = "{{" + u + "." + ".".join(path) + "}}"
                value = ref if value.strip() == leaf else value.replace(leaf, ref)
        args[key] = value
    return args


def ideal_schedule(
    run: Run,
    times: Mapping[str, tuple[float, float]],
    steps: Mapping[str, Step],
    edges: Sequence[tuple[str, str, str]],
    release: Mapping[str, float],
    t0: float,
    leaves: Mapping[str, list[tuple[tuple[str, ...], str]]] | None = None,
) -> IdealSchedule:
    """The ideal schedule of ``run`` (see the module): ``times`` each call's (first start, last end), ``steps``
    each id's definition, ``edges`` the (earlier, later, reason) data edges, ``release`` the time each step a
    revision brought could start at the earliest, ``t0`` the run's first event, ``leaves`` what each result
    holds (:func:`~planviz.runs.hindsight.callrecords.run_result_leaves`; read from the run when left out)."""
    ran = time_order(list(times), times)  # by (start, id)
    if not ran:
        return IdealSchedule(None, 0.0, (), {}, frozenset(), None)
    ids = set(steps) | set(ran)
    # each model call (_calls: the step it led to, its start and end on the run's clock) read once: the known
    # durations, the calls of unknown end, the calls that are no step's own work (a call that started within the
    # step it led to is: a LangGraph node that is a model call) and of those the calls that issued a step (started
    # before it: its start, and its end or the step's start if sooner; one call per step, most steps, as a tuple)
    took: list[float] = []
    calls: list[tuple[str | None, float, float | None]] = []
    issued: dict[str, Any] = {}
    unended = 0
    issued_unknown = False
    span_of = times.get
    for c in run.model_calls:
        sid, at, length = c.step, c.start, c.duration
        start = t0 + at
        if length is None:
            end = None
            unended += 1
        else:
            end = t0 + at + length
            took.append(end - start)
        span = None if sid is None else span_of(sid)
        if sid is not None and span is not None:
            if span[0] <= start <= span[1]:
                continue
            if start < span[0]:
                if end is None:
                    issued_unknown = True
                else:
                    part = (start, min(end, span[0]))
                    had = issued.get(sid)
                    if had is None:
                        issued[sid] = part
                    elif type(had) is list:
                        had.append(part)
                    else:
                        issued[sid] = [had, part]
        calls.append((sid, start, end))
    median = statistics.median(took) if took else None
    no_tools = any(f.code == "no_tool_calls" for p in run.plans for f in p.import_findings)
    with_model = bool(calls) and not no_tools
    # the data edges into each call that ran (a call no edge enters, most of them, has no entry)
    preds: dict[str, dict[str, str]] = {}
    for u, v, reason in edges:
        if v in times and u in times:
            if v in preds:
                preds[v][u] = reason
            else:
                preds[v] = {u: reason}
    none_in: dict[str, str] = {}  # read only
    durations = {v: times[v][1] - times[v][0] for v in ran}
    model: set[str] = set()
    unknown_steps: set[str] = set()
    unknown_on_plan = unended if no_tools else 0
    out: list[
        tuple[Any, ...]
    ] = []  # the steps' fields as rows, built in bulk (plan/bulk.schedule_rows)
    known = known_words(run)
    leaves = run_result_leaves(run) if leaves is None else leaves

    def step(
        sid: str,
        action: str,
        duration: float,
        after: Sequence[str],
        *,
        requires: Sequence[str] = (),
        arguments: Mapping[str, Any] | None = None,
        tool: str | None = None,
    ) -> None:
        durations[sid] = length = max(0.0, duration)
        out.append(
            (
                sid,
                action,
                "ran",
                length,
                sorted(after),
                sorted(requires),
                f"{sid}.result",
                tool,
                arguments or {},
            )
        )

    plan_id = answer_id = None
    if with_model:
        first, last = min(times[v][0] for v in ran), max(times[v][1] for v in ran)
        plan_unknown, answer_unknown = issued_unknown, False
        if issued:
            # covered() of each step's calls; one call (most steps: a tuple) is its own length
            plan_time = max(
                (0.0 + (parts[1] - parts[0]) if parts[1] > _NO_TIME else 0.0)
                if type(parts) is tuple
                else covered(parts)
                for parts in issued.values()
            )
        else:
            before = [(s, e) for _, s, e in calls if s < first]
            plan_unknown = plan_unknown or any(e is None for _, e in before)
            plan_time = covered([(s, min(e, first)) for s, e in before if e is not None])
        trailing = [
            (s, e)
            for sid, s, e in calls
            if (e is None or e > last) and (sid is None or sid not in times)
        ]
        answer_unknown = any(e is None and s >= last for s, e in trailing)
        answer_time = covered(
            [(max(s, last), e) for s, e in trailing if e is not None and e > last]
        )
        unknown_on_plan += plan_unknown + answer_unknown
        plan_id = _unused(PLAN_STEP, ids)
        step(plan_id, "model call: plan every tool call", plan_time, [])
        model.add(plan_id)
        if plan_unknown:
            unknown_steps.add(plan_id)
        if trailing:
            answer_id = _unused(ANSWER_STEP, ids)
    marks = {
        t: _unused(f"(revision at {t!r})", ids)
        for t in sorted({release[v] for v in ran if v in release})
    }
    for t, m in marks.items():
        step(m, m, t - t0, [])
    # the dependencies and requirements of a step after the plan alone: one list each, shared by those rows (read
    # only: schedule_plan makes a tuple of each)
    after_plan: list[str] = [] if plan_id is None else [plan_id]
    nothing: list[str] = []
    for v in ran:
        define = steps.get(v)
        into = preds.get(v, none_in)
        if (
            not into and v not in release
        ):  # no data in, no revision (most calls): after the plan alone
            length = durations[v] = max(0.0, durations[v])
            # the step's own arguments (a dict: copy_plain's), copied once by schedule_rows
            arguments = define.arguments if define is not None else {}
            out.append(
                (
                    v,
                    define.action if define is not None else v,
                    "ran",
                    length,
                    after_plan,
                    nothing,
                    f"{v}.result",
                    define.tool if define is not None else None,
                    arguments if type(arguments) is dict else dict(arguments),
                )
            )
            continue
        if into:
            copies = sorted(u for u, r in into.items() if r in ("exact", "contains"))
            needs_model = sorted(u for u, r in into.items() if r not in ("exact", "contains"))
        else:
            copies, needs_model = [], []
        after = list(copies) + ([marks[release[v]]] if v in release else [])
        if needs_model and with_model:
            m = _unused(f"model for {v}", ids)
            if median is None:
                unknown_on_plan += 1
                unknown_steps.add(m)
            step(
                m,
                f"model call: derive the arguments of {v}",
                median or 0.0,
                needs_model + ([plan_id] if plan_id else []),
                requires=[f"{u}.result" for u in needs_model],
            )
            model.add(m)
            after.append(m)
        else:
            copies = sorted(copies + needs_model)
            after = sorted(set(after) | set(needs_model))
        if plan_id is not None and not after:
            after.append(plan_id)
        args = _placeholders(define, copies, leaves) if define else {}
        derived_by = m if needs_model and with_model else None
        # a value that came from somewhere and is no copy: the model call in between
        if derived_by is not None:
            for key, value in args.items():
                if isinstance(value, str) and "{{" not in value and distinctive_parts(value, known):
                    args[key] = "{{" + derived_by + "." + key + "}}"
        step(
            v,
            define.action if define is not None else v,
            durations[v],
            after,
            requires=[f"{u}.result" for u in copies]
            + ([f"{derived_by}.result"] if derived_by else []),
            arguments=args,
            tool=define.tool if define is not None else None,
        )
    if answer_id is not None:
        step(
            answer_id,
            "model call: the final answer",
            answer_time,
            ran,
            requires=[f"{u}.result" for u in ran],
        )
        model.add(answer_id)
        if answer_unknown:
            unknown_steps.add(answer_id)
    # its steps made when first read (hindsight reads the makespan and path, from the rows)
    plan = schedule_plan(
        f"the ideal schedule of: {run.plan.goal if run.plan is not None else 'the run'}",
        out,
        time_unit=run.plan.time_unit if run.plan is not None else "",
    )
    if "steps" in vars(plan):  # made at once (a row of another shape): read from its steps
        fast = _critical(plan.steps)
    else:  # each step is its row (plan/bulk.schedule_plan): id, duration, dependencies read from the rows
        fast = _critical_of(
            [row[0] for row in out], [row[3] for row in out], [row[4] for row in out]
        )
    if fast is None:
        schedule = critical_path(plan)
        fast = schedule.makespan, tuple(schedule.path)
    makespan, path = fast
    return IdealSchedule(
        plan,
        None if unknown_on_plan else makespan,
        path,
        durations,
        frozenset(model),
        median,
        unknown_on_plan,
        frozenset(unknown_steps),
        frozenset([row[0] for row in out]),
    )


def _critical(steps: Sequence[Step]) -> tuple[float, tuple[str, ...]] | None:
    """The makespan and critical path :func:`critical_path` gives a plan of ``steps`` with no terminal step (the
    ideal schedule's), read in the order the steps are written when each depends only on steps written before it
    (the schedule writes them so): the same forward and backward passes, the same tolerance, the same path (the
    first critical step with no dependency, then each time the tight successor, by natural id; a natural key
    names one id, so no order of the steps can change the choice). None when a step depends on a later or an
    unknown one, or an id repeats: then :func:`critical_path` decides."""
    if any(s.kind is not None for s in steps):
        return None
    return _critical_of(
        [s.id for s in steps], [s.duration for s in steps], [s.depends_on for s in steps]
    )


def _critical_of(
    ids: Sequence[str], dur: Sequence[float], depends: Sequence[Sequence[str]]
) -> tuple[float, tuple[str, ...]] | None:
    """:func:`_critical` of the steps of these ids, durations and dependencies (none of them a terminal step)."""
    n = len(ids)
    at = dict(zip(ids, range(n)))
    if len(at) != n:  # an id repeats
        return None
    es = [0.0] * n
    ef = [0.0] * n
    # each step's dependencies as positions (all before it), for the backward pass
    pos: list[list[int]] = []
    get = at.get
    # a list of dependencies shared by consecutive steps (the schedule's steps after the plan alone) is read once:
    # its positions all lie before the first of those steps, whose earliest finishes were then final
    last: Any = None
    js: list[int] = []
    start = 0.0
    for k, deps in enumerate(depends):
        if deps is not last:
            last = deps
            start = 0.0
            js = [get(sid, n) for sid in deps]
            for j in js:
                if j >= k:
                    return None
                if ef[j] > start:
                    start = ef[j]
        pos.append(js)
        es[k] = start
        ef[k] = start + dur[k]
    makespan = max(ef, default=0.0)
    eps = 1e-9 * max(1.0, makespan)
    # each step's latest finish: the makespan, or the earliest latest start of a step after it (each step's own
    # is final once every later step was read: the steps after it come later in the order)
    lf = [makespan] * n
    critical: set[int] = set()
    for u in range(n - 1, -1, -1):
        late = lf[u] - dur[u]
        if -eps < late - es[u] < eps:
            critical.add(u)
        for j in pos[u]:
            if late < lf[j]:
                lf[j] = late
    # the successors of each critical step among the critical ones, in order
    later: dict[int, list[int]] = {}
    for v in sorted(critical):
        for j in pos[v]:
            if j in critical:
                later.setdefault(j, []).append(v)
    starts = [u for u in critical if not depends[u]]
    path: list[str] = []
    if starts:
        u = min(starts, key=lambda k: natural_key(ids[k]))
        while True:
            path.append(ids[u])
            tight = [v for v in later.get(u, ()) if abs(es[v] - ef[u]) < eps]
            if not tight:
                break
            u = min(tight, key=lambda k: natural_key(ids[k]))
    return makespan, tuple(path)


def llmcompiler_text(plan: Plan) -> str:
    """``plan`` as an LLMCompiler planner's output: ``N. tool(args)`` in an order its dependencies allow, ``$K``
    for the result of task K, ending in ``join()<END_OF_PLAN>``; the planning and answer model calls are the
    planner and the joiner themselves, a model call between calls is an ``llm`` task. LLMCompiler reads whole
    results only: a placeholder ``{{S1.field}}`` becomes ``$K`` of S1.

    >>> p = Plan("g", [Step("a", "a", expected_evidence="e", tool="now", arguments={"tz": "UTC"}),
    ...                Step("b", "b", expected_evidence="e", tool="save", depends_on="a",
    ...                     arguments={"t": "{{a.year}}"})])
    >>> print(llmcompiler_text(p))
    Question: g
    1. now("UTC")
    2. save("$1")
    3. join()<END_OF_PLAN>
    """
    number: dict[str, int] = {}
    lines = [f"Question: {plan.goal}"]
    model = {s.id for s in plan.steps if s.action.startswith("model call:")}
    for sid in nx.lexicographical_topological_sort(to_graph(plan)):
        s = plan.step(sid)
        if s.action in ("model call: plan every tool call", "model call: the final answer"):
            continue
        number[sid] = len(number) + 1

        def refer(text: str) -> str:
            return PATTERN.sub(lambda m: _ref(m.group(1), number), text)

        if sid in model:
            args = [json.dumps(s.action[len("model call: ") :])] + [
                f"${number[u]}" for u in s.depends_on if u in number
            ]
        else:
            args = [
                json.dumps(refer(v)) if isinstance(v, str) else json.dumps(v)
                for v in s.arguments.values()
            ]
        lines.append(
            f"{number[sid]}. {'llm' if sid in model else (s.tool or sid)}({', '.join(args)})"
        )
    lines.append(f"{len(number) + 1}. join()<END_OF_PLAN>")
    return "\n".join(lines)


def _ref(inner: str, number: Mapping[str, int]) -> str:
    head = max(
        (u for u in number if inner.strip() == u or inner.strip().startswith(u + ".")),
        key=len,
        default=None,
    )
    return f"${number[head]}" if head is not None else "{{" + inner + "}}"
