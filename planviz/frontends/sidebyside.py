"""Two runs side by side in a notebook, one stepper driving both: ``compare_runs(a, b)``.

The two-run explorer shows run ``a`` and run ``b`` (two traces of one task,
or a trace and a simulation of its plan) at the same event index: both
diagrams, both captions, and what :func:`planviz.diff_runs` found (the first
divergence, steps in one run only, changed steps, time and cost). It opens at
the first divergence. Pictures come from :mod:`planviz.frontends.panels`,
laid out once per plan version, so a step only recolours two pictures.

It is scriptable, like the explorer:

>>> from planviz import Fault, examples, simulate
>>> plan = examples.load("cache_isolation")
>>> view = compare_runs(simulate(plan), simulate(plan, faults=[Fault("S4", "side_effect")]))
>>> view.index, view.diff.first_divergence, len(view.svgs)
(10, 10, 2)
>>> view.index = 0; view.back.disabled
True
"""

from __future__ import annotations

from html import escape

import ipywidgets as w

from ..errors import PlanvizTypeError
from ..runs.events import Run, expect_run
from ..runs.rundiff import RunDiff, diff_runs
from .panels import SliderIndex, caption_html, event_row, frame_svg

__all__ = ["compare_runs", "RunComparison"]

_STYLE = """<style>
.planviz-compare { font-family: var(--jp-ui-font-family, system-ui, sans-serif); }
.planviz-compare .pv-title { margin: 0; font-size: 1.05rem; font-weight: 600; }
.planviz-compare .pv-side { border: 1px solid #ddd; background: #fff; padding: 4px; box-sizing: border-box; }
.planviz-compare .pv-side svg { max-width: 100%; max-height: 420px; width: auto; height: auto; display: block; }
.planviz-compare .pv-caption { font-size: 12px; }
.planviz-compare .pv-diverged { background: #fbe3d6; font-weight: 600; padding: 0 4px; }
.planviz-compare pre { font-size: 12px; margin: 0; white-space: pre-wrap; }
</style>"""


def compare_runs(a: Run, b: Run, *, labels: tuple[str, str] = ("a", "b")) -> RunComparison:
    """Open two runs side by side with one stepper; ``labels`` name them (default ``a`` and ``b``)."""
    return RunComparison(a, b, labels=labels)


