"""What a campaign row runs: a strategy, or the planner with some of its mechanisms switched off.

A :class:`Variant` names a row and the simulator switches it runs with (the
mechanisms of :data:`planviz.runs.strategies.MECHANISMS`). The ablation rows
(:data:`ABLATION`) add one mechanism at a time, by the rules of
:mod:`planviz.runs.strategies`:

==========================  ===================================================================
row                         what it adds
==========================  ===================================================================
``direct``                  the implicit agent: steps in listed order, premises re-checked
``+explicit_plan``          the plan as a fixed workflow: dependency order, produced facts
                            checked, transient failures retried (``workflow``)
``+validation_gate``        the plan validated first: a plan ``prepare`` refuses never starts
``+replanning``             scoped recovery, replanning, far steps expanded (the planner's model)
``+premises_stop``          a stop on a falsified premise or a forbidden state: the full planner
==========================  ===================================================================

>>> [v.name for v in ABLATION]
['direct', '+explicit_plan', '+validation_gate', '+replanning', '+premises_stop']
>>> ABLATION[-1].mechanisms == variant("planner").mechanisms
True
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import SimulationError
from ..plan.model import Plan
from .events import Run
from .fault import Fault
from .simulation import _Simulation, simulate
from .strategies import MECHANISMS, STRATEGIES, STRATEGY_MECHANISMS

__all__ = ["Variant", "variant", "run_variant", "ABLATION"]


@dataclass(frozen=True)
class Variant:
    """A row of a campaign: ``name``, the ``strategy`` it is recorded as (which decides how model calls are
    counted) and the ``mechanisms`` switched on."""

    name: str
    strategy: str
    mechanisms: frozenset[str]


def variant(strategy: str) -> Variant:
    """The row of one of the three strategies, every one of its mechanisms on.

    >>> variant("workflow").mechanisms
    frozenset({'explicit_plan'})
    """
    if strategy not in STRATEGIES:
        raise SimulationError(f"unknown strategy {strategy!r}; choose among {', '.join(STRATEGIES)}")
    return Variant(strategy, strategy, STRATEGY_MECHANISMS[strategy])


def _ablation() -> tuple[Variant, ...]:
    rows = [Variant("direct", "direct", frozenset())]
    on: set[str] = set()
    for mechanism in MECHANISMS:
        on.add(mechanism)
        # a fixed script makes no model calls; from replanning on, a model proposes the versions
        strategy = "planner" if "replanning" in on else "workflow"
        rows.append(Variant(f"+{mechanism}", strategy, frozenset(on)))
    return tuple(rows)


ABLATION = _ablation()


def run_variant(plan: Plan, faults: tuple[Fault, ...], row: Variant) -> Run:
    """Simulate ``plan`` with ``faults`` under ``row``: the strategy itself when all its mechanisms are on,
    else the simulator with the row's switches (the plan's own contract either way).

    >>> from planviz import examples
    >>> run_variant(examples.load("cache_isolation"), (Fault("S4", "side_effect"),), ABLATION[3]).outcome
    'plan_complete'
    """
    if row.mechanisms == STRATEGY_MECHANISMS[row.strategy]:
        return simulate(plan, faults=faults, strategy=row.strategy)
    sim = _Simulation(plan, plan.contract, faults, None, row.strategy, None, None, 0.0)
    sim.mechanisms = row.mechanisms
    return sim.run()
