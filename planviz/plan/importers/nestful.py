"""NESTFUL nested API-call sequences as plans.

A NESTFUL sample has an ``input`` (the user's request) and an ``output``: calls
``{name, arguments, label}`` run in order, where ``$varN.field$`` in an
argument is the field of call ``varN``'s result (``$varN$`` the whole result)
and a final ``var_result`` call gathers what the user gets. Step ``varN`` is
the call labelled ``varN`` and produces the fact ``varN`` (its result);
``$varN.field$`` becomes a dependency on it plus the fact ``varN.field``
(``varN`` for the whole result; a field may hold spaces, ``$var1.Exchange Rate$``;
``var1.field$`` with its opening ``$`` lost is read too, as a ``nonstandard_reference``; facts are named by
step id, so two calls sharing a label never share a fact).

Labels are variables: a reference reads the latest call with that label
before it. A label used twice is a ``duplicate_label`` error (the later call
gets the id ``varN#2`` and shadows the earlier one); a call without a label is
a ``missing_label`` warning (its result cannot be referenced; id ``callK``).

>>> sample = {"input": "hotels in Costa Rica", "output": [
...     {"name": "SearchLocation", "arguments": {"query": "Costa Rica"}, "label": "var1"},
...     {"name": "SearchHotels", "arguments": {"geoId": "$var1.geoId$"}, "label": "var2"},
...     {"name": "var_result", "arguments": {"hotels": "$var2$"}}]}
>>> [plan] = import_plans("", sample)
>>> plan.ids, plan.step("var2").requires, plan.step("var1").produces
(('var1', 'var2', 'var_result'), ('var1.geoId',), ('var1', 'var1.geoId'))
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from planviz.plan.importers._build import Draft, Ref, build, call_text, finding, short, strings_in
from planviz.plan.model import Finding, Plan

__all__ = ["import_plans", "looks_like"]

# a field may hold spaces (real outputs read "$var1.Exchange Rate$"), never at its ends nor across a line;
# bounded, so each match attempt costs at most 200 characters whatever the text
_REF = re.compile(r"\$([A-Za-z_]\w*?)(?:\.([^$\s](?:[^$\n]{0,200}?[^$\s])?))?\$")
# "var1.product_id$": a reference with its opening $ lost (read when it names a label of the sample)
_BARE = re.compile(r"(?<![\w$.])([A-Za-z_]\w*)\.([^$\s](?:[^$\n]{0,200}?[^$\s])?)\$")
_KEYS = {"name", "arguments", "label"}
_RESULT = "var_result"


def _is_call(x: Any) -> bool:
    return (
        isinstance(x, dict)
        and isinstance(x.get("name"), str)
        and "arguments" in x
        and (
            "label" in x
            or x.get("name") == _RESULT
            or _REF.search(str(x.get("arguments"))) is not None
        )
    )


def _is_sample(x: Any) -> bool:
    return (
        isinstance(x, dict)
        and isinstance(x.get("output"), list)
        and any(_is_call(c) for c in x["output"])
    )


def _samples(data: Any) -> list[tuple[str, Any]] | None:
    """The samples in the input with their place, or None when it is not NESTFUL."""
    if _is_sample(data):
        return [("", data)]
    if isinstance(data, list) and data:
        if all(_is_sample(x) for x in data):
            return [(f"[{i}]", x) for i, x in enumerate(data)]
        if any(_is_call(x) for x in data) and all(isinstance(x, dict) for x in data):
            return [("", {"input": "", "output": data})]
    if isinstance(data, dict) and data and all(isinstance(v, list) for v in data.values()):
        found = [(f"{k}[{i}]", x) for k, v in data.items() for i, x in enumerate(v)]
        if found and all(_is_sample(x) for _, x in found):
            return found
    return None


def looks_like(text: str, data: Any) -> bool:
    """Whether the parsed input is NESTFUL samples (or one sample, or a bare list of calls)."""
    return _samples(data) is not None


def import_plans(text: str, data: Any, *, source: str = "<string>") -> list[Plan]:
    """One plan per NESTFUL sample in the input."""
    samples = _samples(data)
    if samples is None:
        return [
            Plan(
                "",
                import_findings=[
                    finding(
                        "malformed_record",
                        "error",
                        f"expected NESTFUL samples ({{input, output: [calls]}}), got {short(data)}",
                    )
                ],
            )
        ]
    plans = []
    for place, sample in samples:
        if isinstance(sample.get("_index"), int):
            place = f"{place} (_index {sample['_index']})"
        plans.append(_plan(sample, f"{place}, " if place else ""))
    return plans


def _plan(sample: dict[str, Any], prefix: str) -> Plan:
    given = sample.get("input")
    goal = given if isinstance(given, str) else ""
    findings: list[Finding] = []
    calls = sample["output"]
    ids: list[str] = []
    at: dict[str, list[int]] = {}  # label -> the positions of the calls that carry it, ascending
    first: dict[str, tuple[str, int]] = {}
    for i, call in enumerate(calls):
        where = f"{prefix}output[{i}]"
        label = call.get("label") if isinstance(call, dict) else None
        name = call.get("name") if isinstance(call, dict) else None
        if isinstance(label, str) and label:
            sid = label
            if label in first:
                n = len(at[label]) + 1
                sid = f"{label}#{n}"
                findings.append(
                    finding(
                        "duplicate_label",
                        "error",
                        f"label {label!r} is given to call {i} as well as to call {first[label][1]} "
                        f"({first[label][0]!r}); "
                        f"references to ${label}$ after call {i} read it (id {sid!r}), earlier ones the first; "
                        "give each call its own label",
                        [first[label][0], sid],
                        where,
                    )
                )
            else:
                first[label] = (sid, i)
        elif name == _RESULT:
            sid = _RESULT
        else:
            sid = f"call{i + 1}"
            findings.append(
                finding(
                    "missing_label",
                    "warning",
                    f"call {i} ({short(name)}) has no label, so nothing can read its result; "
                    f"called {sid!r}",
                    [sid],
                    where,
                )
            )
        if isinstance(label, str):
            at.setdefault(label, []).append(i)
        ids.append(sid)
    drafts = []
    for i, call in enumerate(calls):
        drafts.append(_draft(i, call, ids, at, f"{prefix}output[{i}]", findings))
    return build(goal, drafts, findings)


def _draft(
    i: int, call: Any, ids: list[str], at: dict[str, list[int]], where: str, findings: list[Finding]
) -> Draft:
    sid = ids[i]
    if not isinstance(call, dict):
        findings.append(
            finding(
                "malformed_node",
                "error",
                f"call {i} is not a call object: {short(call)}",
                [sid],
                where,
            )
        )
        return Draft(sid, f"unreadable call {short(call)}", "nothing: the call could not be read")
    for key in sorted(k for k in call if k not in _KEYS):
        findings.append(
            finding(
                "unknown_field",
                "warning",
                f"call {sid!r} has field {key!r} = {short(call[key])}, which NESTFUL does not "
                "define (expected name, arguments, label); it is ignored",
                [sid],
                f"{where}.{key}",
            )
        )
    name = call.get("name")
    if not isinstance(name, str) or not name:
        findings.append(
            finding(
                "malformed_node",
                "error",
                f"call {sid!r} has no name (got {short(name)})",
                [sid],
                f"{where}.name",
            )
        )
        name = None
    arguments = call.get("arguments")
    if not isinstance(arguments, dict):
        if arguments is not None:
            findings.append(
                finding(
                    "malformed_arguments",
                    "warning",
                    f"arguments of {sid!r} should be a mapping, got {short(arguments)}; "
                    "read as one argument",
                    [sid],
                    f"{where}.arguments",
                )
            )
        arguments = {} if arguments is None else {"0": arguments}
    refs = []
    for path, text in strings_in(arguments, f"{where}.arguments", keys=True):
        for m in _REF.finditer(text):
            label, field = m.group(1), m.group(2)
            producer = _resolve(label, i, ids, at)
            refs.append(
                Ref(producer, f"{producer}.{field}" if field else producer, path, m.group(0))
            )
        for m in _BARE.finditer(_REF.sub(" ", text)):
            label, field = m.group(1), m.group(2)
            if label not in at:
                continue
            producer = _resolve(label, i, ids, at)
            findings.append(
                finding(
                    "nonstandard_reference",
                    "warning",
                    f"call {sid!r} writes {m.group(0)!r}, not the format's ${label}.{field}$ (the opening $ is missing, "
                    f"so NESTFUL passes it as literal text); read as a reference to {producer!r}",
                    [sid],
                    path,
                )
            )
            refs.append(Ref(producer, f"{producer}.{field}", path, m.group(0)))
    if name == _RESULT:
        shown = ", ".join(f"{k}={short(v)}" for k, v in arguments.items())
        return Draft(
            sid,
            f"return {shown}" if shown else "return",
            "the final result holds every named output",
            tool=None,
            arguments=arguments,
            refs=refs,
            where=where,
            result=sid,
        )
    tool = name or "unnamed call"
    return Draft(
        sid,
        call_text(tool, arguments),
        f"the {tool} result ({sid})",
        tool=name,
        arguments=arguments,
        refs=refs,
        where=where,
        result=sid,
    )


def _resolve(label: str, i: int, ids: list[str], at: dict[str, list[int]]) -> str:
    """The id a ``$label...$`` reference in call i reads: the latest call with that label before i,
    else the first one at or after i (a self or forward reference), else the label itself (dangling).
    A binary search in the label's positions: each reference costs log n, not a scan of the calls."""
    positions = at.get(label)
    if not positions:
        return label
    k = bisect.bisect_left(positions, i)
    return ids[positions[k - 1]] if k else ids[positions[0]]
