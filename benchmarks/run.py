"""Run every benchmarks/bench_*.py (`make bench`) and print their figures.

Speed is measured here, never asserted in tests: each module's ``main()``
prints a table of absolute times and ratios against NetworkX's own single
pass (and a naive reference where one is meaningful) and returns a dict.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    only = set(argv)
    results = {}
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
    out = HERE.parent / "out"
    out.mkdir(exist_ok=True)
    (out / "bench.json").write_text(json.dumps(results, indent=2, default=str))
    print(f"\nwrote {out / 'bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
