"""Hindsight: how long a run took, and how long it would have taken if only its data had made steps wait.

:func:`hindsight` reads any run, simulated or recorded, and keeps of its
dependencies only the **data** ones: step ``v`` waits for step ``u`` when
``v``'s inputs hold ``u``'s output and ``u`` had ended when ``v`` started:

- ``v`` requires a fact ``u`` produces (the trace readers record a call whose
  arguments hold an earlier call's result this way: the fact ``u.result``);
- a string argument of ``v`` holds a placeholder ``{{u.field}}``;
- ``v`` declares no input at all (no required fact, no argument): what it read
  is unknown, so every dependency it has stands (a LangGraph node reads the
  whole state).

A step that a revision brought (a replan, an expansion, a LangGraph fork:
a step no earlier plan version holds) cannot start before that revision was
made: its inputs are ready no sooner than the first event of its version.
Nothing else makes a step wait: not the order an agent chose, not a model
call. Each step's time is what happened: from its first start to its last
end (retries included), plus the model calls that led to it while its inputs
were ready (the model deciding the call is part of the call's work); a
model call whose duration the trace does not tell counts until the step it led
to started, the most it can have taken, and the summary says "at most". The
``ideal_makespan`` is the critical path (:func:`planviz.critical_path`) of
those times over the data edges; since every data edge ran in order, it never
exceeds the ``actual_makespan`` and never falls below the longest step.

``waits`` says how long each step waited after its inputs were ready (beyond
its model calls); ``serialized`` lists the pairs ``(u, v)`` of steps that share
no data (neither reaches the other through data edges) where ``v`` started
right after ``u`` ended (no step ran wholly in between) although ``v``'s
inputs were ready before ``u`` ended: ``v`` could have run beside ``u``.

>>> from planviz import Plan, Step, Recorder
>>> plan = Plan("g", time_unit="s", steps=[Step("a", "get a", expected_evidence="e", duration=2, produces="x"),
...                   Step("b", "get b", expected_evidence="e", duration=2, depends_on="a", arguments={"q": 1})])
>>> clock = iter([0, 0, 2, 2, 4, 4]).__next__
>>> rec = Recorder(clock=clock)
>>> _ = rec.propose(plan), rec.start("a"), rec.complete("a"), rec.start("b"), rec.complete("b", []), rec.stop("plan_complete")
>>> h = hindsight(rec.run)
>>> h.actual_makespan, h.ideal_makespan, h.serialized, h.waits["b"]
(4.0, 2.0, (('a', 'b'),), 2.0)
>>> print(h.summary())
4 s ran, 2 s possible: a and b share no data
"""

from __future__ import annotations

import bisect
import html
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..analysis.schedule import critical_path
from ..plan.model import Plan, Step
from ..plan.placeholder import placeholders_in, split_reference
from .events import Run, expect_run
from .usage import model_calls

__all__ = ["hindsight", "Hindsight", "recorded_makespan"]


