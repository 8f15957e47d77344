"""The offline HTML report: one self-contained file that steps through a run.

``report_html(run, path)`` writes a page that runs planviz's one front end
(``explorer.js``, the explorer widget's own ES module, inlined) against a
small local stand-in for the widget's model holding the run's snapshot
(:mod:`planviz.frontends.snapshot`): the picture of the run with its legend
beside it, a stepper (first/back/play/step/last, a slider, arrow keys,
Home/End, space), the caption, the details of a step on click, search, zoom,
the event log, the facts held and the ready set, a timeline of the run against
the critical path and the metrics. "Fit width" (the default) shrinks a wide
picture to the page, but never its text below 9 pixels; zoom in to read more.
It needs no kernel and no network: no CDN, no external file; a restrictive
Content-Security-Policy allows only the page's own inline script (by its
sha256 hash), inline styles and ``data:`` images (the shell:
:mod:`planviz.frontends.page`).

Each plan version is laid out once; the module steps through the frames by
restyling nodes from a compact per-event delta table
(:mod:`planviz.frontends.deltatable`), so the page grows with the run's events
plus one picture per plan version, not with events x steps. Without script
the page is a static report of the run's last frame (a long run's last log
rows). An unfinished run (a trace whose agent stopped before ``stop``) shows
as ``unfinished``, drawn where it stopped. All data travels as columns
(:mod:`planviz.frontends.pagedata`, its JSON Schema beside it), gzipped in
base64, so plan text containing ``</script>`` cannot end the block.

>>> import tempfile, pathlib
>>> from planviz import examples, simulate, Fault
>>> run = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
>>> out = report_html(run, pathlib.Path(tempfile.mkdtemp()) / "run.html")
>>> text = out.read_text(encoding="utf-8")
>>> "Content-Security-Policy" in text and "https://" not in text
True
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from planviz.errors import PlanvizTypeError, expect_type, show_value
from planviz.frontends.pages.pairreport import pair_report
from planviz.frontends.runpage import run_page
from planviz.frontends.snapshot import run_snapshot
from planviz.io.output import write_output
from planviz.plan.bulk import paused_gc
from planviz.runs.engine.machine import ProgressCallback
from planviz.runs.events import Run, expect_run

__all__ = ["report_html"]


def report_html(
    run: Run | Sequence[Run], path: str | Path, *, progress: ProgressCallback | None = None
) -> Path:
    """Write ``run`` as one self-contained HTML page at ``path``; returns the path.

    The page works opened from disk with no kernel and no network. ``run`` may
    also be a pair ``[a, b]``: the two-run report (:mod:`planviz.frontends.pages.pairreport`).
    ``progress(what, done, total)`` hears of the work on long runs (the
    command line shows it on a terminal).

    Parameters
    ----------
    run : Run or [Run, Run]
        The run to step through, or two runs to compare on one stepper.
    path : str or Path
        Where to write the page.
    progress : callable, optional
        ``progress(what, done, total)``, told of each layout and of every 256 frames.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    PlanvizError
        When the run has no events (nothing to step through).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from planviz import examples, simulate
    >>> report_html(simulate(examples.load("cache_isolation")), pathlib.Path(tempfile.mkdtemp()) / "r.html").suffix
    '.html'
    """
    if not isinstance(run, (list, tuple)):
        run = expect_run(run, "report_html")
    expect_type(
        path, (str, os.PathLike), "report_html", "path", "a file path (a str or a pathlib.Path)"
    )
    if progress is not None and not callable(progress):
        raise PlanvizTypeError(
            f"report_html(progress=...) expects None or a callable (what, done, total), got "
            f"{type(progress).__name__} {show_value(progress)}"
        )
    # the report is many small acyclic containers: spare the collector full-heap passes
    with paused_gc():
        if isinstance(run, (list, tuple)):
            return pair_report(run, path)
        path = Path(path)
        snap = run_snapshot(run, progress=progress, legend=False)
        write_output(path, run_page(snap))
    return path
