"""The HTML flipbook of animate() in headless Chromium: CSS alone shows one frame at a time, in turn,
and every frame at once for readers who ask for reduced motion; nothing breaks the page's CSP."""

from __future__ import annotations

import pytest

import planviz
from planviz import Fault

pytestmark = pytest.mark.browser

VISIBLE_JS = """() => [...document.querySelectorAll('.pv-frame')]
    .map((f, i) => getComputedStyle(f).visibility === 'visible' ? i : -1).filter(i => i >= 0)"""


@pytest.fixture(scope="module")
def flipbook(tmp_path_factory):
    run = planviz.simulate(planviz.examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
    return planviz.animate(run, tmp_path_factory.mktemp("flip") / "run.html", frames=range(0, 6), seconds=0.4)


def test_frames_take_turns(flipbook, page):
    pg = page.page
    pg.goto(flipbook.path.as_uri())
    assert len(pg.evaluate(VISIBLE_JS)) == 1
    seen = set()
    for _ in range(3):  # wait for three different frames to show, one at a time
        pg.wait_for_function(f"() => {{ const v = ({VISIBLE_JS})(); return v.length === 1 && "
                             f"!{sorted(seen)}.includes(v[0]); }}", timeout=30_000)
        seen.add(pg.evaluate(VISIBLE_JS)[0])
    assert len(seen) == 3
    assert page.csp == [] and not page.errors
    caption = pg.locator(".pv-frame figcaption").first.text_content()
    assert caption == flipbook.captions[0]


def test_reduced_motion_lists_every_frame(flipbook, page):
    pg = page.page
    pg.emulate_media(reduced_motion="reduce")
    pg.goto(flipbook.path.as_uri())
    assert pg.evaluate(VISIBLE_JS) == list(range(len(flipbook)))
