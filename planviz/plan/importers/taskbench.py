"""TaskBench and HuggingGPT task lists as plans.

TaskBench records (``user_request``, ``task_nodes``, ``task_links``; newer
harnesses wrap all but ``id`` and ``user_request`` in ``result``) name the
output of the k-th task ``<node-k>`` inside arguments, and link tasks by tool
name; HuggingGPT task lists (``[{task, id, dep, args}]``) write
``<GENERATED>-k`` for task k's output and list dependencies in ``dep``
(``[-1]`` for none). Step ``node-k`` is task k (position in TaskBench, the
``id`` field in HuggingGPT) and produces ``node-k.output``; a reference
becomes a dependency plus the fact ``node-k.<argument name>``
(``node-k.output`` for a positional argument).

Links are read too, and where they disagree with the argument references
that is a finding (``link_mismatch``), as are links naming a tool used twice
(``ambiguous_link``: no edge is guessed), links naming no task
(``dangling_link``), odd reference spellings (``nonstandard_reference``, still
mapped), template placeholders left in arguments (``unresolved_placeholder``:
``<text>``, ``%{output}%``, ``$(step-2)``), empty arguments
(``empty_argument``), argument objects that are not ``{name, value}`` or whose
name is a reference (read as one), repeats or is empty (the value kept under
its position) (``malformed_arguments``), unknown fields (``unknown_field``,
ignored), text that is not valid JSON (``invalid_json``: the task objects it
contains are still read), and a hint when every reference is off by one
(``one_based_references``).

>>> rec = {"user_request": "caption then speak", "task_nodes": [
...     {"task": "Image-to-Text", "arguments": ["example.jpg"]},
...     {"task": "Text-to-Speech", "arguments": ["<node-0>"]}],
...     "task_links": [{"source": "Image-to-Text", "target": "Text-to-Speech"}]}
>>> [plan] = import_plans("", rec, source="<dict>")
>>> plan.step("node-1").depends_on, plan.step("node-1").requires, plan.import_findings
(('node-0',), ('node-0.output',), ())
>>> plan.step("node-1").action
'Text-to-Speech("<node-0>")'
"""

from __future__ import annotations

import json
import re
from typing import Any

from planviz.io.jsonsyntax import check_inner_depth, check_inner_plain, loads_within_limits
from planviz.plan.importers._build import finding, short
from planviz.plan.importers.tasklist import nodes_plan, record_plan
from planviz.plan.model import Finding, Plan

__all__ = ["import_plans", "looks_like"]

_MAX_ATTEMPTS = 10_000


def looks_like(text: str, data: Any) -> bool:
    """Whether the input reads as TaskBench/HuggingGPT task lists."""
    if isinstance(data, dict):
        return _is_record(data) or _is_task(data) or _is_chat(data)
    if isinstance(data, list) and data:
        return all(isinstance(x, dict) for x in data) and (
            any(_is_record(x) for x in data)
            or all(_is_task(x) for x in data)
            or (all(_is_chat(x) for x in data) and any(_tasky(x.get("content")) for x in data))
        )
    if data is None or isinstance(data, str):
        return '"task_nodes"' in text or _tasky(text)
    return False


def _is_record(x: dict[str, Any]) -> bool:
    """A TaskBench record: ``task_nodes`` at the top, or wrapped in ``result`` as newer harnesses write it."""
    return "task_nodes" in x or (isinstance(x.get("result"), dict) and "task_nodes" in x["result"])


def _is_task(x: dict[str, Any]) -> bool:
    return isinstance(x.get("task"), str) and ("args" in x or "dep" in x or "arguments" in x)


def _is_chat(x: Any) -> bool:
    return isinstance(x, dict) and "role" in x and "content" in x


def _tasky(text: Any) -> bool:
    return (
        isinstance(text, str)
        and re.search(r'"task"\s*:', text) is not None
        and (re.search(r'"(dep|args|arguments)"\s*:', text) is not None)
    )


def import_plans(text: str, data: Any, *, source: str = "<string>") -> list[Plan]:
    """Every plan in the input: one per TaskBench record, HuggingGPT task list or assistant message."""
    if isinstance(data, dict):
        if _is_chat(data):
            return [_from_text(str(data.get("content", "")), goal="", prefix="")]
        if _is_record(data):
            return [record_plan(data, prefix="")]
        return [nodes_plan([data], goal="", prefix="", findings=[])]
    if isinstance(data, list):
        if data and all(_is_chat(x) for x in data):
            return _chat(data)
        if data and all(isinstance(x, dict) and _is_task(x) for x in data):
            return [nodes_plan(data, goal="", prefix="", findings=[])]
        lines = _record_lines(text, len(data))
        return [record_plan(rec, prefix=f"record {i}{lines[i]}, ") for i, rec in enumerate(data)]
    return _from_any_text(text)


def _record_lines(text: str, n: int) -> list[str]:
    numbers = [i + 1 for i, line in enumerate(text.splitlines()) if line.strip()]
    if len(numbers) == n and text.lstrip().startswith("{"):
        return [f" (line {k})" for k in numbers]
    return [""] * n


