"""Success against cost: one point per row of a :class:`planviz.Campaign`, with both intervals.

Seed 004: a planner that turns 8 tool calls into 20 at the same success rate
as direct action has created no value; this chart shows exactly that. The
vertical bar of a point is its 95% Wilson interval of the success rate, the
horizontal bar the 95% interval of the mean cost. Row names come from the
campaign (plan names may come from untrusted files): every text goes through
:func:`planviz.pictures.escape.escape_label`, the SVG is built as XML and
checked by :func:`planviz.pictures.escape.check_svg`.

>>> from planviz import examples, FaultModel, campaign
>>> c = campaign([examples.load("cache_isolation")], FaultModel({"side_effect": 0.2}, seed=1), samples=20)
>>> chart = render_campaign(c)
>>> chart.svg.startswith("<svg") and chart.svg.count('class="pv-point"')
3
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from planviz.errors import PlanvizTypeError, RenderError, show_value
from planviz.io.output import write_output
from planviz.pictures.escape import SVG_NS, check_svg, escape_label
from planviz.pictures.style import AXIS, SERIES
from planviz.runs.evaluation.campaigntable import METRIC_NAMES, Campaign

__all__ = ["render_campaign", "CampaignChart"]

_W, _H, _LEFT, _RIGHT, _TOP, _BOTTOM = 560, 360, 56, 150, 30, 46


class CampaignChart:
    """The picture :func:`render_campaign` draws: ``svg`` text; :meth:`save` writes it; shows inline in a
    notebook."""

    def __init__(self, svg: str) -> None:
        self.svg = svg

    def save(self, path: str | Path) -> Path:
        """Write the chart as ``.svg`` (whole or not at all)."""
        path = Path(path)
        if path.suffix.lower() != ".svg":
            raise RenderError(
                f"cannot save a campaign chart as {str(path)!r}: it is SVG; use a .svg path"
            )
        write_output(path, self.svg)
        return path

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        card = (
            '<div class="planviz-campaign-chart" style="background:#ffffff;color:#000000;display:inline-block;'
            f'padding:4px;border-radius:4px">{self.svg}</div>'
        )
        return {"text/html": card, "image/svg+xml": self.svg}

    def __repr__(self) -> str:
        return f"<planviz.CampaignChart {len(self.svg):,} characters of SVG>"


def render_campaign(campaign: Campaign, cost: str = "tool_calls") -> CampaignChart:
    """Draw success rate against mean ``cost``, one point per row of ``campaign`` with its intervals.

    Parameters
    ----------
    campaign : Campaign
        What :func:`planviz.campaign` or :func:`planviz.ablation` returned.
    cost : str
        The metric on the horizontal axis: one of the eight (default ``tool_calls``; ``model_calls`` or
        ``time`` are the other costs).

    Returns
    -------
    CampaignChart
        Its ``svg``; ``save(path)`` writes it.

    Raises
    ------
    PlanvizTypeError
        When ``campaign`` is not a Campaign.
    RenderError
        For an unknown ``cost``.

    Examples
    --------
    >>> from planviz import examples, ablation
    >>> chart = render_campaign(ablation([examples.load("parser_fix")], samples=2), cost="model_calls")
    >>> "model_calls" in chart.svg
    True
    """
    if not isinstance(campaign, Campaign):
        raise PlanvizTypeError(
            f"render_campaign(campaign=...) expects a planviz Campaign, got "
            f"{type(campaign).__name__}; make one with planviz.campaign(plans, faults, samples=N)"
        )
    # a share of the plan done, not a cost
    costs = [n for n in METRIC_NAMES if n != "executability"]
    if cost not in costs:
        raise RenderError(
            f"render_campaign: unknown cost {show_value(cost)}; choose one of {', '.join(costs)}"
        )
    rows = [r for r in campaign.rows if getattr(r, cost).mean is not None]
    names = list(dict.fromkeys(r.strategy for r in campaign.rows))
    highs = [
        max(e.mean, e.high if e.high is not None else e.mean)
        for e in (getattr(r, cost) for r in rows)
    ]
    span = _nice(max(highs, default=1.0) or 1.0)
    width, height = _W + _LEFT + _RIGHT, _H + _TOP + _BOTTOM
    svg = ET.Element(
        "svg",
        {
            "xmlns": SVG_NS,
            "width": str(width),
            "height": str(height),
            "viewBox": f"0 0 {width} {height}",
            "class": "planviz-campaign-chart",
            "font-family": "sans-serif",
            "font-size": "11",
            "role": "img",
        },
    )
    ET.SubElement(svg, "title").text = escape_label(
        f"{campaign.kind}: goal success rate against {cost}", target="text"
    )
    _axes(svg, span, cost, campaign)

    def x(v: float) -> float:
        return _LEFT + v / span * _W

    def y(p: float) -> float:
        return _TOP + (1 - p) * _H

    placed: list[
        tuple[float, float, float]
    ] = []  # labels drawn: x, y, width (a label never covers another)
    for r in rows:
        e = getattr(r, cost)
        colour = SERIES[names.index(r.strategy) % len(SERIES)]
        label = r.strategy if r.plan is None else f"{r.strategy} ({r.plan_name or r.plan})"
        g = ET.SubElement(
            svg, "g", {"class": "pv-point", "data-row": escape_label(label, target="text")}
        )
        lo, hi = r.success_interval
        ET.SubElement(g, "title").text = escape_label(
            f"{label}: goal success {r.success_rate:.2f} [{lo:.2f}, {hi:.2f}], {cost} {e.mean:.2f}"
            + (f" [{e.low:.2f}, {e.high:.2f}]" if e.low is not None else "")
            + f", {r.runs} runs",
            target="text",
        )
        cx, cy = x(e.mean), y(r.success_rate)
        _line(g, cx, y(lo), cx, y(hi), colour)
        if e.low is not None and e.high is not None:
            _line(g, x(max(e.low, 0.0)), cy, x(e.high), cy, colour)
        ET.SubElement(g, "circle", {"cx": f"{cx:.2f}", "cy": f"{cy:.2f}", "r": "4", "fill": colour})
        shown = escape_label(label, limit=40, target="text")
        lx, ly, lw = cx + 7, cy - 5, 6.5 * len(shown)
        while any(abs(ly - py) < 12 and lx < px + pw and px < lx + lw for px, py, pw in placed):
            ly += 12
        placed.append((lx, ly, lw))
        ET.SubElement(g, "text", {"x": f"{lx:.2f}", "y": f"{ly:.2f}", "fill": colour}).text = shown
    out = ET.tostring(svg, encoding="unicode")
    check_svg(out)
    return CampaignChart(out)


def _line(
    parent: ET.Element, x1: float, y1: float, x2: float, y2: float, colour: str, width: str = "1.5"
) -> None:
    ET.SubElement(
        parent,
        "line",
        {
            "x1": f"{x1:.2f}",
            "y1": f"{y1:.2f}",
            "x2": f"{x2:.2f}",
            "y2": f"{y2:.2f}",
            "stroke": colour,
            "stroke-width": width,
        },
    )


def _axes(svg: ET.Element, span: float, cost: str, campaign: Campaign) -> None:
    g = ET.SubElement(svg, "g", {"class": "pv-axis", "fill": AXIS["text"]})
    bottom = _TOP + _H
    for i in range(6):
        p = i / 5
        yy = _TOP + (1 - p) * _H
        _line(g, _LEFT, yy, _LEFT + _W, yy, AXIS["line"], "1")
        ET.SubElement(
            g, "text", {"x": str(_LEFT - 6), "y": f"{yy + 4:.2f}", "text-anchor": "end"}
        ).text = f"{p:.1f}"
        v = span * i / 5
        xx = _LEFT + v / span * _W
        _line(g, xx, _TOP, xx, bottom, AXIS["line"], "1")
        ET.SubElement(
            g, "text", {"x": f"{xx:.2f}", "y": str(bottom + 14), "text-anchor": "middle"}
        ).text = f"{v:g}"
    ET.SubElement(
        g, "text", {"x": str(_LEFT + _W // 2), "y": str(bottom + 32), "text-anchor": "middle"}
    ).text = f"mean {cost} per run (95% interval)"
    ET.SubElement(
        g,
        "text",
        {
            "x": "12",
            "y": str(_TOP + _H // 2),
            "text-anchor": "middle",
            "transform": f"rotate(-90 12 {_TOP + _H // 2})",
        },
    ).text = "goal success rate (95% Wilson interval)"
    ET.SubElement(g, "text", {"x": str(_LEFT), "y": "16"}).text = escape_label(
        f"{campaign.kind}: {campaign.plans} plan{'s' if campaign.plans != 1 else ''} x {campaign.samples} samples",
        target="text",
    )


def _nice(value: float) -> float:
    """A round axis end at or above ``value``."""
    base = 10 ** len(str(int(value))) / 10 if value >= 1 else 1.0
    for m in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if base * m >= value:
            return base * m
    return value
