"""Hindsight: how long a run took, and how soon a schedule an agent could actually run would have ended.

:func:`hindsight` reads any run, simulated or recorded, and keeps of its
dependencies only the **data** ones, found by provenance
(:mod:`planviz.runs.hindsight.provenance`): a call waits for an earlier call when a
distinctive part of its arguments (a number, a date or a part of one, an
identifier, a quoted phrase, a word not in the task) first appears in that
call's result, or when it requires a fact or holds a placeholder
``{{u.field}}`` of it; a value the task gives waits for nothing; when the
reader cannot tell, the call waits (the gain is understated, never
overstated). ``data_edges`` keeps each edge with its reason (a call assumed to
wait for every earlier call lists the frontier of those; the rest follow
through it, so the waits and the schedule are the same, in linear time).

The ideal is the makespan of a schedule an agent could run
(:mod:`planviz.runs.hindsight.idealplan`): one planning model call, the tool calls as
their data allow (a copied value as a placeholder, a derived value after a
model call charged at the run's median), then the final answer's model call.
``plan`` is that schedule as a :class:`~planviz.Plan`. The actual run is a
schedule too, so ``ideal_makespan`` is the faster of the two; None when a
model call the schedule needs has an unknown duration (never counted as free).
``parts`` splits each figure into tool time, model time and waits;
``cost`` counts tokens and time on the ideal critical path and off it, and
what the ideal would spend; ``assumptions`` says all this in words.

``waits`` says how long each step waited after its inputs were ready (beyond
the model calls that led to it); ``serialized`` lists the pairs ``(u, v)`` of
steps that share no data (neither reaches the other through data edges) where
``v`` started right after ``u`` ended (no step ran wholly in between) although
``v``'s inputs were ready before ``u`` ended: ``v`` could have run beside ``u``.

>>> from planviz import Plan, Step, Recorder
>>> plan = Plan("g", time_unit="s", steps=[Step("a", "get a", expected_evidence="e", duration=2, produces="x"),
...                   Step("b", "get b", expected_evidence="e", duration=2, depends_on="a", arguments={"q": 1})])
>>> clock = iter([0, 0, 2, 2, 4, 4]).__next__
>>> rec = Recorder(clock=clock)
>>> _ = (rec.propose(plan), rec.start("a"), rec.complete("a"), rec.start("b"), rec.complete("b", []),
...      rec.stop("plan_complete"))
>>> h = hindsight(rec.run)
>>> h.actual_makespan, h.ideal_makespan, h.serialized, h.waits["b"]
(4.0, 2.0, (('a', 'b'),), 2.0)
>>> print(h.summary())
4 s ran, 2 s possible: a and b share no data
"""

from __future__ import annotations

import bisect
import html
import math
from dataclasses import dataclass, field, fields
from operator import eq, le, lt
from typing import TYPE_CHECKING, AbstractSet, Any, Callable, Mapping

from planviz.plan.bulk import paused_gc
from planviz.plan.model import Plan
from planviz.runs.events import Run, expect_run
from planviz.runs.hindsight.callrecords import (
    run_intervals,
    run_latest_steps,
    run_result_leaves,
    time_order,
)
from planviz.runs.hindsight.hindsightcost import figure_parts, hindsight_cost
from planviz.runs.hindsight.idealplan import (
    ANSWER_STEP,
    PLAN_STEP,
    IdealSchedule,
    ideal_schedule,
)
from planviz.runs.hindsight.provenance import data_edges
from planviz.runs.hindsight.steptimes import _work, recorded_makespan

__all__ = ["hindsight", "Hindsight", "recorded_makespan"]


