"""Placeholders: one syntax, found, split and renamed the same way by the loader, validation and revisions."""

from __future__ import annotations

import pytest

from planviz.plan.placeholder import (
    find_placeholders,
    placeholders_in,
    rename_placeholders,
    split_reference,
)


@pytest.mark.parametrize(
    "text, inners",
    [
        ("{{S1.x}}", ["S1.x"]),
        ("{{ S1.x }} and {{\tS2.y\n}}", ["S1.x", "S2.y"]),
        ("no placeholder {here}", []),
        ("{{ {{S1.x}}", ["S1.x"]),
        ("{{S1.x}} }}", ["S1.x"]),
        ("{{}}", [""]),
        ("{" * 10 + "S1.x" + "}" * 10, ["S1.x"]),
    ],
)
def test_find_placeholders(text, inners):
    assert [p.inner for p in find_placeholders(text)] == inners


@pytest.mark.parametrize(
    "inner, ids, expected",
    [
        ("step_1.balance", None, ("step_1", "balance")),
        ("step_1", None, None),
        ("S1.v2.total", {"S1", "S1.v2"}, ("S1.v2", "total")),
        ("S1.v2", {"S1", "S1.v2"}, ("S1.v2", "")),
        ("ghost.x", {"S1"}, None),
        ("  S1.x  ", {"S1"}, ("S1", "x")),
    ],
)
def test_split_reference(inner, ids, expected):
    assert split_reference(inner, ids) == expected


@pytest.mark.parametrize(
    "value, expected",
    [
        ("{{A.out}}", "{{A.v2.out}}"),
        ("{{ A.out }}", "{{ A.v2.out }}"),
        ("{{\tA.out\n}}", "{{\tA.v2.out\n}}"),
        ("x {{A.out}} y {{ A.out }} {{B.out}}", "x {{A.v2.out}} y {{ A.v2.out }} {{B.out}}"),
        ("{{AB.out}}", "{{AB.out}}"),  # another step whose id starts with A
        ({"n": [1, "{{ A.out }}"]}, {"n": [1, "{{ A.v2.out }}"]}),
    ],
)
def test_rename_placeholders(value, expected):
    assert rename_placeholders(value, {"A": "A.v2"}, {"A", "AB", "B"}) == expected


def test_placeholders_in_names_each_string():
    found = [
        (path, p.inner)
        for path, p in placeholders_in({"a": ["{{S1.x}}", {"b c": "{{ S2.y }}"}]}, "S3.arguments")
    ]
    assert found == [("S3.arguments.a[0]", "S1.x"), ("S3.arguments.a[1]['b c']", "S2.y")]
