"""Speed of reading LangGraph histories and of the run ledger: each shape at 10k and 100k, and the ratio.

Reading a LangGraph history plays it through the run state machine, and every channel write withdraws the
channel's previous fact; the ledger must update what an event changed, not the whole plan (issue 29). Each
shape below is timed at 10,000 and 100,000 items; linear time gives a ratio near 10 (the target: within
1.3 x 10 = 13). Shapes (the reproductions of ``shared/repro/bad-input-3/bench.py``):

- **chain**: a history of n checkpoints, one after the other (every superstep rewrites two channels);
- **one fork**: a chain of n - 1 and one fork (time travel) from its middle;
- **forks**: n - 1 forks, all from the first checkpoint (at 1k and 10k: every fork is a plan version);
- **fork every 10**: a chain where every 10th checkpoint forks from the one 5 back (``lg_forks_quadratic`` of
  ``shared/repro/bad-input-4``; at 10k and 100k, n/10 plan versions): each version is the path to its fork
  point plus its branch, about n²/40 step places in all when held whole; each is stored as what it changes
  (``plan/grown.py``, its first event's statuses read from a log of changes: ``runs/statuslog.py``), so the
  read is linear (issue 42: 37.7x for 10x before, with every version held whole and its statuses copied);
- **fork back 8**: every 6th checkpoint forks from the one 8 back, onto the branch before the current one (at 1k
  and 10k, n/6 plan versions): the two paths part near the start, so each fork voids the whole current path
  (about n/2 steps) and takes back the other as done: what the run holds grows as n² (its events' status
  changes and its versions' steps: 13.8x for 4x the checkpoints), so its time ratio is held to its output's
  ratio, not to 13x: time per output item (checkpoints read + status changes + version steps) may grow at most
  1.3x from 1k to 10k (issue 42; tests/traces/test_reader_work.py holds the same bound place by place);
- **channels**: one superstep writing n channels;
- **facts** (``simulate``): one step producing n facts that the next step requires.

Times are the least CPU time of a few rounds (:func:`rounds`, :func:`common.best`); ``simulate`` gets a
fresh plan every round. Each shape's ratio is printed again at the end beside its goal
(:func:`common.figure`), followed by a floor without a goal: the same ratio for ``json.loads`` of the
channels history, CPython alone building one dict of n entries. On a machine whose 10k working set fits
in the core's cache and whose 100k one does not, that floor is itself above 13 (17-26x on the 2-core
machine of issue 28, for every dict, set and sort of n strings): a shape at or under the floor does
linear work whose every hash lookup got slower, and one above it does more work per item at 100k.

Run: ``.venv/bin/python benchmarks/bench_langgraph.py`` (or ``make bench``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from common import best, figure  # noqa: E402

from planviz import load_plan, parse_trace, simulate  # noqa: E402

SIZES = (10_000, 100_000)
LARGEST = int(os.environ.get("PLANVIZ_BENCH_LANGGRAPH_MAX", "100000"))
TARGET = 13.0  # the largest size's time / the smallest's, for 10x the input (issue 29: 1.3 x 10)
PER_ITEM = 1.3  # a fork back 8: time per item the run holds, 1k -> 10k (issue 42)


def snapshot(k: int, parent: int | None, values: dict, nxt: list[str]) -> dict:
    record = {
        "values": values,
        "next": nxt,
        "config": {"configurable": {"thread_id": "t", "checkpoint_id": f"c{k}"}},
        "metadata": {"source": "loop", "step": k},
        "created_at": f"2025-01-01T{k // 3_600_000:02d}:{k // 60_000 % 60:02d}:{k // 1000 % 60:02d}."
        f"{k % 1000:03d}000+00:00",
        "tasks": [{"id": f"t{k}", "name": f"n{k % 50}", "error": None, "interrupts": []}]
        if nxt
        else [],
    }
    if parent is not None:
        record["parent_config"] = {
            "configurable": {"thread_id": "t", "checkpoint_id": f"c{parent}"}
        }
    return record


def history(shape: str, n: int) -> str:
    if shape == "chain":
        hist = [
            snapshot(
                k,
                k - 1 if k else None,
                {"x": k, "msgs": [f"m{k}"]},
                [f"n{(k + 1) % 50}"] if k < n - 1 else [],
            )
            for k in range(n)
        ]
    elif shape == "one fork":
        hist = [
            snapshot(k, k - 1 if k else None, {"x": k}, [f"n{(k + 1) % 50}"]) for k in range(n - 1)
        ]
        hist.append(snapshot(n - 1, (n - 1) // 2, {"x": -1}, []))
    elif shape == "forks":
        hist = [snapshot(0, None, {"x": 0}, ["n1"])] + [
            snapshot(k, 0, {"x": k}, []) for k in range(1, n)
        ]
    elif shape == "fork back 8":
        hist = [
            snapshot(
                k,
                None if k == 0 else k - 8 if k % 6 == 0 and k >= 8 else k - 1,
                {"x": k},
                [f"n{(k + 1) % 50}"],
            )
            for k in range(n)
        ]
    elif shape == "fork every 10":
        hist = [
            snapshot(
                k,
                None if k == 0 else k - 5 if k % 10 == 0 and k >= 5 else k - 1,
                {"x": k},
                [f"n{(k + 1) % 50}"],
            )
            for k in range(n)
        ]
    else:
        hist = [
            snapshot(0, None, {"x": 0}, ["n1"]),
            snapshot(1, 0, {f"ch{i}": i for i in range(n)}, []),
        ]
    return json.dumps(hist)


def rounds(shape: str, n: int) -> int:
    """Timed rounds: five at 10k (times of 20-60 ms), three at 100k for the shapes that take under a second
    there (one for the chains and forks, 10-15 s each); the least is kept (issue 28). A fork back 8: three at
    1k, one at 10k (quadratic: tens of seconds)."""
    if shape == "fork back 8":
        return 3 if n < 10_000 else 1
    return 5 if n < 100_000 else 3 if shape in ("channels", "facts") else 1


def facts_plan(n: int):
    facts = [f"fact{i}" for i in range(n)]
    return load_plan(
        {
            "goal": "g",
            "steps": [
                {"id": "A", "action": "a", "expected_evidence": "e", "produces": facts},
                {
                    "id": "B",
                    "action": "b",
                    "expected_evidence": "e",
                    "depends_on": ["A"],
                    "requires": facts,
                },
            ],
        }
    )


def main() -> dict:
    results: dict[str, dict] = {}
    shown: list[tuple[str, int, int, float, str, str, float]] = []
    floor: dict[int, float] = {}
    output: dict[int, int] = {}
    sizes = [n for n in SIZES if n <= LARGEST]
    print(f"{'shape':>10} " + " ".join(f"{f'{n:,} s':>10}" for n in sizes) + f" {'ratio':>7}")
    for shape in (
        "chain",
        "one fork",
        "forks",
        "fork every 10",
        "fork back 8",
        "channels",
        "facts",
    ):
        # each fork is a version (a fork back 8: each voids half the history)
        shape_sizes = [n // 10 for n in sizes] if shape in ("forks", "fork back 8") else sizes
        row = {}
        for n in shape_sizes:
            # a fresh plan for every call: nothing cached on the plan is reused (issue 28)
            if shape == "facts":
                row[n] = best(
                    {"simulate": simulate}, rounds(shape, n), fresh=lambda: facts_plan(n)
                )["simulate"]
            else:
                text = history(shape, n)
                fns = {"parse": lambda _: parse_trace(text)}
                # the floor: CPython decoding the same text into its n-entry dict
                if shape == "channels":
                    fns["json.loads"] = lambda _: json.loads(text)
                times = best(fns, rounds(shape, n))
                row[n] = times["parse"]
                if shape == "fork back 8":  # what the run holds: the records, status changes, steps
                    run = parse_trace(text)
                    held = sum(len(e.changes) for e in run.events) + sum(
                        len(p.steps) for p in run.plans
                    )
                    output[n] = len(json.loads(text)) + held
                if shape == "channels":
                    floor[n] = times["json.loads"]
        ratio = (
            row[shape_sizes[-1]] / row[shape_sizes[0]]
            if len(sizes) > 1 and row[shape_sizes[0]]
            else None
        )
        results[shape] = {"seconds": row, "ratio": ratio}
        print(
            f"{shape:>10} "
            + " ".join(f"{row[n]:>10.2f}" for n in shape_sizes)
            + (f" {ratio:>7.1f}" if ratio is not None else "")
            + ("  (1k and 10k forks: each is a plan version)" if shape == "forks" else "")
            + ("  (n/6 versions, each voiding about n/2 steps)" if shape == "fork back 8" else "")
            + (
                "  (n/10 plan versions, stored as their changes)"
                if shape == "fork every 10"
                else ""
            ),
            flush=True,
        )
        if ratio is not None:
            a, b = shape_sizes[0], shape_sizes[-1]
            what = (
                "`simulate` of one step producing n facts"
                if shape == "facts"
                else f"`parse_trace` LangGraph {shape}"
            )
            detail = f"{row[a]:.2f} s -> {row[b]:.2f} s"
            if shape == "fork back 8":  # held to its output (see the docstring)
                grew = output[b] / output[a]
                detail += (
                    f" ({ratio:.0f}x) for {output[a]:,} -> {output[b]:,} items held ({grew:.1f}x)"
                )
                shown.append(
                    (what, a, b, ratio / grew, detail, "time ratio per item held", PER_ITEM)
                )
                continue
            shown.append((what, a, b, ratio, detail, "time ratio", TARGET))
    print("(linear: a ratio near 10 for 10x the input; the target is at most 13)")
    results["figures"] = [
        figure(
            f"{what}, {a // 1000}k -> {b // 1000}k: {measure}",
            ratio,
            at_most=goal,
            detail=detail,
        )
        for what, a, b, ratio, detail, measure, goal in shown
    ]
    # the memory a forked history's read peaks at, traced (at 1k and 10k: tracing is slow): linear now that
    if len(sizes) > 1:
        import tracemalloc  # its versions and their first events' statuses are stored as their changes

        peak = {}
        for n in (sizes[0] // 10, sizes[-1] // 10):
            text = history("fork every 10", n)
            tracemalloc.start()
            parse_trace(text)
            peak[n] = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        a, b = min(peak), max(peak)
        print(
            f"fork every 10, traced peak: {peak[a]:.1f} MB at {a:,} -> {peak[b]:.1f} MB at {b:,} "
            f"({peak[b] / peak[a]:.1f}x; issue 42: 1.6 GB RSS at 8k before, 11.6 -> 424 MB: 36x)"
        )
        results["figures"].append(
            figure(
                f"`parse_trace` LangGraph fork every 10, {a // 1000}k -> {b // 1000}k: "
                "traced peak memory ratio",
                peak[b] / peak[a],
                at_most=TARGET,
                detail=f"{peak[a]:.1f} MB -> {peak[b]:.1f} MB",
            )
        )
    # no goal: what this machine gives for the same growth of one dict (see the docstring)
    if len(floor) > 1:
        a, b = min(floor), max(floor)
        results["figures"].append(
            figure(
                f"floor: `json.loads` of the channels history, {a // 1000}k -> {b // 1000}k",
                floor[b] / floor[a],
                detail=f"{floor[a]:.4f} s -> {floor[b]:.4f} s",
            )
        )
    return results


if __name__ == "__main__":
    main()
