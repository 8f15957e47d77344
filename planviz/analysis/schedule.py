"""The critical path: a forward and a backward pass give each step's earliest and latest times.

The makespan is the earliest finish with unlimited workers, a lower bound for
any schedule; a step's slack is how late it may finish without delaying the
goal; the critical path is a chain of zero-slack steps. When the plan has
terminal steps (:mod:`planviz.structure.terminal`: ``kind: finish``, the
contract's ``final`` milestone), the goal is reached when they finish: the
makespan is the latest terminal's finish, the critical path ends at a terminal,
and a step whose work never reaches one (a dead end) has unbounded slack
(``math.inf``) and is never critical, however long it takes. Exclusive resources
are left out (the bound stays resource-free); ``Schedule.contended`` names
the holders of one resource this schedule would run at the same time, which a
run serializes, so it may finish later (``Schedule.note`` says so).

>>> from planviz import examples
>>> schedule = critical_path(examples.load("cache_isolation"))
>>> schedule.makespan, schedule.serial_time, schedule.path, schedule.steps["S2"].slack
(29.0, 32.0, ('S0', 'S1', 'S3', 'S4'), 5.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, ItemsView, Iterator, Mapping

from planviz.errors import AnalysisError, UnknownStepError, expect_type
from planviz.io.plaindata import as_duration
from planviz.io.syntax import show_value
from planviz.plan.arguments import expect_contract, expect_plan
from planviz.plan.bulk import paused_gc
from planviz.plan.model import MAX_TOTAL_DURATION, Contract, Plan, natural_key
from planviz.structure.dag import require_dag
from planviz.structure.terminal import terminals

__all__ = ["critical_path", "Schedule", "StepTiming", "FrozenMap"]

_EPS = 1e-9


class FrozenMap(Mapping[str, Any]):
    """A read-only mapping (picklable, unlike ``types.MappingProxyType``)."""

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getitem__(self, key: Any) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def items(self) -> ItemsView[str, Any]:
        """The dict's own read-only view: read in C, not through ``__getitem__`` once per key."""
        return self._data.items()

    def __repr__(self) -> str:
        return repr(self._data)

    def __reduce__(self) -> tuple[type, tuple[dict[str, Any]]]:
        return (FrozenMap, (self._data,))


@dataclass(frozen=True, slots=True)
class StepTiming:
    """Earliest/latest start and finish of one step, and its slack (``ls - es``, 0 on the critical path)."""

    es: float
    ef: float
    ls: float
    lf: float
    slack: float


@dataclass(frozen=True)
class Schedule:
    """The result of :func:`critical_path`.

    ``steps`` maps each id to its :class:`StepTiming` (read-only, in id order);
    ``path`` is one critical path, ties broken by id; ``critical`` holds every
    step with zero slack; ``contended`` the ``(resource, a, b)`` holders that
    overlap at their earliest times (a run never lets them).
    """

    steps: Mapping[str, StepTiming] = field(hash=False)
    makespan: float
    serial_time: float
    path: tuple[str, ...]
    critical: frozenset[str]
    contended: tuple[tuple[str, str, str], ...] = ()

    @property
    def note(self) -> str:
        """What exclusive resources do to this lower bound, in one sentence ("" when nothing is contended).

        >>> from planviz import Plan, Step
        >>> contended = Plan("g", [Step("A", "a", resources="db"), Step("B", "b", resources="db")])
        >>> print(critical_path(contended).note)  # doctest: +NORMALIZE_WHITESPACE
        the makespan ignores exclusive resources: 'A' and 'B' both hold 'db' and overlap here; a run
        serializes them, so it may take longer
        """
        if not self.contended:
            return ""
        shown = "; ".join(f"{a!r} and {b!r} both hold {r!r}" for r, a, b in self.contended[:3])
        more = f" (and {len(self.contended) - 3} more)" if len(self.contended) > 3 else ""
        return (
            f"the makespan ignores exclusive resources: {shown}{more} and overlap here; a run serializes "
            "them, so it may take longer"
        )


_duration = attrgetter("duration")
_TIMING_SLOTS = tuple(StepTiming.__dict__[k].__set__ for k in ("es", "ef", "ls", "lf", "slack"))


