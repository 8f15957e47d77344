"""What-if on a run: replay it with faults injected and see which of its work stands (:func:`what_if`).

A recorded run is replayed on its **inferred plan**: the run's plan (its first
version, with the steps later versions added and revised nothing) with

- each step's duration what its last recorded attempt took, plus the model
  calls that led to it (:attr:`planviz.Run.model_calls`; none for a simulated
  run), a step that never ended an attempt keeping its planned duration;
- the data edges of :func:`planviz.hindsight` (a call whose inputs hold an
  earlier call's result) made explicit as dependencies, beside the plan's own;
- when the trace records model calls that led to no step (the final answer),
  a step ``(final answer)`` of their duration waiting for every step that ran:
  the answer reports every result, so it consumed them all.

The replay is :func:`planviz.simulate` of that plan (the run's strategy; the
planner for a recorded run) with the run's own failures injected again (a
simulated run's ``faults``; for a recorded run, a step whose last attempt
failed as a ``tool_error``, one that failed and then passed as ``transient``)
followed by the new ``faults``: the simulator's rules are the only rules, so
``what_if`` of a simulated run agrees with ``simulate`` of its plan.

Of the steps that ran in the recording, **voided** are those whose result the
replay loses (its last attempt failed, or an ``invalidate`` event voided it)
and every step that consumed their facts through data edges, closed
downstream; **kept** the others (their verified work stands); **rerun** what
would have to run again: the voided steps and the steps the replay retried or
revised. ``makespan`` is the replay's; ``tokens`` what the model calls that
led to the re-run steps spent (None when the trace does not record it, never
a guessed 0).

On a failed recorded run, ``what_if(run)`` without faults is the **blast
radius** of its failure: the failed step and everything that consumed its
facts, before anything is re-run.

>>> from planviz import Fault, examples, simulate
>>> w = what_if(simulate(examples.load("cache_isolation")), faults=[Fault("S4", "side_effect")])
>>> w.voided, w.kept, w.rerun, w.makespan
(('S3', 'S4'), ('S0', 'S1', 'S2'), ('S3', 'S4'), 45.0)
"""

from __future__ import annotations

import html
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

from planviz.plan.lineage import revised_roots, versions
from planviz.plan.model import Plan, Step, natural_key
from planviz.runs.engine.simulation import STRATEGIES, simulate
from planviz.runs.events import Run, expect_run
from planviz.runs.fault import Fault, expect_faults
from planviz.runs.hindsight.retrospect import hindsight

__all__ = ["what_if", "WhatIf", "inferred_plan", "FINAL_ANSWER"]

#: The step standing for the model calls that led to no step: the final answer, after every step.
FINAL_ANSWER = "(final answer)"


@dataclass(frozen=True)
class WhatIf:
    """What a run would have become with faults injected (see :func:`what_if`).

    ``voided``: steps that ran whose result the faults void (closed downstream through data edges);
    ``kept``: steps that ran and are not voided; ``rerun``: what would have to run again (the voided
    steps and those the replay retried); ``makespan``: the replay's, first event to last, against
    ``recorded_makespan``; ``tokens``: what the model calls that led to the re-run steps spent (None:
    unknown); ``faults``: what the replay injected (the run's own failures first); ``run``: the replay;
    ``plan``: the inferred plan it ran; ``data_edges``: (earlier, later, reason) of the data edges used;
    ``recorded``: the recorded run.
    """

    voided: tuple[str, ...]
    kept: tuple[str, ...]
    rerun: tuple[str, ...]
    makespan: float
    tokens: int | None
    faults: tuple[Fault, ...]
    run: Run = field(repr=False, compare=False)
    plan: Plan = field(repr=False, compare=False)
    recorded: Run = field(repr=False, compare=False)
    recorded_makespan: float = 0.0
    data_edges: tuple[tuple[str, str, str], ...] = field(default=(), repr=False)
    time_unit: str = ""

    @property
    def outcome(self) -> str | None:
        """How the replay ended (``plan_complete``, ``step_failed``...)."""
        return self.run.outcome

    def summary(self) -> str:
        """One line: the faults, what they void, what re-runs and the new makespan."""
        unit = f" {self.time_unit}" if self.time_unit else ""
        what = ", ".join(map(str, self.faults)) or "no fault"
        return (
            f"{what}: {len(self.voided)} voided, {len(self.kept)} kept, {len(self.rerun)} to re-run; "
            f"{_num(self.makespan)}{unit} instead of {_num(self.recorded_makespan)}{unit} "
            f"({self.outcome or 'no outcome'})"
        )

    def to_text(self) -> str:
        tokens = "unknown (not recorded)" if self.tokens is None else f"{self.tokens:,}"
        lines = [
            self.summary(),
            f"voided: {_names(self.voided)}",
            f"kept: {_names(self.kept)}",
            f"re-run: {_names(self.rerun)}",
            f"tokens to re-run: {tokens}",
        ]
        consumed = [
            (u, v, why) for u, v, why in self.data_edges if v in self.voided and u in self.voided
        ]
        for u, v, why in consumed[:10]:
            lines.append(f"  {v} consumed {u}'s result ({why})")
        if len(consumed) > 10:
            lines.append(f"  ... and {len(consumed) - 10} more data edges inside the voided set")
        stop = next((e for e in reversed(self.run.events) if e.kind == "stop"), None)
        if stop is not None and self.outcome != "plan_complete":
            lines.append(f"the replay stops: {stop.message}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "faults": [str(f) for f in self.faults],
            "voided": list(self.voided),
            "kept": list(self.kept),
            "rerun": list(self.rerun),
            "makespan": self.makespan,
            "recorded_makespan": self.recorded_makespan,
            "time_unit": self.time_unit,
            "tokens": self.tokens,
            "outcome": self.outcome,
            "data_edges": [list(e) for e in self.data_edges],
            "summary": self.summary(),
        }

    def _repr_html_(self) -> str:
        return "<pre class='planviz-whatif'>" + html.escape(self.to_text()) + "</pre>"


