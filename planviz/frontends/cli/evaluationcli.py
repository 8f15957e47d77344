"""``planviz campaign`` and ``planviz ablation``: strategies (or the planner's mechanisms) over plan files with
sampled faults, in this process, on local worker processes or on a Dask scheduler.

>>> from planviz.frontends.cli.commands import main
>>> main(["campaign", "planviz/examples/cache_isolation.yaml", "--samples", "3", "--rates", "transient=0.1",
...       "--strategies", "planner"])  # doctest: +ELLIPSIS
campaign: 1 plan x 3 samples; faults transient=0.1 (times 1, seed 0)
...
0
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from planviz.errors import PlanvizError

__all__ = ["add_commands", "parse_rates", "frozen_test"]


def parse_rates(text: str) -> dict[str, float]:
    """``KIND=P[,KIND=P...]`` -> {kind: probability}; the kinds are checked by :class:`planviz.FaultModel`.

    >>> parse_rates("transient=0.1, tool_error=0.02")
    {'transient': 0.1, 'tool_error': 0.02}
    >>> parse_rates("transient")
    Traceback (most recent call last):
    ...
    planviz.errors.PlanvizError: --rates expects KIND=PROBABILITY[,KIND=PROBABILITY...] (e.g. transient=0.1,tool_error=0.02), got 'transient'
    """
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, eq, value = part.partition("=")
        try:
            if not eq:
                raise ValueError
            out[kind.strip()] = float(value)
        except ValueError:
            raise PlanvizError(
                f"--rates expects KIND=PROBABILITY[,KIND=PROBABILITY...] (e.g. "
                f"transient=0.1,tool_error=0.02), got {part[:60]!r}"
            ) from None
    return out


def _run(args: argparse.Namespace) -> int:
    from planviz.frontends.cli.terminal import Progress
    from planviz.io.output import same_file
    from planviz.plan.files import load_plans
    from planviz.runs.evaluation.campaigns import ablation, campaign
    from planviz.runs.evaluation.faultmodel import FaultModel

    files = _plan_files(args.plans)
    for f in files if args.output else ():
        if same_file(args.output, f):  # "-": the file standard input reads, by device and inode
            shown = "- (standard input)" if f == "-" else f
            raise PlanvizError(
                f"-o {args.output} is one of the plan files ({shown}): write the chart to another file "
                "(planviz never overwrites its input)"
            )
    plans = [p for f in files for p in load_plans(sys.stdin.buffer if f == "-" else f)]
    model = FaultModel(parse_rates(args.rates), times=args.times, seed=args.seed)
    executor, close = _executor(args)
    try:
        with Progress() as progress:
            if args.command == "campaign":
                strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
                result = campaign(
                    plans,
                    model,
                    strategies,
                    samples=args.samples,
                    executor=executor,
                    per_plan=args.per_plan,
                    progress=progress,
                )
            else:
                result = ablation(
                    plans,
                    model,
                    samples=args.samples,
                    executor=executor,
                    per_plan=args.per_plan,
                    progress=progress,
                    ladder=not args.no_ladder,
                )
    finally:
        close()
    print(json.dumps(result.to_dict(), indent=2) if args.json else result.to_text())
    if args.output:
        from planviz.pictures.costchart import render_campaign

        path = render_campaign(result, cost=args.cost).save(args.output)
        print(f"wrote {path}", file=sys.stderr if args.json else sys.stdout)
    return 0


_PLAN_SUFFIXES = (".json", ".jsonl", ".ndjson", ".yaml", ".yml")


def _plan_files(paths: list[str]) -> list[str]:
    """The plan files named, a folder standing for the plan files in it (sorted; a task set such as
    ``corpus/asynchow`` or ``corpus/worfbench/full``; LICENSE and README files are not plans).

    >>> _plan_files(["planviz/examples/cache_isolation.yaml"])
    ['planviz/examples/cache_isolation.yaml']
    """
    out: list[str] = []
    for path in paths:
        if path != "-" and os.path.isdir(path):
            found = sorted(
                os.path.join(path, n)
                for n in os.listdir(path)
                if n.lower().endswith(_PLAN_SUFFIXES) and os.path.isfile(os.path.join(path, n))
            )
            if not found:
                raise PlanvizError(
                    f"{path} is a folder with no plan files ({', '.join(_PLAN_SUFFIXES)}); name the "
                    "files, or the folder that holds them"
                )
            out += found
        else:
            out.append(path)
    return out


def frozen_test(plan: Any, contract: Any, faults: Any, args: argparse.Namespace) -> int:
    """``planviz simulate --frozen``: :func:`planviz.frozen_plan_test`, per step performed and evidence, the
    evidence rate, steps out of the plan, the attribution (``--json``: as data); exit 0 when it completed."""
    from planviz.runs.evaluation.frozenplan import frozen_plan_test

    trace = None
    if getattr(args, "trace", None):
        from planviz.traces.own.tracefile import load_trace

        trace = load_trace(args.trace)
    result = frozen_plan_test(plan, contract, faults, workers=args.workers, trace=trace)
    print(json.dumps(result.to_dict(), indent=2) if args.json else result.to_text())
    return 0 if result.outcome == "plan_complete" else 1


def _executor(args: argparse.Namespace) -> tuple[Any, Any]:
    """The executor --workers or --scheduler asks for (None: this process) and how to let it go."""
    if args.scheduler:
        try:
            from distributed import Client
        except ImportError:
            raise PlanvizError(
                "--scheduler needs Dask: pip install 'planviz-agents[dask]'"
            ) from None
        client = Client(args.scheduler, timeout=args.connect_timeout)  # type: ignore[no-untyped-call]  # distributed leaves Client.__init__ unannotated
        return client, client.close
    if args.workers is not None:
        if args.workers < 1:
            raise PlanvizError(f"--workers must be >= 1, got {args.workers}")
        if args.workers == 1:
            return None, lambda: None
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(args.workers)
        return pool, lambda: pool.shutdown(wait=False, cancel_futures=True)
    return None, lambda: None


def add_commands(sub: Any) -> None:
    """Add ``campaign`` and ``ablation`` to the ``planviz`` command's subparsers (importing nothing of runs/:
    ``planviz validate`` stays small)."""
    for name, help in (
        (
            "campaign",
            "run strategies over plan files on sampled faults: success rates and costs "
            "with 95% intervals",
        ),
        (
            "ablation",
            "the planner without one mechanism at a time, then the cumulative ladder, over plan "
            "files on sampled faults",
        ),
    ):
        sp = sub.add_parser(name, help=help.replace("%", "%%"), description=help)
        sp.set_defaults(func=_run)
        sp.add_argument(
            "plans",
            nargs="+",
            metavar="PLANS",
            help="plan files (each may hold many plans) or folders "
            "of them, e.g. a task set such as corpus/asynchow or corpus/worfbench/full",
        )
        sp.add_argument(
            "--samples",
            type=int,
            default=100,
            metavar="N",
            help="fault lists per plan (default 100)",
        )
        sp.add_argument(
            "--rates",
            default="",
            metavar="KIND=P,...",
            help="probability per step of each fault kind, e.g. transient=0.1,tool_error=0.02",
        )
        sp.add_argument(
            "--times",
            type=int,
            default=1,
            metavar="N",
            help="attempts each fault affects (default 1)",
        )
        sp.add_argument("--seed", type=int, default=0, help="seed of the samples (default 0)")
        if name == "ablation":
            sp.add_argument(
                "--no-ladder",
                action="store_true",
                help="only the planner without one mechanism at a time, not the cumulative ladder",
            )
        if name == "campaign":
            sp.add_argument(
                "--strategies",
                default="direct,workflow,planner",
                metavar="A,B",
                help="comma-separated, among direct, workflow, planner (default all three)",
            )
        where = sp.add_mutually_exclusive_group()
        where.add_argument(
            "--workers", type=int, default=None, metavar="K", help="K local worker processes"
        )
        where.add_argument(
            "--scheduler", metavar="ADDRESS", help="a Dask scheduler, e.g. tcp://10.0.0.5:8786"
        )
        sp.add_argument(
            "--connect-timeout", type=float, default=10.0, metavar="S", help=argparse.SUPPRESS
        )
        sp.add_argument("--per-plan", action="store_true", help="also one row per plan")
        sp.add_argument("-o", "--output", metavar="OUT.svg", help="also draw success against cost")
        sp.add_argument(
            "--cost",
            default="tool_calls",
            metavar="METRIC",
            help="the chart's cost axis: tool_calls (default), model_calls, time or another metric",
        )
        sp.add_argument(
            "--json", action="store_true", help="machine-readable output (Campaign.to_dict)"
        )
