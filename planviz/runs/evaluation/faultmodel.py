"""Sampled faults: a :class:`FaultModel` draws fault lists for a plan at given rates per step, reproducibly.

Each sample's random numbers come from one generator per fault kind, seeded by
a hash of (the model's seed, the plan's content, the sample's index, the kind):
never a shared generator, so adding a kind never moves another kind's faults, and
a sample is the same whichever process draws it and in whatever order the work is done
(:func:`planviz.campaign` relies on that).

>>> from planviz import examples
>>> model = FaultModel(rates={"transient": 0.2, "side_effect": 0.1}, seed=7)
>>> plan = examples.load("cache_isolation")
>>> model.sample(plan, 3) == model.sample(plan, 3)
True
>>> [str(f) for f in model.sample(plan, 0)]
['S0:side_effect', 'S1:transient', 'S2:transient']
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any, Mapping

from planviz.errors import PlanvizTypeError, SimulationError, expect_type, show_value
from planviz.plan.arguments import expect_plan
from planviz.plan.model import Plan
from planviz.runs.fault import FAULT_KINDS, FAULTS, Fault

__all__ = ["FaultModel", "plan_key"]


@dataclass(frozen=True)
class FaultModel:
    """Independent faults at a rate per step: for every step and every kind, a fault with probability ``rates[kind]``.

    A sampled fault names the step and, where its kind needs one, an argument
    drawn from the plan: ``withdraw`` a fact the step requires,
    ``missing_evidence`` a fact it produces, ``premise_false`` a premise of
    the plan, ``extra_fact`` the negation of a fact the step requires (a
    contradiction of held work). A kind that does not apply to a step (a
    withdrawal where nothing is required, a denied approval where none is
    asked) is skipped there, its random draw spent all the same, so adding a
    kind never moves the others' faults. ``simulate`` checks every fault
    against the plan (:func:`planviz.runs.fault.fault_facts`).

    Parameters
    ----------
    rates : mapping of str to float
        Fault kind (one of ``planviz.runs.fault.FAULT_KINDS``) -> probability per step, in [0, 1].
    times : int or mapping of str to int
        How many attempts each fault affects (per kind when a mapping; default 1).
    seed : int
        The seed every sample derives from.

    Raises
    ------
    PlanvizTypeError
        For arguments of the wrong type.
    SimulationError
        For an unknown kind, a rate outside [0, 1] or a count below 1.

    Examples
    --------
    >>> FaultModel(rates={"transient": 0.1}, times={"transient": 2}).rates
    (('transient', 0.1),)
    >>> FaultModel(rates={"explode": 0.1})  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    planviz.errors.SimulationError: FaultModel: unknown fault kind 'explode'; choose among transient,
    tool_error, withdraw, side_effect, missing_evidence, goal_change, premise_false, extra_fact, approval_denied
    """

    rates: Any
    times: Any = 1
    seed: int = 0
    _times: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rates = (
            expect_type(
                self.rates,
                Mapping,
                "FaultModel",
                "rates",
                "a mapping of fault kind to probability",
                "e.g. rates={'transient': 0.1, 'tool_error': 0.02}",
            )
            if not isinstance(self.rates, tuple)
            else dict(self.rates)
        )
        expect_type(self.seed, int, "FaultModel", "seed", "an integer")
        out = []
        for kind in rates:
            if kind not in FAULT_KINDS:
                raise SimulationError(
                    f"FaultModel: unknown fault kind {kind!r}; choose among {', '.join(FAULT_KINDS)}"
                )
        for kind in FAULT_KINDS:  # one fixed order, whatever order the mapping has
            if kind not in rates:
                continue
            p = rates[kind]
            if isinstance(p, bool) or not isinstance(p, (int, float)):
                raise PlanvizTypeError(
                    f"FaultModel(rates=...) expects probabilities (numbers), got {show_value(p, 60)} for "
                    f"{kind!r}"
                )
            if not 0.0 <= p <= 1.0:
                raise SimulationError(
                    f"FaultModel: the rate of {kind!r} must be a probability in [0, 1], got "
                    f"{show_value(p)}"
                )
            out.append((kind, float(p)))
        times = self.times
        if isinstance(times, tuple):
            times = dict(times)
        if isinstance(times, Mapping):
            unknown = sorted(set(times) - {k for k, _ in out})
            if unknown:
                raise SimulationError(
                    f"FaultModel: times given for {unknown[0]!r}, which has no rate; kinds with "
                    f"a rate: {', '.join(k for k, _ in out) or 'none'}"
                )
            counts = {k: times.get(k, 1) for k, _ in out}
        else:
            counts = {k: times for k, _ in out}
        for kind, n in counts.items():
            if isinstance(n, bool) or not isinstance(n, int):
                raise PlanvizTypeError(
                    f"FaultModel(times=...) expects an integer or a mapping of kind to integer, "
                    f"got {show_value(n, 60)} for {kind!r}"
                )
            if n < 1:
                raise SimulationError(
                    f"FaultModel: times must be >= 1, got {show_value(n)} for {kind!r}"
                )
        object.__setattr__(self, "rates", tuple(out))
        object.__setattr__(
            self, "times", tuple(counts.items()) if isinstance(times, Mapping) else times
        )
        object.__setattr__(self, "_times", tuple(counts[k] for k, _ in out))

    def sample(self, plan: Plan, index: int) -> tuple[Fault, ...]:
        """The fault list of sample ``index`` for ``plan``: the same for the same seed, plan and index.

        Parameters
        ----------
        plan : Plan
            The plan the faults are injected into.
        index : int
            The sample's number (0, 1, ...).

        Returns
        -------
        tuple of Fault
            In step order (file order), kinds in the order of ``FAULT_KINDS``.

        Examples
        --------
        >>> from planviz import examples
        >>> len(FaultModel(rates={"tool_error": 1.0}).sample(examples.load("cache_isolation"), 0))
        5
        """
        plan = expect_plan(plan, "FaultModel.sample")
        expect_type(index, int, "FaultModel.sample", "index", "an integer")
        return self.draw(plan, plan_key(plan), index)

    def draw(self, plan: Plan, key: str, index: int) -> tuple[Fault, ...]:
        """:meth:`sample` with the plan's :func:`plan_key` already worked out (a campaign computes it once)."""
        found: dict[tuple[int, int], Fault] = {}
        for k, ((kind, p), times) in enumerate(zip(self.rates, self._times)):
            # each kind has its own generator (seed, plan, sample, kind): adding a kind never moves another's faults
            digest = hashlib.blake2b(
                f"{self.seed}\x1f{key}\x1f{index}\x1f{kind}".encode(), digest_size=8
            ).digest()
            rng = random.Random(int.from_bytes(digest, "big"))
            # the kind's row says what it concerns
            draw, choice, facts_of = (
                rng.random,
                rng.choice,
                FAULTS[kind].draws,
            )
            for i, step in enumerate(plan.steps):
                if draw() < p:
                    # None: the kind cannot apply here (its draw is spent all the same)
                    facts = facts_of(plan, step)
                    if facts is not None:
                        found[(i, k)] = Fault(
                            step.id, kind, choice(facts) if facts else None, times
                        )
        return tuple(found[ik] for ik in sorted(found))


def plan_key(plan: Plan) -> str:
    """A digest of what a plan's samples depend on (goal, premises, steps and their facts), so two equal plans
    get the same samples and a sample does not depend on where the plan sits in a list.

    >>> from planviz import examples
    >>> plan_key(examples.load("cache_isolation")) == plan_key(examples.load("cache_isolation"))
    True
    """
    content = (
        plan.goal,
        tuple(plan.premises),
        tuple((s.id, tuple(s.requires), tuple(s.produces), bool(s.approval)) for s in plan.steps),
    )
    return hashlib.blake2b(
        repr(content).encode("utf-8", "surrogatepass"), digest_size=16
    ).hexdigest()
