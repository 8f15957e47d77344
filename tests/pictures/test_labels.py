"""planviz.pictures.labels: wrapping and cutting label text only between words or pieces of a long name."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from planviz import Plan, Step, render
from planviz.pictures.escape import escape_label
from planviz.pictures.labels import clip, pieces, wrap
from tests.pictures.test_drawing import groups, texts

BREAK_AFTER = set("._/-,:;=([{&|+")


def is_boundary(text: str, pos: int) -> bool:
    """Whether a line may end at ``pos`` of ``text`` without splitting a word: a space, punctuation, a camel hump."""
    if pos in (0, len(text)) or text[pos] == " " or text[pos - 1] == " ":
        return True
    return (
        text[pos - 1] in BREAK_AFTER
        and text[pos] not in BREAK_AFTER
        or (text[pos - 1].islower() and text[pos].isupper())
    )


def rebuild(lines: list[str], text: str) -> list[int]:
    """Where in ``text`` (whitespace normalised) each line break falls; fails if the lines are not the text."""
    pos, breaks = 0, []
    for k, line in enumerate(lines):
        assert text.startswith(line, pos), (lines, text)
        pos += len(line)
        if k < len(lines) - 1:
            breaks.append(pos)
            if text[pos : pos + 1] == " ":
                pos += 1
    assert pos == len(text)
    return breaks


@pytest.mark.parametrize(
    "text, width, expected",
    [
        (
            "AirbnbSearch.get_property_checkout_price(propertyId=1)",
            28,
            ["AirbnbSearch.get_property_", "checkout_price(propertyId=1)"],
        ),
        (
            "create_a_new_link_for_url_link_shortener",
            20,
            ["create_a_new_link_", "for_url_link_", "shortener"],
        ),
        ("getPropertyCheckoutPrice", 12, ["getProperty", "Checkout", "Price"]),
        (
            "Supercalifragilisticexpialidocious is long",
            10,
            ["Supercalifragilisticexpialidocious", "is long"],
        ),
        ("a long action that needs wrapping", 12, ["a long", "action that", "needs", "wrapping"]),
        ("", 10, [""]),
    ],
)
def test_wrap_table(text, width, expected):
    assert wrap(text, width) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcXYZ._-(=) ")), max_size=80), st.integers(1, 30))
def test_wrap_breaks_only_at_boundaries_and_loses_nothing(text, width):
    normal = " ".join(text.split())
    lines = wrap(text, width)
    for pos in rebuild(lines, normal):
        assert is_boundary(normal, pos), (normal, pos, lines)
    for line in lines:  # a line is too wide only when it is one piece that has no break point
        assert len(line) <= width or (" " not in line and len(pieces(line)) == 1), (line, lines)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcXYZ._-(=) ")), max_size=80), st.integers(2, 60))
def test_clip_keeps_a_prefix_and_the_limit(text, limit):
    out = clip(text, limit)
    assert len(out) <= max(limit, 1)
    assert out == text or (out.endswith("…") and text.startswith(out[:-1]))


def test_escape_label_never_cuts_a_word_when_it_wraps():
    line = escape_label(
        "call AirbnbSearch.get_property_checkout_price now", width=20, max_lines=2, target="text"
    )
    assert line == "call AirbnbSearch.\nget_property…"


def test_long_api_names_in_a_picture_break_at_punctuation():
    action = 'AirbnbSearch.get_property_checkout_price(propertyId=49634091, checkIn="2023-12-01")'
    plan = Plan("g", [Step("1", action, expected_evidence="e")])
    lines = texts(groups(render(plan).svg, "node-")["1"])[1:]
    assert len(lines) >= 2
    shown = " ".join(lines).replace("…", "")
    # nothing changed, only cut at the end
    assert re.sub(r"\s", "", shown) in re.sub(r"\s", "", action)
    for line in lines[:-1]:
        assert line[-1] in BREAK_AFTER or action[action.index(line) + len(line)] == " ", line
