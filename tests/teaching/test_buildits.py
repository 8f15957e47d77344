"""The new build-its (topological order, grading, the critical path's two passes, ready waves, a side effect's scope):
right answers in several forms, wrong answers, library calls and wrong types, each with its verdict."""

from __future__ import annotations

import networkx as nx
import pytest

import planviz
from planviz.teaching.lesson01 import check_topological_order
from planviz.teaching.lesson02b import check_grade
from planviz.teaching.lesson03 import check_critical_path, check_ready_waves
from planviz.teaching.lesson04 import check_failure_scope


def kahn(plan):
    waiting = {s.id: len(set(s.depends_on)) for s in plan.steps}
    dependents = {s.id: [] for s in plan.steps}
    for s in plan.steps:
        for d in set(s.depends_on):
            dependents[d].append(s.id)
    ready, out = sorted(k for k, v in waiting.items() if not v), []
    while ready:
        sid = ready.pop()
        out.append(sid)
        for k in dependents[sid]:
            waiting[k] -= 1
            if not waiting[k]:
                ready.append(k)
    return out if len(out) == len(waiting) else None


def depth_first(plan):
    """Another valid order (depth first, with a colour per step to find cycles)."""
    colour, out = {}, []

    def visit(sid):
        if colour.get(sid) == "grey":
            raise ValueError("cycle")
        if sid not in colour:
            colour[sid] = "grey"
            for d in plan.step(sid).depends_on:
                visit(d)
            colour[sid] = "black"
            out.append(sid)

    try:
        for s in plan.steps:
            visit(s.id)
    except ValueError:
        return None
    return tuple(out)


@pytest.mark.parametrize(
    "fn", [kahn, depth_first, lambda plan: [f" {x}" for x in kahn(plan)] if kahn(plan) else None]
)
def test_topological_order_right_in_any_valid_form(fn):
    assert check_topological_order(fn)


@pytest.mark.parametrize(
    "fn, says",
    [
        (lambda plan: [s.id for s in plan.steps], "yours says"),  # the file order
        (lambda plan: kahn(plan) or [], "has a cycle, so no order exists"),  # never says "cycle"
        (lambda plan: None, "returned None (a cycle), but this plan has none"),
        (lambda plan: (kahn(plan) or [])[1:] if len(plan.ids) > 1 else kahn(plan), "missing"),
        (
            lambda plan: list(nx.topological_sort(planviz.to_graph(plan))),
            "calls networkx.topological_sort",
        ),
        (
            lambda plan: (
                None if not nx.is_directed_acyclic_graph(planviz.to_graph(plan)) else kahn(plan)
            ),
            "calls networkx.is_directed_acyclic_graph",
        ),
        (
            lambda plan: [plan.step(x) for x in kahn(plan)] if kahn(plan) else None,
            "give its id: step.id",
        ),
        (lambda plan: set(kahn(plan) or ()), "a set has no order"),
        (lambda plan: " ".join(kahn(plan) or ()), "return a list of step ids"),
        (lambda plan: 1 / 0, "raised ZeroDivisionError"),
        ("kahn", "expected a function"),
        (None, "no answer yet"),
    ],
)
def test_topological_order_wrong(fn, says):
    feedback = check_topological_order(fn)
    assert not feedback and says in feedback.message


def passes(plan):
    steps = {s.id: s for s in plan.steps}
    order = kahn(plan)
    es = {}
    for sid in order:
        es[sid] = max((es[d] + steps[d].duration for d in steps[sid].depends_on), default=0.0)
    end = max((es[s] + steps[s].duration for s in steps), default=0.0)
    kids = {s: [] for s in steps}
    for s in plan.steps:
        for d in s.depends_on:
            kids[d].append(s.id)
    ls = {}
    for sid in reversed(order):
        ls[sid] = min((ls[k] for k in kids[sid]), default=end) - steps[sid].duration
    return {s: (es[s], ls[s]) for s in steps}


@pytest.mark.parametrize(
    "fn",
    [
        passes,
        lambda plan: {f" {k} ": [str(a), b] for k, (a, b) in passes(plan).items()},
        lambda plan: {k: (int(a), int(b)) for k, (a, b) in passes(plan).items()},
    ],
)
def test_critical_path_right_in_any_form(fn):
    assert check_critical_path(fn)


