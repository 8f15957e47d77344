"""What the loading, ancestry and start-up benchmarks share: the plans they time and how they time them.

Plans are random layered DAGs like those of issue 17's table: about sqrt(n)
steps per layer, each step depending on 1 to 4 steps of the layer before
(in-degree about 2.5), producing its own fact and requiring one fact: from a
dependency (``far=False``), or from an ancestor 2 to 20 levels up along a
random path of dependencies (``far=True``).
"""

from __future__ import annotations

import gc
import math
import os
import random
import time
from typing import Any, Callable

import networkx as nx

SIZES = (1_000, 10_000, 100_000)


def layered_data(
    n: int, *, far: bool = False, seed: int = 0, parents: int | None = None
) -> dict[str, Any]:
    """A plan of ``n`` steps as plain data (what ``json.load`` of a plan file gives): layers of sqrt(n) steps,
    each depending on 1 to 4 steps of the layer before (``parents=k``: up to ``k``, and its fact comes from the
    first of them) and requiring one fact of a dependency, or with ``far`` of an ancestor 2-20 levels up."""
    rng = random.Random(seed)
    width = max(2, int(n**0.5))
    up: dict[str, list[str]] = {}
    layers: list[list[str]] = []
    steps = []
    for i in range(n):
        layer, col = divmod(i, width)
        if col == 0:
            layers.append([])
        sid = f"S{i}"
        prev = layers[layer - 1] if layer else []
        if parents is None:
            deps = sorted(rng.sample(prev, min(rng.randint(1, 4), len(prev))))
        else:
            deps = rng.sample(prev, min(parents, len(prev)))
        step: dict[str, Any] = {
            "id": sid,
            "action": f"do step {i}",
            "expected_evidence": f"evidence {i}",
        }
        if deps:
            step["depends_on"] = deps
            source = rng.choice(deps) if parents is None else deps[0]
            if far and layer >= 2:
                for _ in range(rng.randint(2, min(20, layer)) - 1):
                    source = rng.choice(up[source])
            step["requires"] = [f"f{source[1:]}"]
        step["produces"] = [f"f{i}"]
        steps.append(step)
        up[sid] = deps
        layers[-1].append(sid)
    return {"goal": f"layered plan of {n} steps", "steps": steps}


def digraph(data: dict[str, Any]) -> nx.DiGraph:
    """The plan's dependency graph, bare: the graph the floor's topological sort walks."""
    g = nx.DiGraph()
    g.add_nodes_from(s["id"] for s in data["steps"])
    g.add_edges_from((d, s["id"]) for s in data["steps"] for d in s.get("depends_on", ()))
    return g


def timings(
    fns: dict[str, Callable[[Any], Any]],
    repeat: int,
    fresh: Callable[[], Any] = lambda: None,
    *,
    paused: frozenset[str] = frozenset(),
) -> dict[str, list[float]]:
    """The CPU times of each function over ``repeat`` interleaved rounds.

    Each call gets ``fresh()`` (made outside the timed region). CPU time
    (``time.process_time``), the functions taking turns in each round, so
    other work on a shared machine skews the ratios less. The collector runs
    as it would for a user, except for the functions named in ``paused``.
    """
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            arg = fresh()
            gc.collect()
            if name in paused:
                gc.disable()
            try:
                t = time.process_time()
                fn(arg)
                times[name].append(time.process_time() - t)
            finally:
                gc.enable()
    return times


def best(
    fns: dict[str, Callable[[Any], Any]],
    repeat: int,
    fresh: Callable[[], Any] = lambda: None,
    *,
    paused: frozenset[str] = frozenset(),
) -> dict[str, float]:
    """The least CPU time of each function over ``repeat`` interleaved rounds (see :func:`timings`)."""
    return {
        name: min(ts, default=math.inf)
        for name, ts in timings(fns, repeat, fresh, paused=paused).items()
    }


def exponent(sizes: list[int], seconds: list[float]) -> list[float | None]:
    """The scaling exponent k of t ~ n^k between each size and the one before (None for the first)."""
    return [None] + [
        math.log(t1 / t0) / math.log(n1 / n0) if t0 > 0 and t1 > 0 else None
        for n0, n1, t0, t1 in zip(sizes, sizes[1:], seconds, seconds[1:])
    ]


def show_exponent(k: float | None) -> str:
    return "-" if k is None else f"{k:.2f}"


def repeats(n: int) -> int:
    return 7 if n <= 10_000 else 3


def load() -> float:
    """The 1-minute load average (what else the shared machine was doing)."""
    try:
        return round(os.getloadavg()[0], 1)
    except OSError:
        return math.nan


def figure(
    what: str,
    value: float,
    *,
    at_most: float | None = None,
    at_least: float | None = None,
    unit: str = "x",
    detail: str = "",
) -> dict[str, Any]:
    """One measured figure beside its goal: printed now, returned for ``run.py``'s summary and docs/benchmarks.md.

    ``unit`` follows the number ("x" for a ratio, " s", " MB", "" for an exponent);
    ``at_most``/``at_least`` is the goal (neither: a figure shown without one).
    """
    goal = at_most if at_most is not None else at_least
    met = None if goal is None else (value <= goal if at_most is not None else value >= goal)
    out = {
        "figure": what,
        "value": value,
        "unit": unit,
        "goal": "" if goal is None else f"{'<=' if at_most is not None else '>='} {goal:g}{unit}",
        "met": met,
        "load": load(),
        "detail": detail,
    }
    verdict = {True: "met", False: "MISSED", None: ""}[met]
    print(
        f"  {what:<60} {value:9.3g}{unit:<3} {out['goal']:>9}  {verdict:<6} load {out['load']:<4} {detail}",
        flush=True,
    )
    return out
