"""Files users hand to planviz that are neither plans nor traces it reads, named by their shape.

Real agent projects write many JSON files that look plan-like: SWE-agent
trajectories, ToolBench's DFSDT answer trees and query files, PlanBench
results, TravelPlanner itineraries. planviz reads none of them, and says what
each is instead of "expected a mapping with goal and steps": both
``load_plan`` (:mod:`planviz.plan.files`) and ``load_trace``
(:mod:`planviz.traces.nottraces`) name them from here.

>>> named({"environment": "swe_main", "trajectory": [], "info": {}})
"a SWE-agent trajectory (.traj), an agent's actions and observations as chat history"
>>> named({"schema_version": "ATIF-v1.4", "agent": {}, "steps": []})[:29]
'an ATIF agent trajectory (Age'
>>> named([{"idx": 1, "query": "a trip", "plan": [{"days": 1, "current_city": "from A to B"}]}])
'a TravelPlanner itinerary file (day-by-day travel plans)'
>>> named({"goal": "g", "steps": []}) is None
True
"""

from __future__ import annotations

from typing import Any

__all__ = ["named"]


def named(data: Any) -> str | None:
    """What the parsed file is, when it is one of the known formats planviz does not read; else None."""
    first = data[0] if isinstance(data, list) and data else None
    if isinstance(data, dict):
        version = data.get("schema_version")
        if (
            isinstance(version, str)
            and version.upper().startswith("ATIF")
            and isinstance(data.get("steps"), list)
        ):
            return (
                "an ATIF agent trajectory (Agent Trajectory Interchange Format: an agent's messages, tool calls "
                "and observations, step by step; Phoenix's client uploads it as spans)"
            )
        history = data.get("history")
        if (
            "trajectory" in data
            and ("environment" in data or "info" in data)
            or (
                isinstance(history, list)
                and history
                and isinstance(history[0], dict)
                and "role" in history[0]
                and ("message_type" in history[0] or "agent" in history[0])
            )
        ):
            return "a SWE-agent trajectory (.traj), an agent's actions and observations as chat history"
        if "answer_generation" in data or ("tree" in data and "forward_args" in data):
            return "a ToolBench (DFSDT) answer tree, a search over tool calls"
        if isinstance(data.get("instances"), list) and ("domain" in data or "prompt_type" in data):
            return "a PlanBench results file (PDDL planning instances with a model's answers)"
        if isinstance(data.get("plan"), list) and "query" in data:
            first = data
    if isinstance(first, dict):
        if "api_list" in first and "query" in first:
            return "a ToolBench query file (queries with the APIs they may call)"
        plan = first.get("plan")
        if (
            "query" in first
            and isinstance(plan, list)
            and plan
            and isinstance(plan[0], dict)
            and ("days" in plan[0] or "current_city" in plan[0])
        ):
            return "a TravelPlanner itinerary file (day-by-day travel plans)"
    return None
