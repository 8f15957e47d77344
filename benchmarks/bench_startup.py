"""How long does ``planviz validate`` of a small plan take, start to finish? (``make bench``.)

The whole process, as a shell runs it, against a bare ``python -c pass``
(issue 17's floor; target: within 4x), for a small plan in YAML and in JSON
(with the console script and with ``python -m planviz``). Hyperfine-style:
every command runs once to warm up, then the commands take turns for
``ROUNDS`` rounds; the table gives the median and the least wall time.

Bytecode is cached as for an installed package: the benchmark runs the
interpreter without ``PYTHONDONTWRITEBYTECODE`` and with a temporary
``PYTHONPYCACHEPREFIX``, so planviz is not recompiled in every process (some
sandboxes set that variable; a pip install writes .pyc files).

Then what the time goes to: ``python -X importtime`` of the YAML run (least
over a few runs), grouped into the interpreter's own start (what ``-c pass``
pays too), PyYAML, planviz's modules and the standard library they import.

Run: ``.venv/bin/python benchmarks/bench_startup.py`` (or ``make bench``).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from common import figure

ROUNDS = 20
TARGET = 4.0
YAML_PLAN = """goal: Tenants never see each other's cache entries
steps:
  - {id: S0, action: Reproduce the leak, expected_evidence: a failing test, produces: [leak_reproduced]}
  - {id: S1, action: Locate the key builder, expected_evidence: file and line, depends_on: [S0],
     requires: [leak_reproduced], produces: [key_located]}
  - {id: S2, action: Write the isolation test, expected_evidence: the test fails, depends_on: [S0],
     requires: [leak_reproduced], produces: [test_written]}
  - {id: S3, action: Patch the key, expected_evidence: diff applied, depends_on: [S1, S2],
     requires: [key_located, test_written], produces: [patch_applied]}
  - {id: S4, action: Verify, expected_evidence: all tests pass, depends_on: [S3], requires: [patch_applied],
     produces: [verified]}
"""


def environment(cache: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPROFILEIMPORTTIME")
    }
    env["PYTHONPYCACHEPREFIX"] = cache
    return env


def script() -> str:
    """The console script next to this interpreter (``planviz``), or ``-m planviz`` when there is none."""
    found = Path(sys.executable).with_name("planviz")
    return str(found) if found.exists() else ""


def timed(commands: dict[str, list[str]], env: dict[str, str], cwd: str) -> dict[str, list[float]]:
    for cmd in commands.values():  # warm up: bytecode written, files in the page cache
        subprocess.run(
            cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
        )
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(ROUNDS):
        for name, cmd in commands.items():
            t = time.perf_counter()
            subprocess.run(
                cmd,
                env=env,
                cwd=cwd,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
            times[name].append(time.perf_counter() - t)
    return times


def import_times(args: list[str], env: dict[str, str], cwd: str, runs: int = 7) -> dict[str, float]:
    """Each module's own import time in seconds (least over ``runs``), from ``python -X importtime ARGS``."""
    best: dict[str, float] = defaultdict(lambda: float("inf"))
    for _ in range(runs):
        err = subprocess.run(
            [sys.executable, "-X", "importtime", *args],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
        ).stderr
        for line in err.splitlines():
            if line.startswith("import time:") and "self [us]" not in line:
                own, _, name = line[len("import time:") :].split("|")
                best[name.strip()] = min(best[name.strip()], int(own) / 1e6)
    return dict(best)


def import_breakdown(args: list[str], env: dict[str, str], cwd: str) -> dict[str, Any]:
    """Import time by group: what every interpreter imports (``-c pass``), PyYAML, planviz, the rest of the stdlib."""
    bare = import_times(["-c", "pass"], env, cwd)
    groups: dict[str, float] = defaultdict(float)
    stdlib: dict[str, float] = {}
    for module, seconds in import_times(args, env, cwd).items():
        top = module.split(".")[0]
        if module in bare:
            groups["every interpreter (as -c pass)"] += seconds
        elif top == "planviz":
            groups["planviz"] += seconds
        elif top in ("yaml", "_yaml"):
            groups["PyYAML"] += seconds
        else:
            groups["standard library"] += seconds
            stdlib[module] = seconds
    top5 = sorted(stdlib, key=stdlib.__getitem__, reverse=True)[:6]
    return {"groups": dict(groups), "largest_stdlib": {m: stdlib[m] for m in top5}}


def main() -> dict[str, Any]:
    work = tempfile.mkdtemp(prefix="planviz-bench-")
    try:
        Path(work, "plan.yaml").write_text(YAML_PLAN, encoding="utf-8")
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from planviz import dump_plan, load_plan

        dump_plan(load_plan(Path(work, "plan.yaml")), Path(work, "plan.json"))
        env = environment(os.path.join(work, "pycache"))
        entry = script()
        cli = [entry] if entry else [sys.executable, "-m", "planviz"]
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "planviz validate plan.yaml": [*cli, "validate", "plan.yaml"],
            "planviz validate plan.json": [*cli, "validate", "plan.json"],
            "python -m planviz validate plan.yaml": [
                sys.executable,
                "-m",
                "planviz",
                "validate",
                "plan.yaml",
            ],
        }
        times = timed(commands, env, work)
        breakdown = import_breakdown(["-m", "planviz", "validate", "plan.yaml"], env, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    floor = statistics.median(times["python -c pass"])
    rows = [
        {
            "command": name,
            "median_s": statistics.median(ts),
            "min_s": min(ts),
            "ratio": statistics.median(ts) / floor,
            "ratio_min": min(ts) / min(times["python -c pass"]),
        }
        for name, ts in times.items()
    ]
    print(f"{'command':<40}{'median ms':>10}{'min ms':>8}{'ratio':>7}{'(min)':>7}")
    for r in rows:
        print(
            f"{r['command']:<40}{r['median_s'] * 1e3:10.1f}{r['min_s'] * 1e3:8.1f}{r['ratio']:7.2f}"
            f"{r['ratio_min']:7.2f}"
        )
    print(
        f"ratio = median / median of python -c pass ({ROUNDS} interleaved rounds after a warm-up; target "
        f"{TARGET:.0f}x); (min) = least / least."
    )
    print(
        "imports of `python -m planviz validate plan.yaml` (-X importtime, own times summed, least of 7 runs):"
    )
    for group, seconds in sorted(breakdown["groups"].items(), key=lambda kv: -kv[1]):
        print(f"  {group:<34}{seconds * 1e3:7.1f} ms")
    print(
        "  largest standard-library modules: "
        + ", ".join(f"{m} {s * 1e3:.1f}" for m, s in breakdown["largest_stdlib"].items())
    )
    met = all(r["ratio"] <= TARGET for r in rows if r["command"].startswith("planviz"))
    print(f"target: {'met' if met else 'MISSED'}")
    floor_s = statistics.median(times["python -c pass"])
    shown = [
        figure(
            f"`{r['command']}` (5 steps) / `python -c pass`",
            r["ratio"],
            at_most=TARGET,
            detail=f"wall {r['median_s'] * 1e3:.0f} ms / {floor_s * 1e3:.0f} ms, whole process, "
            f"median of {ROUNDS}",
        )
        for r in rows
        if r["command"].startswith("planviz")
    ]
    return {"figures": shown, "rows": rows, "imports_s": breakdown, "target": TARGET, "met": met}


if __name__ == "__main__":
    main()
