"""A run's frames for slides: which frames :func:`planviz.animate` shows, their captions, and the raster ones.

:func:`planviz.animate` (in :mod:`planviz.frontends.pages.slides`) asks this
module for its frames: :func:`choose_frames` checks the arguments and picks
the frames (one run's events, or ticks of the shared clock of several runs:
:func:`planviz.pictures.montage.clock_ticks`) with their captions (event
number, clock, what happened); :func:`write_raster` draws them with
:func:`planviz.render` (the layout is computed once per plan version, and
every PNG frame is drawn from the stored positions, so frames never jump) and
writes

- ``run.gif``: an animated GIF that loops, one frame per event, the last held
  longer; paste it into slides or an issue.
- ``frames`` (no suffix): a folder of ``frame-000.png``... and
  ``captions.txt``, one frame per line, for slides built by hand.

Every frame carries its caption inside the picture, so a frame pasted alone
still says what it shows. No MP4: no video encoder is needed. The HTML
flipbook (``run.html``) is the front end's offline page in its flipbook mode,
made by the front ends (stage 6), not here. Several runs are drawn side by
side, each under its label, in a row or a column, whichever is closer to a
16:9 slide (:func:`planviz.pictures.montage.arrangement`).

>>> import tempfile, pathlib
>>> from planviz import Fault, examples, simulate
>>> run = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
>>> chosen = choose_frames(run, pathlib.Path(tempfile.mkdtemp()) / "run.gif", range(0, 8), 1.5, 96.0)
>>> gif = write_raster(chosen)
>>> gif.kind, len(gif.frames), gif.captions[0][:22]
('gif', 8, 'event 0 of 17 · t = 0 ')
>>> choose_frames(run, "run.mp4", None, 1.5, 96.0)  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
planviz.errors.RenderError: cannot animate to 'run.mp4': unknown suffix '.mp4'; use .gif, .html, or a
folder name without a suffix
"""

from __future__ import annotations

import base64
import io
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from planviz.errors import PlanvizError, RenderError, expect_type, show_value
from planviz.io.output import output_name
from planviz.pictures.captions import event_caption
from planviz.pictures.diagram import Diagram
from planviz.pictures.drawing import render
from planviz.pictures.montage import LABEL_HEIGHT, arrangement, clock_ticks, compose
from planviz.pictures.style import num
from planviz.runs.events import Run
from planviz.runs.summary.runsummary import run_summary

__all__ = [
    "Animation",
    "Frames",
    "KINDS",
    "HOLD_LAST",
    "choose_frames",
    "write_raster",
    "frame_diagrams",
    "clock_text",
]

KINDS = {".gif": "gif", ".html": "html", ".htm": "html", "": "frames"}
HOLD_LAST = 3  # the last frame stays this many times longer (the GIF, the flipbook)
_PALETTE_PIXELS = (
    4_000_000  # the GIF palette is built from all frames, subsampled to about this many pixels
)


@dataclass(frozen=True)
class Animation:
    """What :func:`animate` wrote: ``path``, its ``kind`` (``gif``, ``html`` or ``frames``), the event index
    of each frame (``frames``; for several runs a tuple per frame, one index per run, in ``labels``
    order), each frame's ``captions`` and every file written (``files``)."""

    path: Path
    kind: str
    frames: tuple[Any, ...]
    captions: tuple[str, ...]
    files: tuple[Path, ...]
    labels: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.frames)

    def __repr__(self) -> str:
        return f"<planviz.Animation ({self.kind}): {len(self.frames)} frames written to {str(self.path)!r}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle: dict[str, Any] = {"text/plain": repr(self)}
        if self.kind == "gif" and self.path.is_file():
            bundle["image/gif"] = base64.b64encode(self.path.read_bytes()).decode("ascii")
        return bundle


@dataclass(frozen=True)
class Frames:
    """What :func:`planviz.animate` was asked for, checked: where (``path``) and as what (``kind``), the runs
    and their ``labels``, the frames chosen (``ticks``: for each frame the event of each run), each frame's
    ``captions`` and the label over each run's panel (``heads``), ``seconds`` a frame and the ``dpi``."""

    path: Path
    kind: str
    labels: tuple[str, ...]
    runs: tuple[Run, ...]
    ticks: tuple[tuple[int, ...], ...]
    captions: tuple[str, ...]
    heads: tuple[tuple[str, ...], ...]
    seconds: float
    dpi: float

    def animation(self, files: tuple[Path, ...]) -> Animation:
        """The :class:`Animation` that wrote ``files`` from these frames."""
        one = len(self.runs) == 1
        shown = tuple(t[0] for t in self.ticks) if one else self.ticks
        return Animation(
            self.path, self.kind, shown, self.captions, files, () if one else self.labels
        )


