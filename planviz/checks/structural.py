"""The structure layer: ids, dependencies, cycles, empty fields, and steps that never reach the plan's end.

>>> from planviz import Plan, Step
>>> from planviz.checks.context import Context
>>> [f.code for f in structure(Context(Plan("g", [Step("A", "", depends_on="B")])))]
['unknown_dependency', 'empty_action', 'no_evidence']
>>> plan = Plan("g", [Step("A", "a"), Step("B", "b", depends_on="A"), Step("C", "c"),
...                   Step("END", "end", depends_on="A", kind="finish")])
>>> [(f.code, f.steps) for f in dead_ends(Context(plan), None)]
[('isolated_step', ('C',)), ('dead_end', ('B',))]
"""

from __future__ import annotations

from collections import defaultdict

from planviz.checks.context import Context, finding, known, names, unstated_note
from planviz.plan.branches import connected_branches
from planviz.plan.importers import unstated_fields
from planviz.plan.model import Contract, Finding, natural_key
from planviz.structure.cycle import find_cycles
from planviz.structure.terminal import terminals

__all__ = ["structure", "cycles", "dead_ends"]


def structure(cx: Context) -> list[Finding]:
    """no_steps, duplicate_id, unknown_dependency, self_dependency, empty_action, no_evidence, cycle."""
    out: list[Finding] = []
    plan = cx.plan
    if not plan.steps and not any(f.severity == "error" for f in plan.import_findings):
        out.append(
            finding(
                "no_steps",
                "structure",
                "the plan has no steps, so there is nothing to check, run or draw; list its steps "
                "(a plan file needs steps: with at least one step)",
                where="steps",
            )
        )
    silent = "expected_evidence" in unstated_fields(plan.source_format)
    unevidenced: list[str] = []
    if cx.duplicated:
        counts: dict[str, int] = defaultdict(int)
        for s in plan.steps:
            counts[s.id] += 1
        for sid, n in counts.items():
            if n > 1:
                out.append(
                    finding(
                        "duplicate_id",
                        "structure",
                        f"{n} steps share the id {sid!r}; ids must be unique: rename all but one "
                        f"(only the first is used for dependencies)",
                        [sid],
                        where=f"{sid}.id",
                    )
                )
    if cx.unknown or cx.self_deps:
        steps = cx.steps
        for s in plan.steps:
            sid = s.id
            for d in dict.fromkeys(s.depends_on):
                if d == sid:
                    out.append(
                        finding(
                            "self_dependency",
                            "structure",
                            f"step {sid!r} depends on itself; remove {sid!r} from {sid}.depends_on",
                            [sid],
                            where=f"{sid}.depends_on",
                        )
                    )
                elif d not in steps:
                    out.append(
                        finding(
                            "unknown_dependency",
                            "structure",
                            f"step {sid!r} depends on {d!r}, which is not a step of this plan"
                            f"{known(cx, d)}; fix the id or remove it from {sid}.depends_on",
                            [sid],
                            where=f"{sid}.depends_on",
                        )
                    )
    for s in plan.steps:
        a, e = s.action, s.expected_evidence
        if not a or a.isspace():
            out.append(
                finding(
                    "empty_action",
                    "structure",
                    f"step {s.id!r} has an empty action; say in one sentence what the step does",
                    [s.id],
                    where=f"{s.id}.action",
                )
            )
        if e and not e.isspace():
            continue
        if silent:
            unevidenced.append(s.id)
        else:
            out.append(
                finding(
                    "no_evidence",
                    "structure",
                    f"step {s.id!r} has no expected_evidence; say what the trace must show when it "
                    f"worked, so its success can be checked",
                    [s.id],
                    where=f"{s.id}.expected_evidence",
                )
            )
    if unevidenced:
        out.append(
            unstated_note(
                "no_evidence",
                "structure",
                plan.source_format,
                "expected evidence",
                unevidenced,
                "a run cannot check what their success shows",
                "an error",
            )
        )
    if cx.cyclic_nodes:
        out.extend(cycles(cx))
    return out


