"""Runs: a deterministic simulation of a plan with injected faults, scoped recovery and replanning.

Roles stay separate. The planner proposes plan versions; the executor performs
one ready step; the observer turns what the step reported into an
:class:`Observation` (facts established, facts withdrawn); the controller
decides what happens next, using the failure scopes of
:func:`planviz.failure_scope`. Every :class:`Event` of the resulting
:class:`Run` is a complete frame (statuses of every step of its plan version,
facts, ready set, clock), so a viewer can jump anywhere.

The worked example: a side effect found while verifying (S4) voids the patch
S3 and its verification, and only those are redone; S0, S1 and S2 are kept.

>>> from planviz import examples
>>> run = simulate(examples.load("cache_isolation"), faults=[Fault.parse("S4:side_effect")])
>>> run.outcome, run.plans[-1].ids
('plan_complete', ('S0', 'S1', 'S2', 'S3.v2', 'S4.v2'))
>>> [e.step for e in run.events if e.kind == "start"]
['S0', 'S1', 'S2', 'S3', 'S4', 'S3.v2', 'S4.v2']
>>> sorted(next(e for e in run.events if e.kind == "invalidate").kept)
['S0', 'S1', 'S2']

Strategies, on the same faults (see :func:`simulate`):

============================  ======  ========  =======
check                         direct  workflow  planner
============================  ======  ========  =======
plan validated first          no      no        yes
only ready steps start        no      yes       yes
produced facts checked        no      yes       yes
transient failures retried    no      yes       yes
premises, forbidden states    no      no        yes
scoped recovery, replanning   no      no        yes
============================  ======  ========  =======

Withdrawn facts, the resulting invalidation and conflicts are the observer's
work and are recorded under every strategy.

What each fault kind makes the step's observation say, and what the planner
does about it (workflow retries transient failures and otherwise stops with
``step_failed``; direct records the failure and runs the next step):

=================  ===========================================  ==============================================
fault              observation                                  planner
=================  ===========================================  ==============================================
transient          failed, kind ``transient``                   retry up to ``max_retries`` if :func:`idempotent`
tool_error         failed, kind ``tool_error``                  ``step_failed`` (the executor's error)
withdraw           failed, the precondition fact withdrawn      return to its producer, replan (given: blocked)
side_effect        failed, kind ``side_effect``                 void the patch subgraph, replan
missing_evidence   ok, without the produced fact(s)             ``expected_evidence_missing``
goal_change        failed, kind ``goal_change``                 void all not completed, replan
premise_false      ok, the premise withdrawn                    ``premise_failed``
extra_fact         ok, plus the fact                            ``not X`` against a held ``X``: conflict, then
                                                                return to X's producer; a forbidden state:
                                                                ``forbidden_state``
=================  ===========================================  ==============================================

Premises and the contract's given facts are held from the start (validation
treats them as given); every other fact comes from an observation.
"""

from __future__ import annotations

import heapq
from collections import Counter
from operator import attrgetter
from typing import Callable, Iterable

from ..analysis.scope import failure_scope
from ..checks.validation import refusal
from ..errors import SimulationError
from ..plan.lineage import lineage_roots, versions
from ..plan.model import Contract, Plan, Step
from ..structure.index import paused_gc
from .events import ExecutionState, Observation, Run, negation
from .fault import Fault
from .machine import Machine, ProgressCallback
from .revision import changed_completed, complete_revision, redundant_work, reissue

__all__ = ["simulate", "idempotent", "STRATEGIES"]

STRATEGIES = ("direct", "workflow", "planner")

_by_id = attrgetter("id")

Proposer = Callable[[str, "Contract | None", ExecutionState, Plan], Plan]


def idempotent(step: Step, contract: Contract | None = None) -> bool:
    """Whether a transient failure of ``step`` may simply be retried.

    A step that writes nothing is safe to retry. A step that writes (it holds
    ``resources``, or its tool is registered as writing) is retried only when
    it has a ``rollback`` to undo a half-done attempt first.

    >>> idempotent(Step("S3", "patch", resources=["keys.py"])), idempotent(Step("S1", "locate"))
    (False, True)
    """
    spec = contract.tools.get(step.tool) if contract is not None and step.tool else None
    writes = bool(step.resources) or bool(spec is not None and spec.writes)
    return not writes or bool(step.rollback)


