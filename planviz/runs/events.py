"""The values of a run: observations, the execution state, conflicts, events, frames and the run itself.

Every :class:`Event` records what happened and what it changed (statuses,
facts); :meth:`Run.frame` gives the whole state just after any event, from
snapshots plus deltas (:mod:`planviz.runs.frames`), so a viewer can jump to
any point. A :class:`Run` is its events, its outcome, its final state and
every plan version, whether simulated or recorded.

>>> negation("cache is shared"), negation("not cache is shared")
('not cache is shared', 'cache is shared')
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import (
    AbstractSet,
    Any,
    Collection,
    ItemsView,
    Iterable,
    Iterator,
    KeysView,
    Mapping,
    ValuesView,
)

from planviz.errors import FrameIndexError, SimulationError, expect_type
from planviz.io.syntax import show_value
from planviz.plan.arguments import loaded_fix
from planviz.plan.bulk import slot_filler
from planviz.plan.model import Contract, Plan
from planviz.runs.fault import Fault, negation  # negation: read here by the engine and measures
from planviz.runs.frames import FrameDelta, FrameStore
from planviz.runs.lastruns import LastRuns
from planviz.runs.modelcall import ModelCall
from planviz.runs.turns import Turn

__all__ = [
    "Observation",
    "ExecutionState",
    "Conflict",
    "Event",
    "Frame",
    "ModelCall",
    "Run",
    "state_from_events",
    "negation",
    "EVENT_KINDS",
    "OUTCOMES",
]

EVENT_KINDS = (
    "propose",
    "start",
    "complete",
    "fail",
    "retry",
    "withdraw",
    "invalidate",
    "conflict",
    "replan",
    "stop",
    "recheck",
    "expand",
    "approval",
    "wait",
)
OUTCOMES = (
    "plan_complete",
    "blocked",
    "refused",
    "step_failed",
    "expected_evidence_missing",
    "premise_failed",
    "forbidden_state",
    "replan_limit",
    "no_new_route",
    "goal_changed",
    "awaiting_expansion",
    "approval_denied",
)


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


@dataclass(frozen=True, slots=True)
class Observation:
    """What the observer made of a step's trace: ``ok``, the ``facts`` it establishes, the facts ``withdrawn``
    (no longer true), a ``kind`` (``ok`` or a failure category), free-form ``data`` and the facts it
    ``replaced``: earlier values of what the step updated (a LangGraph state channel overwritten), which leave
    the state with the step's own event, an update, not a withdrawn fact."""

    ok: bool = True
    facts: frozenset[str] = frozenset()
    withdrawn: frozenset[str] = frozenset()
    kind: str = "ok"
    data: Mapping[str, Any] = field(default_factory=dict, hash=False)
    replaced: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "facts", _facts(self.facts, "Observation.facts"))
        object.__setattr__(self, "withdrawn", _facts(self.withdrawn, "Observation.withdrawn"))
        object.__setattr__(self, "replaced", _facts(self.replaced, "Observation.replaced"))
        object.__setattr__(self, "data", dict(self.data or {}))
        if not isinstance(self.ok, bool):
            raise SimulationError(f"Observation.ok must be True or False, got {self.ok!r}")


def clean_observation(facts: frozenset[str]) -> Observation:
    """``Observation(True, facts)`` for facts already a frozenset of strings (a step's ``produces``, checked when
    its plan was made): the same value, without checking each fact again (one per finished step)."""
    return _new_observation(True, facts)


def read_observation(
    ok: bool, facts: frozenset[str], kind: str, data: dict[str, Any]
) -> Observation:
    """``Observation(ok, facts, kind=kind, data=data)`` for a trace reader's values already of their types
    (``facts`` a frozenset of strings, ``data`` a dict of its own, made for this observation): the same value,
    without the checks and without copying ``data`` (one per tool call of a big trace).

    >>> read_observation(True, frozenset({"x"}), "ok", {"a": 1}) == Observation(True, {"x"}, data={"a": 1})
    True
    """
    return _new_observation(ok, facts, _NO_FACTS, kind, data, _NO_FACTS)


_new_observation = slot_filler(Observation)
_NO_FACTS: frozenset[str] = frozenset()


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


