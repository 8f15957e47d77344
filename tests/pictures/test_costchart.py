"""render_campaign: one point per campaign row at (mean cost, success rate), with both intervals, safe SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from planviz import (
    FaultModel,
    Plan,
    PlanvizTypeError,
    RenderError,
    Step,
    ablation,
    campaign,
    examples,
    render_campaign,
)

NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def result():
    hostile = Plan(
        "x",
        [Step("A", "a", expected_evidence="e", produces=["a"])],
        name="<script>alert(1)</script>",
    )
    return campaign(
        [examples.load("cache_isolation"), hostile],
        FaultModel({"side_effect": 0.3}, seed=2),
        samples=30,
        per_plan=True,
    )


def points(svg: str):
    root = ET.fromstring(svg)
    return [g for g in root.iter(f"{NS}g") if g.get("class") == "pv-point"]


def test_one_point_per_row_placed_at_its_success_rate_and_cost(result):
    chart = render_campaign(result)
    found = points(chart.svg)
    assert len(found) == len(result.rows)
    circles = [g.find(f"{NS}circle") for g in found]
    ys = [float(c.get("cy")) for c in circles]
    xs = [float(c.get("cx")) for c in circles]
    rates = [r.success_rate for r in result.rows]
    costs = [r.tool_calls.mean for r in result.rows]
    # higher success is higher up (smaller y), higher cost further right, on one linear scale each
    for i in range(len(rates)):
        for j in range(len(rates)):
            if rates[i] > rates[j]:
                assert ys[i] < ys[j]
            if costs[i] > costs[j]:
                assert xs[i] > xs[j]


def test_each_point_carries_its_wilson_interval_as_a_vertical_bar(result):
    for g, row in zip(points(render_campaign(result).svg), result.rows):
        bar = g.findall(f"{NS}line")[0]
        assert bar.get("x1") == bar.get("x2")
        cy = float(g.find(f"{NS}circle").get("cy"))
        assert float(bar.get("y2")) <= cy <= float(bar.get("y1"))
        lo, hi = row.success_interval
        assert f"[{lo:.2f}, {hi:.2f}]" in g.find(f"{NS}title").text


def test_untrusted_names_are_text_never_markup(result):
    svg = render_campaign(result).svg
    root = ET.fromstring(svg)
    assert not [el for el in root.iter() if el.tag.endswith("script")]
    assert any("<script>" in (t.text or "") for t in root.iter(f"{NS}text"))


def test_the_cost_axis_is_any_of_the_metrics_and_the_chart_saves_as_svg(tmp_path):
    a = ablation([examples.load("parser_fix")], samples=3)
    chart = render_campaign(a, cost="time")
    # 11 rows, 9 rungs
    assert "mean time per run" in chart.svg and len(points(chart.svg)) == len(a.rows) == 20
    path = chart.save(tmp_path / "a.svg")
    assert path.read_text(encoding="utf-8") == chart.svg
    assert "image/svg+xml" in chart._repr_mimebundle_()


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda r: render_campaign(r, cost="price"),
            RenderError,
            "unknown cost 'price'; choose one of tool_calls",
        ),
        (
            lambda r: render_campaign(r.rows),
            PlanvizTypeError,
            "expects a planviz Campaign, got tuple",
        ),
        (lambda r: render_campaign(r).save("chart.png"), RenderError, "use a .svg path"),
    ],
)
def test_bad_arguments(result, call, error, match):
    with pytest.raises(error, match=match):
        call(result)