def _from_any_text(text: str) -> list[Plan]:
    lines = [(i + 1, line) for i, line in enumerate(text.splitlines()) if line.strip()]
    if (
        len(lines) > 1
        and all(line.lstrip().startswith("{") for _, line in lines)
        and '"task_nodes"' in text
    ):
        plans = []
        for r, (number, line) in enumerate(lines):
            prefix = f"record {r} (line {number}), "
            try:
                rec = loads_within_limits(line)
            except json.JSONDecodeError as exc:
                plans.append(
                    Plan(
                        "",
                        import_findings=[
                            finding(
                                "invalid_json",
                                "error",
                                f"this JSON Lines record is not valid JSON ({exc}); "
                                "no task could be read from it",
                                where=prefix.rstrip(", "),
                            )
                        ],
                    )
                )
                continue
            plans.append(record_plan(rec, prefix=prefix))
        return plans
    if '"task_nodes"' in text:
        try:
            rec = loads_within_limits(text)
        except json.JSONDecodeError as exc:
            return [
                Plan(
                    "",
                    import_findings=[
                        finding(
                            "invalid_json",
                            "error",
                            f"the TaskBench record is not valid JSON ({exc})",
                        )
                    ],
                )
            ]
        if isinstance(rec, dict):
            return [record_plan(rec, prefix="")]
    return [_from_text(text, goal="", prefix="")]


def _chat(messages: list[dict[str, Any]]) -> list[Plan]:
    """HuggingGPT demos: each assistant message is a plan for the user message before it."""
    plans, goal = [], ""
    for i, msg in enumerate(messages):
        content = msg.get("content")
        if msg.get("role") == "user":
            goal = content if isinstance(content, str) else ""
        elif msg.get("role") == "assistant":
            plans.append(
                _from_text(
                    content if isinstance(content, str) else json.dumps(content),
                    goal=goal,
                    prefix=f"message {i}, ",
                )
            )
    return plans


def _from_text(text: str, *, goal: str, prefix: str) -> Plan:
    """A task list given as text; invalid JSON is a finding, and the task objects in it are still read."""
    findings: list[Finding] = []
    try:
        data = loads_within_limits(text)
    except json.JSONDecodeError as exc:
        tasks, skipped = _scan_objects(text)
        where = _Lines(text).at(getattr(exc, "pos", 0))
        extra = f"; skipped text {', '.join(skipped)}" if skipped else ""
        findings.append(
            finding(
                "invalid_json",
                "error",
                f"the task list is not valid JSON as written ({getattr(exc, 'msg', exc)} at {where}); "
                f"read the {len(tasks)} task object(s) it contains{extra}. Fix the JSON so the planner's "
                "own parser accepts it",
                where=prefix + where,
            )
        )
        return nodes_plan(tasks, goal=goal, prefix=prefix, findings=findings)
    if isinstance(data, dict):
        if "task_nodes" in data:
            return record_plan(data, prefix=prefix)
        data = [data]
    if not isinstance(data, list):
        findings.append(
            finding(
                "malformed_record",
                "error",
                f"expected a list of task objects, got {short(data)}",
                where=prefix.rstrip(", "),
            )
        )
        return Plan(goal, import_findings=tuple(findings))
    return nodes_plan(data, goal=goal, prefix=prefix, findings=findings)


def _scan_objects(text: str) -> tuple[list[Any], list[str]]:
    """The top-level ``{...}`` task objects in text that is not valid JSON, and what lay between them.

    At most :data:`_MAX_ATTEMPTS` failed starts are tried, so hostile text cannot make this quadratic;
    what is left unread then shows among the skipped text.
    """
    # no task object nests deeper than the limit (and no decode below recurses past it)
    check_inner_depth(text)
    tasks, skipped, pos, gap, failures = [], [], 0, 0, 0
    lines, last_quote = _Lines(text), text.rfind('"')
    while failures < _MAX_ATTEMPTS:
        start = text.find("{", pos)
        if start < 0:
            break
        try:
            obj, end = _decode_at(text, start, last_quote)
        except (ValueError, RecursionError):
            pos, failures = start + 1, failures + 1
            continue
        if isinstance(obj, dict) and "task" in obj:
            # no lone surrogate (or integer too long to write) enters the plan
            check_inner_plain(obj)
            between = text[gap:start].strip().strip(",[").strip()
            if between:
                skipped.append(
                    f"{_clip(between)!r} at {lines.at(gap + text[gap:start].find(between[0]))}"
                )
            tasks.append(obj)
            pos = gap = end
        else:
            pos, failures = start + 1, failures + 1
    tail = text[gap:].strip().strip(",]").strip()
    if tail:
        skipped.append(f"{_clip(tail)!r} at {lines.at(gap + text[gap:].find(tail[0]))}")
    return tasks, skipped


_DECODER = json.JSONDecoder()


def _decode_at(text: str, start: int, last_quote: int) -> tuple[Any, int]:
    """The JSON value at ``start`` and where it ends, decoded from a window that grows only while the value
    may run past it: a failed start costs its window, never the text before it (a decode error counts the
    lines from the start of the string it was given)."""
    size = 4096
    while True:
        window = text[start : start + size] if start + size < len(text) else text[start:]
        try:
            value, end = _DECODER.raw_decode(window)
            return value, start + end
        except json.JSONDecodeError as exc:
            if len(window) == len(text) - start:
                raise
            cut = (
                exc.pos >= len(window) - 1
                or exc.msg.startswith("Unterminated string")
                and (start + exc.pos < last_quote)
            )
            if not cut:
                raise
            size *= 4


class _Lines:
    """``line L column C`` of positions asked in increasing order, counting each line break once."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line, self.begins = text, 0, 1, 0

    def at(self, pos: int) -> str:
        if pos < self.pos:
            self.pos, self.line, self.begins = 0, 1, 0
        self.line += self.text.count("\n", self.pos, pos)
        self.begins = self.text.rfind("\n", self.pos, pos) + 1 or self.begins
        self.pos = pos
        return f"line {self.line} column {pos - self.begins + 1}"


def _clip(text: str) -> str:
    return text if len(text) <= 40 else text[:39] + "\u2026"
