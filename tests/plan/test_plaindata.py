"""io/plaindata.py: Python data is held to what a plan file could hold; JSON is the oracle for what passes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from planviz.errors import PlanFormatError
from planviz.io.plaindata import (
    MAX_LITERAL,
    check_plain,
    check_unicode,
    copy_plain,
    iso_nanos,
    python_literal,
)

json_data = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.tuples(kids, kids)
        | st.dictionaries(st.text(), kids, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(json_data)
def test_what_json_writes_back_passes_and_copies_as_json_reads_it(data):
    check_plain(data)
    assert copy_plain(data) == json.loads(json.dumps(data))


loop: list = []
loop.append(loop)
inner: dict = {"a": []}
inner["a"].append(inner)
shared = ["x" * 1000] * 10
for _ in range(5):
    shared = [
        shared
    ] * 10  # 10**6 strings of 1,000 characters: 1 GB written out, a few kB in memory


@pytest.mark.parametrize(
    "data, path, message",
    [
        (loop, r"\[0\]", "this list contains itself"),
        ({"x": inner}, r"x\.a\[0\]", "this mapping contains itself"),
        ({"x": shared}, r"x(\[\d\])+", "this data stands for more than 40 MiB of text"),
        ([[[[[[]]]]]] * 1, None, None),
        ({"k": {(1, 2): 1}}, "k", r"keys are strings, got \(1, 2\)"),
        ({"k": [b"x"]}, r"k\[0\]", "expected plain data .* got bytes b'x'"),
        ({"k": float("nan")}, "k", "expected a finite number, got nan"),
        ({"k": -(10**5000)}, "k", "integer of about 5,001 digits is too large to write"),
        ({"k\udc00": 1}, r"\['k\\udc00'\]", "lone surrogate"),
        ({"k": ["ok", "x\ud800y"]}, r"k\[1\]", r"lone surrogate '\\ud800' at character 2"),
    ],
)
def test_what_no_file_could_hold_is_refused_at_its_path(data, path, message):
    if message is None:
        check_plain(data)
        return
    with pytest.raises(PlanFormatError, match=f"^{path}: {message}"):
        check_plain(data)


def test_shared_parts_are_walked_once():
    part = {"k": list(range(1000))}
    check_plain([part] * 1000)  # a million values written out, well inside the cap; visited once


def test_check_unicode_takes_a_path_as_text_or_parts():
    assert check_unicode("fine é") == "fine é"
    with pytest.raises(PlanFormatError, match=r"^steps\[2\]\.id: lone surrogate"):
        check_unicode("\udfff", ("steps", 2, "id"))


@pytest.mark.parametrize(
    "text, expected",
    [
        # LangChain's str() of a tool input
        (
            "{'city': 'Paris', 'days': 3}",
            {"city": "Paris", "days": 3},
        ),
        # tuples as lists
        (
            "{'at': (1, 2), 'ok': True, 'none': None}",
            {"at": [1, 2], "ok": True, "none": None},
        ),
        ("[1, -2.5, 'x']", [1, -2.5, "x"]),
        ("{'when': datetime.date(2025, 1, 1)}", None),  # a call: nothing is evaluated
        ("__import__('os').system('true')", None),
        ("{'a': open}", None),  # a name
        ("{1, 2}", None),  # a set is no plain data
        ("{1: 'a'}", None),  # keys must be text
        ("[" * 60 + "]" * 60, None),  # deeper than 50
        ("'" + "a" * MAX_LITERAL + "'", None),  # longer than MAX_LITERAL
        ("{'a': 1", None),
    ],
)
def test_python_literal_reads_plain_data_and_evaluates_nothing(text, expected):
    assert python_literal(text) == expected
    if expected is not None:
        assert json.loads(json.dumps(expected)) == python_literal(text)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1970-01-01T00:00:00.001Z", 1_000_000),
        ("2025-08-01T13:56:55.683Z", 1_754_056_615_683_000_000),  # Langfuse: milliseconds, exactly
        ("2025-08-01T13:56:55.123456789Z", 1_754_056_615_123_456_789),  # OTel: nanoseconds kept
        ("2025-08-01 15:56:55.1234567+02:00", 1_754_056_615_123_456_700),
        ("1970-01-01T01:00:00+01:00", 0),
        ("1970-01-01T00:00:01", 1_000_000_000),  # no zone: UTC
        ("soon", None),
    ],
)
def test_iso_nanos_is_exact(text, expected):
    assert iso_nanos(text) == expected