def _num(x: float) -> str:
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


def _names(ids: Iterable[str]) -> str:
    ids = list(ids)
    return (
        ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
        if ids
        else "none"
    )


def data_edges(run: Run) -> tuple[tuple[str, str, str], ...]:
    """The data edges :func:`planviz.hindsight` finds, as (earlier, later, reason) triples whether it gives
    pairs (reason ``data``) or triples."""
    out = []
    for edge in hindsight(run).data_edges:
        u, v = edge[0], edge[1]
        out.append((u, v, str(edge[2]) if len(edge) > 2 else "data"))
    return tuple(sorted(set(out)))


def _attempts(run: Run) -> tuple[dict[str, float], dict[str, int], dict[str, str]]:
    """Each step's last ended attempt's length (an attempt the run's end cut short says nothing of it), its count of
    failed attempts, and how its last attempt ended."""
    open_: dict[str, float] = {}
    last: dict[str, float] = {}
    fails: dict[str, int] = defaultdict(int)
    ended: dict[str, str] = {}
    category: dict[str, str] = {}
    for e in run.events:
        if e.step is None:
            continue
        if e.kind == "start":
            open_[e.step] = e.time
        elif e.kind in ("complete", "fail") and e.step in open_:
            last[e.step] = e.time - open_.pop(e.step)
            ended[e.step] = "complete" if e.kind == "complete" else (e.category or "tool_error")
            if e.kind == "fail":
                fails[e.step] += 1
                category[e.step] = e.category or "tool_error"
    return last, dict(fails), ended


def _lead(run: Run) -> tuple[dict[str | None, float], dict[str | None, list[int | None]]]:
    """Per step (None: the final answer): the time of the model calls that led to it before it first started
    (after every step ended, for the final answer), and their tokens."""
    spans: dict[str | None, list[tuple[float, float]]] = defaultdict(list)
    tokens: dict[str | None, list[int | None]] = defaultdict(list)
    first: dict[str, float] = {}
    for e in run.events:
        if e.kind == "start" and e.step is not None:
            first.setdefault(e.step, e.time)
    ends = [e.time for e in run.events if e.kind in ("complete", "fail") and e.step is not None]
    for c in run.model_calls:
        tokens[c.step].append(c.tokens)
        if c.duration is not None:
            a, b = c.start, c.start + c.duration
            if c.step is None:
                a = max(a, max(ends, default=a))
            else:
                b = min(b, first.get(c.step, b))
            if b > a:
                spans[c.step].append((a, b))
    lead = {}
    for sid, parts in spans.items():
        total, reach = 0.0, float("-inf")
        for a, b in sorted(parts):  # nested spans of one call count once
            if b > reach:
                total += b - max(a, reach)
                reach = b
        lead[sid] = total
    return lead, dict(tokens)


