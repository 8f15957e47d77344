"""Run every benchmarks/bench_*.py (`make bench`) and print their figures.

Speed is measured here, never asserted in tests: each module's ``main()``
prints a table of absolute times and ratios against NetworkX's own single
pass (and a naive reference where one is meaningful) and returns a dict.
"""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    only = set(argv)
    results = {}
    began = time.perf_counter()
    print(f"load average at the start: {_load()} on {os.cpu_count()} cores", flush=True)
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem.removeprefix("bench_")
        if only and name not in only:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        print(f"\n== {name} ==", flush=True)
        started = time.perf_counter()
        results[name] = module.main()
        print(f"({time.perf_counter() - started:.1f} s)", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"\nmake bench took {time.perf_counter() - began:.0f} s; peak memory about {peak / 1024:.0f} MiB "
          f"(this process plus its largest child); load average at the end: {_load()}", flush=True)
    out = HERE.parent / "out"
    out.mkdir(exist_ok=True)
    (out / "bench.json").write_text(json.dumps(results, indent=2, default=str))
    print(f"\nwrote {out / 'bench.json'}")
    return 0


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
