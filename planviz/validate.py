"""Layered validation: every defect of a plan, found before anything runs.

:func:`validate` reports all findings of every layer at once, it does not stop
at the first: ``import`` (what an importer could not map, passed through),
``structure`` (ids, dependencies, cycles, empty fields), ``feasibility`` (facts
no route can establish), ``semantics`` (the contract's milestones and order;
the ancestor rule for required facts) and ``static`` (tools, placeholders,
artifacts, shared resources, risk, forbidden states).

The ancestor rule is the heart of it: a fact a step requires counts only when
it is given (a premise or ``contract.given_facts``) or produced by one of the
step's dependency *ancestors*; a producer that merely comes earlier in some
order does not count, and the finding names it and the edge to add.

Contract entries (``required``, ``forbidden``, both sides of ``must_precede``)
name a step id or a step kind. A ``must_precede`` pair ``(a, b)`` holds when
every step matching ``b`` has some step matching ``a`` among its dependency
ancestors (not merely earlier in a topological order).

Severities: every finding is an error except ``no_artifact``, a warning (the
plan is well formed, but that step can never be accepted by an observation).
``no_evidence`` is an error, since expected evidence is required.

Layers that need a topological order (``order_violation``,
``unmet_requirement``, ``tool_precondition``, ``bad_placeholder``,
``resource_conflict``) are skipped when the plan has a cycle or unknown ids,
and ``Report.skipped`` says so; so are the checks that need a contract when
there is none.

>>> from planviz import examples
>>> validate(examples.load("cache_isolation")).ok
True
>>> from planviz.model import Step, Plan
>>> plan = Plan("g", [Step("S1", "build", expected_evidence="log", produces="built"),
...                   Step("S2", "ship", expected_evidence="log", requires="built", produces="shipped")])
>>> print(validate(plan).to_text())
error  unmet_requirement  S2, S1  step 'S2' requires 'built', which no dependency ancestor produces: 'S1' produces it but is not an ancestor of 'S2'; add 'S1' to S2.depends_on  [S2.requires]
skipped: checks that need a contract (feasibility, milestones, order, tools, forbidden states): no contract given
not ok: 1 error
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from . import _checks as C
from ._index import paused_gc
from .errors import PlanFormatError, SchemaError, SemanticError
from .model import LAYERS, Contract, Finding, Plan

__all__ = [
    "validate",
    "prepare",
    "grade",
    "grade_many",
    "summarize",
    "Report",
    "Summary",
    "Grade",
    "GradeTable",
    "PlanningFailure",
    "LAYERS",
    "CODES",
]

CODES: Mapping[str, tuple[str, ...]] = {
    "structure": ("duplicate_id", "unknown_dependency", "self_dependency", "cycle", "empty_action", "no_evidence"),
    "feasibility": ("infeasible_fact",),
    "semantics": ("missing_required", "forbidden_step", "order_violation", "unmet_requirement"),
    "static": ("unknown_tool", "not_permitted", "outside_intent", "tool_precondition", "bad_placeholder",
               "no_artifact", "resource_conflict", "high_risk_unguarded", "forbidden_state"),
}
_LAYER_RANK = {name: i for i, name in enumerate(LAYERS)}


def _sort_key(f: Finding) -> tuple:
    return (_LAYER_RANK.get(f.layer, len(LAYERS)), f.layer, f.code, f.steps, f.edges, f.message, f.where)


def _printable(text: str) -> str:
    """Control characters shown as escapes, so plan text cannot move a terminal's cursor or colour it."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class Report:
    """Every finding about one plan, sorted by layer, code and steps; ``ok`` when none is an error.

    ``skipped`` lists the checks that could not run and why (a cycle, unknown
    ids, no contract).

    >>> r = Report((Finding("no_artifact", "static", "warning", "step 'A' produces no fact", ("A",)),))
    >>> r.ok, len(r.warnings), r.for_step("A")[0].code
    (True, 1, 'no_artifact')
    """

    findings: tuple[Finding, ...] = ()
    skipped: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "findings", tuple(sorted(self.findings, key=_sort_key)))
        object.__setattr__(self, "skipped", tuple(self.skipped))

    @property
    def ok(self) -> bool:
        """True when no finding is an error (warnings allowed)."""
        return not any(f.severity == "error" for f in self.findings)

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "warning")

    @property
    def codes(self) -> frozenset[str]:
        """The distinct finding codes."""
        return frozenset(f.code for f in self.findings)

    def by_code(self) -> dict[str, tuple[Finding, ...]]:
        """Findings grouped by code, codes sorted."""
        groups: dict[str, list[Finding]] = {}
        for f in self.findings:
            groups.setdefault(f.code, []).append(f)
        return {code: tuple(groups[code]) for code in sorted(groups)}

    def by_layer(self, layer: str) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.layer == layer)

    def for_step(self, step_id: str) -> tuple[Finding, ...]:
        """Findings that involve this step."""
        return tuple(f for f in self.findings if step_id in f.steps)

    def __iter__(self):
        return iter(self.findings)

    def verdict(self) -> str:
        """One line: ``ok`` or ``not ok`` with the counts."""
        e, w = len(self.errors), len(self.warnings)
        if e:
            return f"not ok: {_plural(e, 'error')}" + (f", {_plural(w, 'warning')}" if w else "")
        return "ok" + (f" ({_plural(w, 'warning')})" if w else ": no findings")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (what ``planviz validate --json`` prints)."""
        return {
            "ok": self.ok,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "findings": [
                {"code": f.code, "layer": f.layer, "severity": f.severity, "steps": list(f.steps),
                 "edges": [list(e) for e in f.edges], "message": f.message, "where": f.where}
                for f in self.findings
            ],
            "skipped": list(self.skipped),
        }

    def to_text(self) -> str:
        """What ``planviz validate`` prints: one line per finding, then skipped checks, then the verdict.

        Control characters in plan text are shown escaped, one finding per line.
        """
        lines = [_printable(f"{f.severity}  {f.code}  {', '.join(f.steps) if f.steps else '-'}  {f.message}"
                            + (f"  [{f.where}]" if f.where else ""))
                 for f in self.findings]
        lines += [_printable(f"skipped: {s}") for s in self.skipped]
        lines.append(self.verdict())
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        esc = html.escape
        rows = "".join(
            f"<tr class='{esc(f.severity)}'><td>{esc(f.severity)}</td><td>{esc(f.layer)}</td>"
            f"<td><code>{esc(f.code)}</code></td><td>{esc(', '.join(f.steps))}</td>"
            f"<td style='text-align:left'>{esc(f.message)}</td><td>{esc(f.where)}</td></tr>"
            for f in self.findings
        )
        skipped = "".join(f"<li>{esc(s)}</li>" for s in self.skipped)
        return (
            "<table class='planviz-report'>"
            f"<caption>{esc(self.verdict())}</caption>"
            "<thead><tr><th>severity</th><th>layer</th><th>code</th><th>steps</th>"
            "<th style='text-align:left'>message</th><th>where</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
            + (f"<p>skipped:</p><ul class='planviz-skipped'>{skipped}</ul>" if skipped else "")
        )


def _arguments(what: str, plan: Any, contract: Any) -> Contract | None:
    """The contract to use (default: the plan's own), after checking both arguments are planviz values."""
    if not isinstance(plan, Plan):
        raise PlanFormatError(f"{what} expects a planviz Plan, got {type(plan).__name__} {plan!r:.80}; "
                              "load a file with planviz.load_plan(path)", path="plan")
    if contract is not None and not isinstance(contract, Contract):
        raise PlanFormatError(f"{what} expects a planviz Contract or None, got {type(contract).__name__} "
                              f"{contract!r:.80}; load a file with planviz.load_contract(path)", path="contract")
    return contract if contract is not None else plan.contract


def validate(plan: Plan, contract: Contract | None = None) -> Report:
    """Check a plan, layer by layer, and report every finding at once.

    ``contract`` defaults to ``plan.contract`` (the one shipped in the plan
    file). Without any contract the checks that need one are skipped (and
    ``Report.skipped`` says so); ``unmet_requirement`` still runs, with the
    plan's premises as the given facts.

    >>> from planviz import examples
    >>> plan = examples.load("cache_isolation")
    >>> sorted(validate(plan.replace(steps=plan.steps[1:])).codes)
    ['missing_required', 'unknown_dependency']
    >>> validate(examples.load("delete_failing_test")).ok
    False
    >>> validate(plan, "contract.yaml")
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: contract: validate expects a planviz Contract or None, got str 'contract.yaml'; load a file with planviz.load_contract(path)
    """
    contract = _arguments("validate", plan, contract)
    with paused_gc():  # many small acyclic containers: spare the collector full-heap passes
        return _validate(plan, contract)


def _validate(plan: Plan, contract: Contract | None) -> Report:
    ix = C.Index(plan)
    findings = list(plan.import_findings)
    skipped: list[str] = []
    findings += C.structure(ix)
    broken = []
    if ix.cyclic_nodes:
        broken.append("the plan has a cycle")
    if ix.unknown:
        broken.append("some dependencies name unknown steps")
    ancestry = not broken
    if not ancestry:
        why = " and ".join(broken)
        skipped.append(f"semantics: {', '.join(C.ANCESTRY_SEMANTICS)} not checked: {why}")
        skipped.append(f"static: {', '.join(C.ANCESTRY_STATIC)} not checked: {why}")
    if contract is None:
        skipped.append("checks that need a contract (feasibility, milestones, order, tools, forbidden states): "
                       "no contract given")
    else:
        if contract.given_facts or contract.obtainable_facts:
            findings += C.feasibility(ix, contract)
        else:
            skipped.append("feasibility: not checked: the contract lists no given or obtainable facts")
        findings += C.contract_semantics(ix, contract)
        if ancestry:
            findings += C.order_violations(ix, contract)[0]
        if contract.tools:
            findings += C.tool_checks(ix, contract, ancestry=ancestry)
        elif any(s.tool is not None for s in ix.steps.values()):
            skipped.append("static: unknown_tool, not_permitted, outside_intent, tool_precondition not "
                           "checked: the contract has no tool registry")
    if ancestry:
        findings += C.unmet_requirements(ix, C.given_facts(plan, contract))
        findings += C.placeholders(ix)
        findings += C.resource_conflicts(ix)
    findings += C.step_static(ix, contract)
    return Report(tuple(findings), tuple(skipped))


@dataclass(frozen=True)
class Summary:
    """Validation of many plans at a glance: how many have errors, and which codes, how often.

    ``counts`` maps code -> number of findings; ``plans_by_code`` code -> number of plans with it;
    ``severities`` code -> ``error`` or ``warning`` (``error`` if it was ever one).
    """

    plans: int
    plans_with_errors: int
    counts: Mapping[str, int] = field(default_factory=dict)
    plans_by_code: Mapping[str, int] = field(default_factory=dict)
    severities: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"plans": self.plans, "plans_with_errors": self.plans_with_errors,
                "counts": dict(self.counts), "plans_by_code": dict(self.plans_by_code),
                "severities": dict(self.severities)}

    def to_text(self) -> str:
        lines = [f"{self.plans} plans, {self.plans_with_errors} with errors"]
        if self.counts:
            width = max(len(c) for c in self.counts)
            lines.append(f"{'code':<{width}}  severity  findings  plans")
            lines += [f"{code:<{width}}  {self.severities.get(code, ''):<8}  {n:>8}  "
                      f"{self.plans_by_code.get(code, 0):>5}"
                      for code, n in self.counts.items()]
        return "\n".join(lines)


