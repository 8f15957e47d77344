"""The run state machine: operations in (propose, approve, start, finish, fail, retry, invalidate, recheck,
replan, expand, stop), events out, each holding what it changed.

:class:`Machine` is shared by the simulator (:mod:`planviz.runs.engine.simulation`) and by :class:`planviz.Recorder`,
so a simulated run and a recorded one are framed by the same rules: facts enter the state only from
observations, a step completes only when its observation establishes everything it produces, withdrawn
facts leave the state (a ``withdraw`` event), the earlier values an update replaced leave with the step's
own event, and a fact contradicting a held one is a recorded conflict, never an overwrite.

Each event holds what it changed; :class:`~planviz.runs.engine.ledger.Ledger` keeps
track of what the last event showed, so an event costs what it changed.

>>> from planviz import Plan, Step
>>> m = Machine(None)
>>> _ = m.propose(Plan("g", [Step("A", "a", expected_evidence="e", produces="x")]))
>>> _ = m.start("A")
>>> [e.kind for e in m.finish("A", Observation(True, {"x", "not y"}))]
['complete']
>>> m.run("recorded", ()).events[-1].changes
{'A': 'done'}
"""

from __future__ import annotations

from collections import Counter
from typing import AbstractSet, Any, Callable, Iterable, Mapping

from planviz.analysis.reach import invalidated
from planviz.errors import SimulationError
from planviz.plan.model import Contract, Plan, natural_key
from planviz.runs.engine.ledger import Ledger
from planviz.runs.engine.observed import (
    completion_message,
    failure_reason,
    missing_facts,
    sorted_facts,
    weigh,
)
from planviz.runs.engine.shape import Shape
from planviz.runs.events import (
    DERIVED,
    OUTCOMES,
    Conflict,
    Event,
    ExecutionState,
    Observation,
    Run,
    few_changes,
    new_event,
)
from planviz.runs.fault import Fault
from planviz.runs.statuslog import DoneSet

__all__ = ["Machine", "ProgressCallback"]

ProgressCallback = Callable[[str, int, "int | None"], None]
"""A progress callback: ``(what, done, total or None)``, called now and then during long work."""
_GIVEN, _PREMISE = ("given",), ("premise",)
_NONE: frozenset[str] = frozenset()


