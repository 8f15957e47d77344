"""Speed of reading OpenTelemetry traces: load_trace on OTLP/JSON files against json.load of the same file.

The targets: loading a 100,000-span OTLP/JSON file is linear in its size and within 4x of ``json.load``
(issue 15 asked 5x, issue 43 4x), its peak memory within 3x the file's size (issue 43). Two time figures per
size, both as ratios to ``json.load`` (the C parser building the whole document, the floor for any reader that
looks at every byte):

- **read**: the streamed reader alone (records decoded one at a time, spans normalised, dependencies
  inferred, the plan and the timeline of actions built): planviz's own work;
- **load**: the whole ``load_trace``, which also plays the timeline through the run state machine (events
  hold what they changed, so this part is linear too).

and one of memory: **peak**, the most memory ``load_trace`` held at once (``tracemalloc``'s peak, the run it
returns included) as a ratio to the file's size in bytes (``json.load``'s own peak is printed beside it).

Each trace is an agent turn loop: per turn one model call and one tool call whose arguments sometimes hold an
earlier result (data-flow edges). Times are the least CPU time of a few repeats (:func:`common.best`).
Each reading's ratio at the largest size and its time exponent between the two largest sizes are printed
again at the end beside the target (:func:`common.figure`; linear: an exponent of at most 1.15, issue 28).

Run: ``.venv/bin/python benchmarks/bench_traces.py`` (or ``make bench``).
"""

from __future__ import annotations

import gc
import json
import os
import sys
import tempfile
import tracemalloc
from dataclasses import make_dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from common import best, exponent, figure  # noqa: E402

from planviz import load_trace  # noqa: E402
from planviz.traces.jsonstream import records  # noqa: E402
from planviz.traces.otel.genai import CONTAINERS  # noqa: E402
from planviz.traces.otel.otelspans import span_of  # noqa: E402
from tests.runs.otlp import react_trace as make_trace  # noqa: E402

SIZES = (1_000, 10_000, 100_000)
FULL_LOAD_UP_TO = int(os.environ.get("PLANVIZ_BENCH_FULL_LOAD", "100000"))
# x json.load at the largest size (issue 43); issue 28's time exponent between the two largest
TARGET, LINEAR = (
    4.0,
    1.15,
)
MEMORY = 3.0  # peak memory of load_trace / the file's size in bytes (issue 43)


# what read_only's stand-in for the machine hands back (run_of_spans sets its model calls on it); made by
# make_dataclass since run.py loads this module outside sys.modules, where a dataclass statement fails
Unplayed = make_dataclass(
    "Unplayed", [("model_calls", tuple, ()), ("turns", tuple, ())], frozen=True
)


def read_only(path: Path) -> None:
    from planviz.traces.otel import genai as otel

    with open(path, "rb") as fh:
        spans = [
            span_of(r, c, w, line, str(path))
            for r, c, w, line in records(fh, set(CONTAINERS), str(path))
        ]
    original = otel.play
    otel.play = lambda plan, actions: Unplayed()  # everything but the machine
    try:
        otel.run_of_spans(spans, str(path))
    finally:
        otel.play = original


def peak(fn, *args) -> int:
    """The most memory ``fn(*args)`` held at once, in bytes (``tracemalloc``), what it returns included."""
    gc.collect()
    tracemalloc.start()
    try:
        kept = fn(*args)
        most = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del kept
    return most


def json_file(path: Path):
    with open(path, "rb") as fh:
        return json.load(fh)


