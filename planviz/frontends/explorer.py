"""The explorer: step through a run, inject faults and see what they void, in a notebook.

``explore(plan)`` simulates the plan and opens an ipywidgets app: the diagram
of the current frame with a legend beside it that lists only the looks on
screen (so the picture keeps its space), a stepper (back, play, forward, a slider over the
events), a fault panel (step, kind, fact, times; Inject re-simulates with the
fault and jumps to the frame where it voids work) and tabs for the event log,
the facts held, the ready set, a timeline of the run against the critical path
and the metrics. ``replay(trace)`` opens the same view on a recorded run.

The explorer only composes: simulation, analysis, metrics and pictures come
from :mod:`planviz.runs`, :mod:`planviz.analysis` and :mod:`planviz.pictures`
(whose layout is computed once per plan version, so
a step only recolours a laid-out picture). A step updates the diagram, the
caption and the panels whose text changed; hidden tabs update when shown.
Everything put into an HTML widget is escaped (plan text is untrusted); the
diagram is render's SVG, which render has already sanitised. Big plans show
render's default focused view; the view controls (:mod:`.viewpanel`) change it.

It is scriptable, for notebooks and tests:

>>> from planviz import examples, Fault
>>> ex = explore(examples.load("cache_isolation"))
>>> ex.run.outcome
'plan_complete'
>>> ex.index = 0
>>> ex.index, ex.forward.disabled, ex.back.disabled
(0, False, True)
>>> _ = ex.inject(Fault("S4", "side_effect"))
>>> 'status-invalidated' in ex.svg
True
>>> ex.focus_on("S3", hops=1).steps
('S1', 'S2', 'S3', 'S4')
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any, Iterable

import ipywidgets as w

from ..analysis.schedule import critical_path
from ..errors import PlanvizError, PlanvizTypeError, show_value
from ..plan.arguments import expect_contract, expect_plan
from ..pictures.gantt import gantt_svg
from ..runs.fault import FAULT_KINDS, Fault
from ..runs.simulation import simulate
from ..runs.tracefile import load_trace
from .panels import (
    SliderIndex,
    alignment_html,
    caption_html,
    event_row,
    fault_html,
    frame_diagram,
    inline_svg,
    legend_html,
    list_html,
    log_html,
    metrics_html,
    outcome_label,
)
from .viewpanel import ViewHooks, ViewPanel

__all__ = ["explore", "replay", "Explorer"]

_FRAME_CACHE = 32  # frames kept drawn (a big plan's frame is ~1 MB of SVG)
_TABS = ("Event log", "Facts", "Ready", "Timeline", "Metrics", "Alignment")

_STYLE = """<style>
.planviz-explorer { font-family: var(--jp-ui-font-family, system-ui, sans-serif); }
.planviz-explorer .pv-title { margin: 0; font-size: 1.05rem; font-weight: 600; }
.planviz-explorer .pv-sub { margin: 0; color: #555; font-size: 0.85rem; }
.planviz-explorer .pv-badge { font-weight: 600; padding: 0 5px; border-radius: 3px; }
.planviz-explorer .pv-ok { background: #d6eaf8; } .planviz-explorer .pv-bad { background: #fbe3d6; }
.planviz-explorer .widget-html-content { line-height: 1.4; }
.planviz-diagram { border: 1px solid #ddd; background: #fff; box-sizing: border-box; }
.planviz-diagram g.focus > path, .planviz-diagram g.focus > polygon { stroke-width: 5px; }
/* the whole picture fits the panel (no inner scrolling), keeping its proportions */
.planviz-diagram .pv-frame svg { max-width: 100%; max-height: 450px; width: auto; height: auto;
  display: block; }
.planviz-explorer table.pv-log { border-collapse: collapse; font-size: 12px; width: 100%; }
.planviz-explorer table.pv-log td, .planviz-explorer table.pv-log th { padding: 1px 6px; text-align: left;
  border-bottom: 1px solid #eee; vertical-align: top; }
.planviz-explorer tr.pv-current { background: #fff3c4; font-weight: 600; }
.planviz-explorer tr:is(.pv-kind-recheck, .pv-kind-expand, .pv-kind-approval) td:nth-child(3) { color: #0072B2; }
.planviz-explorer ul.pv-list { margin: 0; padding-left: 18px; font-size: 12px; }
.planviz-explorer .pv-empty { color: #777; font-style: italic; margin: 0 0 2px; }
.planviz-explorer .pv-caption { font-size: 13px; }
.planviz-explorer .pv-scope { font-size: 12px; }
.planviz-explorer .pv-error { color: #b03000; }
</style>"""


def explore(plan: Any, contract: Any = None, faults: Iterable[Any] = (), *, workers: int | None = None,
            strategy: str = "planner", **options: Any) -> Explorer:
    """Simulate ``plan`` (with ``faults``) and open the explorer on the run.

    ``contract`` defaults to the plan's own (``plan.contract``); a fault is a
    :class:`planviz.Fault` or its command-line spelling (``"S4:side_effect"``).
    With faults, the view opens where the first one voids work. ``options``
    go to :func:`planviz.simulate` (``expand=``, ``approval_time=``, ``propose=``).
    """
    plan = expect_plan(plan, "explore")
    contract = expect_contract(contract, "explore")
    return Explorer(plan=plan, contract=contract, faults=faults, workers=workers, strategy=strategy, **options)


def replay(trace: Any, plan: Any = None) -> Explorer:
    """Open the explorer on a recorded run: a trace file (planviz JSON Lines, OpenTelemetry spans, a LangGraph
    history) or a :class:`planviz.Run`.

    Injecting a fault turns it into a what-if simulation of the recorded plan;
    ``clear_faults()`` brings the recorded run back. With ``plan`` (the plan
    the agent declared), the Alignment tab shows what became of each of its steps.
    """
    if isinstance(trace, (str, Path)):
        trace = load_trace(trace)
    if not hasattr(trace, "events"):
        raise PlanvizTypeError(f"replay(trace=...) expects a trace path or a planviz Run, got "
                               f"{type(trace).__name__} {show_value(trace, 80)}")
    return Explorer(recorded=trace, declared=plan)


class Explorer(SliderIndex, ViewHooks, w.VBox):
    """The explorer app (an ``ipywidgets.VBox``); build it with :func:`explore` or :func:`replay`.

    Scripting API: :attr:`run`, :attr:`index` (settable), :meth:`inject`,
    :meth:`clear_faults`, :attr:`faults`, :attr:`svg`; for the view :meth:`focus_on`,
    :meth:`auto_view`, :meth:`whole_plan`, :attr:`view`, :attr:`notice`. The controls
    are attributes too (``back``, ``forward``, ``play``, ``slider``, ``fault_step``,
    ``fault_kind``, ``fault_fact``, ``fault_times``, ``inject_button``, ``clear_button``,
    ``tabs``, ``view_panel``) so a test can drive it as a user would.
    """

    def __init__(self, *, plan: Any = None, contract: Any = None, faults: Iterable[Any] = (),
                 recorded: Any = None, workers: int | None = None, strategy: str = "planner",
                 declared: Any = None, **options: Any) -> None:
        if plan is None and recorded is None:
            raise PlanvizError("explorer needs a plan (explore(plan)) or a recorded run (replay(trace))")
        if recorded is not None and not recorded.plans:
            raise PlanvizError("this recorded run carries no plan, so it cannot be drawn; "
                               "record the plan with the run (Recorder.propose) and load the trace again")
        self._recorded = recorded
        self._declared = declared
        self._plan = plan if plan is not None else recorded.plans[0]
        self._contract = contract if contract is not None else getattr(self._plan, "contract", None)
        self._faults = tuple(Fault.parse(f) if isinstance(f, str) else f for f in faults)
        self._workers, self._strategy, self._options = workers, strategy, options
        try:
            self._schedule, self._no_schedule = critical_path(self._plan), ""
        except PlanvizError as exc:  # a cycle or an unknown dependency: the run and the diagram still show
            self._schedule, self._no_schedule = None, str(exc)
        self._frames: dict[int, Any] = {}
        self._quiet = False
        self._dirty: set[str] = set()
        self._run = self._simulate()
        self._build()
        super().__init__(children=self._layout_children(), layout=w.Layout(max_width="1200px"))
        self.add_class("planviz-explorer")
        self._reset(self._initial_index())

    # -- scripting API -------------------------------------------------------------------------

    @property
    def run(self) -> Any:
        """The run shown now (simulated with the current faults, or the recorded one)."""
        return self._run

    @property
    def faults(self) -> tuple:
        """The faults injected so far."""
        return self._faults

    def _event_count(self) -> int:
        return len(self._run.events)

    @property
    def svg(self) -> str:
        """The SVG of the diagram shown now."""
        return inline_svg(self._frame(self.index).svg)

    def inject(self, fault: Any, replace: bool = False) -> Any:
        """Re-simulate with a fault (a :class:`planviz.Fault` or ``"S4:side_effect"``); returns the new run.

        By default the fault is **added** to those injected before (they all apply); ``replace=True`` drops
        the earlier ones first, so only this fault applies (``clear_faults()`` drops them all). The view
        jumps to the first event where a fault voids work (else the first failure).
        """
        if isinstance(fault, str):
            fault = Fault.parse(fault)
        faults = (() if replace else self._faults) + (fault,)
        run = self._simulate(faults)
        self._faults = faults
        self._set_run(run)
        return run

    def clear_faults(self) -> Any:
        """Drop every injected fault and show the fault-free (or recorded) run again; returns it."""
        self._faults = ()
        self._set_run(self._simulate())
        return self._run

    def __repr__(self) -> str:
        faults = ", ".join(str(f) for f in self._faults) or "no faults"
        return (f"<planviz Explorer: event {self.index} of {len(self._run.events) - 1}, {faults}, "
                f"outcome {outcome_label(self._run)}>")

    # -- building ------------------------------------------------------------------------------

    def _simulate(self, faults: tuple | None = None) -> Any:
        faults = self._faults if faults is None else faults
        if self._recorded is not None and not faults:
            return self._recorded
        return simulate(self._plan, self._contract, faults=faults, workers=self._workers, strategy=self._strategy,
                        **self._options)

    def _build(self) -> None:
        n = len(self._run.events)
        self.title = w.HTML()
        self.back = w.Button(description="Back", icon="step-backward", tooltip="Step back one event",
                             layout=w.Layout(width="auto"))
        self.forward = w.Button(description="Step", icon="step-forward", tooltip="Step forward one event",
                                layout=w.Layout(width="auto"))
        self.play = w.Play(value=0, min=0, max=max(n - 1, 0), interval=900, tooltip="Play the run",
                           description="Play", show_repeat=False)
        self.slider = w.IntSlider(value=0, min=0, max=max(n - 1, 0), description="Event",
                                  continuous_update=True, readout=True, layout=w.Layout(flex="1 1 auto"),
                                  tooltip="Drag, or focus and use the arrow keys")
        w.link((self.play, "value"), (self.slider, "value"))
        self.caption = w.HTML()
        self.diagram = w.HTML(layout=w.Layout(overflow="auto", max_height="460px", flex="1 1 auto", min_width="0"))
        self.diagram.add_class("planviz-diagram")
        self.legend = w.HTML(layout=w.Layout(width="190px", min_width="190px", margin="0 0 0 10px"))
        self.legend.add_class("planviz-legend")
        self.back.on_click(lambda _: self._step(-1))
        self.forward.on_click(lambda _: self._step(+1))
        self.slider.observe(self._on_index, names="value")
        self.back.add_class("planviz-back")
        self.forward.add_class("planviz-forward")

        label = {"description_width": "44px"}
        ids = list(self._plan.ids)
        facts = sorted({f for s in self._plan.steps for f in (*s.requires, *s.produces)} | set(self._plan.premises))
        wide = w.Layout(width="260px")
        self.fault_step = w.Dropdown(options=ids, value=ids[0] if ids else None, description="Step",
                                     style=label, layout=wide)
        self.fault_kind = w.Dropdown(options=FAULT_KINDS, value="side_effect", description="Kind",
                                     style=label, layout=wide)
        self.fault_fact = w.Combobox(options=facts, placeholder="fact: needed for extra_fact",
                                     description="Fact", style=label, layout=wide, ensure_option=False)
        self.fault_times = w.BoundedIntText(value=1, min=1, max=99, description="Times", style=label,
                                            layout=w.Layout(width="130px"))
        self.inject_button = w.Button(description="Inject", icon="bolt", button_style="warning",
                                      tooltip="Re-simulate with this fault ADDED to the earlier ones and show what "
                                              "it voids (Clear faults first to replace them)",
                                      layout=w.Layout(width="auto"))
        self.clear_button = w.Button(description="Clear faults", icon="undo", tooltip="Back to the run without faults",
                                     layout=w.Layout(width="auto"))
        self.fault_status = w.HTML()
        for widget, name in ((self.fault_step, "step"), (self.fault_kind, "kind"), (self.fault_fact, "fact"),
                             (self.fault_times, "times"), (self.inject_button, "inject"),
                             (self.clear_button, "clear")):
            widget.add_class(f"planviz-fault-{name}")
        self.fault_status.add_class("planviz-fault-status")
        self.view_panel = ViewPanel(self._plan.ids, on_change=self._set_view)
        self.inject_button.on_click(lambda _: self._inject_from_ui())
        self.clear_button.on_click(lambda _: self._clear_from_ui())

        self.log_panel = w.HTML()
        self.facts_panel = w.HTML()
        self.ready_panel = w.HTML()
        self.timeline_panel = w.HTML(layout=w.Layout(overflow="auto"))
        self.metrics_panel = w.HTML()
        self.alignment_panel = w.HTML()
        self.tabs = w.Tab(children=[w.Box([p], layout=w.Layout(max_height="260px", overflow="auto"))
                                    for p in (self.log_panel, self.facts_panel, self.ready_panel,
                                              self.timeline_panel, self.metrics_panel, self.alignment_panel)],
                          titles=_TABS, layout=w.Layout(flex="1 1 auto", min_width="0"))
        self.tabs.observe(lambda _: self._refresh_lazy(), names="selected_index")

    def _layout_children(self) -> list:
        stepper = w.HBox([self.back, self.play, self.forward, self.slider],
                         layout=w.Layout(align_items="center"))
        fault_box = w.VBox([w.HTML("<b>Inject a fault</b>"), self.fault_step, self.fault_kind, self.fault_fact,
                            self.fault_times, w.HBox([self.inject_button, self.clear_button]), self.fault_status],
                           layout=w.Layout(width="290px", min_width="290px", margin="0 12px 0 0"))
        picture = w.HBox([self.diagram, self.legend], layout=w.Layout(align_items="flex-start"))
        return [w.HTML(_STYLE), self.title, stepper, self.view_panel, self.caption, picture,
                w.HBox([fault_box, self.tabs], layout=w.Layout(margin="8px 0 0 0"))]

    # -- updating ------------------------------------------------------------------------------

    def _initial_index(self) -> int:
        """Where a new run opens: the first event that voids work, else the first failure, else the start."""
        events = self._run.events
        if not self._faults and self._recorded is None:
            return 0
        for e in events:
            if getattr(e, "voided", None):
                return e.index
        for e in events:
            if e.kind == "fail":
                return e.index
        return 0

    def _set_run(self, run: Any) -> None:
        self._run = run
        self._frames = {}
        self._reset(self._initial_index())

    def _reset(self, index: int) -> None:
        n = len(self._run.events)
        self._quiet = True
        try:
            self.slider.value = self.play.value = 0
            self.slider.max = self.play.max = max(n - 1, 0)
            self.slider.value = index
        finally:
            self._quiet = False
        self.title.value = self._title_html()
        self.metrics_panel.value = metrics_html(self._run)
        self.fault_status.value = fault_html(self._faults, self._run)
        self._dirty = {"timeline", "alignment"}
        self._show(index)

    def _on_index(self, change: dict) -> None:
        if not self._quiet:
            self._show(change["new"])

    def _step(self, delta: int) -> None:
        target = self.slider.value + delta
        if 0 <= target < len(self._run.events):
            self.slider.value = target

    def _frame(self, index: int) -> Any:
        diagram = self._frames.get(index)
        if diagram is None:
            if len(self._frames) >= _FRAME_CACHE:
                del self._frames[next(iter(self._frames))]
            diagram = self._frames[index] = frame_diagram(self._run, index, legend=False,
                                                          **self.view_panel.options())
        return diagram

    def _show(self, index: int) -> None:
        events = self._run.events
        if not events:
            self.caption.value = '<span class="pv-empty">this run has no events</span>'
            return
        e = event_row(self._run, index)
        n = len(events)
        self.diagram.value = f'<div class="pv-frame">{self.svg}</div>'
        self.legend.value = legend_html(self._frame(index).legend)  # only the looks on screen, beside the picture
        self.view_panel.show(self.notice)
        self.caption.value = caption_html(e, n, self._plan.time_unit)
        self.facts_panel.value = list_html(e["facts"])
        self.ready_panel.value = list_html(e["ready"])
        self.log_panel.value = log_html(self._run.events, index)
        self.back.disabled = index == 0
        self.forward.disabled = index >= n - 1
        self._dirty.add("timeline")
        self._refresh_lazy()

    def _refresh_lazy(self) -> None:
        if "timeline" in self._dirty and self.tabs.selected_index == _TABS.index("Timeline"):
            now = float(self._run.events[self.index].time) if self._run.events else None
            self.timeline_panel.value = (
                gantt_svg(self._run, self._schedule, now=now, unit=self._plan.time_unit) if self._schedule
                else f'<span class="pv-error">no timeline: {escape(self._no_schedule)}</span>')
            self._dirty.discard("timeline")
        if "alignment" in self._dirty and self.tabs.selected_index == _TABS.index("Alignment"):
            self.alignment_panel.value = alignment_html(self._declared or self._plan, self._run)
            self._dirty.discard("alignment")

    # -- HTML (every piece of text escaped) ---------------------------------------------------------

    def _title_html(self) -> str:
        run = self._run
        good = "pv-ok" if run.outcome == "plan_complete" else "pv-bad"
        if self._recorded is not None and not self._faults:
            mode = "recorded run"
        elif self._recorded is not None:
            mode = "what-if simulation of the recorded plan"
        else:
            mode = "simulated run"
        faults = ", ".join(str(f) for f in self._faults) or "no faults"
        return (f'<p class="pv-title">{escape(self._plan.goal)}</p><p class="pv-sub">{mode} &middot; '
                f'{escape(faults)} &middot; outcome <span class="pv-badge {good}">{escape(outcome_label(run))}</span>'
                f' &middot; events 0..{len(run.events) - 1}{self._makespan()}</p>')

    def _makespan(self) -> str:
        if self._schedule is None:
            return ""
        return f" &middot; makespan {self._schedule.makespan:g} {escape(self._plan.time_unit)}"

    # -- UI callbacks: errors are shown in the panel, never raised into the frontend ------------------------

    def _inject_from_ui(self) -> None:
        fact = self.fault_fact.value.strip() or None
        try:
            self.inject(Fault(self.fault_step.value, self.fault_kind.value, fact=fact, times=self.fault_times.value))
        except (PlanvizError, ValueError, TypeError) as exc:
            self.fault_status.value = fault_html(self._faults, self._run, f"could not inject: {exc}")

    def _clear_from_ui(self) -> None:
        try:
            self.clear_faults()
        except (PlanvizError, ValueError) as exc:
            self.fault_status.value = fault_html(self._faults, self._run, f"could not clear: {exc}")
