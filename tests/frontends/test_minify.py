"""minify_svg: the link wrappers' ids found by their literal start as the look behind found them (the oracle), on
SVG-like text around them; the shortest decimal of each tenth, looked up or written."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from planviz.frontends import deltatable
from planviz.frontends.deltatable import minify_svg

_LOOK_BEHIND = re.compile(r'(?<=<g) id="a_[^"]*"')  # how the link wrappers' ids were found


def _old_short(tenths: int) -> str:
    whole, tenth = divmod(abs(tenths), 10)
    return (
        ("-" if tenths < 0 else "")
        + (str(whole) if whole or not tenth else "")
        + (f".{tenth}" if tenth else "")
    )


@given(
    st.lists(
        st.sampled_from(
            [
                '<g id="a_x">',
                '<g id="a_">',
                '<g  id="a_y">',
                '<gid="a_z"',
                '<g id="b_x">',
                "<g",
                ' id="a_',
                '"',
                '<g id="a_<g id="a_q"',
                "x",
                "<svg>",
                '<path d="M1.25,2C3,4 5,6 7,8"/>',
            ]
        ),
        max_size=12,
    ).map("".join)
)
@settings(max_examples=300, deadline=None)
def test_link_wrapper_ids_go_as_the_look_behind_found_them(text):
    svg = "<svg>" + text
    assert deltatable._WRAPPER_ID.sub("<g", svg) == _LOOK_BEHIND.sub("", svg)
    assert minify_svg(svg).count('id="a_') == _LOOK_BEHIND.sub("", svg).count('id="a_')


@pytest.mark.parametrize(
    "tenths", [0, 1, -1, 5, -5, 9, 10, 11, -10, 120, -120, 1005, -1005, 99999, 2**40]
)
def test_short_is_the_shortest_decimal_of_tenths(tenths):
    assert deltatable._short(tenths) == _old_short(tenths)
    assert float(deltatable._short(tenths) or "0") == tenths / 10
