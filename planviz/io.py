"""Plan files in and out: :func:`load_plan`, :func:`load_plans`, :func:`load_contract`, :func:`dump_plan`.

A plan file is YAML or JSON (or JSON Lines, one plan per line) in the
planviz shape or the tool-call shape LLM agents emit; planner outputs in
the formats of :mod:`planviz.importers` (TaskBench, LLMCompiler, ReWOO,
NESTFUL) load too. The format is detected when not given. Input is
untrusted (:mod:`planviz.source`): every failure is a
:class:`~planviz.errors.PlanFormatError` naming the file, line, column and
field path, and saying what was expected.

>>> plan = load_plan("goal: g\\nsteps:\\n  - {id: A, action: do it, expected_evidence: done}\\n")
>>> load_plan(dump_plan(plan)) == plan
True
>>> load_plan("goal: g\\nsteps:\\n  - id: A\\n    action: a\\n    duration: soon\\n")
Traceback (most recent call last):
...
planviz.errors.PlanFormatError: <string>:5:15: steps[0].duration: expected a finite number >= 0 (in the plan's time_unit), got 'soon'
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from collections.abc import Mapping
from typing import Any

import yaml

from . import importers
from .errors import PlanFormatError
from .fromdict import (
    CHOICES,
    CONTRACT_FIELDS,
    PLAN_FIELDS,
    REQUIRED,
    STEP_FIELDS,
    TOOLCALL_STEP_FIELDS,
    TOOLSPEC_FIELDS,
    contract_from_dict,
    plan_from_dict,
    plan_shape,
    plan_to_dict,
)
from .model import Contract, Plan
from .source import FLOAT_PATTERN, STRING_NAME, Document, parse_document, read_text

__all__ = ["FORMATS", "load_plan", "load_plans", "load_contract", "dump_plan", "plan_schema"]

FORMATS = ("planviz", "toolcall") + tuple(importers.FORMATS)
"""Every input format ``load_plan(..., format=)`` accepts."""


def load_plan(source: Any, format: str | None = None) -> Plan:
    """Load one plan from a path, text, bytes or already-parsed data.

    ``format`` is one of :data:`FORMATS`, or None to detect it. A source
    holding several plans is an error: use :func:`load_plans`.

    >>> load_plan('{"goal": "g", "steps": [{"n": 1, "tool": "ping", "why": "pong"}]}').step("step_1").action
    'ping()'
    >>> load_plan('{"goal": "g", "steps": []}\\n{"goal": "h", "steps": []}\\n')
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: <string>: holds 2 plans, expected one: use load_plans to read them all
    """
    return _load(source, format, single=True)[0]


def load_plans(source: Any, format: str | None = None) -> list[Plan]:
    """Load every plan in a source: one per JSON Lines line, YAML document or item of a list of plans.

    >>> [p.goal for p in load_plans('{"goal": "g", "steps": []}\\n\\n{"goal": "h", "steps": []}\\n')]
    ['g', 'h']
    """
    return _load(source, format, single=False)


def load_contract(source: Any) -> Contract:
    """Load a contract: a file of contract fields, a ``contract:`` mapping, or a plan file's contract.

    >>> load_contract("required: [verify]\\nintent: read\\n").intent
    'read'
    >>> load_contract("contract: {forbidden: [delete_tests]}").forbidden
    ('delete_tests',)
    """
    if isinstance(source, Contract):
        return source
    if isinstance(source, Plan):
        if source.contract is None:
            raise PlanFormatError("this plan has no contract: expected a contract mapping", source=STRING_NAME)
        return source.contract
    doc = None
    if isinstance(source, Mapping):
        data, name = source, STRING_NAME
    else:
        text, name = read_text(source)
        doc = parse_document(text, name)
        if doc.multi:
            raise PlanFormatError(f"holds {len(doc.values)} documents, expected one contract", source=name)
        data = doc.data
    try:
        if not isinstance(data, Mapping):
            return contract_from_dict(data)
        if "steps" in data or (set(data) - {"contract", "$schema"} and "contract" in data):
            if data.get("contract") is None:
                raise PlanFormatError("this plan file has no 'contract' mapping: expected the contract's fields",
                                      path=None)
            return contract_from_dict(data["contract"], _prefix=("contract",))
        if "contract" in data:
            return contract_from_dict(data["contract"], _prefix=("contract",))
        return contract_from_dict({k: v for k, v in data.items() if k != "$schema"})
    except PlanFormatError as exc:
        raise (doc.error(exc) if doc is not None else exc.located(source=name)) from None


def dump_plan(plan: Plan, path: str | os.PathLike | None = None, format: str | None = None) -> str:
    """The plan as YAML (default) or JSON text, written to ``path`` too when given.

    ``format`` is ``"yaml"`` or ``"json"``; when None, a ``path`` ending in
    ``.json`` means JSON. Keys come in a stable, readable order and fields at
    their default are left out; loading the text gives back an equal plan,
    contract included (``parent`` and ``import_findings`` are not written).

    >>> from planviz.model import Step
    >>> print(dump_plan(Plan("g", [Step("012", "ask", expected_evidence="yes")])), end="")
    goal: g
    steps:
    - id: '012'
      action: ask
      expected_evidence: 'yes'
    """
    if format is None:
        format = "json" if path is not None and str(path).lower().endswith(".json") else "yaml"
    data = plan_to_dict(plan)
    if format == "json":
        text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    elif format == "yaml":
        text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False,
                         width=100)
    else:
        raise PlanFormatError(f"unknown dump format {format!r}: expected 'yaml' or 'json'")
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """Quotes every string planviz's loader would read as a non-string (``1e3``), besides YAML 1.1's."""


_Dumper.add_implicit_resolver("tag:yaml.org,2002:float", FLOAT_PATTERN, list("-+.0123456789"))


# --------------------------------------------------------------------------- loading


def _load(source: Any, format: str | None, *, single: bool) -> list[Plan]:
    if format is not None and format not in FORMATS:
        raise PlanFormatError(f"unknown format {format!r}: expected one of {', '.join(map(repr, FORMATS))}")
    if isinstance(source, Plan):
        return [source]
    doc: Document | None = None
    parse_error: PlanFormatError | None = None
    if isinstance(source, (Mapping, list, tuple)):
        name, data = STRING_NAME, source
        text = _as_text(source)
    else:
        text, name = read_text(source)
        try:
            doc = parse_document(text, name)
        except PlanFormatError as exc:
            parse_error = exc
        data = doc.data if doc is not None else None
    records = _records(doc, data)
    fmt = format
    if fmt is None:
        if records is not None and all(plan_shape(r[0]) for r in records):
            fmt = "planviz"
        else:
            fmt = importers.detect(text, data)
        if fmt is None:
            if parse_error is not None:
                raise parse_error
            if records is not None and any(_plan_like(r[0]) for r in records):
                fmt = "planviz"
            else:
                hint = ""
                stripped = source.strip() if isinstance(source, str) else ""
                could_be_path = "\n" not in stripped and stripped[:1] not in "{[\"'-" and ": " not in stripped
                if name == STRING_NAME and could_be_path:
                    hint = f" (and no file named {stripped[:80]!r} exists)"  # a mistyped path, perhaps
                raise PlanFormatError(f"not a plan in any known format ({', '.join(FORMATS)}): expected a mapping "
                                      f"with goal and steps, got {_describe(data)}{hint}", source=name,
                                      line=1 if doc is not None else None, column=1 if doc is not None else None)
    if fmt in ("planviz", "toolcall"):
        if parse_error is not None:
            raise parse_error
        assert records is not None
        if single and len(records) != 1:
            raise PlanFormatError(f"holds {len(records)} plans, expected one: use load_plans to read them all",
                                  source=name)
        plans = []
        for value, record, prefix in records:
            shape = format or plan_shape(value) or "planviz"
            try:
                plans.append(plan_from_dict(value, shape=shape))
            except PlanFormatError as exc:
                raise (doc.error(exc, record, prefix) if doc is not None else exc.located(source=name)) from None
        return plans
    plans = importers.import_plans(fmt, text, data, source=name)
    if single and len(plans) != 1:
        raise PlanFormatError(f"holds {len(plans)} plans, expected one: use load_plans to read them all"
                              if plans else f"no plan found in this {fmt} input", source=name)
    return plans


def _records(doc: Document | None, data: Any) -> list[tuple[Any, int, tuple]] | None:
    """The candidate plans in parsed data: (value, record number, path prefix), or None if not plan-shaped."""
    if doc is not None and doc.multi:
        return [(value, i, ()) for i, value in enumerate(doc.values)]
    if isinstance(data, (list, tuple)):
        if data and all(isinstance(item, Mapping) and "steps" in item for item in data):
            return [(item, 0, (i,)) for i, item in enumerate(data)]
        return None
    if data is None and doc is None:
        return None
    return [(data, 0, ())]


def _plan_like(value: Any) -> bool:
    return isinstance(value, Mapping) and ("steps" in value or "goal" in value)


def _describe(data: Any) -> str:
    if isinstance(data, Mapping):
        keys = ", ".join(map(str, list(data)[:8]))
        return f"a mapping with keys {keys}" if keys else "an empty mapping"
    if isinstance(data, (list, tuple)):
        return f"a list of {len(data)} items"
    if isinstance(data, str):
        return f"the text {data[:40]!r}" + ("..." if len(data) > 40 else "")
    return repr(data)


def _as_text(data: Any) -> str:
    try:
        return json.dumps(data, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return ""


# --------------------------------------------------------------------------- schema


def plan_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of plan files, both shapes; ``planviz schema`` prints it.

    Editors use it to check plan files as they are written. It is built from
    the same field tables the loader uses, so the two cannot drift apart.

    >>> schema = plan_schema()
    >>> schema["$schema"], sorted(schema["$defs"]["step"]["required"])
    ('https://json-schema.org/draft/2020-12/schema', ['id'])
    """
    def obj(table: Mapping[str, str], required: tuple[str, ...], title: str, *, nullable: bool = False) -> dict:
        return {
            "type": ["object", "null"] if nullable else "object",
            "title": title,
            "properties": {name: _field_schema(name, kind, name in required) for name, kind in table.items()},
            "required": list(required),
            "additionalProperties": False,
        }

    plan = obj(PLAN_FIELDS, REQUIRED["plan"], "plan (planviz shape)")
    plan["properties"]["steps"] = {"type": "array", "items": {"$ref": "#/$defs/step"}}
    toolcall = obj(PLAN_FIELDS, REQUIRED["toolcall_plan"], "plan (tool-call shape)")
    toolcall["properties"]["steps"] = {"type": "array", "items": {"$ref": "#/$defs/toolcall_step"}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "planviz plan file",
        "description": "A plan: goal, premises, unknowns and steps (each with id, action, depends_on, requires, "
                       "produces, expected_evidence, ...), optionally with its contract; or the tool-call shape "
                       "(steps numbered n with tool, arguments, why, dependsOn).",
        "anyOf": [{"$ref": "#/$defs/plan"}, {"$ref": "#/$defs/toolcall_plan"}],
        "$defs": {
            "plan": plan,
            "toolcall_plan": toolcall,
            "step": obj(STEP_FIELDS, REQUIRED["step"], "step"),
            "toolcall_step": obj(TOOLCALL_STEP_FIELDS, REQUIRED["toolcall_step"], "tool-call step"),
            "contract": obj(CONTRACT_FIELDS, (), "contract", nullable=True),
            "tool": obj(TOOLSPEC_FIELDS, (), "tool spec", nullable=True),
        },
    }


