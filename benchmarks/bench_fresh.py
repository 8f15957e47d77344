"""Issue 28's figures, measured the way users meet them (``make bench``; never asserted in tests).

Each timed call gets a FRESH plan, made by ``Plan.from_dict`` outside the
timed region, so nothing a call builds and keeps on a plan is reused by the
next; each figure is a ratio of medians of interleaved rounds in this one
process (the floor and the operation take turns, so load on a shared machine
moves both), printed beside its goal with the load average it was measured
under. The plans (:func:`two_parent_data`): layers of sqrt(n) steps, each
depending on up to two steps of the layer before and requiring one fact of
its first dependency, or (``far``) a fact produced 2 to 20 levels up along a
random path of dependencies.

- ``to_graph`` of 50k steps / building the same ``nx.DiGraph`` directly
  (``add_nodes_from``/``add_edges_from``, attributes made beforehand, the
  collector paused in both): goal 1.5x;
- ``Plan.from_dict`` of 50k steps / one ``nx.topological_sort`` of the same,
  prebuilt graph: goal 3x;
- ``validate`` of a 50k-step far-fact plan / that sort: goal 3x;
- ``planviz validate small.yaml``, the whole process, CPU time (user + system)
  / ``python -c pass``: goal 4x;
- ``simulate``'s time exponent from 3k to 12k steps: goal 1.15; the floor's
  exponent (the sort, measured the same way) is printed beside it, since
  caches make every pass over a plan that no longer fits in them grow
  faster than linear on this machine.

Run: ``.venv/bin/python benchmarks/bench_fresh.py`` (or ``make bench``).
"""

from __future__ import annotations

import gc
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import networkx as nx
from bench_loading import direct_graph
from bench_startup import YAML_PLAN, environment, script
from common import digraph, figure, layered_data, timings

from planviz import Plan, simulate, to_graph, validate

GOALS = {
    "to_graph": 1.5,
    "from_dict": 3.0,
    "validate_far": 3.0,
    "startup": 4.0,
    "simulate_exponent": 1.15,
}
BIG = 50_000
ROUNDS = 7
START_ROUNDS = 21


def two_parent_data(n: int, *, far: bool = False, seed: int = 0) -> dict[str, Any]:
    """Issue 28's layered plan of ``n`` steps as plain data (see the module docstring)."""
    return layered_data(n, far=far, seed=seed, parents=2)


def medians(
    fns: dict[str, Callable[[Any], Any]],
    fresh: Callable[[], Any],
    rounds: int = ROUNDS,
    paused: frozenset[str] = frozenset(),
) -> dict[str, float]:
    """The median CPU time of each function over interleaved rounds, each call on its own ``fresh()``."""
    return {
        name: statistics.median(ts)
        for name, ts in timings(fns, rounds, fresh, paused=paused).items()
    }


def in_process() -> dict[str, Any]:
    out = []
    data = two_parent_data(BIG)
    g = digraph(data)
    plan = Plan.from_dict(data)
    build = direct_graph(plan)
    assert nx.utils.graphs_equal(build(None), to_graph(plan))
    t = medians(
        {
            "topo": lambda _: list(nx.topological_sort(g)),
            "direct": build,
            "to_graph": to_graph,
            "from_dict": lambda _: Plan.from_dict(data),
        },
        lambda: Plan.from_dict(data),
        paused=frozenset({"direct"}),
    )
    out.append(
        figure(
            "`to_graph` 50k / the same DiGraph built directly",
            t["to_graph"] / t["direct"],
            at_most=GOALS["to_graph"],
            detail=f"{t['to_graph']:.3f} s / {t['direct']:.3f} s",
        )
    )
    out.append(
        figure(
            "`Plan.from_dict` 50k / one topological sort",
            t["from_dict"] / t["topo"],
            at_most=GOALS["from_dict"],
            detail=f"{t['from_dict']:.3f} s / {t['topo']:.3f} s",
        )
    )
    far = two_parent_data(BIG, far=True)
    g = digraph(far)
    assert not validate(Plan.from_dict(far)).errors
    t = medians(
        {"topo": lambda _: list(nx.topological_sort(g)), "validate": validate},
        lambda: Plan.from_dict(far),
    )
    out.append(
        figure(
            "`validate` 50k, facts 2-20 levels up / the sort",
            t["validate"] / t["topo"],
            at_most=GOALS["validate_far"],
            detail=f"{t['validate']:.3f} s / {t['topo']:.3f} s",
        )
    )
    sizes = (3_000, 12_000)
    datas = {n: two_parent_data(n) for n in sizes}
    graphs = {n: digraph(d) for n, d in datas.items()}
    for d in datas.values():
        simulate(Plan.from_dict(d))
    times: dict[tuple[str, int], list[float]] = {
        (k, n): [] for k in ("simulate", "topo") for n in sizes
    }
    for _ in range(ROUNDS + 4):
        for n in sizes:
            p = Plan.from_dict(datas[n])
            gc.collect()
            t0 = time.process_time()
            simulate(p)
            t1 = time.process_time()
            list(nx.topological_sort(graphs[n]))
            times["simulate", n].append(t1 - t0)
            times["topo", n].append(time.process_time() - t1)
    m = {k: statistics.median(v) for k, v in times.items()}
    k_sim, k_topo = (
        math.log(m[w, sizes[1]] / m[w, sizes[0]]) / math.log(sizes[1] / sizes[0])
        for w in ("simulate", "topo")
    )
    out.append(
        figure(
            "`simulate`, time exponent 3k -> 12k steps",
            k_sim,
            at_most=GOALS["simulate_exponent"],
            unit="",
            detail=f"{m['simulate', 3000]:.3f} s -> {m['simulate', 12000]:.3f} s; the sort's "
            f"exponent {k_topo:.2f}",
        )
    )
    return out


def cpu_of(cmd: list[str], env: dict[str, str], cwd: str) -> float:
    """User + system CPU seconds of one run of ``cmd`` (its whole process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def startup() -> dict[str, Any]:
    work = tempfile.mkdtemp(prefix="planviz-bench-")
    try:
        Path(work, "small.yaml").write_text(YAML_PLAN, encoding="utf-8")
        env = environment(os.path.join(work, "pycache"))
        env["PYTHONPATH"] = os.pathsep.join(
            [str(Path(__file__).resolve().parent.parent), env.get("PYTHONPATH", "")]
        ).rstrip(os.pathsep)
        entry = script()
        commands = {
            "pass": [sys.executable, "-c", "pass"],
            "validate": [entry, "validate", "small.yaml"]
            if entry
            else [sys.executable, "-m", "planviz", "validate", "small.yaml"],
        }
        for cmd in commands.values():  # bytecode written, files in the page cache
            cpu_of(cmd, env, work)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(START_ROUNDS):
            for name, cmd in commands.items():
                times[name].append(cpu_of(cmd, env, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    m = {name: statistics.median(ts) for name, ts in times.items()}
    return figure(
        "`planviz validate small.yaml` / `python -c pass`",
        m["validate"] / m["pass"],
        at_most=GOALS["startup"],
        detail=f"CPU {m['validate'] * 1e3:.0f} ms / {m['pass'] * 1e3:.0f} ms, whole process",
    )


def main() -> dict[str, Any]:
    print(
        "figures: a fresh plan per call, medians of interleaved rounds; load = the 1-minute load average"
    )
    return {"figures": [*in_process(), startup()]}


if __name__ == "__main__":
    main()
