"""planviz.frontends.panels: what the explorer and the report both show; here, how narrow a picture may get."""

from __future__ import annotations

import re

import pytest

from planviz import Fault, Plan, Step, examples, render, simulate
from planviz.frontends.panels import LEGIBLE_PX, frame_svg, legible_width


def _smallest_font_and_width(svg: str) -> tuple[float, float]:
    sizes = [float(x) for x in re.findall(r'font-size="([0-9.]+)"', svg)]
    width = float(re.search(r'viewBox="[-0-9.]+ [-0-9.]+ ([0-9.]+) ', svg).group(1))
    return min(sizes), width


@pytest.mark.parametrize(
    "svg",
    [
        render(examples.load("cache_isolation")).svg,
        frame_svg(
            simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")]), 11
        ),
        render(Plan("g", [Step("A", "a", expected_evidence="e")]), highlight=()).svg,
    ],
)
def test_at_the_legible_width_the_smallest_text_is_nine_pixels(svg):
    smallest, width = _smallest_font_and_width(svg)
    px = legible_width(svg)
    # the narrowest such width
    assert smallest * px / width >= LEGIBLE_PX > smallest * (px - 1) / width


def test_a_smaller_threshold_allows_a_narrower_picture():
    svg = render(examples.load("cache_isolation")).svg
    assert legible_width(svg, 6) < legible_width(svg) < legible_width(svg, 12)


@pytest.mark.parametrize(
    "svg", ["", "<svg></svg>", '<svg viewBox="0 0 100 50"><text>x</text></svg>']
)
def test_without_sizes_there_is_no_minimum(svg):
    assert legible_width(svg) == 0
