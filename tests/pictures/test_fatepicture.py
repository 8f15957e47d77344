"""The alignment picture: fates as classes on node groups, unplanned calls attached, hostile text inert."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from planviz import Plan, PlanvizTypeError, Step, align, parse_trace, render_alignment
from planviz.pictures.escape import dom_id

from ..runs.otlp import agent, text, tool

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = '</svg><script>alert(1)</script> \\N "x" <b>'


def groups(svg: str) -> dict[str, str]:
    root = ET.fromstring(svg)
    return {g.get("id"): g.get("class") for g in root.iter(f"{SVG}g") if g.get("id")}


def test_each_fate_is_a_class_and_unplanned_calls_hang_after_their_step():
    plan = Plan(
        "g",
        [
            Step("a", "a", tool="a", expected_evidence="e", produces="x"),
            Step(
                "b",
                "b",
                tool="b",
                depends_on="a",
                expected_evidence="e",
                requires="x",
                produces="y",
            ),
            Step("c", "c", tool="c", depends_on="b", expected_evidence="e", requires="y"),
        ],
    )
    run = parse_trace(
        text(
            [
                agent(1, 0, 10),
                tool(2, "a", 1, 2),
                tool(3, "extra", 3, 4),
                tool(4, "b", 5, 6, error="E: no"),
            ]
        )
    )
    g = groups(render_alignment(align(plan, run)).svg)
    assert "fate-as_planned" in g["node-a"] and "fate-failed" in g["node-b"]
    assert "fate-not_run" in g["node-c"] and "invalidated" in g["node-c"]
    assert "fate-unplanned" in g[f"node-{dom_id('run:extra')}"]
    assert "unplanned" in g[f"edge-a->{dom_id('run:extra')}"]


def test_hostile_text_is_inert():
    plan = Plan(
        HOSTILE,
        [Step(HOSTILE, HOSTILE, tool=HOSTILE, arguments={HOSTILE: HOSTILE}, expected_evidence="e")],
    )
    run = parse_trace(
        text(
            [
                agent(1, 0, 10),
                tool(2, HOSTILE, 1, 2, args={HOSTILE: 1}),
                tool(3, HOSTILE + "2", 3, 4),
            ]
        )
    )
    svg = render_alignment(align(plan, run)).svg
    tags = {el.tag.removeprefix(SVG) for el in ET.fromstring(svg).iter()}
    assert not tags & {"script", "foreignObject", "image", "use"} and "alert(1)" in svg


def test_only_alignments_are_drawn():
    with pytest.raises(PlanvizTypeError, match="planviz.align"):
        render_alignment("not an alignment")
