"""A run as frames for slides: an animated GIF, a self-contained HTML flipbook, or a folder of PNG frames.

:func:`animate` draws each chosen event of a run with :func:`planviz.render`
(the layout is computed once per plan version, and every PNG frame is drawn
from the stored positions, so frames never jump) and writes them by the
path's suffix:

- ``run.gif``: an animated GIF that loops, one frame per event, the last held
  longer; paste it into slides or an issue.
- ``run.html``: a flipbook page that needs no script, no network and no
  plug-in: CSS shows the frames in turn, pauses while the pointer is over
  them, and lists them all when printed or when the reader asks for reduced
  motion. The pictures are the checked SVGs of :func:`planviz.render`.
- ``frames`` (no suffix): a folder of ``frame-000.png``... and
  ``captions.txt``, one frame per line, for slides built by hand.

Every frame carries its caption (event number, clock, what happened) inside
the picture, so a frame pasted alone still says what it shows. No MP4: no
video encoder is needed.

Several runs (a list, or a mapping from label to run) are drawn side by side
on one clock, each under its label (default: its strategy), in a row or a
column, whichever is closer to a 16:9 slide: direct, workflow and planner on
the same fault, say. Which event of each run a frame shows is
:func:`planviz.pictures.montage.clock_ticks`.

>>> import tempfile, pathlib
>>> from planviz import Fault, examples, simulate
>>> run = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
>>> out = pathlib.Path(tempfile.mkdtemp())
>>> gif = animate(run, out / "run.gif", frames=range(0, 8))
>>> gif.kind, len(gif.frames), gif.captions[0][:22]
('gif', 8, 'event 0 of 17 · t = 0 ')
>>> both = [simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")], strategy=s)
...         for s in ("workflow", "planner")]
>>> side = animate(both, out / "both.gif", frames=range(0, 3))
>>> side.frames, side.labels
(((0, 0), (1, 1), (2, 2)), ('workflow', 'planner'))
>>> animate(run, out / "run.mp4")
Traceback (most recent call last):
...
planviz.errors.RenderError: cannot animate to 'run.mp4': unknown suffix '.mp4'; use .gif, .html, or a folder name without a suffix
"""

from __future__ import annotations

import base64
import html
import io
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..errors import PlanvizError, RenderError, expect_type
from ..runs.events import Run
from .captions import event_caption
from .diagram import Diagram
from .drawing import render
from .style import num
from .montage import LABEL_HEIGHT, arrangement, clock_ticks, compose

__all__ = ["animate", "Animation", "KINDS"]

KINDS = {".gif": "gif", ".html": "html", ".htm": "html", "": "frames"}
_HOLD_LAST = 3  # the last frame of a GIF stays this many times longer
_PALETTE_PIXELS = 4_000_000  # the GIF palette is built from all frames, subsampled to about this many pixels
_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.S)
_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([0-9.]+)pt"[^>]*?\bheight="([0-9.]+)pt"')


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