def critical_path(
    plan: Plan, durations: Mapping[str, float] | None = None, *, contract: Contract | None = None
) -> Schedule:
    """Forward and backward pass over a topological order: timings, makespan, critical path.

    ``durations`` (id -> duration) overrides ``step.duration`` for some steps.
    ``steps`` of the result is in id order. Slack within 1e-9 (relative to the
    makespan) of zero counts as zero, so float durations do not hide critical
    steps. Raises :class:`StructureError` when the plan has a cycle or an
    unknown dependency (run :func:`planviz.validate` to see it). ``contract``
    (default ``plan.contract``) may name the ``final`` milestone the path ends at.

    Parameters
    ----------
    plan : Plan
        The plan (any version).
    durations : mapping, optional
        id -> duration, overriding ``step.duration`` for some steps.
    contract : Contract, optional
        May name the ``final`` milestone the path ends at (default ``plan.contract``).

    Returns
    -------
    Schedule
        ``steps`` (id -> StepTiming es/ef/ls/lf/slack), ``makespan``, ``serial_time``, ``path``, ``critical``.

    Raises
    ------
    StructureError
        When the plan has a cycle or an unknown dependency; :func:`validate` names it.
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).

    Examples
    --------
    >>> from planviz import Plan, Step
    >>> plan = Plan("g", [Step("B", "b", depends_on="A", duration=2), Step("A", "a", duration=3),
    ...                   Step("C", "c", duration=1)])
    >>> s = critical_path(plan)
    >>> s.makespan, s.path, sorted(s.critical), s.steps["C"]
    (5.0, ('A', 'B'), ['A', 'B'], StepTiming(es=0.0, ef=1.0, ls=4.0, lf=5.0, slack=4.0))
    >>> critical_path(plan, durations={"C": 9}).path
    ('C',)
    >>> ended = plan.replace(steps=plan.steps + (Step("END", "end", depends_on="C", kind="finish", duration=0),))
    >>> s = critical_path(ended)
    >>> s.makespan, s.path, s.steps["B"].slack
    (1.0, ('C', 'END'), inf)
    """
    plan = expect_plan(plan, "critical_path")
    contract = expect_contract(contract, "critical_path")
    if durations is not None:
        expect_type(
            durations, Mapping, "critical_path", "durations", "a mapping from step id to duration"
        )
    with paused_gc():
        ix = require_dag(plan)
        ids, out, order, npred = ix.ints()
        if durations:
            dur_of = {sid: s.duration for sid, s in ix.steps.items()}
            _override(dur_of, durations)
            dur = list(map(dur_of.__getitem__, ids))
        else:
            dur = list(map(_duration, ix.steps.values()))
        n = len(ids)
        es = [0.0] * n
        ef = [0.0] * n
        for u in order:  # forward pass; steps are integers, see sorted_dag
            f = es[u] + dur[u]
            ef[u] = f
            for v in out[u]:
                if f > es[v]:
                    es[v] = f
        ends = terminals(plan, contract)
        at = {sid: i for i, sid in enumerate(ids)} if ends else {}
        goal = [at[sid] for sid in ends]
        reach = {at[sid] for sid in ix.ancestors(ends)} if goal else None
        makespan = max(map(ef.__getitem__, goal) if goal else ef, default=0.0)
        eps = _EPS * max(1.0, makespan)
        ls = [0.0] * n if reach is None else [0.0 if u in reach else math.inf for u in range(n)]
        made: list[Any] = [None] * n
        critical_at = []
        new = object.__new__
        set_es, set_ef, set_ls, set_lf, set_slack = _TIMING_SLOTS
        # backward pass, building each StepTiming without the frozen __setattr__
        for u in reversed(order):
            finish = makespan if reach is None or u in reach else math.inf
            for v in out[u]:
                late = ls[v]
                if late < finish:
                    finish = late
            start = es[u]
            late = ls[u] = finish - dur[u]
            slack = late - start
            if -eps < slack < eps:
                slack = 0.0
                critical_at.append(u)
            t = made[u] = new(StepTiming)
            set_es(t, start)
            set_ef(t, ef[u])
            set_ls(t, late)
            set_lf(t, finish)
            set_slack(t, slack)
        by_id = sorted(range(n), key=ids.__getitem__)
        timings = dict(zip(map(ids.__getitem__, by_id), map(made.__getitem__, by_id)))
        critical = frozenset(map(ids.__getitem__, critical_at))
        crit = set(critical_at)
        path: list[str] = []
        starts = [u for u in critical_at if not npred[u]]
        first = _by_natural_id(ids)
        if starts:
            u = min(starts, key=first)
            while True:
                path.append(ids[u])
                finish = ef[u]
                tight = []
                for v in out[u]:
                    if v in crit and abs(es[v] - finish) < eps:
                        tight.append(v)
                if not tight:
                    break
                # a lone successor needs no id key
                u = tight[0] if len(tight) == 1 else min(tight, key=first)
        return Schedule(
            FrozenMap(timings),
            makespan,
            math.fsum(dur),
            tuple(path),
            critical,
            _contended(ix.holders(), timings, eps),
        )


def _contended(
    holders: Mapping[str, list[str]], timings: Mapping[str, StepTiming], eps: float
) -> tuple[tuple[str, str, str], ...]:
    """(resource, a, b) for holders of one resource whose earliest intervals overlap, in a sweep per resource."""
    out = []
    for res in sorted(holders):
        ranked = sorted(holders[res], key=lambda s: (timings[s].es, natural_key(s)))
        busy_until, holder = -math.inf, ""
        for sid in ranked:
            t = timings[sid]
            if t.es < busy_until - eps and t.ef > t.es:
                out.append((res, holder, sid))
            if t.ef > busy_until:
                busy_until, holder = t.ef, sid
    return tuple(out)


def _by_natural_id(ids: list[str]) -> Any:
    """A key ordering step integers by their ids' natural order (``S2`` before ``S10``)."""
    return lambda u: natural_key(ids[u])


def _override(dur: dict[str, float], durations: Mapping[str, float]) -> None:
    for sid, d in durations.items():
        if sid not in dur:
            shown = ", ".join(map(repr, sorted(dur)[:20]))
            raise UnknownStepError(
                f"durations names {sid!r}, which is not a step of this plan; its steps are {shown}"
            )
        number = as_duration(d)
        if number is None:
            raise AnalysisError(
                f"durations[{sid!r}] must be a finite number >= 0, got {show_value(d)}"
            )
        dur[sid] = number
    if sum(dur.values()) > MAX_TOTAL_DURATION:
        raise AnalysisError(
            f"with these durations the steps add up to more than {MAX_TOTAL_DURATION:g}, past what "
            "a schedule can add: expected smaller durations"
        )
