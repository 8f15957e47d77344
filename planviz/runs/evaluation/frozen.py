"""The frozen-plan executor test (seed 000, section 11): the route fixed, the executor measured.

An admissible plan is run as it is, with no replanning: whatever happens, no new
version is proposed, so what the run shows is the executor's work on a route
that was already judged good. The measures: whether each step was performed
and produced the evidence it declared, the evidence rate (steps that produced
their declared evidence / steps run), the steps run that are not in the plan,
and who the outcome is down to (:func:`planviz.attribution`). A step still running when the run stopped
counts as not run (it had no chance to produce anything), not as evidence missing.

This module simulates the route; :func:`planviz.frozen_plan_test` (``runs/evaluation/frozenplan.py``) also
aligns a recorded run with the plan, to test a real executor.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from planviz.checks.validation import refusal
from planviz.errors import SimulationError
from planviz.plan.model import Contract, Plan
from planviz.runs.engine.simulation import simulate
from planviz.runs.events import Run
from planviz.runs.fault import Fault
from planviz.runs.measures.runmetrics import attribution

__all__ = ["frozen_simulation", "frozen_result", "FrozenResult", "StepPerformance"]


@dataclass(frozen=True)
class StepPerformance:
    """One step of a frozen-plan test: was it ``performed`` (an attempt finished: completed or failed; a step
    still running at the stop was not), did it produce the ``evidence`` it declared (an observation
    established every fact it produces; None: a recorded step completed but its trace records no facts to
    check), and in how many ``attempts``."""

    performed: bool
    evidence: bool | None
    attempts: int = 0


@dataclass(frozen=True)
class FrozenResult:
    """What a frozen-plan test measured; ``run`` is the run itself (for pictures and reports)."""

    outcome: str
    steps: Mapping[str, StepPerformance] = field(hash=False)
    evidence_rate: float | None
    out_of_plan: tuple[str, ...]
    attribution: str | None
    reason: str
    run: Run = field(repr=False, compare=False, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for JSON): everything but the run."""
        return {
            "outcome": self.outcome,
            "evidence_rate": self.evidence_rate,
            "out_of_plan": list(self.out_of_plan),
            "attribution": self.attribution,
            "reason": self.reason,
            "steps": {sid: vars(p) for sid, p in self.steps.items()},
        }

    def to_text(self) -> str:
        """One line per step, then the figures."""
        width = max([len(s) for s in self.steps] + [4])
        lines = [f"{'step':<{width}}  performed  evidence  attempts"]
        lines += [
            f"{sid:<{width}}  {'yes' if p.performed else 'no':<9}  "
            f"{'unknown' if p.evidence is None else 'yes' if p.evidence else 'no':<8}  "
            f"{p.attempts}"
            for sid, p in self.steps.items()
        ]
        lines += [
            f"outcome: {self.outcome}",
            "evidence rate: "
            + ("unknown" if self.evidence_rate is None else f"{self.evidence_rate:.2f}"),
            f"out of plan: {', '.join(self.out_of_plan) or '(none)'}",
            f"attribution: {self.attribution or '-'} ({self.reason})",
        ]
        return "\n".join(lines)


def frozen_simulation(
    plan: Plan, contract: Contract | None, faults: tuple[Fault, ...], workers: int | None = None
) -> FrozenResult:
    """Simulate an admissible ``plan`` with its route fixed (``max_replans`` 0) and measure the executor (the
    checked arguments of :func:`planviz.frozen_plan_test`).

    >>> from planviz import examples, Fault
    >>> result = frozen_simulation(examples.load("cache_isolation"), None, (Fault("S4", "side_effect"),))
    >>> result.outcome, result.steps["S4"], result.evidence_rate, result.attribution
    ('replan_limit', StepPerformance(performed=True, evidence=False, attempts=1), 0.8, 'executor')
    """
    contract = contract if contract is not None else plan.contract
    why = refusal(plan, contract)
    if why is not None:
        raise SimulationError(
            f"frozen_plan_test runs an admissible plan, and this one is refused: {why.code} "
            f"({', '.join(why.steps) or 'the plan'}): {why.message}"
        )
    fixed = replace(contract if contract is not None else Contract(), max_replans=0)
    run = simulate(plan, fixed, faults=faults, workers=workers)
    started: dict[str, int] = {}
    finished: set[str] = set()
    evidence: set[str] = set()
    for e in run.events:
        if e.kind == "start" and e.step is not None:
            started[e.step] = started.get(e.step, 0) + 1
        elif e.kind in ("complete", "fail") and e.step is not None:
            finished.add(e.step)
            if e.kind == "complete" and _evidenced(plan, e.step, e.observation):
                evidence.add(e.step)
            elif e.kind == "complete":
                evidence.discard(e.step)
    steps = {
        sid: StepPerformance(sid in finished, sid in evidence, started.get(sid, 0))
        for sid in dict.fromkeys(plan.ids)
    }
    return frozen_result(run, contract, steps, tuple(sid for sid in started if sid not in steps))


def frozen_result(
    run: Run,
    contract: Contract | None,
    steps: Mapping[str, StepPerformance],
    out_of_plan: tuple[str, ...],
) -> FrozenResult:
    """The result from each step's performance: the evidence rate over the steps performed whose evidence is
    known (None when there is none), the attribution of ``run`` by seed 000's tree."""
    known = [p for p in steps.values() if p.performed and p.evidence is not None]
    rate = sum(1 for p in known if p.evidence) / len(known) if known else None
    blame = attribution(run, contract)
    party, reason = blame.party, blame.reason
    ran = [sid for sid, p in steps.items() if p.performed]
    silent = [sid for sid in ran if steps[sid].evidence is False and sid in run.state.completed]
    # completed, but what the step declared it would show was never produced
    if party is None and silent:
        party, reason = (
            "executor",
            (
                f"{len(silent)} of {len(ran)} steps run produced no evidence they declared "
                f"({', '.join(silent[:5])}{', ...' if len(silent) > 5 else ''}): a run cannot "
                f"certify the executor on evidence that was not produced"
            ),
        )
    return FrozenResult(run.outcome or "unknown", steps, rate, out_of_plan, party, reason, run)


def _evidenced(plan: Plan, sid: str, observation: Any) -> bool:
    """Whether the attempt of ``sid`` that completed produced the evidence the step declares: it declares some
    (``expected_evidence``), and no ``missing_evidence`` fault withheld it, whatever ``produces`` says."""
    step = plan.by_id.get(sid)
    if step is None or not step.expected_evidence.strip():
        return False
    said = (observation.data or {}).get("fault") if observation is not None else None
    return not (said and Fault.parse(said).kind == "missing_evidence")
