"""Shared machinery of the importers: drafts of steps with their references, turned into a Plan.

Every importer parses its format into :class:`Draft` steps (in source order)
whose :class:`Ref` entries name the step whose output they read and the fact
that output stands for. :func:`build` resolves them the same way for every
format: a reference becomes ``depends_on`` plus the fact (``requires`` on the
consumer, ``produces`` on the producer), and a reference that cannot be mapped
faithfully becomes an import finding instead of being repaired or dropped.

>>> a = Draft("E1", "Wikipedia[Colorado orogeny]", "facts about the orogeny", tool="Wikipedia")
>>> b = Draft("E2", "LLM[area of #E1]", "the area", tool="LLM", refs=[Ref("E1", "#E1", "line 3")])
>>> plan = build("elevation range?", [a, b], [])
>>> plan.step("E2").depends_on, plan.step("E2").requires, plan.step("E1").produces
(('E1',), ('#E1',), ('#E1',))
>>> c = Draft("E3", "LLM[#E4]", "x", refs=[Ref("E4", "#E4", "line 4")])
>>> [f.code for f in build("g", [a, c], []).import_findings]
['dangling_reference']
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from planviz.plan.model import Finding, Plan, Step
from planviz.plan.placeholder import strings_in

__all__ = ["Ref", "Draft", "build", "finding", "call_text", "short", "strings_in"]

_SHORT = 60


@dataclass(frozen=True)
class Ref:
    """A reference from one step to another step's output.

    ``producer`` is the step id referred to, ``fact`` the fact standing for the
    referenced output, ``where`` the place in the source, ``text`` the
    reference as written (for messages).
    """

    producer: str
    fact: str
    where: str = ""
    text: str = ""


@dataclass
class Draft:
    """A step as parsed, before its references are resolved.

    ``links`` are dependencies stated apart from the arguments (TaskBench
    ``task_links``, HuggingGPT ``dep``), as ``(producer id, where)`` pairs,
    already resolved and checked by the importer: they add ``depends_on`` only.
    ``result`` is the fact naming the step's own result (``$3``, ``#E2``),
    which it produces whether or not another step reads it. ``kind`` and
    ``duration`` pass to the step (``kind="finish"`` marks a terminal step,
    such as WorFBench's END, with duration 0).
    """

    id: str
    action: str
    evidence: str
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    refs: list[Ref] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)
    where: str = ""
    result: str | None = None
    kind: str | None = None
    duration: float = 1.0


def finding(
    code: str,
    severity: str,
    message: str,
    steps: Iterable[str] = (),
    where: str = "",
    edges: Iterable[tuple[str, str]] = (),
) -> Finding:
    """An import finding (layer ``import``)."""
    return Finding(
        code=code,
        layer="import",
        severity=severity,
        message=message,
        steps=tuple(steps),
        edges=tuple(edges),
        where=where,
    )


def build(goal: str, drafts: list[Draft], findings: list[Finding], *, name: str = "") -> Plan:
    """Resolve the drafts' references into a Plan carrying every import finding.

    A reference to a step that does not exist (``dangling_reference``), to the
    step itself (``self_reference``) or to a later step (``forward_reference``:
    these formats name only earlier outputs) is an error finding. The consumer
    still ``requires`` the fact in every case (it does need that input); the
    dependency edge, and the fact on the producer, are added only when the
    producer exists and is another step. ``name`` names the plan (its record id).
    """
    findings = list(findings)
    position: dict[str, int] = {}
    for i, d in enumerate(drafts):
        position.setdefault(d.id, i)
    # ordered sets (dicts), so a step with many inputs (an END joining thousands) stays linear
    produces: dict[str, dict[str, None]] = {}
    for d in drafts:
        produces.setdefault(d.id, dict.fromkeys([d.result] if d.result else []))
    depends: list[dict[str, None]] = [{} for _ in drafts]
    requires: list[dict[str, None]] = [{} for _ in drafts]
    for i, d in enumerate(drafts):
        for ref in d.refs:
            requires[i][ref.fact] = None
            shown = ref.text or ref.producer
            if ref.producer not in position:
                findings.append(
                    finding(
                        "dangling_reference",
                        "error",
                        f"step {d.id!r} reads {shown!r}, but the plan has no step {ref.producer!r}; "
                        f"point it at an existing earlier step or add the missing step",
                        [d.id],
                        ref.where,
                    )
                )
                continue
            if ref.producer == d.id:
                findings.append(
                    finding(
                        "self_reference",
                        "error",
                        f"step {d.id!r} reads its own output {shown!r}; it must read an earlier step's output",
                        [d.id],
                        ref.where,
                        [(d.id, d.id)],
                    )
                )
                continue
            produces[ref.producer][ref.fact] = None
            if position[ref.producer] > i:
                findings.append(
                    finding(
                        "forward_reference",
                        "error",
                        f"step {d.id!r} reads {shown!r}, the output of the later step {ref.producer!r}; "
                        f"reorder the steps or point the reference at an earlier step",
                        [d.id, ref.producer],
                        ref.where,
                        [(ref.producer, d.id)],
                    )
                )
            depends[i][ref.producer] = None
        for producer, _where in d.links:
            depends[i][producer] = None
    steps = [
        Step(
            d.id,
            d.action,
            expected_evidence=d.evidence,
            depends_on=tuple(depends[i]),
            requires=tuple(requires[i]),
            produces=tuple(produces[d.id]) if position[d.id] == i else (),
            tool=d.tool,
            arguments=d.arguments,
            kind=d.kind,
            duration=d.duration,
        )
        for i, d in enumerate(drafts)
    ]
    return Plan(goal, tuple(steps), import_findings=tuple(findings), name=name)


def short(value: Any) -> str:
    """A value as it reads in an action: strings quoted, long ones cut with an ellipsis."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if len(text) > _SHORT:
        text = text[: _SHORT - 1] + "\u2026"
    return json.dumps(text, ensure_ascii=False) if isinstance(value, str) else text


def call_text(tool: str, arguments: dict[str, Any], positional: bool = False) -> str:
    """``tool(a, b)`` or ``tool(name=a, ...)``: a step's action read as the tool call.

    >>> call_text("Image Editing", {"image": "example.jpg", "text": "make it blue"})
    'Image Editing(image="example.jpg", text="make it blue")'
    """
    parts = [short(v) if positional else f"{k}={short(v)}" for k, v in arguments.items()]
    return f"{tool}({', '.join(parts)})"


def texts_in(text: str, data: Any, pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    """The planner texts to read, as ``(label, text)``: string values of a JSON/YAML container
    (a mapping of name to text, or a list of records with a text field) that match ``pattern``,
    else the whole input text with no label.
    """
    found: list[tuple[str, str]] = []
    if isinstance(data, dict):
        items = [(str(k), v) for k, v in data.items()]
    elif isinstance(data, list):
        items = [(f"[{i}]", v) for i, v in enumerate(data)]
    else:
        items = []
    for label, value in items:
        if isinstance(value, str):
            if pattern.search(value):
                found.append((label, value))
        elif isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, str) and pattern.search(v):
                    found.append((f"{label}.{k}", v))
    return found or [("", text)]


def plans_in_texts(
    text: str, data: Any, pattern: re.Pattern[str], read: Callable[[str, str], list[Plan]]
) -> list[Plan]:
    """Every plan of every planner text in the input: ``read(body, where_prefix)`` for each of :func:`texts_in`."""
    plans: list[Plan] = []
    for label, body in texts_in(text, data, pattern):
        plans.extend(read(body, f"{label}, " if label else ""))
    return plans
