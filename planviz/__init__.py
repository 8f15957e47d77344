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

# Every public name and the module it lives in, written once: mypy and editors read this block for the real
# types behind the lazy names, and at run time _exports() reads the same lines from this file's source.
if TYPE_CHECKING:
    from planviz.analysis.blocking import BlockReason as BlockReason, why_blocked as why_blocked
    from planviz.analysis.reach import (
        Reach as Reach,
        invalidated as invalidated,
        reachable as reachable,
    )
    from planviz.analysis.schedule import (
        Schedule as Schedule,
        StepTiming as StepTiming,
        critical_path as critical_path,
    )
    from planviz.analysis.scope import Scope as Scope, failure_scope as failure_scope
    from planviz.analysis.timeline import (
        TimelinePoint as TimelinePoint,
        ready_timeline as ready_timeline,
        ready_waves as ready_waves,
    )
    from planviz.checks.grading import (
        Grade as Grade,
        GradeTable as GradeTable,
        grade as grade,
        grade_many as grade_many,
    )
    from planviz.checks.report import Report as Report, Summary as Summary, summarize as summarize
    from planviz.checks.sheet import (
        ConfirmationSheet as ConfirmationSheet,
        SheetRow as SheetRow,
        confirmation_sheet as confirmation_sheet,
    )
    from planviz.checks.validation import (
        PlanningFailure as PlanningFailure,
        prepare as prepare,
        refusal as refusal,
        validate as validate,
    )
    from planviz.errors import (
        AnalysisError as AnalysisError,
        FrameIndexError as FrameIndexError,
        LayoutTimeout as LayoutTimeout,
        PlanFormatError as PlanFormatError,
        PlanvizError as PlanvizError,
        PlanvizTypeError as PlanvizTypeError,
        RenderError as RenderError,
        SchemaError as SchemaError,
        SemanticError as SemanticError,
        SimulationError as SimulationError,
        StructureError as StructureError,
        TraceFormatError as TraceFormatError,
        UnknownStepError as UnknownStepError,
    )
    from planviz.frontends.pages.htmlreport import report_html as report_html
    from planviz.frontends.pages.slides import animate as animate
    from planviz.frontends.receiver import Receiver as Receiver, receive as receive
    from planviz.frontends.widget.explorer import (
        Explorer as Explorer,
        explore as explore,
        replay as replay,
    )
    from planviz.frontends.widget.sidebyside import (
        SideBySide as SideBySide,
        side_by_side as side_by_side,
    )
    from planviz.pictures.animation import Animation as Animation
    from planviz.pictures.costchart import (
        CampaignChart as CampaignChart,
        render_campaign as render_campaign,
    )
    from planviz.pictures.diagram import Diagram as Diagram
    from planviz.pictures.drawing import render as render
    from planviz.pictures.fatepicture import render_alignment as render_alignment
    from planviz.pictures.focus import View as View
    from planviz.pictures.whatifchart import render_what_if as render_what_if
    from planviz.plan.contractfile import (
        load_contract as load_contract,
        parse_contract as parse_contract,
    )
    from planviz.plan.files import (
        load_plan as load_plan,
        load_plans as load_plans,
        parse_plan as parse_plan,
        parse_plans as parse_plans,
    )
    from planviz.plan.horizon import Budget as Budget
    from planviz.plan.model import (
        Contract as Contract,
        Finding as Finding,
        Plan as Plan,
        Step as Step,
        ToolSpec as ToolSpec,
    )
    from planviz.plan.planwriter import dump_plan as dump_plan
    from planviz.plan.schema import plan_schema as plan_schema
    from planviz.runs.comparisons.alignment import (
        Alignment as Alignment,
        StepFate as StepFate,
        UnplannedCall as UnplannedCall,
        align as align,
    )
    from planviz.runs.comparisons.comparison import (
        StrategyComparison as StrategyComparison,
        StrategyRow as StrategyRow,
        compare_strategies as compare_strategies,
    )
    from planviz.runs.comparisons.rundiff import (
        RunDiff as RunDiff,
        StepChange as StepChange,
        diff_runs as diff_runs,
    )
    from planviz.runs.engine.revision import (
        changed_completed as changed_completed,
        redundant_work as redundant_work,
        reissue as reissue,
    )
    from planviz.runs.engine.simulation import simulate as simulate
    from planviz.runs.evaluation.campaigns import ablation as ablation, campaign as campaign
    from planviz.runs.evaluation.campaigntable import (
        Campaign as Campaign,
        CampaignRow as CampaignRow,
    )
    from planviz.runs.evaluation.faultmodel import FaultModel as FaultModel
    from planviz.runs.evaluation.frozen import (
        FrozenResult as FrozenResult,
        StepPerformance as StepPerformance,
    )
    from planviz.runs.evaluation.frozenplan import frozen_plan_test as frozen_plan_test
    from planviz.runs.events import (
        Conflict as Conflict,
        Event as Event,
        ExecutionState as ExecutionState,
        Frame as Frame,
        Observation as Observation,
        Run as Run,
    )
    from planviz.runs.fault import Fault as Fault
    from planviz.runs.frames import FrameDelta as FrameDelta
    from planviz.runs.hindsight.retrospect import Hindsight as Hindsight, hindsight as hindsight
    from planviz.runs.hindsight.whatif import WhatIf as WhatIf, what_if as what_if
    from planviz.runs.measures.intervals import Estimate as Estimate
    from planviz.runs.measures.outcomes import outcome_class as outcome_class
    from planviz.runs.measures.runmetrics import (
        Attribution as Attribution,
        Metrics as Metrics,
        attribution as attribution,
        metrics as metrics,
    )
    from planviz.runs.summary.runsummary import RunSummary as RunSummary, run_summary as run_summary
    from planviz.runs.usage import Usage as Usage, run_usage as run_usage
    from planviz.structure.graph import from_graph as from_graph, to_graph as to_graph
    from planviz.traces import load_traces as load_traces
    from planviz.traces.own.recorder import Recorder as Recorder
    from planviz.traces.own.tracefile import (
        load_trace as load_trace,
        parse_trace as parse_trace,
        save_trace as save_trace,
    )

