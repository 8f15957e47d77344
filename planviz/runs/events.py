"""The values of a run: observations, the execution state, conflicts, events (frames) and the run itself.

Every :class:`Event` is a frame: what happened and the state just after it,
so a viewer can jump to any point. A :class:`Run` is its events, its outcome,
its final state and every plan version, whether simulated or recorded.

>>> negation("cache is shared"), negation("not cache is shared")
('not cache is shared', 'cache is shared')
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ..errors import FrameIndexError, SimulationError
from ..plan.model import Contract, Plan
from .fault import Fault

__all__ = ["Observation", "ExecutionState", "Conflict", "Event", "Frame", "Run", "state_from_events", "negation",
           "EVENT_KINDS", "OUTCOMES"]

EVENT_KINDS = ("propose", "start", "complete", "fail", "retry", "withdraw", "invalidate", "conflict", "replan",
               "stop", "recheck", "expand", "approval")
OUTCOMES = ("plan_complete", "blocked", "refused", "step_failed", "expected_evidence_missing", "premise_failed",
            "forbidden_state", "replan_limit", "no_new_route", "goal_changed", "awaiting_expansion",
            "approval_denied")


def _facts(value: Any, where: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    if isinstance(value, str):
        return frozenset((value,))
    out = frozenset(value)
    for f in out:
        if not isinstance(f, str):
            raise SimulationError(f"{where}: expected fact strings, got {f!r}")
    return out


def negation(fact: str) -> str:
    """The fact that contradicts ``fact``: ``X`` and ``not X`` contradict each other.

    >>> negation("cache is shared"), negation("not cache is shared")
    ('not cache is shared', 'cache is shared')
    """
    return fact[4:] if fact.startswith("not ") else "not " + fact


@dataclass(frozen=True)
class Observation:
    """What the observer made of a step's trace: ``ok``, the ``facts`` it establishes, the facts ``withdrawn``
    (no longer true), a ``kind`` (``ok`` or a failure category) and free-form ``data``."""

    ok: bool = True
    facts: frozenset[str] = frozenset()
    withdrawn: frozenset[str] = frozenset()
    kind: str = "ok"
    data: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "facts", _facts(self.facts, "Observation.facts"))
        object.__setattr__(self, "withdrawn", _facts(self.withdrawn, "Observation.withdrawn"))
        object.__setattr__(self, "data", dict(self.data or {}))
        if not isinstance(self.ok, bool):
            raise SimulationError(f"Observation.ok must be True or False, got {self.ok!r}")


@dataclass(frozen=True)
class ExecutionState:
    """Where a run stands: ``completed`` ids, the ``facts`` held, ``observations`` as (step, Observation)
    pairs in order, and the ``outcome`` once it stopped."""

    completed: frozenset[str] = frozenset()
    facts: frozenset[str] = frozenset()
    observations: tuple[tuple[str, Observation], ...] = ()
    outcome: str | None = None


@dataclass(frozen=True)
class Conflict:
    """An observed ``fact`` (from step ``source``) contradicting a held one (``contradicts``, established by
    ``verified_by``: step ids, ``given`` or ``premise``). Neither is overwritten."""

    fact: str
    source: str
    contradicts: str
    verified_by: str


@dataclass(frozen=True)
class Event:
    """One frame of a run: what happened (``kind``, ``step``, ``message``) and the whole state just after it.

    ``statuses`` maps every step of plan version ``plan_version`` to its status;
    ``facts`` and ``ready`` are complete sets, so a viewer can jump to any
    frame. Kind-specific fields: ``attempt`` (start, fail, retry), ``category``
    (fail: the failure class; stop of a refused run: the code of the finding
    that refused it; approval: ``granted`` or ``denied``), ``voided``/``kept``
    (invalidate: the ids voided and the verified work kept; replan: the ids
    the revision invalidated; recheck: the step, in one of the two),
    ``observation`` (complete, fail), ``outcome`` (stop). ``conflicts`` holds
    every conflict recorded so far. Kinds beyond the first round: ``recheck``
    (a completed step re-checked against a changed goal), ``expand`` (a
    far-horizon step replaced by concrete steps: a new plan version) and
    ``approval`` (a step's approval, before its start).
    """

    index: int
    time: float
    kind: str
    step: str | None
    message: str
    plan_version: int
    statuses: Mapping[str, str] = field(default_factory=dict, hash=False)
    facts: frozenset[str] = frozenset()
    ready: frozenset[str] = frozenset()
    voided: frozenset[str] = frozenset()
    kept: frozenset[str] = frozenset()
    attempt: int = 0
    category: str | None = None
    observation: Observation | None = None
    outcome: str | None = None
    conflicts: tuple[Conflict, ...] = ()


def state_from_events(events: Iterable[Event]) -> ExecutionState:
    """The execution state a sequence of frames ends in (used for live and loaded runs alike)."""
    completed: set[str] = set()
    observations: list[tuple[str, Observation]] = []
    facts: frozenset[str] = frozenset()
    outcome = None
    for e in events:
        facts = e.facts
        if e.kind == "complete" and e.step is not None:
            completed.add(e.step)
        elif e.kind in ("invalidate", "recheck"):
            completed -= e.voided
        elif e.kind == "stop":
            outcome = e.outcome
        if e.observation is not None and e.step is not None:
            observations.append((e.step, e.observation))
    return ExecutionState(frozenset(completed), facts, tuple(observations), outcome)


@dataclass(frozen=True)
class Frame:
    """The state of a run just after one event: what a viewer shows at that point.

    ``statuses`` maps every step of plan version ``plan_version`` to its
    status; ``facts`` and ``ready`` are the facts held and the steps ready.
    ``voided`` and ``kept`` are what the latest failure of this plan version
    voided and the verified work it kept (empty before any); ``conflicted``
    the steps whose observations conflicted with a held fact in this version.
    Read frames with :meth:`Run.frame`, never from events directly: how a run
    stores its frames is its own business.
    """

    index: int
    time: float
    plan_version: int
    statuses: Mapping[str, str] = field(hash=False)
    facts: frozenset[str]
    ready: frozenset[str]
    voided: frozenset[str] = frozenset()
    kept: frozenset[str] = frozenset()
    conflicted: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Run:
    """A run, simulated or recorded: its frames, how it ended, the final state and every plan version.

    ``strategy`` is ``direct``, ``workflow``, ``planner`` or ``recorded``;
    ``faults`` the faults injected; ``contract`` the contract it ran under.
    """

    events: tuple[Event, ...]
    outcome: str | None
    state: ExecutionState
    plans: tuple[Plan, ...]
    strategy: str = "planner"
    faults: tuple[Fault, ...] = ()
    contract: Contract | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.events)

    @property
    def plan(self) -> Plan | None:
        """The last plan version."""
        return self.plans[-1] if self.plans else None

    def plan_at(self, index: int) -> Plan | None:
        """The plan version shown by event ``index``."""
        version = self.events[index].plan_version
        return next((p for p in self.plans if p.version == version), None)

    @property
    def time(self) -> float:
        """The clock at the last event."""
        return self.events[-1].time if self.events else 0.0

    def frame(self, index: int) -> Frame:
        """The state just after event ``index`` (negative counts from the end, like a list).

        >>> from planviz import examples, simulate
        >>> run = simulate(examples.load("cache_isolation"))
        >>> f = run.frame(-1)
        >>> f.index, f.statuses["S4"], sorted(f.ready)
        (11, 'done', [])
        """
        n = len(self.events)
        if isinstance(index, bool) or not isinstance(index, int):
            raise FrameIndexError(f"a frame index is an int, got {index!r}")
        if not -n <= index < n:
            raise FrameIndexError(f"no event {index!r} in this run; it has events 0..{n - 1}")
        index %= n
        e = self.events[index]
        voided, kept, conflicted = self._marks[index]
        return Frame(index, e.time, e.plan_version, e.statuses, e.facts, e.ready, voided, kept, conflicted)

    @functools.cached_property
    def _marks(self) -> list[tuple[frozenset[str], frozenset[str], frozenset[str]]]:
        """Per event: (voided, kept, conflicted) of its plan version so far; one pass over the events."""
        out = []
        version = None
        voided = kept = frozenset()
        conflicted: frozenset[str] = frozenset()
        for e in self.events:
            if e.plan_version != version:
                version, voided, kept, conflicted = e.plan_version, frozenset(), frozenset(), frozenset()
            if e.kind == "invalidate":
                voided, kept = frozenset(e.voided), frozenset(e.kept)
            elif e.kind == "recheck":  # a goal change's voiding, refined one re-checked step at a time
                voided, kept = (voided - e.kept) | e.voided, (kept - e.voided) | e.kept
            elif e.kind == "conflict" and e.step:
                conflicted = conflicted | {e.step}
            out.append((voided, kept, conflicted))
        return out

    def to_text(self) -> str:
        """The event log, one line per event."""
        return "\n".join(f"{e.index:>3} t={e.time:g} v{e.plan_version} {e.kind:<10} {e.message}"
                         for e in self.events)
