"""Measure Graphviz layouts and fit planviz's layout cost model (run by hand; `make bench` only checks it).

For each plan shape (benchmarks/shapes.py) this builds the picture
:func:`planviz.render` would lay out, computes the features the cost model
uses (:func:`planviz.pictures.budget.view_features`), and lays it out in a
child process (:func:`planviz.pictures.layout.lay_out`), which reports the
CPU time of ``dot`` and its peak memory. It then fits

    ln seconds = a + b ln N + c ln W + d (ln N)(ln W) + e ln(1 + X)    (least squares on the log)
    bytes      = m0 + m1 V + m2 X + m3 E                               (least squares on relative error)

(N: nodes dot lays out, virtual ones included; X: the virtual ones; V: the real ones; W: the widest rank;
E: edges).

and writes every measurement and both fits to benchmarks/layout_cost.json.
Copy the printed coefficients into planviz/pictures/budget.py.

    .venv/bin/python benchmarks/fit_layout_cost.py --measure  # measure every case (15 min to an hour) and fit
    .venv/bin/python benchmarks/fit_layout_cost.py            # measure only the cases not stored yet, and fit
"""

from __future__ import annotations

import json
import math
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import shapes  # noqa: E402

from planviz import critical_path, render  # noqa: E402
from planviz.errors import LayoutTimeout  # noqa: E402
from planviz.pictures import drawing  # noqa: E402
from planviz.pictures.budget import view_features  # noqa: E402
from planviz.pictures.focus import plan_view  # noqa: E402

DATA = HERE / "layout_cost.json"
REPORT = HERE / "layout_cost.md"
TIMEOUT, MEMORY = 600.0, 6 * 2**30
MIN_SECONDS = 0.01  # shorter layouts are timer noise, left out of the time fit

# name, plan, render options (the view is the one render draws with them)
CASES = [
    *((f"layered-{n}", lambda n=n: shapes.layered(n), {}) for n in (100, 300, 500, 800, 1200)),
    *((f"layered-wide-{n}", lambda n=n: shapes.layered(n, 30), {}) for n in (300, 1000)),
    *(
        (f"layered-nofacts-{n}", lambda n=n: shapes.layered(n, facts=False), {})
        for n in (1000, 2000, 4000)
    ),
    ("layered-deep-300", lambda: shapes.layered(300, back=10, fan_in=(2, 5)), {}),
    ("layered-short-labels-500", lambda: shapes.layered(500, action="x"), {}),
    (
        "layered-long-labels-500",
        lambda: shapes.layered(500, action="{i} " + "a long action text " * 15),
        {},
    ),
    *((f"chain-{n}", lambda n=n: shapes.chain(n), {}) for n in (500, 2000, 8000)),
    *((f"fan-{n}", lambda n=n: shapes.fan(n), {}) for n in (500, 2000)),
    *(
        (f"far-back-{k}-{n}", lambda n=n, k=k: shapes.far_back(n, k), {})
        for k, n in ((2, 100), (2, 200), (4, 60), (4, 100), (4, 200), (8, 30), (8, 60))
    ),
    ("far-back-nofacts-4-200", lambda: shapes.far_back(200, 4, facts=False), {}),
    *((f"dense-{n}", lambda n=n: shapes.dense(n), {}) for n in (15, 20, 25, 30, 35, 40)),
    *((f"dense-facts-{n}", lambda n=n: shapes.dense(n, facts=True), {}) for n in (15, 20, 25)),
    *(
        (f"skips-{n}x{k}", lambda n=n, k=k: shapes.skips(n, k), {})
        for n, k in ((300, 5), (600, 5), (300, 10), (1200, 2))
    ),
    ("focused-layered-2000", lambda: shapes.layered(2000), {"max_steps": 300}),
    ("focused-layered-5000-S2500", lambda: shapes.layered(5000), {"focus": "S2500", "hops": 3}),
    (
        "focused-far-back-2000-S1000",
        lambda: shapes.far_back(2000, 3),
        {"focus": "S1000", "hops": 2},
    ),
]
_MAX = {"max_steps": None}


def measure(name: str, plan, options: dict) -> dict:
    """Lay the picture render draws out in a child process; its features, CPU seconds and peak bytes."""
    # as render chooses it
    view = plan_view(plan, **{**_MAX, **options}, critical=critical_path(plan).path)
    features = view_features(plan, view)
    got: dict = {}

    def in_child(graph, **_):
        started = time.perf_counter()
        try:
            got["layout"] = real(graph, in_child=True, timeout=TIMEOUT, memory=MEMORY)
        except LayoutTimeout as exc:
            got["error"] = str(exc)
            raise
        finally:
            got["wall"] = time.perf_counter() - started
        return got["layout"]

    real = drawing.lay_out
    drawing.lay_out = in_child
    drawing._base.cache_clear()
    try:
        d = render(plan, **{**_MAX, **options}, budget=None, memory=None)
        assert d.view == view or "error" in got, (
            f"{name}: render drew another view than the one measured"
        )
    finally:
        drawing.lay_out = real
    layout = got.get("layout")
    return {
        "name": name,
        **vars(features),
        "seconds": layout.seconds if layout else None,
        "wall": round(got["wall"], 3),
        "peak": layout.peak if layout else None,
        "error": got.get("error", ""),
    }


