"""The random questions of the new build-its: plans with durations, with patch steps, and with cycles.

Like :func:`~planviz.teaching.agreement.random_plans`, they are seeded and
grow with the case number, so the first disagreement is on a plan small
enough to read.

>>> plans = timed_plans(40)
>>> len(plans), all(s.duration in (1.0, 2.0, 3.0, 4.0, 5.0) for p in plans for s in p.steps)
(40, True)
>>> sum(has_cycle(p) for p in order_plans(60)) > 0
True
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import networkx as nx

from planviz.plan.model import Plan
from planviz.structure.graph import to_graph
from planviz.teaching.agreement import IDS, random_plans

__all__ = [
    "timed_plans",
    "order_plans",
    "patch_cases",
    "has_cycle",
    "grade_cases",
    "reissue_cases",
    "KINDS",
]

#: The milestone kinds grading questions use.
KINDS = ("reproduce", "diagnose", "patch", "verify")


def timed_plans(count: int = 200, seed: int = 2031) -> list[Plan]:
    """Random acyclic plans whose steps take 1 to 5 time units."""
    rng = random.Random(seed)
    return [
        plan.replace(steps=[replace(s, duration=float(rng.randint(1, 5))) for s in plan.steps])
        for plan in random_plans(count, seed=seed)
    ]


def order_plans(count: int = 200, seed: int = 2032) -> list[Plan]:
    """Random plans, about one in four with a cycle (a dependency added against the order)."""
    rng = random.Random(seed)
    out = []
    for plan in random_plans(count, seed=seed):
        order = list(nx.lexicographical_topological_sort(to_graph(plan)))
        if len(order) >= 2 and rng.random() < 0.25:
            i, j = sorted(rng.sample(range(len(order)), 2))
            early, late = order[i], order[j]
            # make the earlier step wait for the later one: if late already depends on early (directly or
            # not), this closes a cycle; otherwise it is a legal edge, and the plan stays acyclic
            plan = plan.replace(
                steps=[
                    replace(s, depends_on=tuple(sorted({*s.depends_on, late})))
                    if s.id == early
                    else s
                    for s in plan.steps
                ]
            )
            if not has_cycle(plan):
                steps = {s.id: s for s in plan.steps}
                plan = plan.replace(
                    steps=[
                        replace(s, depends_on=tuple(sorted({*s.depends_on, early})))
                        if s.id == late
                        else s
                        for s in steps.values()
                    ]
                )
        out.append(plan)
    return out


def has_cycle(plan: Plan) -> bool:
    """True when some step waits, through its dependencies, for itself."""
    graph = nx.DiGraph()
    graph.add_nodes_from(plan.ids)
    graph.add_edges_from((d, s.id) for s in plan.steps for d in s.depends_on if d in plan.ids)
    return not nx.is_directed_acyclic_graph(graph)


def patch_cases(count: int = 200, seed: int = 2033) -> list[tuple[Plan, str]]:
    """(plan, step id): random plans in which some steps are patches; every step is asked about."""
    rng = random.Random(seed)
    cases: list[tuple[Plan, str]] = []
    for plan in random_plans(count, seed=seed):
        plan = plan.replace(
            steps=[replace(s, kind="patch") if rng.random() < 0.3 else s for s in plan.steps]
        )
        cases.extend((plan, sid) for sid in sorted(plan.ids))
    return cases


def grade_cases(count: int = 200, seed: int = 2034) -> list[tuple[Plan, Any]]:
    """(plan, contract): random plans whose steps have milestone kinds, against a contract that requires some
    milestones (by kind, or by a step id) and orders some pairs of them."""
    from planviz.plan.model import Contract  # the contract is built here, once per case

    rng = random.Random(seed)
    cases = []
    for plan in random_plans(count, seed=seed):
        plan = plan.replace(
            steps=[replace(s, kind=rng.choice(KINDS + (None,))) for s in plan.steps]
        )
        required = sorted(rng.sample(KINDS, rng.randint(0, 4)))  # now and then nothing is required
        if rng.random() < 0.3:
            required.append(rng.choice(IDS))  # a required step id, present or not
        pairs = [(a, b) for a in KINDS for b in KINDS if KINDS.index(a) < KINDS.index(b)]
        order = sorted(rng.sample(pairs, rng.randint(0, 3)))
        if rng.random() < 0.4:  # an order between two step ids, or a kind and a step id
            first, then = (
                rng.sample(sorted(plan.ids) + list(IDS[:2]), 2) if len(plan.ids) > 1 else ("A", "B")
            )
            order.append(
                rng.choice([(first, then), (rng.choice(KINDS), then), (first, rng.choice(KINDS))])
            )
        cases.append((plan, Contract(required=tuple(required), must_precede=tuple(order))))
    return cases


def reissue_cases(count: int = 200, seed: int = 2035) -> list[tuple[Plan, frozenset[str]]]:
    """(plan, voided): random plans (versions 1 to 4, steps with facts and evidence) and what a failure voids in
    them, a step and everything downstream of it (now and then two such steps, or nothing)."""
    rng = random.Random(seed)
    cases = []
    for plan in random_plans(count, seed=seed, facts=True):
        plan = plan.replace(
            version=rng.randint(1, 4),
            steps=[
                replace(
                    s,
                    expected_evidence=f"evidence of {s.id}"
                    if rng.random() < 0.6
                    else s.expected_evidence,
                    check=f"{s.id} checked" if rng.random() < 0.3 else s.check,
                )
                for s in plan.steps
            ],
        )
        graph = to_graph(plan)
        voided: set[str] = set()
        for sid in rng.sample(sorted(plan.ids), min(len(plan.ids), rng.choice((0, 1, 1, 1, 2)))):
            voided |= {sid, *nx.descendants(graph, sid)}
        cases.append((plan, frozenset(voided)))
    return cases
