"""planviz: see, check and replay AI-agent plans.

A plan is a falsifiable hypothesis: planviz loads it (YAML, JSON, the tool-call
plans LLMs emit, TaskBench/LLMCompiler/ReWOO/NESTFUL outputs) into a NetworkX
DAG, validates it before anything runs, computes its critical path and ready
sets, draws it with Graphviz, replays runs with injected faults and measures them.

>>> import planviz
>>> plan = planviz.examples.load("cache_isolation")
>>> planviz.critical_path(plan).makespan
29.0

Public names are imported lazily, so ``import planviz`` stays fast and the
widget stack loads only when ``explore`` is first used.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "errors": ("PlanvizError", "PlanFormatError", "TraceFormatError", "SchemaError", "SemanticError",
               "UnknownStepError", "RenderError", "LayoutTimeout", "AnalysisError", "StructureError",
               "SimulationError", "FrameIndexError"),
    "model": ("Step", "Plan", "Contract", "ToolSpec", "Finding"),
    "io": ("load_plan", "load_plans", "load_contract", "dump_plan", "plan_schema"),
    "graph": ("to_graph", "from_graph"),
    "validate": ("validate", "prepare", "grade", "grade_many", "Report", "Grade", "PlanningFailure"),
    "analysis": ("critical_path", "ready_waves", "ready_timeline", "reachable", "invalidated",
                 "failure_scope", "why_blocked", "Schedule", "StepTiming", "Scope"),
    "runtime": ("simulate", "Fault", "Run", "Event", "Observation", "ExecutionState",
                "redundant_work", "changed_completed"),
    "trace": ("save_trace", "load_trace", "Recorder"),
    "metrics": ("metrics", "compare", "attribute", "Metrics"),
    "render": ("render", "Diagram"),
    "widgets": ("explore", "replay", "report_html"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE) + ["examples"]


def __getattr__(name: str) -> Any:
    if name == "examples":
        return importlib.import_module(".examples", __name__)
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'planviz' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """Keeps ``planviz.render``/``validate``/``metrics`` the public functions.

    Importing a submodule sets it as a package attribute, so loading
    ``planviz.render`` as a side effect (``explore`` does) would otherwise
    shadow the function ``render`` with the module of the same name.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and _WHERE.get(name) == name:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
