"""Adversarial OpenTelemetry shapes read in linear time (issue 29): 10k against 100k spans.

- **otel_waves**: two waves of n/2 parallel tool calls, every call of the second starting after the first
  wave ended (timing inference once gave width-squared edges: 6,000 calls took 223 s and 1.8 GB);
- **otel_retry_storm**: the same failing call repeated n times under one parent (one step retried n times;
  each retry once looked its attempt up with ``list.index``: quadratic).

The figure is the ratio of the 100k time to ten times the 10k time: linear is 1.0, the target at most 1.3.
Times are the least CPU time of the repeats (:func:`common.best`), of the whole ``load_trace`` on an OTLP/JSON
file. Each ratio is printed again at the end beside its target (:func:`common.figure`).

Run: ``.venv/bin/python benchmarks/bench_traceshapes.py`` (or ``make bench``).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from common import best, figure  # noqa: E402

from planviz import load_trace  # noqa: E402
from tests.runs.otlp import agent, envelope, tool  # noqa: E402

SIZES = (10_000, 100_000)
TARGET = 1.3  # t(100k) / (10 t(10k)), issue 29


def waves(n: int) -> dict:
    half = n // 2
    return envelope(
        [agent(1, 0, 1000)]
        + [tool(i + 2, f"a{i}", 1, 100, args={"i": i}) for i in range(half)]
        + [tool(half + i + 2, f"b{i}", 200, 300, args={"i": i}) for i in range(half)]
    )


def retry_storm(n: int) -> dict:
    return envelope(
        [agent(1, 0, 10 * n + 10)]
        + [
            tool(i + 2, "fetch", 10 * i + 1, 10 * i + 9, args={"url": "x"}, error="HTTP 503")
            for i in range(n)
        ]
    )


SHAPES = {"otel_waves": waves, "otel_retry_storm": retry_storm}


def main() -> dict:
    results = {}
    print(f"{'shape':<18} {'10k s':>7} {'100k s':>7} {'100k / (10 x 10k)':>18}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in SHAPES.items():
            figures = {}
            for n in SIZES:
                path = Path(tmp) / f"{name}_{n}.json"
                path.write_text(json.dumps(make(n)))
                figures[n] = best({"load": lambda _: load_trace(path)}, 3 if n < 100_000 else 1)[
                    "load"
                ]
            ratio = figures[100_000] / (10 * figures[10_000])
            results[name] = {
                "10k": figures[10_000],
                "100k": figures[100_000],
                "ratio_to_linear": ratio,
            }
            print(
                f"{name:<18} {figures[10_000]:7.2f} {figures[100_000]:7.2f} {ratio:18.2f}",
                flush=True,
            )
    shown = [
        figure(
            f"`load_trace` {name}, 100k spans / (10 x 10k)",
            r["ratio_to_linear"],
            at_most=TARGET,
            detail=f"{r['10k']:.2f} s -> {r['100k']:.2f} s",
        )
        for name, r in results.items()
    ]
    return {"figures": shown, **results}


if __name__ == "__main__":
    main()