def summarize(reports: Iterable[Report]) -> Summary:
    """Tabulate many reports (``planviz validate`` on a JSON Lines file of plans prints this).

    >>> s = summarize([Report(), Report((Finding("cycle", "structure", "error", "m", ("A", "B")),))])
    >>> (s.plans, s.plans_with_errors, dict(s.counts))
    (2, 1, {'cycle': 1})
    """
    plans = bad = 0
    counts: Counter[str] = Counter()
    per_plan: Counter[str] = Counter()
    severities: dict[str, str] = {}
    for r in reports:
        plans += 1
        bad += not r.ok
        counts.update(f.code for f in r.findings)
        per_plan.update(r.codes)
        for f in r.findings:
            if severities.get(f.code) != "error":
                severities[f.code] = f.severity
    return Summary(plans, bad, dict(sorted(counts.items())), dict(sorted(per_plan.items())),
                   dict(sorted(severities.items())))


@dataclass(frozen=True)
class PlanningFailure:
    """The plan is refused, not retried: some facts it needs can be neither given nor obtained."""

    reason: str
    unsatisfiable: tuple[str, ...] = ()
    report: Report | None = field(default=None, repr=False, compare=False)

    def __bool__(self) -> bool:  # a failure is falsy, so `if prepare(...)` reads naturally
        return False


