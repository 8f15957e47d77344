"""How fast is ``validate`` on big plans? (``make bench``; never asserted in tests.)

Layered plans of 1k, 10k and 100k steps (width ~ sqrt(n), each step depends on
up to three steps of the layer before, requires one fact of each parent and of
one grandparent, produces its own fact, one resource per layer chain), with a
contract naming kinds, an order and every fact. Compared with:

- one ``networkx.topological_sort`` of the same (prebuilt) graph: the target
  is validation within 3x of it at 10k steps;
- a naive reference: per-step ``nx.ancestors`` sets for the ancestor rule and
  ``list.count`` for duplicate ids (O(V^2) time); not run where the estimate
  from the smaller sizes exceeds ``NAIVE_BUDGET`` seconds, and shown as that
  estimate (marked ``~``) instead.

Each timed call gets a fresh ``Plan``: the structural index validate shares
with analysis is cached once per Plan value, and the timings include building it.
Least CPU time of a few interleaved rounds (:func:`common.best`).
"""

from __future__ import annotations

import random
from typing import Any

import networkx as nx
from common import best, figure

from planviz import Contract, Plan, Step, to_graph, validate

SIZES = (1_000, 10_000, 100_000)
NAIVE_BUDGET = 20.0
TARGET = 3.0


def layered_plan(n: int, seed: int = 0) -> Plan:
    """A layered DAG of ``n`` steps with facts flowing along (and one layer beyond) its edges.

    It validates clean, without warnings, so validation is timed, not findings: each step holding a
    resource (a writer) states its check (issue 23 warns ``no_check`` otherwise).
    """
    rng = random.Random(seed)
    width = max(1, int(n**0.5))
    steps: list[Step] = []
    layers: list[list[str]] = []
    kinds = ("reproduce", "diagnose", "patch", "verify")
    parents: dict[str, list[str]] = {}
    held: dict[str, str] = {}
    claimed: set[str] = set()
    for i in range(n):
        layer, col = divmod(i, width)
        if col == 0:
            layers.append([])
        sid = f"S{i}"
        deps: list[str] = []
        if layer:
            prev = layers[layer - 1]
            deps = sorted(rng.sample(prev, min(3, len(prev))))
        requires = [f"f{d[1:]}" for d in deps]
        # a fact from two layers back, reachable only through a parent
        if deps and parents[deps[0]]:
            requires.append(f"f{parents[deps[0]][0][1:]}")
        parents[sid] = deps
        resource = None  # shared along chains of first parents, so sharers are always ordered
        if deps and deps[0] in held and deps[0] not in claimed:
            claimed.add(deps[0])
            resource = held[deps[0]]
        elif col % 10 == 0:
            resource = f"r{i}"
        if resource:
            held[sid] = resource
        # a writer says how to tell
        steps.append(
            Step(
                sid,
                f"step {i}",
                expected_evidence=f"evidence {i}",
                depends_on=deps,
                requires=requires,
                produces=[f"f{i}"],
                kind=kinds[min(layer, 3)] if col == 0 or layer == 0 else None,
                resources=[resource] if resource else (),
                check=f"r{i} holds what step {i} wrote" if resource else "",
            )
        )
        layers[-1].append(sid)
    return Plan(f"layered {n}", steps)


def layered_contract(plan: Plan) -> Contract:
    return Contract(
        required=["reproduce", "patch", "verify"],
        must_precede=[("reproduce", "verify")],
        obtainable_facts=[f for s in plan.steps for f in s.produces],
    )


def naive_validate(plan: Plan) -> dict[str, Any]:
    """The obvious O(V^2) reference: list.count duplicates, per-step ancestor sets."""
    ids = [s.id for s in plan.steps]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    g = to_graph(plan)
    acyclic = nx.is_directed_acyclic_graph(g)
    unmet = []
    if acyclic:
        ancestors = {v: nx.ancestors(g, v) for v in g}
        produced = {s.id: set(s.produces) for s in plan.steps}
        for s in plan.steps:
            for f in s.requires:
                if not any(f in produced[a] for a in ancestors[s.id]):
                    unmet.append((s.id, f))
    return {"duplicates": duplicates, "acyclic": acyclic, "unmet": unmet}


def main() -> dict[str, Any]:
    rows = []
    naive_rate = None  # seconds per step^2, measured at the sizes actually run
    for n in SIZES:
        plan = layered_plan(n)
        contract = layered_contract(plan)
        g = to_graph(plan)
        report = validate(plan, contract)
        assert not report.findings, report.to_text()[:500]  # clean: no error, no warning
        # interleaved, so both see the same machine load; validate's per-plan index is built inside the timing
        t = best(
            {
                "topo": lambda _: list(nx.topological_sort(g)),
                "validate": lambda p: validate(p, contract),
            },
            7 if n <= 10_000 else 2,
            lambda: Plan(plan.goal, plan.steps),
        )
        t_topo, t_val = t["topo"], t["validate"]
        t_naive, estimated = None, False
        if naive_rate is None or naive_rate * n * n <= NAIVE_BUDGET:
            ref: dict[str, Any] = {}
            t_naive = best({"naive": lambda _: ref.update(naive_validate(plan))}, 1)["naive"]
            assert ref["acyclic"] and not ref["duplicates"] and not ref["unmet"]
            naive_rate = t_naive / (n * n)
        else:
            t_naive, estimated = naive_rate * n * n, True
        rows.append(
            {
                "steps": n,
                "edges": g.number_of_edges(),
                "validate_s": t_val,
                "topological_sort_s": t_topo,
                "validate_over_topo": t_val / t_topo,
                "naive_s": t_naive,
                "naive_over_validate": t_naive / t_val,
                "naive_estimated": estimated,
            }
        )
    print(
        f"{'steps':>8} {'edges':>8} {'validate s':>11} {'topo sort s':>12} {'val/topo':>9} "
        f"{'naive s':>9} {'naive/val':>10}"
    )
    for r in rows:
        mark = "~" if r["naive_estimated"] else " "
        print(
            f"{r['steps']:>8} {r['edges']:>8} {r['validate_s']:11.4f} {r['topological_sort_s']:12.4f} "
            f"{r['validate_over_topo']:9.2f} {mark}{r['naive_s']:8.1f} {mark}{r['naive_over_validate']:9.0f}"
        )
    print(
        "each validate call runs on a fresh Plan, so the timings include building its shared index"
    )
    skipped = [r["steps"] for r in rows if r["naive_estimated"]]
    if skipped:
        print(
            f"~ naive reference not run at {skipped} steps (over {NAIVE_BUDGET:.0f} s): estimated from the "
            f"largest size run, as it grows with steps^2"
        )
    at = next(r for r in rows if r["steps"] == 10_000)
    shown = figure(
        "`validate` 10k layered, with a contract / one topological sort",
        at["validate_over_topo"],
        at_most=TARGET,
        detail=f"{at['validate_s']:.3f} s / {at['topological_sort_s']:.4f} s",
    )
    return {
        "figures": [shown],
        "rows": rows,
        "target": "validate within 3x of one topological_sort at 10k steps",
        "met": at["validate_over_topo"] <= TARGET,
    }


if __name__ == "__main__":
    main()
