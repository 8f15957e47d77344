"""Every look has one home, pictures/style.py: no other module of the package spells a look's fill colour (the
tints that say a status), so changing how a status looks cannot miss a copy; the voided look is the same in the
run pictures, the alignment picture and the timeline."""

from __future__ import annotations

from pathlib import Path

import pytest

import planviz
from planviz.pictures.fatepicture import FATE_LOOKS
from planviz.pictures.gantt import PALETTE
from planviz.pictures.style import LOOKS

PACKAGE = Path(planviz.__file__).parent
HOME = PACKAGE / "pictures" / "style.py"
FILLS = sorted({look.fill.upper() for look in LOOKS.values()} - {"#FFFFFF"})


@pytest.mark.parametrize("path", sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".js", ".css")
                                        and p != HOME), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_look_colour_outside_its_home(path):
    text = path.read_text(encoding="utf-8").upper()
    assert not [fill for fill in FILLS if fill in text], f"{path}: a look's colour belongs in pictures/style.py"


def test_the_voided_look_is_one_look_and_never_run_steps_never_wear_it():
    voided = LOOKS["invalidated"]
    assert FATE_LOOKS["voided"][0] == voided
    assert PALETTE["voided"] == voided.fill
    in_scope, never = FATE_LOOKS["invalidated"][0], FATE_LOOKS["not_run"][0]  # planned steps that never ran
    assert (in_scope.fill, in_scope.stroke, in_scope.dash) == (LOOKS["blocked"].fill, LOOKS["blocked"].stroke, "dotted")
    assert (never.fill, never.stroke, never.dash) == (LOOKS["not_run"].fill, LOOKS["not_run"].stroke, "dotted")
    assert {(look.fill, look.stroke) for look in (in_scope, never)}.isdisjoint({(voided.fill, voided.stroke)})
