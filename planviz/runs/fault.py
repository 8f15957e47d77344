"""Faults to inject into a simulated run: what goes wrong, at which step, how many times; the table of fault
kinds (:data:`FAULTS`: each kind's row holds what it takes, what its observation says, how a fault model draws
it, its failure category and who is blamed); and the check of faults against the plan they are injected into
(:func:`fault_facts`).

>>> Fault.parse("S1:transientx3")
Fault(step='S1', kind='transient', fact=None, times=3, goal=None)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Iterable, NamedTuple

from planviz.errors import PlanvizTypeError, SimulationError, did_you_mean, show_value
from planviz.plan.model import Contract, Plan, Step, natural_key

__all__ = [
    "Fault",
    "FAULT_KINDS",
    "FAULTS",
    "FaultKind",
    "Observed",
    "fault_facts",
    "expect_faults",
    "negation",
]


@dataclass(frozen=True)
class Fault:
    """A fault to inject: ``kind`` at ``step``, affecting ``times`` attempts of it (and of its revisions).

    ``fact`` is the fact concerned: for ``withdraw`` the precondition found
    false (default: the step's first required fact), for ``premise_false``
    the premise (default: the plan's first), for ``extra_fact`` the unexpected
    fact (required), for ``missing_evidence`` the produced fact not observed
    (default: all of them). ``approval_denied`` refuses the approval the step
    waits for. ``goal_change`` may carry the new ``goal`` and ``contract``:
    with either, the run re-checks its completed work against them and
    replans for the new goal; with neither, it stops (``goal_changed``).

    >>> Fault.parse("S1:transientx3")
    Fault(step='S1', kind='transient', fact=None, times=3, goal=None)
    >>> str(Fault.parse("S3:withdraw:key_builder_located"))
    'S3:withdraw:key_builder_located'
    >>> Fault("S2", "goal_change", goal="migrate every tenant").goal
    'migrate every tenant'
    """

    step: str
    kind: str
    fact: str | None = None
    times: int = 1
    goal: str | None = None
    contract: Contract | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.step, str) or not self.step:
            raise SimulationError(f"a fault needs a step id, got {self.step!r}")
        if self.kind not in FAULT_KINDS:
            raise SimulationError(
                f"unknown fault kind {self.kind!r} at {self.step!r}; "
                f"choose one of {', '.join(FAULT_KINDS)}"
            )
        if self.fact is not None and (not isinstance(self.fact, str) or not self.fact):
            raise SimulationError(
                f"fault {self.step}:{self.kind}: fact must be a non-empty string, got {self.fact!r}"
            )
        if isinstance(self.times, bool) or not isinstance(self.times, int) or self.times < 1:
            raise SimulationError(
                f"fault {self.step}:{self.kind}: times must be an integer >= 1, got {self.times!r}"
            )
        if self.kind == "extra_fact" and self.fact is None:
            raise SimulationError(
                f"fault {self.step}:extra_fact needs the fact observed: "
                f"write {self.step}:extra_fact:FACT"
            )
        if (self.goal is not None or self.contract is not None) and self.kind != "goal_change":
            raise SimulationError(
                f"fault {self.step}:{self.kind}: only a goal_change fault carries a new goal or "
                "contract"
            )
        if self.goal is not None and (not isinstance(self.goal, str) or not self.goal.strip()):
            raise SimulationError(
                f"fault {self.step}:goal_change: goal must be a non-empty string, got {self.goal!r}"
            )
        if self.contract is not None and not isinstance(self.contract, Contract):
            raise SimulationError(
                f"fault {self.step}:goal_change: contract must be a planviz Contract, got "
                f"{type(self.contract).__name__}; load one with planviz.load_contract(path)"
            )

    @classmethod
    def parse(cls, text: str) -> Fault:
        """Read ``STEP:KIND[:FACT]``, with an optional ``xN`` repeat on the kind (``S1:transientx3``)
        or as a last segment (``S3:withdraw:fact:x2``). A fact is taken verbatim (it may hold colons).

        >>> Fault.parse("S3:withdraw:fact:x2").times
        2
        >>> Fault.parse("S4:explode")  # doctest: +NORMALIZE_WHITESPACE
        Traceback (most recent call last):
        ...
        planviz.errors.SimulationError: unknown fault kind 'explode' in 'S4:explode'; choose one of transient,
        tool_error, withdraw, side_effect, missing_evidence, goal_change, premise_false, extra_fact,
        approval_denied
        """
        if not isinstance(text, str) or ":" not in text:
            raise SimulationError(
                f"expected a fault as STEP:KIND[:FACT][xN] (e.g. 'S4:side_effect'), got {text!r}"
            )
        step, _, rest = text.strip().partition(":")
        kind, _, fact = rest.partition(":")
        step, kind = step.strip(), kind.strip()
        times = 1
        m = re.fullmatch(r"(.*?)x(\d+)", kind)
        if kind not in FAULT_KINDS and m and m.group(1) in FAULT_KINDS:
            kind, times = m.group(1), _count(m.group(2), text)
        last = re.fullmatch(r"(?:(.*):)?x(\d+)", fact)
        if last:
            fact, times = last.group(1) or "", _count(last.group(2), text)
        if kind not in FAULT_KINDS:
            raise SimulationError(
                f"unknown fault kind {kind!r} in {text!r}; choose one of {', '.join(FAULT_KINDS)}"
            )
        return cls(step, kind, fact or None, times)

    def __str__(self) -> str:
        text = f"{self.step}:{self.kind}" + (f":{self.fact}" if self.fact else "")
        # "a:x2" needs ":x1"
        if self.times != 1 or (self.fact and re.fullmatch(r"(?:.*:)?x\d+", self.fact)):
            text += f":x{self.times}" if self.fact else f"x{self.times}"
        return text


def negation(fact: str) -> str:
    """The fact that contradicts ``fact``: ``X`` and ``not X`` contradict each other.

    >>> negation("cache is shared"), negation("not cache is shared")
    ('not cache is shared', 'cache is shared')
    """
    return fact[4:] if fact.startswith("not ") else "not " + fact


class Observed(NamedTuple):
    """What an attempt's observation says under a fault (the observer adds the kind and the fault): whether the
    step succeeded, the facts it observed, the facts it found false, and its message (None: none)."""

    ok: bool
    facts: frozenset[str] = frozenset()
    withdrawn: frozenset[str] = frozenset()
    message: str | None = None


@dataclass(frozen=True)
class FaultKind:
    """One kind of fault, the one row every module reads: what it takes, what the observer reports, the
    category a failed attempt is recorded under, who :func:`planviz.attribution` blames for it, what its
    observation says and how a fault model draws it. Adding a kind is adding its row (and, when the
    controller must react in a new way, that reaction in ``runs/engine/simulation.py``).

    ``observed`` is the observation's kind (``ok``: the step still succeeds, perhaps without its evidence;
    ``None``: the fault acts before the step starts); ``category`` the failure category of the event
    (``None``: no failure of its own); ``blame`` the party when the run fails because of it.
    ``says(step, fault, fact)`` is what the observation of an attempt under the fault says
    (:func:`planviz.runs.engine.observer.observation` reads it; None when ``observed`` is None), ``fact`` the
    fact it concerns (:func:`fault_facts`). ``draws(plan, step)`` is what a sampled fault at ``step`` may
    concern (:class:`planviz.FaultModel` picks one with the kind's own generator): ``()`` for a kind that takes
    no fact, None where the kind cannot apply at that step.
    """

    name: str
    argument: str
    observed: str | None
    category: str | None
    blame: str | None
    what: str
    says: Callable[[Step, Fault, str | None], Observed] | None = field(repr=False, compare=False)
    draws: Callable[[Plan, Step], tuple[str, ...] | None] = field(repr=False, compare=False)


def _fails(message: str) -> Callable[[Step, Fault, str | None], Observed]:
    return lambda step, fault, fact: Observed(False, message=message)


def _tool_errored(step: Step, fault: Fault, fact: str | None) -> Observed:
    what = (
        f"tool {step.tool!r}" if step.tool is not None else f"step {step.id!r} (it calls no tool)"
    )
    return Observed(False, message=f"{what} errored")


def _goal_changed(step: Step, fault: Fault, fact: str | None) -> Observed:
    new = (
        f": the new goal is {fault.goal!r}"
        if fault.goal
        else ": the contract changed"
        if fault.contract
        else ""
    )
    return Observed(False, message=f"the goal changed{new}")


FAULTS: dict[str, FaultKind] = {
    k.name: k
    for k in (
        FaultKind(
            "transient",
            "",
            "transient",
            "transient",
            "executor",
            "a time-out: may pass on retry",
            says=_fails("timed out; may pass on retry"),
            draws=lambda plan, step: (),
        ),
        FaultKind(
            "tool_error",
            "",
            "tool_error",
            "tool_error",
            "executor",
            "the tool call errors",
            says=_tool_errored,
            draws=lambda plan, step: (),
        ),
        FaultKind(
            "withdraw",
            "fact",
            "precondition",
            "precondition",
            "environment",
            "a precondition (a fact the step requires) turns out false",
            says=lambda step, fault, fact: Observed(
                False,
                withdrawn=frozenset({str(fact)}),
                message=f"precondition {fact!r} does not hold",
            ),
            draws=lambda plan, step: tuple(step.requires) or None,
        ),
        FaultKind(
            "side_effect",
            "",
            "side_effect",
            "side_effect",
            "executor",
            "the step's check shows an earlier change broke something",
            says=_fails("its check shows an earlier change broke something"),
            draws=lambda plan, step: (),
        ),
        FaultKind(
            "missing_evidence",
            "fact",
            "ok",
            "evidence",
            "executor",
            "the step reports success without observing a fact it produces",
            says=lambda step, fault, fact: Observed(
                True, frozenset(step.produces) - {fact} if fact else frozenset()
            ),
            draws=lambda plan, step: tuple(step.produces) or None,
        ),
        FaultKind(
            "goal_change",
            "goal, contract",
            "goal_change",
            "goal_change",
            "environment",
            "the user's goal (or contract) changes",
            says=_goal_changed,
            draws=lambda plan, step: (),
        ),
        FaultKind(
            "premise_false",
            "fact",
            "premise_false",
            "premise_false",
            "environment",
            "a premise of the plan is observed false",
            says=lambda step, fault, fact: Observed(
                True, frozenset(step.produces), frozenset({str(fact)})
            ),
            draws=lambda plan, step: tuple(plan.premises) or None,
        ),
        # contradicts held work
        FaultKind(
            "extra_fact",
            "fact",
            "ok",
            None,
            None,
            "the step observes an unexpected fact as well",
            says=lambda step, fault, fact: Observed(True, frozenset(step.produces) | {str(fact)}),
            draws=lambda plan, step: tuple(negation(f) for f in step.requires) or None,
        ),
        # acts before the start
        FaultKind(
            "approval_denied",
            "",
            None,
            None,
            "environment",
            "the approval the step waits for is refused",
            says=None,
            draws=lambda plan, step: () if step.approval else None,
        ),
    )
}
"""Every fault kind, in the order the explorer and the CLI offer them."""

FAULT_KINDS = tuple(FAULTS)

_MAX_COUNT_DIGITS = 6


def _count(digits: str, text: str) -> int:
    """The repeat count ``xN`` of a fault: a few digits (an attempt is retried at most a few times anyway)."""
    if len(digits) > _MAX_COUNT_DIGITS:
        raise SimulationError(
            f"repeat count x{digits[:12]}{'...' if len(digits) > 12 else ''} in "
            f"{text[:60]!r}{'...' if len(text) > 60 else ''} has {len(digits):,} digits: expected "
            f"a count such as x3 (at most {10**_MAX_COUNT_DIGITS - 1:,})"
        )
    return int(digits)


def _choices(items: Iterable[str]) -> str:
    shown = sorted(dict.fromkeys(items), key=natural_key)
    return (
        ", ".join(map(repr, shown[:20]))
        + (f" and {len(shown) - 20} more" if len(shown) > 20 else "")
        or "none"
    )


def _hint(value: str, choices: Iterable[str]) -> str:
    return did_you_mean(value, choices)


def fault_facts(
    plan: Plan,
    faults: Iterable[Fault],
    extra: Iterable[Step] = (),
    open_ids: bool = False,
    *,
    confirmed: Collection[str] = (),
) -> tuple[str | None, ...]:
    """Check each fault against ``plan`` and return the fact each concerns (its default filled in, or None).

    A fault must name a step of the plan (or a step it revises, or one of the
    ``extra`` steps an expansion adds; any id when ``open_ids``: a callable
    expansion may add steps not known yet); a ``withdraw`` fact must be one
    the step requires, a ``missing_evidence`` fact one it produces, a
    ``premise_false`` fact a premise; ``approval_denied`` needs a step with an
    approval, or one of the ``confirmed`` writing steps a plan confirmation
    covers. Anything else raises :class:`SimulationError` naming the valid
    choices.

    >>> from planviz import examples
    >>> fault_facts(examples.load("cache_isolation"), [Fault("S3", "withdraw", "key_bulder_located")])
    ... # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    planviz.errors.SimulationError: fault 'S3:withdraw:key_bulder_located': 'S3' does not require
    'key_bulder_located' (did you mean 'key_builder_located'?); it requires 'isolation_test_written',
    'key_builder_located'
    """
    known = {s.id: s for s in extra}
    known.update(plan.by_id)
    revised = {s.revises for s in plan.steps if s.revises}
    out = []
    for fault in faults:
        name = f"fault {str(fault)!r}"
        step = known.get(fault.step)
        if step is None and fault.step not in revised and not open_ids:
            raise SimulationError(
                f"{name}: no step {fault.step!r} in the plan{_hint(fault.step, known)}; its steps "
                f"are {_choices(known)}"
            )
        out.append(_fact(plan, fault, step, name, confirmed))
    return tuple(out)


def _fact(
    plan: Plan, fault: Fault, step: Step | None, name: str, confirmed: Collection[str] = ()
) -> str | None:
    kind, fact = fault.kind, fault.fact
    if kind == "premise_false":
        if not plan.premises:
            raise SimulationError(
                f"{name}: the plan has no premise to falsify; list the plan's premises first"
            )
        if fact is not None and fact not in plan.premises:
            raise SimulationError(
                f"{name}: {fact!r} is not a premise of the plan{_hint(fact, plan.premises)}; "
                f"its premises are {_choices(plan.premises)}"
            )
        return fact or plan.premises[0]
    if step is None:  # a revision's or an unknown expansion's step: checked when it exists
        return fact
    if kind == "withdraw":
        if not step.requires:
            raise SimulationError(
                f"{name}: step {step.id!r} requires no fact to withdraw; withdraw a fact at a "
                "step that requires it"
            )
        if fact is not None and fact not in step.requires:
            raise SimulationError(
                f"{name}: {step.id!r} does not require {fact!r}{_hint(fact, step.requires)}; "
                f"it requires {_choices(step.requires)}"
            )
        return fact or step.requires[0]
    if kind == "missing_evidence" and fact is not None and fact not in step.produces:
        raise SimulationError(
            f"{name}: {step.id!r} does not produce {fact!r}{_hint(fact, step.produces)}; "
            f"it produces {_choices(step.produces)}"
        )
    if kind == "approval_denied" and not step.approval and step.id not in confirmed:
        with_approval = [s.id for s in plan.steps if s.approval]
        raise SimulationError(
            f"{name}: step {step.id!r} needs no approval, so none can be denied; steps with an "
            f"approval: {_choices(with_approval)} (under Contract(confirm='plan') every writing "
            f"step's no is the whole plan's)"
        )
    return fact


def expect_faults(faults: Any, function: str) -> tuple[Fault, ...]:
    """``faults`` as a tuple of :class:`Fault` values, else :class:`PlanvizTypeError` saying how to build them.

    >>> expect_faults("S4:side_effect", "simulate")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    planviz.errors.PlanvizTypeError: simulate(faults=...) expects a list of Fault values, got str
    'S4:side_effect'; write faults=[Fault.parse('S4:side_effect')]
    """
    if isinstance(faults, (str, Fault)) or not isinstance(faults, Iterable):
        one = (
            f"Fault.parse({show_value(faults)})" if isinstance(faults, str) else show_value(faults)
        )
        fix = f"; write faults=[{one}]" if isinstance(faults, (str, Fault)) else ""
        raise PlanvizTypeError(
            f"{function}(faults=...) expects a list of Fault values, got "
            f"{type(faults).__name__} {show_value(faults)}{fix}"
        )
    out = tuple(faults)
    for i, f in enumerate(out):
        if not isinstance(f, Fault):
            raise PlanvizTypeError(
                f"{function}(faults=...) expects Fault values, got {type(f).__name__} "
                f"{show_value(f)} at faults[{i}]; build one with Fault.parse('S4:side_effect')"
            )
    return out
