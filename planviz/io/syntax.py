"""What the JSON and YAML readers share: scalar resolution, field paths and their place in the text.

Field paths (``steps[3].depends_on``) name a value inside a document;
:func:`locate` walks a document's events again, only when an error needs a
line and column.

>>> from planviz.io.jsonsyntax import json_events
>>> locate(json_events('{"steps": [{"id": "A"},\\n {"id": 5}]}'), ("steps", 1, "id"))
(2, 9)
"""

from __future__ import annotations

import ast
import math
import re
import warnings
from typing import Any, Iterable

from planviz.errors import show_value  # the one home of showing a user value in a message
from planviz.io import limits

__all__ = [
    "FLOAT_PATTERN",
    "resolve_scalar",
    "split_path",
    "split_exact",
    "join_path",
    "line_col",
    "locate",
    "show_value",
]

_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
FLOAT_PATTERN = re.compile(r"[-+]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
"""Plain scalars matching this (and not an integer) load as floats; the dumper quotes such strings."""
_PATH_TOKEN = re.compile(
    r"""\.?([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\]"""
)
_PLAIN_KEY = re.compile(r"[A-Za-z_$][\w$-]*")

# --------------------------------------------------------------------------- paths


def split_path(path: str | Iterable[str | int]) -> tuple[str | int, ...]:
    """A field path as a tuple of keys and indexes (the inverse of :func:`join_path`).

    >>> split_path("steps[3].depends_on")
    ('steps', 3, 'depends_on')
    >>> split_path("contract.tools['db.write'].writes")
    ('contract', 'tools', 'db.write', 'writes')
    """
    if not isinstance(path, str):
        return tuple(path)
    out: list[str | int] = []
    pos = 0
    while pos < len(path):
        m = _PATH_TOKEN.match(path, pos)
        if m is None:
            break
        name, index, quoted = m.groups()
        out.append(
            name if name is not None else int(index) if index is not None else literal(quoted)
        )
        pos = m.end()
    return tuple(out)


def literal(text: str) -> Any:
    """:func:`ast.literal_eval` of untrusted text, silent: what Python would warn about while compiling it
    (``1and 2``: "invalid decimal literal"; ``"\\d"``: an invalid escape) is never printed to the user.

    >>> literal("[1, 'a']")
    [1, 'a']
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.literal_eval(text)


def split_exact(path: str) -> tuple[str | int, ...] | None:
    """Like split_path, or None when the text is not a field path (then it is kept as it is)."""
    parts = split_path(path)
    return parts if join_path(parts) == path or not path else None


def join_path(parts: Iterable[str | int]) -> str:
    """A readable field path: ``steps[3].depends_on``; odd keys are quoted (``tools['db.write']``).

    >>> join_path(("steps", 3, "depends_on"))
    'steps[3].depends_on'
    >>> join_path((2, "goal"))
    '[2].goal'
    """
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(part):
            out += f".{part}" if out else part
        else:
            out += f"[{part!r}]"
    return out


def line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def locate(
    events: Iterable[tuple[str, Any, tuple[int, int]]], target: tuple[Any, ...]
) -> tuple[int, int] | None:
    """Walk events of one document; the position of ``target`` or of its deepest existing prefix."""
    stack: list[list[Any]] = []  # [is_map, key_or_index, expecting_key, on_path]
    best, best_len = None, -1

    def advance() -> None:
        if stack:
            top = stack[-1]
            if top[0]:
                top[2] = True
            else:
                top[1] += 1

    for kind, value, pos in events:
        if kind == "end":
            stack.pop()
            advance()
            continue
        if stack and stack[-1][0] and stack[-1][2]:
            top = stack[-1]
            top[1], top[2] = value, False
            if (
                top[3]
                and len(stack) <= len(target)
                and target[len(stack) - 1] == value
                and len(stack) > best_len
            ):
                best, best_len = pos, len(stack)  # the key, until its value is seen
            if kind != "scalar":
                return best
            continue
        depth = len(stack)
        on_path = depth <= len(target) and (
            not stack or (stack[-1][3] and stack[-1][1] == target[depth - 1])
        )
        if on_path and depth >= best_len:
            best, best_len = pos, depth
            if depth == len(target):
                return pos
        if kind == "scalar":
            advance()
        else:
            stack.append([kind == "map", None if kind == "map" else 0, True, on_path])
    return best


def resolve_scalar(text: str) -> Any:
    """The value of a plain YAML scalar, resolved like JSON: everything but null/true/false/numbers stays text.

    >>> [resolve_scalar(t) for t in ["012", "no", "on", "1:20", "1e3", "-4", "2.50", "true", "True", "", "null"]]
    ['012', 'no', 'on', '1:20', 1000.0, -4, 2.5, True, 'True', None, None]
    """
    if text in ("", "~", "null"):
        return None
    if text == "true":
        return True
    if text == "false":
        return False
    if text[0] in "+-.0123456789":
        if _INT.fullmatch(text):
            digits = len(text.lstrip("+-"))
            if digits > limits.max_digits():
                raise ValueError(limits.too_many_digits(digits))
            return int(text)
        if FLOAT_PATTERN.fullmatch(text):
            value = float(text)
            if not math.isfinite(value):
                raise ValueError(f"number {text} is out of range: expected a finite number")
            return value
    return text
