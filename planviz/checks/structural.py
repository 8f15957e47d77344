"""The structure layer: ids, dependencies, cycles and empty fields.

>>> from planviz import Plan, Step
>>> from planviz.checks.context import Context
>>> [f.code for f in structure(Context(Plan("g", [Step("A", "", depends_on="B")])))]
['unknown_dependency', 'empty_action', 'no_evidence']
"""

from __future__ import annotations

from collections import defaultdict

from ..plan.model import Finding
from ..structure.cycle import find_cycles
from .context import Context, finding, known

__all__ = ["structure", "cycles"]


def structure(cx: Context) -> list[Finding]:
    """duplicate_id, unknown_dependency, self_dependency, empty_action, no_evidence, cycle."""
    out: list[Finding] = []
    plan = cx.plan
    if cx.duplicated:
        counts: dict[str, int] = defaultdict(int)
        for s in plan.steps:
            counts[s.id] += 1
        for sid, n in counts.items():
            if n > 1:
                out.append(finding("duplicate_id", "structure",
                              f"{n} steps share the id {sid!r}; ids must be unique: rename all but one "
                              f"(only the first is used for dependencies)", [sid], where=f"{sid}.id"))
    if cx.unknown or cx.self_deps:
        steps = cx.steps
        for s in plan.steps:
            sid = s.id
            for d in dict.fromkeys(s.depends_on):
                if d == sid:
                    out.append(finding("self_dependency", "structure",
                                  f"step {sid!r} depends on itself; remove {sid!r} from {sid}.depends_on",
                                  [sid], where=f"{sid}.depends_on"))
                elif d not in steps:
                    out.append(finding("unknown_dependency", "structure",
                                  f"step {sid!r} depends on {d!r}, which is not a step of this plan"
                                  f"{known(cx, d)}; fix the id or remove it from {sid}.depends_on",
                                  [sid], where=f"{sid}.depends_on"))
    for s in plan.steps:
        a, e = s.action, s.expected_evidence
        if not a or a.isspace():
            out.append(finding("empty_action", "structure",
                          f"step {s.id!r} has an empty action; say in one sentence what the step does",
                          [s.id], where=f"{s.id}.action"))
        if not e or e.isspace():
            out.append(finding("no_evidence", "structure",
                          f"step {s.id!r} has no expected_evidence; say what the trace must show when it "
                          f"worked, so its success can be checked", [s.id], where=f"{s.id}.expected_evidence"))
    if cx.cyclic_nodes:
        out.extend(cycles(cx))
    return out


def cycles(cx: Context) -> list[Finding]:
    """One ``cycle`` finding per loop (see :func:`planviz.structure.cycle.find_cycles`): its steps, and the
    loop itself as edges, so the picture marks a real loop, the same whatever the file order."""
    out = []
    for cycle in find_cycles(cx.ix):
        u, v = cycle.edges[-1]
        loop = {a for a, _ in cycle.edges}
        more = f" ({len(cycle.steps)} steps are caught in it)" if len(cycle.steps) > len(loop) else ""
        out.append(finding("cycle", "structure",
                           f"steps depend on each other in a cycle: {cycle.route()}, each waiting for the one "
                           f"before{more}; break it by removing a dependency, e.g. {u!r} from {v}.depends_on",
                           cycle.steps, edges=cycle.edges, where=f"{v}.depends_on"))
    return out
