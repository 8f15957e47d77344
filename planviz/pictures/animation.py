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

>>> import tempfile, pathlib
>>> from planviz import Fault, examples, simulate
>>> run = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
>>> out = pathlib.Path(tempfile.mkdtemp())
>>> gif = animate(run, out / "run.gif", frames=range(0, 8))
>>> gif.kind, len(gif.frames), gif.captions[0][:22]
('gif', 8, 'event 0 of 17 · t = 0 ')
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
from typing import Any, Iterable

from ..errors import PlanvizError, RenderError, expect_type
from ..runs.events import Run
from .captions import event_caption
from .diagram import Diagram
from .drawing import render

__all__ = ["animate", "Animation", "KINDS"]

KINDS = {".gif": "gif", ".html": "html", ".htm": "html", "": "frames"}
_HOLD_LAST = 3  # the last frame of a GIF stays this many times longer
_PALETTE_PIXELS = 4_000_000  # the GIF palette is built from all frames, subsampled to about this many pixels
_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.S)


@dataclass(frozen=True)
class Animation:
    """What :func:`animate` wrote: ``path``, its ``kind`` (``gif``, ``html`` or ``frames``), the event index
    of each frame (``frames``), each frame's ``captions`` and every file written (``files``)."""

    path: Path
    kind: str
    frames: tuple[int, ...]
    captions: tuple[str, ...]
    files: tuple[Path, ...]

    def __len__(self) -> int:
        return len(self.frames)

    def __repr__(self) -> str:
        return f"<planviz.Animation ({self.kind}): {len(self.frames)} frames written to {str(self.path)!r}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle: dict[str, Any] = {"text/plain": repr(self)}
        if self.kind == "gif" and self.path.is_file():
            bundle["image/gif"] = base64.b64encode(self.path.read_bytes()).decode("ascii")
        return bundle


def animate(run: Run, path: str | os.PathLike[str], *, frames: Iterable[int] | None = None,
            seconds: float = 1.5, dpi: float = 96.0) -> Animation:
    """Write the frames of ``run`` to ``path`` as a GIF (``.gif``), an HTML flipbook (``.html``) or a folder
    of PNG frames (a path without a suffix); returns the :class:`Animation`.

    ``frames`` picks event indices (default: every event; negative ones count
    from the end); ``seconds`` is how long each frame shows; ``dpi`` sets
    the resolution of PNG and GIF frames. In a notebook the returned GIF
    animation shows itself.
    """
    expect_type(run, Run, "animate", "run", "a planviz Run", "simulate a plan or load a trace first")
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
    if not run.events:
        raise PlanvizError("this run has no events, so there is nothing to animate; simulate or record one first")
    if not run.plans:
        raise PlanvizError("this run carries no plan, so its frames cannot be drawn; record the plan with the run")
    indices = _indices(run, frames)
    diagrams = [render(run.plans[-1], run=run, at=i) for i in indices]
    captions = tuple(event_caption(run.events[i], i, run, run.plan_at(i) or run.plans[-1]) for i in indices)
    if kind == "gif":
        files = (_write(path, _gif([d.png(dpi) for d in diagrams], seconds)),)
    elif kind == "html":
        goal = run.plans[0].goal
        files = (_write(path, _flipbook(goal, diagrams, captions, seconds).encode("utf-8")),)
    else:
        path.mkdir(parents=True, exist_ok=True)
        names = [f"frame-{k:03d}.png" for k in range(len(indices))]
        files = tuple(_write(path / name, d.png(dpi)) for name, d in zip(names, diagrams))
        listing = "".join(f"{name}\t{caption}\n" for name, caption in zip(names, captions))
        files += (_write(path / "captions.txt", listing.encode("utf-8")),)
    return Animation(path, kind, indices, captions, files)


def _indices(run: Run, frames: Iterable[int] | None) -> tuple[int, ...]:
    n = len(run.events)
    if frames is None:
        return tuple(range(n))
    expect_type(frames, Iterable, "animate", "frames", "an iterable of event indices such as range(0, 10)")
    out = []
    for i in frames:
        if isinstance(i, bool) or not isinstance(i, int) or not -n <= i < n:
            raise RenderError(f"animate(frames=...) holds {i!r}, which is not an event of this run; choose 0..{n - 1}")
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


def _gif(pngs: list[bytes], seconds: float) -> bytes:
    """An animated GIF of PNG frames on a white canvas as large as the largest frame (versions differ in size).

    One palette for every frame (Pillow's max-coverage quantiser, no
    dithering, built from every frame subsampled to a few million pixels), so
    white stays white, the look colours stay exact and Pillow can store each
    frame as what changed since the previous one.
    """
    from PIL import Image  # Pillow encodes the GIF (palette, LZW); imported only when a GIF is asked for

    sizes = [Image.open(io.BytesIO(png)).size for png in pngs]
    size = (max(w for w, _ in sizes), max(h for _, h in sizes))
    step = max(1, math.ceil(math.sqrt(len(pngs) * size[0] * size[1] / _PALETTE_PIXELS)))
    small = (max(1, size[0] // step), max(1, size[1] // step))
    sheet = Image.new("RGB", (small[0], small[1] * len(pngs)), "white")
    for k, png in enumerate(pngs):
        sheet.paste(_canvas(Image, png, size).resize(small, Image.Resampling.NEAREST), (0, k * small[1]))
    palette = sheet.quantize(colors=255, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE)
    frames = [_canvas(Image, png, size).quantize(palette=palette, dither=Image.Dither.NONE) for png in pngs]
    shown = round(seconds * 1000)
    durations = [shown] * (len(frames) - 1) + [shown * _HOLD_LAST]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0)
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


def _flipbook(goal: str, diagrams: list[Diagram], captions: tuple[str, ...], seconds: float) -> str:
    """The flipbook page: one figure per frame, shown in turn by CSS alone (no script)."""
    n = len(diagrams)
    figures = "\n".join(
        f'<figure class="pv-frame" id="frame-{k}" style="animation-delay: {k * seconds:g}s">'
        f'{_PROLOG.sub("", d.svg, count=1)}<figcaption>{html.escape(caption)}</figcaption></figure>'
        for k, (d, caption) in enumerate(zip(diagrams, captions)))
    title = html.escape(f"planviz animation: {goal}")
    label = html.escape(f"{n} frames of a run, {seconds:g} s each; hover to pause")
    return _PAGE.format(title=title, total=f"{n * seconds:g}", share=f"{100 / n:.6g}", label=label,
                        figures=figures)