def prepare(plan: Plan, contract: Contract | None = None) -> Plan | PlanningFailure:
    """Gate a plan before execution: structure, then feasibility, then semantics.

    Raises :class:`SchemaError` on structure (or import) errors and
    :class:`SemanticError` on semantic errors, both carrying ``.report``;
    returns :class:`PlanningFailure` when a needed fact is infeasible; else the
    plan. Static findings (tools, resources, forbidden states) do not stop it:
    the runtime enforces those as it runs. ``contract`` defaults to ``plan.contract``.

    >>> from planviz import examples
    >>> prepare(examples.load("cache_isolation")).goal.startswith("Tenants")
    True
    >>> prepare(examples.load("release_no_credentials")).unsatisfiable
    ('deploy_credentials',)
    """
    contract = _arguments("prepare", plan, contract)
    report = validate(plan, contract)
    bad = [f for f in report.errors if f.layer in ("import", "structure")]
    if bad:
        raise SchemaError(f"the plan's structure is broken: {bad[0].message}"
                          + (f" (and {_plural(len(bad) - 1, 'more error')})" if len(bad) > 1 else ""), report)
    infeasible = report.by_layer("feasibility")
    if infeasible:
        facts = tuple(C.infeasible_facts(plan, contract))
        return PlanningFailure("; ".join(f.message for f in infeasible), facts, report)
    sem = [f for f in report.errors if f.layer == "semantics"]
    if sem:
        raise SemanticError(f"the plan does not satisfy its contract: {sem[0].message}"
                            + (f" (and {_plural(len(sem) - 1, 'more error')})" if len(sem) > 1 else ""), report)
    return plan


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
        return {"admissible": self.admissible, "required_recall": self.required_recall,
                "forbidden_present": list(self.forbidden_present),
                "order_violations": [list(p) for p in self.order_violations],
                "missing_required": list(self.missing_required),
                "errors": len(self.report.errors) if self.report is not None else None}

    def to_text(self) -> str:
        """What ``planviz grade`` prints."""
        def seq(items: Sequence[Any]) -> str:
            return ", ".join(" < ".join(i) if isinstance(i, tuple) else i for i in items) or "(none)"

        lines = [f"admissible: {'yes' if self.admissible else 'no'}",
                 f"required recall: {self.required_recall:.2f}"
                 + (f" (missing: {seq(self.missing_required)})" if self.missing_required else ""),
                 f"forbidden steps present: {seq(self.forbidden_present)}",
                 f"order violations: {seq(self.order_violations)}"]
        if self.report is not None and not self.admissible:
            lines.append(f"errors: {', '.join(sorted({f.code for f in self.report.errors}))}")
        return "\n".join(map(_printable, lines))


