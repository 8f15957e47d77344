"""The two-run HTML report: ``report_html([a, b], path)``, one self-contained page, one stepper driving both.

The page runs planviz's one front end (``explorer.js``) in its two-run mode:
run ``a`` and run ``b`` at the same event index, side by side (each side
keeps its last frame once its run has ended), with what
:func:`planviz.diff_runs` found (first divergence, steps in one run only,
changed steps, time and cost) in the note above them. Like the one-run report
it needs no kernel and no network, and each run is its snapshot
(:func:`~planviz.frontends.snapshot.pair_snapshot`): one picture per plan
version plus what each event changes, so the page grows with the runs'
events, not with events x steps.

>>> import tempfile, pathlib
>>> from planviz import Fault, examples, simulate
>>> plan = examples.load("cache_isolation")
>>> out = pair_report([simulate(plan), simulate(plan, faults=[Fault("S4", "side_effect")])],
...                   pathlib.Path(tempfile.mkdtemp()) / "pair.html")
>>> text = out.read_text(encoding="utf-8")
>>> "first divergence: event 10" in text and "https://" not in text
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from planviz.errors import PlanvizError, PlanvizTypeError
from planviz.frontends.runpage import pair_page
from planviz.frontends.snapshot import pair_snapshot
from planviz.io.output import write_output
from planviz.runs.events import Run
from planviz.runs.summary.runsummary import pair_diff, run_summary

__all__ = ["pair_report", "pair_ticks"]


def pair_ticks(runs: Sequence[Run], diff: Any) -> tuple[list[list[int]], list[str]]:
    """The event of each run at each tick of the shared stepper (a run that ended stays at its last event), and
    each tick's note (where the runs first diverge, and the whole diff there)."""
    n = max(len(r.events) for r in runs)
    ticks = [[min(i, len(r.events) - 1) for r in runs] for i in range(n)]
    first = diff.first_divergence
    notes = [
        (
            "first divergence: event " + str(first)
            if i == first
            else f"same so far (they first diverge at event {first})"
            if first is not None and i < first
            else f"after the first divergence (event {first})"
            if first is not None
            else "the runs never diverge"
        )
        for i in range(n)
    ]
    return ticks, notes


def pair_report(runs: Sequence[Any], path: str | Path, labels: Sequence[str] = ("a", "b")) -> Path:
    """Write two runs as one self-contained HTML page at ``path``; returns the path."""
    runs = list(runs)
    if len(runs) != 2 or not all(isinstance(r, Run) for r in runs):
        raise PlanvizTypeError(
            f"report_html([a, b], path) compares exactly two planviz Runs, got "
            f"{len(runs)} item(s): {', '.join(type(r).__name__ for r in runs)}"
        )
    for label, run in zip(labels, runs):
        if not run.events or not run.plans:
            raise PlanvizError(
                f"run {label} has no events or no plan, so there is nothing to step through"
            )
    # held while the page is made: the diff and snapshots share them
    summaries = [run_summary(r) for r in runs]
    diff = pair_diff(*summaries)
    ticks, notes = pair_ticks(runs, diff)
    snap = pair_snapshot(runs, [str(x) for x in labels], ticks, notes)
    snap["diff"] = diff.to_text()
    snap["start"] = diff.first_divergence or 0
    path = Path(path)
    write_output(path, pair_page(snap))
    return path
