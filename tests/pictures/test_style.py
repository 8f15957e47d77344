"""planviz.pictures.style: the three severity looks, in the outline of steps and edges and in the legend."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings, strategies as st

from planviz import Fault, Finding, Plan, Step, examples, render, simulate, validate
from planviz.pictures.style import (
    LEGEND_TEXT,
    LOOKS,
    SEVERITY_LOOKS,
    edge_marks,
    gravest,
    run_looks,
)
from planviz.plan.model import STATUSES
from tests.pictures.test_drawing import classes, groups, outline, texts

OKABE_ITO = {"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"}


def test_three_clearly_different_severity_looks():
    looks = [LOOKS[s] for s in SEVERITY_LOOKS]
    assert SEVERITY_LOOKS == ("error", "warning", "info")
    assert (
        len({look.stroke for look in looks}) == 3 and {look.stroke for look in looks} <= OKABE_ITO
    )
    # not two close oranges (vermillion and orange)
    assert "#E69F00" not in {look.stroke for look in looks}
    assert [look.penwidth for look in looks] == sorted(
        (look.penwidth for look in looks), reverse=True
    )
    assert [LEGEND_TEXT[s] for s in SEVERITY_LOOKS] == [
        "error (hover: message)",
        "warning (hover: message)",
        "note (hover: message)",
    ]


@pytest.mark.parametrize(
    "severities, expected",
    [
        (["info"], "info"),
        (["info", "warning"], "warning"),
        (["warning", "error", "info"], "error"),
        ([], "info"),
    ],
)
def test_gravest(severities, expected):
    assert gravest(Finding("c", "structure", s, "m") for s in severities) == expected


PLAN = Plan(
    "g",
    [
        Step("A", "a", expected_evidence="e", produces="x"),
        Step("B", "b", expected_evidence="e", depends_on="A", requires="x", produces="y"),
        Step("C", "c", expected_evidence="e", depends_on="B", requires="y", produces="z"),
    ],
)


def finding(severity: str, steps=(), edges=()) -> Finding:
    return Finding(
        f"some_{severity}", "import", severity, f"a {severity}", tuple(steps), tuple(edges)
    )


def test_each_severity_outlines_its_steps_and_edges_and_is_in_the_legend():
    found = (
        finding("error", ["A"]),
        finding("warning", ["B"], [("A", "B")]),
        finding("info", ["C"], [("B", "C")]),
        finding("info", ["A"]),
    )
    svg = render(PLAN.replace(import_findings=found)).svg
    nodes, edges, legend = groups(svg, "node-"), groups(svg, "edge-"), groups(svg, "legend-")
    # the gravest finding of a step wins
    for sid, severity in (
        ("A", "error"),
        ("B", "warning"),
        ("C", "info"),
    ):
        assert {"finding", f"finding-{severity}"} <= classes(nodes[sid])
        assert outline(nodes[sid]).get("stroke") == LOOKS[severity].stroke
    assert texts(nodes["A"])[-1] == "error: some_error, info: some_info"
    assert outline(edges["A->B"]).get("stroke") == LOOKS["warning"].stroke
    assert outline(edges["B->C"]).get("stroke") == LOOKS["info"].stroke
    assert {"error", "warning", "info"} <= set(legend)
    strokes = [outline(legend[s]).get("stroke").upper() for s in SEVERITY_LOOKS]
    assert strokes == [LOOKS[s].stroke for s in SEVERITY_LOOKS]


def test_the_legend_lists_only_the_severities_the_picture_shows():
    whole_plan_note = finding("info")  # about the format: names no step, outlines nothing
    svg = render(PLAN.replace(import_findings=(whole_plan_note, finding("warning", ["B"])))).svg
    assert {"warning"} == set(groups(svg, "legend-")) & set(SEVERITY_LOOKS)
    assert "0 errors, 1 warning, 1 note" in svg


def test_imported_plans_show_their_real_findings_not_format_noise():
    from planviz import parse_plan

    plan = parse_plan("Node:\n1: a\n2: b\nEdge: (START,1) (1,END) (START,2)")
    svg = render(plan, report=validate(plan)).svg
    nodes = groups(svg, "node-")
    # the dead end, nothing else
    assert {sid for sid, g in nodes.items() if "finding" in classes(g)} == {"2"}
    assert "finding-warning" in classes(nodes["2"]) and texts(nodes["2"])[-1] == "warning: dead_end"


# --- the looks on screen (Diagram.legend), with or without the drawn legend --------------------------------------


def test_a_diagram_names_the_looks_it_shows_and_can_leave_its_legend_out():
    import planviz
    from planviz import Fault

    plan = planviz.examples.load("cache_isolation")
    run = planviz.simulate(plan, faults=[Fault("S4", "side_effect")])
    voiding = next(e.index for e in run.events if e.kind == "invalidate")
    with_legend, without = (
        render(plan, run=run, at=voiding),
        render(plan, run=run, at=voiding, legend=False),
    )
    assert with_legend.legend == without.legend == ("invalidated", "kept", "critical")
    # the drawn legend: the run's looks
    assert set(groups(with_legend.svg, "legend-")) >= set(with_legend.legend)
    assert groups(without.svg, "legend-") == {} and "Legend" not in texts(
        ET.fromstring(without.svg)
    )
    assert render(plan, run=run, at=0, legend=False).legend == ("pending", "ready", "critical")


@pytest.mark.parametrize(
    "found, expected",
    [
        ((), ("step",)),
        ((finding("warning", ["B"]),), ("step", "warning")),
        ((finding("info", [], [("A", "B")]),), ("step", "info")),
    ],
)
def test_the_looks_on_screen_of_a_plan_picture(found, expected):
    report = validate(PLAN).__class__(found, ())
    assert render(PLAN, report=report, highlight=()).legend == expected


_PAIRS = st.sampled_from([("A", "B"), ("B", "C"), ("A", "C"), ("C", "D"), ("X", "Y")])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_PAIRS, max_size=4, unique=True),
    st.lists(
        st.tuples(
            st.sampled_from(["error", "warning", "info"]),
            st.sampled_from(["cycle", "inferred_dependency", "odd"]),
            st.lists(_PAIRS.map(list) | _PAIRS | st.just(("A", "B", "C")), max_size=6),
        ),
        max_size=4,
    ),
)
def test_edge_marks_read_only_the_drawn_edges_of_each_finding(drawn, found):
    """What edge_marks gives (classes, look, tooltips with their repeats) is what the findings say of the edges
    drawn: cut every finding down to those (kept in order, repeats and lists included), the marks are the same."""
    plan = Plan("g", [Step(s, "a") for s in "ABCD"])
    findings = tuple(
        Finding(code, "import", sev, "m", (), tuple(edges)) for sev, code, edges in found
    )
    cut = tuple(
        Finding(
            f.code,
            f.layer,
            f.severity,
            f.message,
            (),
            tuple(e for e in f.edges if tuple(e) in drawn),
        )
        for f in findings
    )
    critical = frozenset(drawn[:1])
    assert edge_marks(plan, tuple(drawn), critical, findings) == edge_marks(
        plan, tuple(drawn), critical, cut
    )


def _old_run_looks(run):
    """run_looks as three passes over every event (the oracle)."""
    events = run.events
    seen = set(run.statuses_seen())
    seen |= (
        {"invalidated"}
        if any(e.kind in ("invalidate", "recheck") and e.voided for e in events)
        else set()
    )
    seen |= (
        {"kept"} if any(e.kind in ("invalidate", "recheck") and e.kept for e in events) else set()
    )
    seen |= {"conflict"} if any(e.kind == "conflict" and e.step for e in events) else set()
    seen |= {"not_run"} if events and run.frame(-1).not_run else set()
    return frozenset(seen | ({"pending"} if seen - set(STATUSES) else set()))


@pytest.mark.parametrize(
    "faults",
    [
        [],
        [Fault("S1", "missing_evidence")],
        [Fault("S3", "withdraw", "key_builder_located")],
        [Fault("S4", "side_effect")],
        [Fault("S2", "extra_fact", "not leak_reproduced")],
        [Fault("S1", "transient", times=3)],
    ],
    ids=repr,
)
@pytest.mark.parametrize("strategy", ["direct", "planner"])
def test_run_looks_are_those_of_every_events_pass(faults, strategy):
    run = simulate(examples.load("cache_isolation"), faults=faults, strategy=strategy)
    assert run_looks(run) == _old_run_looks(run)
