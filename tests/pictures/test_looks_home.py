"""Every look has one home, pictures/style.py: no other module of the package spells a look's colour (the fills and
outlines that say a status or a fate), so changing how a status looks cannot miss a copy; a status looks the same in
the run pictures, the alignment picture and the timeline chart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import planviz
from planviz import Fault, critical_path, examples, simulate
from planviz.pictures.fatepicture import FATE_LOOKS as FATES_DRAWN
from planviz.pictures.gantt import BAR_LOOKS, gantt_svg
from planviz.pictures.style import FATE_LOOKS, LOOKS

PACKAGE = Path(planviz.__file__).parent
HOME = PACKAGE / "pictures" / "style.py"
# every colour of a look (fill and outline), black and white aside (the ink and paper of every picture)
COLOURS = sorted(
    {
        c.upper()
        for look in [*LOOKS.values(), *(look for look, _ in FATE_LOOKS.values())]
        for c in (look.fill, look.stroke)
    }
    - {"#FFFFFF", "#000000"}
)
# a colour of the palette used for something that is no look, said here so that it cannot spread unseen
NOT_A_LOOK = {
    (
        "frontends/explorer.css",
        "#0072B2",
    ): "the keyboard focus ring and the accent of control events"
}


@pytest.mark.parametrize(
    "path",
    sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".js", ".css") and p != HOME),
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_no_look_colour_outside_its_home(path):
    text = path.read_text(encoding="utf-8").upper()
    where = str(path.relative_to(PACKAGE))
    found = [c for c in COLOURS if c in text and (where, c) not in NOT_A_LOOK]
    assert not found, (
        f"{where} spells the look colours {found}: a look's colour belongs in pictures/style.py"
    )


def test_the_exceptions_are_still_needed():
    for (where, colour), why in NOT_A_LOOK.items():
        assert colour in (PACKAGE / where).read_text(encoding="utf-8").upper(), (
            f"{where} no longer needs: {why}"
        )


def test_a_fate_that_is_a_status_looks_as_that_status():
    assert FATES_DRAWN is FATE_LOOKS
    assert (
        FATE_LOOKS["voided"][0] == LOOKS["invalidated"]
        and FATE_LOOKS["failed"][0] == LOOKS["failed"]
    )
    assert (
        FATE_LOOKS["as_planned"][0] == LOOKS["done"]
        and FATE_LOOKS["unfinished"][0] == LOOKS["running"]
    )
    assert (
        FATE_LOOKS["invalidated"][0].fill,
        FATE_LOOKS["invalidated"][0].stroke,
    ) == (  # never ran: blocked
        LOOKS["blocked"].fill,
        LOOKS["blocked"].stroke,
    )


def test_a_timeline_bar_has_the_look_of_its_status():
    plan = examples.load("cache_isolation")
    run = simulate(plan, faults=[Fault("S4", "side_effect")])
    svg = gantt_svg(run, critical_path(plan))
    bars = re.findall(r'<rect class="pv-bar pv-(\w+)"[^>]*?fill="([^"]+)" stroke="([^"]+)"', svg)
    assert {result for result, _, _ in bars} >= {"done", "failed"}
    for result, fill, stroke in bars:
        look = LOOKS[BAR_LOOKS[result]]
        assert (fill, stroke) == (look.fill, look.stroke), result


def test_the_voided_look_is_one_look_and_never_run_steps_never_wear_it():
    voided = LOOKS["invalidated"]
    assert FATE_LOOKS["voided"][0] == voided
    # planned steps that never ran
    in_scope, never = (
        FATE_LOOKS["invalidated"][0],
        FATE_LOOKS["not_run"][0],
    )
    assert (in_scope.fill, in_scope.stroke, in_scope.dash) == (
        LOOKS["blocked"].fill,
        LOOKS["blocked"].stroke,
        "dotted",
    )
    assert (never.fill, never.stroke, never.dash) == (
        LOOKS["not_run"].fill,
        LOOKS["not_run"].stroke,
        "dotted",
    )
    assert {(look.fill, look.stroke) for look in (in_scope, never)}.isdisjoint(
        {(voided.fill, voided.stroke)}
    )