def choose_frames(
    run: Run | Sequence[Run] | Mapping[str, Run],
    path: str | os.PathLike[str],
    frames: Iterable[int] | None,
    seconds: float,
    dpi: float,
) -> Frames:
    """Check :func:`planviz.animate`'s arguments (its messages name it) and choose its :class:`Frames`."""
    labels, runs = _runs(run)
    expect_type(path, (str, os.PathLike), "animate", "path", "a file or folder path")
    path = Path(output_name(path))
    kind = KINDS.get(path.suffix.lower())
    if kind is None:
        raise RenderError(
            f"cannot animate to {show_value(path.name)}: unknown suffix {show_value(path.suffix)}; "
            "use .gif, .html, or a folder name without a suffix"
        )
    for value, name in ((seconds, "seconds"), (dpi, "dpi")):
        expect_type(value, (int, float), "animate", name, "a positive number")
        if not 0 < value < 1e300:  # NaN and infinity too; a huge int is compared, never converted
            raise RenderError(
                f"animate({name}=...) must be a positive number, got {show_value(value)}"
            )
    for one in runs:
        if not one.events:
            raise PlanvizError(
                "this run has no events, so there is nothing to animate; simulate or record one first"
            )
        if not one.plans:
            raise PlanvizError(
                "this run carries no plan, so its frames cannot be drawn; record the plan with the run"
            )
    ticks = (
        [(i,) for i in range(len(runs[0].events))] if len(runs) == 1 else list(clock_ticks(runs))
    )
    chosen = tuple(
        tuple(ticks[k])
        for k in _indices(
            len(ticks),
            frames,
            "an event of this run" if len(runs) == 1 else "a frame of these runs",
        )
    )
    return Frames(
        path,
        kind,
        labels,
        runs,
        chosen,
        tuple(_caption(runs, labels, tick) for tick in chosen),
        tuple(tuple(_heads(runs, labels, tick)) for tick in chosen),
        float(seconds),
        float(dpi),
    )


def frame_diagrams(chosen: Frames) -> list[list[Diagram]]:
    """Each frame's pictures, one per run (:func:`planviz.render`: the run's last plan, laid out once; each run's
    critical paths and hindsight from its one summary, held while its frames are drawn)."""
    held = [run_summary(r) for r in chosen.runs]  # noqa: F841 (kept alive: every frame of a run reads its summary)
    return [
        [render(r.plans[-1], run=r, at=i) for r, i in zip(chosen.runs, tick)]
        for tick in chosen.ticks
    ]


def write_raster(chosen: Frames) -> Animation:
    """Write ``chosen`` as an animated GIF (kind ``gif``) or a folder of PNG frames and their captions
    (``frames``); returns the :class:`Animation`."""
    paint = _painter(frame_diagrams(chosen), [list(h) for h in chosen.heads], chosen.dpi)
    path = chosen.path
    files: tuple[Path, ...]
    if chosen.kind == "gif":
        files = (_write(path, _gif(paint, len(chosen.ticks), chosen.seconds)),)
    elif chosen.kind == "frames":
        path.mkdir(parents=True, exist_ok=True)
        names = [f"frame-{k:03d}.png" for k in range(len(chosen.ticks))]
        files = tuple(_write(path / name, _png(paint(k))) for k, name in enumerate(names))
        listing = "".join(f"{name}\t{caption}\n" for name, caption in zip(names, chosen.captions))
        files += (_write(path / "captions.txt", listing.encode("utf-8")),)
    else:
        raise RenderError(
            f"{chosen.kind!r} frames are not raster ones; the front ends write a flipbook page"
        )
    return chosen.animation(files)


def clock_text(runs: Sequence[Run], tick: Sequence[int]) -> str:
    """The shared clock at ``tick`` (``t = 5 min``): the latest time any run has reached."""
    now = max(float(r.events[i].time) for r, i in zip(runs, tick))
    unit = f" {runs[0].plans[0].time_unit}" if runs[0].plans[0].time_unit else ""
    return f"t = {num(now)}{unit}"


def _runs(value: Any) -> tuple[tuple[str, ...], tuple[Run, ...]]:
    """(labels, runs) of animate's first argument: one run, a sequence of runs, or a mapping label -> run."""
    how = "make one with planviz.simulate(plan) or planviz.load_trace(path)"
    if isinstance(value, Run):
        return ("",), (value,)
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        names = [getattr(r, "strategy", "") for r in value]
        pairs = [
            (n if names.count(n) == 1 else f"{n} {k + 1}", r)
            for k, (n, r) in enumerate(zip(names, value))
        ]
    else:
        expect_type(
            value,
            Run,
            "animate",
            "run",
            "a planviz Run, a list of runs or a mapping label -> run",
            how,
        )
        raise AssertionError  # expect_type raised
    if not pairs:
        raise RenderError(
            "animate() was given no run; pass a Run, or several as a list or a mapping label -> run"
        )
    for _, r in pairs:
        expect_type(r, Run, "animate", "run", "a planviz Run (each of the runs)", how)
    return tuple(str(n) for n, _ in pairs), tuple(r for _, r in pairs)