def main() -> dict:
    results = {}
    print(
        f"{'spans':>8} {'MB':>6} {'json.load s':>11} {'read s':>7} {'x json':>7} {'us/span':>8} "
        f"{'load s':>7} {'x json':>7} {'peak/MB':>7} {'json':>5}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for n in SIZES:
            path = Path(tmp) / f"trace_{n}.json"
            path.write_text(json.dumps(make_trace(n)))
            floor = best({"json": lambda _: json.loads(path.read_bytes())}, 3)["json"]
            read = best({"read": lambda _: read_only(path)}, 3 if n < 100_000 else 1)["read"]
            load = (
                best({"load": lambda _: load_trace(path)}, 1)["load"]
                if n <= FULL_LOAD_UP_TO
                else None
            )
            size = path.stat().st_size
            memory = peak(load_trace, path) / size if n <= FULL_LOAD_UP_TO else None
            json_memory = peak(json_file, path) / size
            results[n] = {
                "mb": size / 1e6,
                "json_load": floor,
                "read": read,
                "read_ratio": read / floor,
                "load": load,
                "load_ratio": None if load is None else load / floor,
                "peak_ratio": memory,
                "json_peak_ratio": json_memory,
            }
            shown = (
                f"{load:7.2f} {load / floor:7.1f} {memory:7.2f}"
                if load is not None
                else f"{'-':>7} {'-':>7} {'-':>7}"
            )
            print(
                f"{n:>8} {results[n]['mb']:6.1f} {floor:11.3f} {read:7.2f} {read / floor:7.1f} "
                f"{read / n * 1e6:8.1f} {shown} {json_memory:5.2f}",
                flush=True,
            )
    print(
        f"(load: the whole load_trace, up to {FULL_LOAD_UP_TO} spans; set PLANVIZ_BENCH_FULL_LOAD to go further; "
        "peak/MB: load_trace's peak memory / the file's size, json: json.load's)"
    )
    return {"figures": figures(results), **results}


def figures(results: dict) -> list[dict]:
    """The targets for each of the two readings: within 4x of ``json.load`` at the largest size (issue 43), and
    linear; the whole load's peak memory within 3x the file's size at every size (issue 43)."""
    out = []
    for key, what in (
        ("read", "reading an OTLP/JSON trace (all but the state machine)"),
        ("load", "whole `load_trace`"),
    ):
        sizes = [n for n in SIZES if results[n][key] is not None]
        if not sizes:
            continue
        a, b = (sizes[-2], sizes[-1]) if len(sizes) > 1 else (None, sizes[-1])
        big = results[b]
        out.append(
            figure(
                f"{what} {b // 1000}k spans / `json.load`",
                big[f"{key}_ratio"],
                at_most=TARGET,
                detail=f"{big[key]:.2f} s / {big['json_load']:.3f} s, {big['mb']:.0f} MB",
            )
        )
        if a is not None:
            k = exponent([a, b], [results[a][key], results[b][key]])[-1]
            out.append(
                figure(
                    f"{what} {a // 1000}k -> {b // 1000}k spans, time exponent",
                    k,
                    at_most=LINEAR,
                    unit="",
                    detail=f"{results[a][key]:.2f} s -> {results[b][key]:.2f} s",
                )
            )
    for n in SIZES:
        r = results[n]
        if r["peak_ratio"] is not None:
            out.append(
                figure(
                    f"`load_trace` {n // 1000}k spans: peak memory / file size",
                    r["peak_ratio"],
                    at_most=MEMORY,
                    detail=f"{r['peak_ratio'] * r['mb']:.0f} MB / {r['mb']:.1f} MB; "
                    f"json.load {r['json_peak_ratio']:.1f}x (the floor of a reader that parses the "
                    f"whole document); load_trace {r['peak_ratio'] / r['json_peak_ratio']:.2f}x json.load's peak",
                )
            )
    big = results[SIZES[-1]]
    if big["load"] is not None:
        out.append(
            figure(
                f"whole `load_trace` {SIZES[1] // 1000}k spans / `json.load`",
                results[SIZES[1]]["load_ratio"],
                detail=f"{results[SIZES[1]]['load']:.2f} s / {results[SIZES[1]]['json_load']:.3f} s",
            )
        )
    return out


if __name__ == "__main__":
    main()
