"""Receding horizon: a far-horizon step is a placeholder, replaced by concrete steps when it becomes ready.

A step with ``horizon: far`` is never run as concrete work. When it becomes
ready, the planner expands it: the concrete steps come from
``simulate(..., expand=...)`` (a mapping from step id to steps, or a
callable ``(step, state) -> steps``), else from the step's own
``expands_to``. :func:`expanded` makes the new plan version: the concrete
steps take the placeholder's place, those with no dependency among them
inherit its dependencies, and its dependents are re-pointed to the
expansion's sinks (the concrete steps no other concrete step waits for).
The expansion counts against the placeholder's budget: exceeding it is an
``over_budget`` finding carried by the new version (``plan.import_findings``:
findings that come with a plan rather than from validating it). Only the
planner expands; without an expansion (and under the other strategies) the
run stops with outcome ``awaiting_expansion`` naming the step.
:func:`expand_ready` and :func:`await_expansion` are the controller's steps
(:mod:`planviz.runs.engine.simulation` calls them).

>>> from planviz import Plan, Step
>>> far = Step("F", "migrate reads", horizon="far", depends_on="N", budget={"steps": 1})
>>> plan = Plan("g", [Step("N", "prepare"), far, Step("Z", "cut over", depends_on="F")])
>>> v2 = expanded(plan, "F", [Step("F.a", "move report A"), Step("F.b", "move report B", depends_on="F.a")])
>>> v2.version, v2.ids, v2.step("F.a").depends_on, v2.step("Z").depends_on
(2, ('N', 'F.a', 'F.b', 'Z'), ('N',), ('F.b',))
>>> [f.code for f in v2.import_findings]
['over_budget']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Union

from planviz.checks.static import over_budget
from planviz.checks.validation import refusal
from planviz.errors import PlanFormatError, SimulationError, show_value
from planviz.plan.model import Plan, Step
from planviz.plan.placeholder import rename_placeholders
from planviz.plan.records import plan_from_dict, plan_to_dict
from planviz.runs.events import ExecutionState

if TYPE_CHECKING:  # the controller that calls these (simulation.py imports this module)
    from planviz.runs.engine.simulation import _Simulation

__all__ = [
    "Expansion",
    "concrete_steps",
    "expanded",
    "expansion_steps",
    "expand_ready",
    "await_expansion",
    "MAX_EXPANSIONS",
]

MAX_EXPANSIONS = 1000  # an expansion that keeps yielding far steps never becomes work

_StepsById = Mapping[str, Iterable[Union[Step, Mapping[str, object]]]]  # noqa: UP007 (a runtime alias)
_Expander = Callable[[Step, ExecutionState], Iterable[Step | Mapping[str, object]] | None]
Expansion = Union[_StepsById, _Expander]  # noqa: UP007 (a runtime alias)


def _as_steps(items: Any, where: str) -> tuple[Step, ...]:
    """Concrete steps from Steps or plan-file step mappings (checked like a plan file's steps)."""
    if isinstance(items, (str, Mapping, Step)) or not isinstance(items, Iterable):
        raise SimulationError(
            f"{where}: expected a list of steps (Step values or step mappings), got {show_value(items, 80)}"
        )
    items = list(items)
    if all(isinstance(s, Step) for s in items):
        return tuple(items)
    raw = [plan_to_dict(Plan("", [s]))["steps"][0] if isinstance(s, Step) else s for s in items]
    try:
        return plan_from_dict({"goal": "expansion", "steps": raw}, shape="planviz").steps
    except PlanFormatError as exc:
        raise SimulationError(f"{where}: {exc}") from None


def expansion_steps(expand: Expansion | None, plan: Plan) -> tuple[Step, ...]:
    """Every concrete step known before the run (``expand`` as a mapping, and inline ``expands_to``):
    what faults may name besides the plan's own steps."""
    out = [s for step in plan.steps for s in step.expands_to]
    if isinstance(expand, Mapping):
        for key, items in expand.items():
            out += _as_steps(items, f"expand[{key!r}]")
    return tuple(out)


def concrete_steps(
    expand: Expansion | None, step: Step, state: ExecutionState, root: str | None = None
) -> tuple[Step, ...] | None:
    """The concrete steps of far step ``step``: ``expand``'s (by id, then by the id it revises), else its
    own ``expands_to``; None when there are none (the run waits for an expansion)."""
    found: Any = None
    if callable(expand) and not isinstance(expand, Mapping):
        found = expand(step, state)
    elif isinstance(expand, Mapping):
        found = expand.get(step.id, expand.get(root) if root else None)
    if found is None:
        return step.expands_to or None
    steps = _as_steps(found, f"the expansion of {step.id!r}")
    return steps or None


def expanded(plan: Plan, far: str, steps: Iterable[Step]) -> Plan:
    """The next version of ``plan`` with far step ``far`` replaced by ``steps`` (see the module docstring).

    Raises :class:`SimulationError` when ``far`` is not a far-horizon step of the plan or ``steps`` is empty.
    """
    placeholder = plan.step(far)
    if placeholder.horizon != "far":
        raise SimulationError(
            f"step {far!r} is concrete (horizon: near); only a far-horizon step is expanded"
        )
    steps = tuple(steps)
    if not steps:
        raise SimulationError(f"the expansion of {far!r} has no steps")
    inside = {s.id for s in steps}
    waited_on = {d for s in steps for d in s.depends_on if d in inside}
    sinks = tuple(s.id for s in steps if s.id not in waited_on)
    concrete = []
    for s in steps:
        deps = _swap(s.depends_on, far, placeholder.depends_on)
        # a root of the expansion starts where the placeholder would have
        if not inside.intersection(deps):
            deps = tuple(dict.fromkeys((*placeholder.depends_on, *deps)))
        concrete.append(s if deps == s.depends_on else replace(s, depends_on=deps))
    rename = {far: sinks[0]} if len(sinks) == 1 else {}
    out: list[Step] = []
    for s in plan.steps:
        if s.id == far:
            out += concrete
        elif far in s.depends_on or (rename and s.arguments):
            args = rename_placeholders(s.arguments, rename, plan.by_id) if rename else s.arguments
            out.append(replace(s, depends_on=_swap(s.depends_on, far, sinks), arguments=args))
        else:
            out.append(s)
    overrun = over_budget(placeholder, steps)
    return plan.replace(
        steps=tuple(out),
        version=plan.version + 1,
        parent=plan,
        invalidated=(),
        trigger=f"expansion of the far-horizon step {far!r} into {', '.join(s.id for s in steps)}",
        import_findings=plan.import_findings + ((overrun,) if overrun else ()),
    )


def _swap(deps: tuple[str, ...], old: str, new: Iterable[str]) -> tuple[str, ...]:
    if old not in deps:
        return deps
    out: list[str] = []
    for d in deps:
        out += list(new) if d == old else [d]
    return tuple(dict.fromkeys(out))


def expand_ready(sim: _Simulation) -> bool:
    """The planner replaces a ready far-horizon step that has concrete steps: a new version, validated like any
    revision (a refused one stops the run), event ``expand``. True when the plan changed."""
    if "far_expansion" not in sim.mechanisms or not sim.far:
        return False
    m = sim.m
    for sid in m.ready():
        step = sim.plan.step(sid)
        if step.horizon != "far":
            continue
        steps = concrete_steps(sim.expand, step, m.state(), sim.root.get(sid))
        if steps is None:
            continue
        if sim.expansions >= MAX_EXPANSIONS:
            m.stop(
                "replan_limit",
                f"{sim.expansions} expansions already, and {sid!r} still expands into more "
                "placeholders",
                sid,
            )
            return False
        new = expanded(sim.plan, sid, steps)
        why = refusal(new, sim.contract)
        if why is not None:
            m.stop(
                "refused",
                f"the expansion of {sid!r} (plan v{new.version}) is refused: {why.code}: "
                f"{why.message}",
                sid,
                category=why.code,
            )
            return False
        sim.expansions += 1
        sim.adopt(new)
        over = [
            f.message for f in new.import_findings if f.code == "over_budget" and sid in f.steps
        ]
        m.expand(
            new,
            sid,
            f"{sid!r} expanded into {', '.join(s.id for s in steps)}: plan v{new.version}"
            + (f"; {over[-1]}" if over else ""),
        )
        return True
    return False


def await_expansion(m: Any, sid: str) -> None:
    """Stop: far step ``sid`` is ready and nothing expanded it (outcome ``awaiting_expansion``)."""
    m.stop(
        "awaiting_expansion",
        f"the far-horizon step {sid!r} is ready but has no concrete steps; a planner must "
        f"expand it (simulate(..., expand={{{sid!r}: [...]}}) or expands_to in the plan)",
        sid,
    )
