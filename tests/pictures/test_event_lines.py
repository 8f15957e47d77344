"""A frame's caption lines: the plain captions of a long run are wrapped without escape_label's passes, to the
same lines escape_label gives."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st

from planviz import examples
from planviz.pictures import captions
from planviz.pictures.escape import escape_label

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
