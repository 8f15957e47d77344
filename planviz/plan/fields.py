"""The fields of plan files: one table per record kind, read by the loader, the writer and the JSON Schema.

Each table maps a field name to its kind (``text``, ``strings``, ``duration``...);
the order is the order plan files are written in. Because the loader
(:mod:`planviz.plan.records`) and the schema (:mod:`planviz.plan.schema`) read
the same tables, they cannot drift apart.

>>> STEP_FIELDS["depends_on"], REQUIRED["step"]
('strings', ('id',))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "PLAN_FIELDS",
    "STEP_FIELDS",
    "TOOLCALL_STEP_FIELDS",
    "CONTRACT_FIELDS",
    "TOOLSPEC_FIELDS",
    "BUDGET_FIELDS",
    "CHOICES",
    "EFFECTS",
    "REQUIRED",
    "plan_shape",
]

# Field name -> kind; the order is the order plan files are written in.
PLAN_FIELDS: dict[str, str] = {
    "$schema": "text",
    "goal": "text",
    "time_unit": "text",
    "version": "version",
    "trigger": "text",
    "invalidated": "strings",
    "premises": "strings",
    "unknowns": "strings",
    "steps": "steps",
    "contract": "contract",
}
STEP_FIELDS: dict[str, str] = {
    "id": "id",
    "action": "text",
    "kind": "name",
    "depends_on": "strings",
    "requires": "strings",
    "produces": "strings",
    "expected_evidence": "text",
    "check": "text",
    "rollback": "text",
    "duration": "duration",
    "tool": "name",
    "arguments": "arguments",
    "resources": "strings",
    "risk": "choice",
    "effect": "choice",
    "approval": "name",
    "horizon": "choice",
    "budget": "budget",
    "expands_to": "steps",
    "revises": "name",
}
TOOLCALL_STEP_FIELDS: dict[str, str] = {
    "n": "n",
    "tool": "name",
    "arguments": "arguments",
    "why": "text",
    "dependsOn": "refs",
    **{
        k: STEP_FIELDS[k]
        for k in (
            "kind",
            "requires",
            "produces",
            "check",
            "rollback",
            "duration",
            "resources",
            "risk",
            "effect",
            "approval",
            "horizon",
        )
    },
}
CONTRACT_FIELDS: dict[str, str] = {
    "required": "strings",
    "forbidden": "strings",
    "must_precede": "pairs",
    "given_facts": "strings",
    "obtainable_facts": "strings",
    "forbidden_states": "strings",
    "tools": "tools",
    "intent": "choice",
    "max_retries": "count",
    "max_replans": "count",
    "final": "name",
    "confirm": "choice",
}
TOOLSPEC_FIELDS: dict[str, str] = {
    "permitted": "bool",
    "writes": "bool",
    "effect": "choice",
    "preconditions": "strings",
    "arguments": "toolargs",
    "required": "strings",
}
BUDGET_FIELDS: dict[str, str] = {"steps": "count", "duration": "duration"}
RISKS = ("low", "high")
HORIZONS = ("near", "far")
INTENTS = ("read", "write")
EFFECTS = ("read", "write", "destructive")  # OpenTelemetry's gen_ai.agent.tool.tier vocabulary
# Contract.confirm: what a person confirms before step 1 (None: nothing beyond step approvals)
CONFIRMS = ("plan",)
CHOICES: dict[str, tuple[str, ...]] = {
    "risk": RISKS,
    "horizon": HORIZONS,
    "intent": INTENTS,
    "effect": EFFECTS,
    "confirm": CONFIRMS,
}
REQUIRED = {
    "plan": ("goal", "steps"),
    "toolcall_plan": ("steps",),
    "step": ("id",),
    "toolcall_step": ("n", "tool"),
}


def plan_shape(data: Any) -> str | None:
    """``"planviz"`` or ``"toolcall"`` when ``data`` is a plan mapping of that shape, else None.

    >>> plan_shape({"steps": [{"id": "A", "action": "a"}]}), plan_shape({"steps": [{"n": 1, "tool": "t"}]})
    ('planviz', 'toolcall')
    >>> plan_shape({"steps": "x"}) is None
    True
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("steps"), (list, tuple)):
        return None
    first = next((s for s in data["steps"] if isinstance(s, Mapping)), None)
    if first is None:
        return "planviz" if not data["steps"] and "goal" in data else None
    if "id" in first or "action" in first:
        return "planviz"
    if "n" in first or "tool" in first or "dependsOn" in first or "why" in first:
        return "toolcall"
    return None
