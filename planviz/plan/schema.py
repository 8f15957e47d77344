"""The JSON Schema of plan files, built from the loader's own field tables.

>>> schema = plan_schema()
>>> schema["$schema"], sorted(schema["$defs"]["step"]["required"])
('https://json-schema.org/draft/2020-12/schema', ['id'])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planviz.plan.fields import (
    BUDGET_FIELDS,
    CHOICES,
    CONTRACT_FIELDS,
    PLAN_FIELDS,
    REQUIRED,
    STEP_FIELDS,
    TOOLCALL_STEP_FIELDS,
    TOOLSPEC_FIELDS,
)

__all__ = ["plan_schema"]


def plan_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of plan files, both shapes; ``planviz schema`` prints it.

    Editors use it to check plan files as they are written. It is built from
    the same field tables the loader uses, so the two cannot drift apart.

    Parameters
    ----------

    Returns
    -------
    dict
        The JSON Schema, plain data ready for ``json.dumps``.

    Examples
    --------
    >>> schema = plan_schema()
    >>> schema["$schema"], sorted(schema["$defs"]["step"]["required"])
    ('https://json-schema.org/draft/2020-12/schema', ['id'])
    """

    def obj(
        table: Mapping[str, str], required: tuple[str, ...], title: str, *, nullable: bool = False
    ) -> dict[str, Any]:
        return {
            "type": ["object", "null"] if nullable else "object",
            "title": title,
            "properties": {
                name: _field_schema(name, kind, name in required) for name, kind in table.items()
            },
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
            "budget": obj(BUDGET_FIELDS, (), "far-horizon budget", nullable=True),
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
        return {
            "type": ["integer", *null] if null else "integer",
            "minimum": 1 if kind == "version" else 0,
        }
    if kind == "bool":
        return {"type": ["boolean", *null]}
    if kind == "choice":
        return {"enum": [*CHOICES[name], *([None] if null else [])]}
    if kind in ("arguments", "toolargs"):
        return {"type": ["object", *null]}
    if kind == "refs":
        ref = {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "minLength": 1}]}
        return {
            "anyOf": [ref, {"type": "array", "items": ref}, *([{"type": "null"}] if null else [])]
        }
    if kind == "pairs":
        pair = {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}
        return {"type": ["array", *null], "items": pair}
    if kind == "tools":
        return {"type": ["object", *null], "additionalProperties": {"$ref": "#/$defs/tool"}}
    if kind == "contract":
        return {"$ref": "#/$defs/contract"}
    if kind == "steps":  # a step's expands_to (the plan's own steps are set by plan_schema)
        return {"type": ["array", *null], "items": {"$ref": "#/$defs/step"}}
    if kind == "budget":
        return {"$ref": "#/$defs/budget"}
    raise AssertionError(kind)  # pragma: no cover
