"""What arguments a tool takes: a registry entry's ``arguments`` and ``required``, and whether a literal fits.

A tool's arguments are described the way a person writes them in a contract file, ``{path: string, limit:
integer}`` with ``required: [path]``, or as the JSON Schema a tool already publishes (OpenAI functions, MCP):
``{type: object, properties: {path: {type: string}}, required: [path], additionalProperties: false}``.
Both become one table, argument name -> type; the key ``"*"`` (written as ``"*": any``, or JSON Schema's
``additionalProperties`` left out or true) lets the tool take arguments it does not list.

>>> table, required = argument_table({"path": "string", "limit": "integer"}, (), "ToolSpec.arguments")
>>> table, required
({'path': 'string', 'limit': 'integer'}, ())
>>> argument_table({"type": "object", "properties": {"q": {"type": ["string", "null"]}}, "required": ["q"]},
...                (), "ToolSpec.arguments")
({'q': 'string|null', '*': 'any'}, ('q',))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planviz.errors import PlanFormatError
from planviz.io.syntax import show_value
from planviz.plan.placeholder import find_placeholders

__all__ = ["ARGUMENT_TYPES", "OTHERS", "argument_table", "fits", "type_name", "takes"]

#: The argument types a registry may name (JSON Schema's, plus ``any``); ``a|b`` is either.
ARGUMENT_TYPES = ("string", "integer", "number", "boolean", "array", "object", "null", "any")
#: The key of an argument table that lets a tool take arguments it does not list.
OTHERS = "*"
_SCHEMA_KEYS = frozenset(
    {"type", "properties", "required", "additionalProperties", "description", "title", "$schema"}
)


def _type(value: Any, where: str) -> str:
    names = value.split("|") if isinstance(value, str) else value
    if isinstance(names, (list, tuple)) and names and all(isinstance(n, str) for n in names):
        bad = [n for n in names if n.strip() not in ARGUMENT_TYPES]
        if not bad:
            return "|".join(n.strip() for n in names)
    raise PlanFormatError(
        f"expected an argument type ({', '.join(ARGUMENT_TYPES)}, or 'a|b'), got "
        f"{show_value(value)}",
        path=where,
    )


def _is_schema(value: Mapping[Any, Any]) -> bool:
    return value.get("type") == "object" or isinstance(value.get("properties"), Mapping)


def argument_table(
    value: Any, required: Any, where: str
) -> tuple[dict[str, str] | None, tuple[str, ...]]:
    """``ToolSpec.arguments`` in either form, as (name -> type, required names); (None, ()) when not described.

    Raises :class:`~planviz.errors.PlanFormatError` naming the field when a type is unknown or a required
    argument is not listed.
    """
    names = tuple(required or ())
    if value is None:
        if names:
            raise PlanFormatError(
                "lists required arguments but no 'arguments' to take them from", path=where
            )
        return None, ()
    if not isinstance(value, Mapping):
        raise PlanFormatError(
            f"expected a mapping of argument name to type, or a JSON Schema object, got "
            f"{show_value(value)}",
            path=where,
        )
    table: dict[str, str] = {}
    if _is_schema(value):
        extra = sorted(set(map(str, value)) - _SCHEMA_KEYS)
        if extra:
            raise PlanFormatError(
                f"a JSON Schema for arguments takes type, properties, required and "
                f"additionalProperties; got {', '.join(map(repr, extra))}",
                path=where,
            )
        for name, prop in (value.get("properties") or {}).items():
            if not isinstance(prop, Mapping):
                raise PlanFormatError(
                    f"expected a schema mapping, got {show_value(prop)}",
                    path=f"{where}.properties.{name}",
                )
            table[str(name)] = _type(prop.get("type", "any"), f"{where}.properties.{name}.type")
        if value.get("additionalProperties", True) is not False:
            table[OTHERS] = "any"
        names += tuple(value.get("required") or ())
    else:
        for name, kind in value.items():
            if not isinstance(name, str):
                raise PlanFormatError(
                    f"argument names are strings, got {show_value(name)}", path=where
                )
            table[name] = _type(kind, f"{where}.{name}")
    if not all(isinstance(n, str) for n in names):
        raise PlanFormatError(
            f"expected argument names, got {show_value(list(names))}", path=f"{where}.required"
        )
    unlisted = [n for n in names if n not in table]
    if unlisted:
        raise PlanFormatError(
            f"requires {', '.join(map(repr, unlisted))}, which the arguments do not list",
            path=where,
        )
    return table, tuple(dict.fromkeys(names))


def type_name(value: Any) -> str:
    """The argument type a literal value has.

    >>> type_name("x"), type_name(3), type_name(2.5), type_name(True), type_name([1]), type_name(None)
    ('string', 'integer', 'number', 'boolean', 'array', 'null')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object" if isinstance(value, Mapping) else "array"


def fits(value: Any, kind: str) -> bool:
    """Whether an argument's value fits ``kind``; a string holding a placeholder ``{{S1.x}}`` is filled at run
    time, not a literal, so it fits any type (an integer also fits ``number``).

    >>> fits("{{S1.count}}", "integer"), fits("ten", "integer"), fits(3, "number"), fits(None, "string|null")
    (True, False, True, True)
    """
    if isinstance(value, str) and next(iter(find_placeholders(value)), None) is not None:
        return True
    got = type_name(value)
    allowed = set(kind.split("|"))
    return "any" in allowed or got in allowed or (got == "integer" and "number" in allowed)


def takes(table: Mapping[str, str], required: tuple[str, ...]) -> str:
    """What a tool takes, in words: ``path: string (required), limit: integer``."""
    listed = [
        f"{n}: {t}{' (required)' if n in required else ''}" for n, t in table.items() if n != OTHERS
    ]
    if OTHERS in table:
        listed.append("any other argument")
    return ", ".join(listed) or "no arguments"
