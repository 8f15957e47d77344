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

Strategies (``direct``, ``workflow``, ``planner``) are compared in :mod:`planviz.runs.engine.strategies`. Whatever
the strategy, the world keeps its rules: withdrawn facts, invalidation and conflicts are the observer's work; a
tool the contract refuses fails its step; a step with an ``approval`` waits for it (event ``approval``); two
steps holding one resource never overlap; a far step is no concrete work (:mod:`planviz.runs.engine.horizon`).

Premises and the contract's given facts are held from the start; every other fact comes from an observation.
The planner validates first: a plan :func:`planviz.prepare` refuses stops before step 1, its stop event naming
the finding (``category``); so does a revision or an expansion it refuses.
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from collections.abc import Mapping
from operator import attrgetter
from typing import Callable, Iterable

from planviz.analysis.scope import failure_scope
from planviz.checks.static import tool_refusal
from planviz.checks.validation import refusal
from planviz.errors import PlanvizTypeError, SimulationError, expect_type, show_value
from planviz.plan.arguments import expect_contract, expect_plan
from planviz.plan.bulk import paused_gc
from planviz.plan.identity import work_keys
from planviz.plan.lineage import revised_roots, versions
from planviz.plan.model import Contract, Plan, Step
from planviz.runs.engine.approval import approval_due, confirm_plan, confirmed_steps
from planviz.runs.engine.goalchange import change_goal
from planviz.runs.engine.horizon import Expansion, await_expansion, expand_ready, expansion_steps
from planviz.runs.engine.machine import Machine, ProgressCallback
from planviz.runs.engine.observer import observation
from planviz.runs.engine.revision import (
    broken_invariant,
    complete_revision,
    redundant_work,
    reissue,
)
from planviz.runs.engine.strategies import (
    REPLAN_BOUND,
    STRATEGIES,
    STRATEGY_MECHANISMS,
    idempotent,
    run_direct,
)
from planviz.runs.events import ExecutionState, Observation, Run, negation
from planviz.runs.fault import Fault, expect_faults, fault_facts
from planviz.structure.index import structure_index

__all__ = ["simulate", "idempotent", "STRATEGIES"]

_by_id = attrgetter("id")
# no recovery scope
_HALTS = frozenset(
    {"tool_error", "unknown_tool", "not_permitted", "outside_intent", "unverified_effect"}
)

Proposer = Callable[[str, "Contract | None", ExecutionState, Plan], Plan]


