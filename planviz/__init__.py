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
from typing import Any

__version__ = "0.2.0"

_EXPORTS = {
    "errors": ("PlanvizError", "PlanvizTypeError", "PlanFormatError", "TraceFormatError", "SchemaError",
               "SemanticError", "UnknownStepError", "RenderError", "LayoutTimeout", "AnalysisError",
               "StructureError", "SimulationError", "FrameIndexError"),
    "plan.model": ("Step", "Plan", "Contract", "ToolSpec", "Finding"),
    "plan.horizon": ("Budget",),
    "plan.files": ("parse_plan", "parse_plans", "load_plan", "load_plans", "parse_contract", "load_contract",
                   "dump_plan"),
    "plan.schema": ("plan_schema",),
    "structure.graph": ("to_graph", "from_graph"),
    "checks.report": ("Report", "Summary", "summarize"),
    "checks.validation": ("validate", "prepare", "refusal", "PlanningFailure"),
    "checks.grading": ("grade", "grade_many", "Grade", "GradeTable"),
    "analysis.schedule": ("critical_path", "Schedule", "StepTiming"),
    "analysis.timeline": ("ready_waves", "ready_timeline", "TimelinePoint"),
    "analysis.reach": ("reachable", "invalidated", "Reach"),
    "analysis.scope": ("failure_scope", "Scope"),
    "analysis.blocking": ("why_blocked", "BlockReason"),
    "runs.fault": ("Fault",),
    "runs.events": ("Run", "Event", "Frame", "Observation", "ExecutionState", "Conflict"),
    "runs.frames": ("FrameDelta",),
    "runs.revision": ("redundant_work", "changed_completed", "reissue"),
    "runs.simulation": ("simulate",),
    "runs.recorder": ("Recorder",),
    "runs.tracefile": ("save_trace", "load_trace", "parse_trace"),
    "runs.measures": ("metrics", "attribute", "Metrics"),
    "runs.comparison": ("compare", "Comparison", "ComparisonRow"),
    "runs.alignment": ("align", "Alignment", "StepFate", "UnplannedCall"),
    "runs.rundiff": ("diff_runs", "RunDiff", "StepChange"),
    "runs.usage": ("Usage", "run_usage"),
    "runs.retrospect": ("hindsight", "Hindsight"),
    "pictures.drawing": ("render",),
    "pictures.diagram": ("Diagram",),
    "pictures.animation": ("animate", "Animation"),
    "pictures.focus": ("View",),
    "pictures.fatepicture": ("render_alignment",),
    "frontends.htmlreport": ("report_html",),
    "frontends.explorer": ("explore", "replay", "Explorer"),
    "frontends.sidebyside": ("compare_runs", "RunComparison"),
    "teaching.feedback": ("Feedback",),
}
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
