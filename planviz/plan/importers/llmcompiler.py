"""LLMCompiler planner output as plans.

The planner writes numbered tool calls, ``N. tool(args)``, where ``$K`` (or
``${K}``) in the arguments is the result of task K, and ends with
``N. join()<END_OF_PLAN>``. Each ``Question:`` block (blocks are also split at
``###``) is one plan. Step ``K`` is task K and produces the fact ``$K``; a
``$K`` in arguments becomes a dependency on ``K`` requiring that fact.
``join()`` hands every result to the joiner, so it depends on every task
since the previous join and on that join (so, through it, on every earlier
task: n joins are n edges, never n²/2). ``Thought:`` lines are the planner's commentary
and are not steps.

A numbered line that is not a complete call is an ``unparsed_line`` finding
(LLMCompiler's own parser skips such a line, so its ``$K`` would never be
filled); when its tool name and opening parenthesis are there, the step is
still read, up to the end of the line.

>>> text = 'Question: ratio?\\n1. search("Everest")\\n2. math("height", ["$1"]\\n3. join()<END_OF_PLAN>'
>>> [plan] = import_plans(text, None)
>>> plan.goal, plan.ids, plan.step("2").requires
('ratio?', ('1', '2', '3'), ('$1',))
>>> [(f.code, f.where) for f in plan.import_findings]
[('unparsed_line', 'line 3')]
"""

from __future__ import annotations

import json
import re
from typing import Any

from planviz.errors import PlanFormatError
from planviz.io.jsonsyntax import check_inner_plain, loads_within_limits
from planviz.io.plaindata import python_literal
from planviz.plan.importers._build import Draft, Ref, build, finding, plans_in_texts, texts_in
from planviz.plan.model import Finding, Plan

__all__ = ["import_plans", "looks_like", "PATTERN"]

# [^\S\n]: never crosses a line
PATTERN = re.compile(r"(?m)^[^\S\n]*\d+\.[^\S\n]*[A-Za-z_]\w*[^\S\n]*\(")
# on one line; the rest is stripped in Python (a lazy .*? then \s*$ is quadratic)
_STEP = re.compile(r"\s*(\d+)\.(.*)")
_CALL = re.compile(r"^([A-Za-z_]\w*)\s*\((.*)\)\s*(?:#.*)?$")
_OPEN = re.compile(r"^([A-Za-z_]\w*)\s*\((.*)$")
_REF = re.compile(r"\$\{?(\d+)\}?")
_END = "<END_OF_PLAN>"


def looks_like(text: str, data: Any) -> bool:
    """Whether the input reads as LLMCompiler plans (numbered calls with ``$K``, ``join()`` or the end marker)."""
    for _label, body in texts_in(text, data, PATTERN):
        calls = PATTERN.findall(body)
        if calls and (_END in body or "join()" in body or _REF.search(body) or len(calls) >= 2):
            return True
    return False


def import_plans(text: str, data: Any, *, source: str = "<string>") -> list[Plan]:
    """One plan per question block of every LLMCompiler text in the input."""
    return plans_in_texts(text, data, PATTERN, _plans)