def simulate(plan: Plan, contract: Contract | None = None, faults: Iterable[Fault] = (), workers: int | None = None,
             strategy: str = "planner", propose: Proposer | None = None, *,
             progress: ProgressCallback | None = None) -> Run:
    """Run ``plan`` on its durations, with ``faults`` injected, under ``strategy``; deterministic.

    A discrete-event simulation: ready steps start (lowest id first when
    ``workers`` limits them), each finishes after its ``duration``,
    simultaneous finishes are handled in id order. A fault affects the first
    ``times`` attempts of its step and of the revisions of that step.
    ``contract`` defaults to ``plan.contract``; its ``given_facts`` and the
    plan's premises are held from the start, its ``max_retries`` and
    ``max_replans`` cap recovery (defaults 2 and 2). ``propose(goal, contract,
    state, plan) -> Plan`` replaces the default replanner (:func:`reissue`).
    ``progress(what, done, total)`` is called every 1,024 events (the command
    line shows it on a terminal: :class:`planviz.frontends.terminal.Progress`).

    >>> from planviz import examples
    >>> plan = examples.load("cache_isolation")
    >>> simulate(plan).events[-1].time
    29.0
    >>> simulate(plan, workers=1).events[-1].time
    32.0
    >>> run = simulate(plan, faults=[Fault("S1", "transient", times=3)])
    >>> run.outcome, [e.kind for e in run.events].count("retry")
    ('step_failed', 2)
    """
    if strategy not in STRATEGIES:
        raise SimulationError(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise SimulationError(f"workers must be None (unlimited) or an integer >= 1, got {workers!r}")
    contract = contract if contract is not None else plan.contract
    if isinstance(faults, (str, Fault)):
        one = f"Fault.parse({faults!r})" if isinstance(faults, str) else repr(faults)
        raise SimulationError(f"faults must be a list of Fault values, got {faults!r}; write faults=[{one}]")
    faults = tuple(faults)
    for f in faults:
        if not isinstance(f, Fault):
            raise SimulationError(f"expected Fault values, got {f!r}; build one with Fault.parse('S4:side_effect')")
    return _Simulation(plan, contract, faults, workers, strategy, propose, progress).run()


def _fact_for(plan: Plan, fault: Fault) -> str | None:
    """The fact a fault concerns, with its default; raises when it has none."""
    step = plan.step(fault.step) if fault.step in plan else None
    if step is None:
        revised = {s.revises for s in plan.steps}
        if fault.step not in revised:
            plan.step(fault.step)  # raises UnknownStepError naming the valid ids
    if fault.fact is not None:
        if fault.kind == "premise_false" and fault.fact not in plan.premises:
            raise SimulationError(f"fault {str(fault)!r}: {fault.fact!r} is not a premise of the plan; "
                                  f"its premises are {list(plan.premises)!r}")
        if fault.kind == "missing_evidence" and step is not None and fault.fact not in step.produces:
            raise SimulationError(f"fault {str(fault)!r}: {fault.step!r} does not produce {fault.fact!r}; "
                                  f"it produces {list(step.produces)!r}")
        return fault.fact
    if fault.kind not in ("withdraw", "premise_false"):
        return None
    if fault.kind == "withdraw":
        if step is None or not step.requires:
            raise SimulationError(f"fault {str(fault)!r}: step {fault.step!r} requires no fact to withdraw; "
                                  f"name one as {fault.step}:withdraw:FACT")
        return step.requires[0]
    if not plan.premises:
        raise SimulationError(f"fault {str(fault)!r}: the plan has no premise to falsify; "
                              f"name one as {fault.step}:premise_false:FACT")
    return plan.premises[0]


class _Simulation:
    """One simulated run: the controller around a :class:`Machine`."""

    def __init__(self, plan: Plan, contract: Contract | None, faults: tuple[Fault, ...], workers: int | None,
                 strategy: str, propose: Proposer | None, progress: ProgressCallback | None = None) -> None:
        self.plan, self.contract = plan, contract
        self.faults, self.workers, self.strategy, self.propose = faults, workers, strategy, propose
        self.limits = contract if contract is not None else Contract()
        self.left = [f.times for f in faults]
        self.fact_of = [_fact_for(plan, f) for f in faults]
        self.root = lineage_roots(versions(plan))
        self.m = Machine(contract, progress)
        self.heap: list[tuple[float, str, int]] = []
        self.retries: Counter[str] = Counter()
        self.replans = 0

    def run(self) -> Run:
        m = self.m
        with paused_gc():  # many small acyclic objects: no full collections of the heap while they pile up
            why = refusal(self.plan, self.contract) if self.strategy == "planner" else None
            m.propose(self.plan, feasible=self.strategy == "planner" and why is None)
            if why is not None:
                m.stop("refused", f"the plan is refused before anything runs: {why}")
            elif self.strategy == "direct":
                self._direct()
            else:
                self._scheduled()
            return m.run(self.strategy, self.faults)

    # ----------------------------------------------------------- faults
    def _observe(self, step: Step) -> Observation:
        """The observation of one attempt of ``step``: the first fault naming it (or its original) with
        attempts left, else a clean success."""
        names = (step.id, self.root.get(step.id, step.id))
        hit = next((i for i, f in enumerate(self.faults) if self.left[i] > 0 and f.step in names), None)
        produced = frozenset(step.produces)
        if hit is None:
            return Observation(True, produced)
        self.left[hit] -= 1
        fault, fact = self.faults[hit], self.fact_of[hit]
        data = {"fault": str(fault)}
        kind = fault.kind
        if kind == "transient":
            return Observation(False, kind="transient", data={**data, "message": "timed out; may pass on retry"})
        if kind == "tool_error":
            return Observation(False, kind="tool_error", data={**data, "message": f"tool {step.tool!r} errored"})
        if kind == "withdraw":
            return Observation(False, withdrawn={fact}, kind="precondition",
                               data={**data, "message": f"precondition {fact!r} does not hold"})
        if kind == "side_effect":
            return Observation(False, kind="side_effect",
                               data={**data, "message": "its check shows an earlier change broke something"})
        if kind == "goal_change":
            return Observation(False, kind="goal_change", data={**data, "message": "the goal is no longer the same"})
        if kind == "missing_evidence":
            return Observation(True, produced - {fact} if fact else frozenset(), data=data)
        if kind == "premise_false":
            return Observation(True, produced, withdrawn={fact}, kind="premise_false", data=data)
        return Observation(True, produced | {fact}, data=data)  # extra_fact

    # ----------------------------------------------------------- direct
    def _direct(self) -> None:
        m = self.m
        for step in self.plan.steps:
            m.start(step.id)
            m.time += step.duration
            unmet = [f"dependency {d!r} not done" for d in step.depends_on if d not in m.completed]
            unmet += [f"fact {f!r} not held" for f in step.requires if f not in m.sources]
            if unmet:
                m.fail(step.id, f"{step.id!r} ran with unmet preconditions: {'; '.join(unmet)}", "unmet_precondition")
                continue
            obs = self._observe(step)
            m.finish(step.id, obs, check_evidence=False)
            if obs.withdrawn:
                self.m.void_unreachable(step.id)
        done = all(s in m.completed for s in self.plan.ids)
        m.stop("plan_complete" if done else "step_failed",
               "every step ran" if done else f"steps not done: {', '.join(s for s in self.plan.ids if s not in m.completed)}")

    # ------------------------------------------------------- scheduled
    def _scheduled(self) -> None:
        m = self.m
        while m.outcome is None:
            ready = m.ready()
            free = len(ready) if self.workers is None else max(0, self.workers - len(m.running))
            for sid in ready[:free]:
                m.start(sid)
                heapq.heappush(self.heap, (m.time + self.plan.step(sid).duration, sid, m.running[sid]))
            if not self.heap:
                self._idle()
                return
            t = self.heap[0][0]
            batch = []
            while self.heap and self.heap[0][0] == t:
                batch.append(heapq.heappop(self.heap))
            m.time = t
            for _, sid, token in batch:
                if m.outcome is not None:
                    return
                if m.running.get(sid) == token:
                    self._finish(sid)

    def _idle(self) -> None:
        m = self.m
        left = [s for s in dict.fromkeys(self.plan.ids) if s not in m.completed]
        if not left:
            m.stop("plan_complete", f"every step of plan v{self.plan.version} is done")
        else:
            m.stop("blocked", f"nothing is ready or running; not done: {', '.join(left)}")

    def _finish(self, sid: str) -> None:
        m, step, planner = self.m, self.plan.step(sid), self.strategy == "planner"
        obs = self._observe(step)
        before = len(m.conflicts)
        events = m.finish(sid, obs)
        new_conflicts = m.conflicts[before:]
        if planner:
            premises = set(self.plan.premises)
            false = sorted((obs.withdrawn & premises) | {negation(f) for f in obs.facts if negation(f) in premises}
                           ) if premises else ()
            if false:
                m.stop("premise_failed", f"{sid!r} falsified the premise {false[0]!r}; stopping before more work "
                       "is spent", sid)
                return
            forbidden = sorted(obs.facts.intersection(self.limits.forbidden_states))
            if forbidden:
                m.stop("forbidden_state", f"{sid!r} established the forbidden state {forbidden[0]!r}", sid)
                return
        if sid in m.completed:
            if planner and new_conflicts:
                c = new_conflicts[0]
                self._recover(sid, "precondition", c.contradicts,
                              f"{sid!r} observed {c.fact!r}, contradicting {c.contradicts!r} ({c.verified_by})")
            elif obs.withdrawn:
                self.m.void_unreachable(sid)
            return
        category = next(e.category for e in events if e.kind == "fail")
        if category == "evidence":
            m.stop("expected_evidence_missing", f"{sid!r} did not establish what it produces", sid)
        elif category == "transient":
            self._retry(step)
        elif category == "tool_error" or not planner:
            if obs.withdrawn:
                self.m.void_unreachable(sid)
            m.stop("step_failed", f"{sid!r} failed ({category}) and the {self.strategy} strategy does not "
                   "recover from that", sid)
        else:
            fact = sorted(obs.withdrawn)[0] if obs.withdrawn else None
            self._recover(sid, category, fact, f"{category} at {sid!r}: {obs.data.get('message', category)}")

    def _retry(self, step: Step) -> None:
        m, sid = self.m, step.id
        if not idempotent(step, self.contract):
            m.stop("step_failed", f"{sid!r} failed transiently but is not safe to retry: it writes "
                   f"({', '.join(step.resources) or step.tool}) and has no rollback", sid)
        elif self.retries[sid] >= self.limits.max_retries:
            tries = self.retries[sid] + 1
            m.stop("step_failed", f"{sid!r} failed {'once' if tries == 1 else f'{tries} times'}; retries are capped "
                   f"at max_retries={self.limits.max_retries}", sid)
        else:
            self.retries[sid] += 1
            why = (failure_scope(self.plan, sid, "transient", state=m.state()).message
                   if self.strategy == "planner" else f"transient failure at {sid!r}: retry it")
            m.retry(sid, f"{why} (retry {self.retries[sid]} of {self.limits.max_retries})")

    def _recover(self, sid: str, category: str, fact: str | None, trigger: str) -> None:
        m, plan = self.m, self.plan
        scope = failure_scope(plan, sid, category, fact=fact, state=m.state())
        if scope.action == "blocked":
            m.invalidate(sid, scope.voided - {sid}, scope.kept, scope.message)
            m.stop("blocked", f"no step can restore {scope.blocked_fact!r}", sid)
            return
        m.invalidate(sid, scope.voided, scope.kept, scope.message)
        if self.replans >= self.limits.max_replans:
            m.stop("replan_limit", f"a revision is needed but the run already made {self.replans} "
                   f"(max_replans={self.limits.max_replans})", sid)
            return
        voided = set(scope.voided)
        if self.propose is None:
            new = reissue(plan, voided, trigger)
        else:
            proposed = self.propose(plan.goal, self.contract, m.state(), plan)
            if not isinstance(proposed, Plan):
                raise SimulationError(f"propose() must return a Plan, got {proposed!r}")
            new = complete_revision(plan, proposed, trigger, voided)
        if sorted(new.steps, key=_by_id) == sorted(plan.steps, key=_by_id):  # file order carries no meaning
            m.stop("no_new_route", f"the replanner proposed the same steps as plan v{plan.version} "
                   f"(trigger: {trigger})", sid)
            return
        changed = changed_completed(plan, new, m.completed)
        if changed:
            m.stop("refused", f"revision v{new.version} redefines completed steps {', '.join(changed)}", sid)
            return
        why = refusal(new, self.contract)
        if why is not None:
            m.stop("refused", f"revision v{new.version} is refused: {why}", sid)
            return
        redundant = redundant_work(m.state(), new)
        self.replans += 1
        self.root = lineage_roots(versions(new))
        self.plan = new
        note = f"; redundant (facts already held): {', '.join(redundant)}" if redundant else ""
        m.replan(new, f"plan v{new.version} after {trigger}: voids {', '.join(new.invalidated) or 'nothing'}{note}")