def _base_steps(run: Run) -> list[Step]:
    """Each id's latest definition, the first version's steps in its order first: then, of a simulated run, the
    steps of later versions that revise nothing (a revision is the replay's own work to redo); of a recorded run,
    every step that started (a LangGraph node run again is work the record holds, not a revision to redo), each
    its own work (an action several steps share gets the id appended, so a fault names one run of it).

    A dependency on a revision left out reads as one on the step it revises; one on a step some version held
    that is not among them is dropped (an id no version holds stays, for validation to name)."""
    latest: dict[str, Step] = {}
    for p in run.plans:
        for s in p.steps:
            latest[s.id] = s
    first = run.plans[0].ids if run.plans else ()
    if run.strategy in STRATEGIES:
        more = [sid for sid, s in latest.items() if s.revises is None]
    else:
        more = [e.step for e in run.events if e.kind == "start" and e.step in latest]
    ids = list(dict.fromkeys([*first, *more]))
    kept = set(ids)
    actions = Counter(latest[sid].action for sid in ids)
    out = []
    for sid in ids:
        step = latest[sid]
        deps = [d for d in (_kept_id(d, kept, latest) for d in step.depends_on) if d is not None]
        if run.strategy not in STRATEGIES and (
            step.revises is not None or actions[step.action] > 1
        ):
            # one recorded run of the work among the others: its own work, not a revision a fault would follow
            step = replace(
                step,
                revises=None,
                action=step.action if actions[step.action] < 2 else f"{step.action} ({sid})",
            )
        out.append(
            step
            if tuple(deps) == tuple(step.depends_on)
            else replace(step, depends_on=tuple(dict.fromkeys(deps)))
        )
    return out


def _kept_id(sid: str, kept: set[str], latest: Mapping[str, Step]) -> str | None:
    """``sid`` as a step of the inferred plan: itself, the step it revises, None when it is left out; an id no
    version holds is kept as it is."""
    seen = {sid}
    while sid not in kept and sid in latest:
        up = latest[sid].revises
        if up is None or up in seen:
            return None
        sid = up
        seen.add(sid)
    return sid


def inferred_plan(run: Run, edges: Iterable[tuple[str, str, str]] | None = None) -> Plan:
    """The plan :func:`what_if` replays ``run`` on (see the module): recorded durations, data edges as
    dependencies, the final answer as a step when model calls led to none."""
    edges = data_edges(run) if edges is None else edges
    base = _base_steps(run)
    latest = {s.id: s for p in run.plans for s in p.steps}
    kept = {s.id for s in base}
    preds: dict[str, set[str]] = defaultdict(set)
    for u, v, _ in edges:
        u2, v2 = _kept_id(u, kept, latest), _kept_id(v, kept, latest)
        if u2 in kept and v2 in kept and u2 != v2:
            preds[v2].add(u2)
    last, _, _ = _attempts(run)
    lead, tokens = _lead(run)
    steps = []
    for s in base:
        duration = last[s.id] + lead.get(s.id, 0.0) if s.id in last else s.duration
        extra = sorted(preds.get(s.id, set()) - set(s.depends_on), key=natural_key)
        steps.append(
            replace(s, duration=max(0.0, duration), depends_on=tuple(s.depends_on) + tuple(extra))
        )
    if None in tokens:
        ran = [s.id for s in steps if s.id in last]
        steps.append(
            Step(
                FINAL_ANSWER,
                "answer the task from every result",
                expected_evidence="the answer",
                duration=lead.get(None, 0.0),
                depends_on=ran,
            )
        )
    first = run.plans[0] if run.plans else Plan("recorded run", [])
    return first.replace(steps=tuple(steps), parent=None)


def _recorded_faults(run: Run, plan: Plan) -> tuple[Fault, ...]:
    """The run's own failures as faults: a simulated run's faults; a recorded step whose last attempt failed
    as a tool_error (its category when it is a fault kind the simulator halts on), one that failed and then
    passed as transient."""
    if run.strategy in STRATEGIES:
        return tuple(run.faults)
    _, fails, ended = _attempts(run)
    out = []
    for sid in sorted(fails, key=natural_key):
        if sid not in plan:
            continue
        if ended.get(sid) == "complete":
            out.append(Fault(sid, "transient", times=fails[sid]))
        else:
            kind = ended.get(sid, "tool_error")
            out.append(
                Fault(
                    sid,
                    kind if kind in ("tool_error", "side_effect") else "tool_error",
                    times=fails[sid],
                )
            )
    return tuple(out)


