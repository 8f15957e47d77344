"""ReWOO planner output as plans.

ReWOO plans alternate a ``Plan:`` sentence with an evidence assignment
``#En = Tool[input]``, where ``#Ek`` in the input is the evidence of step k
(both may share a line). Step ``En`` calls ``Tool`` and produces the fact
``#En``; its ``Plan:`` sentence is its expected evidence; ``#Ek`` in its input
becomes a dependency on ``Ek`` requiring ``#Ek``. The lines before the first step (``Question: ...``) are the goal; a
new question starts a new plan.

Findings besides the shared reference checks: ``unparsed_line`` (an
assignment without its closing ``]``, read up to the end of the line; a
``Plan:`` with no evidence assignment) and ``implicit_reference`` (a warning:
a step whose input repeats an earlier step's whole input instead of
referencing its evidence, as in the LangGraph tutorial output where the
hometown search restates the winner search rather than using ``#E1``; no edge
is added, the planner did not write one).

>>> text = "Plan: Find the winner. #E1 = Google[2024 Australian Open winner]\\n" \\
...        "Plan: Find their hometown. #E2 = Google[hometown of #E1]"
>>> [plan] = import_plans(text, None)
>>> plan.step("E2").depends_on, plan.step("E2").expected_evidence
(('E1',), 'Find their hometown.')
"""

from __future__ import annotations

import re
from typing import Any

from planviz.plan.importers._build import Draft, Ref, build, finding, plans_in_texts, texts_in
from planviz.plan.model import Finding, Plan

__all__ = ["import_plans", "looks_like", "PATTERN"]

PATTERN = re.compile(r"#E\d+\s*=\s*[A-Za-z_][\w.\-]*\s*\[")
_ASSIGN = re.compile(r"#E(\d+)\s*=\s*([A-Za-z_][\w.\-]*)\s*\[")
_REF = re.compile(r"#E(\d+)")
_PLAN = re.compile(r"^\s*Plan\s*:\s*", re.IGNORECASE)


def looks_like(text: str, data: Any) -> bool:
    """Whether the input reads as ReWOO plans (``#En = Tool[...]`` assignments)."""
    return any(PATTERN.search(body) for _label, body in texts_in(text, data, PATTERN))


def import_plans(text: str, data: Any, *, source: str = "<string>") -> list[Plan]:
    """One plan per question of every ReWOO text in the input."""
    return plans_in_texts(text, data, PATTERN, _plans)


def _plans(body: str, prefix: str) -> list[Plan]:
    plans: list[Plan] = []
    goal: list[str] = []
    drafts: list[Draft] = []
    findings: list[Finding] = []
    pending: tuple[str, str] | None = None  # a Plan: sentence waiting for its assignment

    def close() -> None:
        nonlocal goal, drafts, findings, pending
        if pending is not None:
            findings.append(_orphan(*pending))
        if drafts or findings or goal:
            _implicit(drafts, findings)
            plans.append(build(" ".join(goal), drafts, findings))
        goal, drafts, findings, pending = [], [], [], None

    for number, line in enumerate(body.splitlines(), 1):
        where = f"{prefix}line {number}"
        stripped = line.strip()
        if not stripped:
            continue
        assign = _ASSIGN.search(line)
        is_plan = _PLAN.match(line) is not None
        if not assign and not is_plan:
            if drafts or pending:
                close()
            goal.append(re.sub(r"^Question\s*:\s*", "", stripped))
            continue
        if is_plan:
            sentence = _PLAN.sub("", line[: assign.start()] if assign else line).strip()
            if pending is not None:
                findings.append(_orphan(*pending))
            pending = (sentence, where)
        if not assign:
            continue
        k, tool = assign.group(1), assign.group(2)
        rest = line[assign.end() :]
        end = rest.rfind("]")
        if end < 0:
            findings.append(
                finding(
                    "unparsed_line",
                    "error",
                    f"#E{k} = {tool}[... has no closing ']'; read the input up to the end of "
                    "the line; add the ']'",
                    [f"E{k}"],
                    where,
                )
            )
            tool_input = rest.strip()
        else:
            tool_input = rest[:end].strip()
            trailing = rest[end + 1 :].strip()
            if trailing:
                findings.append(
                    finding(
                        "unparsed_line",
                        "warning",
                        f"text {trailing!r} after #E{k}'s closing ']' is not part of the step",
                        [f"E{k}"],
                        where,
                    )
                )
        sentence = pending[0] if pending else ""
        pending = None
        refs = [Ref(f"E{r}", f"#E{r}", where, f"#E{r}") for r in _REF.findall(tool_input)]
        action = f"{tool}[{tool_input}" + ("]" if end >= 0 else "")  # as written
        drafts.append(
            Draft(
                f"E{k}",
                action,
                sentence or f"the {tool} result (#E{k})",
                tool=tool,
                arguments={"input": tool_input},
                refs=refs,
                where=where,
                result=f"#E{k}",
            )
        )
    close()
    return plans


def _orphan(sentence: str, where: str) -> Finding:
    return finding(
        "unparsed_line",
        "warning",
        f"Plan: {sentence!r} has no #E assignment after it, so no step carries it out",
        where=where,
    )


_IMPLICIT_BUDGET = 500_000_000
"""Most characters the ``implicit_reference`` check compares in one plan (it compares every pair of steps)."""


def _implicit(drafts: list[Draft], findings: list[Finding]) -> None:
    budget = _IMPLICIT_BUDGET
    for i, d in enumerate(drafts):
        referenced = {r.producer for r in d.refs}
        text = d.arguments["input"].casefold()
        budget -= i * (len(text) + 1000)
        if budget < 0:  # a real ReWOO plan has a few steps; thousands of long ones would take hours
            findings.append(
                finding(
                    "implicit_reference",
                    "warning",
                    f"not checked from step {d.id!r} on: {len(drafts):,} steps are too many to "
                    "compare every pair of inputs",
                    [d.id],
                    d.where,
                )
            )
            return
        repeated = [e for e in drafts[:i] if _repeats(text, e, referenced)]
        if repeated:  # one finding per step, however many earlier inputs it repeats
            earlier, more = repeated[0], len(repeated) - 1
            also = (
                f" (and the inputs of {more:,} more earlier step{'s' * (more > 1)})" if more else ""
            )
            findings.append(
                finding(
                    "implicit_reference",
                    "warning",
                    f"step {d.id!r} repeats the whole input of {earlier.id!r}, {earlier.arguments['input']!r}{also}, "
                    "instead of "
                    f"reading its evidence #{earlier.id}: if it needs that answer, write #{earlier.id} "
                    "(no edge is drawn; the planner wrote none)",
                    [earlier.id, d.id],
                    d.where,
                )
            )


def _repeats(text: str, earlier: Draft, referenced: set[str]) -> bool:
    known = earlier.arguments["input"].strip().casefold()
    return not (
        earlier.id in referenced or len(known) < 12 or _REF.search(known) or known not in text
    )