def animate(run: Run | Sequence[Run] | Mapping[str, Run], path: str | os.PathLike[str], *,
            frames: Iterable[int] | None = None, seconds: float = 1.5, dpi: float = 96.0) -> Animation:
    """Write the frames of ``run`` to ``path`` as a GIF (``.gif``), an HTML flipbook (``.html``) or a folder
    of PNG frames (a path without a suffix); returns the :class:`Animation`.

    ``run`` may be several runs (a list, or a mapping from label to run),
    drawn side by side on one clock. ``frames`` picks frames (default: all;
    negative ones count from the end): event indices of one run, or ticks of
    the shared clock for several; ``seconds`` is how long each frame shows;
    ``dpi`` sets the resolution of PNG and GIF frames. In a notebook the
    returned GIF animation shows itself.

    Parameters
    ----------
    run : Run, list of Run or mapping of label to Run
        The run, or several drawn side by side on one clock.
    path : str or os.PathLike
        ``.gif``, ``.html`` (a flipbook) or a folder (PNG frames); a missing folder is made.
    frames : iterable of int, optional
        Which frames (event indices, or clock ticks for several runs); default all.
    seconds : float
        How long each frame shows.
    dpi : float
        Resolution of PNG and GIF frames.

    Returns
    -------
    Animation
        What was written (``path``, ``frames``); a GIF shows itself in a notebook.

    Raises
    ------
    PlanvizTypeError
        When ``run`` holds something other than runs, or ``path`` is not a path.
    RenderError
        When ``path``'s suffix is not one of the three.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from planviz import examples, simulate
    >>> run = simulate(examples.load("cache_isolation"))
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "run.html"
    >>> animate(run, out, frames=[0, -1]).path.name
    'run.html'
    """
    labels, runs = _runs(run)
    expect_type(path, (str, os.PathLike), "animate", "path", "a file or folder path")
    path = Path(path)
    kind = KINDS.get(path.suffix.lower())
    if kind is None:
        raise RenderError(f"cannot animate to {path.name!r}: unknown suffix {path.suffix!r}; "
                          "use .gif, .html, or a folder name without a suffix")
    for value, name in ((seconds, "seconds"), (dpi, "dpi")):
        expect_type(value, (int, float), "animate", name, "a positive number")
        if not (math.isfinite(value) and value > 0):
            raise RenderError(f"animate({name}=...) must be a positive number, got {value!r}")
    for one in runs:
        if not one.events:
            raise PlanvizError("this run has no events, so there is nothing to animate; simulate or record one first")
        if not one.plans:
            raise PlanvizError("this run carries no plan, so its frames cannot be drawn; record the plan with the run")
    ticks = [(i,) for i in range(len(runs[0].events))] if len(runs) == 1 else list(clock_ticks(runs))
    chosen = tuple(ticks[k] for k in _indices(len(ticks), frames, "an event of this run" if len(runs) == 1
                                              else "a frame of these runs"))
    panels = [[render(r.plans[-1], run=r, at=i) for r, i in zip(runs, tick)] for tick in chosen]
    captions = tuple(_caption(runs, labels, tick) for tick in chosen)
    heads = [_heads(runs, labels, tick) for tick in chosen]
    if kind == "gif":
        files = (_write(path, _gif(_painter(panels, heads, dpi), len(panels), seconds)),)
    elif kind == "html":
        files = (_write(path, _flipbook(runs[0].plans[0].goal, panels, heads, captions, seconds).encode("utf-8")),)
    else:
        path.mkdir(parents=True, exist_ok=True)
        names = [f"frame-{k:03d}.png" for k in range(len(chosen))]
        paint = _painter(panels, heads, dpi)
        files = tuple(_write(path / name, _png(paint(k))) for k, name in enumerate(names))
        listing = "".join(f"{name}\t{caption}\n" for name, caption in zip(names, captions))
        files += (_write(path / "captions.txt", listing.encode("utf-8")),)
    shown = tuple(t[0] for t in chosen) if len(runs) == 1 else chosen
    return Animation(path, kind, shown, captions, files, labels if len(runs) > 1 else ())


def _runs(value: Any) -> tuple[tuple[str, ...], tuple[Run, ...]]:
    """(labels, runs) of animate's first argument: one run, a sequence of runs, or a mapping label -> run."""
    how = "make one with planviz.simulate(plan) or planviz.load_trace(path)"
    if isinstance(value, Run):
        return ("",), (value,)
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        names = [getattr(r, "strategy", "") for r in value]
        pairs = [(n if names.count(n) == 1 else f"{n} {k + 1}", r) for k, (n, r) in enumerate(zip(names, value))]
    else:
        expect_type(value, Run, "animate", "run", "a planviz Run, a list of runs or a mapping label -> run", how)
        raise AssertionError  # expect_type raised
    if not pairs:
        raise RenderError("animate() was given no run; pass a Run, or several as a list or a mapping label -> run")
    for _, r in pairs:
        expect_type(r, Run, "animate", "run", "a planviz Run (each of the runs)", how)
    return tuple(str(n) for n, _ in pairs), tuple(r for _, r in pairs)


def _heads(runs: Sequence[Run], labels: Sequence[str], tick: Sequence[int]) -> list[str]:
    """The label over each run's panel, with the shared clock (a run waiting since its last event shows it then)."""
    if len(runs) == 1:
        return [""]
    now = max(float(r.events[i].time) for r, i in zip(runs, tick))
    unit = f" {runs[0].plans[0].time_unit}" if runs[0].plans[0].time_unit else ""
    return [f"{label} · t = {num(now)}{unit}" for label in labels]


def _caption(runs: Sequence[Run], labels: Sequence[str], tick: Sequence[int]) -> str:
    """One line per frame: the event caption of one run, or each run's after its label."""
    lines = [event_caption(r.events[i], i, r, r.plan_at(i) or r.plans[-1]) for r, i in zip(runs, tick)]
    if len(runs) == 1:
        return lines[0]
    return " | ".join(f"{label}: {line}" for label, line in zip(labels, lines))


def _indices(n: int, frames: Iterable[int] | None, what: str) -> tuple[int, ...]:
    if frames is None:
        return tuple(range(n))
    expect_type(frames, Iterable, "animate", "frames", "an iterable of event indices such as range(0, 10)")
    out = []
    for i in frames:
        if isinstance(i, bool) or not isinstance(i, int) or not -n <= i < n:
            raise RenderError(f"animate(frames=...) holds {i!r}, which is not {what}; choose 0..{n - 1}")
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


