"""Far-horizon steps: a placeholder's budget, and the checks of a far step's own fields.

A step with ``horizon: far`` is a coarse goal kept as a placeholder, never
concrete work: its ``budget`` says what its expansion may cost (how many
concrete steps, how much duration in all), its optional ``expands_to`` holds
the concrete steps a plan file already knows. Only a far step carries either.
Runs expand placeholders (:mod:`planviz.runs.engine.horizon`); validation checks an
inline expansion against the budget (``over_budget``).

>>> from planviz import Step
>>> Step("F1", "migrate the reads", horizon="far", budget={"steps": 3, "duration": 40}).budget
Budget(steps=3, duration=40.0)
>>> Step("N1", "inventory", budget={"steps": 3})
Traceback (most recent call last):
...
planviz.errors.PlanFormatError: step 'N1'.budget: only a far-horizon step (horizon: far) has a budget; this step is near
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from planviz.errors import PlanFormatError, show_value
from planviz.io.plaindata import as_duration

__all__ = ["Budget", "far_fields"]


@dataclass(frozen=True)
class Budget:
    """What a far-horizon step may cost once expanded: at most ``steps`` concrete steps, whose durations add
    up to at most ``duration`` (None: no limit on that count).

    >>> Budget(steps=3, duration=40)
    Budget(steps=3, duration=40.0)
    >>> Budget(steps=-1)
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: budget.steps: expected an integer >= 0, got -1
    """

    steps: int | None = None
    duration: float | None = None

    def __post_init__(self) -> None:
        if self.steps is not None and (
            isinstance(self.steps, bool) or not isinstance(self.steps, int) or self.steps < 0
        ):
            raise PlanFormatError(
                f"expected an integer >= 0, got {show_value(self.steps, 60)}", path="budget.steps"
            )
        if self.duration is not None:
            d = as_duration(self.duration)
            if d is None:
                raise PlanFormatError(
                    f"expected a finite number >= 0, got {show_value(self.duration, 60)}",
                    path="budget.duration",
                )
            object.__setattr__(self, "duration", d)


def far_fields(step: Any, where: str) -> tuple[Budget | None, tuple[Any, ...]]:
    """``step``'s budget and expansion, normalised (a mapping becomes a :class:`Budget`, a list a tuple) and
    checked: the right types, and only on a far-horizon step. The expansion holds steps of ``step``'s own
    class (read from the step itself, so this module needs nothing from :mod:`planviz.plan.model`)."""
    budget: Any = step.budget
    if isinstance(budget, Mapping):
        unknown = sorted(set(budget) - {f.name for f in fields(Budget)}, key=str)
        if unknown:
            raise PlanFormatError(
                f"unknown key {unknown[0]!r}; a budget has steps and duration",
                path=f"{where}.budget",
            )
        budget = Budget(**budget)
    if budget is not None and not isinstance(budget, Budget):
        raise PlanFormatError(
            f"expected a Budget or a mapping {{steps, duration}}, got {show_value(budget, 60)}",
            path=f"{where}.budget",
        )
    raw: Any = step.expands_to
    if isinstance(raw, (str, Mapping)) or not isinstance(raw, Iterable):
        raise PlanFormatError(
            f"expected a list of steps, got {show_value(raw, 60)}", path=f"{where}.expands_to"
        )
    expansion = tuple(raw)
    for i, s in enumerate(expansion):
        if not isinstance(s, type(step)):
            raise PlanFormatError(
                f"expected a Step, got {show_value(s, 60)}", path=f"{where}.expands_to[{i}]"
            )
    for name, value in (("a budget", budget), ("expands_to", expansion)):
        if value and step.horizon != "far":
            raise PlanFormatError(
                f"only a far-horizon step (horizon: far) has {name}; this step is near",
                path=f"{where}.{name.split()[-1]}",
            )
    return budget, expansion
