"""Two runs side by side in a notebook, one stepper driving both: ``side_by_side(a, b)``.

The two-run explorer shows run ``a`` and run ``b`` (two traces of one task,
or a trace and a simulation of its plan) at the same event index: both
diagrams, both captions, and what :func:`planviz.diff_runs` found (the first
divergence, steps in one run only, changed steps, time and cost). It opens at
the first divergence. It is the front end's widget (:mod:`planviz.frontends.widget.widget`)
in its two-run mode, on the same snapshot as the two-run report: each run laid
out once per plan version, stepped in the browser.

It is scriptable, like the explorer:

>>> from planviz import Fault, examples, simulate
>>> plan = examples.load("cache_isolation")
>>> view = side_by_side(simulate(plan), simulate(plan, faults=[Fault("S4", "side_effect")]))
>>> view.index, view.diff.first_divergence, len(view.svgs)
(10, 10, 2)
>>> view.index = 0; view.captions[1].startswith("Event 0 of")
True
"""

from __future__ import annotations

from planviz.errors import PlanvizTypeError, expect_type
from planviz.frontends.pages.pairreport import pair_ticks
from planviz.frontends.panels import caption_text, frame_svg
from planviz.frontends.snapshot import pair_snapshot
from planviz.frontends.widget.widget import FrontEnd
from planviz.runs.comparisons.rundiff import RunDiff
from planviz.runs.events import Run, expect_run
from planviz.runs.summary.runsummary import pair_diff, run_summary

__all__ = ["side_by_side", "SideBySide"]


def side_by_side(a: Run, b: Run, *, labels: tuple[str, str] = ("a", "b")) -> SideBySide:
    """Open two runs side by side with one stepper; ``labels`` name them (default ``a`` and ``b``).

    Parameters
    ----------
    a, b : Run
        The two runs (recorded or simulated).
    labels : tuple of two str
        How the views name them.

    Returns
    -------
    SideBySide
        Both runs side by side with one stepper, starting from their first divergence.

    Raises
    ------
    PlanvizTypeError
        When ``a`` or ``b`` is not a Run with a plan and events.

    Examples
    --------
    >>> from planviz import Fault, examples, simulate
    >>> plan = examples.load("cache_isolation")
    >>> view = side_by_side(simulate(plan), simulate(plan, faults=[Fault("S4", "side_effect")]))
    >>> type(view).__name__
    'SideBySide'
    """
    return SideBySide(a, b, labels=labels)


class SideBySide(FrontEnd):
    """The two-run explorer (an ``anywidget.AnyWidget``); build it with :func:`side_by_side`.

    Scripting API: :attr:`runs`, :attr:`diff` (the :class:`~planviz.RunDiff`),
    :attr:`index` (settable, synced with the browser; each side shows its last
    event once it has ended), :attr:`svgs` and :attr:`captions` (of the two
    frames shown now), :meth:`play`.
    """

    def __init__(self, a: Run, b: Run, *, labels: tuple[str, str] = ("a", "b")) -> None:
        for name, run in (("a", a), ("b", b)):
            expect_run(run, "side_by_side", name)
            if not run.events or not run.plans:
                raise PlanvizTypeError(
                    f"side_by_side({name}=...) needs a run with a plan and events"
                )
        self._runs = (a, b)
        self._labels = tuple(
            str(x)
            for x in expect_type(
                labels,
                (tuple, list),
                "side_by_side",
                "labels",
                "two names, such as ('before', 'after')",
            )
        )
        # held while shown: every view of the runs shares them
        self._summaries = (
            run_summary(a),
            run_summary(b),
        )
        self._diff = pair_diff(*self._summaries)
        self._ticks, notes = pair_ticks(self._runs, self._diff)
        super().__init__()
        snap = pair_snapshot(self._runs, self._labels, self._ticks, notes)
        snap["diff"] = self._diff.to_text()
        snap["start"] = self._diff.first_divergence or 0
        with self.hold_sync():
            self.mode = f"{self._labels[0]}: {a.outcome} · {self._labels[1]}: {b.outcome}"
            self.snapshot = snap
            self.index = snap["start"]

    def _event_count(self) -> int:
        return len(self._ticks)

    @property
    def runs(self) -> tuple[Run, Run]:
        return self._runs

    @property
    def diff(self) -> RunDiff:
        return self._diff

    @property
    def svgs(self) -> tuple[str, str]:
        """The two pictures shown now (drawn here by :func:`planviz.render`, as the browser shows them)."""
        (first, second), (at_first, at_second) = self._runs, self._ticks[self.index]
        return frame_svg(first, at_first, legend=False), frame_svg(second, at_second, legend=False)

    @property
    def captions(self) -> tuple[str, str]:
        """The two captions shown now, as the browser writes them."""
        (first, second), (at_first, at_second) = self._runs, self._ticks[self.index]
        return caption_text(first, at_first), caption_text(second, at_second)

    def __repr__(self) -> str:
        return (
            f"<planviz SideBySide: event {self.index}, first divergence {self._diff.first_divergence}, "
            f"outcomes {self._diff.outcomes}>"
        )