class Machine:
    """The run state machine: operations in, events out. Not thread-safe; one per run.

    Change the state only through the operations: they mark what each change
    may affect, which is how the next event knows what changed.
    """

    def __init__(self, contract: Contract | None, progress: ProgressCallback | None = None) -> None:
        self.contract = contract
        self.progress = progress
        self.plan: Plan | None = None
        self.plans: list[Plan] = []
        self.events: list[Event] = []
        self.time = 0.0
        self.completed: set[str] = set()
        # fact -> who established it (step ids, "given", "premise"; no repeats); one tuple stands for every fact a
        # source establishes at once (a tuple of one: a quarter of a frozenset's memory, one per step: issue 28)
        self.sources: dict[str, tuple[str, ...]] = {}
        self._negated = 0  # held facts that are negations ("not X"): while there are none, "X" contradicts nothing
        self.observations: list[tuple[str, Observation]] = []
        self.running: dict[str, int] = {}
        self.failed: set[str] = set()
        # steps paused for input (a human: a LangGraph interrupt), not failed
        self.waiting: set[str] = set()
        # steps running when the run stopped: they stay drawn as running
        self.interrupted: set[str] = set()
        self.dead: set[str] = set()
        self.voided: set[str] = set()
        # steps whose completed work an invalidation voided and no attempt has redone since: a later version can
        # take them back as done (a LangGraph fork onto an earlier branch, from a checkpoint after them)
        self.undone: set[str] = set()
        self._last_voided: frozenset[str] = _NONE  # the ids the last invalidation voided
        self.attempts: Counter[str] = Counter()
        self.conflicts: list[Conflict] = []
        self.outcome: str | None = None
        self._shape_of: Shape | None = (
            None  # the current plan version's shape, made when the version starts
        )
        self._ledger = Ledger()

    # ------------------------------------------------------------------ views
    @property
    def facts(self) -> frozenset[str]:
        return frozenset(self.sources)

    def state(self) -> ExecutionState:
        return ExecutionState(
            frozenset(self.completed), self.facts, tuple(self.observations), self.outcome
        )

    def statuses(self) -> dict[str, str]:
        """Every step of the current plan version and its status, as the last event left them."""
        return dict(self._ledger.status)

    def ready(self) -> list[str]:
        """Ready step ids, lowest id first (every mutation emits an event, so this is current)."""
        return list(self._ledger.ready_order)

    def order_key(self, sid: str) -> tuple[Any, ...]:
        """``natural_key(sid)``, made once while the step is ready or running: lower ids first."""
        return self._ledger.order_key(sid)

    # ------------------------------------------------------- marking changes
    def _touch(self, sid: str) -> None:
        self._ledger.touched[sid] = None

    def _gain(self, fact: str, source: str, alone: tuple[str] | None = None) -> None:
        """``source`` established ``fact``; ``alone``: ``(source,)``, when the caller has it."""
        held = self.sources.get(fact)
        if held is None:
            self.sources[fact] = alone if alone is not None else (source,)
            if fact.startswith("not "):
                self._negated += 1
            self._ledger.fact_changed(fact, self._shape_of, gained=True)
        elif source not in held:
            self.sources[fact] = (*held, source)

    def _lose(self, fact: str) -> None:
        if self.sources.pop(fact, None) is not None:
            if fact.startswith("not "):
                self._negated -= 1
            self._ledger.fact_changed(fact, self._shape_of, gained=False)

    def _unsource(self, gone: AbstractSet[str]) -> None:
        """The steps ``gone`` no longer vouch for anything: facts only they established leave the state."""
        sources = self.sources
        for f, held in list(sources.items()):
            if not gone.isdisjoint(held):
                rest = tuple(s for s in held if s not in gone)
                if rest:
                    sources[f] = rest
                else:
                    self._lose(f)

    def _emit(
        self,
        kind: str,
        step: str | None,
        message: str,
        *,
        attempt: int = 0,
        category: str | None = None,
        observation: Observation | None = None,
        voided: frozenset[str] = _NONE,
        kept: AbstractSet[str] = _NONE,
        outcome: str | None = None,
        conflict: Conflict | None = None,
    ) -> Event:
        """The next event: the statuses and facts changed since the last one, and the kind's own fields."""
        ledger = self._ledger
        changes: Mapping[str, str] = ledger.changes(self, self._shape_of)
        if type(changes) is dict and len(changes) < 3:
            changes = few_changes(changes)  # a third of the dict's memory (most events)
        # no fact changed since the last event (every start): nothing to compare
        if not ledger.facts_touched:
            gained = lost = _NONE
        # the facts it gained are often exactly the observation's: not copied
        elif observation is not None:
            gained, lost = ledger.fact_changes(self.sources, observation.facts)
        else:
            gained, lost = ledger.fact_changes(self.sources)
        plan = self.plan
        event = new_event(
            len(self.events),
            self.time,
            kind,
            step,
            message,
            0 if plan is None else plan.version,
            changes,
            gained,
            lost,
            voided,
            kept,
            attempt,
            category,
            observation,
            outcome,
            conflict,
        )
        self.events.append(event)
        if self.progress is not None and not event.index % 1024:
            self.progress(
                "simulating: steps done", len(self.completed), len(self.plan) if self.plan else None
            )
        return event

    def _stopped(self, verb: str | None = None, sid: str | None = None) -> None:
        if self.outcome is not None:
            raise SimulationError(
                f"the run already stopped ({self.outcome}); no event can follow the stop"
            )
        if verb is not None and self.plan is None:
            raise SimulationError(
                f"cannot {verb} {sid!r}: no plan was proposed yet; record one with propose() first"
            )

    def _current(self) -> tuple[Plan, Shape]:
        """The current plan version and its shape; callers have checked a plan was proposed."""
        if self.plan is None or self._shape_of is None:
            raise SimulationError("no plan was proposed yet; record one with propose() first")
        return self.plan, self._shape_of

    def _new_version(self, plan: Plan, feasible: bool = False, shape: Shape | None = None) -> None:
        self.plan = plan
        self.plans.append(plan)
        # a fork's version grows from the last one's shape
        self._shape_of = shape or Shape(plan, self._shape_of)
        self._ledger.new_version(self, self._shape_of, feasible)

    # ------------------------------------------------------------- operations
    def propose(self, plan: Plan, feasible: bool = False) -> Event:
        """The first plan of the run: given facts and premises are held from the start, except those a step
        of the plan produces (a plan cannot vouch for its own facts: they come from that step's observation).

        ``feasible``: the caller validated the plan (no error: every step can be reached from the given
        facts and premises), so the machine need not work that out again.
        """
        self._stopped()
        if self.plan is not None:
            raise SimulationError(
                "a run starts with one proposed plan; record later versions as replans"
            )
        self._new_version(plan, feasible)
        made = (
            {f for s in plan.steps for f in s.produces}
            if plan.premises or self.contract is not None
            else set()
        )
        for f in self.contract.given_facts if self.contract is not None else ():
            if f not in made:
                self._gain(f, "given", _GIVEN)
        for f in plan.premises:
            if f not in made:
                self._gain(f, "premise", _PREMISE)
        return self._emit(
            "propose", None, f"plan v{plan.version} proposed: {len(plan)} steps for {plan.goal!r}"
        )

    def start(self, sid: str) -> Event:
        if self.outcome is not None or self.plan is None:
            self._stopped("start", sid)
        attempt = self.attempts[sid] = self.attempts.get(sid, 0) + 1
        self.running[sid] = attempt
        if self.undone:
            self.undone.discard(sid)
        if self.failed or self.waiting or self.voided:  # mostly all empty
            self.failed.discard(sid)
            self.waiting.discard(sid)
            self.voided.discard(sid)
        self._ledger.touched[sid] = None
        shape = self._shape_of
        what = (
            ""
            if shape is not None and sid in shape.steps
            else f" (not a step of plan v{self._current()[0].version})"
        )
        # the usual message is made from the event's step and attempt when read (runs/events.DERIVED)
        message = f"start {sid!r}, attempt {attempt}{what}" if what else DERIVED
        return self._emit("start", sid, message, attempt=attempt)

    def finish(self, sid: str, obs: Observation, check_evidence: bool = True) -> list[Event]:
        """Apply a step's observation: complete or fail it, then its withdrawals and conflicts."""
        if self.outcome is not None or self.plan is None:
            self._stopped("finish", sid)
        attempt = self.running.pop(sid, None) or self.attempts[sid]
        self._ledger.touched[sid] = None
        self.observations.append((sid, obs))
        step = self._current()[1].steps.get(sid)
        order, same = sorted_facts(obs.facts, step)
        accepted, new_conflicts = weigh(sid, obs, order, self.sources, self._negated)
        alone = (sid,)
        replaced = sorted(obs.replaced - obs.facts) if obs.replaced else ()
        # an update: the earlier values leave with this event, no withdraw event
        any(map(self._lose, replaced))
        for f in accepted:
            self._gain(f, sid, alone)
        produced = step.produces if step else accepted
        # the facts are exactly the step's produces and none was refused: nothing missing, nothing extra
        exact = same and len(accepted) == len(order)
        missing = [] if exact or not step else missing_facts(produced, accepted)
        events = []
        if obs.ok and (not missing or not check_evidence):
            self.completed.add(sid)
            self._ledger.completed(sid, self._shape_of)
            message = completion_message(sid, obs, accepted, produced, replaced, exact)
            events.append(self._emit("complete", sid, message, attempt=attempt, observation=obs))
        else:
            self.failed.add(sid)
            category, why = failure_reason(obs, missing)
            events.append(
                self._emit(
                    "fail",
                    sid,
                    f"{sid!r} failed ({category}): {why}",
                    attempt=attempt,
                    category=category,
                    observation=obs,
                )
            )
        if obs.withdrawn:
            events.append(self.withdraw(sid, obs.withdrawn))
        for c in new_conflicts:
            self.conflicts.append(c)
            events.append(
                self._emit(
                    "conflict",
                    sid,
                    f"conflict: {sid!r} observed {c.fact!r} but {c.contradicts!r} "
                    f"is held (established by {c.verified_by}); neither is overwritten",
                    conflict=c,
                )
            )
        return events

    def withdraw(self, sid: str | None, facts: Iterable[str]) -> Event:
        facts = sorted(facts)
        for f in facts:
            self._lose(f)
        who = f" by the observation of {sid!r}" if sid else ""
        return self._emit(
            "withdraw", sid, f"withdrawn{who}: {', '.join(map(repr, facts))} no longer hold(s)"
        )

    def fail(self, sid: str, message: str, category: str) -> Event:
        self._stopped("fail", sid)
        attempt = self.running.pop(sid, self.attempts[sid])
        self.failed.add(sid)
        self._touch(sid)
        return self._emit("fail", sid, message, attempt=attempt, category=category)

    def wait(self, sid: str, message: str) -> Event:
        """A running step pauses to wait for input (a human answering an interrupt): status ``waiting``, not
        failed; it runs again when resumed (``retry``, then ``start``)."""
        self._stopped("wait", sid)
        attempt = self.running.pop(sid, self.attempts[sid])
        self.waiting.add(sid)
        self._touch(sid)
        return self._emit("wait", sid, message, attempt=attempt)

    def retry(self, sid: str, message: str) -> Event:
        self._stopped("retry", sid)
        self.failed.discard(sid)
        self.waiting.discard(sid)
        self._touch(sid)
        return self._emit("retry", sid, message, attempt=self.attempts[sid] + 1)

    def began(self, ids: Iterable[str]) -> set[str]:
        """The steps of ``ids`` that started (or finished) at some point of the run: the only ones with work a
        failure can void. A step that never started has nothing to void; it stays pending or blocked."""
        scope: AbstractSet[str] = ids if isinstance(ids, (set, frozenset)) else set(ids)
        # in bulk (a fork's scope is every step of its abandoned branch): the ids attempted (an attempt count of
        # 0 is none), then those completed, failed, waiting or voided
        began: set[str] = set(filter(self.attempts.get, scope))  # in C, the scope's ids only
        began.update(
            *[
                few & scope
                for few in (self.completed, self.failed, self.waiting, self.voided)
                if few
            ]
        )
        return began

    def invalidate(
        self, sid: str | None, voided: Iterable[str], kept: Iterable[str], message: str
    ) -> Event:
        """Void steps: they lose completion and every fact only they established; running ones are cancelled.

        Only steps that started are voided (:meth:`began`); the message names the others in the failure's
        scope as never run, and their status stays what their inputs make it (pending, blocked).
        """
        scope = set(voided)
        if self.outcome is not None or self.plan is None:  # the ids sorted for the message only
            self._stopped("invalidate", ", ".join(sorted(scope)))
        voided = self.began(scope)
        never = sorted(scope - voided, key=natural_key)
        if never:
            message += f"; never ran, so nothing to void: {', '.join(never)}"
        self.undone |= voided & self.completed
        self.completed -= voided
        self.failed -= voided
        self.waiting -= voided
        for v in voided.intersection(self.running) if self.running else ():
            del self.running[v]
        self._unsource(voided)
        newly = voided - self.voided
        self.voided |= voided
        self._ledger.everything(voided, newly)
        held = kept if isinstance(kept, (frozenset, DoneSet)) else frozenset(kept)
        # a replan that retires the same ids next (a LangGraph fork) shares the set
        self._last_voided = frozenset(voided)
        return self._emit("invalidate", sid, message, voided=self._last_voided, kept=held)

    def void_unreachable(self, sid: str) -> Event | None:
        """After ``sid``'s observation withdrew facts: invalidate the remaining steps no longer reachable."""
        plan, shape = self._current()
        lost = (
            self.began(invalidated(shape.runnable, self.state()))
            - self.failed
            - set(self.running)
            - self.voided
        )
        if not lost:
            return None  # the steps no longer reachable never ran: they show as blocked, nothing is voided
        return self.invalidate(
            sid,
            lost,
            self.completed.intersection(plan.ids),
            f"no longer reachable after the observation of {sid!r}: {', '.join(sorted(lost))}",
        )

    def recheck(self, sid: str, keep: bool, message: str) -> Event:
        """A completed step re-checked against a changed goal: kept, or voided (its facts leave the state)."""
        self._stopped("recheck", sid)
        if not keep:
            self.completed.discard(sid)
            self._unsource({sid})
            self.voided.add(sid)
            self._ledger.everything({sid})
        one = frozenset((sid,))
        return self._emit(
            "recheck",
            sid,
            message,
            voided=frozenset() if keep else one,
            kept=one if keep else frozenset(),
        )

    def approve(self, sid: str | None, granted: bool, message: str) -> Event:
        """The approval a step waits for before it starts (None: the whole write plan): granted, or denied."""
        self._stopped("approve", sid)
        return self._emit("approval", sid, message, category="granted" if granted else "denied")

    def expand(self, plan: Plan, far: str, message: str) -> Event:
        """A far-horizon step replaced by its concrete steps: ``plan`` is the new version."""
        self._switch(plan)
        return self._emit("expand", far, message)

    def kept(self, voided: Iterable[str]) -> AbstractSet[str]:
        """The steps of the current version completed, but ``voided``: the work an invalidation keeps."""
        return self._ledger.kept(self, self._current()[1], frozenset(voided))

    def replan(
        self, plan: Plan, message: str, given: Iterable[str] = (), restored: Iterable[str] = ()
    ) -> Event:
        """Switch to a new plan version; steps it drops stop running. ``given``: facts a new contract gives.

        ``restored``: steps of ``plan`` whose work holds again (a LangGraph fork from a checkpoint of an earlier,
        abandoned branch: the node runs on the path to that checkpoint); those whose completed work an
        invalidation voided, and that no attempt redid since, are done again (not their facts: the facts held
        stay what the observations left), and the event's ``kept``. Any other stays what its inputs make it."""
        for f in given:
            self._gain(f, "given", _GIVEN)
        # the ids it retires that never ran were not voided
        began = self.began(plan.invalidated)
        # the ids the invalidation before it voided, one set held for both events (a fork voids a whole branch)
        last = self._last_voided
        voided = last if len(last) == len(began) and last == began else frozenset(began)
        self._switch(plan)
        back = frozenset(self.undone.intersection(restored)) if self.undone else _NONE
        if back:
            self.undone -= back
            self.completed |= back
        return self._emit("replan", None, message, voided=voided, kept=back)

    def _switch(self, plan: Plan) -> None:
        self._stopped()
        # the last version's shape is consumed when it grows from it
        shape = Shape(plan, self._shape_of)
        # the few failed, waiting and dead steps are looked up in it: no set of every id made
        ids = shape.steps
        self.voided = set()
        for few in (self.failed, self.waiting, self.dead):
            few.difference_update([s for s in few if s not in ids])
        for sid in [s for s in self.running if s not in ids]:
            del self.running[sid]
        self._new_version(plan, shape=shape)

    def stop(
        self, outcome: str, message: str, sid: str | None = None, category: str | None = None
    ) -> Event:
        self._stopped()
        if outcome not in OUTCOMES:
            raise SimulationError(
                f"unknown outcome {outcome!r}; choose one of {', '.join(OUTCOMES)}"
            )
        interrupted = sorted(self.running)
        self.interrupted.update(interrupted)
        self.running.clear()
        self.dead |= self.failed
        self.outcome = outcome
        for stopped in interrupted:
            self._ledger.touch(stopped)
        if self.plan is not None:
            # and what follows the failed steps can never run
            self._ledger.doom(self, self._current()[1])
        if interrupted:
            message += f" (interrupted: {', '.join(interrupted)})"
        return self._emit("stop", sid, f"{outcome}: {message}", outcome=outcome, category=category)

    def final_run(self, strategy: str, faults: Iterable[Fault]) -> Run:
        """:meth:`run` for a machine played to its end and used no more: the tables that told each event what
        changed (the ledger, the version's shape) are let go first, and each working list or set once its
        frozen copy is made, so the run's values are not built beside them (issue 43's peak)."""
        self._ledger = Ledger()
        self._shape_of = None
        events = tuple(self.events)
        self.events.clear()
        completed = frozenset(self.completed)
        self.completed.clear()
        facts = frozenset(self.sources)
        self.sources.clear()
        observations = tuple(self.observations)
        self.observations.clear()
        state = ExecutionState(completed, facts, observations, self.outcome)
        return Run(
            events, self.outcome, state, tuple(self.plans), strategy, tuple(faults), self.contract
        )

    def run(self, strategy: str, faults: Iterable[Fault]) -> Run:
        return Run(
            tuple(self.events),
            self.outcome,
            self.state(),
            tuple(self.plans),
            strategy,
            tuple(faults),
            self.contract,
        )
