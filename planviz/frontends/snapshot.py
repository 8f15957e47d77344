"""What the one front-end module (``explorer.js``) draws a run from: its snapshot, a JSON-able dict.

The explorer widget sends it to the browser as a trait; the offline page
(the HTML report, the static fallback of the widget) inlines it in a
``<script type="application/json">`` block. Either way the browser steps
through the frames by itself: the snapshot holds one picture per plan version
and what each event changes (:func:`~planviz.frontends.deltatable.delta_table`),
so it grows with the run's events plus the pictures of its plan versions, never
with events x steps. It also holds the event log, the details of each step
(shown on click), the legend's swatches, the timeline and the metrics.

>>> from planviz import examples, simulate, Fault
>>> run = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
>>> snap = run_snapshot(run)
>>> len(snap["versions"]), len(snap["log"]) == len(run.events), snap["details"]["S4"]["requires"]
(2, True, ['patch_applied'])
"""

from __future__ import annotations

import math
from operator import attrgetter
from typing import Any, Sequence

from planviz.errors import PlanvizError
from planviz.frontends.calldetails import run_turns, story_columns
from planviz.frontends.deltatable import delta_table
from planviz.frontends.pagedata import NamedRows, StepDetails
from planviz.frontends.panels import legible_width, metrics_rows, outcome_label
from planviz.io.syntax import show_value
from planviz.pictures.escape import escape_html as escape
from planviz.pictures.gantt import gantt_svg, lane_columns
from planviz.pictures.style import LEGEND_ORDER, LEGEND_TEXT, LOOKS
from planviz.plan.bulk import paused_gc
from planviz.runs.engine.machine import ProgressCallback
from planviz.runs.events import event_messages
from planviz.runs.summary.runsummary import run_summary

__all__ = ["run_snapshot", "pair_snapshot", "legend_swatches"]

#: above this many steps the per-step chart (an SVG row per step) is left out: the canvas lanes show every call
GANTT_MAX_ROWS = 300


def legend_swatches() -> list[list[Any]]:
    """Every legend entry in legend order: ``[key, text, fill, outline colour, outline width, outline style]``."""
    out = []
    for key in LEGEND_ORDER:
        look = LOOKS[key]
        out.append(
            [
                key,
                LEGEND_TEXT[key],
                look.fill,
                look.stroke,
                4 if look.double else max(1, round(look.penwidth)),
                "double" if look.double else look.dash or "solid",
            ]
        )
    return out


def _details(run: Any) -> StepDetails:
    """What a click on a step shows, for every step of every plan version (the latest version's wins): the step,
    what was said and done there (:func:`~planviz.frontends.calldetails.step_story`: its arguments, its result,
    its error when its last attempt failed, the model calls that led to it), its attempts and their events the
    front end reads from the log; made a column at a time (:func:`~planviz.frontends.calldetails.story_columns`),
    then made into a record per step; the columns travel with the records (the page's data reads them)."""
    steps, arguments, statuses, errors, results, calls, ended = story_columns(run)
    # each record's keys in this order; the columns are the records' own values
    columns = {
        "action": list(map(_ACTION, steps)),
        "tool": [tool or "" for tool in map(_TOOL, steps)],
        "kind": [kind or "" for kind in map(_STEP_KIND, steps)],
        "arguments": arguments,
        "requires": list(map(list, map(_REQUIRES, steps))),
        "produces": list(map(list, map(_PRODUCES, steps))),
        "evidence": list(map(_EVIDENCE, steps)),
        "depends_on": list(map(list, map(_DEPENDS_ON, steps))),
        "duration": list(map(_DURATION, steps)),
        "calls": calls,  # rows of calldetails.CALL_FIELDS, the snapshot's order of a call's fields
        "status": statuses,
        "error": errors,
        "result": results,
        "ended": ended,
    }
    # a dict display per step (three times as fast as a dict from pairs)
    records = {
        sid: {
            "action": action,
            "tool": tool,
            "kind": kind,
            "arguments": args,
            "requires": requires,
            "produces": produces,
            "evidence": evidence,
            "depends_on": depends_on,
            "duration": duration,
            "calls": said,
            "status": status,
            "error": error,
            "result": result,
            "ended": end,
        }
        for (
            sid,
            action,
            tool,
            kind,
            args,
            requires,
            produces,
            evidence,
            depends_on,
            duration,
            said,
            status,
            error,
            result,
            end,
        ) in zip(map(_ID, steps), *columns.values())
    }
    return StepDetails(records, columns)


_ID, _ACTION, _TOOL, _STEP_KIND, _REQUIRES, _PRODUCES, _EVIDENCE, _DEPENDS_ON, _DURATION = map(
    attrgetter,
    (
        "id",
        "action",
        "tool",
        "kind",
        "requires",
        "produces",
        "expected_evidence",
        "depends_on",
        "duration",
    ),
)


