"""Run every benchmarks/bench_*.py (`make bench`) and print their figures, each beside its goal.

Speed is measured here, never asserted in tests: each module's ``main()``
prints its tables of absolute times and ratios (against NetworkX's own single
pass, or a naive reference where one is meaningful) and returns a dict whose
``"figures"`` (made by :func:`common.figure`) are the figures with goals.
At the end this prints them all in one table, with the time the run took and
its peak memory, and writes ``out/bench.json`` and ``out/bench.md``.

``python benchmarks/run.py NAME...`` runs only the named benchmarks;
``python benchmarks/run.py --page [out/bench.json]`` rewrites docs/benchmarks.md's
table of figures (between its two ``make bench`` markers) from a run's JSON
and keeps those figures in ``benchmarks/figures.json`` (``--readme``, its old name, still works).
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
START, END = "<!-- make bench: start -->", "<!-- make bench: end -->"
PAGE = ROOT / "docs" / "benchmarks.md"  # the page whose table shows the figures
# the figures of the run docs/benchmarks.md's table shows (tests/test_docs.py compares)
FIGURES = HERE / "figures.json"


def main(argv: list[str]) -> int:
    if argv[:1] == ["--one"]:
        return one(Path(argv[1]), Path(argv[2]))
    if argv[:1] in (["--page"], ["--readme"]):
        return write_page(Path(argv[1]) if len(argv) > 1 else ROOT / "out" / "bench.json")
    only = set(argv)
    results: dict[str, Any] = {}
    began = time.perf_counter()
    at_start = _load()
    print(f"load average at the start: {at_start} on {os.cpu_count()} cores", flush=True)
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem.removeprefix("bench_")
        if only and name not in only:
            continue
        print(f"\n== {name} ==", flush=True)
        started = time.perf_counter()
        # each benchmark in a process of its own, as a user's session would be: what an earlier one left
        # on the heap made later ones slower (validate 10k: 5.7x the sort after the others, 3.5x alone)
        with tempfile.TemporaryDirectory() as work:
            out_file = Path(work, "result.json")
            done = subprocess.run(
                [sys.executable, __file__, "--one", str(path), str(out_file)], check=False
            )
            results[name] = (
                json.loads(out_file.read_text())
                if done.returncode == 0 and out_file.exists()
                else {"figures": [], "failed": f"exit status {done.returncode}"}
            )
        results[name]["seconds"] = round(time.perf_counter() - started, 1)
        print(f"({results[name]['seconds']} s)", flush=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the largest benchmark process
    run = {
        "benchmarks": sorted(results),
        "minutes": round((time.perf_counter() - began) / 60, 1),
        "peak_mib": round(peak / 1024),
        "load_start": at_start,
        "load_end": _load(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d"),
    }
    print(
        f"\nmake bench took {run['minutes']} min; peak memory about {run['peak_mib']} MiB "
        f"(the largest benchmark process, with its children); load average at the end: {run['load_end']}",
        flush=True,
    )
    table = render({"run": run, "results": results})
    print("\n" + table)
    out = ROOT / "out"
    out.mkdir(exist_ok=True)
    (out / "bench.json").write_text(
        json.dumps({"run": run, "results": results}, indent=2, default=str)
    )
    (out / "bench.md").write_text(table + "\n")
    print(
        f"wrote {out / 'bench.json'} and {out / 'bench.md'} "
        "(python benchmarks/run.py --page puts the table in docs/benchmarks.md)"
    )
    failed = [name for name, result in results.items() if result.get("failed")]
    if failed:
        print(f"did not finish: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def one(path: Path, out_file: Path) -> int:
    """Run one benchmark module's ``main()`` in this process and write what it returns to ``out_file``."""
    sys.path.insert(0, str(HERE))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out_file.write_text(json.dumps(module.main(), default=str))
    return 0


def render(data: dict[str, Any]) -> str:
    """The markdown table of every figure with a goal (or shown without one), and how the run went."""
    run = data["run"]
    lines = [
        f"Measured by `make bench` on {run['date']}: {len(run['benchmarks'])} benchmarks in {run['minutes']} "
        f"minutes, peak memory about {run['peak_mib']} MiB, {run['cores']} cores, Python {run['python']}, "
        f"load average {run['load_start']} at the start and {run['load_end']} at the end.",
        "",
        "| benchmark | figure | measured | goal | met | load | detail |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, result in data["results"].items():
        if result.get("failed"):
            lines.append(f"| `{name}` | did not finish: {result['failed']} | | | **no** | | |")
        for f in result.get("figures", []):
            met = {True: "yes", False: "**no**", None: ""}[f["met"]]
            detail = str(f["detail"]).replace("|", "/")
            lines.append(
                f"| `{name}` | {f['figure']} | {f['value']:.3g}{f['unit']} | {f['goal']} | {met} | "
                f"{f['load']} | {detail} |"
            )
    return "\n".join(lines)


def write_page(source: Path) -> int:
    """Rewrite docs/benchmarks.md's table between the markers from ``source`` (a run's ``out/bench.json``)."""
    path = PAGE
    text = path.read_text(encoding="utf-8")
    if START not in text or END not in text:
        print(
            f"{path.relative_to(ROOT)} has no {START} ... {END} section to rewrite", file=sys.stderr
        )
        return 1
    data = json.loads(source.read_text(encoding="utf-8"))
    kept = {
        "run": data["run"],
        "results": {
            name: {"figures": result.get("figures", [])} for name, result in data["results"].items()
        },
    }
    FIGURES.write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")
    path.write_text(page_text(text, kept), encoding="utf-8")
    print(
        f"{path.relative_to(ROOT)}: table rewritten from {source}; its figures kept in {FIGURES.relative_to(ROOT)}"
    )
    return 0


def page_text(text: str, data: dict[str, Any]) -> str:
    """``text`` (docs/benchmarks.md) with the section between the markers made from ``data``."""
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{render(data)}\n{END}{tail}"


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