_SUBPACKAGES = ("examples", "teaching")  # reached as planviz.examples, planviz.teaching

# Old names kept one release (docs/words.md, "Renamed"): old -> (the new name's module, the new name, how to write it)
_RENAMED = {
    "compare": ("runs.comparisons.comparison", "compare_strategies", "planviz.compare_strategies"),
    "Comparison": (
        "runs.comparisons.comparison",
        "StrategyComparison",
        "planviz.StrategyComparison",
    ),
    "ComparisonRow": ("runs.comparisons.comparison", "StrategyRow", "planviz.StrategyRow"),
    "compare_runs": ("frontends.widget.sidebyside", "side_by_side", "planviz.side_by_side"),
    "RunComparison": ("frontends.widget.sidebyside", "SideBySide", "planviz.SideBySide"),
    "attribute": (
        "runs.measures.runmetrics",
        "attribute",
        "planviz.attribution(run, contract).party",
    ),
    "Feedback": ("teaching.feedback", "Feedback", "planviz.teaching.Feedback"),
}


def _exports() -> dict[str, str]:
    """{public name: its module under planviz}, read once from the ``if TYPE_CHECKING:`` block of this file."""
    import ast

    with open(__file__, encoding="utf-8") as source:
        tree = ast.parse(source.read(), __file__)
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    )
    return {
        alias.name: node.module.removeprefix("planviz.")
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    # the table, built on first use so that `import planviz` reads no source
    if name in (
        "_WHERE",
        "__all__",
    ):
        where = globals()["_WHERE"] = _exports()
        globals()["__all__"] = sorted(where) + list(_SUBPACKAGES)
        return globals()[name]
    if name in _RENAMED:
        module, new, instead = _RENAMED[name]
        import warnings

        warnings.warn(
            f"planviz.{name} is deprecated and will be removed in the next release; use {instead}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(f".{module}", __name__), new)
    module = __getattr__("_WHERE").get(name)
    if module is None:
        raise AttributeError(f"module 'planviz' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__getattr__("__all__")))