@pytest.mark.parametrize(
    "fn, says",
    [
        (
            lambda plan: {k: (a, a) for k, (a, b) in passes(plan).items()},
            "the latest start differs",
        ),
        (
            lambda plan: {k: (0.0, b) for k, (a, b) in passes(plan).items()},
            "the earliest start differs",
        ),
        (lambda plan: {k: v for k, v in list(passes(plan).items())[1:]}, "has no entry for"),
        (lambda plan: {**passes(plan), "Z": (0, 0)}, "steps the plan does not have"),
        (
            lambda plan: {s: (t.es, t.ls) for s, t in planviz.critical_path(plan).steps.items()},
            "calls planviz.critical_path",
        ),
        (lambda plan: [passes(plan)], "return a dict"),
        (lambda plan: {k: a for k, (a, b) in passes(plan).items()}, "give a pair"),
        (
            lambda plan: {k: ("soon", b) for k, (a, b) in passes(plan).items()},
            "both times must be numbers",
        ),
        (lambda plan: {plan.step(k): v for k, v in passes(plan).items()}, "key it by step ids"),
        (
            lambda plan: nx.dag_longest_path_length(planviz.to_graph(plan)),
            "calls networkx.dag_longest_path_length",
        ),
        (None, "no answer yet"),
    ],
)
def test_critical_path_wrong(fn, says):
    feedback = check_critical_path(fn)
    assert not feedback and says in feedback.message


def waves(plan):
    level = {}

    def lv(x):
        if x not in level:
            level[x] = 1 + max((lv(d) for d in plan.step(x).depends_on), default=-1)
        return level[x]

    out = [set() for _ in range(1 + max((lv(s) for s in plan.ids), default=-1))]
    for s in plan.ids:
        out[lv(s)].add(s)
    return out


@pytest.mark.parametrize(
    "fn",
    [
        waves,
        lambda plan: tuple(sorted(w) for w in waves(plan)),
        lambda plan: [[f" {x}" for x in w] for w in waves(plan)],
    ],
)
def test_ready_waves_right_in_any_form(fn):
    assert check_ready_waves(fn)


@pytest.mark.parametrize(
    "fn, says",
    [
        (lambda plan: [set(plan.ids)], "planviz says"),
        (lambda plan: list(reversed(waves(plan))), "planviz says"),
        (lambda plan: [{x} for w in waves(plan) for x in sorted(w)], "planviz says"),
        (lambda plan: planviz.ready_waves(plan), "calls planviz.ready_waves"),
        (
            lambda plan: list(nx.topological_generations(planviz.to_graph(plan))),
            "calls networkx.topological_generations",
        ),
        (lambda plan: {frozenset(w) for w in waves(plan)}, "a set has no order"),
        (lambda plan: [[plan.step(x) for x in w] for w in waves(plan)], "step.id"),
        (lambda plan: "A B", "return a list of sets"),
        (lambda plan: {0: waves(plan)[0]}, "return a list of sets"),
        (lambda plan: [], "planviz says"),
        (None, "no answer yet"),
    ],
)
def test_ready_waves_wrong(fn, says):
    feedback = check_ready_waves(fn)
    assert not feedback and says in feedback.message


def voided(plan, step_id):
    steps = {s.id: s for s in plan.steps}
    if steps[step_id].kind == "patch":
        roots = [step_id]
    else:
        dist, frontier = {}, [step_id]
        while frontier:
            nxt = []
            for x in frontier:
                for d in steps[x].depends_on:
                    if d not in dist:
                        dist[d] = dist.get(x, 0) + 1
                        nxt.append(d)
            frontier = nxt
        patches = [a for a in dist if steps[a].kind == "patch"]
        roots = (
            [min(patches, key=lambda a: (dist[a], a))]
            if patches
            else (sorted(set(steps[step_id].depends_on)) or [step_id])
        )
    return set(roots) | {d for r in roots for d in _down(plan, r)}


def _down(plan, sid):
    out, todo = set(), [sid]
    while todo:
        x = todo.pop()
        for s in plan.steps:
            if x in s.depends_on and s.id not in out:
                out.add(s.id)
                todo.append(s.id)
    return out


