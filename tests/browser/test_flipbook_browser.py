"""animate()'s HTML flipbook in headless Chromium: the front end's offline page plays the chosen frames by itself, in
a loop, pausing under the pointer and not at all for readers who ask for reduced motion; without script, CSS alone
shows the frames in turn (and all of them for reduced motion); nothing breaks the page's CSP."""

from __future__ import annotations

import pytest

import planviz
from planviz import Fault

pytestmark = pytest.mark.browser

VISIBLE_JS = """() => [...document.querySelectorAll('.pv-frame')]
    .map((f, i) => getComputedStyle(f).visibility === 'visible' ? i : -1).filter(i => i >= 0)"""
CAPTION = "#planviz-app .pv-caption"
FRAMES = range(0, 6)


@pytest.fixture(scope="module")
def run():
    return planviz.simulate(
        planviz.examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")]
    )


@pytest.fixture(scope="module")
def flipbook(run, tmp_path_factory):
    return planviz.animate(
        run, tmp_path_factory.mktemp("flip") / "run.html", frames=FRAMES, seconds=0.4
    )


def expected_caption(run, i: int) -> str:
    """How the front end's caption of event i starts, from the run itself."""
    e = run.events[i]
    return f"Event {i} of {len(run.events) - 1}: {e.kind}" + (f" {e.step}" if e.step else "")


@pytest.fixture
def no_script(chromium):
    """A page in a context with JavaScript off (a reader without script)."""
    context = chromium.new_context(
        viewport={"width": 1280, "height": 900}, java_script_enabled=False
    )
    try:
        yield context.new_page()
    finally:
        context.close()


def test_the_page_plays_the_frames_by_itself_in_a_loop(flipbook, run, page, ui):
    pg = page.page
    asked = []
    pg.on("request", lambda r: asked.append(r.url))
    pg.goto(flipbook.path.as_uri())
    caption = pg.locator(CAPTION)
    caption.wait_for()
    # playing
    assert pg.locator("#planviz-app button.planviz-play").get_attribute("aria-label") == "pause"
    seen = []
    for _ in range(len(FRAMES) + 2):  # every frame in order, then round again from the first
        text = pg.evaluate(f"() => document.querySelector('{CAPTION}').innerText")
        seen.append(text)
        pg.wait_for_function(
            f"(old) => document.querySelector('{CAPTION}').innerText !== old",
            arg=text,
            timeout=10_000,
        )
    starts = [next(i for i in FRAMES if s.startswith(expected_caption(run, i))) for s in seen]
    k = starts.index(0)
    assert (
        starts[k : k + len(FRAMES)] == list(FRAMES) or starts[k:] == list(FRAMES)[: len(starts) - k]
    )
    assert 0 in starts[k + 1 :] or starts[:k] == list(FRAMES)[len(FRAMES) - k :]  # it loops
    lines = pg.locator(
        "#planviz-app .pv-version:not([hidden]) svg text.event-line"
    ).all_text_contents()
    i = next(i for i in FRAMES if caption.inner_text().startswith(expected_caption(run, i)))
    assert lines[0].startswith(f"event {i} of {len(run.events) - 1} ")  # the picture says the same
    ui.screenshot(pg.locator("body"), "flipbook")
    assert page.errors == [] and pg.evaluate("window.__planvizCsp || []") == []
    # no network request: the page asked for nothing but itself
    assert asked == [flipbook.path.as_uri()]


def test_the_pointer_over_the_pictures_pauses_it(flipbook, page):
    pg = page.page
    pg.goto(flipbook.path.as_uri())
    pg.locator(CAPTION).wait_for()
    pg.locator("#planviz-app .planviz-diagram").hover()
    before = pg.locator(CAPTION).inner_text()
    pg.wait_for_timeout(1500)  # almost four frames' time
    assert pg.locator(CAPTION).inner_text() == before
    pg.mouse.move(5, 5)
    pg.wait_for_function(
        f"(old) => document.querySelector('{CAPTION}').innerText !== old",
        arg=before,
        timeout=10_000,
    )


def test_reduced_motion_does_not_play_and_the_reader_steps(flipbook, run, page):
    pg = page.page
    pg.emulate_media(reduced_motion="reduce")
    pg.goto(flipbook.path.as_uri())
    caption = pg.locator(CAPTION)
    caption.wait_for()
    pg.wait_for_timeout(1000)
    assert caption.inner_text().startswith(expected_caption(run, 0))
    assert pg.locator("#planviz-app button.planviz-play").get_attribute("aria-label") == "play"
    pg.locator("#planviz-app button.planviz-forward").click()
    assert caption.inner_text().startswith(expected_caption(run, 1))
    pg.locator("#planviz-app button.planviz-last").click()
    assert caption.inner_text().startswith(expected_caption(run, FRAMES[-1]))


def test_without_script_frames_take_turns(flipbook, no_script):
    pg = no_script
    pg.goto(flipbook.path.as_uri())
    assert pg.locator("#planviz-app").is_hidden()
    assert len(pg.evaluate(VISIBLE_JS)) == 1
    seen = set()
    # three different frames show, one at a time (polled: no script, no wait_for_function)
    for _ in range(300):
        shown = pg.evaluate(VISIBLE_JS)
        assert len(shown) == 1
        seen.add(shown[0])
        if len(seen) == 3:
            break
        pg.wait_for_timeout(100)
    assert len(seen) == 3
    assert pg.locator(".pv-frame figcaption").first.text_content() == flipbook.captions[0]


def test_without_script_reduced_motion_lists_every_frame(flipbook, no_script):
    pg = no_script
    pg.emulate_media(reduced_motion="reduce")
    pg.goto(flipbook.path.as_uri())
    assert pg.evaluate(VISIBLE_JS) == list(range(len(flipbook)))


def test_several_runs_play_on_one_clock(page, ui, tmp_path):
    plan = planviz.examples.load("cache_isolation")
    runs = {
        s: planviz.simulate(plan, faults=[Fault("S4", "side_effect")], strategy=s)
        for s in ("direct", "planner")
    }
    anim = planviz.animate(runs, tmp_path / "side.html", seconds=0.5)
    pg = page.page
    pg.emulate_media(reduced_motion="reduce")  # still: step it by hand
    pg.goto(anim.path.as_uri())
    sides = pg.locator("#planviz-app .pv-run")
    sides.nth(1).locator(".pv-caption").wait_for()
    for k in (0, 5, len(anim.frames) - 1):
        pg.locator("#planviz-app .planviz-slider").fill(str(k))
        for j, (label, run) in enumerate(runs.items()):
            assert sides.nth(j).locator(".pv-label").inner_text() == label
            assert (
                sides.nth(j)
                .locator(".pv-caption")
                .inner_text()
                .startswith(expected_caption(run, anim.frames[k][j]))
            )
        assert (
            pg.locator("#planviz-app .pv-note")
            .inner_text()
            .startswith(f"frame {k + 1} of {len(anim.frames)}")
        )
    ui.screenshot(pg.locator("body"), "flipbook-side-by-side")
    assert page.errors == [] and pg.evaluate("window.__planvizCsp || []") == []