@dataclass(frozen=True)
class Hindsight:
    """What a run took against what its data allowed (see :func:`hindsight`).

    ``actual_makespan``: first event to last; ``ideal_makespan``: the critical
    path over data edges only; ``waits``: per step, how long it waited after
    its inputs were ready; ``serialized``: pairs of steps that share no data
    and ran one after the other; ``data_edges``: the edges kept; ``durations``:
    each step's time (its run plus the model calls that led to it); ``path``:
    the steps along the ideal critical path; ``time_unit``: the run's clock;
    ``unknown_model_time``: the steps a model call of unknown duration led to (counted until the step
    started, the most it can have taken, so the ideal is at most what is said).
    """

    actual_makespan: float
    ideal_makespan: float
    waits: Mapping[str, float] = field(hash=False)
    serialized: tuple[tuple[str, str], ...]
    data_edges: tuple[tuple[str, str], ...] = ()
    durations: Mapping[str, float] = field(default_factory=dict, hash=False)
    path: tuple[str, ...] = ()
    time_unit: str = ""
    unknown_model_time: tuple[str, ...] = ()

    @property
    def saving(self) -> float:
        """How much sooner the run could have ended: actual minus ideal makespan."""
        return self.actual_makespan - self.ideal_makespan

    def summary(self) -> str:
        """One line: ``3.1 s ran, 2 s possible: get_weather and get_weather#2 share no data``."""
        unit = f" {self.time_unit}" if self.time_unit else ""
        text = f"{_num(self.actual_makespan)}{unit} ran, {'at most ' * bool(self.unknown_model_time)}" \
               f"{_num(self.ideal_makespan)}{unit} possible"
        if self.serialized:
            u, v = self.serialized[0]
            more = len(self.serialized) - 1
            text += f": {u} and {v} share no data" + (f" (and {more} more such pair{'s' * (more > 1)})" if more else "")
        elif self.saving <= 1e-9 * max(1.0, abs(self.actual_makespan)):
            text += ": nothing waited that did not need to"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {"actual_makespan": self.actual_makespan, "ideal_makespan": self.ideal_makespan,
                "time_unit": self.time_unit, "waits": dict(self.waits), "serialized": [list(p) for p in self.serialized],
                "data_edges": [list(e) for e in self.data_edges], "durations": dict(self.durations),
                "path": list(self.path), "unknown_model_time": list(self.unknown_model_time),
                "summary": self.summary()}

    def to_text(self) -> str:
        unit = f" {self.time_unit}" if self.time_unit else ""
        lines = [self.summary(), f"ideal path: {' -> '.join(self.path) if self.path else '(no step ran)'}"]
        if self.unknown_model_time:
            lines.append("model time unknown (counted until the step started): " +
                         ", ".join(self.unknown_model_time[:10]) + (" ..." if len(self.unknown_model_time) > 10 else ""))
        waited = [(s, w) for s, w in self.waits.items() if w > 0]
        if waited:
            lines.append("waited after their inputs were ready: " +
                         ", ".join(f"{s} {_num(w)}{unit}" for s, w in sorted(waited, key=lambda sw: -sw[1])[:10]))
        for u, v in self.serialized[:10]:
            lines.append(f"serialized: {v} ran after {u}; they share no data")
        if len(self.serialized) > 10:
            lines.append(f"... and {len(self.serialized) - 10} more serialized pairs")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return "<pre class='planviz-hindsight'>" + html.escape(self.to_text()) + "</pre>"


def _num(x: float) -> str:
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


def _intervals(run: Run) -> dict[str, tuple[float, float]]:
    """Each step that started: (first start, last end); a step still running ends with the run."""
    start: dict[str, float] = {}
    end: dict[str, float | None] = {}
    for e in run.events:
        if e.step is None:
            continue
        if e.kind == "start":
            start.setdefault(e.step, e.time)
            end[e.step] = None  # running (again) until a complete or a fail says otherwise
        elif e.kind in ("complete", "fail") and e.step in start:
            end[e.step] = e.time
    out: dict[str, tuple[float, float]] = {}
    for sid, t in start.items():
        ended = end[sid]
        out[sid] = (t, run.time if ended is None else max(t, ended))
    return out


def _steps(run: Run) -> dict[str, Step]:
    """Each step id's latest definition among the run's plan versions."""
    out: dict[str, Step] = {}
    for p in run.plans:
        for s in p.steps:
            out[s.id] = s
    return out


def _unused(name: str, ids: set[str]) -> str:
    """``name``, primed until no step of the run has that id."""
    while name in ids:
        name += "'"
    return name


def _released(run: Run) -> dict[str, float]:
    """Each step a revision brought (no earlier plan version holds it): the time of its version's first event."""
    first: dict[int, float] = {}
    for e in run.events:
        first.setdefault(e.plan_version, e.time)
    seen: set[str] = set()
    out: dict[str, float] = {}
    for k, plan in enumerate(run.plans):
        for s in plan.steps:
            if k and s.id not in seen and plan.version in first:
                out[s.id] = first[plan.version]
            seen.add(s.id)
    return out