def solve(rows: list[list[float]], ys: list[float], weights: list[float]) -> list[float]:
    """Weighted least squares by the normal equations (a handful of unknowns; no numpy needed)."""
    k = len(rows[0])
    a = [[sum(w * r[i] * r[j] for r, w in zip(rows, weights)) for j in range(k)] for i in range(k)]
    b = [sum(w * r[i] * y for r, y, w in zip(rows, ys, weights)) for i in range(k)]
    for i in range(k):
        p = max(range(i, k), key=lambda r: abs(a[r][i]))
        a[i], a[p], b[i], b[p] = a[p], a[i], b[p], b[i]
        for r in range(k):
            if r != i:
                f = a[r][i] / a[i][i]
                a[r] = [x - f * y for x, y in zip(a[r], a[i])]
                b[r] -= f * b[i]
    return [b[i] / a[i][i] for i in range(k)]


def time_terms(c: dict) -> list[float]:
    n, w = math.log(max(c["nodes"], 1)), math.log(max(c["width"], 1))
    return [1.0, n, w, n * w, math.log(1 + c["nodes"] - c["steps"])]


def memory_terms(c: dict) -> list[float]:
    return [1.0, c["steps"], c["nodes"] - c["steps"], c["edges"]]


def fit(cases: list[dict]) -> dict:
    timed = [c for c in cases if c["seconds"] and c["seconds"] >= MIN_SECONDS]
    coef = solve(
        [time_terms(c) for c in timed], [math.log(c["seconds"]) for c in timed], [1.0] * len(timed)
    )
    loo = []
    for i, c in enumerate(timed):
        rest = timed[:i] + timed[i + 1 :]
        ci = solve(
            [time_terms(r) for r in rest], [math.log(r["seconds"]) for r in rest], [1.0] * len(rest)
        )
        loo.append(
            math.exp(abs(sum(x * y for x, y in zip(ci, time_terms(c))) - math.log(c["seconds"])))
        )
    sized = [c for c in cases if c["peak"]]
    mem = solve(
        [memory_terms(c) for c in sized],
        [c["peak"] for c in sized],
        [1 / c["peak"] ** 2 for c in sized],
    )
    return {
        "time_model": [round(x, 4) for x in coef],
        "memory_model": [round(x, 1) for x in mem],
        "time_cases": len(timed),
        "memory_cases": len(sized),
        "leave_one_out_ratio": {
            "median": round(sorted(loo)[len(loo) // 2], 2),
            "max": round(max(loo), 2),
        },
    }


def table(cases: list[dict], model: dict) -> list[str]:
    """The measurements beside the model's predictions, as Markdown table lines."""
    lines = [
        "| case | steps | edges | N (dot nodes) | W (widest rank) | dot CPU s | model s | model / measured "
        "| peak MB | model MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    ratios = []
    for x in cases:
        model_s = math.exp(sum(k * t for k, t in zip(model["time_model"], time_terms(x))))
        model_b = sum(k * t for k, t in zip(model["memory_model"], memory_terms(x)))
        measured = (
            f"{x['seconds']:.3f}" if x["seconds"] is not None else f"> {TIMEOUT:.0f} (stopped)"
        )
        ratio = model_s / x["seconds"] if x["seconds"] else None
        if ratio and x["seconds"] >= MIN_SECONDS:
            ratios.append(max(ratio, 1 / ratio))
        peak = f"{x['peak'] / 1e6:.1f}" if x["peak"] else "-"
        lines.append(
            f"| {x['name']} | {x['steps']} | {x['edges']} | {x['nodes']} | {x['width']} | {measured} | "
            f"{model_s:.3f} | {f'{ratio:.2f}' if ratio else '-'} | {peak} | {model_b / 1e6:.1f} |"
        )
    ratios.sort()
    lines.append("")
    lines.append(
        f"Model / measured, or its inverse when below 1, over the {len(ratios)} layouts of at least "
        f"{MIN_SECONDS} s: median {ratios[len(ratios) // 2]:.2f}, 90th percentile "
        f"{ratios[int(0.9 * (len(ratios) - 1))]:.2f}, max {ratios[-1]:.2f}; leaving each case out of the "
        f"fit in turn: median {model['leave_one_out_ratio']['median']}, max "
        f"{model['leave_one_out_ratio']['max']}."
    )
    return lines


def main(argv: list[str]) -> int:
    stored = (
        json.loads(DATA.read_text())["cases"] if DATA.exists() and "--measure" not in argv else []
    )
    done = {c["name"] for c in stored}
    cases = []
    for name, make, options in CASES:  # measures the cases not stored yet (all with --measure)
        if name not in done:
            stored.append(measure(name, make(), options))
            print(json.dumps(stored[-1]), flush=True)
        cases.append(next(c for c in stored if c["name"] == name))
    model = fit(cases)
    DATA.write_text(
        json.dumps(
            {
                "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
                "python": platform.python_version(),
                "timeout_s": TIMEOUT,
                **model,
                "cases": cases,
            },
            indent=1,
        )
        + "\n"
    )
    lines = table(cases, model)
    print("\n".join(lines))
    REPORT.write_text(
        f"# Layout cost measurements\n\nWritten by `benchmarks/fit_layout_cost.py` "
        f"({json.loads(DATA.read_text())['machine']}, Python {platform.python_version()}); data in "
        f"`layout_cost.json`. CPU seconds of Graphviz `dot` alone, measured in a child process; "
        f"peak memory above the child's start.\n\n    ln seconds = {model['time_model'][0]} + "
        f"{model['time_model'][1]} ln N + {model['time_model'][2]} ln W + {model['time_model'][3]} "
        f"ln N ln W + {model['time_model'][4]} ln(1 + X)\n    bytes = {model['memory_model'][0]:.0f} + "
        f"{model['memory_model'][1]} V + {model['memory_model'][2]} X + {model['memory_model'][3]} E\n\n"
        + "\n".join(lines)
        + "\n"
    )
    print(
        f"\nTIME_MODEL = {tuple(model['time_model'])}\nMEMORY_MODEL = {tuple(model['memory_model'])}"
    )
    print(f"wrote {DATA} and {REPORT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
