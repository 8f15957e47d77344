"""The headless walkthrough behind ``make demo``: what planviz does, in one run, with files to look at.

``python -m planviz.frontends.cli.demo OUT_DIR`` loads the cache-isolation example,
validates it and a broken plan, prints the critical path, simulates a side
effect found while verifying (S4) and says what it voids and keeps, compares
the three execution strategies on that fault, and writes into ``OUT_DIR``:

- ``plan.svg``, ``plan.png``: the plan, critical path in bold;
- ``side_effect.svg``: the run at the moment the side effect voids the patch;
- ``report.html``: a self-contained stepper over that run (no network);
- ``trace.jsonl``: the run as a trace, for ``planviz report`` or ``planviz.replay``.

It sits on top of the package, like the command line, and only calls the
public API.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as out:
...     written = walkthrough(out, echo=lambda *a: None)
...     sorted(p.name for p in written)
['plan.png', 'plan.svg', 'report.html', 'side_effect.svg', 'trace.jsonl']
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Sequence

from planviz import examples
from planviz.analysis.schedule import critical_path
from planviz.analysis.scope import failure_scope
from planviz.checks.validation import PlanningFailure, prepare, validate
from planviz.errors import PlanvizError
from planviz.frontends.pages.htmlreport import report_html
from planviz.pictures.drawing import render
from planviz.runs.comparisons.comparison import compare_strategies
from planviz.runs.engine.simulation import simulate
from planviz.runs.fault import Fault
from planviz.traces.own.tracefile import save_trace

__all__ = ["walkthrough", "main"]

FILES = ("plan.svg", "plan.png", "side_effect.svg", "report.html", "trace.jsonl")


def walkthrough(out_dir: str | Path, echo: Callable[..., None] = print) -> list[Path]:
    """Run the walkthrough, printing as it goes through ``echo``, and return the files written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def heading(text: str) -> None:
        echo()
        echo(f"== {text}")

    plan = examples.load("cache_isolation")
    contract = plan.contract
    unit = plan.time_unit
    echo(f"planviz demo: {plan.goal}")

    heading("1. validate the plan against its contract")
    echo(validate(plan, contract).to_text())

    heading("2. validate a broken plan: 'fix CI by deleting the failing test'")
    broken = examples.load("delete_failing_test")
    echo(validate(broken, broken.contract).to_text())
    refused = examples.load("release_no_credentials")
    outcome = prepare(refused, refused.contract)
    if not isinstance(outcome, PlanningFailure):
        raise PlanvizError(
            "the example release_no_credentials was expected to be refused by prepare()"
        )
    echo(f"release_no_credentials: refused by prepare(), unsatisfiable={outcome.unsatisfiable!r}")
    echo(f"  {outcome.reason}")

    heading("3. critical path")
    schedule = critical_path(plan)
    echo(
        f"serial time {schedule.serial_time:g} {unit}, makespan {schedule.makespan:g} {unit} "
        f"along {' -> '.join(schedule.path)}"
    )
    slack = {sid: t.slack for sid, t in schedule.steps.items() if t.slack > 0}
    echo(
        "slack: "
        + (", ".join(f"{sid} {s:g} {unit}" for sid, s in sorted(slack.items())) or "(none)")
    )

    heading("4. a side effect found while verifying (S4)")
    fault = Fault("S4", "side_effect")
    scope = failure_scope(plan, "S4", "side_effect")
    echo(f"scope: {scope.action}, restart from {scope.restart}")
    echo(f"voided: {', '.join(sorted(scope.voided))}; kept: {', '.join(sorted(scope.kept))}")
    run = simulate(plan, contract, faults=[fault])
    echo(
        f"simulated run: {run.outcome} at t={run.time:g} {unit}; plan versions: "
        + "; ".join(f"v{p.version} {', '.join(p.ids)}" for p in run.plans)
    )

    heading("5. direct vs workflow vs planner on the same fault")
    echo(compare_strategies(plan, [fault], contract=contract).to_text())

    heading("6. files")
    for name in ("plan.svg", "plan.png"):
        written.append(render(plan).save(out / name))
    at = next(e.index for e in run.events if e.kind == "invalidate")
    shown = run.plan_at(at)
    if shown is None:  # an invalidate event follows a proposed plan
        raise PlanvizError(f"the run has no plan at event {at}")
    written.append(render(shown, run=run, at=at).save(out / "side_effect.svg"))
    written.append(Path(report_html(run, out / "report.html")))
    save_trace(run, out / "trace.jsonl")
    written.append(out / "trace.jsonl")
    for path in written:
        echo(f"wrote {path}")
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m planviz.frontends.cli.demo [OUT_DIR]`` (default ``out``); returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) > 1 or any(a.startswith("-") for a in args):
        print("usage: python -m planviz.frontends.cli.demo [OUT_DIR]", file=sys.stderr)
        return 2
    walkthrough(args[0] if args else "out")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
