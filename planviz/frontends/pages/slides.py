"""A run as frames for slides: :func:`animate` writes an animated GIF, a flipbook page, or a folder of PNG frames.

The frames are chosen, captioned and (for a GIF or PNGs) drawn in
:mod:`planviz.pictures.animation`; this module adds the one output that is a
page, the HTML flipbook, and is where :func:`planviz.animate` lives (a page
is a front end's: stage 6).

- ``run.gif``: an animated GIF that loops, one frame per event, the last held
  longer; paste it into slides or an issue.
- ``run.html``: a flipbook, the front end's one offline page
  (:func:`planviz.frontends.runpage.flipbook_page`, the shell of
  :func:`planviz.report_html`): the same module plays the chosen frames by
  itself in a loop, ``seconds`` each, and holds the last one longer; it pauses
  while the pointer is over the pictures, and the reader can step, pause,
  click a step for its details or search. It needs no network and no plug-in.
  Without script its no-script view is the flipbook drawn by CSS alone: the
  frames shown in turn, paused under the pointer, all listed when printed or
  when the reader asks for reduced motion (then the script does not play
  either).
- ``frames`` (no suffix): a folder of ``frame-000.png``... and
  ``captions.txt``, one frame per line, for slides built by hand.

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

import os
from typing import Any, Iterable, Mapping, Sequence

from planviz.frontends.runpage import flipbook_figures, flipbook_page, svg_size
from planviz.frontends.snapshot import pair_snapshot
from planviz.io.output import write_output
from planviz.pictures.animation import (
    HOLD_LAST,
    Animation,
    Frames,
    choose_frames,
    clock_text,
    frame_diagrams,
    write_raster,
)
from planviz.pictures.montage import arrangement
from planviz.runs.events import Run
from planviz.runs.summary.runsummary import run_summary

__all__ = ["animate", "flipbook_snapshot"]


def animate(
    run: Run | Sequence[Run] | Mapping[str, Run],
    path: str | os.PathLike[str],
    *,
    frames: Iterable[int] | None = None,
    seconds: float = 1.5,
    dpi: float = 96.0,
) -> Animation:
    """Write the frames of ``run`` to ``path`` as a GIF (``.gif``), an HTML flipbook (``.html``) or a folder
    of PNG frames (a path without a suffix); returns the :class:`~planviz.Animation`.

    ``run`` may be several runs (a list, or a mapping from label to run),
    drawn side by side on one clock. ``frames`` picks frames (default: all;
    negative ones count from the end): event indices of one run, or ticks of
    the shared clock for several; ``seconds`` is how long each frame shows;
    ``dpi`` sets the resolution of PNG and GIF frames. In a notebook the
    returned GIF animation shows itself. The flipbook is the front end's
    offline page playing the frames in a loop (see :mod:`planviz.frontends.pages.slides`).

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
    chosen = choose_frames(run, path, frames, seconds, dpi)
    if chosen.kind != "html":
        return write_raster(chosen)
    held = [run_summary(r) for r in chosen.runs]  # noqa: F841 (the frames and the snapshots share each run's)
    diagrams = frame_diagrams(chosen)
    how = arrangement([svg_size(d.svg) for d in diagrams[0]]) if len(chosen.runs) > 1 else "row"
    figures = flipbook_figures(
        [[d.svg for d in frame] for frame in diagrams],
        chosen.heads,
        chosen.captions,
        how,
        chosen.seconds,
    )
    write_output(chosen.path, flipbook_page(flipbook_snapshot(chosen, how), figures))
    return chosen.animation((chosen.path,))


def flipbook_snapshot(chosen: Frames, how: str = "row") -> dict[str, Any]:
    """What the front end plays in a flipbook: the runs' snapshots, the event of each run at each chosen frame,
    a line per frame (its number, and the shared clock of several runs), the pace (``autoplay``) and whether
    several runs sit in a row or a column (``arrange``)."""
    n, many = len(chosen.ticks), len(chosen.runs) > 1
    notes = [
        f"frame {k + 1} of {n}" + (f" · {clock_text(chosen.runs, tick)}" if many else "")
        for k, tick in enumerate(chosen.ticks)
    ]
    snap = pair_snapshot(chosen.runs, chosen.labels, chosen.ticks, notes)
    snap.update(
        {
            "autoplay": {"ms": max(1, round(chosen.seconds * 1000)), "hold": HOLD_LAST},
            "arrange": how,
            "start": 0,
            "goal": chosen.runs[0].plans[0].goal,
        }
    )
    return snap
