"""Private helper of :mod:`planviz.runtime`: the values of a run and the state machine that makes its frames.

Public names are re-exported by :mod:`planviz.runtime`. The state machine,
:class:`Machine`, is shared by the simulator and by :class:`planviz.trace.Recorder`,
so a simulated run and a recorded one are framed by the same rules: facts
enter the state only from observations, a step completes only when its
observation establishes everything it produces, withdrawn facts leave the
state, and a fact contradicting a held one is a recorded conflict, never an
overwrite.

>>> from planviz.model import Plan, Step
>>> m = Machine(None)
>>> _ = m.propose(Plan("g", [Step("A", "a", expected_evidence="e", produces="x")]))
>>> _ = m.start("A")
>>> [e.kind for e in m.finish("A", Observation(True, {"x", "not y"}))]
['complete']
>>> m.run("recorded", ()).events[-1].statuses
{'A': 'done'}
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import networkx as nx

from .analysis import invalidated, reachable
from .errors import SimulationError
from .graph import to_graph
from .model import Contract, Plan

__all__ = [
    "SimulationError", "Fault", "Observation", "ExecutionState", "Conflict", "Event", "Run", "Machine",
    "FAULT_KINDS", "EVENT_KINDS", "OUTCOMES", "negation", "state_from_events",
]

FAULT_KINDS = ("transient", "tool_error", "withdraw", "side_effect", "missing_evidence", "goal_change",
               "premise_false", "extra_fact")
EVENT_KINDS = ("propose", "start", "complete", "fail", "retry", "withdraw", "invalidate", "conflict", "replan",
               "stop")
OUTCOMES = ("plan_complete", "blocked", "refused", "step_failed", "expected_evidence_missing", "premise_failed",
            "forbidden_state", "replan_limit", "no_new_route")


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
class Fault:
    """A fault to inject: ``kind`` at ``step``, affecting ``times`` attempts of it (and of its revisions).

    ``fact`` is the fact concerned: for ``withdraw`` the precondition found
    false (default: the step's first required fact), for ``premise_false``
    the premise (default: the plan's first), for ``extra_fact`` the unexpected
    fact (required), for ``missing_evidence`` the produced fact not observed
    (default: all of them).

    >>> Fault.parse("S1:transientx3")
    Fault(step='S1', kind='transient', fact=None, times=3)
    >>> str(Fault.parse("S3:withdraw:key_builder_located"))
    'S3:withdraw:key_builder_located'
    """

    step: str
    kind: str
    fact: str | None = None
    times: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.step, str) or not self.step:
            raise SimulationError(f"a fault needs a step id, got {self.step!r}")
        if self.kind not in FAULT_KINDS:
            raise SimulationError(f"unknown fault kind {self.kind!r} at {self.step!r}; "
                                  f"choose one of {', '.join(FAULT_KINDS)}")
        if self.fact is not None and (not isinstance(self.fact, str) or not self.fact):
            raise SimulationError(f"fault {self.step}:{self.kind}: fact must be a non-empty string, got {self.fact!r}")
        if isinstance(self.times, bool) or not isinstance(self.times, int) or self.times < 1:
            raise SimulationError(f"fault {self.step}:{self.kind}: times must be an integer >= 1, got {self.times!r}")
        if self.kind == "extra_fact" and self.fact is None:
            raise SimulationError(f"fault {self.step}:extra_fact needs the fact observed: "
                                  f"write {self.step}:extra_fact:FACT")

    @classmethod
    def parse(cls, text: str) -> Fault:
        """Read ``STEP:KIND[:FACT]``, with an optional ``xN`` repeat on the kind (``S1:transientx3``)
        or as a last segment (``S3:withdraw:fact:x2``). A fact is taken verbatim (it may hold colons).

        >>> Fault.parse("S3:withdraw:fact:x2").times
        2
        >>> Fault.parse("S4:explode")
        Traceback (most recent call last):
        ...
        planviz.errors.SimulationError: unknown fault kind 'explode' in 'S4:explode'; choose one of transient, tool_error, withdraw, side_effect, missing_evidence, goal_change, premise_false, extra_fact
        """
        if not isinstance(text, str) or ":" not in text:
            raise SimulationError(f"expected a fault as STEP:KIND[:FACT][xN] (e.g. 'S4:side_effect'), got {text!r}")
        step, _, rest = text.strip().partition(":")
        kind, _, fact = rest.partition(":")
        step, kind = step.strip(), kind.strip()
        times = 1
        m = re.fullmatch(r"(.*?)x(\d+)", kind)
        if kind not in FAULT_KINDS and m and m.group(1) in FAULT_KINDS:
            kind, times = m.group(1), int(m.group(2))
        last = re.fullmatch(r"(?:(.*):)?x(\d+)", fact)
        if last:
            fact, times = last.group(1) or "", int(last.group(2))
        if kind not in FAULT_KINDS:
            raise SimulationError(f"unknown fault kind {kind!r} in {text!r}; choose one of {', '.join(FAULT_KINDS)}")
        return cls(step, kind, fact or None, times)

    def __str__(self) -> str:
        text = f"{self.step}:{self.kind}" + (f":{self.fact}" if self.fact else "")
        if self.times != 1 or (self.fact and re.fullmatch(r"(?:.*:)?x\d+", self.fact)):  # "a:x2" needs ":x1"
            text += f":x{self.times}" if self.fact else f"x{self.times}"
        return text


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
    (fail: the failure class), ``voided``/``kept`` (invalidate: the ids voided
    and the verified work kept; replan: the ids the revision invalidated),
    ``observation`` (complete, fail), ``outcome`` (stop). ``conflicts`` holds
    every conflict recorded so far.
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
        elif e.kind == "invalidate":
            completed -= e.voided
        elif e.kind == "stop":
            outcome = e.outcome
        if e.observation is not None and e.step is not None:
            observations.append((e.step, e.observation))
    return ExecutionState(frozenset(completed), facts, tuple(observations), outcome)


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

    def to_text(self) -> str:
        """The event log, one line per event."""
        return "\n".join(f"{e.index:>3} t={e.time:g} v{e.plan_version} {e.kind:<10} {e.message}"
                         for e in self.events)


class Machine:
    """The run state machine: operations in, complete frames out. Not thread-safe; one per run."""

    def __init__(self, contract: Contract | None) -> None:
        self.contract = contract
        self.plan: Plan | None = None
        self.plans: list[Plan] = []
        self.events: list[Event] = []
        self.time = 0.0
        self.completed: set[str] = set()
        self.sources: dict[str, set[str]] = {}
        self.observations: list[tuple[str, Observation]] = []
        self.running: dict[str, int] = {}
        self.failed: set[str] = set()
        self.dead: set[str] = set()
        self.voided: set[str] = set()
        self.attempts: Counter[str] = Counter()
        self.conflicts: list[Conflict] = []
        self.outcome: str | None = None
        self._steps: tuple[Plan, list[tuple[str, tuple[str, ...], tuple[str, ...]]], Any, Any, set[str]] | None = None
        self._reach: tuple[Plan, frozenset[str], frozenset[str], frozenset[str], frozenset[str]] | None = None

    # ------------------------------------------------------------------ views
    @property
    def facts(self) -> frozenset[str]:
        return frozenset(self.sources)

    def state(self) -> ExecutionState:
        return ExecutionState(frozenset(self.completed), self.facts, tuple(self.observations), self.outcome)

    def _shape(self, plan: Plan) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
        if self._steps is None or self._steps[0] is not plan:
            first = {}
            for st in plan.steps:
                first.setdefault(st.id, (st.id, st.depends_on, st.requires))
            produced = {st.id: st.produces for st in reversed(plan.steps)}
            g = to_graph(plan)
            broken = {sid for sid, deps, _ in first.values() if any(d not in first for d in deps)}
            broken.update(*(nx.descendants(g, b) for b in list(broken)))  # they wait on a step that does not exist
            self._steps = (plan, list(first.values()), g, produced, broken)
        return self._steps[1]

    def _runnable(self, plan: Plan) -> Plan:
        """``plan`` without the steps that wait on an id it does not have (they stay blocked)."""
        self._shape(plan)
        broken = self._steps[4]  # type: ignore[index]
        return plan.replace(steps=tuple(st for st in plan.steps if st.id not in broken)) if broken else plan

    def _reachable(self, plan: Plan, done: frozenset[str], facts: frozenset[str]) -> frozenset[str]:
        """Reachable remaining steps, recomputed only when the state left the last closure.

        From the previous frame's state, completing reachable steps that
        established everything they produce, and gaining facts the closure
        already promised, cannot change the least fixed point: it is reused.
        Anything else (a fact lost, a step completed without its facts, an
        unexpected fact) recomputes it.
        """
        last = self._reach
        if last is not None and last[0] is plan and last[1] <= done and last[2] <= facts and facts <= last[3]:
            new = done - last[1]
            produced = self._steps[3]  # type: ignore[index]
            if new <= last[4] and all(set(produced[s]) <= facts for s in new):
                self._reach = (plan, done, facts, last[3], last[4] - new)
                return self._reach[4]
        reach = reachable(self._runnable(plan), done, facts)
        self._reach = (plan, done, facts, reach.facts | facts, reach.steps)
        return reach.steps

    def statuses(self) -> dict[str, str]:
        """Every step of the current plan version and its status."""
        plan = self.plan
        if plan is None:
            return {}
        shape = self._shape(plan)
        done = frozenset(sid for sid, _, _ in shape if sid in self.completed)
        facts = self.facts
        reach = self._reachable(plan, done, facts)
        doomed: set[str] = set(self._steps[4])  # type: ignore[index]
        if self.dead:
            g = self._steps[2]  # type: ignore[index]
            for d in self.dead:
                if d in g:
                    doomed |= nx.descendants(g, d)
        running, failed, voided = self.running, self.failed, self.voided
        out = {}
        for sid, deps, reqs in shape:
            if sid in done:
                out[sid] = "done"
            elif sid in running:
                out[sid] = "running"
            elif sid in failed:
                out[sid] = "failed"
            elif sid in voided:
                out[sid] = "invalidated"
            elif sid in doomed or sid not in reach:
                out[sid] = "blocked"
            elif all(d in done for d in deps) and all(f in facts for f in reqs):
                out[sid] = "ready"
            else:
                out[sid] = "pending"
        return out

    def ready(self) -> list[str]:
        """Ready step ids, lowest id first (every mutation emits a frame, so the last frame is current)."""
        return sorted(self.events[-1].ready) if self.events else []

    def _emit(self, kind: str, step: str | None, message: str, **extra: Any) -> Event:
        statuses = self.statuses()
        event = Event(index=len(self.events), time=self.time, kind=kind, step=step, message=message,
                      plan_version=self.plan.version if self.plan is not None else 0, statuses=statuses,
                      facts=self.facts, ready=frozenset(s for s, v in statuses.items() if v == "ready"),
                      conflicts=tuple(self.conflicts), **extra)
        self.events.append(event)
        return event

    def _stopped(self, verb: str | None = None, sid: str | None = None) -> None:
        if self.outcome is not None:
            raise SimulationError(f"the run already stopped ({self.outcome}); no event can follow the stop")
        if verb is not None and self.plan is None:
            raise SimulationError(f"cannot {verb} {sid!r}: no plan was proposed yet; record one with propose() first")

    # ------------------------------------------------------------- operations
    def propose(self, plan: Plan) -> Event:
        """The first plan of the run: given facts and premises are held from the start."""
        self._stopped()
        if self.plan is not None:
            raise SimulationError("a run starts with one proposed plan; record later versions as replans")
        for f in self.contract.given_facts if self.contract is not None else ():
            self.sources.setdefault(f, set()).add("given")
        for f in plan.premises:
            self.sources.setdefault(f, set()).add("premise")
        self.plan = plan
        self.plans.append(plan)
        return self._emit("propose", None, f"plan v{plan.version} proposed: {len(plan)} steps for {plan.goal!r}")

    def start(self, sid: str) -> Event:
        self._stopped("start", sid)
        self.attempts[sid] += 1
        self.running[sid] = self.attempts[sid]
        self.failed.discard(sid)
        self.voided.discard(sid)
        known = sid in self.plan
        what = "" if known else f" (not a step of plan v{self.plan.version})"
        return self._emit("start", sid, f"start {sid!r}, attempt {self.attempts[sid]}{what}",
                          attempt=self.attempts[sid])

    def finish(self, sid: str, obs: Observation, check_evidence: bool = True) -> list[Event]:
        """Apply a step's observation: complete or fail it, then its withdrawals and conflicts."""
        self._stopped("finish", sid)
        attempt = self.running.pop(sid, self.attempts[sid])
        self.observations.append((sid, obs))
        step = self.plan.step(sid) if self.plan is not None and sid in self.plan else None
        new_conflicts, accepted = [], []
        for f in sorted(obs.facts):
            held = self.sources.get(negation(f))
            if held and negation(f) not in obs.withdrawn:
                new_conflicts.append(Conflict(f, sid, negation(f), ", ".join(sorted(held))))
            else:
                accepted.append(f)
        for f in accepted:
            self.sources.setdefault(f, set()).add(sid)
        missing = [f for f in (step.produces if step else ()) if f not in accepted]
        events = []
        if obs.ok and (not missing or not check_evidence):
            self.completed.add(sid)
            produced = set(step.produces) if step else set(accepted)
            main = [f for f in accepted if f in produced]
            extra = [f for f in accepted if f not in produced]
            note = f"; also observed {', '.join(extra)}" if extra else ""
            events.append(self._emit("complete", sid, f"{sid!r} complete: {', '.join(main) or 'no facts'}{note}",
                                     attempt=attempt, observation=obs))
        else:
            self.failed.add(sid)
            if obs.ok:
                category, why = "evidence", f"its observation does not establish {', '.join(map(repr, missing))}"
            else:
                category, why = obs.kind, str(obs.data.get("message", obs.kind))
            events.append(self._emit("fail", sid, f"{sid!r} failed ({category}): {why}", attempt=attempt,
                                     category=category, observation=obs))
        if obs.withdrawn:
            events.append(self.withdraw(sid, obs.withdrawn))
        for c in new_conflicts:
            self.conflicts.append(c)
            events.append(self._emit("conflict", sid, f"conflict: {sid!r} observed {c.fact!r} but {c.contradicts!r} "
                                     f"is held (established by {c.verified_by}); neither is overwritten"))
        return events

    def withdraw(self, sid: str | None, facts: Iterable[str]) -> Event:
        facts = sorted(facts)
        for f in facts:
            self.sources.pop(f, None)
        who = f" by the observation of {sid!r}" if sid else ""
        return self._emit("withdraw", sid, f"withdrawn{who}: {', '.join(map(repr, facts))} no longer hold(s)")

    def fail(self, sid: str, message: str, category: str) -> Event:
        self._stopped("fail", sid)
        attempt = self.running.pop(sid, self.attempts[sid])
        self.failed.add(sid)
        return self._emit("fail", sid, message, attempt=attempt, category=category)

    def retry(self, sid: str, message: str) -> Event:
        self._stopped("retry", sid)
        self.failed.discard(sid)
        return self._emit("retry", sid, message, attempt=self.attempts[sid] + 1)

    def invalidate(self, sid: str | None, voided: Iterable[str], kept: Iterable[str], message: str) -> Event:
        """Void steps: they lose completion and every fact only they established; running ones are cancelled."""
        voided = set(voided)
        self._stopped("invalidate", ", ".join(sorted(voided)))
        self.completed -= voided
        self.failed -= voided
        for v in voided:
            self.running.pop(v, None)
        for f in list(self.sources):
            self.sources[f] -= voided
            if not self.sources[f]:
                del self.sources[f]
        self.voided |= voided
        return self._emit("invalidate", sid, message, voided=frozenset(voided), kept=frozenset(kept))

    def void_unreachable(self, sid: str) -> Event | None:
        """After ``sid``'s observation withdrew facts: invalidate the remaining steps no longer reachable."""
        plan = self.plan
        lost = invalidated(self._runnable(plan), self.state()) - self.failed - set(self.running) - self.voided
        if not lost:
            return None
        return self.invalidate(sid, lost, self.completed.intersection(plan.ids),
                               f"no longer reachable after the observation of {sid!r}: {', '.join(sorted(lost))}")

    def replan(self, plan: Plan, message: str) -> Event:
        """Switch to a new plan version; steps it drops stop running."""
        self._stopped()
        self.plan = plan
        self.plans.append(plan)
        ids = set(plan.ids)
        self.voided = set()
        self.failed &= ids
        self.dead &= ids
        for sid in [s for s in self.running if s not in ids]:
            del self.running[sid]
        return self._emit("replan", None, message, voided=frozenset(plan.invalidated))

    def stop(self, outcome: str, message: str, sid: str | None = None) -> Event:
        self._stopped()
        if outcome not in OUTCOMES:
            raise SimulationError(f"unknown outcome {outcome!r}; choose one of {', '.join(OUTCOMES)}")
        interrupted = sorted(self.running)
        self.running.clear()
        self.dead |= self.failed
        self.outcome = outcome
        if interrupted:
            message += f" (interrupted: {', '.join(interrupted)})"
        return self._emit("stop", sid, f"{outcome}: {message}", outcome=outcome)

    def run(self, strategy: str, faults: Iterable[Fault]) -> Run:
        events = tuple(self.events)
        return Run(events, self.outcome, state_from_events(events), tuple(self.plans), strategy, tuple(faults),
                   self.contract)