def _data_preds(v: Step, times: Mapping[str, tuple[float, float]], producers: Mapping[str, list[str]],
                ids: set[str]) -> set[str]:
    s_v = times[v.id][0]

    def ended(u: str) -> bool:
        return u != v.id and u in times and times[u][1] <= s_v

    preds: set[str] = set()
    for fact in v.requires:  # the latest producer that had ended
        done = [u for u in producers.get(fact, ()) if ended(u)]
        if done:
            preds.add(max(done, key=lambda u: (times[u][1], u)))
    for _, ph in placeholders_in(dict(v.arguments)):
        ref = split_reference(ph.inner, ids)
        if ref is not None and ended(ref[0]):
            preds.add(ref[0])
    if not v.requires and not v.arguments:  # inputs unknown: every dependency stands
        preds |= {u for u in v.depends_on if ended(u)}
    return preds


def hindsight(run: Run) -> Hindsight:
    """The run's actual makespan against its ideal one, if only data dependencies had made steps wait.

    Parameters
    ----------
    run : Run
        Any run: simulated (:func:`planviz.simulate`) or recorded (:func:`planviz.load_trace`).

    Returns
    -------
    Hindsight
        ``actual_makespan``, ``ideal_makespan``, per-step ``waits``, ``serialized`` pairs of steps that
        share no data and ran one after the other, and the ``data_edges`` and ``durations`` behind them
        (see the module for the rules).

    Raises
    ------
    PlanvizTypeError
        When ``run`` is not a :class:`planviz.Run`.

    Examples
    --------
    >>> from planviz import examples, simulate
    >>> h = hindsight(simulate(examples.load("cache_isolation")))
    >>> h.actual_makespan, h.ideal_makespan, h.serialized
    (29.0, 29.0, ())
    >>> h.path
    ('S0', 'S1', 'S3', 'S4')
    """
    run = expect_run(run, "hindsight")
    t0 = run.events[0].time if run.events else 0.0
    actual = run.time - t0
    times = _intervals(run)
    defs = _steps(run)
    ran = [s for s in times]
    producers: dict[str, list[str]] = defaultdict(list)
    for sid in ran:
        for fact in (defs[sid].produces if sid in defs else ()):
            producers[fact].append(sid)
    ids = set(defs) | set(ran)
    preds = {v: (_data_preds(defs[v], times, producers, ids) if v in defs else set()) for v in ran}
    release = _released(run)
    ready = {v: max([times[u][1] for u in preds[v]] + [release.get(v, t0)]) for v in ran}
    unknown: set[str] = set()
    work, lead = _work(run, t0, times, ready, unknown)
    waits = {v: max(0.0, times[v][0] - ready[v] - lead.get(v, 0.0)) for v in ran}
    edges = tuple(sorted((u, v) for v in ran for u in preds[v]))
    if ran:
        # a revision's moment is a step of its own: from the run's start to the revision, before its new steps
        marks = {t: _unused(f"(revision at {t!r})", ids) for t in sorted({release[v] for v in ran if v in release})}
        data_plan = Plan("hindsight", [Step(m, m, expected_evidence="ran", duration=max(0.0, t - t0))
                                       for t, m in marks.items()] +
                         [Step(v, v, expected_evidence="ran", duration=work[v],
                               depends_on=sorted(preds[v]) + ([marks[release[v]]] if v in release else []))
                          for v in ran])
        schedule = critical_path(data_plan)
        ideal, path = schedule.makespan, tuple(v for v in schedule.path if v in times)  # the marks never ran
    else:
        ideal, path = 0.0, ()
    return Hindsight(actual, min(ideal, actual) if ideal - actual <= 1e-9 * max(1.0, actual) else ideal,
                     dict(sorted(waits.items())), _serialized(ran, times, preds, ready), edges,
                     dict(sorted(work.items())), tuple(path), run.plan.time_unit if run.plan is not None else "",
                     tuple(sorted(unknown)))


