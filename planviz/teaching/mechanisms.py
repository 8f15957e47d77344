"""Notebook 07's last two exercises, read here so lesson07 stays one notebook's checks: choosing the mechanism
(seed 004: a workflow, a search such as tree-of-thought, or agent planning) and reading an ablation.

The tasks of the choice are :data:`TASKS` (letter -> (task, mechanism, why)); an answer is read as a mapping
letter -> mechanism, or as the six mechanisms in letter order. The ablation is read from the student's own
:class:`~planviz.runs.evaluation.campaigntable.Campaign` after it is confirmed to be the notebook's: what is right is
computed from its rows, never typed in.

>>> choose("07 exercise 6", {letter: "workflow" for letter in TASKS}).passed
False
>>> mechanism("Tree of Thought"), mechanism("the planner"), mechanism("fixed script")
('search', 'agent', 'workflow')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from planviz.runs.evaluation.campaigntable import METRIC_NAMES, Campaign, CampaignRow
from planviz.runs.evaluation.faultmodel import FaultModel
from planviz.teaching.answers import short
from planviz.teaching.feedback import Feedback, is_blank, right, unanswered, wrong

__all__ = [
    "TASKS",
    "MECHANISMS",
    "ABLATION_FAULTS",
    "ABLATION_SAMPLES",
    "mechanism",
    "choose",
    "read_ablation",
]

MECHANISMS = ("workflow", "search", "agent")

#: letter -> (the task, the mechanism seed 004 would choose, why: said when a wrong answer picks another one)
TASKS: dict[str, tuple[str, str, str]] = {
    "a": (
        "every night, export yesterday's invoices to the warehouse: the same five calls for two years",
        "workflow",
        "a route known in advance and stable needs no model call to decide it",
    ),
    "b": (
        "order twelve database migrations so that every constraint holds, before touching any database; "
        "a candidate order can be checked on paper",
        "search",
        "candidates can be judged without acting: explore, score and backtrack before anything happens",
    ),
    "c": (
        "fix a production incident whose cause is unknown: each diagnostic's result decides the next call, "
        "and a fix may break something only its verification shows",
        "agent",
        "only results tell what comes next, and acting has side effects: plan, act, observe, replan",
    ),
    "d": (
        "find the moves that solve a sliding puzzle, each position scored by a heuristic",
        "search",
        "a puzzle is solved in the head: every candidate can be evaluated and abandoned for free",
    ),
    "e": (
        "run the monthly payroll: fixed steps, an approval before the payment",
        "workflow",
        "an approval is a fixed step of a known route, not a reason to replan",
    ),
    "f": (
        "move a customer's accounts to a new bank while its API refuses some calls and the customer may "
        "change the request mid-run",
        "agent",
        "the world fails and changes mid-run: the route must be re-planned from what the calls returned",
    ),
}

_SPELLINGS = {
    "workflow": ("workflow", "fixed workflow", "script", "fixed script", "pipeline"),
    "search": (
        "search",
        "tree of thought",
        "tree of thoughts",
        "tot",
        "tree search",
        "search tree of thought",
    ),
    "agent": (
        "agent",
        "agent planning",
        "planner",
        "planning agent",
        "agent planner",
        "plan and replan",
        "planning",
    ),
}

#: The notebook's ablation (cell "ablation"): its fault model and sample count.
ABLATION_FAULTS = FaultModel(
    rates={"side_effect": 0.15, "transient": 0.1, "tool_error": 0.03}, seed=7
)
ABLATION_SAMPLES = 200


def _words(text: str) -> str:
    text = re.sub(r"[\s_\-/()]+", " ", text.strip().lower()).strip(" .!")
    return re.sub(r"^(?:the|an|a|use)\s+", "", text)


def mechanism(value: Any) -> str | None:
    """One of :data:`MECHANISMS` from an answer's words, or None when it names none (or is not text)."""
    if not isinstance(value, str):
        return None
    said = _words(value)
    return next((m for m, spellings in _SPELLINGS.items() if said in spellings), None)