def simulate(
    plan: Plan,
    contract: Contract | None = None,
    faults: Iterable[Fault] = (),
    workers: int | None = None,
    strategy: str = "planner",
    propose: Proposer | None = None,
    *,
    expand: Expansion | None = None,
    approval_time: float = 0.0,
    progress: ProgressCallback | None = None,
) -> Run:
    """Run ``plan`` on its durations, with ``faults`` injected, under ``strategy``; deterministic.

    A discrete-event simulation: ready steps start (lowest id first when ``workers`` limits them or when they
    share a resource), each finishes after its ``duration``, simultaneous finishes in id order. A fault
    affects the first ``times`` attempts of its step and of the same work in later revisions.

    Parameters
    ----------
    plan : Plan
        The plan; its premises (and the contract's ``given_facts``) hold from the start.
    contract : Contract, optional
        Default ``plan.contract``; its ``max_retries`` and ``max_replans`` cap recovery (2 and 2).
    faults : iterable of Fault
        Checked against the plan first (:func:`planviz.runs.fault.fault_facts`).
    workers : int, optional
        At most this many steps at once.
    strategy : {'planner', 'workflow', 'direct'}
        Who runs it (see :mod:`planviz.runs.engine.strategies`).
    propose : callable, optional
        ``propose(goal, contract, state, plan) -> Plan`` replaces the default replanner (:func:`reissue`).
    expand : mapping or callable, optional
        Concrete steps of far-horizon steps (step id -> steps, or ``(step, state) -> steps``).
    approval_time : float
        How long each approval takes.
    progress : callable, optional
        ``progress(what, done, total)``, called every 1,024 events.

    Returns
    -------
    Run
        Every event as a frame, the outcome, the final state and every plan version.

    Raises
    ------
    SimulationError
        For a fault that names no step or fact of the plan (with the valid choices), or a bad strategy.
    PlanvizTypeError
        When an argument has the wrong type (a path as ``plan``: :func:`planviz.load_plan`; a str as ``faults``).

    Examples
    --------
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
    plan = expect_plan(plan, "simulate")
    contract = expect_contract(contract, "simulate")
    if strategy not in STRATEGIES:
        raise SimulationError(
            f"unknown strategy {show_value(strategy)}; choose one of {', '.join(STRATEGIES)}"
        )
    if workers is not None:
        expect_type(workers, int, "simulate", "workers", "None (unlimited) or an integer >= 1")
        if workers < 1:
            raise SimulationError(
                f"workers must be None (unlimited) or an integer >= 1, got {show_value(workers)}"
            )
    expect_type(approval_time, (int, float), "simulate", "approval_time", "a finite number >= 0")
    if not 0 <= approval_time < 1e300:
        raise SimulationError(
            f"approval_time must be a finite number >= 0, got {show_value(approval_time)}"
        )
    for name, value, what in (
        ("expand", expand, "a mapping from step id to steps or a callable (step, state)"),
        ("propose", propose, "None or a callable (goal, contract, state, plan) -> Plan"),
        ("progress", progress, "None or a callable (what, done, total)"),
    ):
        if (
            value is not None
            and not callable(value)
            and not (name == "expand" and isinstance(value, Mapping))
        ):
            raise PlanvizTypeError(
                f"simulate({name}=...) expects {what}, got {type(value).__name__} {show_value(value)}"
            )
    contract = contract if contract is not None else plan.contract
    faults = expect_faults(faults, "simulate")
    return _Simulation(
        plan, contract, faults, workers, strategy, propose, expand, float(approval_time), progress
    ).run()


class _Simulation:
    """One simulated run: the controller around a :class:`Machine`."""

    def __init__(
        self,
        plan: Plan,
        contract: Contract | None,
        faults: tuple[Fault, ...],
        workers: int | None,
        strategy: str,
        propose: Proposer | None,
        expand: Expansion | None,
        approval_time: float,
        progress: ProgressCallback | None = None,
    ) -> None:
        self.plan, self.contract = plan, contract
        self.faults, self.workers, self.strategy, self.propose = faults, workers, strategy, propose
        self.expand, self.approval_time = expand, approval_time
        self.limits = contract if contract is not None else Contract()
        self.left = [f.times for f in faults]
        # a callable may add any step
        open_ids = expand is not None and not isinstance(expand, Mapping)
        self.fact_of = (
            fault_facts(
                plan,
                faults,
                expansion_steps(expand, plan),
                open_ids,
                confirmed=confirmed_steps(plan, contract),
            )
            if faults or expand is not None
            else ()
        )
        # read with .get(sid, sid): ids that revise nothing are not in it
        self.root = revised_roots(versions(plan))
        # far-horizon steps of the plan
        self.far = frozenset(s.id for s in plan.steps if s.horizon == "far")
        self.m = Machine(contract, progress)
        self.heap: list[tuple[float, str, int]] = []
        self.retries: Counter[str] = Counter()
        self.replans = self.expansions = 0
        self.waiting: dict[str, int] = {}  # step -> token of its pending approval
        self.approved: set[str] = set()
        self.tokens = itertools.count(-1, -1)
        self.hit: Fault | None = None
        self.first = plan
        self.fault_work: dict[
            int, str | None
        ] = {}  # fault -> the content of the step it names in the first plan
        self.keys: dict[str, str] = {}  # step id -> its content in the current plan version
        self.ran: dict[str, str] = {}  # id that completed -> its content then (plan/identity)
        self.mechanisms = STRATEGY_MECHANISMS[strategy]  # switched one by one by planviz.ablation

    def run(self) -> Run:
        m = self.m
        # many small acyclic objects: no full collections of the heap while they pile up
        with paused_gc():
            gate = "validation_gate" in self.mechanisms
            why = refusal(self.plan, self.contract) if gate else None
            # a plan validation accepts has every step reachable: the machine need not work that out again
            m.propose(self.plan, feasible=gate and why is None)
            if why is not None:
                m.stop(
                    "refused",
                    f"the plan is refused before step 1: {why.code} "
                    f"({', '.join(why.steps) or 'the plan'}): {why.message}",
                    category=why.code,
                )
            elif "explicit_plan" not in self.mechanisms:
                run_direct(self)
            elif not confirmed_steps(self.plan, self.contract) or confirm_plan(self):
                self._scheduled()
            return m.run(self.strategy, self.faults)

    # ----------------------------------------------------------- faults
    def take_fault(self, step: Step, kinds: frozenset[str] | None) -> int | None:
        """The first fault naming ``step`` (or its original) with attempts left, of ``kinds`` (None: any
        but approval_denied), used up by one."""
        names = (step.id, self.root.get(step.id, step.id))
        hit = next(
            (
                i
                for i, f in enumerate(self.faults)
                if self.left[i] > 0
                and (f.kind in kinds if kinds else f.kind != "approval_denied")
                and (f.step in names or self._same_work(i, step))
            ),
            None,
        )
        if hit is not None:
            self.left[hit] -= 1
        return hit

    def _same_work(self, i: int, step: Step) -> bool:
        """Whether ``step`` is the same work (:mod:`planviz.plan.identity`) as the step fault ``i`` names in the
        first plan: a fault follows the work across revisions, whatever its id."""
        if i not in self.fault_work:
            first = self.first
            self.fault_work[i] = work_keys(first, [self.faults[i].step]).get(self.faults[i].step)
        if self.fault_work[i] is None:
            return False
        if step.id not in self.keys:
            self.keys.update(work_keys(self.plan, [step.id]))
        return self.keys.get(step.id) == self.fault_work[i]

    def observe(self, step: Step) -> Observation:
        """The observation of one attempt of ``step``: a tool call the contract refuses, else the first fault
        naming it (kept in ``hit``), else a clean success."""
        refused = tool_refusal(step, self.contract)
        if refused is not None:
            return Observation(
                False, kind=refused[0], data={"message": f"the tool call was refused: {refused[1]}"}
            )
        hit = self.take_fault(step, None) if self.faults else None
        self.hit = None if hit is None else self.faults[hit]
        return observation(step, self.hit, None if hit is None else self.fact_of[hit])

    def falsified(self, sid: str, obs: Observation) -> bool:
        """Stop the run (``premise_failed``) when ``obs`` falsified a premise of the plan."""
        premises = set(self.plan.premises)
        if not premises:
            return False
        false = sorted(
            (obs.withdrawn & premises) | {negation(f) for f in obs.facts if negation(f) in premises}
        )
        if false:
            self.m.stop(
                "premise_failed",
                f"{sid!r} falsified the premise {false[0]!r}; stopping before more work is spent",
                sid,
            )
        return bool(false)

    # ------------------------------------------------------- scheduled
    def _scheduled(self) -> None:
        m = self.m
        while m.outcome is None:
            if expand_ready(self):
                continue
            if m.outcome is not None:
                return
            self._start_ready()
            if not self.heap:
                self._idle()
                return
            t = self.heap[0][0]
            batch = []
            while self.heap and self.heap[0][0] == t:
                batch.append(heapq.heappop(self.heap))
            m.time = t
            # simultaneous: lower id first
            batch.sort(key=lambda item: (m.order_key(item[1]), item[2]))
            for _, sid, token in batch:
                if m.outcome is not None:
                    return
                if token < 0:
                    approval_due(self, sid, token)
                elif m.running.get(sid) == token:
                    self._finish(sid)

    def _start_ready(self) -> None:
        m, plan = self.m, self.plan
        ready = m.ready()
        # voided: gone
        self.waiting = {s: t for s, t in self.waiting.items() if s in ready} if self.waiting else {}
        free = (
            len(ready)
            if self.workers is None
            else self.workers - len(m.running) - len(self.waiting)
        )
        holders, by_id = structure_index(plan).holders(), plan.by_id
        held: set[str] | None = (
            None  # resources held by running or waiting steps, worked out when first asked
        )
        for sid in ready:
            if free <= 0:
                break
            step = by_id[sid]  # every ready id is a step of the plan
            if sid in self.waiting or step.horizon == "far":
                continue
            contended = (
                [r for r in step.resources if r in holders] if holders and step.resources else None
            )
            if contended:
                if held is None:
                    busy = set(m.running).union(self.waiting)
                    held = {r for r, ids in holders.items() if not busy.isdisjoint(ids)}
                if not held.isdisjoint(contended):
                    continue  # an exclusive resource is held: wait for its holder to finish
                held.update(contended)
            free -= 1
            if step.approval and sid not in self.approved:
                self.waiting[sid] = token = next(self.tokens)
                heapq.heappush(self.heap, (m.time + self.approval_time, sid, token))
            else:
                self.start(step)

    def start(self, step: Step) -> None:
        self.m.start(step.id)
        heapq.heappush(self.heap, (self.m.time + step.duration, step.id, self.m.running[step.id]))

    def note_done(self, ids: Iterable[str]) -> None:
        """Remember the completed ``ids``' content (:meth:`revise` refuses other work under such an id)."""
        new = [i for i in ids if i in self.m.completed and i not in self.ran]
        if new:
            self.ran.update(work_keys(self.plan, new))

    def adopt(self, new: Plan) -> None:
        self.plan, self.keys = new, {}
        self.root = revised_roots(versions(new))
        self.far = frozenset(s.id for s in new.steps if s.horizon == "far")

    def _idle(self) -> None:
        m = self.m
        left = [s for s in dict.fromkeys(self.plan.ids) if s not in m.completed]
        far = [s for s in m.ready() if self.plan.step(s).horizon == "far"]
        if not left:
            m.stop("plan_complete", f"every step of plan v{self.plan.version} is done")
        elif far:
            await_expansion(m, far[0])
        else:
            m.stop("blocked", f"nothing is ready or running; not done: {', '.join(left)}")

    def _finish(self, sid: str) -> None:
        m, step, planner = self.m, self.plan.step(sid), "replanning" in self.mechanisms
        self.hit = None
        obs = self.observe(step)
        fault = self.hit
        before = len(m.conflicts)
        events = m.finish(sid, obs, check_evidence="evidence_check" in self.mechanisms)
        new_conflicts = m.conflicts[before:]
        if "premises_stop" in self.mechanisms:
            # most plans have no premises, no forbidden states
            if self.plan.premises and self.falsified(sid, obs):
                return
            forbidden = self.limits.forbidden_states and sorted(
                obs.facts.intersection(self.limits.forbidden_states)
            )
            if forbidden:
                m.stop(
                    "forbidden_state",
                    f"{sid!r} established the forbidden state {forbidden[0]!r}",
                    sid,
                )
                return
        if sid in m.completed:
            if planner and new_conflicts:
                c = new_conflicts[0]
                self._recover(
                    sid,
                    "precondition",
                    c.contradicts,
                    f"{sid!r} observed {c.fact!r}, contradicting {c.contradicts!r} ({c.verified_by})",
                )
            elif obs.withdrawn:
                self.m.void_unreachable(sid)
            return
        category = next(e.category for e in events if e.kind == "fail")
        assert category is not None  # the machine's fail event always names its category
        if category == "evidence":
            m.stop("expected_evidence_missing", f"{sid!r} did not establish what it produces", sid)
        elif category == "transient":
            self._retry(step)
        elif category in _HALTS or not planner:
            if obs.withdrawn:
                self.m.void_unreachable(sid)
            m.stop(
                "step_failed",
                f"{sid!r} failed ({category}) and the {self.strategy} strategy does not "
                "recover from that",
                sid,
            )
        elif category == "goal_change" and fault is not None:
            change_goal(self, sid, fault)
        else:
            fact = sorted(obs.withdrawn)[0] if obs.withdrawn else None
            self._recover(
                sid, category, fact, f"{category} at {sid!r}: {obs.data.get('message', category)}"
            )

    def _retry(self, step: Step) -> None:
        m, sid = self.m, step.id
        if not idempotent(step, self.contract):
            m.stop(
                "step_failed",
                f"{sid!r} failed transiently but is not safe to retry: it writes "
                f"({', '.join(step.resources) or step.tool}) and has no rollback",
                sid,
            )
        elif self.retries[sid] >= self.limits.max_retries:
            tries = self.retries[sid] + 1
            m.stop(
                "step_failed",
                f"{sid!r} failed {'once' if tries == 1 else f'{tries} times'}; retries are capped "
                f"at max_retries={self.limits.max_retries}",
                sid,
            )
        else:
            self.retries[sid] += 1
            why = (
                failure_scope(self.plan, sid, "transient", state=m.state()).message
                if "replanning" in self.mechanisms
                else f"transient failure at {sid!r}: retry it"
            )
            m.retry(sid, f"{why} (retry {self.retries[sid]} of {self.limits.max_retries})")

    def _recover(self, sid: str, category: str, fact: str | None, trigger: str) -> None:
        m, plan = self.m, self.plan
        scope = failure_scope(plan, sid, category, fact=fact, state=m.state())
        if scope.action == "blocked":
            m.invalidate(sid, scope.voided - {sid}, scope.kept, scope.message)
            m.stop("blocked", f"no step can restore {scope.blocked_fact!r}", sid)
            return
        self.note_done(scope.voided)
        # ablated: start over, every started step voided
        scoped = "scoped_recovery" in self.mechanisms
        voided, kept = (scope.voided, scope.kept) if scoped else (frozenset(plan.ids), frozenset())
        m.invalidate(
            sid, voided, kept, scope.message if scoped else f"{scope.message}; unscoped: all redone"
        )
        self.revise(sid, set(voided), trigger)

    def revise(
        self,
        sid: str,
        voided: set[str],
        trigger: str,
        goal: str | None = None,
        given: Iterable[str] = (),
        goal_change: bool = False,
        drop: Iterable[str] = (),
    ) -> None:
        """Ask the planner for the next version (for ``goal`` when it changed) and switch to it, or stop: a
        revision breaking a rule of :func:`planviz.runs.engine.revision.broken_invariant` is refused (``goal_change``:
        the goal or contract may change). ``drop``: voided steps the default replanner leaves out."""
        m, plan = self.m, self.plan
        cap = self.limits.max_replans if "replan_cap" in self.mechanisms else REPLAN_BOUND
        if self.replans >= cap:
            m.stop(
                "replan_limit",
                f"a revision is needed but the run already made {self.replans} (max_replans={cap})",
                sid,
            )
            return
        if self.propose is None:
            new = reissue(plan, voided, trigger, drop=drop)
            new = new.replace(goal=goal) if goal else new
        else:
            proposed = self.propose(goal or plan.goal, self.contract, m.state(), plan)
            if not isinstance(proposed, Plan):
                raise SimulationError(f"propose() must return a Plan, got {proposed!r}")
            new = complete_revision(plan, proposed, trigger, voided)
        self.note_done(m.completed)
        broken = broken_invariant(
            plan,
            new,
            self.contract,
            ran=self.ran,
            completed=m.completed,
            held=m.state().facts,
            goal_change=goal_change,
        )
        if broken is not None:
            m.stop(
                "refused",
                f"revision v{new.version} is refused: {broken[0]}: {broken[1]}",
                sid,
                category=broken[0],
            )
            return
        # file order carries no meaning
        if sorted(new.steps, key=_by_id) == sorted(plan.steps, key=_by_id):
            m.stop(
                "no_new_route",
                f"the replanner proposed the same steps as plan v{plan.version} "
                f"(trigger: {trigger})",
                sid,
            )
            return
        redundant = redundant_work(m.state(), new, before=plan)
        self.replans += 1
        self.adopt(new)
        note = f"; redundant (facts already held): {', '.join(redundant)}" if redundant else ""
        m.replan(
            new,
            f"plan v{new.version} after {trigger}: voids {', '.join(new.invalidated) or 'nothing'}{note}",
            given=given,
        )