def _work(run: Run, t0: float, times: Mapping[str, tuple[float, float]], ready: Mapping[str, float],
          unknown: set[str] | None = None) -> tuple[dict[str, float], dict[str, float]]:
    """Each step's time (first start to last end) plus its model time after ``ready``; and that model time.
    A call of unknown duration counts until the step it led to started (the most it can have taken: the ideal
    never looks free); the steps it so lengthened are added to ``unknown``."""
    spans: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for sid, call in model_calls(run):
        at, took = call.get("time"), call.get("duration")
        if sid is not None and sid in times and isinstance(at, (int, float)):
            end = times[sid][0] if not isinstance(took, (int, float)) else min(t0 + at + took, times[sid][0])
            a, b = max(t0 + at, ready[sid]), end  # while its inputs were ready
            if b > a:
                spans[sid].append((a, b))
                if not isinstance(took, (int, float)) and unknown is not None:
                    unknown.add(sid)
    lead = {sid: _covered(parts) for sid, parts in spans.items()}
    return {v: max(0.0, e - s) + lead.get(v, 0.0) for v, (s, e) in times.items()}, lead


def recorded_makespan(run: Run, unknown: set[str] | None = None) -> float | None:
    """The critical path of the steps a run ran, with the times that happened (plus the model calls that led to
    each, after its dependencies ended), over the dependencies the run respected; None when no step ran.

    What a recorded run's own dependencies required: its makespan minus this is the time no step accounts for
    (a model call after the last step, the agent's own overhead, a step that waited). Never more than the
    run's makespan. The steps a model call of unknown duration led to are added to ``unknown``.
    """
    times = _intervals(run)
    if not times:
        return None
    t0 = run.events[0].time
    defs = _steps(run)
    preds = {v: [u for u in (defs[v].depends_on if v in defs else ()) if u in times and times[u][1] <= times[v][0]]
             for v in times}
    ready = {v: max((times[u][1] for u in preds[v]), default=t0) for v in times}
    work, _ = _work(run, t0, times, ready, unknown)
    plan = Plan("recorded", [Step(v, v, expected_evidence="ran", depends_on=preds[v], duration=work[v]) for v in times])
    return critical_path(plan).makespan


def _covered(parts: list[tuple[float, float]]) -> float:
    """The length of the union of intervals (nested model spans of one call count once)."""
    total, reach = 0.0, float("-inf")
    for a, b in sorted(parts):
        if b > reach:
            total += b - max(a, reach)
            reach = b
    return total


def _serialized(ran: list[str], times: Mapping[str, tuple[float, float]], preds: Mapping[str, set[str]],
                ready: Mapping[str, float]) -> tuple[tuple[str, str], ...]:
    """Pairs (u, v) sharing no data where v started right after u ended though its inputs were ready before."""
    # Data edges go forward in time (the producer ended before the consumer started), so a data path from u to
    # a v that started right after u ended passes only through steps that ran wholly in between: none, or steps
    # of no duration at that very instant (_linked walks those). Linear after the sorts; no closure is built.
    order = sorted(ran, key=lambda s: (times[s][0], s))
    by_end = sorted(ran, key=lambda s: (times[s][1], s))
    ends = [times[s][1] for s in by_end]
    out = []
    for v in order:
        s_v = times[v][0]
        latest_start = float("-inf")  # of the steps already passed, which ended later than the current u
        for k in range(bisect.bisect_right(ends, s_v) - 1, -1, -1):
            u = by_end[k]
            e_u = times[u][1]
            if u == v:
                continue
            if latest_start >= e_u:  # some step ran wholly between u's end and v's start
                break
            latest_start = max(latest_start, times[u][0])
            if ready[v] < e_u and not _linked(u, v, preds, times) and not _linked(v, u, preds, times):
                out.append((u, v))
    return tuple(sorted(out, key=lambda p: (times[p[1]][0], times[p[0]][1], p)))


def _linked(u: str, v: str, preds: Mapping[str, set[str]], times: Mapping[str, tuple[float, float]]) -> bool:
    """Whether a data path leads from ``u`` to ``v``: back from ``v`` through steps that started after ``u``
    ended (only those can carry ``u``'s data on)."""
    e_u = times[u][1]
    stack, seen = [v], {v}
    while stack:
        for p in preds[stack.pop()]:
            if p == u:
                return True
            if p not in seen and times[p][0] >= e_u:
                seen.add(p)
                stack.append(p)
    return False
