"""hindsight() leaves ``durations``, ``parts`` and ``cost`` to be worked out when first read (a report reads none of
them): the value it returns must read, compare, print, copy and pickle exactly as the same Hindsight made whole
(every field given to its constructor), whichever use comes first."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from planviz import Hindsight, hindsight, load_trace, parse_trace, simulate
from planviz.runs.hindsight import retrospect

from ..strategies import plans
from .otlp import agent, chat, react_trace, text, tool

LATER = ("durations", "parts", "cost")

CRAFTED = [
    agent(1, 0, 5),
    chat(2, 0, 1),
    tool(3, "get_weather", 1, 2, args={"city": "Paris"}, result={"sky": "sunny over Paris"}),
    chat(4, 2, 2.5),
    tool(5, "get_weather", 2.5, 3.5, args={"city": "Rome"}, result={"sky": "rain in Rome"}),
    chat(6, 3.5, 4),
    tool(7, "summarize", 4, 5, args={"text": "sunny over Paris"}, result="done"),
]
REAL = sorted((Path(__file__).parents[1] / "data" / "real" / "otel").glob("*.json"))[:4]


def _whole(run) -> Hindsight:
    """The same hindsight made whole: every field handed to the constructor (the eager form)."""
    h = hindsight(run)
    return Hindsight(**{f.name: getattr(h, f.name) for f in dataclasses.fields(h)})


# each public use, on a fresh lazy value (the first use is the one that works the fields out)
USES = {
    "eq": lambda h, whole: h == whole and whole == h and not (h != whole),
    "hash": lambda h, whole: hash(h) == hash(whole),
    "repr": lambda h, whole: repr(h) == repr(whole),
    "to_dict": lambda h, whole: json.dumps(h.to_dict()) == json.dumps(whole.to_dict()),
    "to_text": lambda h, whole: h.to_text() == whole.to_text(),
    "summary": lambda h, whole: h.summary() == whole.summary(),
    "html": lambda h, whole: h._repr_html_() == whole._repr_html_(),
    "pickle": lambda h, whole: (
        pickle.dumps(h) == pickle.dumps(whole) and pickle.loads(pickle.dumps(h)) == whole
    ),
    "copy": lambda h, whole: copy.copy(h) == whole and vars(copy.copy(h)) == vars(whole),
    "deepcopy": lambda h, whole: copy.deepcopy(h) == whole,
    "asdict": lambda h, whole: dataclasses.asdict(h) == dataclasses.asdict(whole),
    "replace": lambda h, whole: dataclasses.replace(h) == whole,
    "fields": lambda h, whole: (
        all(
            type(getattr(h, name)) is type(getattr(whole, name))
            and json.dumps(getattr(h, name)) == json.dumps(getattr(whole, name))
            for name in LATER
        )
        and vars(h) == vars(whole)
    ),
}


def _runs():
    yield "crafted", parse_trace(text(CRAFTED))
    yield "react", parse_trace(json.dumps(react_trace(301)))
    for path in REAL:
        yield path.name, load_trace(path)


@pytest.mark.parametrize("use", sorted(USES))
def test_each_use_reads_as_the_whole_value(use):
    for name, run in _runs():
        assert USES[use](hindsight(run), _whole(run)), (use, name)


@settings(max_examples=40, deadline=None)
@given(plans(max_steps=7), st.sampled_from(sorted(USES)))
def test_each_use_reads_as_the_whole_value_on_simulated_runs(plan, use):
    run = simulate(plan)
    assert USES[use](hindsight(run), _whole(run))


def test_the_fields_nobody_reads_are_not_worked_out(monkeypatch):
    calls = []
    for name in ("figure_parts", "hindsight_cost"):
        real = getattr(retrospect, name)
        monkeypatch.setattr(
            retrospect, name, lambda *a, _name=name, _real=real: calls.append(_name) or _real(*a)
        )
    h = hindsight(parse_trace(text(CRAFTED)))
    # what a report reads: the summary line (serialized pairs here), edges, waits, path, the plan
    assert h.summary().startswith("5 s ran, 3 s possible: get_weather and get_weather#2")
    _ = h.data_edges, h.waits, h.path, h.plan, h.serialized
    assert calls == [] and "durations" not in vars(h)
    assert h.parts["actual"]["tool"] == 3.0 and calls == ["figure_parts"]
    assert h.cost["model_calls"] == 3 and calls == ["figure_parts", "hindsight_cost"]
    assert list(h.durations) == ["get_weather", "get_weather#2", "plan", "summarize"]
    assert "_later" not in vars(h)  # all worked out: nothing more held


def test_a_missing_attribute_is_refused_as_ever():
    h, whole = hindsight(parse_trace(text(CRAFTED))), _whole(parse_trace(text(CRAFTED)))
    for value in (h, whole):
        with pytest.raises(AttributeError, match="'Hindsight' object has no attribute 'nope'"):
            _ = value.nope
    assert "_later" in vars(h)
