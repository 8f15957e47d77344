"""T-Eval planning lists as plans.

A T-Eval plan is a list of actions ``{id, prev, name, args}``: ``prev`` lists
the ids of the actions that must come first, ``name`` is the API called, and
the list ends with a ``FinishAction``. The benchmark's records hold the gold
list in ``ground_truth`` and the user's query in ``origin_prompt`` (a chat);
its data file maps query keys (``query_0_1``) to records. Step ``k`` is the
action with id k; ``prev`` becomes ``depends_on``; ``FinishAction`` is a step of
kind ``finish``, the plan's terminal, so every action whose output never
reaches it is a ``dead_end``. A bare prediction list (or text holding one, such
as a model's reply in a code fence) reads too; ``args`` given as a string
(``"{'place': 'Berlin'}"``, as T-Eval's prompt asks) is decoded as a literal.

Findings: ``malformed_record``, ``malformed_node``, ``malformed_arguments``,
``unknown_field``, ``dangling_link`` (a prev id no action has), ``self_link``,
``duplicate_link``, ``malformed_link`` (a prev that is not a list),
``missing_finish`` (no FinishAction: the plan names no end), ``implied_order``
(an info note: no action has a ``prev`` list, so they are read in order, each
after the one before, as T-Eval's prompt says they run).

>>> rec = {"ground_truth": [{"id": 0, "prev": [], "name": "Search.find", "args": {"place": "Berlin"}},
...                         {"id": 1, "prev": [0], "name": "FinishAction", "args": {}}],
...        "origin_prompt": [{"role": "user", "content": "find a flat in Berlin"}]}
>>> [plan] = import_plans("", rec)
>>> plan.goal, plan.ids, plan.step("1").depends_on, plan.step("1").kind
('find a flat in Berlin', ('0', '1'), ('0',), 'finish')
"""

from __future__ import annotations

import json
from typing import Any

from planviz.errors import PlanFormatError
from planviz.io.jsonsyntax import check_inner_depth, check_inner_plain, loads_within_limits
from planviz.io.plaindata import python_literal
from planviz.plan.importers._build import Draft, build, call_text, finding, short
from planviz.plan.model import Finding, Plan

__all__ = ["import_plans", "looks_like", "UNSTATED", "TITLE", "FINISH_ACTION"]

TITLE = "T-Eval"
UNSTATED = ("expected_evidence", "produces")
FINISH_ACTION = "FinishAction"
_KEYS = ("id", "prev", "name", "args")
_MAX_ATTEMPTS = (
    50  # "[" positions tried when looking for the list in a reply (each try may read to the end)
)


def _is_step(x: Any) -> bool:
    return (
        isinstance(x, dict)
        and isinstance(x.get("name"), str)
        and "id" in x
        and ("prev" in x or "args" in x)
        and "task" not in x
    )


def _is_record(x: Any) -> bool:
    return isinstance(x, dict) and isinstance(x.get("ground_truth"), list)


def looks_like(text: str, data: Any) -> bool:
    """Whether the input reads as T-Eval: records with ``ground_truth``, a map of them, or a list of actions."""
    if _is_record(data):
        return True
    if isinstance(data, dict) and data:
        return all(_is_record(v) for v in data.values())
    if isinstance(data, list) and data:
        return all(_is_step(x) for x in data) or all(_is_record(x) for x in data)
    if data is None and isinstance(text, str) and '"name"' in text and '"id"' in text:
        return bool(_scan(text)[0])
    return False


def import_plans(text: str, data: Any, *, source: str = "<string>") -> list[Plan]:
    """One plan per record (or per prediction list)."""
    if _is_record(data):
        return [_record(data, "", "")]
    if isinstance(data, dict) and data and all(_is_record(v) for v in data.values()):
        return [_record(v, f"{k}, ", str(k)) for k, v in data.items()]
    if isinstance(data, list) and any(_is_record(x) for x in data):
        return [
            _record(x, f"[{i}], ", _name(x)) if _is_record(x) else _malformed(x, f"[{i}]")
            for i, x in enumerate(data)
        ]
    if isinstance(data, list):
        return [_actions(data, "", "", "")]
    check_inner_depth(text)
    found, where = _scan(text)
    if found:
        check_inner_plain(found)  # no lone surrogate (or integer too long to write) enters the plan
        return [_actions(found, "", where, "")]
    return [Plan("")]


