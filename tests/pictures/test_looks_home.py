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


def test_the_voided_look_is_one_look():
    voided = LOOKS["invalidated"]
    assert FATE_LOOKS["voided"][0] == voided
    assert (FATE_LOOKS["invalidated"][0].fill, FATE_LOOKS["invalidated"][0].stroke) == (voided.fill, voided.stroke)
    assert PALETTE["voided"] == voided.fill
