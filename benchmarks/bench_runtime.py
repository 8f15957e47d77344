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

import os
import random
import tempfile
import tracemalloc

from common import best, exponent, figure, show_exponent

from planviz import Fault, Plan, Step, critical_path, load_trace, save_trace, simulate

SIZES = (1_000, 10_000, 100_000)
TARGET = 10.0  # simulate / critical_path at 10k steps
LINEAR = 1.15  # issue 28: "linear" is a time exponent of at most this between the two largest sizes


def make_plan(n: int, width: int = 20, seed: int = 0) -> Plan:
    """Steps in layers of ``width``, each depending on up to two steps of the layer before and requiring their facts."""
    rng = random.Random(seed)
    steps = []
    for i in range(n):
        layer = i // width
        before = range((layer - 1) * width, layer * width) if layer else range(0)
        deps = sorted(rng.sample(list(before), min(2, len(before))))
        steps.append(
            Step(
                f"S{i:06d}",
                f"step {i}",
                expected_evidence="e",
                depends_on=[f"S{j:06d}" for j in deps],
                requires=[f"f{j}" for j in deps],
                produces=[f"f{i}"],
                duration=rng.randint(1, 9),
                kind="patch" if i % 7 == 0 else None,
            )
        )
    return Plan("benchmark", steps)


def held_bytes(make) -> int:
    """Bytes still allocated by what ``make()`` returns (tracemalloc, measured apart from the timings)."""
    tracemalloc.start()
    kept = make()
    size = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del kept
    return size


def exponents(rows: list[dict], key: str) -> list[float | None]:
    """The time exponent of ``key`` between each size and the one before (:func:`common.exponent`)."""
    return exponent([r["steps"] for r in rows], [r[key] for r in rows])[1:]


def figures(rows: list[dict]) -> list[dict]:
    """Each goal docs/benchmarks.md states for runs, beside what this run measured."""
    at = {r["steps"]: r for r in rows}
    ten, a, b = at[10_000], rows[-2], rows[-1]
    sizes = f"{a['steps'] // 1000}k -> {b['steps'] // 1000}k steps"
    out = [
        figure(
            "`simulate` 10k steps / one `critical_path`",
            ten["ratio"],
            at_most=TARGET,
            detail=f"{ten['simulate']:.3f} s / {ten['critical_path']:.3f} s",
        )
    ]
    held = [r for r in rows if r["memory"]]
    if len(held) > 1:
        m0, m1 = held[-2], held[-1]
        items = [r["events"] + r["steps"] for r in (m0, m1)]
        k = exponent(items, [m0["memory"], m1["memory"]])[-1]
        out.append(
            figure(
                f"`simulate` memory {m0['steps'] // 1000}k -> {m1['steps'] // 1000}k steps, "
                "exponent in events + steps",
                k,
                at_most=LINEAR,
                unit="",
                detail=f"{m0['bytes_per_item']:.0f} -> {m1['bytes_per_item']:.0f} bytes per (event + "
                "step); not measured at 100k",
            )
        )
    for key, what in (
        ("simulate_fault", "`simulate` with a side effect"),
        ("save", "`save_trace`"),
        ("load", "`load_trace`"),
    ):
        out.append(
            figure(
                f"{what} {sizes}, time exponent",
                exponents(rows, key)[-1],
                at_most=LINEAR,
                unit="",
                detail=f"{a[key]:.3f} s -> {b[key]:.3f} s",
            )
        )
    return out


def main() -> dict:
    rows = []
    for n in SIZES:
        steps = make_plan(n).steps
        fault = Fault(f"S{n // 2:06d}", "side_effect")
        repeats = 5 if n <= 10_000 else 2
        times = best(
            {
                "critical_path": critical_path,
                "simulate": simulate,
                "simulate_fault": lambda p: simulate(p, faults=[fault]),
            },
            repeats,
            lambda: Plan("benchmark", steps),
        )
        run = simulate(Plan("benchmark", steps))
        memory = held_bytes(lambda: simulate(Plan("benchmark", steps))) if n <= 10_000 else None
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "run.jsonl")
            io = best(
                {"save": lambda _: save_trace(run, path), "load": lambda _: load_trace(path)}, 2
            )
            size = os.path.getsize(path)
        rows.append(
            {
                "steps": n,
                "events": len(run.events),
                **times,
                **io,
                "trace_bytes": size,
                "memory": memory,
                "ratio": times["simulate"] / times["critical_path"],
                "fault_ratio": times["simulate_fault"] / times["critical_path"],
                "bytes_per_item": memory / (len(run.events) + n) if memory else None,
            }
        )
    print(
        f"{'steps':>8} {'events':>8} {'cp s':>7} {'simulate s':>10} {'x cp':>6} {'+fault x':>8} {'B/(ev+st)':>9} "
        f"{'save s':>7} {'load s':>7} {'trace B/ev':>10}"
    )
    for r in rows:
        per = f"{r['bytes_per_item']:9.0f}" if r["bytes_per_item"] else f"{'-':>9}"
        print(
            f"{r['steps']:>8} {r['events']:>8} {r['critical_path']:7.3f} {r['simulate']:10.3f} {r['ratio']:6.1f} "
            f"{r['fault_ratio']:8.1f} {per} {r['save']:7.3f} {r['load']:7.3f} {r['trace_bytes'] / r['events']:10.0f}"
        )
    print(
        f"floor: one critical_path of the same plan (fresh Plan). target: simulate <= {TARGET:.0f}x at 10k steps."
    )
    print(
        f"scaling exponents between sizes (1 = linear): simulate "
        f"{', '.join(map(show_exponent, exponents(rows, 'simulate')))}; "
        f"load_trace {', '.join(map(show_exponent, exponents(rows, 'load')))}"
    )
    met = next(r["ratio"] for r in rows if r["steps"] == 10_000) <= TARGET
    print(f"target met: {'yes' if met else 'NO'}")
    return {"figures": figures(rows), "rows": rows, "target_met": met}


if __name__ == "__main__":
    main()