def _malformed(value: Any, where: str) -> Plan:
    return Plan(
        "",
        import_findings=[
            finding(
                "malformed_record",
                "error",
                f"expected a T-Eval record with a ground_truth list of actions, got {short(value)}",
                where=where,
            )
        ],
    )


def _name(rec: dict[str, Any]) -> str:
    value = rec.get("id")
    return str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ""


def _record(rec: dict[str, Any], prefix: str, name: str) -> Plan:
    return _actions(
        rec["ground_truth"], _goal(rec.get("origin_prompt")), f"{prefix}ground_truth", name
    )


def _goal(prompt: Any) -> str:
    """The user's query: the last user message of ``origin_prompt`` (or the prompt itself, when it is text)."""
    if isinstance(prompt, str):
        return prompt.strip()
    if isinstance(prompt, list):
        users = [
            m.get("content") for m in prompt if isinstance(m, dict) and m.get("role") == "user"
        ]
        texts = [u for u in users if isinstance(u, str)]
        return texts[-1].strip() if texts else ""
    return ""


def _scan(text: str) -> tuple[list[Any], str]:
    """The first JSON list of actions inside text that is not JSON as a whole (a reply in a code fence)."""
    if not isinstance(text, str):
        return [], ""
    try:
        check_inner_depth(text)  # no decode below recurses past the nesting limit
    except PlanFormatError:
        return [], ""  # too deep to be T-Eval; import_plans says so
    decoder = json.JSONDecoder()
    pos = attempts = 0
    while attempts < _MAX_ATTEMPTS:
        start = text.find("[", pos)
        if start < 0:
            break
        attempts += 1
        try:
            value, _end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            pos = start + 1
            continue
        if isinstance(value, list) and value and all(_is_step(x) for x in value):
            return value, f"line {text.count(chr(10), 0, start) + 1}"
        pos = start + 1
    return [], ""


def _actions(items: list[Any], goal: str, field: str, name: str) -> Plan:
    findings: list[Finding] = []
    place = field.rstrip(", ") or "actions"
    drafts: list[Draft] = []
    prevs: list[tuple[int, Any, str]] = []
    ordered = not any(isinstance(x, dict) and "prev" in x for x in items)
    for i, item in enumerate(items):
        where = f"{place}[{i}]"
        if not isinstance(item, dict):
            sid = str(i)
            findings.append(
                finding(
                    "malformed_node",
                    "error",
                    f"action {i} is not an action object: {short(item)}",
                    [sid],
                    where,
                )
            )
            drafts.append(Draft(sid, f"unreadable action {short(item)}", "", where=where))
            continue
        sid = _id(item.get("id"), i, where, findings)
        for key in [k for k in item if k not in _KEYS]:
            findings.append(
                finding(
                    "unknown_field",
                    "warning",
                    f"action {sid!r} has field {key!r} = {short(item[key])}, which T-Eval does not "
                    f"define (expected {', '.join(_KEYS)}); it is ignored",
                    [sid],
                    f"{where}.{key}",
                )
            )
        tool = item.get("name")
        if not isinstance(tool, str) or not tool.strip():
            findings.append(
                finding(
                    "malformed_node",
                    "error",
                    f"action {sid!r} names no API (name = {short(tool)})",
                    [sid],
                    f"{where}.name",
                )
            )
            tool = None
        arguments = _arguments(item.get("args"), sid, f"{where}.args", findings)
        finish = tool == FINISH_ACTION
        drafts.append(
            Draft(
                sid,
                call_text(tool or "unnamed API", arguments),
                "",
                tool=tool,
                arguments=arguments,
                where=where,
                kind="finish" if finish else None,
                duration=0.0 if finish else 1.0,
            )
        )
        if "prev" in item:
            prevs.append((len(drafts) - 1, item["prev"], f"{where}.prev"))
    ids = {d.id for d in drafts}
    for pos, prev, where in prevs:
        _links(drafts[pos], prev, where, ids, findings)
    if ordered and len(drafts) > 1:
        for before, after in zip(drafts, drafts[1:]):
            after.links.append((before.id, after.where))
        findings.append(
            finding(
                "implied_order",
                "info",
                "no action has a prev list, so the actions are read in the order listed, each "
                "after the one before (T-Eval's prompt says they run sequentially)",
                where=place,
            )
        )
    if drafts and not any(d.kind == "finish" for d in drafts):
        findings.append(
            finding(
                "missing_finish",
                "warning",
                f"the plan has no {FINISH_ACTION}: T-Eval plans end with one, so nothing says "
                "which actions the answer needs (no dead_end check is possible); add a "
                f"{FINISH_ACTION} after the last action",
                where=place,
            )
        )
    return build(goal, drafts, findings, name=name)


