"""What validation found: a :class:`Report` per plan, and a :class:`Summary` of many.

A report holds every finding, sorted by layer, code and steps; ``ok`` when
none is an error. It prints as text (``planviz validate``), as JSON data and
as a table in a notebook.

>>> r = Report((Finding("no_artifact", "static", "warning", "step 'A' produces no fact", ("A",)),))
>>> r.ok, len(r.warnings), r.for_step("A")[0].code
(True, 1, 'no_artifact')
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping

from planviz.errors import expect_names, expect_type
from planviz.plan.model import LAYERS, Finding, natural_key

__all__ = ["Report", "Summary", "summarize", "printable", "plural"]

_LAYER_RANK = {name: i for i, name in enumerate(LAYERS)}


def _sort_key(f: Finding) -> tuple[Any, ...]:
    return (
        _LAYER_RANK.get(f.layer, len(LAYERS)),
        f.layer,
        f.code,
        tuple(map(natural_key, f.steps)),
        tuple(tuple(map(natural_key, e)) for e in f.edges),
        f.message,
        f.where,
    )


def printable(text: str) -> str:
    """Control characters shown as escapes, so plan text cannot move a terminal's cursor or colour it."""
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text
    )


def plural(n: int, word: str) -> str:
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
    def infos(self) -> tuple[Finding, ...]:
        """The info notes: what the source format cannot say, text an importer skipped; never a defect."""
        return tuple(f for f in self.findings if f.severity == "info")

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

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    def verdict(self) -> str:
        """One line: ``ok`` or ``not ok`` with the counts.

        >>> Report((Finding("no_evidence", "structure", "info", "m"),)).verdict()
        'ok (1 note)'
        """
        e, w, i = len(self.errors), len(self.warnings), len(self.infos)
        counts = ", ".join(
            plural(n, word) for n, word in ((e, "error"), (w, "warning"), (i, "note")) if n
        )
        if e:
            return f"not ok: {counts}"
        return f"ok ({counts})" if counts else "ok: no findings"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (what ``planviz validate --json`` prints)."""
        return {
            "ok": self.ok,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "infos": len(self.infos),
            "findings": [
                {
                    "code": f.code,
                    "layer": f.layer,
                    "severity": f.severity,
                    "steps": list(f.steps),
                    "edges": [list(e) for e in f.edges],
                    "message": f.message,
                    "where": f.where,
                }
                for f in self.findings
            ],
            "skipped": list(self.skipped),
        }

    def to_text(self) -> str:
        """What ``planviz validate`` prints: one line per finding, then skipped checks, then the verdict.

        Control characters in plan text are shown escaped, one finding per line.
        """
        lines = [
            printable(
                f"{f.severity}  {f.code}  {', '.join(f.steps) if f.steps else '-'}  {f.message}"
                + (f"  [{f.where}]" if f.where else "")
            )
            for f in self.findings
        ]
        lines += [printable(f"skipped: {s}") for s in self.skipped]
        lines.append(self.verdict())
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape as esc  # notebooks only: the command line never pays for it

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


@dataclass(frozen=True)
class Summary:
    """Validation of many plans at a glance: how many have errors, and which codes, how often.

    ``counts`` maps code -> number of findings; ``plans_by_code`` code -> number of plans with it;
    ``severities`` code -> its gravest severity seen (``error``, else ``warning``, else ``info``);
    ``failed`` names each plan with an error: ``(index, name, error codes)``, the index counting
    from 0 in input order and the name the plan's record id (``Plan.name``; empty when it has none).
    """

    plans: int
    plans_with_errors: int
    counts: Mapping[str, int] = field(default_factory=dict)
    plans_by_code: Mapping[str, int] = field(default_factory=dict)
    severities: Mapping[str, str] = field(default_factory=dict)
    failed: tuple[tuple[int, str, tuple[str, ...]], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "plans": self.plans,
            "plans_with_errors": self.plans_with_errors,
            "counts": dict(self.counts),
            "plans_by_code": dict(self.plans_by_code),
            "severities": dict(self.severities),
            "failed": [
                {"index": i, "id": name, "errors": list(codes)} for i, name, codes in self.failed
            ],
        }

    def to_text(self) -> str:
        """The table of codes, then one line per failed plan: its index, its id and its error codes."""
        lines = [f"{self.plans} plans, {self.plans_with_errors} with errors"]
        if self.counts:
            width = max(len(c) for c in self.counts)
            lines.append(f"{'code':<{width}}  severity  findings  plans")
            lines += [
                f"{code:<{width}}  {self.severities.get(code, ''):<8}  {n:>8}  "
                f"{self.plans_by_code.get(code, 0):>5}"
                for code, n in self.counts.items()
            ]
        if self.failed:
            lines.append("failed (record index, id: error codes):")
            width = len(str(self.failed[-1][0]))
            lines += [
                printable(f"  {i:>{width}}  {name or '-'}: {', '.join(codes)}")
                for i, name, codes in self.failed
            ]
        return "\n".join(lines)


_GRAVITY = {"error": 2, "warning": 1, "info": 0}


def summarize(reports: Iterable[Report], names: Iterable[str] | None = None) -> Summary:
    """Tabulate many reports (``planviz validate`` on a JSON Lines file of plans prints this).

    ``names`` gives each report's plan name (``Plan.name``, in the same order),
    so ``Summary.failed`` can say which record failed.

    Parameters
    ----------
    reports : iterable of Report
        One report per plan (from :func:`validate`).
    names : iterable of str, optional
        Each report's plan name, in the same order.

    Returns
    -------
    Summary
        ``plans``, ``plans_with_errors``, ``counts`` per code and ``failed`` (index, name, codes).

    Raises
    ------
    PlanvizTypeError
        When ``reports`` is not an iterable of Reports.

    Examples
    --------
    >>> s = summarize([Report(), Report((Finding("cycle", "structure", "error", "m", ("A", "B")),))], ["a", "b"])
    >>> (s.plans, s.plans_with_errors, dict(s.counts), s.failed)
    (2, 1, {'cycle': 1}, ((1, 'b', ('cycle',)),))
    """
    reports = [
        expect_type(
            r,
            Report,
            "summarize",
            "reports",
            "an iterable of planviz Reports",
            "make each with planviz.validate(plan)",
        )
        for r in expect_type(
            reports,
            Iterable,
            "summarize",
            "reports",
            "an iterable of planviz Reports",
            "make each with planviz.validate(plan)",
        )
    ]
    plans = bad = 0
    counts: Counter[str] = Counter()
    per_plan: Counter[str] = Counter()
    severities: dict[str, str] = {}
    failed: list[tuple[int, str, tuple[str, ...]]] = []
    labels = iter(expect_names(names, "summarize", "names")) if names is not None else None
    for i, r in enumerate(reports):
        name = next(labels, "") if labels is not None else ""
        plans += 1
        if not r.ok:
            bad += 1
            failed.append((i, str(name), tuple(dict.fromkeys(f.code for f in r.errors))))
        counts.update(f.code for f in r.findings)
        per_plan.update(r.codes)
        for f in r.findings:
            if _GRAVITY.get(f.severity, 0) > _GRAVITY.get(severities.get(f.code, ""), -1):
                severities[f.code] = f.severity
    return Summary(
        plans,
        bad,
        dict(sorted(counts.items())),
        dict(sorted(per_plan.items())),
        dict(sorted(severities.items())),
        tuple(failed),
    )
