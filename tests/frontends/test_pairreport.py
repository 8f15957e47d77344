"""report_html([a, b], path): the two-run report is one self-contained page; hostile text stays inert."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planviz import Fault, PlanvizTypeError, parse_trace, report_html, simulate
from planviz.frontends.pairreport import pack_frames, unpack_frames

from ..runs.otlp import agent, text, tool

HOSTILE = "</script><script>alert(1)</script><img src=x onerror=alert(1)>"


def data_of(page: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="planviz-data">(.*?)</script>', page, re.S)[1])


def test_two_runs_one_page(tmp_path, cache_plan):
    a, b = simulate(cache_plan), simulate(cache_plan, faults=[Fault("S4", "side_effect")])
    page = report_html([a, b], tmp_path / "pair.html").read_text()
    data = data_of(page)
    assert data["divergence"] == 10 and data["n"] == len(b.events)
    assert [len(s["events"]) for s in data["sides"]] == [len(a.events), len(b.events)]
    assert "Content-Security-Policy" in page and "https://" not in page and "only in b: S3.v2, S4.v2" in page


def test_hostile_trace_text_stays_inert(tmp_path):
    a = parse_trace(text([agent(1, 0, 9, name=HOSTILE), tool(2, HOSTILE, 1, 2, args={"x": HOSTILE})]))
    b = parse_trace(text([agent(1, 0, 9), tool(2, HOSTILE, 1, 2, error=f"E: {HOSTILE}")]))
    page = report_html([a, b], tmp_path / "pair.html").read_text()
    assert page.count("<script") == 2 and "<img src=x" not in page
    assert HOSTILE in json.dumps(data_of(page))  # the text is all there, as data


@pytest.mark.parametrize("runs", [[], ["a", "b"], [None]])
def test_two_runs_or_nothing(tmp_path, runs):
    with pytest.raises(PlanvizTypeError, match="exactly two planviz Runs"):
        report_html(runs, tmp_path / "x.html")


_chunk = st.text(alphabet="ab<>/g x", max_size=6).map(lambda s: "<g>" + s + "</g>")
_svg = st.lists(_chunk, max_size=6).map(lambda parts: "<svg>" + "".join(parts) + "</svg>")


@settings(max_examples=80, deadline=None)
@given(st.lists(_svg, min_size=1, max_size=6))
def test_pack_unpack_round_trip(svgs):
    chunks, frames = pack_frames(svgs)
    assert unpack_frames(chunks, frames) == svgs
    assert len(set(chunks)) == len(chunks)
