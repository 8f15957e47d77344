"""What a campaign row runs: a strategy, or the planner with one of its mechanisms switched off.

A :class:`Variant` names a row, the simulator switches it runs with (the mechanisms of
:data:`planviz.runs.engine.strategies.MECHANISMS`) and, for the replan-cap rows, the cap. Seed 000 asks which
mechanism matters: :data:`ABLATION` removes one at a time from the full planner, each row differing from
``planner`` in exactly one switch:

==========================  ===================================================================
row                         what is switched off (or changed)
==========================  ===================================================================
``planner``                 nothing: the full planner
``-validation_gate``        the plan is not validated first: a plan ``prepare`` refuses runs
``-premises_stop``          no stop on a falsified premise or a forbidden state
``-scoped_recovery``        a recovery voids every started step, not the failure's scope
``-replanning``             no new plan version: a failure beyond a retry stops the run
``-replan_cap``             revisions are not capped by ``max_replans`` (only by ``REPLAN_BOUND``)
``replan_cap=0``, ``=1``,   the cap set to 0, 1, 3 revisions (the contract's own is 2)
``=3``
``-far_expansion``          far steps are not expanded: the run stops at the first one
``-evidence_check``         a step's declared facts are not checked: missing evidence passes
==========================  ===================================================================

:data:`LADDER` adds them cumulatively instead, from ``direct`` (no mechanism) through ``+explicit_plan``
and ``+evidence_check`` (the fixed workflow) to ``+replan_cap`` (the full planner). The planning model call
is charged to the explicit plan: every row with ``explicit_plan`` counts one model call for the proposal
(plus one per replan and expansion); the ``workflow`` strategy of a campaign, a fixed script, counts none.

>>> [v.name for v in ABLATION][:4]
['planner', '-validation_gate', '-premises_stop', '-scoped_recovery']
>>> LADDER[-1].mechanisms == variant("planner").mechanisms
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from planviz.errors import SimulationError
from planviz.plan.model import Contract, Plan
from planviz.runs.engine.simulation import _Simulation, simulate
from planviz.runs.engine.strategies import MECHANISMS, STRATEGIES, STRATEGY_MECHANISMS
from planviz.runs.events import Run
from planviz.runs.fault import Fault

__all__ = ["Variant", "variant", "run_variant", "ABLATION", "LADDER", "CAPS"]

CAPS = (0, 1, 3)  #: the replan caps the ablation tries besides the contract's own


@dataclass(frozen=True)
class Variant:
    """A row of a campaign: ``name``, the ``strategy`` it is recorded as (which decides how model calls are
    counted), the ``mechanisms`` switched on and ``max_replans`` (None: the contract's own cap)."""

    name: str
    strategy: str
    mechanisms: frozenset[str]
    max_replans: int | None = None

    def switches(self) -> dict[str, object]:
        """The row's configuration: each mechanism on or off, and the replan cap (None: the contract's)."""
        return {**{m: m in self.mechanisms for m in MECHANISMS}, "max_replans": self.max_replans}


def variant(strategy: str) -> Variant:
    """The row of one of the three strategies, every one of its mechanisms on.

    >>> sorted(variant("workflow").mechanisms)
    ['evidence_check', 'explicit_plan']
    """
    if strategy not in STRATEGIES:
        raise SimulationError(
            f"unknown strategy {strategy!r}; choose among {', '.join(STRATEGIES)}"
        )
    return Variant(strategy, strategy, STRATEGY_MECHANISMS[strategy])


def _ablation() -> tuple[Variant, ...]:
    full = STRATEGY_MECHANISMS["planner"]
    rows = [Variant("planner", "planner", full)]
    for mechanism in (
        "validation_gate",
        "premises_stop",
        "scoped_recovery",
        "replanning",
        "replan_cap",
    ):
        rows.append(Variant(f"-{mechanism}", "planner", full - {mechanism}))
    rows += [Variant(f"replan_cap={cap}", "planner", full, cap) for cap in CAPS]
    rows += [Variant(f"-{m}", "planner", full - {m}) for m in ("far_expansion", "evidence_check")]
    return tuple(rows)


def _ladder() -> tuple[Variant, ...]:
    rows = [Variant("direct", "direct", frozenset())]
    on: set[str] = set()
    for mechanism in MECHANISMS:
        on.add(mechanism)
        # the explicit plan pays its model call
        rows.append(Variant(f"+{mechanism}", "planner", frozenset(on)))
    return tuple(rows)


ABLATION = _ablation()
LADDER = _ladder()


def run_variant(plan: Plan, faults: tuple[Fault, ...], row: Variant) -> Run:
    """Simulate ``plan`` with ``faults`` under ``row``: the strategy itself when all its mechanisms are on and
    the cap is the contract's, else the simulator with the row's switches (the plan's own contract either way).

    >>> from planviz import examples
    >>> run_variant(examples.load("cache_isolation"), (Fault("S4", "side_effect"),), ABLATION[0]).outcome
    'plan_complete'
    >>> run_variant(examples.load("cache_isolation"), (Fault("S4", "side_effect"),), ABLATION[6]).outcome
    'replan_limit'
    """
    if row.mechanisms == STRATEGY_MECHANISMS[row.strategy] and row.max_replans is None:
        return simulate(plan, faults=faults, strategy=row.strategy)
    sim = _Simulation(plan, plan.contract, faults, None, row.strategy, None, None, 0.0)
    sim.mechanisms = row.mechanisms
    if row.max_replans is not None:
        sim.limits = replace(
            sim.limits if sim.limits is not None else Contract(), max_replans=row.max_replans
        )
    return sim.run()
