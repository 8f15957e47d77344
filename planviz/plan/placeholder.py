"""Placeholders: ``{{S1.field}}`` in a string argument names a field of an earlier step's result.

The one home of the placeholder syntax: loading the tool-call shape (which
turns each placeholder into a required fact), validation (``bad_placeholder``:
the step named must be an ancestor) and revisions (a re-issued step's
placeholders follow its new id) all read placeholders with these functions,
so they agree on what a placeholder is. Spaces inside the braces are allowed
(``{{ S1.field }}``); step ids may hold dots, so the step is the longest
dotted prefix that is an id of the plan.

The pattern is linear on any input: the text between the braces holds no
brace, so a scan never runs past the next ``{`` or ``}``.

>>> [p.inner for p in find_placeholders("pay {{ step_1.balance }} by {{step_2.date}}")]
['step_1.balance', 'step_2.date']
>>> split_reference("S1.v2.total", {"S1", "S1.v2"})
('S1.v2', 'total')
>>> rename_placeholders({"amount": "{{ A.out }} and {{B.x}}"}, {"A": "A.v2"}, {"A", "B"})
{'amount': '{{ A.v2.out }} and {{B.x}}'}
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Placeholder",
    "PATTERN",
    "find_placeholders",
    "strings_in",
    "placeholders_in",
    "split_reference",
    "rename_placeholders",
]

PATTERN = re.compile(r"\{\{([^{}]*)\}\}")
"""A placeholder: ``{{`` and ``}}`` around text without braces (group 1, unstripped)."""


@dataclass(frozen=True)
class Placeholder:
    """One placeholder as written: ``text`` (with braces), ``inner`` (stripped) and where it starts in its string."""

    text: str
    inner: str
    start: int


def find_placeholders(text: str) -> list[Placeholder]:
    """Every placeholder in ``text``, in order.

    >>> find_placeholders("{{a.b}} {{ {{c.d}}")
    [Placeholder(text='{{a.b}}', inner='a.b', start=0), Placeholder(text='{{c.d}}', inner='c.d', start=11)]
    """
    if "{{" not in text:
        return []
    return [Placeholder(m.group(0), m.group(1).strip(), m.start()) for m in PATTERN.finditer(text)]


def strings_in(value: Any, path: str = "", *, keys: bool = False) -> Iterator[tuple[str, str]]:
    """Every string inside nested mappings and lists (with ``keys``, mapping keys too), with its field path.

    Iterative, so deep data cannot exhaust the recursion limit.

    >>> list(strings_in({"a": ["x", {"b c": "y"}], "n": 3}, "S1.arguments"))
    [('S1.arguments.a[0]', 'x'), ("S1.arguments.a[1]['b c']", 'y')]
    """
    stack = [(value, path)]
    while stack:
        v, p = stack.pop()
        if isinstance(v, str):
            yield p, v
        elif isinstance(v, Mapping):
            items = []
            for k, item in v.items():
                sub = f"{p}.{k}" if isinstance(k, str) and _NAME.fullmatch(k) else f"{p}[{k!r}]"
                if keys and isinstance(k, str):
                    items.append((k, sub))
                items.append((item, sub))
            stack.extend(reversed(items))
        elif isinstance(v, (list, tuple)):
            stack.extend((item, f"{p}[{i}]") for i, item in reversed(list(enumerate(v))))


_NAME = re.compile(r"[A-Za-z_][\w\-]*")


def placeholders_in(value: Any, path: str = "") -> Iterator[tuple[str, Placeholder]]:
    """Every placeholder in the strings of ``value`` (an arguments mapping), with the field path of its string."""
    for where, text in strings_in(value, path):
        for p in find_placeholders(text):
            yield where, p


def split_reference(inner: str, ids: Collection[str] | None = None) -> tuple[str, str] | None:
    """``(step, field)`` named by a placeholder's inner text, or None when it names no step.

    With ``ids`` the step is the longest dotted prefix that is one of them
    (the whole text names the step's whole result: field ``""``); without,
    the text before the first dot.

    >>> split_reference("step_1.balance"), split_reference("A", {"A"}), split_reference("ghost.x", {"A"})
    (('step_1', 'balance'), ('A', ''), None)
    """
    text = inner.strip()
    if ids is None:
        step, dot, field = text.partition(".")
        return (step, field) if dot and step and field else None
    if text in ids:
        return text, ""
    cut = len(text)
    while True:
        cut = text.rfind(".", 0, cut)
        if cut <= 0:
            return None
        if text[:cut] in ids:
            return text[:cut], text[cut + 1 :]


def rename_placeholders(value: Any, rename: Mapping[str, str], ids: Collection[str]) -> Any:
    """``value`` (arguments) with every placeholder naming a step in ``rename`` pointed at its new id.

    ``ids`` are the plan's step ids before the renaming (to find each
    placeholder's step). Spacing inside the braces is kept; anything that is
    not a string is copied as it is.
    """
    if isinstance(value, str):
        if "{{" not in value:
            return value
        out, last = [], 0
        for p in find_placeholders(value):
            ref = split_reference(p.inner, ids)
            if ref is None or ref[0] not in rename:
                continue
            body = p.text[2:-2]
            at = p.start + 2 + body.index(ref[0])
            out += [value[last:at], rename[ref[0]]]
            last = at + len(ref[0])
        return "".join(out) + value[last:] if out else value
    if isinstance(value, Mapping):
        return {k: rename_placeholders(v, rename, ids) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(rename_placeholders(v, rename, ids) for v in value)
    return value
