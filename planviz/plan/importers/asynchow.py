"""AsyncHow how-to plans (Lin et al., "Graph-enhanced LLMs for asynchronous plan reasoning") as plans.

A record is ``{index, title, steps, step_deps, time, duration_seconds, gold_total_seconds}``: ``steps`` the
how-to's step texts, ``step_deps`` ``[from, to]`` pairs of 1-based step numbers (``to`` waits for
``from``), ``duration_seconds`` each step's gold duration as ``[min, max]`` seconds, keyed by the step number
as a string. Step ``k`` is the k-th text, its id ``"k"``; a pair becomes ``depends_on``; a step's duration is
its gold minimum (so the critical path is the dataset's gold shortest total time, ``gold_total_seconds[0]``);
the plan's goal is the title, its name the record's index, its time unit seconds.

Findings: ``malformed_record`` (no step list), ``malformed_link`` (a pair that is not two step numbers),
``dangling_link`` (a number no step has), ``self_link``, ``duplicate_link``, ``malformed_node`` (a step with no
usable duration: 1 s is used, and said).

>>> rec = {"index": 0, "title": "How to boil an egg", "steps": ["boil water", "add the egg"],
...        "step_deps": [["1", "2"]], "duration_seconds": {"1": [300.0, 600.0], "2": [420.0, 420.0]}}
>>> [plan] = import_plans("", rec)
>>> plan.goal, plan.ids, plan.step("2").depends_on, plan.step("1").duration, plan.time_unit, plan.name
('How to boil an egg', ('1', '2'), ('1',), 300.0, 's', '0')
"""

from __future__ import annotations

import math
from typing import Any

from planviz.plan.importers._build import Draft, build, finding, short
from planviz.plan.model import Finding, Plan

__all__ = ["import_plans", "looks_like", "UNSTATED", "TITLE"]

TITLE = "AsyncHow"
UNSTATED = ("expected_evidence", "produces")


def _is_record(x: Any) -> bool:
    return isinstance(x, dict) and isinstance(x.get("steps"), list) and "step_deps" in x


def looks_like(text: str, data: Any) -> bool:
    """Whether the input reads as AsyncHow: a record with ``steps`` and ``step_deps``, or a list of them."""
    if _is_record(data):
        return True
    return isinstance(data, list) and bool(data) and all(_is_record(x) for x in data)


def import_plans(text: str, data: Any, *, source: str = "<string>") -> list[Plan]:
    """One plan per record."""
    records = [data] if isinstance(data, dict) else list(data) if isinstance(data, list) else []
    return [_record(r, f"[{i}] " if len(records) > 1 else "") for i, r in enumerate(records)]


def _number(value: Any, n: int) -> int | None:
    """A 1-based step number (int or digit string) within 1..n, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return value if isinstance(value, int) and 1 <= value <= n else None


def _record(record: Any, at: str) -> Plan:
    if not _is_record(record):
        return Plan(
            "",
            import_findings=(
                finding(
                    "malformed_record",
                    "error",
                    f"{at}not an AsyncHow record (steps and step_deps): {short(record)}",
                    where=at.strip(),
                ),
            ),
        )
    texts = record["steps"]
    n = len(texts)
    findings: list[Finding] = []
    durations = (
        record.get("duration_seconds") if isinstance(record.get("duration_seconds"), dict) else {}
    )
    drafts = []
    for k in range(1, n + 1):
        span = durations.get(str(k))
        low = span[0] if isinstance(span, list) and span else None
        if (
            isinstance(low, bool)
            or not isinstance(low, (int, float))
            or not math.isfinite(low)
            or low < 0
        ):
            findings.append(
                finding(
                    "malformed_node",
                    "warning",
                    f"step {k} has no usable gold duration ({short(span)}); 1 s is used",
                    [str(k)],
                    f"{at}duration_seconds",
                )
            )
            low = 1.0
        text = texts[k - 1] if isinstance(texts[k - 1], str) else short(texts[k - 1])
        drafts.append(Draft(str(k), text, "", duration=float(low), where=f"{at}steps[{k - 1}]"))
    seen: set[tuple[int, int]] = set()
    deps = record.get("step_deps") if isinstance(record.get("step_deps"), list) else []
    for j, pair in enumerate(deps):
        where = f"{at}step_deps[{j}]"
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            findings.append(
                finding(
                    "malformed_link", "error", f"{short(pair)} is not a [from, to] pair", (), where
                )
            )
            continue
        src, dst = (_number(v, n) for v in pair)
        if src is None or dst is None:
            findings.append(
                finding(
                    "dangling_link",
                    "error",
                    f"{short(pair)} names a step the record does not have (steps 1..{n})",
                    (),
                    where,
                )
            )
        elif src == dst:
            findings.append(
                finding(
                    "self_link",
                    "error",
                    f"step {src} waits for itself",
                    [str(src)],
                    where,
                    [(str(src), str(src))],
                )
            )
        elif (src, dst) in seen:
            findings.append(
                finding(
                    "duplicate_link",
                    "info",
                    f"the pair {src} -> {dst} is listed twice",
                    [str(src), str(dst)],
                    where,
                )
            )
        else:
            seen.add((src, dst))
            drafts[dst - 1].links.append((str(src), where))
    title = record.get("title")
    plan = build(
        title if isinstance(title, str) else "",
        drafts,
        findings,
        name="" if record.get("index") is None else str(record.get("index")),
    )
    return plan.replace(time_unit="s")