def _answers(choices: Any) -> dict[str, Any] | str:
    """letter -> answer, or why the answer cannot be read."""
    if isinstance(choices, Mapping):
        letters = {str(k).strip().strip("().").lower(): v for k, v in choices.items()}
    elif isinstance(choices, Iterable) and not isinstance(choices, (str, bytes, set, frozenset)):
        items = list(choices)
        if len(items) != len(TASKS):
            return f"{len(items)} answers for {len(TASKS)} tasks"
        letters = dict(zip(TASKS, items))
    else:
        return f"expected a dict such as {{'a': 'workflow', ...}}, got {type(choices).__name__} {short(choices)}"
    extra = sorted(set(letters) - set(TASKS))
    if extra:
        return f"there is no task {', '.join(map(repr, extra))}: the tasks are {', '.join(TASKS)}"
    return letters


def choose(ex: str, choices: Any) -> Feedback:
    """Exercise 6: for each task of :data:`TASKS`, the mechanism (``workflow``, ``search`` or ``agent``)."""
    hint = (
        "ask of each task: is the route known in advance (workflow)? can a candidate be judged without acting "
        "(search)? or does only acting tell what comes next (agent)?"
    )
    if is_blank(choices):
        return unanswered(ex, "check_exercise_6(choices={'a': ..., 'b': ..., ...})", hint)
    letters = _answers(choices)
    if isinstance(letters, str):
        return wrong(ex, letters, hint)
    missing = [k for k in TASKS if is_blank(letters.get(k))]
    if missing:
        return unanswered(
            ex, f"an answer for task{'s' if len(missing) > 1 else ''} {', '.join(missing)}", hint
        )
    read = {k: mechanism(v) for k, v in letters.items()}
    unread = [k for k, v in read.items() if v is None]
    if unread:
        return wrong(
            ex,
            f"task {unread[0]}: {short(letters[unread[0]])} is not one of "
            f"{', '.join(map(repr, MECHANISMS))}",
            hint,
        )
    if len(set(read.values())) == 1:
        return wrong(
            ex, f"every task gets {next(iter(read.values()))!r}: no mechanism fits every task", hint
        )
    off = [k for k in TASKS if read[k] != TASKS[k][1]]
    if off:
        # say what the first missed task needs, in words, never its letter's answer
        return wrong(
            ex,
            f"{len(off)} of {len(TASKS)} tasks would be better served by another mechanism",
            hint,
        )
    return right(
        ex,
        "a workflow where the route is known (no model call per run), a search where a candidate can "
        "be judged before acting, agent planning where only acting tells what comes next and the "
        "world can change mid-run.",
    )


def _names(value: Any) -> frozenset[str] | None:
    """Mechanism names from an answer (``"scoped recovery"``, ``"-scoped_recovery"``, a list of them)."""
    items = re.split(r"[,;]", value) if isinstance(value, str) else value
    if isinstance(items, (bytes, Mapping)) or not isinstance(items, Iterable):
        return None
    out = set()
    for item in items:
        if not isinstance(item, str):
            return None
        name = re.sub(r"[\s\-]+", "_", item.strip().lower().lstrip("-+ ").strip())
        if name:
            out.add(name)
    return frozenset(out)


def _apart(a: CampaignRow, b: CampaignRow, metric: str) -> bool:
    x, y = getattr(a, metric), getattr(b, metric)
    return bool(x.low > y.high or y.low > x.high)


def _same(a: CampaignRow, b: CampaignRow) -> bool:
    return (a.successes, a.correct_stops, a.silent_failures) == (
        b.successes,
        b.correct_stops,
        b.silent_failures,
    ) and all(getattr(a, m).mean == getattr(b, m).mean for m in METRIC_NAMES)


