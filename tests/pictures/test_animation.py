"""animate(): a run as GIF, HTML flipbook or PNG frames, every frame with its caption; checked on structure."""

from __future__ import annotations

import io
import re
from html.parser import HTMLParser

import pytest
from PIL import Image

import planviz
from planviz import Fault, Plan, Step, animate
from planviz.errors import PlanvizError, PlanvizTypeError, RenderError
from planviz.pictures.escape import check_svg

PLAN = planviz.examples.load("cache_isolation")
RUN = planviz.simulate(PLAN, faults=[Fault("S4", "side_effect")])  # replans: two plan versions


class _Page(HTMLParser):
    """Tags, figure captions, inline SVGs and the CSP of a flipbook page."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags, self.captions, self.csp, self._in = [], [], "", None
        self.feed(text)
        self.svgs = re.findall(r"<svg\b.*?</svg>", text, re.S)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy":
            self.csp = attrs["content"]
        if tag == "figcaption":
            self._in = []

    def handle_endtag(self, tag):
        if tag == "figcaption":
            self.captions.append("".join(self._in))
            self._in = None

    def handle_data(self, data):
        if self._in is not None:
            self._in.append(data)


@pytest.fixture(scope="module")
def gif(tmp_path_factory):
    return animate(RUN, tmp_path_factory.mktemp("gif") / "run.gif", seconds=0.5)


def test_gif_has_one_frame_per_event_and_loops(gif):
    assert gif.kind == "gif" and gif.frames == tuple(range(len(RUN.events))) and gif.files == (gif.path,)
    im = Image.open(gif.path)
    assert im.format == "GIF" and im.n_frames == len(RUN.events) and im.info["loop"] == 0
    durations = []
    for k in range(im.n_frames):
        im.seek(k)
        durations.append(im.info["duration"])
    assert durations[0] == 500 and durations[-1] > durations[0]  # the last frame is held


def test_gif_frames_differ_and_share_one_canvas(gif):
    im = Image.open(gif.path)
    frames = []
    for k in range(im.n_frames):
        im.seek(k)
        frames.append(im.convert("RGB").tobytes())
    assert len(set(frames)) == len(frames)  # each frame's caption (at least) differs
    sizes = [Image.open(io.BytesIO(planviz.render(PLAN, run=RUN, at=i).png())).size
             for i in range(len(RUN.events))]  # plan v1 and plan v2 are laid out apart
    assert len(set(sizes)) > 1 and im.size == (max(w for w, _ in sizes), max(h for _, h in sizes))


def test_captions_name_each_event(gif):
    last = len(RUN.events) - 1
    for i, caption in zip(gif.frames, gif.captions):
        assert caption.startswith(f"event {i} of {last} · t = ")
        assert RUN.events[i].kind in caption
    assert "outcome: plan_complete" in gif.captions[-1] or "plan_complete" in gif.captions[-1]


def test_gif_shows_itself_in_a_notebook(gif):
    bundle = gif._repr_mimebundle_()
    assert "image/gif" in bundle and bundle["text/plain"].startswith("<planviz.Animation (gif)")


def test_html_flipbook_is_self_contained_and_scriptless(tmp_path):
    anim = animate(RUN, tmp_path / "run.html", frames=range(3, 9), seconds=2)
    text = anim.path.read_text(encoding="utf-8")
    page = _Page(text)
    assert anim.kind == "html" and anim.frames == tuple(range(3, 9))
    assert page.tags.count("figure") == 6 and page.captions == list(anim.captions)
    assert "script" not in page.tags and "default-src 'none'" in page.csp
    assert "http://" not in text.replace("http://www.w3.org", "") and "https://" not in text
    assert len(page.svgs) == 6
    for svg in page.svgs:
        check_svg(svg)
    delays = re.findall(r"animation-delay: ([0-9.]+)s", text)
    assert delays == ["0", "2", "4", "6", "8", "10"]
    assert "prefers-reduced-motion" in text  # frames listed, not animated, for readers who ask


def test_frames_folder_has_pngs_and_captions(tmp_path):
    anim = animate(RUN, tmp_path / "slides", frames=[0, -1], dpi=72)
    pngs = sorted(p.name for p in anim.path.glob("*.png"))
    assert anim.kind == "frames" and pngs == ["frame-000.png", "frame-001.png"]
    assert all((anim.path / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    lines = (anim.path / "captions.txt").read_text(encoding="utf-8").splitlines()
    assert [ln.split("\t") for ln in lines] == [[p, c] for p, c in zip(pngs, anim.captions)]
    assert anim.frames == (0, len(RUN.events) - 1)


def test_untrusted_text_stays_text(tmp_path):
    hostile = "</figcaption><script>alert(1)</script>"
    plan = Plan(hostile, [Step("A", hostile, expected_evidence="e", produces="x")])
    run = planviz.simulate(plan)
    text = animate(run, tmp_path / "x.html").path.read_text(encoding="utf-8")
    assert "<script" not in text
    for svg in _Page(text).svgs:
        check_svg(svg)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"path": "run.mp4"}, RenderError, "unknown suffix '.mp4'"),
    ({"run": PLAN}, PlanvizTypeError, r"animate\(run=...\) expects a planviz Run"),
    ({"path": 3}, PlanvizTypeError, r"animate\(path=...\)"),
    ({"frames": []}, RenderError, "is empty"),
    ({"frames": [len(RUN.events)]}, RenderError, "not an event of this run"),
    ({"frames": ["1"]}, RenderError, "not an event of this run"),
    ({"seconds": 0}, RenderError, "positive number"),
    ({"dpi": float("nan")}, RenderError, "positive number"),
])
def test_bad_arguments(tmp_path, kwargs, error, match):
    args = {"run": RUN, "path": tmp_path / "run.gif", **kwargs}
    if isinstance(args["path"], str):
        args["path"] = tmp_path / args["path"]
    with pytest.raises(error, match=match):
        animate(args.pop("run"), args.pop("path"), **args)


def test_a_run_without_events_is_refused(tmp_path):
    empty = planviz.Recorder().run
    with pytest.raises(PlanvizError, match="no events"):
        animate(empty, tmp_path / "run.gif")


# --- several runs side by side on one clock -------------------------------------------------------------------

SIDE = {s: planviz.simulate(PLAN, faults=[Fault("S4", "side_effect")], strategy=s)
        for s in ("direct", "workflow", "planner")}


def test_several_runs_share_one_clock_and_each_event_gets_a_frame(tmp_path):
    anim = animate(SIDE, tmp_path / "side", dpi=48)
    runs = list(SIDE.values())
    assert anim.labels == ("direct", "workflow", "planner") and len(anim.frames) == len(anim.captions)
    for r, run in enumerate(runs):  # every event of every run is shown, in order
        shown = [tick[r] for tick in anim.frames]
        assert shown == sorted(shown) and set(shown) == set(range(len(run.events)))
    for tick in anim.frames:  # no panel shows an event later than the shared clock
        now = max(run.events[i].time for run, i in zip(runs, tick))
        assert all(run.events[i].time <= now for run, i in zip(runs, tick))
    sizes = {Image.open(p).size for p in anim.files if p.suffix == ".png"}
    assert len(sizes) == 1  # one canvas for every frame


def test_several_runs_in_a_gif_are_labelled_panels_in_a_column(tmp_path):
    """Wide left-to-right plans stack in a column (closer to a slide's 16:9 than a row three pictures wide)."""
    anim = animate(list(SIDE.values()), tmp_path / "side.gif", frames=[0, -1], dpi=48)
    im = Image.open(anim.path)
    single = Image.open(io.BytesIO(planviz.render(PLAN, run=RUN, at=0).png(48)))
    assert im.n_frames == 2 and im.size[1] > 2 * single.size[1] and im.size[0] < 2 * single.size[0]
    assert " | ".join(f"{s}: " for s in SIDE) not in anim.captions[0]
    assert all(f"{s}: event " in anim.captions[-1] for s in SIDE)


def test_several_runs_in_a_flipbook(tmp_path):
    anim = animate({"without a plan": SIDE["direct"], "with a plan": SIDE["planner"]}, tmp_path / "side.html",
                   frames=range(0, 4))
    text = anim.path.read_text(encoding="utf-8")
    page = _Page(text)
    assert page.tags.count("figure") == 4 and len(page.svgs) == 8 and "script" not in page.tags
    heads = re.findall(r"<h2>(.*?)</h2>", text)
    assert heads[:2] == ["without a plan · t = 0 min", "with a plan · t = 0 min"]
    for svg in page.svgs:
        check_svg(svg)


@pytest.mark.parametrize("runs, error, match", [
    ([], RenderError, "no run"),
    ({}, RenderError, "no run"),
    ([RUN, PLAN], PlanvizTypeError, "each of the runs"),
    ("run", PlanvizTypeError, r"animate\(run=...\)"),
])
def test_bad_runs(tmp_path, runs, error, match):
    with pytest.raises(error, match=match):
        animate(runs, tmp_path / "x.gif")