def _id(value: Any, i: int, where: str, findings: list[Finding]) -> str:
    if isinstance(value, (int, str)) and not isinstance(value, bool) and str(value).strip():
        return str(value).strip()
    findings.append(
        finding(
            "malformed_node",
            "warning",
            f"action {i} has no usable id (id = {short(value)}); "
            f"called {str(i)!r} after its position",
            [str(i)],
            f"{where}.id",
        )
    )
    return str(i)


def _arguments(raw: Any, sid: str, where: str, findings: list[Finding]) -> dict[str, Any]:
    """``args`` as a mapping: a mapping as is, a string decoded as JSON or a Python literal (T-Eval's own form)."""
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return dict(raw)
    if isinstance(raw, str):
        decoded = _literal(raw)
        if isinstance(decoded, dict):
            return decoded
        if not raw.strip():
            return {}
    findings.append(
        finding(
            "malformed_arguments",
            "warning",
            f"args of {sid!r} should be a mapping (or its text), got {short(raw)}; kept as one "
            "argument",
            [sid],
            where,
        )
    )
    return {"args": raw}


def _literal(text: str) -> Any:
    try:
        return loads_within_limits(text)
    except json.JSONDecodeError:
        pass
    value = python_literal(text)
    if value is None:
        return None
    # a Python literal is held to what a file could hold: no lone surrogate, no huge int
    check_inner_plain(value)
    return value


def _links(draft: Draft, prev: Any, where: str, ids: set[str], findings: list[Finding]) -> None:
    sid = draft.id
    if not isinstance(prev, list):
        findings.append(
            finding(
                "malformed_link",
                "error",
                f"prev of {sid!r} should be a list of action ids, got {short(prev)}; ignored",
                [sid],
                where,
            )
        )
        return
    seen: set[str] = set()
    for k, p in enumerate(prev):
        here = f"{where}[{k}]"
        pid = str(p).strip() if isinstance(p, (int, str)) and not isinstance(p, bool) else None
        if pid is None or pid not in ids:
            findings.append(
                finding(
                    "dangling_link",
                    "error",
                    f"{sid!r} comes after action {short(p)}, which the plan does not have; the "
                    "dependency is not drawn",
                    [sid],
                    here,
                )
            )
        elif pid == sid:
            findings.append(
                finding(
                    "self_link",
                    "error",
                    f"{sid!r} lists itself in prev; it is not drawn",
                    [sid],
                    here,
                    [(sid, sid)],
                )
            )
        elif pid in seen:
            findings.append(
                finding(
                    "duplicate_link",
                    "warning",
                    f"{sid!r} lists {pid!r} twice in prev",
                    [pid, sid],
                    here,
                    [(pid, sid)],
                )
            )
        else:
            seen.add(pid)
            draft.links.append((pid, here))
