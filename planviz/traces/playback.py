"""Playing a recorded timeline through the run state machine: how foreign traces become runs.

A reader of another tool's trace (OpenTelemetry spans, LangGraph checkpoints)
does not build frames itself: it lists what happened as :class:`Action`
values (start, finish, fail, retry, invalidate, replan, stop) with the time
each happened, and :func:`play` feeds them, in time order, to the same
:class:`~planviz.runs.engine.machine.Machine` the simulator and the recorder use. So
an imported run obeys every rule of a run, and however runs store their
frames, an imported one is stored the same way.

At equal times, an earlier ``segment`` comes first (a LangGraph reader numbers
each branch and the fork between two, so what a branch recorded is played in
its own plan version), then endings before beginnings (a step that ends at t
makes its dependants ready for a start at t), then the order of insertion.

>>> from planviz import Plan, Step
>>> from planviz.runs.events import Observation
>>> plan = Plan("g", [Step("A", "a", expected_evidence="e", produces="x")])
>>> run = play(plan, [Action(0.0, "start", "A"), Action(2.0, "finish", "A", Observation(True, {"x"})),
...                   Action(2.0, "stop", None, ("plan_complete", "done"))])
>>> [(e.kind, e.time) for e in run.events]
[('propose', 0.0), ('start', 0.0), ('complete', 2.0), ('stop', 2.0)]

A step of no duration still starts before it ends, whatever order its actions came in:

>>> run = play(plan, [Action(1.0, "finish", "A", Observation(True, {"x"})), Action(1.0, "start", "A"),
...                   Action(1.0, "stop", None, ("plan_complete", "done"))])
>>> [(e.kind, e.time) for e in run.events]
[('propose', 0.0), ('start', 1.0), ('complete', 1.0), ('stop', 1.0)]
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Iterable, NamedTuple

from planviz.errors import SimulationError
from planviz.plan.model import Plan
from planviz.runs.engine.machine import Machine
from planviz.runs.events import Run

__all__ = ["Action", "play", "ACTION_KINDS"]

# Order of actions that happen at the same time: endings first, then what they cause, then beginnings.
_PRIORITY = {
    "finish": 0,
    "fail": 0,
    "wait": 0,
    "invalidate": 1,
    "replan": 2,
    "retry": 3,
    "start": 4,
    "stop": 5,
}
ACTION_KINDS = tuple(_PRIORITY)
_ENDINGS = frozenset({"finish", "fail", "wait"})


class Action(NamedTuple):
    """One thing that happened at ``time``: ``kind`` (see :data:`ACTION_KINDS`), the ``step`` concerned and
    what the machine needs for it (``payload``):

    - ``start``: nothing; ``retry``: the message;
    - ``finish``: the :class:`~planviz.runs.events.Observation`;
    - ``fail``: ``(message, category)``; ``wait``: the message (the step waits for input: a human);
    - ``invalidate``: ``(voided ids, message)``;
    - ``replan``: ``(plan, message)``, or ``(plan, message, given facts, steps restored)`` (see
      :meth:`~planviz.runs.engine.machine.Machine.replan`);
    - ``stop``: ``(outcome, message)``.

    ``segment`` orders actions of the same time before their kind or ``rank`` does: a LangGraph branch's
    actions are one segment, the fork after it the next, so none is played in another plan version.
    """

    time: float
    kind: str
    step: str | None
    payload: Any = None
    rank: float | None = None  # overrides the kind's order among actions at the same time
    segment: int = 0  # the part of the recording it belongs to: at one instant, earlier parts first


def play(plan: Plan, actions: Iterable[Action], *, start: float = 0.0) -> Run:
    """The recorded run of ``plan``: proposed at ``start``, then every action in time order."""
    m = Machine(None)
    m.time = start
    m.propose(plan)
    # by time, then segment, then the kind's order, then as given: three stable sorts, with no key tuple or
    # (index, action) pair made per action (a 100k-span trace's timeline is 200k actions: issue 43's peak)
    ordered = sorted(actions, key=_rank)
    ordered.sort(key=_segment)
    ordered.sort(key=_time)
    queue = _own_start_first(ordered)
    del ordered
    queue.reverse()
    while queue:  # each action let go once played (what it carries stays in the run's events)
        a = queue.pop()
        if m.outcome is not None:
            break
        m.time = a.time
        if a.kind == "start":
            m.start(_sid(a))
        elif a.kind == "finish":
            m.finish(_sid(a), a.payload)
        elif a.kind == "fail":
            m.fail(_sid(a), *a.payload)
        elif a.kind == "wait":
            m.wait(_sid(a), a.payload)
        elif a.kind == "retry":
            m.retry(_sid(a), a.payload)
        elif a.kind == "invalidate":
            voided, message = a.payload
            m.invalidate(a.step, voided, m.kept(voided), message)
        elif a.kind == "replan":
            m.replan(*a.payload)
        else:
            outcome, message = a.payload
            m.stop(outcome, message, sid=a.step)
    return m.final_run("recorded", ())


def _segment(a: Action) -> int:
    return a.segment


def _rank(a: Action) -> float:
    return _PRIORITY[a.kind] if a.rank is None else a.rank


_time = attrgetter("time")


def _own_start_first(ordered: list[Action]) -> list[Action]:
    """``ordered`` with each ending that precedes its own step's start at the same time moved just after it.

    Endings come before beginnings at one instant so that dependants start after what they need; a step of
    no duration (a tool call that starts and returns within one timestamp) would otherwise end before it
    began and be read as interrupted.
    """
    last_start = {(a.time, a.step): i for i, a in enumerate(ordered) if a.kind == "start"}
    out: list[Action] = []
    held: dict[str, list[Action]] = {}
    running: dict[str, int] = {}
    for i, a in enumerate(ordered):
        sid = a.step
        if sid is None:
            out.append(a)
        elif a.kind in _ENDINGS and not running.get(sid) and last_start.get((a.time, sid), -1) > i:
            held.setdefault(sid, []).append(a)
        elif a.kind == "start":
            out.append(a)
            waiting = held.get(sid)
            if waiting:
                out.append(waiting.pop(0))
            else:
                running[sid] = running.get(sid, 0) + 1
        else:
            out.append(a)
            if a.kind in _ENDINGS and running.get(sid):
                running[sid] -= 1
    leftover = [a for rest in held.values() for a in rest]
    return sorted(out + leftover, key=lambda a: a.time) if leftover else out


def _sid(a: Action) -> str:
    """The step an action of a step's kind concerns."""
    if a.step is None:
        raise SimulationError(f"a {a.kind!r} action at t={a.time} names no step")
    return a.step