def replay_sets(
    replay: Run, ran: Iterable[str], edges: Iterable[tuple[str, str, str]]
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(voided, kept, rerun) of the steps that ``ran`` (in their order) once ``replay`` ran (see the module)."""
    order = list(dict.fromkeys(ran))
    ran = set(order)
    roots: dict[str, str] = {}
    for p in replay.plans:
        roots.update(revised_roots(versions(p)))
    root = roots.get
    last: dict[str, str] = {}
    starts: dict[str, int] = defaultdict(int)
    lost: set[str] = set()
    for e in replay.events:
        if e.kind == "invalidate":
            lost.update(root(s, s) for s in e.voided)
        if e.step is None:
            continue
        sid = root(e.step, e.step)
        if e.kind == "start":
            starts[sid] += 1
        elif e.kind in ("complete", "fail"):
            last[e.step] = e.kind
    lost.update(root(s, s) for s, kind in last.items() if kind == "fail")
    after: dict[str, set[str]] = defaultdict(set)
    for u, v, _ in edges:
        after[u].add(v)
    voided, stack = set(lost), list(lost)
    while stack:  # closed downstream: whatever consumed a voided step's facts is voided
        for v in after.get(stack.pop(), ()):
            if v not in voided:
                voided.add(v)
                stack.append(v)
    voided &= ran
    rerun = voided | {s for s, n in starts.items() if n > 1 and s in ran}
    return (
        tuple(s for s in order if s in voided),
        tuple(s for s in order if s not in voided),
        tuple(s for s in order if s in rerun),
    )


def what_if(run: Run, faults: Iterable[Fault] = ()) -> WhatIf:
    """Replay ``run`` on its inferred plan with ``faults`` injected: what is voided, kept, re-run, and the cost.

    Parameters
    ----------
    run : Run
        A recorded run (:func:`planviz.load_trace`) or a simulated one (:func:`planviz.simulate`).
    faults : iterable of Fault
        Injected after the run's own failures; each names a step of the inferred plan (a tool call's id,
        or ``(final answer)``). None on a failed run: the blast radius of its failure.

    Returns
    -------
    WhatIf
        ``voided``, ``kept``, ``rerun`` (step ids in the order they first started), ``makespan``,
        ``tokens`` (None when not recorded) and the replay ``run`` (see the module for the rules).

    Raises
    ------
    SimulationError
        For a fault that names no step of the inferred plan (with the valid choices).
    PlanvizTypeError
        When ``run`` is not a Run or ``faults`` not a list of Fault values.

    Examples
    --------
    >>> from planviz import Fault, examples, simulate
    >>> run = simulate(examples.load("cache_isolation"))
    >>> w = what_if(run, faults=[Fault("S1", "tool_error")])
    >>> w.voided, w.kept, w.outcome, w.tokens
    (('S1', 'S3', 'S4'), ('S0', 'S2'), 'step_failed', None)
    >>> print(w.summary())
    S1:tool_error: 3 voided, 2 kept, 3 to re-run; 13 min instead of 29 min (step_failed)
    """
    run = expect_run(run, "what_if")
    faults = expect_faults(faults, "what_if")
    edges = data_edges(run)
    plan = inferred_plan(run, edges)
    injected = _recorded_faults(run, plan) + faults
    strategy = run.strategy if run.strategy in STRATEGIES else "planner"
    replay = simulate(plan, run.contract, faults=injected, strategy=strategy)
    # start order
    ran = list(
        dict.fromkeys(
            e.step
            for e in run.events
            if e.kind == "start" and e.step is not None and e.step in plan
        )
    )
    if FINAL_ANSWER in plan and FINAL_ANSWER not in run.plans[0]:
        edges = edges + tuple((s, FINAL_ANSWER, "the final answer reports it") for s in ran)
        ran.append(FINAL_ANSWER)
    voided, kept, rerun = replay_sets(replay, ran, edges)
    t0 = run.events[0].time if run.events else 0.0
    makespan = replay.time - (replay.events[0].time if replay.events else 0.0)
    return WhatIf(
        voided,
        kept,
        rerun,
        makespan,
        _tokens(run, rerun),
        injected,
        replay,
        plan,
        run,
        run.time - t0,
        edges,
        plan.time_unit or "",
    )


def _tokens(run: Run, rerun: Iterable[str]) -> int | None:
    """What the model calls that led to the re-run steps spent; None when the run records no model call or one
    of those calls has no token count."""
    if not run.model_calls:
        return None
    _, tokens = _lead(run)
    counts = [t for sid in rerun for t in tokens.get(None if sid == FINAL_ANSWER else sid, ())]
    if any(t is None for t in counts):
        return None
    return sum(t for t in counts if t is not None)