@dataclass(frozen=True, slots=True)
class Event:
    """One event of a run: what happened (``kind``, ``step``, ``message``) and what it changed.

    ``changes`` maps each step whose status changed to its new status; the
    first event of a plan version (``plan_version``) is a snapshot that names
    every step of that version. ``gained`` and ``lost`` are the facts it added
    to and removed from the state. Read the state at an event with
    :meth:`Run.frame`, never by replaying these yourself. Kind-specific
    fields: ``attempt`` (start, fail, retry), ``category`` (fail: the failure
    class; stop of a refused run: the code of the finding that refused it;
    approval: ``granted`` or ``denied``), ``voided``/``kept`` (invalidate: the
    ids voided and the verified work kept; replan: the ids the revision
    invalidated and the earlier work it takes back as done, a LangGraph fork
    onto an earlier branch; recheck: the step, in one of the two), ``observation``
    (complete, fail), ``outcome`` (stop), ``conflict`` (conflict: the one it
    records). Kinds beyond the first round: ``recheck`` (a completed step
    re-checked against a changed goal), ``expand`` (a far-horizon step
    replaced by concrete steps: a new plan version) and ``approval`` (a
    step's approval, before its start).
    """

    index: int
    time: float
    kind: str
    step: str | None
    message: str
    plan_version: int
    changes: Mapping[str, str] = field(default_factory=dict, hash=False)
    gained: frozenset[str] = frozenset()
    lost: frozenset[str] = frozenset()
    voided: frozenset[str] = frozenset()
    # a frozenset, or a grown version's DoneSet (runs/statuslog.py)
    kept: AbstractSet[str] = frozenset()
    attempt: int = 0
    category: str | None = None
    observation: Observation | None = None
    outcome: str | None = None
    conflict: Conflict | None = None

    def __getattr__(self, name: str) -> Any:
        if name in _FRAME_FIELDS:
            raise AttributeError(
                f"Event.{name} is gone: an event holds only what it changed (changes, gained, "
                f"lost); read the whole state with run.frame({self.index}).{name}"
            )
        if name == "conflicts":
            raise AttributeError(
                "Event.conflicts is gone: a conflict event holds its own .conflict; "
                "run.conflicts lists every conflict of the run"
            )
        raise AttributeError(f"'Event' object has no attribute {name!r}")


_FRAME_FIELDS = ("statuses", "facts", "ready")


class _Derived(str):
    """What an event stores as its ``message`` when the message says nothing its other fields do not (a start's
    step and attempt, a complete's step and its one fact): the text is made when it is read (issue 43: the two
    messages of each call were a seventh of a big run's memory)."""

    __slots__ = ()


DERIVED = _Derived()
"""The ``message`` the run machine gives a start (``start 'S', attempt k``) or a complete (``'S' complete: fact``,
its observation holding at most that one fact) whose message is read from the event's own fields."""

_stored_message: Any = Event.__dict__[
    "message"
]  # the slot itself (the fast builder stores into it, as every field)


def _message(e: Event) -> str:
    """The event's message: as stored, or made from the event's fields when it stored :data:`DERIVED`."""
    text: str = _stored_message.__get__(e, Event)
    if text is not DERIVED:
        return text
    if e.kind == "start":
        return f"start {e.step!r}, attempt {e.attempt}"
    facts = e.observation.facts if e.observation is not None else ()
    return f"{e.step!r} complete: {next(iter(facts)) if facts else 'no facts'}"


def stored_message(e: Event) -> str:
    """The message ``e`` stores: its text, or :data:`DERIVED` (an empty string) when it is made from the event's
    step, attempt and fact as read (what a check of every string of a run need not make)."""
    text: str = _stored_message.__get__(e, Event)
    return text


def _store_message(e: Event, text: str) -> None:  # unpickling, copying (object.__setattr__)
    _stored_message.__set__(e, text)


Event.message = property(_message, _store_message, doc="What happened, in words.")  # type: ignore[misc, assignment]


def _messages(run: Any) -> list[str]:
    return [str(text or "") for text in map(_message, run.events)]


event_messages: LastRuns[list[str]] = LastRuns(_messages)
"""The message of each of a run's events (``""`` for none), made once per run for the last two runs asked about
and shared (never to be changed): the report's event log and its pictures' captions read the same texts."""