def _heads(runs: Sequence[Run], labels: Sequence[str], tick: Sequence[int]) -> list[str]:
    """The label over each run's panel, with the shared clock (a run waiting since its last event shows it then)."""
    if len(runs) == 1:
        return [""]
    clock = clock_text(runs, tick)
    return [f"{label} · {clock}" for label in labels]


def _caption(runs: Sequence[Run], labels: Sequence[str], tick: Sequence[int]) -> str:
    """One line per frame: the event caption of one run, or each run's after its label."""
    lines = [
        event_caption(r.events[i], i, r, r.plan_at(i) or r.plans[-1]) for r, i in zip(runs, tick)
    ]
    if len(runs) == 1:
        return lines[0]
    return " | ".join(f"{label}: {line}" for label, line in zip(labels, lines))


def _indices(n: int, frames: Iterable[int] | None, what: str) -> tuple[int, ...]:
    if frames is None:
        return tuple(range(n))
    expect_type(
        frames, Iterable, "animate", "frames", "an iterable of event indices such as range(0, 10)"
    )
    out = []
    for i in frames:
        if isinstance(i, bool) or not isinstance(i, int) or not -n <= i < n:
            raise RenderError(
                f"animate(frames=...) holds {i!r}, which is not {what}; choose 0..{n - 1}"
            )
        out.append(i % n)
    if not out:
        raise RenderError("animate(frames=...) is empty; pick at least one event index")
    return tuple(out)


def _write(path: Path, data: bytes) -> Path:
    """Write ``data`` to a temporary file beside ``path`` and rename it into place (never a half-written file)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return path


def _painter(
    panels: list[list[Diagram]], heads: list[list[str]], dpi: float
) -> Callable[[int], Any]:
    """A function: frame number -> its RGB image. Every frame has one size: each panel on a white cell as
    large as the largest panel (plan versions differ in size), several runs labelled, in a row or a column."""
    from PIL import (  # Pillow encodes GIF/PNG frames; imported only when asked for
        Image,
        ImageDraw,
        ImageFont,
    )

    pngs = [[d.png(dpi) for d in frame] for frame in panels]
    # reads headers only
    sizes = [Image.open(io.BytesIO(png)).size for frame in pngs for png in frame]
    cell = (max(w for w, _ in sizes), max(h for _, h in sizes))
    if len(panels[0]) == 1:
        return lambda k: _canvas(Image, pngs[k][0], cell)
    scale = dpi / 96
    font = ImageFont.load_default(size=max(8, round(20 * scale)))
    how, strip = arrangement([cell] * len(panels[0])), round(LABEL_HEIGHT * scale)
    return lambda k: compose(
        Image,
        ImageDraw,
        font,
        [_canvas(Image, png, cell) for png in pngs[k]],
        heads[k],
        cell,
        how,
        strip,
    )


def _gif(paint: Callable[[int], Any], count: int, seconds: float) -> bytes:
    """An animated GIF of ``count`` frames painted by ``paint`` (all the same size).

    One palette for every frame (Pillow's max-coverage quantiser, no
    dithering, built from every frame subsampled to a few million pixels), so
    white stays white, the look colours stay exact and Pillow can store each
    frame as what changed since the previous one. Frames are painted twice
    (palette, then encoding) rather than all held in full colour.
    """
    from PIL import Image

    size = paint(0).size
    step = max(1, math.ceil(math.sqrt(count * size[0] * size[1] / _PALETTE_PIXELS)))
    small = (max(1, size[0] // step), max(1, size[1] // step))
    sheet = Image.new("RGB", (small[0], small[1] * count), "white")
    for k in range(count):
        sheet.paste(paint(k).resize(small, Image.Resampling.NEAREST), (0, k * small[1]))
    palette = sheet.quantize(
        colors=255, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE
    )
    frames = [paint(k).quantize(palette=palette, dither=Image.Dither.NONE) for k in range(count)]
    shown = round(seconds * 1000)
    durations = [shown] * (len(frames) - 1) + [shown * HOLD_LAST]
    out = io.BytesIO()
    frames[0].save(
        out, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0
    )
    return out.getvalue()


def _png(image: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _canvas(Image: Any, png: bytes, size: tuple[int, int]) -> Any:
    canvas = Image.new("RGB", size, "white")
    canvas.paste(Image.open(io.BytesIO(png)).convert("RGB"), (0, 0))
    return canvas
