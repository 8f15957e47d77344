"""How fast do big plans load and become graphs? (``make bench``; never asserted in tests.)

Three lines of issue 17's table, on the layered plans of :mod:`common` at 1k,
10k and 100k steps, each as a ratio to the floor the issue names:

- ``Plan.from_dict(data)`` against one ``networkx.topological_sort`` of the
  same, prebuilt graph (target: within 3x at 100k);
- ``load_plan(path)`` of the plan as a JSON file (one line, as ``json.dump``
  writes it) against ``json.load`` of that file plus one topological sort
  (target: within 4x at 100k). ``json.load`` runs as a user would run it,
  with the garbage collector on; planviz pauses it while it parses and
  builds (nothing it allocates forms a cycle), so the table also gives the
  ratio to ``json.load`` with the collector paused;
- ``to_graph(plan)`` against building the same ``networkx.DiGraph`` directly:
  ``add_nodes_from`` and ``add_edges_from`` with every node's and edge's
  attributes already made, the collector paused in both (target: within
  1.5x).

Between sizes, the scaling exponent k of t ~ n^k. Least CPU time of a few
interleaved rounds (:func:`common.best`).

Run: ``.venv/bin/python benchmarks/bench_loading.py`` (or ``make bench``).
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

import networkx as nx
from common import SIZES, best, digraph, exponent, figure, layered_data, repeats, show_exponent

from planviz import Plan, load_plan, to_graph

try:
    from planviz.structure.graph import NODE_FIELDS
except ImportError:  # an older layout
    from planviz.graph import NODE_FIELDS  # type: ignore[no-redef]

TARGETS = {"from_dict": 3.0, "load_plan": 4.0, "to_graph": 1.5}


def direct_graph(plan: Plan):
    """What to_graph builds, as the floor builds it: the attributes made beforehand, then two NetworkX calls."""
    steps = {}
    for s in plan.steps:
        steps.setdefault(s.id, s)
    nodes = [(sid, {k: getattr(s, k) for k in NODE_FIELDS}) for sid, s in steps.items()]
    edges = [
        (d, sid, {"facts": tuple(f for f in s.requires if f in steps[d].produces)})
        for sid, s in steps.items()
        for d in s.depends_on
        if d in steps
    ]
    graph = {
        k: getattr(plan, k)
        for k in ("goal", "premises", "unknowns", "version", "trigger", "invalidated", "time_unit")
    }

    def build(_: Any) -> nx.DiGraph:
        g = nx.DiGraph(**graph)
        g.add_nodes_from(nodes)
        g.add_edges_from(edges)
        return g

    return build


def measure(n: int, folder: str) -> dict[str, Any]:
    data = layered_data(n)
    path = os.path.join(folder, f"plan{n}.json")
    with open(path, "w", encoding="utf-8") as out:
        json.dump(data, out)
    g = digraph(data)
    plan = Plan.from_dict(data)
    build = direct_graph(plan)
    assert nx.utils.graphs_equal(build(None), to_graph(plan))
    with open(path, encoding="utf-8") as f:
        assert load_plan(path) == Plan.from_dict(json.load(f)) == plan

    def json_load(_: Any) -> Any:
        with open(path, encoding="utf-8") as f:
            return json.load(f)

    t = best(
        {
            "topo": lambda _: list(nx.topological_sort(g)),
            "json_load": json_load,
            "json_load_paused": json_load,
            "from_dict": lambda _: Plan.from_dict(data),
            "load_plan": lambda _: load_plan(path),
            "direct": build,
            "to_graph": to_graph,
        },
        repeats(n),
        lambda: Plan(plan.goal, plan.steps),
        paused=frozenset({"json_load_paused", "direct"}),
    )
    return {
        "steps": n,
        "edges": g.number_of_edges(),
        "bytes": os.path.getsize(path),
        **t,
        "from_dict_ratio": t["from_dict"] / t["topo"],
        "load_plan_ratio": t["load_plan"] / (t["json_load"] + t["topo"]),
        "load_plan_ratio_paused": t["load_plan"] / (t["json_load_paused"] + t["topo"]),
        "to_graph_ratio": t["to_graph"] / t["direct"],
    }


def main() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        rows = [measure(n, folder) for n in SIZES]
    sizes = [r["steps"] for r in rows]
    for key in ("from_dict", "load_plan", "to_graph", "topo", "json_load", "direct"):
        for r, k in zip(rows, exponent(sizes, [r[key] for r in rows])):
            r[f"{key}_exponent"] = k
    print(
        f"{'what':<11}{'steps':>8}{'edges':>8}{'MB':>6}{'s':>8}{'floor s':>9}{'ratio':>7}{'target':>7}{'k':>6}"
        f"{'floor k':>8}"
    )
    lines = [
        ("from_dict", "topo", "from_dict_ratio"),
        ("load_plan", None, "load_plan_ratio"),
        ("to_graph", "direct", "to_graph_ratio"),
    ]
    for what, floor, ratio in lines:
        for r in rows:
            floor_s = r[floor] if floor else r["json_load"] + r["topo"]
            floor_k = show_exponent(r[f"{floor or 'json_load'}_exponent"])
            print(
                f"{what:<11}{r['steps']:>8}{r['edges']:>8}{r['bytes'] / 1e6:6.1f}{r[what]:8.3f}{floor_s:9.3f}"
                f"{r[ratio]:7.2f}{TARGETS[what]:6.1f}x{show_exponent(r[f'{what}_exponent']):>6}{floor_k:>8}"
            )
    print(
        "floors: from_dict = one networkx.topological_sort of the prebuilt graph; load_plan = json.load of the "
        "file (collector on,\nas users run it) + that sort; to_graph = add_nodes_from + add_edges_from with the "
        "attributes made beforehand\n(collector paused in both). k = scaling exponent from the size before."
    )
    print(
        "load_plan over json.load with the collector paused too: "
        + ", ".join(f"{r['load_plan_ratio_paused']:.2f}x at {r['steps']:,}" for r in rows)
    )
    big = rows[-1]
    met = {what: big[ratio] <= TARGETS[what] for what, _, ratio in lines}
    print(
        "targets at 100k: " + ", ".join(f"{w} {'met' if ok else 'MISSED'}" for w, ok in met.items())
    )
    return {"figures": figures(rows), "rows": rows, "targets": TARGETS, "met_at_100k": met}


def figures(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The goals beside their figures: from_dict and load_plan at 100k (where their goals are set), to_graph at
    every size (its goal names none)."""
    big = rows[-1]
    size = f"{big['steps'] // 1000}k"
    out = [
        figure(
            f"`Plan.from_dict` {size} / one topological sort",
            big["from_dict_ratio"],
            at_most=TARGETS["from_dict"],
            detail=f"{big['from_dict']:.3f} s / {big['topo']:.4f} s",
        ),
        figure(
            f"`load_plan` of the JSON file {size} / `json.load` + the sort",
            big["load_plan_ratio"],
            at_most=TARGETS["load_plan"],
            detail=f"{big['load_plan']:.3f} s / {big['json_load']:.3f} s + "
            f"{big['topo']:.4f} s; {big['bytes'] / 1e6:.0f} MB",
        ),
    ]
    for r in rows:
        out.append(
            figure(
                f"`to_graph` {r['steps'] // 1000}k / the same DiGraph built directly",
                r["to_graph_ratio"],
                at_most=TARGETS["to_graph"],
                detail=f"{r['to_graph']:.3f} s / {r['direct']:.3f} s",
            )
        )
    return out


if __name__ == "__main__":
    main()