class FewChanges(Mapping[str, str]):
    """An event's ``changes`` when it changed one or two statuses (most events: a start, a complete and the step it
    made ready): a read-only mapping like the dict it stands for (equal to it, the same repr and order), in a
    third of the memory (issue 43: a 100k-span run holds 100k of them). :func:`few_changes` makes them."""

    __slots__ = ("_k0", "_v0", "_k1", "_v1")
    _k0: str | None
    _v0: str | None
    _k1: str | None
    _v1: str | None

    def __init__(
        self,
        k0: str | None = None,
        v0: str | None = None,
        k1: str | None = None,
        v1: str | None = None,
    ) -> None:
        self._k0, self._v0, self._k1, self._v1 = k0, v0, k1, v1

    def __getitem__(self, sid: str) -> str:
        if sid == self._k0 and self._k0 is not None:
            return self._v0  # type: ignore[return-value]
        if sid == self._k1 and self._k1 is not None:
            return self._v1  # type: ignore[return-value]
        raise KeyError(sid)

    def __contains__(self, sid: object) -> bool:
        return sid is not None and (sid == self._k0 or sid == self._k1)

    def get(self, sid: str, default: Any = None) -> Any:
        """``self[sid]``, or ``default`` (Mapping.get's meaning, without its try/except around ``__getitem__``)."""
        if sid is not None:
            if sid == self._k0:
                return self._v0
            if sid == self._k1:
                return self._v1
        return default

    def __iter__(self) -> Iterator[str]:
        k0, k1 = self._k0, self._k1
        return iter(() if k0 is None else (k0,) if k1 is None else (k0, k1))

    def __len__(self) -> int:
        return 0 if self._k0 is None else 1 if self._k1 is None else 2

    def _pairs(self) -> tuple[tuple[str, str], ...]:
        k0, k1 = self._k0, self._k1
        if k0 is None:
            return ()
        return ((k0, self._v0),) if k1 is None else ((k0, self._v0), (k1, self._v1))  # type: ignore[return-value]

    # the views of the dict it stands for (a dict's are C code; Mapping's read each entry through __getitem__): a
    # report walks each event's changes several times (the frame index, its deltas, the statuses seen)
    def keys(self) -> KeysView[str]:
        k0, k1 = self._k0, self._k1
        if k0 is None:
            return _NO_DICT.keys()
        return ({k0: self._v0} if k1 is None else {k0: self._v0, k1: self._v1}).keys()

    def items(self) -> ItemsView[str, str]:
        k0, k1 = self._k0, self._k1
        if k0 is None:
            return _NO_DICT.items()
        return ({k0: self._v0} if k1 is None else {k0: self._v0, k1: self._v1}).items()  # type: ignore[return-value]

    def values(self) -> ValuesView[str]:
        k0, k1 = self._k0, self._k1
        if k0 is None:
            return _NO_DICT.values()
        return ({k0: self._v0} if k1 is None else {k0: self._v0, k1: self._v1}).values()  # type: ignore[return-value]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return len(self) == len(other) and dict(self._pairs()) == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(dict(self._pairs()))

    def __reduce__(self) -> tuple[Any, ...]:
        return FewChanges, (self._k0, self._v0, self._k1, self._v1)


def few_changes(changes: dict[str, str]) -> Mapping[str, str]:
    """``changes`` itself past two entries, else the same as a :class:`FewChanges` (one shared for none).

    >>> few_changes({"A": "done", "B": "ready"}), few_changes({"A": "done"}) == {"A": "done"}
    ({'A': 'done', 'B': 'ready'}, True)
    """
    n = len(changes)
    if n > 2:
        return changes
    if n == 1:
        ((k0, v0),) = changes.items()
        return FewChanges(k0, v0)
    if n == 2:
        (k0, v0), (k1, v1) = changes.items()
        return FewChanges(k0, v0, k1, v1)
    return _NO_CHANGES


_NO_CHANGES = FewChanges()
_NO_DICT: dict[str, str] = {}  # never changed: the views of no changes

new_event = slot_filler(Event)
"""``Event(...)`` (the same arguments, ``changes`` None for none) at a fifth of the cost, its values as given:
what the run machine calls for each event.

>>> e = new_event(0, 0.0, "start", "A", "start 'A'", 1)
>>> type(e).__name__, e == Event(0, 0.0, "start", "A", "start 'A'", 1)
('Event', True)
"""


def _fill_event(self: Event, *args: Any, **kwargs: Any) -> None:
    """``Event(...)`` itself: the fast builder's stores (``changes`` None for none), as each event is loaded."""
    object.__setattr__(self, "__class__", new_event)
    new_event.__init__(self, *args, **kwargs)  # type: ignore[call-arg]


Event.__init__ = _fill_event  # type: ignore[method-assign]


