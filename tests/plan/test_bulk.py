"""The fast path of plan_from_dict builds exactly what the careful path builds, and fails exactly as it fails."""

from __future__ import annotations

import gc
import math
from dataclasses import fields
from types import MappingProxyType

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planviz.errors import PlanFormatError
from planviz.plan import records
from planviz.plan.bulk import paused_gc
from planviz.plan.fields import CHOICES, STEP_FIELDS
from planviz.plan.records import plan_from_dict


class Text(str):
    """A str subclass: the careful path accepts it, the fast path leaves it to the careful path."""


def careful_steps(raw_steps, careful, path=("steps",)):
    return tuple(careful(raw, path + (i,)) for i, raw in enumerate(raw_steps))


def outcome(data):
    """What plan_from_dict makes of ``data``: the plan and every field's exact value and type, or the error."""
    try:
        plan = plan_from_dict(data, source="p.json")
    except PlanFormatError as exc:
        return "error", str(exc), exc.path
    return (
        "plan",
        plan,
        [
            [(f.name, getattr(s, f.name), _types(getattr(s, f.name))) for f in fields(s)]
            for s in plan.steps
        ],
    )


def _types(value):
    if isinstance(value, dict):
        return type(value), [(type(k), _types(v)) for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return type(value), [_types(v) for v in value]
    return type(value)


def both_paths(data):
    fast = outcome(data)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(records, "planviz_steps", careful_steps)
        slow = outcome(data)
    return fast, slow


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=4)
_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    _text,
)
_json = st.recursive(
    _scalar,
    lambda c: st.one_of(
        st.lists(c, max_size=3),
        st.lists(c, max_size=2).map(tuple),
        st.dictionaries(_text, c, max_size=3),
    ),
    max_leaves=8,
)
_strings = st.one_of(_text, st.lists(_text, max_size=3), st.lists(_text, max_size=3).map(tuple))
VALID = {
    "id": st.text(min_size=1, max_size=4),
    "text": _text,
    "name": _text,
    "strings": _strings,
    "duration": st.one_of(st.integers(0, 10**9), st.floats(0, 1e9), st.just(-0.0)),
    # at most 100 deep in a plan file
    "arguments": st.one_of(
        st.dictionaries(_text, _json, max_size=3),
        st.integers(90, 95).map(lambda d: {"x": nested(d)}),
    ),
    "choice": None,
    "budget": st.fixed_dictionaries(
        {}, optional={"steps": st.integers(0, 5), "duration": st.integers(0, 9)}
    ),
    # expands_to
    "steps": st.lists(st.fixed_dictionaries({"id": st.sampled_from(["X1", "X2"])}), max_size=2),
}
_stranger = st.one_of(
    st.just(Text("low")), st.just(object()), st.just({"a"}), st.just(MappingProxyType({"a": 1}))
)
# not Unicode text: refused by the careful path
_surrogate = st.sampled_from(["A\udc00", "\ud800", "é\udfff"])
BAD = {
    "id": st.one_of(
        st.integers(),
        st.floats(),
        st.just(""),
        st.booleans(),
        st.just(Text("A")),
        _stranger,
        _surrogate,
    ),
    "text": st.one_of(
        st.integers(),
        st.booleans(),
        st.lists(_text, max_size=1),
        st.floats(),
        _stranger,
        _surrogate,
    ),
    "strings": st.one_of(
        st.tuples(
            st.lists(_text, max_size=2),
            st.one_of(
                st.integers(),
                st.none(),
                st.just(Text("x")),
                st.lists(_text, max_size=1),
                st.booleans(),
            ),
        ).map(lambda t: t[0] + [t[1]]),
        st.integers(),
        st.dictionaries(_text, _text, max_size=1),
        st.just(Text("x")),
        _stranger,
        _surrogate,
        st.lists(_text, max_size=2).flatmap(lambda good: _surrogate.map(lambda bad: good + [bad])),
    ),
    "duration": st.one_of(
        st.integers(-10, -1),
        st.floats(allow_nan=True).filter(lambda f: not 0 <= f < math.inf),
        st.booleans(),
        _text,
        st.just(10**400),
        st.just(2e300),
        _stranger,
    ),
    "choice": st.one_of(_text, st.integers(), st.just(Text("low")), st.just("LOW"), _stranger),
    # too deep to read back from a plan file
    "arguments": st.one_of(
        st.lists(_text, max_size=1),
        _text,
        st.just(MappingProxyType({"a": 1})),
        st.integers(96, 103).map(lambda d: {"x": nested(d)}),
    ),
}


@st.composite
def planted_arguments(draw):
    """Valid arguments with one bad leaf (or one non-string key) somewhere inside."""
    args = draw(st.dictionaries(_text, _json, min_size=1, max_size=3))
    bad = draw(
        st.sampled_from(
            [
                math.nan,
                math.inf,
                -math.inf,
                object(),
                {"x"},
                Text("t"),
                b"x",
                1j,
                {1: "a"},
                MappingProxyType({"a": 1}),
                "A\udc00",
                10**5000,
            ]
        )
    )
    holder, key = args, draw(st.sampled_from(sorted(args)))
    while isinstance(holder[key], (dict, list)) and holder[key] and draw(st.booleans()):
        holder = holder[key]
        key = draw(
            st.sampled_from(sorted(holder) if isinstance(holder, dict) else range(len(holder)))
        )
    if isinstance(holder, dict) and draw(st.booleans()):
        holder[2] = "a"  # a key that is not a string
    else:
        holder[key] = bad
    return args


