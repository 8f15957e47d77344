"""Grading a planner's output against a contract, offline: nothing is executed.

>>> from planviz import examples
>>> g = grade(examples.load("delete_failing_test"))
>>> g.admissible, g.required_recall, g.forbidden_present
(False, 0.5, ('S2',))
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from planviz.checks.context import Context, matches
from planviz.checks.report import Report, printable
from planviz.checks.semantic import order_violations
from planviz.checks.validation import checked_arguments, validate
from planviz.errors import PlanFormatError, expect_type, show_value
from planviz.plan.model import Contract, Plan, natural_key

__all__ = ["grade", "grade_many", "Grade", "GradeTable"]


@dataclass(frozen=True)
class Grade:
    """Offline grade of a planner's output against a contract, nothing executed.

    ``admissible``: the plan validates with no error; ``required_recall``: the
    share of the contract's required ids/kinds the plan has (1.0 when none are
    required); ``forbidden_present``: ids of the steps the contract forbids;
    ``order_violations``: the ``must_precede`` pairs the plan breaks.
    """

    admissible: bool
    required_recall: float
    forbidden_present: tuple[str, ...] = ()
    order_violations: tuple[tuple[str, str], ...] = ()
    missing_required: tuple[str, ...] = ()
    report: Report | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "admissible": self.admissible,
            "required_recall": self.required_recall,
            "forbidden_present": list(self.forbidden_present),
            "order_violations": [list(p) for p in self.order_violations],
            "missing_required": list(self.missing_required),
            "errors": len(self.report.errors) if self.report is not None else None,
        }

    def to_text(self) -> str:
        """What ``planviz grade`` prints."""

        def seq(items: Sequence[Any]) -> str:
            return (
                ", ".join(" < ".join(i) if isinstance(i, tuple) else i for i in items) or "(none)"
            )

        lines = [
            f"admissible: {'yes' if self.admissible else 'no'}",
            f"required recall: {self.required_recall:.2f}"
            + (f" (missing: {seq(self.missing_required)})" if self.missing_required else ""),
            f"forbidden steps present: {seq(self.forbidden_present)}",
            f"order violations: {seq(self.order_violations)}",
        ]
        if self.report is not None and not self.admissible:
            lines.append(f"errors: {', '.join(sorted({f.code for f in self.report.errors}))}")
        return "\n".join(map(printable, lines))


def grade(plan: Plan, contract: Contract | None = None) -> Grade:
    """Grade a plan against a contract (default: ``plan.contract``) without running it.

    Parameters
    ----------
    plan : Plan
        The plan (any version).
    contract : Contract, optional
        None uses ``plan.contract``.

    Returns
    -------
    Grade
        ``admissible``, ``required_recall``, ``forbidden_present``, ``order_violations``.

    Raises
    ------
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).

    Examples
    --------
    >>> from planviz import examples
    >>> g = grade(examples.load("delete_failing_test"))
    >>> g.admissible, g.required_recall, g.forbidden_present
    (False, 0.5, ('S2',))
    """
    contract = checked_arguments("grade", plan, contract)
    if contract is None:
        raise PlanFormatError(
            "grading needs a contract: pass one (planviz grade FILE --contract F) "
            "or add a contract: section to the plan file",
            path="contract",
        )
    report = validate(plan, contract)
    cx = Context(plan)
    by_kind = cx.by_kind()
    required = list(dict.fromkeys(contract.required))
    missing = tuple(r for r in required if not matches(cx, r, by_kind))
    recall = 1.0 if not required else (len(required) - len(missing)) / len(required)
    forbidden = sorted(
        {sid for name in contract.forbidden for sid in matches(cx, name, by_kind)}, key=natural_key
    )
    violated: list[tuple[str, str]] = []
    if not cx.cyclic_nodes:
        violated = order_violations(cx, contract)[1]
    return Grade(report.ok, recall, tuple(forbidden), tuple(violated), missing, report)


@dataclass(frozen=True)
class GradeTable:
    """Grades of a batch of plans, one row per case: ``rows`` is a tuple of (name, Grade)."""

    rows: tuple[tuple[str, Grade], ...] = ()

    @property
    def admissible_rate(self) -> float:
        return sum(g.admissible for _, g in self.rows) / len(self.rows) if self.rows else 0.0

    @property
    def mean_recall(self) -> float:
        return sum(g.required_recall for _, g in self.rows) / len(self.rows) if self.rows else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": [{"name": name, **g.to_dict()} for name, g in self.rows],
            "admissible_rate": self.admissible_rate,
            "mean_recall": self.mean_recall,
        }

    def _cells(self) -> list[tuple[str, ...]]:
        return [
            (
                name,
                "yes" if g.admissible else "no",
                f"{g.required_recall:.2f}",
                str(len(g.forbidden_present)),
                str(len(g.order_violations)),
            )
            for name, g in self.rows
        ]

    _HEAD = ("plan", "admissible", "recall", "forbidden", "order violations")

    def to_text(self) -> str:
        table = [self._HEAD, *self._cells()]
        widths = [max(len(r[i]) for r in table) for i in range(len(self._HEAD))]
        lines = [
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))
            ).rstrip()
            for r in table
        ]
        lines.append(
            f"{len(self.rows)} plans, {self.admissible_rate:.0%} admissible, "
            f"mean required recall {self.mean_recall:.2f}"
        )
        return "\n".join(map(printable, lines))

    def _repr_html_(self) -> str:
        esc = html.escape
        head = "".join(f"<th>{esc(h)}</th>" for h in self._HEAD)
        body = "".join(
            "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in self._cells()
        )
        caption = esc(
            f"{len(self.rows)} plans, {self.admissible_rate:.0%} admissible, "
            f"mean required recall {self.mean_recall:.2f}"
        )
        return (
            f"<table class='planviz-grades'><caption>{caption}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>"
        )


def grade_many(cases: Iterable[Plan | Sequence[str | Plan | Contract | None]]) -> GradeTable:
    """Grade a batch: each case is ``(name, plan, contract)``, ``(plan, contract)``, ``(name, plan)`` or a plan.

    Unnamed cases are named ``#1``, ``#2``...; a missing or None ``contract``
    means the plan's own.

    Parameters
    ----------
    cases : iterable
        Each a ``(name, plan, contract)``, ``(plan, contract)``, ``(name, plan)`` or a plan.

    Returns
    -------
    GradeTable
        One row per case; prints and renders as a table.

    Raises
    ------
    PlanFormatError
        When a case has none of the shapes (naming it).
    PlanvizTypeError
        When ``cases`` is not iterable.

    Examples
    --------
    >>> from planviz import examples
    >>> t = grade_many([("cache", examples.load("cache_isolation"), None),
    ...                 ("delete", examples.load("delete_failing_test"), None)])
    >>> [(name, g.admissible) for name, g in t.rows]
    [('cache', True), ('delete', False)]
    """
    if isinstance(cases, (str, bytes)) or not isinstance(cases, Iterable):
        expect_type(
            cases,
            (list, tuple),
            "grade_many",
            "cases",
            "an iterable of cases",
            "pass a list such as [(name, plan, contract), ...] (load a file first with planviz.load_plans(path))",
        )
    rows = []
    for i, given in enumerate(cases, 1):
        # its shape checked here, its values by grade
        case: Any = (given, None) if isinstance(given, Plan) else given
        if not isinstance(case, (list, tuple)) or len(case) not in (2, 3):
            raise PlanFormatError(
                f"expected (name, plan, contract), (plan, contract), (name, plan) or a Plan, "
                f"got {show_value(case, 80)}",
                path=f"cases[{i - 1}]",
            )
        if len(case) == 3:
            name, plan, contract = case
        elif isinstance(case[1], Plan):
            (name, plan), contract = case, None
        else:
            (plan, contract), name = case, f"#{i}"
        rows.append((str(name), grade(plan, contract)))
    return GradeTable(tuple(rows))
