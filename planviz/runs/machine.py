"""The run state machine: operations in (propose, approve, start, finish, fail, retry, invalidate, recheck,
replan, expand, stop), complete frames out.

:class:`Machine` is shared by the simulator (:mod:`planviz.runs.simulation`) and by
:class:`planviz.Recorder`,
so a simulated run and a recorded one are framed by the same rules: facts
enter the state only from observations, a step completes only when its
observation establishes everything it produces, withdrawn facts leave the
state, and a fact contradicting a held one is a recorded conflict, never an
overwrite.

>>> from planviz import Plan, Step
>>> m = Machine(None)
>>> _ = m.propose(Plan("g", [Step("A", "a", expected_evidence="e", produces="x")]))
>>> _ = m.start("A")
>>> [e.kind for e in m.finish("A", Observation(True, {"x", "not y"}))]
['complete']
>>> m.run("recorded", ()).events[-1].statuses
{'A': 'done'}
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

from ..analysis.reach import invalidated, reachable
from ..errors import SimulationError
from ..plan.model import Contract, Plan
from ..structure.index import structure_index
from .events import OUTCOMES, Conflict, Event, ExecutionState, Observation, Run, negation, state_from_events
from .fault import Fault

__all__ = ["Machine"]


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
        self._shape_of: _Shape | None = None
        self._reach: tuple[Plan, frozenset[str], frozenset[str], frozenset[str], frozenset[str]] | None = None

    # ------------------------------------------------------------------ views
    @property
    def facts(self) -> frozenset[str]:
        return frozenset(self.sources)

    def state(self) -> ExecutionState:
        return ExecutionState(frozenset(self.completed), self.facts, tuple(self.observations), self.outcome)

    def _shape(self, plan: Plan) -> _Shape:
        if self._shape_of is None or self._shape_of.plan is not plan:
            self._shape_of = _Shape(plan)
        return self._shape_of

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
            steps = self._shape(plan).ix.steps
            if new <= last[4] and all(set(steps[s].produces) <= facts for s in new):
                self._reach = (plan, done, facts, last[3], last[4] - new)
                return self._reach[4]
        reach = reachable(self._shape(plan).runnable, done, facts)
        self._reach = (plan, done, facts, reach.facts | facts, reach.steps)
        return reach.steps

    def statuses(self) -> dict[str, str]:
        """Every step of the current plan version and its status."""
        plan = self.plan
        if plan is None:
            return {}
        shape = self._shape(plan)
        steps = shape.ix.steps
        done = frozenset(sid for sid in steps if sid in self.completed)
        facts = self.facts
        reach = self._reachable(plan, done, facts)
        doomed: set[str] = shape.broken
        if self.dead:
            doomed = doomed | shape.ix.descendants(self.dead.intersection(steps))
        running, failed, voided = self.running, self.failed, self.voided
        out = {}
        for sid, st in steps.items():
            deps, reqs = st.depends_on, st.requires
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
        lost = invalidated(self._shape(plan).runnable, self.state()) - self.failed - set(self.running) - self.voided
        if not lost:
            return None
        return self.invalidate(sid, lost, self.completed.intersection(plan.ids),
                               f"no longer reachable after the observation of {sid!r}: {', '.join(sorted(lost))}")

    def recheck(self, sid: str, keep: bool, message: str) -> Event:
        """A completed step re-checked against a changed goal: kept, or voided (its facts leave the state)."""
        self._stopped("recheck", sid)
        if not keep:
            self.completed.discard(sid)
            for f in list(self.sources):
                self.sources[f].discard(sid)
                if not self.sources[f]:
                    del self.sources[f]
            self.voided.add(sid)
        one = frozenset((sid,))
        return self._emit("recheck", sid, message, voided=frozenset() if keep else one, kept=one if keep else frozenset())

    def approve(self, sid: str, granted: bool, message: str) -> Event:
        """The approval a step waits for before it starts: granted, or denied."""
        self._stopped("approve", sid)
        return self._emit("approval", sid, message, category="granted" if granted else "denied")

    def expand(self, plan: Plan, far: str, message: str) -> Event:
        """A far-horizon step replaced by its concrete steps: ``plan`` is the new version."""
        self._switch(plan)
        return self._emit("expand", far, message)

    def replan(self, plan: Plan, message: str, given: Iterable[str] = ()) -> Event:
        """Switch to a new plan version; steps it drops stop running. ``given``: facts a new contract gives."""
        for f in given:
            self.sources.setdefault(f, set()).add("given")
        self._switch(plan)
        return self._emit("replan", None, message, voided=frozenset(plan.invalidated))

    def _switch(self, plan: Plan) -> None:
        self._stopped()
        self.plan = plan
        self.plans.append(plan)
        ids = set(plan.ids)
        self.voided = set()
        self.failed &= ids
        self.dead &= ids
        for sid in [s for s in self.running if s not in ids]:
            del self.running[sid]

    def stop(self, outcome: str, message: str, sid: str | None = None, category: str | None = None) -> Event:
        self._stopped()
        if outcome not in OUTCOMES:
            raise SimulationError(f"unknown outcome {outcome!r}; choose one of {', '.join(OUTCOMES)}")
        interrupted = sorted(self.running)
        self.running.clear()
        self.dead |= self.failed
        self.outcome = outcome
        if interrupted:
            message += f" (interrupted: {', '.join(interrupted)})"
        return self._emit("stop", sid, f"{outcome}: {message}", outcome=outcome, category=category)

    def run(self, strategy: str, faults: Iterable[Fault]) -> Run:
        events = tuple(self.events)
        return Run(events, self.outcome, state_from_events(events), tuple(self.plans), strategy, tuple(faults),
                   self.contract)


class _Shape:
    """What the machine needs of one plan version: its index, and the steps that wait on an id it lacks."""

    __slots__ = ("plan", "ix", "broken", "runnable")

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        ix = self.ix = structure_index(plan)
        waiting = {sid for sid, s in ix.steps.items() if any(d not in ix.steps for d in s.depends_on)}
        self.broken: set[str] = ix.descendants(waiting) if waiting else set()  # they wait on a missing step
        self.runnable = (plan.replace(steps=tuple(st for st in plan.steps if st.id not in self.broken))
                         if self.broken else plan)