def state_from_events(events: Iterable[Event]) -> ExecutionState:
    """The execution state a sequence of events ends in (used for live and loaded runs alike)."""
    completed: set[str] = set()
    observations: list[tuple[str, Observation]] = []
    facts: set[str] = set()
    outcome = None
    for e in events:
        facts -= e.lost
        facts |= e.gained
        if e.kind == "complete" and e.step is not None:
            completed.add(e.step)
        elif e.kind in ("invalidate", "recheck"):
            completed -= e.voided
        elif e.kind == "replan" and e.kept:  # work a fork onto an earlier branch takes back
            completed |= e.kept
        elif e.kind == "stop":
            outcome = e.outcome
        if e.observation is not None and e.step is not None:
            observations.append((e.step, e.observation))
    return ExecutionState(frozenset(completed), frozenset(facts), tuple(observations), outcome)


@dataclass(frozen=True)
class Frame:
    """The state of a run just after one event: what a viewer shows at that point.

    ``statuses`` maps every step of plan version ``plan_version`` to its
    status; ``facts`` and ``ready`` are the facts held and the steps ready.
    ``voided`` and ``kept`` are what the latest failure of this plan version
    voided and the verified work it kept (empty before any); ``conflicted``
    the steps whose observations conflicted with a held fact in this version.
    ``not_run`` (from the run's stop event on) are the steps of this version
    that never started and now never will: the run stopped first. A step
    that never started is never voided: a failure voids work, and it had none.
    Read frames with :meth:`Run.frame`, never from events directly: how a run
    stores its frames is its own business.
    """

    index: int
    time: float
    plan_version: int
    statuses: Mapping[str, str] = field(hash=False)
    facts: AbstractSet[str]
    ready: AbstractSet[str]
    voided: AbstractSet[str] = frozenset()
    kept: AbstractSet[str] = frozenset()
    conflicted: AbstractSet[str] = frozenset()
    not_run: AbstractSet[str] = frozenset()


_new_object, _set_attribute = object.__new__, object.__setattr__