def read_ablation(
    ex: str, ablation: Any, loses_success: Any, wasteful: Any, metric: Any, unexercised: Any
) -> Feedback:
    """Exercise 7: from the notebook's ablation, the mechanism whose removal costs goal success, the one whose
    removal keeps it but voids more work, a metric that shows it, and the mechanisms the faults never exercise."""
    how = "ablated = planviz.ablation([plan], faults=sampled, samples=200), as in the notebook"
    if is_blank(ablation):
        return unanswered(
            ex,
            "check_exercise_7(ablation=ablated, loses_success=..., wasteful=..., metric=..., "
            "unexercised=...)",
            how,
        )
    if not isinstance(ablation, Campaign) or ablation.kind != "ablation":
        return wrong(
            ex,
            f"expected the notebook's ablation (a Campaign of kind 'ablation'), got "
            f"{type(ablation).__name__} {short(ablation)}",
            how,
        )
    if (
        ablation.faults != ABLATION_FAULTS
        or ablation.samples != ABLATION_SAMPLES
        or ablation.plans != 1
    ):
        return wrong(
            ex,
            "that is not the notebook's ablation (one plan, its fault model, 200 samples): read the "
            "table the notebook printed",
            how,
        )
    if any(is_blank(a) for a in (loses_success, wasteful, metric, unexercised)):
        return unanswered(
            ex, "your answers loses_success=..., wasteful=..., metric=... and unexercised=...", how
        )
    full = ablation.row("planner")
    removed = {
        r.strategy[1:]: r for r in ablation.rows if r.strategy.startswith("-") and r.plan is None
    }
    expected = {
        "loses_success": frozenset(
            k for k, r in removed.items() if r.success_interval[1] < full.success_interval[0]
        ),
        "wasteful": frozenset(
            k
            for k, r in removed.items()
            if not r.success_interval[1] < full.success_interval[0]
            and _above(r.work_voided.low, full.work_voided.high)
        ),
        "unexercised": frozenset(k for k, r in removed.items() if _same(r, full)),
    }
    given = {"loses_success": loses_success, "wasteful": wasteful, "unexercised": unexercised}
    for name, answer in given.items():
        got = _names(answer)
        if got is None:
            return wrong(
                ex,
                f"{name}: {short(answer)} is not mechanism names (the rows' names, without the '-')",
                how,
            )
        unknown = sorted(got - set(removed))
        if unknown:
            return wrong(
                ex,
                f"{name}: {', '.join(map(repr, unknown))} is not a mechanism the ablation removes "
                f"(its rows: {', '.join(sorted(removed))})",
                how,
            )
        if got != expected[name]:
            return wrong(
                ex,
                f"{name} is not {', '.join(sorted(got)) or 'nothing'}",
                {
                    "loses_success": "compare each '-' row's goal-success interval with the full planner's: which lies "
                    "wholly below it?",
                    "wasteful": "among the rows whose goal success still overlaps the planner's, which voids more "
                    "verified work (work_voided) beyond its interval?",
                    "unexercised": "which rows are the full planner's row, figure for figure?",
                }[name],
            )
    shows = {m for m in METRIC_NAMES for k in expected["wasteful"] if _apart(removed[k], full, m)}
    said = re.sub(r"[\s\-]+", "_", metric.strip().lower()) if isinstance(metric, str) else None
    if said not in METRIC_NAMES:
        return wrong(
            ex,
            f"metric: {short(metric)} is not one of the table's metrics ({', '.join(METRIC_NAMES)})",
            how,
        )
    if said not in shows:
        return wrong(
            ex,
            f"the {said} intervals of the two rows overlap: that metric does not show the difference",
            "a metric shows it when the two rows' intervals no longer overlap",
        )
    return right(
        ex,
        f"without {', '.join(sorted(expected['loses_success']))} the planner is no better than the "
        f"workflow; without {', '.join(sorted(expected['wasteful']))} it succeeds as often but voids "
        f"more verified work ({said} shows it); and "
        f"{', '.join(sorted(expected['unexercised']))} change nothing, because this fault model never "
        "exercises them. The fault model decides what an ablation can show.",
    )


def _above(low: float | None, high: float | None) -> bool:
    """Whether an interval starting at ``low`` lies above one ending at ``high``; unknown (None) is not above."""
    return low is not None and high is not None and low > high
