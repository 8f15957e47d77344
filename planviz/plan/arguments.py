"""Arguments of the public functions: the planviz value asked for, or :class:`PlanvizTypeError` saying what to do.

The one rule for argument types (``errors.expect_type``), worded for the values users most often pass by
mistake: a path where a loaded plan is expected is answered with the call that loads it.

>>> expect_plan("plan.yaml", "critical_path")
Traceback (most recent call last):
...
planviz.errors.PlanvizTypeError: critical_path(plan=...) expects a planviz Plan, got str 'plan.yaml'; load it first with planviz.load_plan(path)
"""

from __future__ import annotations

import os
from typing import Any

from planviz.errors import expect_type
from planviz.plan.model import Contract, Plan

__all__ = ["expect_plan", "expect_contract", "loaded_fix"]


def loaded_fix(value: Any, loader: str, maker: str) -> str:
    """The fix a message offers: load a path first, else build the value."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return f"load it first with planviz.{loader}(path)"
    return f"build one with {maker}"


def expect_plan(value: Any, function: str, argument: str = "plan") -> Plan:
    """``value`` when it is a :class:`Plan`, else :class:`PlanvizTypeError` naming ``function(argument=...)``."""
    if isinstance(value, Plan):
        return value
    return expect_type(
        value,
        Plan,
        function,
        argument,
        "a planviz Plan",  # type: ignore[no-any-return]
        loaded_fix(value, "load_plan", "planviz.Plan(goal, steps) or planviz.load_plan(path)"),
    )


def expect_contract(value: Any, function: str, argument: str = "contract") -> Contract | None:
    """``value`` when it is a :class:`Contract` or None, else :class:`PlanvizTypeError`."""
    if value is None or isinstance(value, Contract):
        return value
    return expect_type(
        value,
        Contract,
        function,
        argument,  # type: ignore[no-any-return]
        "a planviz Contract or None",
        loaded_fix(value, "load_contract", "planviz.Contract(...) or planviz.load_contract(path)"),
    )
