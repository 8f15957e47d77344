"""Several runs side by side on one clock: which event of each run a shared frame shows, and the panels.

:func:`planviz.animate` given several runs (direct, workflow and planner on
the same fault, say) draws one frame per tick of a shared clock. The ticks
are the runs' event times in order; at a time where some run has several
events (a failure, the voiding, the replan and a new start all at t = 29),
the tick repeats so each of them gets a frame, while a run with fewer events
at that time holds its last one. A run that has finished holds its last
event. So a frame compares the runs at the same moment, and no run skips an
event.

>>> from planviz import Fault, examples, simulate
>>> plan = examples.load("cache_isolation")
>>> runs = [simulate(plan, faults=[Fault("S4", "side_effect")], strategy=s) for s in ("workflow", "planner")]
>>> ticks = clock_ticks(runs)
>>> ticks[0], ticks[-1] == (len(runs[0].events) - 1, len(runs[1].events) - 1)
((0, 0), True)
>>> arrangement([(1200, 500)] * 3), arrangement([(300, 600)] * 3)
('column', 'row')
"""

from __future__ import annotations

import itertools
import math
from bisect import bisect_left, bisect_right
from typing import Any, Sequence

from planviz.runs.events import Run

__all__ = ["clock_ticks", "arrangement", "compose", "LABEL_HEIGHT"]

LABEL_HEIGHT = 34  # pixels above each panel for its label
_SLIDE = 16 / 9


def clock_ticks(runs: Sequence[Run]) -> tuple[tuple[int, ...], ...]:
    """Per tick of the shared clock, the event index each run shows (see the module's docstring).

    A recorded clock that goes back is read as standing still (its running maximum).
    """
    times = [list(itertools.accumulate((float(e.time) for e in run.events), max)) for run in runs]
    ticks: list[tuple[int, ...]] = []
    for t in sorted({t for ts in times for t in ts}):
        # each run's events at time t
        spans = [(bisect_left(ts, t), bisect_right(ts, t)) for ts in times]
        for k in range(max(hi - lo for lo, hi in spans)):
            ticks.append(
                tuple(min(lo + k, hi - 1) if hi > lo else max(hi - 1, 0) for lo, hi in spans)
            )
    return tuple(ticks)


def arrangement(sizes: Sequence[tuple[float, float]]) -> str:
    """``"row"`` or ``"column"``: whichever puts the panels (width, height) closest to a 16:9 slide."""
    width, height = max(w for w, _ in sizes), max(h for _, h in sizes) + LABEL_HEIGHT
    n = len(sizes)
    row, column = (n * width) / height, width / (n * height)
    return "row" if abs(math.log(row / _SLIDE)) <= abs(math.log(column / _SLIDE)) else "column"


def compose(
    Image: Any,
    ImageDraw: Any,
    font: Any,
    panels: Sequence[Any],
    labels: Sequence[str],
    cell: tuple[int, int],
    how: str,
    strip: int = LABEL_HEIGHT,
) -> Any:
    """One RGB image: each panel (a PIL image) under its label (a ``strip`` pixels high), in a row or a
    column of ``cell``-sized cells."""
    w, h = cell[0], cell[1] + strip
    n = len(panels)
    out = Image.new("RGB", (w * n, h) if how == "row" else (w, h * n), "white")
    draw = ImageDraw.Draw(out)
    for k, (panel, label) in enumerate(zip(panels, labels)):
        x, y = (k * w, 0) if how == "row" else (0, k * h)
        draw.text((x + 12, y + strip // 5), label, fill="black", font=font)
        if k:  # a rule between panels
            draw.line(
                [(x, y), (x, y + h)] if how == "row" else [(x, y), (x + w, y)],
                fill="#999999",
                width=2,
            )
        out.paste(panel, (x, y + strip))
    return out
