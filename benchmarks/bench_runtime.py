"""Speed and memory of runs: simulate, and traces written and read back, at 1k, 10k and 100k steps.

Floor: one ``critical_path`` of the same plan (a fresh ``Plan`` value, so its
structural index is built inside the call, as simulate builds it too); the
issue's target is simulate within 10x of it at 10k steps. Events record what
they changed, so a run's memory grows with events + steps: the table shows
the bytes a run holds per (event + step), which stays flat as plans grow,
and the scaling exponent between sizes (1 = linear). Times are the least CPU
time (``time.process_time``) of a few interleaved repeats.

Run: ``.venv/bin/python benchmarks/bench_runtime.py`` (or ``make bench``).
"""

from __future__ import annotations

import math
import os
import random
import tempfile
import time
import tracemalloc

from planviz import Fault, Plan, Step, critical_path, load_trace, save_trace, simulate

SIZES = (1_000, 10_000, 100_000)
TARGET = 10.0  # simulate / critical_path at 10k steps


def make_plan(n: int, width: int = 20, seed: int = 0) -> Plan:
    """Steps in layers of ``width``, each depending on up to two steps of the layer before and requiring their facts."""
    rng = random.Random(seed)
    steps = []
    for i in range(n):
        layer = i // width
        before = range((layer - 1) * width, layer * width) if layer else range(0)
        deps = sorted(rng.sample(list(before), min(2, len(before))))
        steps.append(Step(f"S{i:06d}", f"step {i}", expected_evidence="e", depends_on=[f"S{j:06d}" for j in deps],
                          requires=[f"f{j}" for j in deps], produces=[f"f{i}"], duration=rng.randint(1, 9),
                          kind="patch" if i % 7 == 0 else None))
    return Plan("benchmark", steps)


def best(fns: dict, repeats: int) -> dict[str, float]:
    """Least CPU time of each function over interleaved rounds (each gets its own fresh arguments)."""
    times = dict.fromkeys(fns, math.inf)
    for _ in range(repeats):
        for name, fn in fns.items():
            args = fn[1]()
            t = time.process_time()
            fn[0](*args)
            times[name] = min(times[name], time.process_time() - t)
    return times


def held_bytes(make) -> int:
    """Bytes still allocated by what ``make()`` returns (tracemalloc, measured apart from the timings)."""
    tracemalloc.start()
    kept = make()
    size = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del kept
    return size


def exponent(rows: list[dict], key: str) -> list[str]:
    return [f"{math.log(b[key] / a[key]) / math.log(b['steps'] / a['steps']):.2f}" if a[key] and b[key] else "-"
            for a, b in zip(rows, rows[1:])]


def main() -> dict:
    rows = []
    for n in SIZES:
        steps = make_plan(n).steps
        fault = Fault(f"S{n // 2:06d}", "side_effect")
        repeats = 5 if n <= 10_000 else 2
        times = best({"critical_path": (critical_path, lambda: (Plan("benchmark", steps),)),
                      "simulate": (simulate, lambda: (Plan("benchmark", steps),)),
                      "simulate_fault": (lambda p: simulate(p, faults=[fault]), lambda: (Plan("benchmark", steps),))},
                     repeats)
        run = simulate(Plan("benchmark", steps))
        memory = held_bytes(lambda: simulate(Plan("benchmark", steps))) if n <= 10_000 else None
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "run.jsonl")
            io = best({"save": (save_trace, lambda: (run, path)), "load": (load_trace, lambda: (path,))}, 2)
            size = os.path.getsize(path)
        rows.append({"steps": n, "events": len(run.events), **times, **io, "trace_bytes": size,
                     "ratio": times["simulate"] / times["critical_path"],
                     "fault_ratio": times["simulate_fault"] / times["critical_path"],
                     "bytes_per_item": memory / (len(run.events) + n) if memory else None})
    print(f"{'steps':>8} {'events':>8} {'cp s':>7} {'simulate s':>10} {'x cp':>6} {'+fault x':>8} {'B/(ev+st)':>9} "
          f"{'save s':>7} {'load s':>7} {'trace B/ev':>10}")
    for r in rows:
        per = f"{r['bytes_per_item']:9.0f}" if r["bytes_per_item"] else f"{'-':>9}"
        print(f"{r['steps']:>8} {r['events']:>8} {r['critical_path']:7.3f} {r['simulate']:10.3f} {r['ratio']:6.1f} "
              f"{r['fault_ratio']:8.1f} {per} {r['save']:7.3f} {r['load']:7.3f} {r['trace_bytes'] / r['events']:10.0f}")
    print(f"floor: one critical_path of the same plan (fresh Plan). target: simulate <= {TARGET:.0f}x at 10k steps.")
    print(f"scaling exponents between sizes (1 = linear): simulate {', '.join(exponent(rows, 'simulate'))}; "
          f"load_trace {', '.join(exponent(rows, 'load'))}")
    met = next(r["ratio"] for r in rows if r["steps"] == 10_000) <= TARGET
    print(f"target met: {'yes' if met else 'NO'}")
    return {"rows": rows, "target_met": met}


if __name__ == "__main__":
    main()