def _field_schema(name: str, kind: str, required: bool) -> dict[str, Any]:
    """The schema of one field; optional fields may also be null (the loader reads null as "not given")."""
    null = [] if required else ["null"]
    if kind in ("text", "name"):
        return {"type": ["string", *null] if null else "string"}
    if kind == "id":
        return {"type": "string", "minLength": 1}
    if kind == "strings":
        return {"type": ["string", "array", *null], "items": {"type": "string"}}
    if kind == "duration":
        return {"type": ["number", *null], "minimum": 0}
    if kind in ("version", "count", "n"):
        return {"type": ["integer", *null] if null else "integer", "minimum": 1 if kind == "version" else 0}
    if kind == "bool":
        return {"type": ["boolean", *null]}
    if kind == "choice":
        return {"enum": [*CHOICES[name], *([None] if null else [])]}
    if kind == "arguments":
        return {"type": ["object", *null]}
    if kind == "refs":
        ref = {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "minLength": 1}]}
        return {"anyOf": [ref, {"type": "array", "items": ref}, *([{"type": "null"}] if null else [])]}
    if kind == "pairs":
        pair = {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}
        return {"type": ["array", *null], "items": pair}
    if kind == "tools":
        return {"type": ["object", *null], "additionalProperties": {"$ref": "#/$defs/tool"}}
    if kind == "contract":
        return {"$ref": "#/$defs/contract"}
    if kind == "steps":
        return {"type": "array"}
    raise AssertionError(kind)  # pragma: no cover
