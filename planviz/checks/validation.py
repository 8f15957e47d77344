"""Layered validation: every defect of a plan, found before anything runs.

:func:`validate` reports all findings of every layer at once, it does not stop
at the first: ``import`` (what an importer could not map, passed through),
``structure`` (ids, dependencies, cycles, empty fields), ``feasibility`` (facts
no route can establish), ``semantics`` (the contract's milestones and order;
the ancestor rule for required facts) and ``static`` (tools and their
arguments, placeholders, artifacts, shared resources, risk, forbidden states).

The ancestor rule is the heart of it: a fact a step requires counts only when
it is given (a premise or ``contract.given_facts``) or produced by one of the
step's dependency *ancestors*; a producer that merely comes earlier in some
order does not count, and the finding names it and the edge to add.

Contract entries (``required``, ``forbidden``, both sides of ``must_precede``)
name a step id or a step kind. A ``must_precede`` pair ``(a, b)`` holds when
every step matching ``b`` has some step matching ``a`` among its dependency
ancestors (not merely earlier in a topological order).

The ancestor rule has no back door: a premise or a contract given fact that
names a fact a step of the same plan produces is ``self_vouched_fact`` (and
does not count as given). Under a read-only contract every step must be
shown to read: a declared write is ``outside_intent`` and an effect declared
nowhere is ``unverified_effect`` (see :func:`planviz.checks.static.effect_of`).

Severities: every finding is an error except these warnings: ``no_artifact``
(that step can never be accepted by an observation), ``assumed_fact`` (a step
relies on a premise and no contract backs it), ``resource_conflict`` (runs
never let two holders of a resource overlap, so it is scheduled, not
refused), ``no_check`` (a writing step without a completion predicate),
``over_budget`` (a far step's expansion exceeds its budget), ``dead_end`` and
``isolated_step`` (when the plan has terminal steps, see
:mod:`planviz.structure.terminal`, a step whose work never reaches one), and
``vacuous_check`` on a step that does not write (an error on one that does).
``no_evidence`` is an error, since expected evidence is required. When the
plan's source format has no field for evidence or outputs (WorFBench, T-Eval),
``no_evidence`` and ``no_artifact`` are one ``info`` note per plan instead: the
format cannot say it, so the steps are not blamed one by one.

The gate, :func:`prepare`, refuses a plan exactly when the report has an
error (``Report.ok`` is false), with one rule for how:

- ``import`` or ``structure`` errors raise :class:`~planviz.errors.SchemaError`
  (the plan is malformed);
- ``feasibility`` errors (``infeasible_fact``, ``unsupported_premise``) return
  :class:`PlanningFailure` naming the facts: no retry can make them hold;
- every other error, ``semantics`` and ``static`` (``forbidden_step``,
  ``unknown_tool``, ``not_permitted``, ``outside_intent``,
  ``high_risk_unguarded``, ``forbidden_state``...), raises
  :class:`~planviz.errors.SemanticError`: the route breaks the contract's rules.

:func:`refusal` names the finding that refuses: the simulator stops a
refused run before step 1 with it, and the CLI prints it.

Layers that need a topological order (``order_violation``,
``unmet_requirement``, ``tool_precondition``, ``bad_placeholder``,
``resource_conflict``) are skipped when the plan has a cycle or unknown ids,
and ``Report.skipped`` says so; so are the checks that need a contract when
there is none.

>>> from planviz import examples
>>> validate(examples.load("cache_isolation")).ok
True
>>> from planviz import Step, Plan
>>> plan = Plan("g", [Step("S1", "build", expected_evidence="log", produces="built"),
...                   Step("S2", "ship", expected_evidence="log", requires="built", produces="shipped")])
>>> print(validate(plan).to_text())  # doctest: +NORMALIZE_WHITESPACE
error  unmet_requirement  S2, S1  step 'S2' requires 'built', which no dependency ancestor produces:
'S1' produces it but is not an ancestor of 'S2'; add 'S1' to S2.depends_on  [S2.requires]
skipped: checks that need a contract (feasibility, milestones, order, tools, forbidden states): no contract given
not ok: 1 error
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Mapping

from planviz.checks.context import Context, given_facts
from planviz.checks.report import Report, plural
from planviz.checks.semantic import (
    ANCESTRY_SEMANTICS,
    contract_semantics,
    feasibility,
    infeasible_facts,
    order_violations,
    premise_support,
    self_vouched,
    unmet_requirements,
    unsupported_premises,
    vouched_facts,
)
from planviz.checks.static import (
    ANCESTRY_STATIC,
    argument_checks,
    effect_checks,
    placeholders,
    resource_conflicts,
    step_static,
    tool_checks,
)
from planviz.checks.structural import dead_ends, structure
from planviz.errors import SchemaError, SemanticError
from planviz.plan.arguments import expect_contract, expect_plan
from planviz.plan.bulk import paused_gc
from planviz.plan.model import LAYERS, Contract, Finding, Plan

__all__ = [
    "validate",
    "prepare",
    "refusal",
    "checked_arguments",
    "PlanningFailure",
    "LAYERS",
    "CODES",
]

_tool = attrgetter("tool")
_NO_TOOL = frozenset((None,))

CODES: Mapping[str, tuple[str, ...]] = {
    "structure": (
        "no_steps",
        "duplicate_id",
        "unknown_dependency",
        "self_dependency",
        "cycle",
        "empty_action",
        "no_evidence",
        "dead_end",
        "isolated_step",
    ),
    "feasibility": ("infeasible_fact", "unsupported_premise", "assumed_fact"),
    "semantics": (
        "missing_required",
        "forbidden_step",
        "order_violation",
        "unmet_requirement",
        "self_vouched_fact",
    ),
    "static": (
        "unknown_tool",
        "not_permitted",
        "outside_intent",
        "unverified_effect",
        "effect_conflict",
        "bad_arguments",
        "tool_precondition",
        "bad_placeholder",
        "no_artifact",
        "resource_conflict",
        "high_risk_unguarded",
        "no_check",
        "vacuous_check",
        "over_budget",
        "forbidden_state",
    ),
}


def checked_arguments(what: str, plan: Any, contract: Any) -> Contract | None:
    """The contract to use (default: the plan's own), after checking both arguments are planviz values."""
    checked = expect_plan(plan, what)
    given = expect_contract(contract, what)
    return given if given is not None else checked.contract


def validate(plan: Plan, contract: Contract | None = None) -> Report:
    """Check a plan, layer by layer, and report every finding at once.

    ``contract`` defaults to ``plan.contract`` (the one shipped in the plan
    file). Without any contract the checks that need one are skipped (and
    ``Report.skipped`` says so); ``unmet_requirement`` still runs, with the
    plan's premises as the given facts.

    Parameters
    ----------
    plan : Plan
        The plan (any version).
    contract : Contract, optional
        What the goal demands; None uses ``plan.contract``.

    Returns
    -------
    Report
        Every finding (``.ok`` when none is an error); renders as a table in a notebook.

    Raises
    ------
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).
    PlanvizTypeError
        When ``contract`` is not a Contract or None.

    Examples
    --------
    >>> from planviz import examples
    >>> plan = examples.load("cache_isolation")
    >>> sorted(validate(plan.replace(steps=plan.steps[1:])).codes)
    ['missing_required', 'unknown_dependency']
    >>> validate(examples.load("delete_failing_test")).ok
    False
    >>> validate(plan, "contract.yaml")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    planviz.errors.PlanvizTypeError: validate(contract=...) expects a planviz Contract or None, got str
    'contract.yaml'; load it first with planviz.load_contract(path)
    """
    contract = checked_arguments("validate", plan, contract)
    with paused_gc():  # many small acyclic containers: spare the collector full-heap passes
        return _validate(plan, contract)


def _validate(plan: Plan, contract: Contract | None) -> Report:
    cx = Context(plan)
    findings = list(plan.import_findings)
    skipped: list[str] = []
    findings += structure(cx)
    findings += dead_ends(cx, contract)
    broken = []
    if cx.cyclic_nodes:
        broken.append("the plan has a cycle")
    if cx.unknown:
        broken.append("some dependencies name unknown steps")
    ancestry = not broken
    if not ancestry:
        why = " and ".join(broken)
        skipped.append(f"semantics: {', '.join(ANCESTRY_SEMANTICS)} not checked: {why}")
        skipped.append(f"static: {', '.join(ANCESTRY_STATIC)} not checked: {why}")
    findings += self_vouched(cx, contract)
    if contract is None:
        findings += premise_support(cx, None, ancestry)
        skipped.append(
            "checks that need a contract (feasibility, milestones, order, tools, forbidden states): "
            "no contract given"
        )
    else:
        if contract.given_facts or contract.obtainable_facts:
            findings += feasibility(cx, contract)
        else:
            skipped.append(
                "feasibility: not checked: the contract lists no given or obtainable facts"
            )
        findings += premise_support(cx, contract, ancestry)
        findings += contract_semantics(cx, contract)
        if ancestry:
            findings += order_violations(cx, contract)[0]
        if contract.tools:
            findings += tool_checks(cx, contract, ancestry=ancestry)
            findings += argument_checks(cx, contract)
        # some step calls a tool (a C loop)
        elif not _NO_TOOL.issuperset(map(_tool, cx.steps.values())):
            skipped.append(
                "static: unknown_tool, not_permitted, tool_precondition not "
                "checked: the contract has no tool registry"
            )
        findings += effect_checks(cx, contract)
    if ancestry:
        findings += unmet_requirements(
            cx, given_facts(plan, contract) - vouched_facts(cx, contract)
        )
        findings += placeholders(cx)
        findings += resource_conflicts(cx)
    findings += step_static(cx, contract)
    return Report(tuple(findings), tuple(skipped))


@dataclass(frozen=True)
class PlanningFailure:
    """The plan is refused, not retried: some facts it needs can be neither given nor obtained
    (``infeasible_fact``), or it leans on premises the contract does not back (``unsupported_premise``).
    ``unsatisfiable`` names those facts."""

    reason: str
    unsatisfiable: tuple[str, ...] = ()
    report: Report | None = field(default=None, repr=False, compare=False)

    def __bool__(self) -> bool:  # a failure is falsy, so `if prepare(...)` reads naturally
        return False


def prepare(plan: Plan, contract: Contract | None = None) -> Plan | PlanningFailure:
    """Gate a plan before execution: it runs only when :func:`validate` finds no error.

    Raises :class:`SchemaError` on structure (or import) errors; returns
    :class:`PlanningFailure` on feasibility errors (facts no route can have:
    ``infeasible_fact``, ``unsupported_premise``); raises
    :class:`SemanticError` on every other error (the contract's milestones and
    order, tools, permissions, intent, risk, forbidden states). Both
    exceptions carry ``.report``. Warnings never refuse. ``contract``
    defaults to ``plan.contract``.

    Parameters
    ----------
    plan : Plan
        The plan (any version).
    contract : Contract, optional
        None uses ``plan.contract``.

    Returns
    -------
    Plan or PlanningFailure
        The plan when it may run; a PlanningFailure naming the facts no route can have.

    Raises
    ------
    SchemaError
        On structure or import errors (``.report`` holds them).
    SemanticError
        On every other error: milestones, order, tools, permissions, intent, risk, forbidden states.
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).

    Examples
    --------
    >>> from planviz import examples
    >>> prepare(examples.load("cache_isolation")).goal.startswith("Tenants")
    True
    >>> prepare(examples.load("release_no_credentials")).unsatisfiable
    ('deploy_credentials',)
    >>> prepare(examples.load("delete_failing_test"))  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    planviz.errors.SemanticError: the plan does not satisfy its contract: step 'S2' has kind 'delete_test',
    which the contract forbids; remove it and reach the goal another way (and 2 more errors)
    """
    contract = checked_arguments("prepare", plan, contract)
    report = validate(plan, contract)
    gate = _refusing(report)
    if gate is None:
        return plan
    kind, bad = gate
    more = f" (and {plural(len(bad) - 1, 'more error')})" if len(bad) > 1 else ""
    if kind == "schema":
        raise SchemaError(f"the plan's structure is broken: {bad[0].message}{more}", report)
    if kind == "infeasible":
        cx = Context(plan)
        facts = set(infeasible_facts(plan, contract)) if contract is not None else set()
        facts.update(unsupported_premises(cx, contract, not (cx.cyclic_nodes or cx.unknown)))
        return PlanningFailure("; ".join(f.message for f in bad), tuple(sorted(facts)), report)
    raise SemanticError(f"the plan does not satisfy its contract: {bad[0].message}{more}", report)


_GATES = (
    ("schema", ("import", "structure")),
    ("infeasible", ("feasibility",)),
    ("semantic", ("semantics", "static")),
)


def _refusing(report: Report) -> tuple[str, list[Finding]] | None:
    """How prepare refuses (``schema``, ``infeasible``, ``semantic``) and the errors that make it, or None."""
    errors = report.errors
    for kind, layers in _GATES:
        bad = [f for f in errors if f.layer in layers]
        if bad:
            return kind, bad
    return None


def refusal(plan: Plan, contract: Contract | None) -> Finding | None:
    """The finding that makes :func:`prepare` refuse the plan (the first error of the refusing layer), or None.

    The one place the simulator and the CLI learn why a plan may not run.

    Parameters
    ----------
    plan : Plan
        The plan (any version).
    contract : Contract or None
        None uses ``plan.contract``.

    Returns
    -------
    Finding or None
        The first error of the refusing layer, or None when the plan may run.

    Raises
    ------
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).

    Examples
    --------
    >>> from planviz import examples
    >>> refusal(examples.load("cache_isolation"), None) is None
    True
    >>> refusal(examples.load("release_no_credentials"), None).code
    'infeasible_fact'
    """
    plan = expect_plan(plan, "refusal")
    contract = expect_contract(contract, "refusal")
    contract = checked_arguments("refusal", plan, contract)
    gate = _refusing(validate(plan, contract))
    return None if gate is None else gate[1][0]