def _painter(panels: list[list[Diagram]], heads: list[list[str]], dpi: float) -> Callable[[int], Any]:
    """A function: frame number -> its RGB image. Every frame has one size: each panel on a white cell as
    large as the largest panel (plan versions differ in size), several runs labelled, in a row or a column."""
    from PIL import Image, ImageDraw, ImageFont  # Pillow encodes GIF/PNG frames; imported only when asked for

    pngs = [[d.png(dpi) for d in frame] for frame in panels]
    sizes = [Image.open(io.BytesIO(png)).size for frame in pngs for png in frame]  # reads headers only
    cell = (max(w for w, _ in sizes), max(h for _, h in sizes))
    if len(panels[0]) == 1:
        return lambda k: _canvas(Image, pngs[k][0], cell)
    scale = dpi / 96
    font = ImageFont.load_default(size=max(8, round(20 * scale)))
    how, strip = arrangement([cell] * len(panels[0])), round(LABEL_HEIGHT * scale)
    return lambda k: compose(Image, ImageDraw, font, [_canvas(Image, png, cell) for png in pngs[k]], heads[k],
                             cell, how, strip)


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
    palette = sheet.quantize(colors=255, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE)
    frames = [paint(k).quantize(palette=palette, dither=Image.Dither.NONE) for k in range(count)]
    shown = round(seconds * 1000)
    durations = [shown] * (len(frames) - 1) + [shown * _HOLD_LAST]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0)
    return out.getvalue()


def _png(image: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _canvas(Image: Any, png: bytes, size: tuple[int, int]) -> Any:
    canvas = Image.new("RGB", size, "white")
    canvas.paste(Image.open(io.BytesIO(png)).convert("RGB"), (0, 0))
    return canvas


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ margin: 0; padding: 8px; background: #ffffff; color: #000000; font-family: system-ui, sans-serif; }}
.pv-flipbook {{ display: grid; }}
.pv-frame {{ grid-area: 1 / 1; margin: 0; visibility: hidden; animation: pv-flip {total}s step-end infinite; }}
.pv-frame svg {{ max-width: 100%; height: auto; }}
.pv-frame figcaption {{ font-size: 14px; margin: 4px 8px 0; }}
.pv-panels {{ display: flex; gap: 8px; }}
.pv-panels.pv-column {{ flex-direction: column; }}
.pv-panel {{ flex: 1 1 0; min-width: 0; border-top: 2px solid #999999; }}
.pv-panel h2 {{ font-size: 16px; margin: 2px 8px; }}
.pv-flipbook:hover .pv-frame {{ animation-play-state: paused; }}
@keyframes pv-flip {{ 0% {{ visibility: visible; }} {share}% {{ visibility: hidden; }} }}
@media (prefers-reduced-motion: reduce), print {{
  .pv-flipbook {{ display: block; }}
  .pv-frame {{ animation: none; visibility: visible; margin-bottom: 24px; }}
}}
</style>
</head>
<body>
<main class="pv-flipbook" aria-label="{label}">
{figures}
</main>
</body>
</html>
"""


def _flipbook(goal: str, panels: list[list[Diagram]], heads: list[list[str]], captions: tuple[str, ...],
              seconds: float) -> str:
    """The flipbook page: one figure per frame, shown in turn by CSS alone (no script); several runs' panels
    sit in a row or a column, each under its label."""
    n, runs = len(panels), len(panels[0])
    how = arrangement([_svg_size(d.svg) for d in panels[0]]) if runs > 1 else "row"
    figures = "\n".join(
        f'<figure class="pv-frame" id="frame-{k}" style="animation-delay: {k * seconds:g}s">'
        f'{_panels(frame, head, how)}<figcaption>{html.escape(caption)}</figcaption></figure>'
        for k, (frame, head, caption) in enumerate(zip(panels, heads, captions)))
    what = "a run" if runs == 1 else f"{runs} runs side by side"
    title = html.escape(f"planviz animation: {goal}")
    label = html.escape(f"{n} frames of {what}, {seconds:g} s each; hover to pause")
    return _PAGE.format(title=title, total=f"{n * seconds:g}", share=f"{100 / n:.6g}", label=label,
                        figures=figures)


def _panels(frame: list[Diagram], labels: Sequence[str], how: str) -> str:
    if len(frame) == 1:
        return _PROLOG.sub("", frame[0].svg, count=1)
    cells = "".join(f'<section class="pv-panel"><h2>{html.escape(label)}</h2>{_PROLOG.sub("", d.svg, count=1)}'
                    "</section>" for d, label in zip(frame, labels))
    return f'<div class="pv-panels pv-{how}">{cells}</div>'


def _svg_size(svg: str) -> tuple[float, float]:
    """The width and height (points) an SVG from render declares."""
    found = _SIZE.search(svg)
    return (float(found.group(1)), float(found.group(2))) if found else (1.0, 1.0)
