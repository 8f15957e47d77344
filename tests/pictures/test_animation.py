"""animate(): a run as GIF or PNG frames, every frame with its caption; checked on structure. (The HTML flipbook,
a front-end page, is tested in tests/frontends/test_slides.py.)"""

from __future__ import annotations

import io

import pytest
from PIL import Image

import planviz
from planviz import Fault, animate
from planviz.errors import PlanvizError, PlanvizTypeError, RenderError

PLAN = planviz.examples.load("cache_isolation")
RUN = planviz.simulate(PLAN, faults=[Fault("S4", "side_effect")])  # replans: two plan versions


@pytest.fixture(scope="module")
def gif(tmp_path_factory):
    return animate(RUN, tmp_path_factory.mktemp("gif") / "run.gif", seconds=0.5)


def test_gif_has_one_frame_per_event_and_loops(gif):
    assert (
        gif.kind == "gif"
        and gif.frames == tuple(range(len(RUN.events)))
        and gif.files == (gif.path,)
    )
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
    # plan v1 and plan v2 are laid out apart
    sizes = [
        Image.open(io.BytesIO(planviz.render(PLAN, run=RUN, at=i).png())).size
        for i in range(len(RUN.events))
    ]
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


def test_frames_folder_has_pngs_and_captions(tmp_path):
    anim = animate(RUN, tmp_path / "slides", frames=[0, -1], dpi=72)
    pngs = sorted(p.name for p in anim.path.glob("*.png"))
    assert anim.kind == "frames" and pngs == ["frame-000.png", "frame-001.png"]
    assert all((anim.path / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    lines = (anim.path / "captions.txt").read_text(encoding="utf-8").splitlines()
    assert [ln.split("\t") for ln in lines] == [[p, c] for p, c in zip(pngs, anim.captions)]
    assert anim.frames == (0, len(RUN.events) - 1)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"path": "run.mp4"}, RenderError, "unknown suffix '.mp4'"),
        ({"run": PLAN}, PlanvizTypeError, r"animate\(run=...\) expects a planviz Run"),
        ({"path": 3}, PlanvizTypeError, r"animate\(path=...\)"),
        ({"frames": []}, RenderError, "is empty"),
        ({"frames": [len(RUN.events)]}, RenderError, "not an event of this run"),
        ({"frames": ["1"]}, RenderError, "not an event of this run"),
        ({"seconds": 0}, RenderError, "positive number"),
        ({"dpi": float("nan")}, RenderError, "positive number"),
    ],
)
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

SIDE = {
    s: planviz.simulate(PLAN, faults=[Fault("S4", "side_effect")], strategy=s)
    for s in ("direct", "workflow", "planner")
}


def test_several_runs_share_one_clock_and_each_event_gets_a_frame(tmp_path):
    anim = animate(SIDE, tmp_path / "side", dpi=48)
    runs = list(SIDE.values())
    assert anim.labels == ("direct", "workflow", "planner") and len(anim.frames) == len(
        anim.captions
    )
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


@pytest.mark.parametrize(
    "runs, error, match",
    [
        ([], RenderError, "no run"),
        ({}, RenderError, "no run"),
        ([RUN, PLAN], PlanvizTypeError, "each of the runs"),
        ("run", PlanvizTypeError, r"animate\(run=...\)"),
    ],
)
def test_bad_runs(tmp_path, runs, error, match):
    with pytest.raises(error, match=match):
        animate(runs, tmp_path / "x.gif")