def _findings(run: Any) -> list[list[str]]:
    """What the plans' importers found, the list the picture's one findings line points to: ``[severity, code,
    message, steps]`` per finding, once each, in the order found (the details show it while no step is chosen)."""
    found = dict.fromkeys(f for plan in run.plans for f in plan.import_findings)
    return [[f.severity, f.code, f.message, ", ".join(f.steps)] for f in found]


def _log(run: Any) -> NamedRows:
    """Each event as ``[time, kind, step, message, attempt, observed facts, model calls]`` (plain types), made a
    column at a time (each a C loop over the events where it can be), then zipped into rows; the columns travel
    with the rows (the page's data reads them)."""
    events = run.events
    times = list(map(_G, map(float, map(_TIME, events))))
    kinds = list(map(str, map(_KIND, events)))
    steps = [step or "" for step in map(_STEP, events)]
    messages = event_messages(run)  # shared with the pictures' captions
    attempts = list(map(int, map(_ATTEMPT, events)))
    facts: list[list[str]] = []
    calls: list[str] = []
    for observation in map(_OBSERVATION, events):
        if observation is None:
            facts.append([])
            calls.append("")
            continue
        facts.append(sorted(observation.facts))
        said = observation.data.get("model_calls", "")
        calls.append(show_value(said, 80) if said not in ("", None) else "")
    return NamedRows([times, kinds, steps, messages, attempts, facts, calls])


_G = "{:g}".format  # an event's time as the log shows it
_TIME, _KIND, _STEP, _ATTEMPT, _OBSERVATION = map(
    attrgetter, ("time", "kind", "step", "attempt", "observation")
)


def run_snapshot(
    run: Any, *, progress: ProgressCallback | None = None, **render_options: Any
) -> dict[str, Any]:
    """The snapshot of ``run`` the front-end module draws (see the module's docstring).

    ``render_options`` go to :func:`planviz.render` (a view: ``focus``, ``hops``, ``max_steps``). The analyses
    shown (critical paths, metrics, usage, hindsight) come from the run's one summary (:func:`planviz.run_summary`).
    """
    if not run.events:
        raise PlanvizError(
            "this run has no events, so there is nothing to step through; "
            "simulate or record at least one event first"
        )
    # hundreds of thousands of small containers, none in a cycle (the explorer makes it with the collector on)
    with paused_gc():
        return _run_snapshot(run, progress, render_options)


def _run_snapshot(
    run: Any, progress: ProgressCallback | None, render_options: dict[str, Any]
) -> dict[str, Any]:
    # held while the snapshot is made: its pictures, timeline and metrics share it
    summary = run_summary(run)
    data, pictures = delta_table(run, progress, **render_options)
    first = run.plans[0]
    for spec, picture in zip(data["versions"], pictures):
        # how narrow "fit width" may make it: text never below 9 px
        spec["legible"] = legible_width(picture.svg)
        spec["svg"] = picture.svg
    end = float(run.events[-1].time)
    rows = len({s.id for plan in run.plans for s in plan.steps})
    try:
        # a row per step: a long run's chart would be taller than any screen
        if rows > GANTT_MAX_ROWS:
            gantt = (
                f'<p class="pv-empty">the per-step chart is left out: {rows} steps are more than the '
                f"{GANTT_MAX_ROWS} rows it draws (the lanes show every call)</p>"
            )
        else:
            gantt = gantt_svg(
                run,
                summary.schedule(first),
                now=end if math.isfinite(end) else None,
                unit=first.time_unit,
            )
    except PlanvizError as exc:  # a cycle or an unknown dependency: no schedule to chart
        gantt = f'<p class="pv-empty">no timeline: {escape(str(exc))}</p>'
    badge = "ok" if run.outcome == "plan_complete" else "open" if run.outcome is None else "bad"
    data.update(
        {
            "goal": first.goal,
            "unit": first.time_unit,
            "outcome": outcome_label(run),
            "badge": badge,
            "log": _log(run),
            "details": _details(run),
            "gantt": gantt,
            "lanes": lane_columns(run),
            "metrics": metrics_rows(run),
            "findings": _findings(run),
            "legend": legend_swatches(),
            "unfinished": run.outcome is None,
            "turns": run_turns(run),
        }
    )
    return data


def pair_snapshot(
    runs: Sequence[Any],
    labels: Sequence[str],
    ticks: Sequence[Sequence[int]],
    notes: Sequence[str] = (),
) -> dict[str, Any]:
    """The snapshot of two runs on one stepper: each run's own snapshot, and for each tick the event of each run
    shown (``ticks``), with a note per tick (``notes``: what differs there)."""
    return {
        "pair": [run_snapshot(r, legend=False) for r in runs],
        "labels": list(labels),
        "ticks": [list(t) for t in ticks],
        "notes": list(notes),
    }
