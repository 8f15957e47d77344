"""Plain data to :class:`planviz.Plan` and :class:`planviz.Contract`, and back.

Two plan shapes are read. The planviz shape is the plan file of SPEC section 2
(``goal``, ``time_unit``, ``premises``, ``unknowns``, ``steps`` with the
:class:`planviz.Step` fields, optional ``contract``). The tool-call
shape is what LLM agents emit: steps numbered ``n`` with ``tool``,
``arguments``, ``why`` and ``dependsOn``. Step ``n`` becomes ``step_n``, ``why``
the expected evidence, the action reads as the call, and each placeholder
``{{step_k.field}}`` in an argument makes the step require the fact
``step_k.field`` and step ``k`` produce it. A missing dependency is not
repaired here: ``validate`` reports it.

Every defect is a :class:`~planviz.errors.PlanFormatError` naming the field
path (``steps[3].depends_on``) and what was expected; :mod:`planviz.plan.files` adds
the line and column.

>>> plan = plan_from_dict({"premises": ["account C-17 is past due"], "steps": [
...     {"n": 1, "tool": "lookup_account", "arguments": {"customer_id": "C-17"}, "why": "balance shown"},
...     {"n": 2, "tool": "offer_plan", "arguments": {"amount": "{{step_1.balance}}"}, "why": "offer sent",
...      "dependsOn": [1]}]})
>>> plan.step("step_1").action, plan.step("step_1").produces
("lookup_account(customer_id='C-17')", ('step_1.balance',))
>>> plan.step("step_2").depends_on, plan.step("step_2").requires
(('step_1',), ('step_1.balance',))
>>> plan_from_dict({"goal": "g", "steps": [{"id": "A", "acton": "x"}]})  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
planviz.errors.PlanFormatError: steps[0].acton: unknown key 'acton' (did you mean 'action'?); valid keys:
id, action, kind, depends_on, requires, produces, expected_evidence, check, rollback, duration, tool,
arguments, resources, risk, effect, approval, horizon, budget, expands_to, revises
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from planviz.errors import PlanFormatError, did_you_mean
from planviz.io.plaindata import as_duration, check_plain, check_unicode, copy_plain
from planviz.io.syntax import join_path, show_value
from planviz.plan.bulk import paused_gc, planviz_steps
from planviz.plan.fields import (
    BUDGET_FIELDS,
    CHOICES,
    CONTRACT_FIELDS,
    PLAN_FIELDS,
    REQUIRED,
    STEP_FIELDS,
    TOOLCALL_STEP_FIELDS,
    TOOLSPEC_FIELDS,
    plan_shape,
)
from planviz.plan.horizon import Budget
from planviz.plan.model import Contract, Plan, Step, ToolSpec
from planviz.plan.placeholder import find_placeholders, split_reference, strings_in

_show = functools.partial(show_value, limit=60)

__all__ = ["plan_from_dict", "contract_from_dict", "plan_to_dict", "contract_to_dict"]

# step numbers, versions and counts: anything larger is not a count but hostile input
_MAX_INT = 2**63 - 1
_STEP_DEFAULTS = {
    f.name: f.default for f in fields(Step) if f.name not in ("id", "action", "arguments")
}
_CONTRACT_DEFAULTS = {f.name: f.default for f in fields(Contract) if f.name != "tools"}
_TOOLSPEC_DEFAULTS = {f.name: f.default for f in fields(ToolSpec)}


def plan_from_dict(data: Any, *, source: str | None = None, shape: str | None = None) -> Plan:
    """Build a :class:`Plan` from parsed data in either shape (``shape`` forces one).

    Raises :class:`PlanFormatError` naming the field path; ``source`` names the file.

    >>> plan_from_dict({"goal": "g", "steps": [{"id": 3, "action": "a"}]})
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: steps[0].id: step ids are strings, got the number 3: quote it ("3")
    """
    try:
        with paused_gc():
            return _plan(data, shape)
    except PlanFormatError as exc:
        raise exc.located(source=source) from None


def contract_from_dict(
    data: Any, *, source: str | None = None, _prefix: tuple[Any, ...] = ()
) -> Contract:
    """Build a :class:`Contract` from parsed data: the fields of SPEC section 1.

    ``tools`` maps a tool name to ``{permitted, writes, preconditions}``.

    >>> c = contract_from_dict({"required": "verify", "tools": {"db_write": {"writes": True}}, "intent": "read"})
    >>> c.required, c.tools["db_write"].writes
    (('verify',), True)
    >>> contract_from_dict({"intent": "delete"})
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: intent: expected one of 'read', 'write', got 'delete'
    """
    try:
        return _contract(data, _prefix)
    except PlanFormatError as exc:
        raise exc.located(source=source) from None


# --------------------------------------------------------------------------- reading


def _plan(data: Any, shape: str | None) -> Plan:
    if not isinstance(data, Mapping):
        raise _fail(
            f"expected a plan: a mapping with goal and steps, got {_kind(data)} {_show(data)}", ()
        )
    shape = shape or plan_shape(data) or "planviz"
    if shape not in ("planviz", "toolcall"):
        raise _fail(f"unknown plan shape {shape!r}: expected 'planviz' or 'toolcall'", ())
    _check_keys(data, PLAN_FIELDS, ())
    _check_required(data, REQUIRED["plan" if shape == "planviz" else "toolcall_plan"], ())
    if shape == "planviz" or not isinstance(data["steps"], (list, tuple)):
        steps = _convert("steps", "steps", data["steps"], ("steps",))  # checks the list too
    else:
        steps = _toolcall_steps(data["steps"])
    kwargs = {
        name: _convert(PLAN_FIELDS[name], name, data[name], (name,))
        for name in (
            "goal",
            "time_unit",
            "version",
            "trigger",
            "invalidated",
            "premises",
            "unknowns",
        )
        if data.get(name) is not None
    }
    if data.get("contract") is not None:
        kwargs["contract"] = _contract(data["contract"], ("contract",))
    goal = kwargs.pop("goal", "")
    return Plan(goal, steps, **kwargs)


def _kwargs(
    raw: Any,
    table: dict[str, str],
    required: tuple[Any, ...],
    path: tuple[Any, ...],
    what: str = "a step mapping",
) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise _fail(f"expected {what}, got {_kind(raw)} {_show(raw)}", path)
    _check_keys(raw, table, path)
    _check_required(raw, required, path)
    return {
        name: _convert(table[name], name, value, path + (name,))
        for name, value in raw.items()
        if value is not None
    }


def _planviz_step(raw: Any, path: tuple[Any, ...]) -> Step:
    kwargs = _kwargs(raw, STEP_FIELDS, REQUIRED["step"], path)
    return _make_step(kwargs.pop("id"), kwargs.pop("action", ""), kwargs, path)


def _make_step(step_id: str, action: str, kwargs: dict[str, Any], path: tuple[Any, ...]) -> Step:
    try:
        return Step(step_id, action, **kwargs)
    except PlanFormatError as exc:  # the checks above should have caught it; keep the place anyway
        raise _fail(exc.message, path) from None


def _toolcall_steps(raw_steps: list[Any] | tuple[Any, ...]) -> tuple[Step, ...]:
    prepared = []
    for i, raw in enumerate(raw_steps):
        path = ("steps", i)
        kwargs = _kwargs(raw, TOOLCALL_STEP_FIELDS, REQUIRED["toolcall_step"], path)
        arguments = kwargs.get("arguments", {})
        wanted = tuple(
            f"{ref[0]}.{ref[1]}"
            for _, text in strings_in(arguments)
            for p in find_placeholders(text)
            if (ref := split_reference(p.inner)) is not None
        )
        step = {
            "id": f"step_{kwargs.pop('n')}",
            "action": _call_text(kwargs["tool"], arguments),
            "expected_evidence": kwargs.pop("why", ""),
            "depends_on": kwargs.pop("dependsOn", ()),
            **kwargs,
        }
        step["requires"] = _unique(tuple(step.get("requires", ())) + wanted)
        prepared.append((step, wanted, path))
    produced: dict[str, list[str]] = {}
    for _, wanted, _ in prepared:
        for fact in wanted:
            produced.setdefault(fact.split(".", 1)[0], []).append(fact)
    steps = []
    for step, _, path in prepared:
        step["produces"] = _unique(
            tuple(step.get("produces", ())) + tuple(produced.get(step["id"], ()))
        )
        steps.append(_make_step(step.pop("id"), step.pop("action"), step, path))
    return tuple(steps)


def _call_text(tool: str, arguments: Mapping[str, Any]) -> str:
    return f"{tool}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"


def _unique(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _contract(data: Any, prefix: tuple[Any, ...]) -> Contract:
    if not isinstance(data, Mapping):
        raise _fail(
            f"expected a contract mapping ({', '.join(CONTRACT_FIELDS)}), got {_kind(data)} {_show(data)}",
            prefix,
        )
    _check_keys(data, CONTRACT_FIELDS, prefix)
    kwargs = {
        name: _convert(CONTRACT_FIELDS[name], name, value, prefix + (name,))
        for name, value in data.items()
        if value is not None
    }
    return Contract(**kwargs)


def _check_keys(data: Mapping[Any, Any], table: Mapping[str, str], path: tuple[Any, ...]) -> None:
    for key in data:
        if not isinstance(key, str):
            raise _fail(f"keys are strings, got {_show(key)}", path)
        if key not in table:
            hint = did_you_mean(key, [k for k in table if not k.startswith("$")])
            valid = ", ".join(k for k in table if not k.startswith("$"))
            raise _fail(f"unknown key {key!r}{hint}; valid keys: {valid}", path + (key,))


def _check_required(
    data: Mapping[str, Any], required: tuple[str, ...], path: tuple[Any, ...]
) -> None:
    for key in required:
        if data.get(key) is None:
            where = f"missing required key {key!r}" if key not in data else f"{key!r} is empty"
            raise _fail(f"{where}: expected {_EXPECTED.get(key, 'a value')}", path)


_EXPECTED = {
    "goal": "the goal as a string",
    "steps": "a list of step mappings",
    "id": "a string step id",
    "n": "the step number (an integer)",
    "tool": "the tool's name",
}


def _convert(kind: str, name: str, value: Any, path: tuple[Any, ...]) -> Any:
    if kind in ("text", "name"):
        if not isinstance(value, str):
            raise _fail(f"expected a string, got {_show(value)}{_quote_hint(value)}", path)
        return check_unicode(value, path)
    if kind == "id":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            shown = _show(value)
            how = (
                f'("{shown}")'
                if isinstance(value, int) and shown[:1] in "-0123456789"
                else "as written in the file"
            )
            raise _fail(f"step ids are strings, got the number {shown}: quote it {how}", path)
        if not isinstance(value, str) or not value:
            raise _fail(
                f"expected a non-empty string id, got {_show(value)}{_quote_hint(value)}", path
            )
        return check_unicode(value, path)
    if kind == "strings":
        return _strings(value, path)
    if kind == "duration":
        number = as_duration(value)
        if number is None:
            raise _fail(
                f"expected a finite number >= 0 (in the plan's time_unit), got {_show(value)}", path
            )
        return number
    if kind in ("version", "count", "n"):
        low = 1 if kind == "version" else 0
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= _MAX_INT:
            what = "the step number, an integer" if kind == "n" else "an integer"
            raise _fail(f"expected {what} >= {low}, got {_show(value)}", path)
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise _fail(f"expected true or false, got {_show(value)}", path)
        return value
    if kind == "choice":
        choices = CHOICES[name]
        if value not in choices:
            raise _fail(
                f"expected one of {', '.join(map(repr, choices))}, got {_show(value)}", path
            )
        return value
    # a tool's argument table or JSON Schema: ToolSpec reads it (plan/toolargs.py)
    if kind == "toolargs":
        if not isinstance(value, Mapping):
            raise _fail(
                f"expected a mapping of argument name to type, or a JSON Schema object, got {_show(value)}",
                path,
            )
        check_plain(value, path)
        return value
    if kind == "arguments":
        if not isinstance(value, Mapping):
            raise _fail(
                f"expected a mapping of argument name to value, got {_kind(value)} {_show(value)}",
                path,
            )
        check_plain(value, path)
        return value
    if kind == "refs":
        items = value if isinstance(value, (list, tuple)) else [value]
        out = []
        for i, item in enumerate(items):
            where = path + (i,) if isinstance(value, (list, tuple)) else path
            if (
                isinstance(item, bool)
                or not isinstance(item, (int, str))
                or item == ""
                or (isinstance(item, int) and abs(item) > _MAX_INT)
            ):
                raise _fail(f"expected a step number or a 'step_k' id, got {_show(item)}", where)
            out.append(f"step_{item}" if isinstance(item, int) or item.isdigit() else item)
        return tuple(out)
    if kind == "steps":  # a plan's steps, or a far step's expands_to
        if not isinstance(value, (list, tuple)):
            raise _fail(
                f"expected a list of step mappings, got {_kind(value)} {_show(value)}", path
            )
        # well-formed steps in bulk, the rest one by one
        return planviz_steps(value, _planviz_step, path)
    if kind == "budget":
        return Budget(
            **_kwargs(value, BUDGET_FIELDS, (), path, "a budget mapping (steps, duration)")
        )
    if kind == "pairs":
        if not isinstance(value, (list, tuple)):
            raise _fail(f"expected a list of [first, second] pairs, got {_show(value)}", path)
        pairs = []
        for i, pair in enumerate(value):
            pair = _strings(pair, path + (i,)) if not isinstance(pair, str) else None
            if pair is None or len(pair) != 2:
                raise _fail(
                    f"expected a [first, second] pair of ids or kinds, got {_show(value[i])}",
                    path + (i,),
                )
            pairs.append(pair)
        return tuple(pairs)
    if kind == "tools":
        if not isinstance(value, Mapping):
            raise _fail(
                f"expected a mapping of tool name to {{permitted, writes, preconditions}}, got {_show(value)}",
                path,
            )
        tools = {}
        for tool, spec in value.items():
            where = path + (tool,)
            if not isinstance(tool, str):
                raise _fail(f"tool names are strings, got {_show(tool)}", path)
            if spec is None:
                spec = {}
            if not isinstance(spec, Mapping):
                raise _fail(
                    f"expected a mapping with permitted, writes, preconditions, got {_show(spec)}",
                    where,
                )
            _check_keys(spec, TOOLSPEC_FIELDS, where)
            kwargs = {
                k: _convert(TOOLSPEC_FIELDS[k], k, v, where + (k,))
                for k, v in spec.items()
                if v is not None
            }
            try:
                tools[tool] = ToolSpec(**kwargs)
            except (
                PlanFormatError
            ) as exc:  # ToolSpec names its own field: say where it is in the file
                field = (exc.path or "").removeprefix("ToolSpec.")
                raise _fail(exc.message, where + tuple(p for p in field.split(".") if p)) from None
        return tools
    raise AssertionError(kind)  # pragma: no cover


def _strings(value: Any, path: tuple[Any, ...]) -> tuple[str, ...]:
    if isinstance(value, str):
        return (check_unicode(value, path),)
    if not isinstance(value, (list, tuple)):
        raise _fail(f"expected a string or a list of strings, got {_show(value)}", path)
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise _fail(f"expected a string, got {_show(item)}{_quote_hint(item)}", path + (i,))
        check_unicode(item, path + (i,))
    return tuple(value)


def _fail(message: str, path: tuple[Any, ...]) -> PlanFormatError:
    return PlanFormatError(message, path=join_path(path) or None)


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    if value is None:
        return "null"
    return f"a {type(value).__name__}"


def _quote_hint(value: Any) -> str:
    if isinstance(value, (bool, int, float)):
        return " (quote it to make it text)"
    return ""


# --------------------------------------------------------------------------- writing


def plan_to_dict(plan: Plan) -> dict[str, Any]:
    """The plan as plain data in the planviz shape: readable key order, defaults left out.

    ``parent``, ``import_findings``, ``source_format`` and ``name`` are not written (they describe where a
    plan came from, not the plan).

    >>> plan_to_dict(Plan("g", [Step("A", "do it", expected_evidence="done", duration=2)]))
    {'goal': 'g', 'steps': [{'id': 'A', 'action': 'do it', 'expected_evidence': 'done', 'duration': 2}]}
    """
    out: dict[str, Any] = {"goal": plan.goal}
    if plan.time_unit:
        out["time_unit"] = plan.time_unit
    if plan.version != 1:
        out["version"] = plan.version
    if plan.trigger:
        out["trigger"] = plan.trigger
    for name in ("invalidated", "premises", "unknowns"):
        if getattr(plan, name):
            out[name] = list(getattr(plan, name))
    out["steps"] = [_step_to_dict(s) for s in plan.steps]
    if plan.contract is not None:
        out["contract"] = contract_to_dict(plan.contract)
    return out


def _step_to_dict(step: Step) -> dict[str, Any]:
    out: dict[str, Any] = {"id": step.id, "action": step.action}
    for name in STEP_FIELDS:
        if name in ("id", "action"):
            continue
        value = getattr(step, name)
        if name == "arguments":
            if value:
                out[name] = copy_plain(value)
        elif name in ("budget", "expands_to"):
            if value:
                out[name] = (
                    {k: _number(v) for k, v in vars(value).items() if v is not None}
                    if name == "budget"
                    else [_step_to_dict(s) for s in value]
                )
        elif name == "expected_evidence" or value != _STEP_DEFAULTS[name]:
            out[name] = (
                _number(value)
                if name == "duration"
                else list(value)
                if isinstance(value, tuple)
                else value
            )
    return out


def contract_to_dict(contract: Contract) -> dict[str, Any]:
    """The contract as plain data, defaults left out.

    >>> contract_to_dict(Contract(required=["verify"], must_precede=[("patch", "verify")]))
    {'required': ['verify'], 'must_precede': [['patch', 'verify']]}
    """
    out: dict[str, Any] = {}
    for name in CONTRACT_FIELDS:
        value = getattr(contract, name)
        if name == "tools":
            if value:
                out[name] = {
                    tool: {
                        k: list(v) if isinstance(v, tuple) else v
                        for k in TOOLSPEC_FIELDS
                        if (v := getattr(spec, k)) != _TOOLSPEC_DEFAULTS[k]
                    }
                    for tool, spec in value.items()
                }
        elif value != _CONTRACT_DEFAULTS[name]:
            out[name] = (
                [list(p) for p in value]
                if name == "must_precede"
                else (list(value) if isinstance(value, tuple) else value)
            )
    return out


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else value
