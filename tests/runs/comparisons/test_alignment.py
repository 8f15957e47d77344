"""align(plan, run): each planned step's fate, unplanned calls, the failure's invalidated subgraph."""

from __future__ import annotations

import pytest

from planviz import (
    Fault,
    Plan,
    PlanvizTypeError,
    Step,
    UnknownStepError,
    align,
    parse_trace,
    simulate,
)
from planviz.runs.comparisons.matching import similarity

from ..otlp import agent, text, tool


def declared() -> Plan:
    return Plan(
        "report",
        [
            Step(
                "find",
                "search the web",
                expected_evidence="urls",
                tool="search",
                arguments={"q": "otel"},
                produces="urls",
            ),
            Step(
                "read",
                "fetch the page",
                expected_evidence="text",
                tool="fetch",
                arguments={"url": "{{find.url}}"},
                depends_on="find",
                requires="urls",
                produces="text",
            ),
            Step(
                "write",
                "summarize it",
                expected_evidence="summary",
                tool="summarize",
                depends_on="read",
                requires="text",
                produces="summary",
            ),
            Step(
                "send",
                "mail it",
                expected_evidence="sent",
                tool="mail",
                depends_on="write",
                requires="summary",
            ),
        ],
    )


def trace(*calls) -> str:
    return text([agent(1, 0, 100)] + list(calls))


@pytest.mark.parametrize(
    "calls, fates, unplanned",
    [
        (
            [
                tool(2, "search", 1, 2, args={"q": "otel"}),
                tool(3, "fetch", 3, 4, args={"url": "u"}),
                tool(4, "summarize", 5, 6),
                tool(5, "mail", 7, 8),
            ],
            {
                "find": "as_planned",
                "read": "as_planned",
                "write": "as_planned",
                "send": "as_planned",
            },
            [],
        ),
        (
            [
                tool(2, "search", 1, 2, args={"q": "opentelemetry genai"}),
                tool(3, "fetch", 3, 4, args={"url": "u"}),
                tool(4, "summarize", 5, 6, error="ValueError: empty page"),
            ],
            {"find": "other_arguments", "read": "as_planned", "write": "failed", "send": "not_run"},
            [],
        ),
        (
            [
                tool(2, "search", 1, 2, args={"q": "otel"}),
                tool(3, "browse", 3, 4),
                tool(4, "fetch", 5, 6, args={"url": "v"}),
                tool(5, "summarize", 7, None),
            ],
            {"find": "as_planned", "read": "as_planned", "write": "unfinished", "send": "not_run"},
            [("browse", "find")],
        ),
    ],
)
def test_fates(calls, fates, unplanned):
    a = align(declared(), parse_trace(trace(*calls)))
    assert {f.step: f.fate for f in a.fates} == fates
    assert [(u.step, u.after) for u in a.unplanned] == unplanned
    assert sum(a.counts().values()) == len(fates) + len(unplanned)


def test_never_ran_says_which_failure_blocked_it():
    a = align(
        declared(),
        parse_trace(
            trace(
                tool(2, "search", 1, 2, args={"q": "otel"}),
                tool(3, "fetch", 3, 4, error="HTTPError: 404"),
            )
        ),
    )
    assert a.fate("read").fate == "failed" and "404" in a.fate("read").why
    assert (
        a.fate("send").blocked_by == ("read",)
        and "blocked by the failure of read" in a.fate("send").why
    )
    assert a.invalidated == {"write", "send"}
    with pytest.raises(UnknownStepError, match="no step 'nope'"):
        a.fate("nope")


def test_matching_order_id_then_call_id_then_tool_and_arguments():
    plan = Plan(
        "g",
        [
            Step("call_9", "x", tool="t", arguments={"a": 1}),
            Step("t", "y", tool="other"),
            Step("z", "z", tool="t", arguments={"a": 2}),
        ],
    )
    run = parse_trace(
        trace(
            tool(2, "t", 1, 2, args={"a": 2}), tool(3, "t", 3, 4, args={"a": 1}, call_id="call_9")
        )
    )
    a = align(plan, run)
    assert [(f.step, f.ran_as, f.matched_by) for f in a.fates] == [
        ("call_9", "t#2", "call_id"),
        ("t", "t", "id"),
        ("z", None, None),
    ]


def test_a_simulation_aligns_with_its_own_plan_and_voided_work_shows(cache_plan):
    clean = align(cache_plan, simulate(cache_plan))
    assert {f.fate for f in clean.fates} == {"as_planned"} and not clean.unplanned
    faulty = align(cache_plan, simulate(cache_plan, faults=[Fault("S4", "side_effect")]))
    assert faulty.fate("S3").fate == "voided" and faulty.fate("S4").fate == "voided"
    assert [u.step for u in faulty.unplanned] == ["S3.v2", "S4.v2"]


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ({}, {}, 1.0),
        ({"q": "x"}, {"q": "x"}, 1.0),
        ({"q": "x"}, {"q": "y"}, 0.0),
        ({"q": "{{S1.out}}"}, {"q": "anything"}, 1.0),
        ({"q": {"deep": [1, 2]}}, {"q": {"deep": [1, 2]}}, 1.0),
        ({"q": "x", "n": 1}, {"q": "x"}, 0.5),
    ],
)
def test_argument_similarity(a, b, expected):
    assert similarity(a, b) == expected


def test_alignment_renders_as_text_and_dict_and_refuses_wrong_types(cache_plan):
    a = align(cache_plan, simulate(cache_plan))
    assert a.to_text().splitlines()[-1] == "5 as planned"
    assert a.to_dict()["counts"]["as_planned"] == 5 and "<table" in a._repr_html_()
    with pytest.raises(PlanvizTypeError, match="align\\(plan=...\\)"):
        align("plan.yaml", simulate(cache_plan))
    with pytest.raises(PlanvizTypeError, match="align\\(run=...\\)"):
        align(cache_plan, "run.json")