class RunComparison(SliderIndex, w.VBox):
    """The two-run explorer (an ``ipywidgets.VBox``); build it with :func:`compare_runs`.

    Scripting API: :attr:`runs`, :attr:`diff` (the :class:`~planviz.RunDiff`),
    :attr:`index` (settable; each side shows its last event once it has
    ended), :attr:`svgs` (the two pictures shown now), and the controls
    ``back``, ``forward``, ``play``, ``slider``, ``divergence_button``.
    """

    def __init__(self, a: Run, b: Run, *, labels: tuple[str, str] = ("a", "b")) -> None:
        for name, run in (("a", a), ("b", b)):
            expect_run(run, "compare_runs", name)
            if not run.events or not run.plans:
                raise PlanvizTypeError(f"compare_runs({name}=...) needs a run with a plan and events")
        self._runs = (a, b)
        self._labels = tuple(str(x) for x in labels)
        self._diff = diff_runs(a, b)
        self._frames: list[dict[int, str]] = [{}, {}]
        n = max(len(a.events), len(b.events))
        self.back = w.Button(description="Back", icon="step-backward", layout=w.Layout(width="auto"))
        self.forward = w.Button(description="Step", icon="step-forward", layout=w.Layout(width="auto"))
        self.play = w.Play(value=0, min=0, max=n - 1, interval=900, description="Play", show_repeat=False)
        self.slider = w.IntSlider(value=0, min=0, max=n - 1, description="Event", layout=w.Layout(flex="1 1 auto"))
        w.link((self.play, "value"), (self.slider, "value"))
        self.divergence_button = w.Button(description="First divergence", icon="code-branch",
                                          disabled=self._diff.first_divergence is None,
                                          tooltip="Jump to the first event where the runs differ",
                                          layout=w.Layout(width="auto"))
        for widget, name in ((self.back, "back"), (self.forward, "forward"),
                             (self.divergence_button, "divergence")):
            widget.add_class(f"planviz-compare-{name}")
        self.back.on_click(lambda _: self._step(-1))
        self.forward.on_click(lambda _: self._step(+1))
        self.divergence_button.on_click(lambda _: self._jump())
        self.slider.observe(lambda change: self._show(change["new"]), names="value")
        self.captions = (w.HTML(), w.HTML())
        self.diagrams = (w.HTML(), w.HTML())
        sides = []
        for k in range(2):
            self.diagrams[k].add_class("pv-side")
            self.diagrams[k].add_class(f"planviz-side-{k}")
            self.captions[k].add_class(f"planviz-caption-{k}")
            sides.append(w.VBox([self.captions[k], self.diagrams[k]], layout=w.Layout(width="50%", min_width="0")))
        self.summary = w.HTML(f"<pre>{escape(self._diff.to_text())}</pre>")
        title = w.HTML(self._title_html())
        stepper = w.HBox([self.back, self.play, self.forward, self.slider, self.divergence_button],
                         layout=w.Layout(align_items="center"))
        super().__init__(children=[w.HTML(_STYLE), title, stepper, w.HBox(sides), self.summary],
                         layout=w.Layout(max_width="1400px"))
        self.add_class("planviz-compare")
        start = self._diff.first_divergence or 0
        self.slider.value = start
        self._show(start)

    @property
    def runs(self) -> tuple[Run, Run]:
        return self._runs

    @property
    def diff(self) -> RunDiff:
        return self._diff


    @property
    def svgs(self) -> tuple[str, str]:
        """The two pictures shown now."""
        return tuple(self._frame(k, self._at(k, self.index)) for k in range(2))

    def __repr__(self) -> str:
        return (f"<planviz RunComparison: event {self.index}, first divergence {self._diff.first_divergence}, "
                f"outcomes {self._diff.outcomes}>")

    def _at(self, k: int, index: int) -> int:
        return min(index, len(self._runs[k].events) - 1)

    def _frame(self, k: int, i: int) -> str:
        cache = self._frames[k]
        if i not in cache:
            if len(cache) >= 32:
                del cache[next(iter(cache))]
            cache[i] = frame_svg(self._runs[k], i)
        return cache[i]

    def _step(self, delta: int) -> None:
        self.slider.value = max(0, min(self.slider.max, self.slider.value + delta))

    def _jump(self) -> None:
        if self._diff.first_divergence is not None:
            self.slider.value = min(self._diff.first_divergence, self.slider.max)

    def _show(self, index: int) -> None:
        diverged = self._diff.first_divergence is not None and index >= self._diff.first_divergence
        for k, run in enumerate(self._runs):
            i = self._at(k, index)
            row = event_row(run, i)
            note = "" if i == index else f" (ended at event {i})"
            flag = (' <span class="pv-diverged">diverged</span>' if diverged and index == self._diff.first_divergence
                    else "")
            self.captions[k].value = (f"<b>{escape(self._labels[k])}</b>{flag}{escape(note)}<br>"
                                      f"{caption_html(row, len(run.events), run.plans[0].time_unit)}")
            self.diagrams[k].value = self._frame(k, i)
        self.back.disabled = index == 0
        self.forward.disabled = index >= self.slider.max

    def _title_html(self) -> str:
        a, b = self._runs
        la, lb = (escape(x) for x in self._labels)
        return (f'<p class="pv-title">{escape(a.plans[0].goal)}</p><p>{la}: {escape(str(a.outcome))} &middot; '
                f'{lb}: {escape(str(b.outcome))} &middot; first divergence: '
                f'{self._diff.first_divergence if self._diff.first_divergence is not None else "none"}</p>')