def dead_ends(cx: Context, contract: Contract | None) -> list[Finding]:
    """dead_end and isolated_step: with terminal steps, every other step must lead to one of them.

    A *branch* is a group of connected steps none of which reaches a terminal:
    one ``dead_end`` warning per branch, naming its steps (in dependency order)
    and the edges into it. A step with no dependency and no dependent at all is
    an ``isolated_step`` instead. Without a terminal nothing is reported.
    """
    ends = terminals(cx.plan, contract)
    if not ends:
        return []
    ix = cx.ix
    reach = ix.ancestors(ends)
    if len(reach) == len(ix.steps):
        return []
    parents, children = ix.parents, ix.children()
    end = _shown(cx, ends[0]) if len(ends) == 1 else f"a terminal step ({names(list(ends))})"
    out: list[Finding] = []
    dead: set[str] = set()
    for sid in ix.steps:
        if sid in reach:
            continue
        if not parents[sid] and not children[sid]:
            out.append(
                finding(
                    "isolated_step",
                    "structure",
                    f"step {sid!r} has no dependency and nothing depends on it: it is not connected "
                    f"to the plan, so its work never reaches {end}; connect it (e.g. add {sid!r} to "
                    f"{ends[0]}.depends_on) or remove it",
                    [sid],
                    severity="warning",
                    where=f"{sid}.depends_on",
                )
            )
        else:
            dead.add(sid)
    rank = {sid: (cx.pos.get(sid, len(cx.pos)), natural_key(sid)) for sid in dead}
    for branch in connected_branches(dead, parents, rank.__getitem__):
        inside = set(branch)
        last = [u for u in branch if not any(v in inside for v in children[u])]
        entries = sorted(
            {p for u in branch for p in parents[u] if p not in inside}, key=natural_key
        )
        edges = [(p, u) for u in branch for p in dict.fromkeys(parents[u])]
        what = f"step {branch[0]!r}" if len(branch) == 1 else f"the branch {names(branch)}"
        after = f" (it leaves the route after {names(entries)})" if entries else ""
        tail = (
            f"{last[0]!r}"
            if last
            else "a step of it once its loop is broken (see the cycle finding)"
        )
        out.append(
            finding(
                "dead_end",
                "structure",
                f"{what} never reaches {end}{after}: no path leads from it to the plan's end, so its "
                f"work is not used; make {ends[0]!r} (or a step before it) depend on {tail}, "
                "or remove it",
                branch,
                severity="warning",
                edges=edges,
                where=f"{ends[0]}.depends_on",
            )
        )
    return out


def cycles(cx: Context) -> list[Finding]:
    """One ``cycle`` finding per loop (see :func:`planviz.structure.cycle.find_cycles`): its steps, and the
    loop itself as edges, so the picture marks a real loop, the same whatever the file order."""
    out = []
    for cycle in find_cycles(cx.ix):
        u, v = cycle.edges[-1]
        loop = {a for a, _ in cycle.edges}
        more = (
            f" ({len(cycle.steps)} steps are caught in it)" if len(cycle.steps) > len(loop) else ""
        )
        out.append(
            finding(
                "cycle",
                "structure",
                f"steps depend on each other in a cycle: {cycle.route()}, each waiting for the one "
                f"before{more}; break it by removing a dependency, e.g. {u!r} from {v}.depends_on",
                cycle.steps,
                edges=cycle.edges,
                where=f"{v}.depends_on",
            )
        )
    return out


def _shown(cx: Context, sid: str) -> str:
    """A step named for a message: its id, and its action when that says more (``'5' (FinishAction())``)."""
    action = cx.steps[sid].action
    return f"{sid!r}" if action in ("", sid) else f"{sid!r} ({action[:40]})"
