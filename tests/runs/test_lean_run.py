"""A lean Run (issue 43): what a loaded run holds, and the fast builders that fill its values (issue 45).

The run machine builds each Event (and a clean Observation, and the bulk plan reader each Step) with a fast
builder generated from the dataclass's fields (``planviz.plan.bulk.slot_filler``): these tests compare it with
the careful constructor on random values, so a new field needs only its declaration.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import pickle
import tracemalloc

import pytest
from hypothesis import given, settings, strategies as st

from planviz import load_trace
from planviz.plan.bulk import slot_filler
from planviz.plan.model import Step
from planviz.runs.events import (
    DERIVED,
    Conflict,
    Event,
    ModelCall,
    Observation,
    clean_observation,
    few_changes,
    new_event,
)

from .otlp import react_trace

# Memory a loaded run holds (everything load_trace allocated and kept, tracemalloc) / the trace file's bytes, on a
# 5,001-span synthetic ReAct trace: 3.17x before the run's values were slotted and shared, 3.02x after (CPython
# 3.11), 2.95x once the OTel reader made one string per result fact. Issue 43 asks 3x of the whole load's peak
# (tests/traces/test_otel_scaling.py bounds that); this bound keeps what was won. 2.70x once a start's and a
# complete's message were made when read (runs/events.DERIVED) and one or two status changes held as a FewChanges,
# not a dict (main then: 3.04x).
HELD = 2.8

names = st.text(st.characters(codec="utf-8"), max_size=8)
facts = st.frozensets(names, max_size=3)
opt_names = st.none() | names
ints = st.integers(-3, 10**6)
floats = st.floats(allow_nan=False)
observations = st.builds(
    Observation, st.booleans(), facts, facts, names, st.dictionaries(names, ints, max_size=2), facts
)
conflicts = st.builds(Conflict, names, names, names, names)
events = st.builds(
    Event,
    ints,
    floats,
    names,
    opt_names,
    names,
    ints,
    st.dictionaries(names, names, max_size=3),
    facts,
    facts,
    facts,
    facts,
    ints,
    opt_names,
    st.none() | observations,
    opt_names,
    st.none() | conflicts,
)
model_calls = st.builds(
    ModelCall,
    names,
    floats,
    st.none() | floats,
    st.none() | ints,
    st.none() | ints,
    st.none() | floats,
    st.booleans(),
    opt_names,
    names,
    st.none() | ints,
    st.none() | ints,
    st.none() | ints,
    st.booleans(),
    opt_names,
    opt_names,
)


def values(obj: object) -> list[object]:
    return [getattr(obj, f.name) for f in dataclasses.fields(obj)]  # type: ignore[arg-type]


def same(built: object, careful: object) -> None:
    """Equal, of the same class, and every field the very value given (nothing dropped, nothing copied)."""
    assert type(built) is type(careful)
    assert built == careful and hash(built) == hash(careful) and repr(built) == repr(careful)
    for f in dataclasses.fields(careful):  # type: ignore[arg-type]
        assert getattr(built, f.name) is getattr(careful, f.name), f.name


@settings(max_examples=60, deadline=None)
@given(events)
def test_new_event_is_the_careful_event_field_for_field(event):
    same(new_event(*values(event)), event)
    same(new_event(**{f.name: getattr(event, f.name) for f in dataclasses.fields(Event)}), event)


def test_new_event_and_event_take_none_changes_as_no_change():
    assert (
        new_event(0, 0.0, "start", "A", "m", 1, None).changes
        == {}
        == Event(0, 0.0, "start", "A", "m", 1, None).changes
    )


@settings(max_examples=40, deadline=None)
@given(facts)
def test_a_clean_observation_is_the_careful_one(fs):
    assert clean_observation(fs) == Observation(True, fs)
    assert repr(clean_observation(fs)) == repr(Observation(True, fs))


def test_the_fast_builder_covers_a_field_added_by_its_declaration_alone():
    # Step, Event, Observation and ModelCall grown by one field, declared and nothing else
    for cls, given_ in (
        (Step, {"id": "S", "action": "a"}),
        (Event, dict(index=0, time=0.0, kind="start", step="S", message="m", plan_version=1)),
        (Observation, {}),
        (ModelCall, {"model": "m", "start": 0.0}),
    ):
        grown = dataclasses.make_dataclass(
            f"Grown{cls.__name__}",
            [(f.name, f.type, f) for f in dataclasses.fields(cls)]
            + [("added", int, dataclasses.field(default=7))],
            frozen=True,
            slots=True,
        )
        fast = slot_filler(grown)(**given_, added=11)
        assert fast.added == 11 and slot_filler(grown)(**given_).added == 7
        careful = grown(**given_, added=11)
        assert [getattr(fast, f.name) for f in dataclasses.fields(grown)][:-1] == values(careful)[
            :-1
        ] or cls is Step
        every = {f.name: getattr(careful, f.name) for f in dataclasses.fields(grown)}
        assert slot_filler(grown, from_mapping=True)(every) == careful


def test_the_fast_builder_refuses_a_class_without_its_fields_as_slots():
    with pytest.raises(TypeError, match="slotted dataclass"):
        slot_filler(Conflict)


def test_the_fast_builder_of_some_fields_by_position_leaves_the_rest_at_their_defaults():
    made = slot_filler(Step, only=("action", "id", "duration"))("do it", "S1", 2.5)
    assert made == Step("S1", "do it", duration=2.5)


@pytest.mark.parametrize(
    "only",
    [("action",), ("id", "action", "nonsense"), ("id", "id", "action")],
    ids=["a field without a default left out", "not a field", "a field twice"],
)
def test_the_fast_builder_of_some_fields_refuses_what_it_cannot_fill(only):
    with pytest.raises(TypeError, match="only must name distinct fields of Step"):
        slot_filler(Step, only=only)


@settings(max_examples=40, deadline=None)
@given(events, model_calls)
def test_a_runs_values_are_slotted_and_still_pickle_compare_hash_and_replace(event, call):
    for value in (event, call, event.observation):
        if value is None:
            continue
        assert not hasattr(value, "__dict__"), type(
            value
        ).__name__  # slotted: no dict per value (issue 43)
        back = pickle.loads(pickle.dumps(value))
        # (a set's repr may list it in another order)
        assert back == value and hash(back) == hash(value)
        first = dataclasses.fields(value)[0].name
        assert (
            dataclasses.replace(value) == value
            and dataclasses.replace(value, **{first: getattr(value, first)}) == value
        )
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, first, None)


def test_a_loaded_run_holds_little_more_than_its_file(tmp_path):
    path = tmp_path / "react.json"
    path.write_text(json.dumps(react_trace(5001)), encoding="utf-8")
    size = path.stat().st_size
    load_trace(path)  # imports and one-off tables first
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        run = load_trace(path)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(run.events) == 5002
    assert held / size <= HELD, f"the run holds {held / size:.2f}x its file's {size} bytes"


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["start", "complete"]), names, ints, st.frozensets(names, max_size=1))
def test_a_message_made_when_read_is_the_written_one_in_every_use(kind, step, attempt, fs):
    # what the run machine stores for a start and for a complete of one fact or none (issue 43)
    obs = Observation(True, fs) if kind == "complete" else None
    fact = next(iter(fs)) if fs else "no facts"
    written = (
        f"start {step!r}, attempt {attempt}" if kind == "start" else f"{step!r} complete: {fact}"
    )
    lazy = new_event(
        3, 1.0, kind, step, DERIVED, 1, {step: "done"}, attempt=attempt, observation=obs
    )
    plain = Event(3, 1.0, kind, step, written, 1, {step: "done"}, attempt=attempt, observation=obs)
    assert lazy.message == written and type(lazy.message) is str
    assert lazy == plain and hash(lazy) == hash(plain) and repr(lazy) == repr(plain)
    back = pickle.loads(pickle.dumps(lazy))
    assert back == plain and back.message == written
    assert dataclasses.replace(lazy, index=4).message == written


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(names, names, max_size=4), names)
def test_few_changes_are_the_dict_they_stand_for(changes, other):
    few = few_changes(dict(changes))
    assert few == changes and changes == few and repr(few) == repr(changes)
    assert list(few) == list(changes) and list(few.items()) == list(changes.items())
    assert list(few.values()) == list(changes.values()) and dict(few) == changes
    assert len(few) == len(changes) and all(few[k] == v and k in few for k, v in changes.items())
    assert (other in few) == (other in changes) and few.get(other) == changes.get(other)
    # its views are the Mapping's: set operations as on a dict's keys and items
    assert few.keys() == changes.keys() and few.keys() <= set(changes) | {other}
    assert (few.keys() & {other}) == (changes.keys() & {other})
    assert frozenset(changes) <= few.keys() and few.items() == changes.items()
    assert pickle.loads(pickle.dumps(few)) == changes
    with pytest.raises(TypeError):
        hash(few)