@pytest.mark.parametrize(
    "fn",
    [
        voided,
        lambda plan, sid: sorted(voided(plan, sid)),
        lambda plan, sid: [f"{x} " for x in voided(plan, sid)],
    ],
)
def test_failure_scope_right_in_any_form(fn):
    assert check_failure_scope(fn)


def _all_patches(plan, sid):
    """Every patch before the step, not the nearest one."""
    roots = [
        a for a in nx.ancestors(planviz.to_graph(plan), sid) if plan.step(a).kind == "patch"
    ] or [sid]
    return set(roots) | {d for r in roots for d in _down(plan, r)}


@pytest.mark.parametrize(
    "fn, says",
    [
        (lambda plan, sid: {sid} | _down(plan, sid), "planviz says"),  # no patch: ignores the rule
        (lambda plan, sid: {sid}, "missing"),
        (lambda plan, sid: set(plan.ids), "extra"),
        (
            lambda plan, sid: planviz.failure_scope(plan, sid, "side_effect").voided,
            "calls planviz.failure_scope",
        ),
        # not planviz.invalidated
        (
            lambda plan, sid: set(
                planviz.simulate(plan, faults=[planviz.Fault(sid, "side_effect")]).plan.invalidated
            ),
            "calls planviz.simulate",
        ),
        (_all_patches, "calls networkx.ancestors"),
        (lambda plan, sid: [plan.step(x) for x in voided(plan, sid)], "give its id: step.id"),
        (lambda plan, sid: sid, "return a set of step ids"),
        (lambda plan, sid: None, "returned None"),
        (lambda plan, sid: plan.step("nope"), "raised"),
        (None, "no answer yet"),
    ],
)
def test_failure_scope_wrong(fn, says):
    feedback = check_failure_scope(fn)
    assert not feedback and says in feedback.message


def grade_it(plan, contract):
    steps = {s.id: s for s in plan.steps}

    def named(name):
        return {sid for sid, s in steps.items() if sid == name or s.kind == name}

    def ancestors(sid):
        seen, todo = set(), list(steps[sid].depends_on)
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo.extend(steps[x].depends_on)
        return seen

    required = list(contract.required)
    recall = sum(1 for r in required if named(r)) / len(required) if required else 1.0
    return recall, {
        (a, b)
        for a, b in contract.must_precede
        if any(not (named(a) - {sid}) & ancestors(sid) for sid in named(b))
    }


@pytest.mark.parametrize(
    "fn",
    [
        grade_it,
        lambda p, c: list(grade_it(p, c)),
        lambda p, c: (str(grade_it(p, c)[0]), [list(x) for x in grade_it(p, c)[1]]),
        lambda p, c: (grade_it(p, c)[0], tuple(sorted(grade_it(p, c)[1]))),
    ],
)
def test_grade_right_in_any_form(fn):
    assert check_grade(fn)


def _kinds_only(plan, contract):
    """Required entries matched by kind only (a required step id is never found)."""
    recall, violations = grade_it(plan, contract)
    required = list(contract.required)
    by_kind = sum(1 for r in required if any(s.kind == r for s in plan.steps))
    return (by_kind / len(required) if required else 1.0), violations


@pytest.mark.parametrize(
    "fn, says",
    [
        (lambda p, c: (grade_it(p, c)[0], set()), "planviz says"),
        (lambda p, c: (1.0, grade_it(p, c)[1]), "planviz says"),
        (_kinds_only, "planviz says"),
        (lambda p, c: (grade_it(p, c)[0], {(b, a) for a, b in grade_it(p, c)[1]}), "planviz says"),
        (
            lambda p, c: (
                planviz.grade(p, c).required_recall,
                set(planviz.grade(p, c).order_violations),
            ),
            "calls planviz.grade",
        ),
        (
            lambda p, c: (
                (grade_it(p, c)[0], set()) if planviz.validate(p, c).ok else grade_it(p, c)
            ),
            "calls planviz.validate",
        ),
        (lambda p, c: 1.0, "return a pair (recall, violations)"),
        (lambda p, c: ("all", set()), "a number from 0 to 1"),
        (lambda p, c: (1.0, "a<b"), "a set of (a, b) pairs"),
        (lambda p, c: (1.0, {"ab"}), "each is a pair"),
        (None, "no answer yet"),
    ],
)
def test_grade_wrong(fn, says):
    feedback = check_grade(fn)
    assert not feedback and says in feedback.message
