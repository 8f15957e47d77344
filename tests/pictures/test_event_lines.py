"""A frame's caption lines: the plain captions of a long run are wrapped without escape_label's passes, to the
same lines escape_label gives."""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st

from planviz import examples, report_html, simulate
from planviz.pictures import captions
from planviz.pictures.escape import escape_label
from planviz.runs import events as events_module
from planviz.runs.events import Event

from ..frontends.pagedata import composed_lines

PLAN = examples.load("cache_isolation")
RUN = SimpleNamespace(events=[None] * 12, outcome="plan_complete")


def _reference(text: str) -> tuple[str, ...]:
    """escape_label's caption lines, padded to two, as event_lines always made them."""
    lines = escape_label(text, limit=160, width=80, max_lines=2, target="text").split("\n")
    return tuple(lines + [" "] * (2 - len(lines)))


# words of plain text and of text escape_label changes (control characters, tabs, runs of spaces, combining
# marks, bidi controls), at lengths around one and two lines and the 160-character cut
_PLAIN = st.text(st.sampled_from("ab_.-Z9·:'"), min_size=1, max_size=90)
_ANY = st.lists(
    st.sampled_from([*"ab_.-Z9·:'", "\t", "\x00", "e\u0301", "\u202e", "  ", "\u00e9"]),
    min_size=1,
    max_size=90,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_PLAIN, max_size=30) | st.lists(_PLAIN | _ANY, max_size=30),
    st.sampled_from(["start", "complete"]),
    st.integers(0, 11),
)
def test_event_lines_are_escape_labels_lines(words, kind, index):
    event = SimpleNamespace(kind=kind, step="S1", time=2.5, message=" ".join(words))
    text = captions.event_caption(event, index, RUN, PLAN)
    assert captions.event_lines(event, index, RUN, PLAN) == _reference(text)


@pytest.mark.parametrize("length", [10, 79, 80, 81, 120, 158, 159, 160, 161, 175, 400])
def test_plain_captions_are_cut_at_a_space_without_escape_label(monkeypatch, length):
    words = ("word " * 100)[: length - 1].strip()
    event = SimpleNamespace(kind="complete", step="tool_2", time=4.0, message=words)
    text = captions.event_caption(event, 3, RUN, PLAN)
    want = _reference(text)

    def refuse(*args, **kwargs):
        raise AssertionError("a plain caption went through escape_label")

    monkeypatch.setattr(captions, "escape_label", refuse)
    assert captions.event_lines(event, 3, RUN, PLAN) == want


# --- event_lines_of: every event's lines made a column at a time, the messages shared with the report's log ---

_SIMULATED = simulate(examples.load("cache_isolation"))
# messages a plain check of the joined texts could be fooled by: a space at either end, the joining "|", runs of
# spaces across it, non-ASCII, control characters; times that are no finite number
_MESSAGE = st.lists(
    st.sampled_from([*"ab ·|", "|", " |", "| ", "  ", "\t", "\u00e9", "x" * 70]), max_size=12
).map("".join)
_TIME = st.none() | st.sampled_from([0, 2, 2.5, 1e17, -3.25, math.inf, -math.inf, math.nan])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_MESSAGE, _TIME), min_size=12, max_size=12),
    st.integers(0, 11),
    st.integers(0, 11),
)
def test_event_lines_of_is_event_lines_of_each_event(changes, first, last):
    first, last = min(first, last), max(first, last)
    run = dataclasses.replace(
        _SIMULATED,
        events=tuple(
            dataclasses.replace(e, message=message, time=time)
            for e, (message, time) in zip(_SIMULATED.events, changes)
        ),
    )
    want = [
        list(captions.event_lines(e, e.index, run, run.plan)) for e in run.events[first : last + 1]
    ]
    assert captions.event_lines_of(run, first, last, run.plan) == want


def test_a_reports_log_and_captions_make_each_message_once(monkeypatch, tmp_path):
    run = simulate(examples.load("cache_isolation"))
    made = []
    derived = events_module._message

    def counted(e):
        made.append(e.index)
        return derived(e)

    # made once per event however it is read: the property or the shared column
    monkeypatch.setattr(events_module, "_message", counted)
    monkeypatch.setattr(Event, "message", property(counted))
    report_html(run, tmp_path / "run.html")
    # the last event's is also read for its own caption and the picture drawn at it
    last = len(run.events) - 1
    assert sorted(i for i in made if i < last) == list(range(last))


# --- event_lines_stored: the lines a page keeps, the events whose lines its script composes from the log row ---