def grade(plan: Plan, contract: Contract | None = None) -> Grade:
    """Grade a plan against a contract (default: ``plan.contract``) without running it.

    >>> from planviz import examples
    >>> g = grade(examples.load("delete_failing_test"))
    >>> g.admissible, g.required_recall, g.forbidden_present
    (False, 0.5, ('S2',))
    """
    contract = _arguments("grade", plan, contract)
    if contract is None:
        raise PlanFormatError("grading needs a contract: pass one (planviz grade FILE --contract F) "
                              "or add a contract: section to the plan file", path="contract")
    report = validate(plan, contract)
    ix = C.Index(plan)
    by_kind = ix.by_kind()
    required = list(dict.fromkeys(contract.required))
    missing = tuple(r for r in required if not C.matches(ix, r, by_kind))
    recall = 1.0 if not required else (len(required) - len(missing)) / len(required)
    forbidden = sorted({sid for name in contract.forbidden for sid in C.matches(ix, name, by_kind)})
    violated: list[tuple[str, str]] = []
    if not ix.cyclic_nodes:
        violated = C.order_violations(ix, contract)[1]
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
        return {"rows": [{"name": name, **g.to_dict()} for name, g in self.rows],
                "admissible_rate": self.admissible_rate, "mean_recall": self.mean_recall}

    def _cells(self) -> list[tuple[str, ...]]:
        return [(name, "yes" if g.admissible else "no", f"{g.required_recall:.2f}",
                 str(len(g.forbidden_present)), str(len(g.order_violations))) for name, g in self.rows]

    _HEAD = ("plan", "admissible", "recall", "forbidden", "order violations")

    def to_text(self) -> str:
        table = [self._HEAD, *self._cells()]
        widths = [max(len(r[i]) for r in table) for i in range(len(self._HEAD))]
        lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
                 for r in table]
        lines.append(f"{len(self.rows)} plans, {self.admissible_rate:.0%} admissible, "
                     f"mean required recall {self.mean_recall:.2f}")
        return "\n".join(map(_printable, lines))

    def _repr_html_(self) -> str:
        esc = html.escape
        head = "".join(f"<th>{esc(h)}</th>" for h in self._HEAD)
        body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in self._cells())
        caption = esc(f"{len(self.rows)} plans, {self.admissible_rate:.0%} admissible, "
                      f"mean required recall {self.mean_recall:.2f}")
        return (f"<table class='planviz-grades'><caption>{caption}</caption><thead><tr>{head}</tr></thead>"
                f"<tbody>{body}</tbody></table>")