@dataclass(frozen=True)
class Hindsight:
    """What a run took against what a schedule it could have run allowed (see :func:`hindsight`).

    ``actual_makespan``: first event to last; ``ideal_makespan``: the faster of the run and its ideal schedule
    (None when unknown); ``waits``: per step, how long it waited after its inputs were ready; ``serialized``:
    pairs of steps that share no data and ran one after the other; ``data_edges``: ``(earlier, later, reason)``;
    ``durations``: each step's time in the ideal schedule (model calls included); ``path``: the steps along the
    ideal critical path (the run's steps in the order they started when the run itself is the ideal);
    ``time_unit``: the run's clock; ``plan``: the ideal schedule as a Plan (None when no step ran);
    ``schedule_makespan``: that plan's makespan (None when unknown); ``parts``: ``actual`` and
    ``ideal`` each as ``tool``, ``model`` and ``wait`` time; ``cost``: tokens and time on the critical path and
    off it, and what the ideal would spend; ``assumptions``: the rules behind the figure, in words;
    ``unknown_model_time``: the steps a model call of unknown duration led to.

    :func:`hindsight` works out ``durations``, ``parts`` and ``cost`` when first read (a report reads none of
    them): each reads, compares, prints, copies and pickles as the value it stands for.
    """

    actual_makespan: float
    ideal_makespan: float | None
    waits: Mapping[str, float] = field(hash=False)
    serialized: tuple[tuple[str, str], ...]
    data_edges: tuple[tuple[str, str, str], ...] = ()
    durations: Mapping[str, float] = field(default_factory=dict, hash=False)
    path: tuple[str, ...] = ()
    time_unit: str = ""
    plan: Plan | None = field(default=None, hash=False, compare=False, repr=False)
    schedule_makespan: float | None = None
    parts: Mapping[str, Mapping[str, float | None]] = field(
        default_factory=dict, hash=False, repr=False
    )
    cost: Mapping[str, Any] = field(default_factory=dict, hash=False, repr=False)
    assumptions: tuple[str, ...] = ()
    unknown_model_time: tuple[str, ...] = ()

    if not TYPE_CHECKING:  # (mypy reads the fields themselves)

        def __getattr__(self, name: str) -> Any:
            """A field :func:`hindsight` left to be worked out when first read (``_LATER``): worked out now, kept."""
            d = self.__dict__
            later = d.get("_later")
            if later is None or name not in _LATER:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            if name not in d:  # (another thread may have just worked it out)
                make = later.get(name)
                if make is None:  # worked out and kept meanwhile
                    return d[name]
                d[name] = make()
                later.pop(name, None)
                if not later:
                    d.pop("_later", None)
            return d[name]

    def __getstate__(self) -> dict[str, Any]:
        # every field, in order (what the instance's own dict holds once each is worked out)
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def saving(self) -> float | None:
        """How much sooner the run could have ended: actual minus ideal makespan (None when the ideal is unknown)."""
        return None if self.ideal_makespan is None else self.actual_makespan - self.ideal_makespan

    def summary(self) -> str:
        """One line: ``3.1 s ran, 2 s possible: get_weather and get_weather#2 share no data``."""
        unit = f" {self.time_unit}" if self.time_unit else ""
        if self.ideal_makespan is None:
            return (
                f"{_num(self.actual_makespan)}{unit} ran, possible unknown: a model call the schedule needs "
                "has an unknown duration"
            )
        text = f"{_num(self.actual_makespan)}{unit} ran, {_num(self.ideal_makespan)}{unit} possible"
        saving = self.saving or 0.0
        if self.serialized:
            u, v = self.serialized[0]
            more = len(self.serialized) - 1
            text += f": {u} and {v} share no data" + (
                f" (and {more} more such pair{'s' * (more > 1)})" if more else ""
            )
        elif saving <= 1e-9 * max(1.0, abs(self.actual_makespan)):
            text += ": nothing waited that did not need to"
        else:
            idle = (self.parts.get("actual") or {}).get("wait")
            calls, ideal_calls = self.cost.get("model_calls"), self.cost.get("ideal_model_calls")
            if idle is not None and idle >= saving / 2:
                text += f": {_num(idle)}{unit} when no call ran (the agent's own time)"
            elif calls is not None and ideal_calls is not None and ideal_calls < calls:
                text += f": {calls} model calls could be {ideal_calls} (one plan writes every tool call)"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "actual_makespan": self.actual_makespan,
            "ideal_makespan": self.ideal_makespan,
            "schedule_makespan": self.schedule_makespan,
            "time_unit": self.time_unit,
            "waits": dict(self.waits),
            "serialized": [list(p) for p in self.serialized],
            "data_edges": [list(e) for e in self.data_edges],
            "durations": dict(self.durations),
            "path": list(self.path),
            "parts": {k: dict(v) for k, v in self.parts.items()},
            "cost": dict(self.cost),
            "assumptions": list(self.assumptions),
            "unknown_model_time": list(self.unknown_model_time),
            "summary": self.summary(),
        }

    def to_text(self) -> str:
        unit = f" {self.time_unit}" if self.time_unit else ""
        lines = [
            self.summary(),
            f"ideal path: {' -> '.join(self.path) if self.path else '(no step ran)'}",
        ]
        for name in ("actual", "ideal"):
            part = self.parts.get(name)
            if part:
                lines.append(
                    f"{name}: "
                    + ", ".join(
                        f"{k} {'unknown' if x is None else _num(x) + unit}" for k, x in part.items()
                    )
                )
        for u, v, why in self.data_edges[:10]:
            lines.append(f"data: {v} waits for {u} ({why})")
        if len(self.data_edges) > 10:
            lines.append(f"... and {len(self.data_edges) - 10} more data edges")
        waited = [(s, w) for s, w in self.waits.items() if w > 0]
        if waited:
            lines.append(
                "waited after their inputs were ready: "
                + ", ".join(
                    f"{s} {_num(w)}{unit}" for s, w in sorted(waited, key=lambda sw: -sw[1])[:10]
                )
            )
        for u, v in self.serialized[:10]:
            lines.append(f"serialized: {v} ran after {u}; they share no data")
        if len(self.serialized) > 10:
            lines.append(f"... and {len(self.serialized) - 10} more serialized pairs")
        if self.cost.get("text"):
            lines.append(f"cost: {self.cost['text']}")
        lines.extend(f"assumed: {a}" for a in self.assumptions)
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return "<pre class='planviz-hindsight'>" + html.escape(self.to_text()) + "</pre>"


