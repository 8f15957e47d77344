"""report_html([a, b], path): the two-run report is one self-contained page; hostile text stays inert."""

from __future__ import annotations

import json

import pytest

from planviz import Fault, PlanvizTypeError, parse_trace, report_html, simulate

from ..runs.otlp import agent, text, tool
from .pagedata import page_data

HOSTILE = "</script><script>alert(1)</script><img src=x onerror=alert(1)>"


def data_of(page: str) -> dict:
    return page_data(page)


def test_two_runs_one_page(tmp_path, cache_plan):
    a, b = simulate(cache_plan), simulate(cache_plan, faults=[Fault("S4", "side_effect")])
    page = report_html([a, b], tmp_path / "pair.html").read_text()
    data = data_of(page)
    assert (
        data["start"] == 10
        and len(data["ticks"]) == len(b.events)
        and data["notes"][10].startswith("first")
    )
    assert [len(s["events"]) for s in data["pair"]] == [len(a.events), len(b.events)]
    # a run that ended stays at its end
    assert data["ticks"][-1] == [
        len(a.events) - 1,
        len(b.events) - 1,
    ]
    # one picture a version
    assert sum(len(s["versions"]) for s in data["pair"]) == len(a.plans) + len(b.plans)
    assert (
        "Content-Security-Policy" in page
        and "https://" not in page
        and "only in b: S3.v2, S4.v2" in page
    )


def test_hostile_trace_text_stays_inert(tmp_path):
    a = parse_trace(
        text([agent(1, 0, 9, name=HOSTILE), tool(2, HOSTILE, 1, 2, args={"x": HOSTILE})])
    )
    b = parse_trace(text([agent(1, 0, 9), tool(2, HOSTILE, 1, 2, error=f"E: {HOSTILE}")]))
    page = report_html([a, b], tmp_path / "pair.html").read_text()
    assert page.count("<script") == 2 and "<img src=x" not in page
    assert HOSTILE in json.dumps(data_of(page))  # the text is all there, as data


@pytest.mark.parametrize("runs", [[], ["a", "b"], [None]])
def test_two_runs_or_nothing(tmp_path, runs):
    with pytest.raises(PlanvizTypeError, match="exactly two planviz Runs"):
        report_html(runs, tmp_path / "x.html")