def grade_many(cases: Iterable[Sequence[Any]]) -> GradeTable:
    """Grade a batch: each case is ``(name, plan, contract)``, ``(plan, contract)``, ``(name, plan)`` or a plan.

    Unnamed cases are named ``#1``, ``#2``...; a missing or None ``contract``
    means the plan's own.

    >>> from planviz import examples
    >>> t = grade_many([("cache", examples.load("cache_isolation"), None),
    ...                 ("delete", examples.load("delete_failing_test"), None)])
    >>> [(name, g.admissible) for name, g in t.rows]
    [('cache', True), ('delete', False)]
    """
    rows = []
    for i, case in enumerate(cases, 1):
        case = (case, None) if isinstance(case, Plan) else case
        if not isinstance(case, (list, tuple)) or len(case) not in (2, 3):
            raise PlanFormatError(f"expected (name, plan, contract), (plan, contract), (name, plan) or a Plan, "
                                  f"got {case!r:.80}", path=f"cases[{i - 1}]")
        if len(case) == 3:
            name, plan, contract = case
        elif isinstance(case[1], Plan):
            (name, plan), contract = case, None
        else:
            (plan, contract), name = case, f"#{i}"
        rows.append((str(name), grade(plan, contract)))
    return GradeTable(tuple(rows))