_WORDS = st.lists(
    st.sampled_from(["a", "bb", "c·d", "x" * 20, "y" * 35, "z" * 60, "w" * 79, "v" * 81]),
    min_size=1,
    max_size=6,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_MESSAGE, _TIME | st.just(-0.0)), min_size=12, max_size=12)
    # plain messages of words around the cuts: the proof from the columns' lengths alone
    | st.lists(st.tuples(_WORDS, st.sampled_from([0, 2.5, 12345.5])), min_size=12, max_size=12),
    st.integers(0, 11),
    st.integers(0, 11),
)
def test_event_lines_stored_keeps_what_the_log_row_does_not_compose(changes, first, last):
    first, last = min(first, last), max(first, last)
    run = dataclasses.replace(
        _SIMULATED,
        events=tuple(
            dataclasses.replace(e, message=message, time=time if time is not None else 0.0)
            for e, (message, time) in zip(_SIMULATED.events, changes)
        ),
    )
    want = captions.event_lines_of(run, first, last, run.plan)
    lines, composed = captions.event_lines_stored(run, first, last, run.plan)
    # the log row as the report's log writes it (time by "{:g}", kind, step, message)
    snap = {
        "log": [
            [f"{float(e.time):g}", str(e.kind), e.step or "", e.message or ""] for e in run.events
        ],
        "events": run.events,
        "unit": run.plan.time_unit,
        "event_lines": {"width": captions.EVENT_WIDTH, "lines": captions.EVENT_LINES},
    }
    stored = iter(lines)
    for i in range(first, last + 1):
        truth = want[i - first]
        if i in composed:
            assert i != len(run.events) - 1 and composed_lines(snap, i) == truth, i
        else:
            assert next(stored) == truth, i
    assert next(stored, None) is None and composed == sorted(set(composed))


# plain messages fitted to their event's caption (``head``: its length without a message) at each edge of the rule:
# one line of exactly the width and one over it, a cut at the width and before it, 160 characters and 161, a second
# line of exactly the width and one over it
_FITTED = [
    lambda head: "a" * (80 - head),
    lambda head: "a" * (81 - head),
    lambda head: "a" * (79 - head) + " b",
    lambda head: "a" * (80 - head) + " " + "b" * 79,
    lambda head: "a" * (80 - head) + " " + "b" * 80,
    lambda head: "a" * (79 - head) + " " + "b" * 80,
    lambda head: "a" * (79 - head) + " " + "b" * 81,
    lambda head: "a" * (81 - head) + " " + "b" * 20,
    lambda head: "a" * (40 - head) + " " + "b" * 39 + " " + "c" * 79,
    lambda head: "a" * (40 - head) + " " + "b" * 39 + " " + "c" * 80,
    lambda head: "a" * (70 - head) + " " + "b" * 81,
    lambda head: "a" * (70 - head) + " " + "b" * 80,
    lambda head: "a" * (81 - head) + " " + "b" * 60,
    lambda head: "a" * (70 - head) + " " + "b" * 40 + " " + "c" * 40,
    lambda head: "a" * (70 - head) + " " + "b" * 39 + " " + "c" * 40,
]


@pytest.mark.parametrize(
    ("fitted", "head_at"), [*((k, None) for k in range(len(_FITTED))), (0, 80), (0, 81), (0, 82)]
)
def test_event_lines_stored_at_each_edge_of_the_rule(fitted, head_at):
    """One event at a time (its own columns' lengths are then exact, no bound over other events); ``head_at``: a
    kind of so many letters that the caption's head (up to its message) is that long."""
    for i in range(11):
        e = _SIMULATED.events[i]
        head = len(captions.event_caption(dataclasses.replace(e, message=""), i, _SIMULATED, PLAN))
        kind = e.kind if head_at is None else "k" * (len(e.kind) + head_at - head)
        head = head if head_at is None else head_at
        message = _FITTED[fitted](head) if head_at is None else "b" * 60
        run = dataclasses.replace(
            _SIMULATED,
            events=tuple(
                dataclasses.replace(x, message=message, kind=kind) if x.index == i else x
                for x in _SIMULATED.events
            ),
        )
        truth = list(captions.event_lines(run.events[i], i, run, run.plan))
        lines, composed = captions.event_lines_stored(run, i, i, run.plan)
        snap = {
            "log": [[f"{float(x.time):g}", x.kind, x.step or "", x.message] for x in run.events],
            "events": run.events,
            "unit": run.plan.time_unit,
            "event_lines": {"width": captions.EVENT_WIDTH, "lines": captions.EVENT_LINES},
        }
        if composed:
            assert composed == [i] and not lines and composed_lines(snap, i) == truth, (i, message)
        else:
            assert lines == [truth], (i, message)


class _Kind:
    """A kind that is no str, written one way by str() (the log row) and another by format() (the caption)."""

    def __str__(self) -> str:
        return "logged"

    def __format__(self, spec: str) -> str:
        return "captioned"


def test_a_kind_that_is_no_str_keeps_every_line():
    run = dataclasses.replace(
        _SIMULATED,
        events=tuple(
            dataclasses.replace(e, kind=_Kind()) if e.index == 3 else e for e in _SIMULATED.events
        ),
    )
    lines, composed = captions.event_lines_stored(run, 0, 11, run.plan)
    assert composed == [] and lines == captions.event_lines_of(run, 0, 11, run.plan)
    assert "captioned" in lines[3][0]  # the caption's own writing of the kind