def _plans(body: str, prefix: str) -> list[Plan]:
    blocks: list[list[tuple[int, str]]] = [[]]
    stepped = [False]  # whether each block has a task line yet
    for number, line in enumerate(body.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("###") or (stripped.startswith("Question:") and stepped[-1]):
            blocks.append([])
            stepped.append(False)
            if stripped.startswith("###"):
                continue
        blocks[-1].append((number, line))
        stepped[-1] = stepped[-1] or _STEP.match(line) is not None
    return [
        _plan(block, prefix)
        for block, has_step in zip(blocks, stepped)
        if has_step or _has_text(block)
    ]


def _has_text(block: list[tuple[int, str]]) -> bool:
    return any(line.strip() for _, line in block)


def _plan(block: list[tuple[int, str]], prefix: str) -> Plan:
    goal: list[str] = []
    drafts: list[Draft] = []
    last_join = (
        0  # the tasks a join() links to start here: after the previous join, which it links to
    )
    findings: list[Finding] = []
    ended = False
    for number, line in block:
        where = f"{prefix}line {number}"
        stripped = line.strip()
        if not stripped or stripped.startswith("Thought:"):
            continue
        m = _STEP.match(line)
        if not m:
            if drafts or ended:
                findings.append(
                    finding(
                        "unparsed_line",
                        "warning",
                        f"line {stripped!r} after the tasks is neither a task, a Thought nor "
                        "the end of the plan; it is not part of the plan",
                        where=where,
                    )
                )
            else:
                goal.append(stripped.removeprefix("Question:").strip())
            continue
        number_text, rest = m.group(1), m.group(2).strip()
        if ended:
            findings.append(
                finding(
                    "unparsed_line",
                    "error",
                    f"task {number_text} comes after {_END}; the planner's output ends at the "
                    "marker, so LLMCompiler never runs it",
                    [number_text],
                    where,
                )
            )
        if rest.endswith(_END):
            rest, ended = rest[: -len(_END)].rstrip(), True
        call = _CALL.match(rest)
        action = rest.strip()  # as written: a missing ')' stays missing in the picture
        if call is None:
            opened = _OPEN.match(rest)
            if opened is None:
                findings.append(
                    finding(
                        "unparsed_line",
                        "error",
                        f"task line {stripped!r} is not a tool call `tool(args)`; no step was "
                        f"made from it, so references to ${number_text} dangle",
                        where=where,
                    )
                )
                continue
            findings.append(
                finding(
                    "unparsed_line",
                    "error",
                    f"task {number_text} {stripped!r} has no closing ')'; LLMCompiler's parser "
                    f"skips such a line (so ${number_text} is never filled); read here as "
                    f"{opened.group(1)} with the arguments up to the end of the line; add the ')'",
                    [number_text],
                    where,
                )
            )
            call = opened
        tool, args_text = call.group(1), call.group(2)
        arguments = {str(i): v for i, v in enumerate(_split_args(args_text))}
        if tool == "join":
            links = [(d.id, where) for d in drafts[last_join:]]
            last_join = len(drafts)
            drafts.append(
                Draft(
                    number_text,
                    "join()",
                    "the joiner answers from every task's result",
                    tool="join",
                    arguments=arguments,
                    links=links,
                    where=where,
                    result=f"${number_text}",
                )
            )
            continue
        refs = [
            Ref(k, f"${k}", where, r.group(0))
            for r in _REF.finditer(args_text)
            for k in [r.group(1)]
        ]
        drafts.append(
            Draft(
                number_text,
                action,
                f"the {tool} result (${number_text})",
                tool=tool,
                arguments=arguments,
                refs=refs,
                where=where,
                result=f"${number_text}",
            )
        )
    return build(" ".join(goal), drafts, findings)


_MAX_LIST_DEPTH = 2
"""Deepest unquoted list argument read as a list; deeper text stays as written (each level reads the text again)."""
_ARG_MARK = re.compile(r"""["'()\[\]{},]""")


def _split_args(text: str, level: int = 0) -> list[Any]:
    """Top-level comma-separated arguments; JSON and Python literals decoded, the rest as written.

    >>> _split_args('"half of it?", ["$1"]')
    ['half of it?', ['$1']]
    >>> _split_args('[], "Meeting Postponed," "", None')
    [[], 'Meeting Postponed,', None]
    >>> _split_args("Austin Powers, 'x'")
    ['Austin Powers', 'x']
    """
    parts, depth, quote, start = [], 0, None, 0
    for mark in _ARG_MARK.finditer(text):
        ch = mark.group()
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0:  # a top-level comma
            parts.append(text[start : mark.start()])
            start = mark.end()
    parts.append(text[start:])
    return [_literal(p.strip(), level) for p in parts if p.strip()]


def _literal(part: str, level: int = 0) -> Any:
    """One argument: JSON, else a Python literal (the planner writes Python: ``None``, ``True``, single quotes,
    ``"a," "b"`` concatenated into one string; read by :func:`~planviz.io.plaindata.python_literal`, never
    evaluated), else an unquoted list split on its commas, else the text as written."""
    try:
        return loads_within_limits(part)
    except json.JSONDecodeError:
        pass
    value = python_literal(part)
    if value is not None or part == "None":
        try:
            # held to what a file could hold: no lone surrogate, no huge integer
            check_inner_plain(value)
            return value
        except PlanFormatError:
            pass
    if part.startswith("[") and part.endswith("]") and level < _MAX_LIST_DEPTH:
        return _split_args(part[1:-1], level + 1)
    if len(part) >= 2 and part[0] == part[-1] and part[0] in "\"'":
        return part[1:-1]
    return part
