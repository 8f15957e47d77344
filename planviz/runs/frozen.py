"""The frozen-plan executor test (seed 000, section 11): the route fixed, the executor measured.

An admissible plan is run as it is, with no replanning: whatever happens, no new
version is proposed, so what the run shows is the executor's work on a route
that was already judged good. The measures: whether each step was performed
and produced the evidence it declared, the evidence rate (steps that produced
their declared evidence / steps run), the steps run that are not in the plan,
and who the outcome is down to (:func:`planviz.attribution`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

from ..checks.validation import refusal
from ..errors import SimulationError
from ..plan.arguments import expect_contract, expect_plan
from ..plan.model import Contract, Plan
from .events import Run
from .fault import Fault, expect_faults
from .measures import attribution
from .simulation import simulate

__all__ = ["frozen_plan_test", "FrozenResult", "StepPerformance"]


@dataclass(frozen=True)
class StepPerformance:
    """One step of a frozen-plan test: was it ``performed`` (started at least once), did it produce the
    ``evidence`` it declared (an observation established every fact it produces), and in how many
    ``attempts``."""

    performed: bool
    evidence: bool
    attempts: int = 0


@dataclass(frozen=True)
class FrozenResult:
    """What a frozen-plan test measured; ``run`` is the run itself (for pictures and reports)."""

    outcome: str
    steps: Mapping[str, StepPerformance] = field(hash=False)
    evidence_rate: float
    out_of_plan: tuple[str, ...]
    attribution: str | None
    reason: str
    run: Run = field(repr=False, compare=False, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for JSON): everything but the run."""
        return {"outcome": self.outcome, "evidence_rate": self.evidence_rate, "out_of_plan": list(self.out_of_plan),
                "attribution": self.attribution, "reason": self.reason,
                "steps": {sid: vars(p) for sid, p in self.steps.items()}}

    def to_text(self) -> str:
        """One line per step, then the figures."""
        width = max([len(s) for s in self.steps] + [4])
        lines = [f"{'step':<{width}}  performed  evidence  attempts"]
        lines += [f"{sid:<{width}}  {'yes' if p.performed else 'no':<9}  {'yes' if p.evidence else 'no':<8}  "
                  f"{p.attempts}" for sid, p in self.steps.items()]
        lines += [f"outcome: {self.outcome}", f"evidence rate: {self.evidence_rate:.2f}",
                  f"out of plan: {', '.join(self.out_of_plan) or '(none)'}",
                  f"attribution: {self.attribution or '-'} ({self.reason})"]
        return "\n".join(lines)


def frozen_plan_test(plan: Plan, contract: Contract | None = None, faults: Iterable[Fault] = (), *,
                     workers: int | None = None) -> FrozenResult:
    """Run an admissible ``plan`` with its route fixed (no replanning) and measure the executor.

    Parameters
    ----------
    plan : Plan
        The plan; it must pass :func:`planviz.prepare` under ``contract``.
    contract : Contract, optional
        Defaults to ``plan.contract``. Its ``max_replans`` is set to 0: a failure that would need a new
        route ends the run.
    faults : iterable of Fault
        What goes wrong, as in :func:`planviz.simulate`.
    workers : int, optional
        At most this many steps at once.

    Returns
    -------
    FrozenResult
        ``steps`` (id -> performed, evidence, attempts, in plan order), ``evidence_rate`` (steps that
        produced their declared evidence / steps run; 0.0 when none ran), ``out_of_plan`` (steps run
        that the plan does not have), ``attribution`` and its ``reason``, the ``outcome`` and the ``run``.

    Raises
    ------
    SimulationError
        When the plan is not admissible (the finding that refuses it is named).

    Examples
    --------
    >>> from planviz import examples, Fault
    >>> result = frozen_plan_test(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
    >>> result.outcome, result.steps["S4"], result.evidence_rate, result.attribution
    ('replan_limit', StepPerformance(performed=True, evidence=False, attempts=1), 0.8, 'executor')
    """
    plan = expect_plan(plan, "frozen_plan_test")
    contract = expect_contract(contract, "frozen_plan_test")
    faults = expect_faults(faults, "frozen_plan_test")
    contract = contract if contract is not None else plan.contract
    why = refusal(plan, contract)
    if why is not None:
        raise SimulationError(f"frozen_plan_test runs an admissible plan, and this one is refused: {why.code} "
                              f"({', '.join(why.steps) or 'the plan'}): {why.message}")
    fixed = replace(contract if contract is not None else Contract(), max_replans=0)
    run = simulate(plan, fixed, faults=faults, workers=workers)
    started: dict[str, int] = {}
    evidence: set[str] = set()
    for e in run.events:
        if e.kind == "start" and e.step is not None:
            started[e.step] = started.get(e.step, 0) + 1
        elif e.kind == "complete" and e.step is not None:
            if _evidenced(plan, e.step, e.observation):
                evidence.add(e.step)
            else:
                evidence.discard(e.step)
    steps = {sid: StepPerformance(sid in started, sid in evidence, started.get(sid, 0))
             for sid in dict.fromkeys(plan.ids)}
    ran = [sid for sid in started if sid in steps]
    rate = sum(1 for sid in ran if sid in evidence) / len(ran) if ran else 0.0
    blame = attribution(run, contract)
    if run.outcome is None:  # a simulated run always stops
        raise SimulationError("the simulated run did not stop")
    party, reason = blame.party, blame.reason
    silent = [sid for sid in ran if sid not in evidence and sid in run.state.completed]
    if party is None and silent:  # completed, but what the step declared it would show was never produced
        party, reason = "executor", (f"{len(silent)} of {len(ran)} steps run produced no evidence they declared "
                                     f"({', '.join(silent[:5])}{', ...' if len(silent) > 5 else ''}): a run cannot "
                                     f"certify the executor on evidence that was not produced")
    return FrozenResult(run.outcome, steps, rate, tuple(sid for sid in started if sid not in steps), party,
                        reason, run)


def _evidenced(plan: Plan, sid: str, observation: Any) -> bool:
    """Whether the attempt of ``sid`` that completed produced the evidence the step declares: it declares some
    (``expected_evidence``), and no ``missing_evidence`` fault withheld it, whatever ``produces`` says."""
    step = plan.by_id.get(sid)
    if step is None or not step.expected_evidence.strip():
        return False
    said = (observation.data or {}).get("fault") if observation is not None else None
    return not (said and Fault.parse(said).kind == "missing_evidence")