@dataclass(frozen=True)
class Run:
    """A run, simulated or recorded: its frames, how it ended, the final state and every plan version.

    ``strategy`` is ``direct``, ``workflow``, ``planner`` or ``recorded``;
    ``faults`` the faults injected; ``contract`` the contract it ran under;
    ``model_calls`` the model calls a recorded trace holds (:class:`ModelCall`,
    in the order they started; empty for simulated runs, whose model calls
    ``metrics`` counts); ``trace_format`` the format of another tool's trace it
    was read from (``otel``, ``langgraph``... of ``planviz.traces.FORMATS``),
    None for planviz's own runs (simulated, or recorded with :class:`planviz.Recorder`);
    ``turns`` what was said (:class:`~planviz.runs.turns.Turn`: the user's message, the model's replies, the
    tools' answers, in order) where the trace records it, else empty.
    """

    events: tuple[Event, ...]
    outcome: str | None
    state: ExecutionState
    plans: tuple[Plan, ...]
    strategy: str = "planner"
    faults: tuple[Fault, ...] = ()
    contract: Contract | None = field(default=None, repr=False)
    model_calls: tuple[ModelCall, ...] = field(default=(), repr=False)
    trace_format: str | None = None
    turns: tuple[Turn, ...] = field(default=(), repr=False)

    def __len__(self) -> int:
        return len(self.events)

    @property
    def plan(self) -> Plan | None:
        """The last plan version."""
        return self.plans[-1] if self.plans else None

    def plan_at(self, index: int) -> Plan | None:
        """The plan version event ``index`` belongs to: the one home of "the plan at an event".

        A version the run does not carry falls back to the last plan; None only for a run without plans.

        >>> from planviz import Fault, examples, simulate
        >>> run = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
        >>> run.plan_at(0).version, run.plan_at(-1).version
        (1, 2)
        """
        if not self.plans:
            return None
        return (
            self._versions.get(self.events[index].plan_version, self.plans[-1])
            if self.events
            else self.plans[-1]
        )

    @functools.cached_property
    def _versions(self) -> dict[int, Plan]:
        return {p.version: p for p in self.plans}

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
            raise FrameIndexError(f"a frame index is an int, got {show_value(index)}")
        if not -n <= index < n:
            raise FrameIndexError(
                f"no event {show_value(index)} in this run; it has events 0..{n - 1}"
            )
        index %= n
        e = self.events[index]
        statuses, facts, ready, voided, kept, conflicted, not_run = self._store.views(index)
        # Frame(...) itself, its fields stored at once (a report reads a frame per event: the frozen
        # dataclass's one object.__setattr__ per field cost most of it)
        frame: Frame = _new_object(Frame)
        _set_attribute(
            frame,
            "__dict__",
            {
                "index": index,
                "time": e.time,
                "plan_version": e.plan_version,
                "statuses": statuses,
                "facts": facts,
                "ready": ready,
                "voided": voided,
                "kept": kept,
                "conflicted": conflicted,
                "not_run": not_run,
            },
        )
        return frame

    def delta(self, index: int) -> FrameDelta:
        """What changed from frame ``index - 1`` to frame ``index``: the steps to restyle, the facts that
        came and went, the steps that became or stopped being ready (see :class:`~planviz.runs.frames.FrameDelta`).

        A viewer stepping forward updates only these.

        >>> from planviz import examples, simulate
        >>> run = simulate(examples.load("cache_isolation"))
        >>> d = run.delta(2)
        >>> run.events[2].kind, sorted(d.steps), sorted(d.gained), sorted(d.ready_in), sorted(d.ready_out)
        ('complete', ['S0', 'S1', 'S2'], ['leak_reproduced'], ['S1', 'S2'], [])
        """
        frame = self.frame(index)
        return self._store.delta(frame.index, self.events[frame.index])

    def deltas(self) -> tuple[FrameDelta, ...]:
        """:meth:`delta` of every event, in order, without building each event's frame (what a page steps through).

        >>> from planviz import examples, simulate
        >>> run = simulate(examples.load("cache_isolation"))
        >>> run.deltas() == tuple(run.delta(i) for i in range(len(run.events)))
        True
        """
        return self._store.deltas(self.events)

    def delta_rows(
        self,
    ) -> Iterator[tuple[Collection[str], Collection[str], Collection[str], bool]]:
        """What :meth:`deltas` says of each event, in order, as ``(steps, ready_in, ready_out, plain)`` (the facts
        gained and lost are the event's own): ``plain`` when ``steps`` are the keys of the event's ``changes``, a
        tuple in their order (nearly every event), else a frozenset. What a page steps through, without an object
        per event.

        >>> from planviz import examples, simulate
        >>> run = simulate(examples.load("cache_isolation"))
        >>> [(frozenset(s), frozenset(i), frozenset(o)) for s, i, o, _ in run.delta_rows()] == [
        ...     (d.steps, d.ready_in, d.ready_out) for d in run.deltas()]
        True
        """
        if "_store" not in self.__dict__:  # the store built here, the rows made in its pass
            store = FrameStore()
            rows = store.indexed_rows(self.events)
            self.__dict__["_store"] = store  # what _store would have built
            return iter(rows)
        return self._store.rows(self.events)

    def statuses_seen(self) -> frozenset[str]:
        """Every status some frame of the run shows (one pass over the changes, not the frames, done once)."""
        return self._seen

    @functools.cached_property
    def _seen(self) -> frozenset[str]:
        seen: set[Any] = set()
        add, update = seen.add, seen.update
        for e in self.events:
            changes = e.changes
            if type(changes) is FewChanges:  # most events: its one or two values read directly
                if changes._k0 is not None:
                    add(changes._v0)
                    if changes._k1 is not None:
                        add(changes._v1)
            else:  # a logged snapshot's other statuses were shown by the events before it
                update(getattr(changes, "fresh", changes).values())
        return frozenset(seen)

    @property
    def conflicts(self) -> tuple[Conflict, ...]:
        """Every conflict recorded in the run, in order."""
        return tuple(e.conflict for e in self.events if e.conflict is not None)

    @functools.cached_property
    def _store(self) -> FrameStore:
        """The index of the events' deltas, built on first use (one pass over the changes)."""
        store = FrameStore()
        store.extend(self.events)
        return store

    def to_text(self) -> str:
        """The event log, one line per event."""
        return "\n".join(
            f"{e.index:>3} t={e.time:g} v{e.plan_version} {e.kind:<10} {e.message}"
            for e in self.events
        )


def expect_run(value: Any, function: str, argument: str = "run") -> Run:
    """``value`` when it is a :class:`Run`, else :class:`PlanvizTypeError` saying how to get one."""
    if isinstance(value, Run):
        return value
    run: Run = expect_type(
        value,
        Run,
        function,
        argument,
        "a planviz Run",
        loaded_fix(value, "load_trace", "planviz.simulate(plan) or planviz.load_trace(path)"),
    )
    return run