BAD["arguments"] = st.one_of(BAD["arguments"], planted_arguments(), planted_arguments())
BAD["name"] = BAD["text"]


# not far steps
SIMPLE_KEYS = [k for k in STEP_FIELDS if k != "id" and STEP_FIELDS[k] not in ("budget", "steps")]


def good_value(key):
    kind = STEP_FIELDS[key]
    return st.sampled_from(CHOICES[key]) if kind == "choice" else VALID[kind]


@st.composite
def good_steps(draw):
    """A step the careful path accepts: an id and any valid form of any other fields (or null)."""
    keys = draw(st.lists(st.sampled_from(SIMPLE_KEYS), max_size=8, unique=True))
    out = {
        key: draw(st.one_of(good_value(key), good_value(key), good_value(key), st.none()))
        for key in keys
    }
    out["id"] = draw(VALID["id"])
    return draw(st.permutations(list(out.items()))) if draw(st.booleans()) else list(out.items())


_good_plans = st.lists(good_steps().map(dict), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_good_plans)
def test_well_formed_steps_come_out_exactly_as_the_careful_path_makes_them(steps):
    fast, slow = both_paths({"goal": "g", "steps": steps})
    assert fast[0] == "plan" and fast == slow


KEYS_OF_KIND = {kind: [k for k in STEP_FIELDS if STEP_FIELDS[k] == kind] for kind in BAD}


@pytest.mark.parametrize("kind", sorted(BAD) + ["unknown key"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=_good_plans, data=st.data())
def test_one_defect_anywhere_gives_the_careful_error(kind, steps, data):
    """Well-formed steps with one defect planted: the same error, never a later one first."""
    i = data.draw(st.integers(0, len(steps) - 1))
    if kind == "unknown key":
        key, bad = (
            data.draw(st.sampled_from(["acton", "dependson", 1, ("id",)])),
            st.one_of(_json, _stranger),
        )
    else:
        key, bad = data.draw(st.sampled_from(KEYS_OF_KIND[kind])), BAD[kind]
    steps[i] = {**steps[i], key: data.draw(bad)}
    if data.draw(st.booleans()):
        steps.insert(
            data.draw(st.integers(0, len(steps))), data.draw(st.one_of(_scalar, _stranger))
        )
    fast, slow = both_paths({"goal": "g", "steps": steps})
    assert fast == slow  # mostly the same error; a str subclass is an accepted stranger


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            good_steps().map(dict),
            st.dictionaries(
                st.sampled_from(list(STEP_FIELDS)), st.one_of(_json, _stranger), max_size=5
            ),
            _stranger,
        ),
        max_size=5,
    )
)
def test_any_steps_fare_alike_on_both_paths(steps):
    fast, slow = both_paths({"goal": "g", "steps": steps})
    assert fast == slow


@pytest.mark.parametrize(
    "steps, path",
    [
        ([{"id": "A", "depends_on": ["x", 3]}, {"id": "B", "zzz": 1}], "steps[0].depends_on[1]"),
        (
            [{"id": "A", "requires": ("x", None)}, {"id": "B", "risk": "medium"}],
            "steps[0].requires[1]",
        ),
        ([{"id": "A"}, {"id": "B", "produces": ["y", ["z"]]}, {"id": 3}], "steps[1].produces[1]"),
        (
            [{"id": "A", "arguments": {"q": [1, math.nan]}}, {"id": "B", "depends_on": [1]}],
            "steps[0].arguments.q[1]",
        ),
        ([{"id": "A", "resources": ["r"]}, {"id": "B", "duration": -1}], "steps[1].duration"),
    ],
)
def test_the_first_defect_in_the_file_is_the_one_reported(steps, path):
    fast, slow = both_paths({"goal": "g", "steps": steps})
    assert fast == slow and fast[0] == "error" and fast[2] == path


def test_arguments_are_fresh_copies_and_tuples_become_lists():
    shared = {"q": ("a", {"b": [1, 2.5, None, True]})}
    plan = plan_from_dict(
        {"goal": "g", "steps": [{"id": "A", "arguments": shared}, {"id": "B"}, {"id": "C"}]}
    )
    a, b, c = plan.steps
    assert a.arguments == {"q": ["a", {"b": [1, 2.5, None, True]}]}
    assert a.arguments["q"][1] is not shared["q"][1]
    assert b.arguments == c.arguments == {} and b.arguments is not c.arguments


def test_paused_gc_restores_the_collector():
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize(
    "step",
    [
        {"id": "F", "horizon": "far", "budget": {"steps": 3, "duration": 5}},
        {
            "id": "F",
            "horizon": "far",
            "expands_to": [{"id": "F1", "action": "a"}, {"id": "F2", "depends_on": "F1"}],
        },
        {"id": "F", "horizon": "far", "expands_to": [{"id": "F1"}, {"id": 3}]},
        {"id": "F", "horizon": "far", "expands_to": [{"id": "F1", "requires": ["x", "\udc00"]}]},
        {"id": "F", "budget": {"steps": -1}},
    ],
)
def test_far_steps_and_their_expansions_fare_alike(step):
    fast, slow = both_paths({"goal": "g", "steps": [{"id": "A", "produces": "x"}, step]})
    assert fast == slow
