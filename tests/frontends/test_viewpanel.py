"""The explorer's view choice: find a step, focus on it, back to the default view or the whole plan."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from planviz import Plan, Step, explore
from planviz.errors import PlanvizTypeError, RenderError, UnknownStepError
from planviz.frontends.widget.viewpanel import ViewChoice

SVG = "{http://www.w3.org/2000/svg}"


def ladder(n: int) -> Plan:
    """Two interleaved chains with a rung every step: cheap to lay out, more than 300 steps when asked."""
    return Plan(
        "ladder",
        [
            Step(
                f"S{i}",
                f"step {i}",
                expected_evidence="ok",
                depends_on=[f"S{j}" for j in (i - 1, i - 2) if j >= 0],
            )
            for i in range(n)
        ],
    )


def drawn(svg: str) -> dict[str, set[str]]:
    out = {}
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        if (g.get("id") or "").startswith("node-"):
            out[g.find(f"{SVG}title").text] = set(g.get("class", "").split())
    return out


@pytest.fixture(scope="module")
def big():
    return explore(ladder(320))


def test_big_plan_opens_on_a_focused_view_with_a_note(big):
    assert not big.view.whole and len(big.view.steps) <= 300
    assert set(drawn(big.svg)) == set(big.view.steps)
    assert "320 steps" in big.view_notice and big.notice == big.view_notice


def test_find_box_focuses_on_the_step_and_marks_it(big):
    # the find box
    big._on_message(big, {"kind": "view", "mode": "focus", "step": "S100", "hops": 1}, [])
    assert big.view.focus == ("S100",) and set(big.view.steps) == {
        "S98",
        "S99",
        "S100",
        "S101",
        "S102",
    }
    nodes = drawn(big.svg)
    assert set(nodes) == set(big.view.steps) and "focus" in nodes["S100"]
    index = big.index
    big.index = 0  # stepping keeps the view
    assert set(drawn(big.svg)) == set(big.view.steps) and big.view.focus == ("S100",)
    big.index = index


def test_scripting_hooks_switch_views(big):
    assert big.focus_on("S5", hops=0).steps == ("S5",)
    assert big.whole_plan().whole and len(drawn(big.svg)) == 320
    assert not big.auto_view().whole


def test_unknown_step_is_shown_in_the_panel_and_raised_by_the_api(big):
    before = big.view
    big._on_message(big, {"kind": "view", "mode": "focus", "step": "S1000", "hops": 2}, [])
    assert "no step 'S1000'" in big.view_notice and "did you mean" in big.view_notice
    assert big.view == before
    with pytest.raises(UnknownStepError, match=r"no step 'S1000' in this plan \(did you mean"):
        big.focus_on("S1000")


@pytest.mark.parametrize(
    "args, error, message",
    [
        (("focus", 3), PlanvizTypeError, r"expects a step id \(a string\), got 3"),
        (("focus", "S1", -2), RenderError, r"hops=-2: expected a whole number >= 0"),
        (("zoom",), RenderError, r"unknown view 'zoom'; choose 'auto', 'whole' or 'focus'"),
        (
            ("focus", "S1", "2"),
            PlanvizTypeError,
            r"focus_on\(hops=\.\.\.\) expects a whole number >= 0, got '2'",
        ),
        ((10**5000,), RenderError, r"unknown view <an integer of about 5,001 digits>; choose"),
        (("focus", "S" * 10**6), UnknownStepError, r"no step 'SSSS+\.\.\. in this plan"),
    ],
)
def test_bad_view_requests_say_what_is_valid(args, error, message):
    choice = ViewChoice(["S1", "S2"])
    with pytest.raises(error, match=message):
        choice.set_view(*args)
