"""animate()'s HTML flipbook: the front end's one offline page in its flipbook mode, with a CSS flipbook for readers
without script; checked on the page's structure and its data (the browser: tests/browser/test_flipbook_browser.py)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import planviz
from planviz import Fault, Plan, Step, animate
from planviz.frontends.page import content_security_policy, page_script
from planviz.pictures.escape import check_svg

from .pagedata import page_data

PLAN = planviz.examples.load("cache_isolation")
RUN = planviz.simulate(PLAN, faults=[Fault("S4", "side_effect")])  # replans: two plan versions


class _Page(HTMLParser):
    """Tags, figure captions, scripts, inline SVGs and the CSP of a flipbook page."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags, self.captions, self.csp, self.scripts, self._in, self._script = (
            [],
            [],
            "",
            [],
            None,
            None,
        )
        self.feed(text)
        self.svgs = re.findall(r"<svg\b.*?</svg>", text, re.S)
        self.data = page_data(text) if 'id="planviz-data"' in text else None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy":
            self.csp = attrs["content"]
        if tag == "figcaption":
            self._in = []
        if tag == "script":
            self.scripts.append(attrs.get("type"))

    def handle_endtag(self, tag):
        if tag == "figcaption":
            self.captions.append("".join(self._in))
            self._in = None

    def handle_data(self, data):
        if self._in is not None:
            self._in.append(data)


def test_the_flipbook_is_the_one_page_running_the_one_module(tmp_path):
    anim = animate(RUN, tmp_path / "run.html", frames=range(3, 9), seconds=2)
    text = anim.path.read_text(encoding="utf-8")
    page = _Page(text)
    assert anim.kind == "html" and anim.frames == tuple(range(3, 9)) and anim.files == (anim.path,)
    script = page_script()
    assert (
        page.scripts == ["application/octet-stream", "module"]
        and f'<script type="module">{script}</script>' in text
    )
    assert page.csp == content_security_policy(script)  # nothing loads; only the module runs
    assert "http://" not in text.replace("http://www.w3.org", "") and "https://" not in text
    snap = page.data  # what the module plays: the chosen frames, at their pace, in a loop
    assert snap["ticks"] == [[i] for i in range(3, 9)] and snap["autoplay"]["ms"] == 2000
    assert len(snap["pair"]) == 1 and len(snap["pair"][0]["events"]) == len(RUN.events)
    assert len(snap["pair"][0]["versions"]) == len(RUN.plans)  # one picture per plan version


def test_without_script_the_page_is_a_css_flipbook(tmp_path):
    anim = animate(RUN, tmp_path / "run.html", frames=range(3, 9), seconds=2)
    text = anim.path.read_text(encoding="utf-8")
    page = _Page(text)
    static = text[
        text.index('<div class="pv-static">') : text.index(
            '<script type="application/octet-stream"'
        )
    ]
    assert static.count('<figure class="pv-frame"') == 6 and page.captions == list(anim.captions)
    svgs = re.findall(r"<svg\b.*?</svg>", static, re.S)
    assert len(svgs) == 6
    for svg in svgs:
        check_svg(svg)
    assert re.findall(r"animation-delay: ([0-9.]+)s", static) == ["0", "2", "4", "6", "8", "10"]
    assert "prefers-reduced-motion" in text  # frames listed, not animated, for readers who ask


def test_untrusted_text_stays_text(tmp_path):
    hostile = "</figcaption></script><script>alert(1)</script>"
    plan = Plan(hostile, [Step("A", hostile, expected_evidence="e", produces="x")])
    text = animate(planviz.simulate(plan), tmp_path / "x.html").path.read_text(encoding="utf-8")
    assert "<script>" not in text and "alert(1)</script>" not in text
    page = _Page(text)
    assert page.scripts == ["application/octet-stream", "module"]
    # intact as data
    assert page.data["goal"] == hostile and page.data["pair"][0]["goal"] == hostile
    for svg in page.svgs + [v["svg"] for v in page.data["pair"][0]["versions"]]:
        check_svg(svg)


SIDE = {
    s: planviz.simulate(PLAN, faults=[Fault("S4", "side_effect")], strategy=s)
    for s in ("direct", "planner")
}


def test_several_runs_in_a_flipbook(tmp_path):
    anim = animate(
        {"without a plan": SIDE["direct"], "with a plan": SIDE["planner"]},
        tmp_path / "side.html",
        frames=range(0, 4),
    )
    text = anim.path.read_text(encoding="utf-8")
    page = _Page(text)
    # two pictures a frame without script
    assert page.tags.count("figure") == 4 and len(page.svgs) == 8
    assert re.findall(r"<h2>(.*?)</h2>", text)[:2] == [
        "without a plan · t = 0 min",
        "with a plan · t = 0 min",
    ]
    snap = page.data
    assert snap["labels"] == ["without a plan", "with a plan"] and snap["ticks"] == [
        list(t) for t in anim.frames
    ]
    assert [len(s["events"]) for s in snap["pair"]] == [
        len(SIDE["direct"].events),
        len(SIDE["planner"].events),
    ]
    for k, tick in enumerate(anim.frames):  # each frame's line: its number and the shared clock
        now = max(run.events[i].time for run, i in zip(SIDE.values(), tick))
        assert snap["notes"][k] == f"frame {k + 1} of 4 · t = {now:g} min"
