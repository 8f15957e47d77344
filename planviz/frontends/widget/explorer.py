"""The explorer: step through a run, inject faults and see what they void, in a notebook.

``explore(plan)`` simulates the plan and returns an :class:`Explorer`, an
``anywidget.AnyWidget`` (an ipywidgets ``DOMWidget`` whose front end is one ES
module, joined from ``planviz/frontends/js/*.js``, shipped in the package: no
labextension, no build step). The kernel lays each plan version out once
(Graphviz, cached) and sends the run's snapshot
(:mod:`planviz.frontends.snapshot`): the pictures plus what each event
changes. Stepping, play, the clock on the timeline, hover, the details of a
step (click it), search and zoom run in the browser with no round trip. Fault
injection and a new view of a big plan run here (they need the simulator and
Graphviz): the module sends a request, the kernel answers with a new snapshot.

The same module runs in the offline HTML report (:func:`planviz.report_html`),
and in the explorer's static fallback: where no widget manager runs (a
notebook exported with nbconvert, nbviewer, GitHub), the ``text/html`` part
of the explorer's output is that offline page in a sandboxed ``iframe``, so a
reader still steps the run. ``replay(trace)`` opens the same view on a
recorded run.

It is scriptable, for notebooks and tests:

>>> from planviz import examples, Fault
>>> ex = explore(examples.load("cache_isolation"))
>>> ex.run.outcome
'plan_complete'
>>> ex.index = 0
>>> ex.caption.startswith("Event 0 of 11: propose")
True
>>> _ = ex.inject(Fault("S4", "side_effect"))
>>> 'status-invalidated' in ex.svg
True
>>> ex.focus_on("S3", hops=1).steps
('S1', 'S2', 'S3', 'S4')
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import traitlets

from planviz.errors import PlanvizError, PlanvizTypeError, expect_type, show_value
from planviz.frontends.panels import (
    alignment_html,
    caption_text,
    fault_text,
    frame_diagram,
    inline_svg,
    outcome_label,
)
from planviz.frontends.receiver import Receiver  # its type names what explore takes (a live run)
from planviz.frontends.snapshot import run_snapshot
from planviz.frontends.widget.viewpanel import ViewChoice, ViewHooks
from planviz.frontends.widget.widget import FrontEnd
from planviz.plan.arguments import expect_contract, expect_plan
from planviz.plan.model import Contract, Plan
from planviz.runs.engine.simulation import simulate
from planviz.runs.events import Run
from planviz.runs.fault import FAULT_KINDS, Fault
from planviz.runs.summary.runsummary import run_summary
from planviz.traces.own.tracefile import load_trace

__all__ = ["explore", "replay", "Explorer"]


def explore(
    plan: Plan | Run | Receiver,
    contract: Contract | None = None,
    faults: Iterable[Fault | str] = (),
    *,
    workers: int | None = None,
    strategy: str = "planner",
    **options: object,
) -> Explorer:
    """Simulate ``plan`` (with ``faults``) and open the explorer on the run; given a recorded
    :class:`planviz.Run` (a loaded trace), open the explorer on it as :func:`replay` does.

    ``contract`` defaults to the plan's own (``plan.contract``); a fault is a
    :class:`planviz.Fault` or its command-line spelling (``"S4:side_effect"``).
    With faults, the view opens where the first one voids work. ``options``
    go to :func:`planviz.simulate` (``expand=``, ``approval_time=``, ``propose=``).

    Parameters
    ----------
    plan : Plan, Run or Receiver
        The plan to simulate, or a recorded run to step through (then no other argument: see :func:`replay`),
        or a :func:`planviz.receive` receiver: the explorer follows its newest trace live.
    contract : Contract, optional
        Default ``plan.contract``.
    faults : iterable of Fault or str
        Faults to inject, or their command-line spelling (``"S4:side_effect"``).
    workers : int, optional
        At most this many steps at once.
    strategy : str
        ``planner``, ``workflow`` or ``direct``.
    **options :
        Passed to :func:`planviz.simulate` (``expand=``, ``approval_time=``, ``propose=``).

    Returns
    -------
    Explorer
        An anywidget: steps, plays, injects faults; ``index``, ``run``, ``svg``, ``inject`` script it. Without
        a widget manager it shows a static page that still steps.

    Raises
    ------
    PlanvizTypeError
        When ``plan`` is not a Plan (load it first with :func:`planviz.load_plan`) or ``contract`` not a
        Contract.
    SimulationError
        For a fault that names no step or fact of the plan.

    Examples
    --------
    >>> from planviz import examples
    >>> ex = explore(examples.load("cache_isolation"), faults=["S4:side_effect"])
    >>> ex.run.outcome
    'plan_complete'
    >>> explore(ex.run).run is ex.run  # a recorded run opens as it is
    True
    """
    # a live run: the explorer follows the newest trace as its spans arrive
    if isinstance(plan, Receiver):
        if (
            contract is not None
            or faults
            or workers is not None
            or strategy != "planner"
            or options
        ):
            raise PlanvizTypeError(
                "explore(receiver, ...) follows a live run: it takes no simulation options"
            )
        from planviz.frontends.widget.livefollow import follow

        return follow(plan)
    # a recorded run: nothing to simulate, so it opens as replay(run) does
    if isinstance(plan, Run):
        if (
            contract is not None
            or faults
            or workers is not None
            or strategy != "planner"
            or options
        ):
            raise PlanvizTypeError(
                "explore(run, ...) was given a recorded run with simulation options: a run is "
                "not simulated again; open it with planviz.replay(run), then inject a fault "
                "there (explorer.inject(...)) for a what-if simulation of its plan"
            )
        return Explorer(recorded=plan)
    plan = expect_plan(plan, "explore")
    contract = expect_contract(contract, "explore")
    return Explorer(
        plan=plan, contract=contract, faults=faults, workers=workers, strategy=strategy, **options
    )


def replay(trace: str | Path | Run, plan: Plan | None = None) -> Explorer:
    """Open the explorer on a recorded run: a trace file (planviz JSON Lines, OpenTelemetry spans, a LangGraph
    history) or a :class:`planviz.Run`.

    Injecting a fault turns it into a what-if simulation of the recorded plan;
    ``clear_faults()`` brings the recorded run back. With ``plan`` (the plan
    the agent declared), the Alignment tab shows what became of each of its steps.

    Parameters
    ----------
    trace : path or Run
        A trace file (any format :func:`planviz.load_trace` reads) or a Run.
    plan : Plan, optional
        The plan the agent declared: the Alignment tab shows each step's fate.

    Returns
    -------
    Explorer
        The explorer on the recorded run; injecting a fault turns it into a what-if simulation.

    Raises
    ------
    PlanvizTypeError
        When ``trace`` is neither a path nor a Run.
    TraceFormatError
        When the file is not a trace planviz reads.

    Examples
    --------
    >>> from planviz import examples, simulate
    >>> replay(simulate(examples.load("cache_isolation"))).run.outcome
    'plan_complete'
    """
    if isinstance(trace, (str, Path)):
        trace = load_trace(trace)
    if not hasattr(trace, "events"):
        raise PlanvizTypeError(
            f"replay(trace=...) expects a trace path or a planviz Run, got "
            f"{type(trace).__name__} {show_value(trace, 80)}"
        )
    if plan is not None:
        expect_type(
            plan, Plan, "replay", "plan", "a planviz Plan or None", "planviz.load_plan(path)"
        )
    return Explorer(recorded=trace, declared=plan)


class Explorer(ViewHooks, FrontEnd):
    """The explorer widget (an ``anywidget.AnyWidget``); build it with :func:`explore` or :func:`replay`.

    Scripting API: :attr:`run`, :attr:`index` (settable, synced with the
    browser), :meth:`play`, :meth:`inject`, :meth:`clear_faults`,
    :attr:`faults`, :attr:`svg` and :attr:`caption` (of the frame shown); for
    the view :meth:`focus_on`, :meth:`auto_view`, :meth:`whole_plan`,
    :attr:`view`, :attr:`notice`. The synced state is :attr:`snapshot` (the
    run as the front end draws it: one picture per plan version plus deltas,
    so a saved notebook grows with the plan, not with frames x steps).
    """

    interactive = traitlets.Bool(True).tag(sync=True)

    def __init__(
        self,
        *,
        plan: Any = None,
        contract: Any = None,
        faults: Iterable[Any] = (),
        recorded: Any = None,
        workers: int | None = None,
        strategy: str = "planner",
        declared: Any = None,
        **options: Any,
    ) -> None:
        if plan is None and recorded is None:
            raise PlanvizError(
                "explorer needs a plan (explore(plan)) or a recorded run (replay(trace))"
            )
        if recorded is not None and not recorded.plans:
            raise PlanvizError(
                "this recorded run carries no plan, so it cannot be drawn; "
                "record the plan with the run (Recorder.propose) and load the trace again"
            )
        self._recorded: Run | None = recorded
        self._declared = declared
        self._plan = plan if plan is not None else recorded.plans[0]
        self._contract = contract if contract is not None else getattr(self._plan, "contract", None)
        if isinstance(faults, str) or not isinstance(faults, Iterable):
            raise PlanvizTypeError(
                f"explore(faults=...) expects a list of Fault values or 'S4:side_effect' strings, "
                f"got {type(faults).__name__} {show_value(faults)}"
            )
        self._faults = tuple(Fault.parse(f) if isinstance(f, str) else f for f in faults)
        self._workers, self._strategy, self._options = workers, strategy, options
        self._frames: dict[int, Any] = {}
        self.view_choice = ViewChoice(self._plan.ids)
        self._run = self._simulate()
        super().__init__()
        facts = sorted(
            {f for s in self._plan.steps for f in (*s.requires, *s.produces)}
            | set(self._plan.premises)
        )
        self.fault_options = {
            "steps": list(self._plan.ids),
            "kinds": list(FAULT_KINDS),
            "facts": facts,
        }
        self.on_msg(self._on_message)
        self._set_run(self._run)

    # -- scripting API -------------------------------------------------------------------------

    @property
    def run(self) -> Any:
        """The run shown now (simulated with the current faults, or the recorded one)."""
        return self._run

    @property
    def following(self) -> bool:
        """Whether the explorer still follows a live run (``explore(rx)``): False once its root span ended."""
        live = getattr(self, "_live", None)
        return live is not None and live.is_alive()

    @property
    def faults(self) -> tuple[Fault, ...]:
        """The faults injected so far."""
        return self._faults

    def _event_count(self) -> int:
        return len(self._run.events)

    @property
    def svg(self) -> str:
        """The SVG of the diagram shown now (drawn here, by :func:`planviz.render`, as the browser shows it)."""
        return inline_svg(self._frame(self.index).svg)

    @property
    def caption(self) -> str:
        """The caption of the frame shown now, as the browser writes it."""
        return caption_text(self._run, self.index)

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
        return (
            f"<planviz Explorer: event {self.index} of {len(self._run.events) - 1}, {faults}, "
            f"outcome {outcome_label(self._run)}>"
        )

    # -- the run and its snapshot ----------------------------------------------------------------

    def _simulate(self, faults: tuple[Fault, ...] | None = None) -> Run:
        faults = self._faults if faults is None else faults
        if self._recorded is not None and not faults:
            return self._recorded
        return simulate(
            self._plan,
            self._contract,
            faults=faults,
            workers=self._workers,
            strategy=self._strategy,
            **self._options,
        )

    def _initial_index(self) -> int:
        """Where a new run opens: the first event that voids work, else the first failure, else the start."""
        events = self._run.events
        if not self._faults and self._recorded is None:
            return 0
        for e in events:
            if e.voided:
                return e.index
        for e in events:
            if e.kind == "fail":
                return e.index
        return 0

    def show_recorded(self, run: Any) -> None:
        """Show a newer reading of the recorded run (a live run that grew): its plan and view follow it; the
        frame shown stays, unless it was the last one, then the new last is shown. With faults injected the
        what-if run stays on screen and the newer run is shown when they are cleared."""
        if not run.plans:
            return
        at_end = self.index >= len(self._run.events) - 1
        self._recorded, self._plan = run, run.plans[0]
        self.view_choice.grow(self._plan.ids)
        if self._faults:
            return
        self._run, self._frames, self._summary = run, {}, run_summary(run)
        self._send_snapshot(len(run.events) - 1 if at_end else min(self.index, len(run.events) - 1))
        # how many newer readings were shown (tests wait on it)
        self._readings = getattr(self, "_readings", 0) + 1

    def _set_run(self, run: Any) -> None:
        # held while the run is shown: every view of it shares it
        self._run, self._summary = (
            run,
            run_summary(run),
        )
        self._frames = {}
        self._send_snapshot(self._initial_index())

    def _send_snapshot(self, index: int) -> None:
        """Lay out (cached) and send the run's snapshot for the current view, then show frame ``index``."""
        self._frames = {}
        snap = (
            run_snapshot(self._run, legend=False, **self.view_choice.options())
            if self._run.events
            else {}
        )
        if snap and self._declared is not None:
            # from the summary
            snap["tabs"] = [["Alignment", alignment_html(self._declared, self._run)]]
        snap["start"] = index
        with self.hold_sync():
            self.mode = self._mode()
            self.fault_status = fault_text(self._faults, self._run)
            self.snapshot = snap
            self.index = index
            self.view_notice = self.view_choice.describe(self.notice) if self._run.events else ""

    def _frame(self, index: int) -> Any:
        diagram = self._frames.get(index)
        if diagram is None:
            if len(self._frames) >= 8:
                del self._frames[next(iter(self._frames))]
            diagram = self._frames[index] = frame_diagram(
                self._run, index, legend=False, **self.view_choice.options()
            )
        return diagram

    def _show(
        self, index: int
    ) -> None:  # the view changed (ViewHooks): new pictures for the same frame
        self._send_snapshot(index)

    def _mode(self) -> str:
        # set by explore(rx): "receiving", then "final" or "stopped"
        live = getattr(self, "_live_state", None)
        if self._recorded is not None and not self._faults:
            mode = f"live run, {live}" if live else "recorded run"
        elif self._recorded is not None:
            mode = "what-if simulation of the recorded plan"
        else:
            mode = "simulated run"
        faults = ", ".join(str(f) for f in self._faults) or "no faults"
        unit = f" {self._plan.time_unit}" if self._plan.time_unit else ""
        # the plan's, which a what-if run starts from
        schedule = self._summary.schedule_or_why(self._plan)[0]
        span = f" · critical path (plan) {schedule.makespan:g}{unit}" if schedule else ""
        # what the plan's durations add up to is not what the run took: both, named
        if self._run.events:
            span += f" · ran {float(self._run.time):g}{unit}"
        return f"{mode} · {faults}{span}".rstrip()

    # -- requests from the front end: errors are shown there, never raised into it ------------------------

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        kind = content.get("kind")
        try:
            if kind == "inject":
                fact = str(content.get("fact") or "").strip() or None
                times = content.get("times")
                self.inject(
                    Fault(
                        str(content.get("step")),
                        str(content.get("fault")),
                        fact=fact,
                        times=times
                        if isinstance(times, int) and not isinstance(times, bool)
                        else 1,
                    )
                )
            elif kind == "clear":
                self.clear_faults()
            elif kind == "view":
                mode = content.get("mode")
                hops = content.get("hops")
                self.view_choice.set_view(
                    str(mode), content.get("step"), hops if isinstance(hops, int) else None
                )
                self._show(self.index)
        except (PlanvizError, ValueError, TypeError) as exc:
            what = (
                "inject" if kind == "inject" else "clear" if kind == "clear" else "change the view"
            )
            if kind == "view":
                self.view_notice = f"could not {what}: {exc}"
            else:
                self.fault_status = f"could not {what}: {exc}"
