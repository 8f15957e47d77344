"""Speed of reading OpenTelemetry traces: load_trace on OTLP/JSON files against json.load of the same file.

The target (issue 15): loading a 100,000-span OTLP/JSON file is linear in its size and within 5x of
``json.load``. Two figures per size, both as ratios to ``json.load`` (the C parser building the whole
document, the floor for any reader that looks at every byte):

- **read**: the streamed reader alone (records decoded one at a time, spans normalised, dependencies
  inferred, the plan and the timeline of actions built): planviz's own work;
- **load**: the whole ``load_trace``, which also plays the timeline through the run state machine (events
  hold what they changed, so this part is linear too).

Each trace is an agent turn loop: per turn one model call and one tool call whose arguments sometimes hold an
earlier result (data-flow edges). Times are the least CPU time of a few repeats (:func:`common.best`).
Each reading's ratio at the largest size and its time exponent between the two largest sizes are printed
again at the end beside the target (:func:`common.figure`; linear: an exponent of at most 1.15, issue 28).

Run: ``.venv/bin/python benchmarks/bench_traces.py`` (or ``make bench``).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
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
TARGET, LINEAR = 5.0, 1.15  # x json.load at the largest size; issue 28's time exponent between the two largest


# what read_only's stand-in for the machine hands back (run_of_spans sets its model calls on it); made by
# make_dataclass since run.py loads this module outside sys.modules, where a dataclass statement fails
Unplayed = make_dataclass("Unplayed", [("model_calls", tuple, ())], frozen=True)


def read_only(path: Path) -> None:
    from planviz.traces.otel import genai as otel

    with open(path, "rb") as fh:
        spans = [span_of(r, c, w, line, str(path)) for r, c, w, line in records(fh, set(CONTAINERS), str(path))]
    original = otel.play
    otel.play = lambda plan, actions: Unplayed()  # everything but the machine
    try:
        otel.run_of_spans(spans, str(path))
    finally:
        otel.play = original


def main() -> dict:
    results = {}
    print(f"{'spans':>8} {'MB':>6} {'json.load s':>11} {'read s':>7} {'x json':>7} {'us/span':>8} "
          f"{'load s':>7} {'x json':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in SIZES:
            path = Path(tmp) / f"trace_{n}.json"
            path.write_text(json.dumps(make_trace(n)))
            floor = best({"json": lambda _: json.loads(path.read_bytes())}, 3)["json"]
            read = best({"read": lambda _: read_only(path)}, 3 if n < 100_000 else 1)["read"]
            load = best({"load": lambda _: load_trace(path)}, 1)["load"] if n <= FULL_LOAD_UP_TO else None
            results[n] = {"mb": path.stat().st_size / 1e6, "json_load": floor, "read": read, "read_ratio": read / floor,
                          "load": load, "load_ratio": None if load is None else load / floor}
            shown = f"{load:7.2f} {load / floor:7.1f}" if load is not None else f"{'-':>7} {'-':>7}"
            print(f"{n:>8} {results[n]['mb']:6.1f} {floor:11.3f} {read:7.2f} {read / floor:7.1f} "
                  f"{read / n * 1e6:8.1f} {shown}", flush=True)
    print(f"(load: the whole load_trace, up to {FULL_LOAD_UP_TO} spans; set PLANVIZ_BENCH_FULL_LOAD to go further)")
    return {"figures": figures(results), **results}


def figures(results: dict) -> list[dict]:
    """Issue 15's target for each of the two readings: within 5x of ``json.load`` at the largest size, and linear."""
    out = []
    for key, what in (("read", "reading an OTLP/JSON trace (all but the state machine)"), ("load", "whole `load_trace`")):
        sizes = [n for n in SIZES if results[n][key] is not None]
        if not sizes:
            continue
        a, b = (sizes[-2], sizes[-1]) if len(sizes) > 1 else (None, sizes[-1])
        big = results[b]
        out.append(figure(f"{what} {b // 1000}k spans / `json.load`", big[f"{key}_ratio"], at_most=TARGET,
                          detail=f"{big[key]:.2f} s / {big['json_load']:.3f} s, {big['mb']:.0f} MB"))
        if a is not None:
            k = exponent([a, b], [results[a][key], results[b][key]])[-1]
            out.append(figure(f"{what} {a // 1000}k -> {b // 1000}k spans, time exponent", k, at_most=LINEAR,
                              unit="", detail=f"{results[a][key]:.2f} s -> {results[b][key]:.2f} s"))
    return out


if __name__ == "__main__":
    main()
