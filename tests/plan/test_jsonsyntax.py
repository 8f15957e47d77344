"""The cheap nesting proof of the JSON reader: sound on any text, and errors exactly as the exact check gives them."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planviz.errors import PlanFormatError
from planviz.io import jsonsyntax
from planviz.io.limits import MAX_DEPTH

_tricky = st.text(st.sampled_from('[]{}"\\\\/:,ab é\n\t\u2028'), max_size=6)
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.floats(-1e3, 1e3), _tricky)


@st.composite
def nested_values(draw):
    """A value nesting up to ~110 levels, brackets and escapes inside its strings, siblings on the way."""
    value = draw(_scalar)
    for _ in range(draw(st.integers(0, MAX_DEPTH + 10))):
        siblings = draw(st.lists(_scalar, max_size=2))
        if draw(st.booleans()):
            value = [*siblings, value] if draw(st.booleans()) else [value, *siblings]
        else:
            value = {
                draw(_tricky): value,
                **{f"k{i}{draw(_tricky)}": s for i, s in enumerate(siblings)},
            }
    return value


@st.composite
def json_texts(draw):
    value = draw(nested_values())
    text = json.dumps(
        value, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 0, 1]))
    )
    for _ in range(draw(st.integers(0, 2))):  # break it: insert or drop a character
        at = draw(st.integers(0, len(text)))
        text = (
            text[:at] + draw(st.sampled_from('[]{}"\\,: x')) + text[at:]
            if draw(st.booleans())
            else (text[:at] + text[at + 1 :])
        )
    return text


def depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def outcome(text):
    try:
        return "data", jsonsyntax.parse_json(text, "p.json")
    except PlanFormatError as exc:
        return "error", str(exc)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_texts())
def test_the_proof_changes_nothing_but_speed(text):
    fast = outcome(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(jsonsyntax, "_provably_shallow", lambda text: False)  # always the exact check
        exact = outcome(text)
    assert fast == exact


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_texts())
def test_the_proof_is_sound(text):
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return  # the proof speaks of valid JSON only; parse_json runs the exact check on any other text
    if jsonsyntax._provably_shallow(text):
        assert depth(value) <= MAX_DEPTH


@pytest.mark.parametrize(
    "text, shallow",
    [
        ('{"a": [1, {"b": "x"}]}', True),
        ('{"a": "[[[[ not structure ]"}', False),  # a bracket in a string: the exact check decides
        ('{"a": "say \\"hi\\" \\\\", "b": [[]]}', True),
        ("[" * MAX_DEPTH + "]" * MAX_DEPTH, True),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), False),
        ("[[[]", False),
    ],
)
def test_shallow_proof_examples(text, shallow):
    assert jsonsyntax._provably_shallow(text) is shallow


def test_a_bracket_hidden_behind_an_escape_is_still_counted():
    """A newline escape before a closing quote once made the skeleton hide the nesting that follows it."""
    deep = "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
    with pytest.raises(PlanFormatError, match="nesting deeper than 100"):
        jsonsyntax.parse_json(f'["a\\n", {deep}, "b"]', "p.json")
