"""planviz: see, check and replay AI-agent plans.

A plan is a falsifiable hypothesis: planviz loads it (YAML, JSON, the tool-call
plans LLMs emit, TaskBench/LLMCompiler/ReWOO/NESTFUL outputs) into a NetworkX
DAG, validates it before anything runs, computes its critical path and ready
sets, draws it with Graphviz, replays runs with injected faults and measures them.

>>> import planviz
>>> plan = planviz.examples.load("cache_isolation")
>>> planviz.critical_path(plan).makespan
29.0

Every public name is importable from here; the subpackages follow the one-way
flow of the work (docs/architecture.md): ``plan`` (model and files) ->
``structure`` -> ``checks`` and ``analysis`` -> ``runs`` -> ``pictures`` ->
``frontends``; ``teaching`` holds the notebooks' exercise checks. Names are
imported lazily, so ``import planviz`` stays fast and the widget stack loads
only when ``explore`` is first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"

_EXPORTS = {
    "errors": ("PlanvizError", "PlanvizTypeError", "PlanFormatError", "TraceFormatError", "SchemaError",
               "SemanticError", "UnknownStepError", "RenderError", "LayoutTimeout", "AnalysisError",
               "StructureError", "SimulationError", "FrameIndexError"),
    "plan.model": ("Step", "Plan", "Contract", "ToolSpec", "Finding"),
    "plan.horizon": ("Budget",),
    "plan.files": ("parse_plan", "parse_plans", "load_plan", "load_plans"),
    "plan.contractfile": ("parse_contract", "load_contract"),
    "plan.planwriter": ("dump_plan",),
    "plan.schema": ("plan_schema",),
    "structure.graph": ("to_graph", "from_graph"),
    "checks.report": ("Report", "Summary", "summarize"),
    "checks.validation": ("validate", "prepare", "refusal", "PlanningFailure"),
    "checks.grading": ("grade", "grade_many", "Grade", "GradeTable"),
    "checks.sheet": ("confirmation_sheet", "ConfirmationSheet", "SheetRow"),
    "analysis.schedule": ("critical_path", "Schedule", "StepTiming"),
    "analysis.timeline": ("ready_waves", "ready_timeline", "TimelinePoint"),
    "analysis.reach": ("reachable", "invalidated", "Reach"),
    "analysis.scope": ("failure_scope", "Scope"),
    "analysis.blocking": ("why_blocked", "BlockReason"),
    "runs.fault": ("Fault",),
    "runs.events": ("Run", "Event", "Frame", "Observation", "ExecutionState", "Conflict"),
    "runs.frames": ("FrameDelta",),
    "runs.engine.revision": ("redundant_work", "changed_completed", "reissue"),
    "runs.engine.simulation": ("simulate",),
    "traces.own.recorder": ("Recorder",),
    "traces.own.tracefile": ("save_trace", "load_trace", "parse_trace"),
    "traces": ("load_traces",),
    "runs.measures.runmetrics": ("metrics", "attribute", "attribution", "Attribution", "Metrics"),
    "runs.measures.outcomes": ("outcome_class",),
    "runs.evaluation.frozen": ("FrozenResult", "StepPerformance"),
    "runs.evaluation.frozenplan": ("frozen_plan_test",),
    "runs.comparisons.comparison": ("compare", "Comparison", "ComparisonRow"),
    "runs.evaluation.faultmodel": ("FaultModel",),
    "runs.evaluation.campaigns": ("campaign", "ablation"),
    "runs.evaluation.campaigntable": ("Campaign", "CampaignRow"),
    "runs.measures.intervals": ("Estimate",),
    "runs.comparisons.alignment": ("align", "Alignment", "StepFate", "UnplannedCall"),
    "runs.comparisons.rundiff": ("diff_runs", "RunDiff", "StepChange"),
    "runs.usage": ("Usage", "run_usage"),
    "runs.hindsight.retrospect": ("hindsight", "Hindsight"),
    "runs.hindsight.whatif": ("what_if", "WhatIf"),
    "runs.summary.runsummary": ("run_summary", "RunSummary"),
    "pictures.drawing": ("render",),
    "pictures.diagram": ("Diagram",),
    "pictures.animation": ("Animation",),
    "pictures.focus": ("View",),
    "pictures.fatepicture": ("render_alignment",),
    "pictures.whatifchart": ("render_what_if",),
    "pictures.costchart": ("render_campaign", "CampaignChart"),
    "frontends.pages.htmlreport": ("report_html",),
    "frontends.pages.slides": ("animate",),
    "frontends.widget.explorer": ("explore", "replay", "Explorer"),
    "frontends.widget.sidebyside": ("compare_runs", "RunComparison"),
    "frontends.receiver": ("receive", "Receiver"),
    "teaching.feedback": ("Feedback",),
}
if TYPE_CHECKING:  # what mypy and editors see: the real types behind the lazy names (tests/test_typing.py keeps it equal to _EXPORTS)
    from planviz.errors import PlanvizError as PlanvizError, PlanvizTypeError as PlanvizTypeError, PlanFormatError as PlanFormatError, TraceFormatError as TraceFormatError, SchemaError as SchemaError, SemanticError as SemanticError, UnknownStepError as UnknownStepError, RenderError as RenderError, LayoutTimeout as LayoutTimeout, AnalysisError as AnalysisError, StructureError as StructureError, SimulationError as SimulationError, FrameIndexError as FrameIndexError
    from planviz.plan.model import Step as Step, Plan as Plan, Contract as Contract, ToolSpec as ToolSpec, Finding as Finding
    from planviz.plan.horizon import Budget as Budget
    from planviz.plan.files import parse_plan as parse_plan, parse_plans as parse_plans, load_plan as load_plan, load_plans as load_plans
    from planviz.plan.contractfile import parse_contract as parse_contract, load_contract as load_contract
    from planviz.plan.planwriter import dump_plan as dump_plan
    from planviz.plan.schema import plan_schema as plan_schema
    from planviz.structure.graph import to_graph as to_graph, from_graph as from_graph
    from planviz.checks.report import Report as Report, Summary as Summary, summarize as summarize
    from planviz.checks.validation import validate as validate, prepare as prepare, refusal as refusal, PlanningFailure as PlanningFailure
    from planviz.checks.sheet import confirmation_sheet as confirmation_sheet, ConfirmationSheet as ConfirmationSheet, SheetRow as SheetRow
    from planviz.checks.grading import grade as grade, grade_many as grade_many, Grade as Grade, GradeTable as GradeTable
    from planviz.analysis.schedule import critical_path as critical_path, Schedule as Schedule, StepTiming as StepTiming
    from planviz.analysis.timeline import ready_waves as ready_waves, ready_timeline as ready_timeline, TimelinePoint as TimelinePoint
    from planviz.analysis.reach import reachable as reachable, invalidated as invalidated, Reach as Reach
    from planviz.analysis.scope import failure_scope as failure_scope, Scope as Scope
    from planviz.analysis.blocking import why_blocked as why_blocked, BlockReason as BlockReason
    from planviz.runs.fault import Fault as Fault
    from planviz.runs.events import Run as Run, Event as Event, Frame as Frame, Observation as Observation, ExecutionState as ExecutionState, Conflict as Conflict
    from planviz.runs.frames import FrameDelta as FrameDelta
    from planviz.runs.engine.revision import redundant_work as redundant_work, changed_completed as changed_completed, reissue as reissue
    from planviz.runs.engine.simulation import simulate as simulate
    from planviz.traces.own.recorder import Recorder as Recorder
    from planviz.traces.own.tracefile import save_trace as save_trace, load_trace as load_trace, parse_trace as parse_trace
    from planviz.traces import load_traces as load_traces
    from planviz.runs.measures.runmetrics import metrics as metrics, attribute as attribute, Metrics as Metrics
    from planviz.runs.measures.runmetrics import attribution as attribution, Attribution as Attribution
    from planviz.runs.measures.outcomes import outcome_class as outcome_class
    from planviz.runs.evaluation.frozen import FrozenResult as FrozenResult, StepPerformance as StepPerformance
    from planviz.runs.evaluation.frozenplan import frozen_plan_test as frozen_plan_test
    from planviz.runs.comparisons.comparison import compare as compare, Comparison as Comparison, ComparisonRow as ComparisonRow
    from planviz.runs.evaluation.faultmodel import FaultModel as FaultModel
    from planviz.runs.evaluation.campaigns import campaign as campaign, ablation as ablation
    from planviz.runs.evaluation.campaigntable import Campaign as Campaign, CampaignRow as CampaignRow
    from planviz.runs.measures.intervals import Estimate as Estimate
    from planviz.runs.comparisons.alignment import align as align, Alignment as Alignment, StepFate as StepFate, UnplannedCall as UnplannedCall
    from planviz.runs.comparisons.rundiff import diff_runs as diff_runs, RunDiff as RunDiff, StepChange as StepChange
    from planviz.runs.usage import Usage as Usage, run_usage as run_usage
    from planviz.runs.hindsight.retrospect import hindsight as hindsight, Hindsight as Hindsight
    from planviz.runs.hindsight.whatif import what_if as what_if, WhatIf as WhatIf
    from planviz.runs.summary.runsummary import run_summary as run_summary, RunSummary as RunSummary
    from planviz.pictures.drawing import render as render
    from planviz.pictures.diagram import Diagram as Diagram
    from planviz.pictures.animation import Animation as Animation
    from planviz.pictures.focus import View as View
    from planviz.pictures.fatepicture import render_alignment as render_alignment
    from planviz.pictures.whatifchart import render_what_if as render_what_if
    from planviz.pictures.costchart import render_campaign as render_campaign, CampaignChart as CampaignChart
    from planviz.frontends.pages.htmlreport import report_html as report_html
    from planviz.frontends.pages.slides import animate as animate
    from planviz.frontends.widget.explorer import explore as explore, replay as replay, Explorer as Explorer
    from planviz.frontends.widget.sidebyside import compare_runs as compare_runs, RunComparison as RunComparison
    from planviz.frontends.receiver import receive as receive, Receiver as Receiver
    from planviz.teaching.feedback import Feedback as Feedback

_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
_SUBPACKAGES = ("examples", "teaching")  # reached as planviz.examples, planviz.teaching
__all__ = sorted(_WHERE) + list(_SUBPACKAGES)


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'planviz' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