# the fields hindsight() works out when first read
_LATER = frozenset({"durations", "parts", "cost"})


def _num(x: float) -> str:
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"


def _released(run: Run) -> dict[str, float]:
    """Each step a revision brought (no earlier plan version holds it): the time of its version's first event."""
    if len(run.plans) < 2:  # no revision: no step brought by one
        return {}
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


def hindsight(run: Run) -> Hindsight:
    """The run's actual makespan against the ideal one: a schedule it could have run, if only data made calls wait.

    Parameters
    ----------
    run : Run
        Any run: simulated (:func:`planviz.simulate`) or recorded (:func:`planviz.load_trace`).

    Returns
    -------
    Hindsight
        ``actual_makespan``, ``ideal_makespan``, per-step ``waits``, ``serialized`` pairs of steps that
        share no data and ran one after the other, the ``data_edges`` (with reasons) and ``durations``
        behind them, the ideal schedule as a ``plan``, ``parts``, ``cost`` and ``assumptions`` (see the
        module for the rules).

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
    with paused_gc():  # hundreds of thousands of small tuples, lists and steps, none in a cycle
        return _hindsight(run)


def _hindsight(run: Run) -> Hindsight:
    t0 = run.events[0].time if run.events else 0.0
    actual = run.time - t0
    times = run_intervals(run)
    defs = run_latest_steps(run)
    ran = list(times)
    # what each result holds: read once, for the edges and the schedule
    leaves = run_result_leaves(run)
    edges = data_edges(run, times, defs, leaves=leaves)
    # the data edges into each step: a set for each step an edge enters, one empty set shared by the rest (most)
    linked: dict[str, set[str]] = {}
    for u, v, _ in edges:
        into = linked.get(v)
        if into is None:
            linked[v] = {u}
        else:
            into.add(u)
    preds: dict[str, AbstractSet[str]] = dict.fromkeys(ran, frozenset())
    preds.update(linked)
    release = _released(run)
    # when each step's inputs were ready: its release (t0 without a revision), or the last of its inputs' ends
    ready = {v: release.get(v, t0) for v in ran} if release else dict.fromkeys(ran, t0)
    for v, into in linked.items():
        ready[v] = max([times[u][1] for u in into] + [release.get(v, t0)])
    unknown: set[str] = set()
    _, lead = _work(run, t0, times, ready, unknown, work=False)
    get = lead.get
    # each wait worked out in the order the steps ran (times and ready hold them so: read side by side, each
    # item near the last in memory), then put in id order (ids are unique: the items' order)
    each = [
        max(0.0, s_v - r_v - get(v, 0.0))
        for v, (s_v, _), r_v in zip(ran, times.values(), ready.values())
    ]
    rank = sorted(range(len(ran)), key=ran.__getitem__)
    by_id = list(map(ran.__getitem__, rank))
    waits = dict(zip(by_id, map(each.__getitem__, rank)))
    sched = ideal_schedule(run, times, defs, edges, release, t0, leaves)
    span = sched.makespan
    if span is None:
        ideal = None
    else:
        ideal = (
            min(span, actual)
            if span - actual <= 1e-9 * max(1.0, actual) or run.model_calls
            else span
        )
    faster = span is not None and ideal is not None and span <= ideal + 1e-9 * max(1.0, actual)
    path = (
        tuple(v for v in sched.path if v in times or v in sched.model)
        if faster or not ran
        else tuple(time_order(ran, times))  # by (start, id)
    )
    out = Hindsight(
        actual,
        ideal,
        waits,
        _serialized(ran, times, preds, ready),
        edges,
        {},
        path,
        run.plan.time_unit if run.plan is not None else "",
        sched.plan,
        span,
        {},
        {},
        _assumptions(run, sched, actual, faster),
        tuple(sorted(unknown)),
    )

    def durations() -> dict[str, float]:
        # by id: the steps that ran (sorted already) and the schedule's own, sorted together (one merge)
        return {
            s: sched.durations[s]
            for s in sorted(by_id + [s for s in sched.durations if s not in times])
            if s in times or s in sched.model
        }

    later: dict[str, Callable[[], Any]] = {
        "durations": durations,
        "parts": lambda: figure_parts(run, t0, actual, times, sched, faster),
        "cost": lambda: hindsight_cost(run, sched, ideal, actual),
    }
    # worked out when first read (Hindsight.__getattr__), in the order the eager form's dict holds its fields
    d = out.__dict__
    for name in later:
        del d[name]
    d["_later"] = later
    return out


def _assumptions(run: Run, sched: IdealSchedule, actual: float, faster: bool) -> tuple[str, ...]:
    """The rules behind the ideal figure, in words."""
    unit = f" {run.plan.time_unit}" if run.plan is not None and run.plan.time_unit else ""
    out = [
        "a call waits for the calls whose results hold a distinctive part of its arguments; a value the task "
        "gives waits for nothing; when the reader cannot tell, the call waits"
    ]
    steps = sched.ids  # the plan's step ids (its steps are made only when read)

    def took(sid: str) -> str:
        return "unknown" if sid in sched.unknown_steps else _num(sched.durations[sid]) + unit

    plan = [s for s in sched.model if s.startswith(PLAN_STEP) and s in steps]
    if plan:
        out.append(
            f"one planning model call ({took(plan[0])}: the longest model time that led to a tool call) "
            "writes every tool call; a copied result is a placeholder, a derived value needs a model call "
            f"in between ({'unknown' if sched.model_time is None else _num(sched.model_time) + unit}: the "
            "run's median model call)"
        )
        answer = [s for s in sched.model if s.startswith(ANSWER_STEP) and s in steps]
        if answer:
            out.append(
                f"the final answer waits for every tool call ({took(answer[0])}: the "
                "model time after the last tool call)"
            )
    elif run.model_calls and sched.plan is not None:
        out.append(
            "the trace records no tool call: its steps are its model calls, each at its recorded time"
        )
    else:
        out.append("the run records no model call: model time is not counted")
    if sched.unknown_calls:
        out.append(
            f"{sched.unknown_calls} model call(s) the schedule needs have an unknown duration: the ideal is "
            "unknown, not free"
        )
    elif not faster and sched.makespan is not None:
        out.append(
            f"that schedule takes {_num(sched.makespan)}{unit}, no sooner than the run's {_num(actual)}{unit}: "
            "the ideal is the run as it ran"
        )
    return tuple(out)


def _serialized(
    ran: list[str],
    times: Mapping[str, tuple[float, float]],
    preds: Mapping[str, AbstractSet[str]],
    ready: Mapping[str, float],
) -> tuple[tuple[str, str], ...]:
    """Pairs (u, v) sharing no data where v started right after u ended though its inputs were ready before."""
    # Data edges go forward in time (the producer ended before the consumer started), so a data path from u to
    # a v that started right after u ended passes only through steps that ran wholly in between: none, or steps
    # of no duration at that very instant (_linked walks those). Linear after the sorts; no closure is built.
    # sorted by (start, id) and (end, id): the same key tuples, compared in C
    order = time_order(ran, times)
    by_end = time_order(ran, times, 1)
    ends = [times[s][1] for s in by_end]
    if order == by_end:
        pairs = _one_after_another(order, ends, times, preds, ready)
        if pairs is not None:
            return pairs
    out: list[tuple[str, str]] = []
    for v in order:
        found = len(out)
        s_v = times[v][0]
        # of the steps already passed, which ended later than the current u
        latest_start = float("-inf")
        for k in range(bisect.bisect_right(ends, s_v) - 1, -1, -1):
            u = by_end[k]
            e_u = times[u][1]
            if u == v:
                continue
            if latest_start >= e_u:  # some step ran wholly between u's end and v's start
                break
            if times[u][0] > latest_start:  # max(latest_start, u's start)
                latest_start = times[u][0]
            # (a step with no data edge into it is linked to none: _linked's answer without its call)
            if (
                ready[v] < e_u
                and not (preds[v] and _linked(u, v, preds, times))
                and not (preds[u] and _linked(v, u, preds, times))
            ):
                out.append((u, v))
        if (
            len(out) - found > 1
        ):  # v's pairs by (u's end, u): the order they were found in, reversed
            out[found:] = out[: found - 1 : -1] if found else out[::-1]
    # by (v's start, u's end, the pair): so already when no two steps started at one instant (each v's pairs
    # together, the steps in order) and no time is NaN (every key compares); else the key tuples themselves sorted
    starts = [times[v][0] for v in order]
    if (
        any(map(math.isnan, starts))
        or any(map(math.isnan, ends))
        or any(map(eq, starts, starts[1:]))
    ):
        return tuple(p for _, _, p in sorted([(times[p[1]][0], times[p[0]][1], p) for p in out]))
    return tuple(out)


def _one_after_another(
    order: list[str],
    ends: list[float],
    times: Mapping[str, tuple[float, float]],
    preds: Mapping[str, AbstractSet[str]],
    ready: Mapping[str, float],
) -> tuple[tuple[str, str], ...] | None:
    """:func:`_serialized`'s pairs when the steps ran one after another (most ReAct runs): ``order`` by start is
    the order by end too (``ends``), every step took time and started once the one before had ended, at finite
    times. Then the only step that ended by ``v``'s start with none wholly in between is the one before, so each
    ``v`` is paired with it alone, in ``order``: the general loop's pairs in its order. None otherwise."""
    starts = [times[v][0] for v in order]
    if not (
        all(map(math.isfinite, starts))
        and all(map(lt, starts, ends))  # each took time (no NaN either)
        and all(map(le, ends, starts[1:]))  # and started once the one before had ended
    ):
        return None
    return tuple(
        [
            (u, v)
            for u, v, e_u in zip(order, order[1:], ends)
            if ready[v] < e_u
            and not (preds[v] and _linked(u, v, preds, times))
            and not (preds[u] and _linked(v, u, preds, times))
        ]
    )


def _linked(
    u: str, v: str, preds: Mapping[str, AbstractSet[str]], times: Mapping[str, tuple[float, float]]
) -> bool:
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
