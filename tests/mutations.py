"""Hypothesis helpers for fuzzing importers with mutated real records.

A real record (text or parsed JSON) is changed by a few random edits: slices of text deleted,
repeated or overwritten with format characters; values of the data replaced by other JSON, keys
dropped, items repeated. Whatever comes out, reading it through the public functions may raise
:class:`planviz.errors.PlanFormatError` and nothing else.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from planviz import parse_plans, validate
from planviz.errors import PlanFormatError

ALPHABET = list("{}[]()\",:;.#$<>-=_\n\t 0123456789STARTENDNodeEdge'\\\u00e9\u202e\x00")

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 10**20)
    | st.floats(allow_nan=True)
    | st.text(max_size=12),
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "prev",
                    "name",
                    "args",
                    "ground_truth",
                    "origin_prompt",
                    "role",
                    "content",
                    "conversations",
                    "task",
                    "task_nodes",
                    "task_links",
                    "task_steps",
                    "instruction",
                    "arguments",
                    "source",
                    "target",
                    "x",
                ]
            ),
            kids,
            max_size=4,
        )
    ),
    max_leaves=12,
)


def mutated_text(text: str, data: st.DataObject) -> str:
    """``text`` after one to four random edits."""
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        n = len(text)
        i = data.draw(st.integers(0, n), label="at")
        j = data.draw(st.integers(i, min(n, i + 40)), label="to")
        op = data.draw(st.sampled_from(["delete", "repeat", "insert", "overwrite"]), label="op")
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "repeat":
            text = text[:j] + text[i:j] * data.draw(st.integers(1, 3)) + text[j:]
        else:
            piece = data.draw(
                st.text(alphabet=st.sampled_from(ALPHABET), min_size=1, max_size=12), label="piece"
            )
            text = text[:i] + piece + (text[i:] if op == "insert" else text[j:])
    return text


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, path + (i,))
    return out


def mutated_json(value: Any, data: st.DataObject) -> Any:
    """A deep copy of ``value`` after one to three random edits of its data."""
    value = copy.deepcopy(value)
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        path = data.draw(st.sampled_from(_paths(value)), label="path")
        if not path:
            value = data.draw(json_values) if data.draw(st.integers(0, 9)) == 0 else value
            continue
        parent = value
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        op = data.draw(st.sampled_from(["replace", "drop", "repeat", "text"]), label="op")
        if op == "replace":
            parent[key] = data.draw(json_values, label="new")
        elif op == "drop":
            del parent[key]
        elif op == "repeat" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif isinstance(parent[key], str):
            parent[key] = mutated_text(parent[key], data)
    return value


def assert_only_format_errors(text: str, fmt: str) -> None:
    """Read ``text`` as ``fmt`` and with detection; validate what loads. Only PlanFormatError may escape."""
    for format in (fmt, None):
        try:
            plans = parse_plans(text, format=format)
        except PlanFormatError:
            continue
        for plan in plans:
            validate(plan)
