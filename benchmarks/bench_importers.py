"""Do the planner importers read big planner outputs in linear time? (``make bench``; never asserted in tests.)

Issue 29's shapes, each at 10k and 100k items, read with ``planviz.parse_plans``
from the text a planner (or an attacker) would give:

- TaskBench, one tool used by every node (``Same`` -> ``Same`` links: every
  link ambiguous); it took about n^3.3 (61 s at 800 nodes) when each link
  rebuilt the id list, searched it, and sorted its candidates by position;
- TaskBench, distinct tools chained by links and ``<node-k>`` references
  (64 s at 30k before);
- NESTFUL, a chain of calls each reading the previous one's ``$varK.y$``
  (98 s at 100k before: each reference scanned every earlier call).

Target: the 100k time within 1.3x of ten times the 10k time (``ratio`` below:
t(100k) / (10 t(10k)); 1.0 is exactly linear), each printed again at the end
beside the target (:func:`common.figure`). Least CPU time of a few rounds
(:func:`common.best`).

Run: ``.venv/bin/python benchmarks/bench_importers.py`` (or ``make bench``).
"""

from __future__ import annotations

import json
from typing import Any, Callable

from common import best, figure

from planviz import parse_plans

SIZES = (10_000, 100_000)
TARGET = 1.3


def taskbench_same_tool(n: int) -> str:
    nodes = [{"task": "Same", "arguments": [f"<node-{i - 1}>" if i else "x.jpg"]} for i in range(n)]
    links = [{"source": "Same", "target": "Same"} for _ in range(1, n)]
    return json.dumps({"user_request": "r", "task_nodes": nodes, "task_links": links})


def taskbench_distinct(n: int) -> str:
    nodes = [
        {"task": f"T{i}", "arguments": [f"<node-{i - 1}>" if i else "x.jpg"]} for i in range(n)
    ]
    links = [{"source": f"T{i - 1}", "target": f"T{i}"} for i in range(1, n)]
    return json.dumps({"user_request": "r", "task_nodes": nodes, "task_links": links})


def nestful_chain(n: int) -> str:
    calls = [
        {
            "name": f"f{i}",
            "arguments": {"x": f"$var{i - 1}.y$" if i > 1 else "a"},
            "label": f"var{i}",
        }
        for i in range(1, n + 1)
    ]
    return json.dumps({"input": "q", "output": calls})


SHAPES: dict[str, Callable[[int], str]] = {
    "taskbench_same_tool": taskbench_same_tool,
    "taskbench_distinct": taskbench_distinct,
    "nestful": nestful_chain,
}


def main() -> dict[str, Any]:
    results: dict[str, Any] = {}
    shown = []
    print(f"{'shape':<22}" + "".join(f"{n:>12,}" for n in SIZES) + f"{'ratio':>9}  target")
    for name, make in SHAPES.items():
        seconds = []
        for n in SIZES:
            text = make(n)
            [plan] = parse_plans(text)
            assert len(plan.steps) == n
            seconds.append(
                best({"read": lambda _: parse_plans(text)}, 3 if n <= 10_000 else 1)["read"]
            )
        ratio = seconds[1] / (10 * seconds[0])
        results[name] = {"seconds": dict(zip(SIZES, seconds)), "ratio": round(ratio, 2)}
        shown.append((name, ratio, f"{seconds[0]:.2f} s -> {seconds[1]:.2f} s"))
        print(
            f"{name:<22}"
            + "".join(f"{t:>11.2f}s" for t in seconds)
            + f"{ratio:>9.2f}  {'ok' if ratio <= TARGET else 'OVER'} (<= {TARGET})"
        )
    a, b = SIZES[0] // 1000, SIZES[-1] // 1000
    results["figures"] = [
        figure(f"`parse_plans` {name}, {b}k / (10 x {a}k)", ratio, at_most=TARGET, detail=detail)
        for name, ratio, detail in shown
    ]
    return results


if __name__ == "__main__":
    main()
