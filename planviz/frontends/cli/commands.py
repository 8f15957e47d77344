"""The ``planviz`` command: validate, grade, render, simulate and report plans from a shell.

Exit codes: 0 clean (or the threads of a checkpoint database listed), 1 findings (or a run that did not complete),
2 unreadable input or bad usage; 141 when the reader of the output left early, 130 on Ctrl-C. Errors are one
line on stderr naming the file and place, never a traceback.

>>> main(["schema"]) == 0  # doctest: +ELLIPSIS
{...
True
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, BinaryIO, Callable, Sequence

from planviz.errors import PlanvizError
from planviz.frontends.cli.terminal import CommandParser, NeutralText, Progress, neutral_stdout
from planviz.io.output import same_file

if TYPE_CHECKING:  # only for annotations: the commands import what they use when they run
    from planviz.pictures.diagram import Diagram
    from planviz.plan.model import Contract, Plan
    from planviz.runs.events import Run
    from planviz.runs.fault import Fault

__all__ = ["main"]


def _source(file: str) -> str | BinaryIO:
    """The plan source a FILE argument names: ``-`` is standard input."""
    return sys.stdin.buffer if file == "-" else file


def _load(args: argparse.Namespace) -> tuple[Plan, Contract | None]:
    from planviz.plan.contractfile import load_contract
    from planviz.plan.files import load_plan

    plan = load_plan(_source(args.file), format=getattr(args, "format", None))
    contract = load_contract(args.contract) if getattr(args, "contract", None) else plan.contract
    return plan, contract


def cmd_schema(args: argparse.Namespace) -> int:
    from planviz.plan.schema import plan_schema

    print(json.dumps(plan_schema(), indent=2, sort_keys=True))
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from planviz.checks.report import summarize
    from planviz.checks.validation import validate
    from planviz.plan.contractfile import load_contract
    from planviz.plan.files import load_plans

    plans = load_plans(_source(args.file), format=args.format)
    if len(plans) != 1 or args.summary:
        contract = load_contract(args.contract) if args.contract else None
        summary = summarize(
            [validate(p, contract or p.contract) for p in plans], names=[p.name for p in plans]
        )
        print(json.dumps(summary.to_dict(), indent=2) if args.json else summary.to_text())
        return 0 if summary.plans_with_errors == 0 else 1
    plan = plans[0]
    contract = load_contract(args.contract) if args.contract else plan.contract
    report = validate(plan, contract)
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.to_text())
    return 0 if report.ok else 1


def cmd_grade(args: argparse.Namespace) -> int:
    from planviz.checks.grading import grade

    plan, contract = _load(args)
    g = grade(plan, contract)
    print(json.dumps(g.to_dict(), indent=2) if args.json else g.to_text())
    return 0 if g.admissible else 1


def cmd_render(args: argparse.Namespace) -> int:
    from planviz.checks.validation import validate
    from planviz.errors import PlanFormatError
    from planviz.pictures.drawing import render
    from planviz.traces.own.tracefile import load_trace

    view = {
        "focus": args.focus,
        "hops": args.hops,
        "collapse": args.collapse,
        "group_by": args.group_by,
        "max_steps": None if args.full else args.max_steps,
        "budget": None if args.full else args.budget,
    }
    try:
        plan, contract = _load(args)
    except (
        PlanFormatError
    ) as plan_error:  # FILE may be a run trace: draw the run (its last frame, or --at)
        if args.trace or args.file == "-":
            raise
        traced = _trace_instead(args.file, plan_error, args.thread)
        if traced.plan is None:
            raise PlanFormatError(
                f"{plan_error}; the run trace it holds has no plan to draw"
            ) from None
        diagram = render(traced.plan, run=traced, at=args.at, **view)
        return _wrote(diagram, args.output)
    run = load_trace(args.trace, thread=args.thread) if args.trace else None
    if run is not None and not _runs_plan(run, plan):
        return _render_alignment(args, plan, run)
    # A run frame draws the run's own plan version (render picks it); a plain plan shows its findings.
    report = validate(plan, contract) if run is None else None
    diagram = render(plan, run=run, at=args.at, report=report, **view)
    return _wrote(diagram, args.output)


def _wrote(diagram: Diagram, output: str) -> int:
    path = diagram.save(output)
    print(f"planviz: note: {diagram.notice}", file=sys.stderr) if diagram.notice else None
    print(f"wrote {path}")
    return 0


def _trace_instead(file: str, plan_error: Exception, thread: str | None = None) -> Run:
    """The run a FILE that is no plan holds; when it is no trace either, the plan error says both."""
    from planviz.errors import PlanFormatError, TraceFormatError
    from planviz.traces.own.tracefile import load_trace

    try:
        return load_trace(file, thread=thread)
    except TraceFormatError as trace_error:
        raise PlanFormatError(
            f"{plan_error}; nor is it a run trace ({trace_error}); render draws a plan file "
            "or a run trace in a format planviz.load_trace reads"
        ) from None


def _runs_plan(run: Run, plan: Plan) -> bool:
    """Is ``run`` a run of ``plan`` (its first version has the plan's steps), so its frames draw that plan?"""
    return bool(run.plans) and tuple(run.plans[0].steps) == tuple(plan.steps)


def _render_alignment(args: argparse.Namespace, plan: Plan, run: Run) -> int:
    """PLAN --run TRACE where the trace ran another plan: draw the plan aligned with what the run did."""
    from planviz.pictures.fatepicture import render_alignment
    from planviz.runs.comparisons.alignment import align

    if args.at is not None:
        raise PlanvizError(
            f"--at {args.at}: {args.trace} is not a run of {args.file} (it ran other steps), so its "
            f"frames do not draw this plan; drop --at to draw the plan aligned with the run "
            f"(each step's fate), or draw the run alone: planviz render {args.trace} --at {args.at}"
        )
    alignment = align(plan, run)
    if not any(f.ran_as for f in alignment.fates):
        raise PlanvizError(
            f"{args.trace} ran none of the steps of {args.file} (no step matched by id, call id, tool "
            f"or arguments): nothing to align; draw the run alone: planviz render {args.trace} -o "
            f"{args.output}"
        )
    print(
        f"planviz: note: {args.trace} ran another plan than {args.file}: drawn as the plan aligned with the run "
        f"({', '.join(f'{n} {k}' for k, n in alignment.counts().items() if n)})",
        file=sys.stderr,
    )
    return _wrote(render_alignment(alignment), args.output)


def cmd_simulate(args: argparse.Namespace) -> int:
    from planviz.frontends.cli.evaluationcli import frozen_test
    from planviz.plan.model import natural_key
    from planviz.runs.engine.simulation import simulate
    from planviz.runs.fault import Fault
    from planviz.runs.measures.runmetrics import metrics

    plan, contract = _load(args)
    faults = _goal_changes([Fault.parse(text) for text in args.fault], args)
    if args.frozen:  # seed 000's executor test: the route fixed, no replanning
        return frozen_test(plan, contract, faults, args)
    with Progress() as progress:
        run = simulate(
            plan,
            contract,
            faults=faults,
            workers=args.workers,
            strategy=args.strategy,
            approval_time=args.approval_time,
            progress=progress,
        )
    m = metrics(run)
    voided = sorted(
        {s for e in run.events if e.kind in ("invalidate", "recheck") for s in e.voided},
        key=natural_key,
    )
    stop = run.events[-1] if run.events and run.events[-1].kind == "stop" else None
    reason = (
        None
        if stop is None or run.outcome == "plan_complete"
        else stop.message.removeprefix(f"{run.outcome}: ")
    )
    if args.json:
        print(
            json.dumps(
                {
                    "outcome": run.outcome,
                    "reason": reason,
                    "refused_by": stop.category if stop else None,
                    "voided": voided,
                    "metrics": m.to_dict(),
                },
                indent=2,
            )
        )
    else:
        print(f"outcome: {run.outcome}")
        if reason:
            print(f"reason: {reason}")
        print(f"voided: {', '.join(voided) if voided else '(none)'}")
        print(m.to_text())
    note = sys.stderr if args.json else sys.stdout  # keep --json output parseable
    if args.trace:
        from planviz.traces.own.tracefile import save_trace

        save_trace(run, args.trace)
        print(f"wrote {args.trace}", file=note)
    if args.report:
        from planviz.frontends.pages.htmlreport import report_html

        with Progress() as progress:
            report_html(run, args.report, progress=progress)
        print(f"wrote {args.report}", file=note)
    return 0 if run.outcome == "plan_complete" else 1


def _goal_changes(faults: list[Fault], args: argparse.Namespace) -> list[Fault]:
    """The goal_change faults carry --new-goal and --new-contract (each needs such a fault)."""
    from dataclasses import replace

    from planviz.plan.contractfile import load_contract

    if args.new_goal is None and args.new_contract is None:
        return faults
    if not any(f.kind == "goal_change" for f in faults):
        raise PlanvizError(
            "--new-goal and --new-contract go with a goal_change fault, e.g. --fault S3:goal_change"
        )
    contract = load_contract(args.new_contract) if args.new_contract else None
    return [
        replace(f, goal=args.new_goal, contract=contract) if f.kind == "goal_change" else f
        for f in faults
    ]


def cmd_report(args: argparse.Namespace) -> int:
    from planviz.frontends.pages.htmlreport import report_html
    from planviz.traces.own.tracefile import load_trace

    with Progress() as progress:
        report_html(load_trace(args.file, thread=args.thread), args.output, progress=progress)
    print(f"wrote {args.output}")
    return 0


def cmd_align(args: argparse.Namespace) -> int:
    from planviz.pictures.fatepicture import render_alignment
    from planviz.runs.comparisons.alignment import align
    from planviz.traces.own.tracefile import load_trace

    plan, _ = _load(args)
    alignment = align(plan, load_trace(args.run, format=args.trace_format, thread=args.thread))
    print(json.dumps(alignment.to_dict(), indent=2) if args.json else alignment.to_text())
    if args.output:
        path = render_alignment(alignment).save(args.output)
        print(f"wrote {path}", file=sys.stderr if args.json else sys.stdout)
    return (
        0 if all(f.fate == "as_planned" for f in alignment.fates) and not alignment.unplanned else 1
    )


def cmd_diff(args: argparse.Namespace) -> int:
    from planviz.runs.comparisons.rundiff import diff_runs
    from planviz.traces.own.tracefile import load_trace

    threads = args.thread or [None]
    if len(threads) > 2:
        raise PlanvizError(
            "diff takes --thread once (both runs) or twice (the first run's, then the second's)"
        )
    diff = diff_runs(
        load_trace(args.a, format=args.trace_format, thread=threads[0]),
        load_trace(args.b, format=args.trace_format, thread=threads[-1]),
    )
    print(json.dumps(diff.to_dict(), indent=2) if args.json else diff.to_text())
    return 0 if diff.same and diff.same_usage else 1


THREAD_HELP = "the thread to read from a LangGraph checkpoint database (planviz lists them when it is left out)"


def _parser() -> argparse.ArgumentParser:
    p = CommandParser(
        prog="planviz",
        description="See, check and replay AI-agent plans and runs from a shell.",
        epilog="Exit codes: 0 clean, 1 findings (or a run that did not complete "
        "or runs that differ), 2 unreadable input or bad usage, 130 on Ctrl-C.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    from planviz.plan.files import FORMATS as formats

    def add(
        name: str, func: Callable[[argparse.Namespace], int], help: str, *, plan: bool = True
    ) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=help)
        sp.set_defaults(func=func)
        if plan:
            sp.add_argument(
                "file",
                help="plan file (YAML, JSON, JSON Lines or planner text); - reads standard input",
            )
            sp.add_argument(
                "--format",
                choices=formats,
                default=None,
                help="input format (detected when omitted)",
            )
            sp.add_argument(
                "--contract",
                metavar="F",
                help="contract file (default: the plan file's own contract)",
            )
        return sp

    sp = add("validate", cmd_validate, "report every defect of a plan, layer by layer")
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    sp.add_argument("--summary", action="store_true", help="summary table even for a single plan")
    sp = add("grade", cmd_grade, "grade a planner's output against a contract without running it")
    sp.add_argument("--json", action="store_true")
    sp = add(
        "render", cmd_render, "draw a plan (or one frame of a recorded run) as SVG, PNG or DOT"
    )
    sp.add_argument("-o", "--output", required=True, help="OUT.svg, OUT.png or OUT.dot")
    sp.add_argument(
        "--trace", "--run", dest="trace", metavar="TRACE", help="a run trace (JSON Lines)"
    )
    sp.add_argument("--at", type=int, default=None, help="event index to show (default: the last)")
    sp.add_argument("--thread", metavar="ID", help=THREAD_HELP)
    sp.add_argument(
        "--focus", action="append", metavar="STEP", help="draw the steps around STEP (repeatable)"
    )
    sp.add_argument("--hops", type=int, default=2, help="how far around --focus (default 2)")
    sp.add_argument("--collapse", choices=["chains"], help="draw each chain of steps as one node")
    sp.add_argument("--group-by", choices=["kind"], help="one cluster per step kind")
    sp.add_argument(
        "--max-steps",
        type=int,
        default=300,
        metavar="N",
        help="above N steps draw a focused view (default 300)",
    )
    sp.add_argument(
        "--budget",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="time allowed for the layout (default 10); a bigger one falls back to a smaller view",
    )
    sp.add_argument("--full", action="store_true", help="every step, however long the layout takes")
    sp = add("simulate", cmd_simulate, "simulate a run with injected faults")
    sp.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="STEP:KIND[:FACT][xN]",
        help="e.g. S4:side_effect or S3:withdraw:key_builder_located (repeatable)",
    )
    sp.add_argument("--strategy", choices=["direct", "workflow", "planner"], default="planner")
    sp.add_argument(
        "--frozen", action="store_true", help="the executor test: the route fixed, no replanning"
    )
    sp.add_argument("--workers", type=int, default=None)
    sp.add_argument("--new-goal", metavar="TEXT", help="the new goal a goal_change fault brings")
    sp.add_argument(
        "--new-contract", metavar="F", help="the new contract a goal_change fault brings (a file)"
    )
    sp.add_argument(
        "--approval-time",
        type=float,
        default=0.0,
        metavar="T",
        help="how long each approval takes (default 0)",
    )
    sp.add_argument(
        "--trace",
        metavar="OUT.jsonl",
        help="save the run as a trace (with --frozen: the run to test)",
    )
    sp.add_argument("--report", metavar="OUT.html", help="write a self-contained HTML report")
    sp.add_argument("--json", action="store_true")
    sp = add(
        "report", cmd_report, "write a self-contained HTML stepper for a run trace", plan=False
    )
    sp.add_argument("file", help="run trace (any trace format)")
    sp.add_argument("-o", "--output", required=True, help="OUT.html")
    sp.add_argument("--thread", metavar="ID", help=THREAD_HELP)
    trace_formats = (
        "planviz",
        "otel",
        "openinference",
        "phoenix",
        "mlflow",
        "otel-js",
        "otlp-proto",
        "langfuse",
        "langgraph",
        "langgraph-sqlite",
    )
    sp = add(
        "align",
        cmd_align,
        "match a declared plan to what a run did: each step's fate, the unplanned calls",
    )
    sp.add_argument("run", help="run trace (any trace format)")
    sp.add_argument("-o", "--output", help="also draw the alignment: OUT.svg, OUT.png or OUT.dot")
    sp.add_argument("--thread", metavar="ID", help=THREAD_HELP)
    sp.add_argument(
        "--trace-format",
        choices=trace_formats,
        default=None,
        help="trace format (detected when omitted)",
    )
    sp.add_argument("--json", action="store_true")
    sp = add(
        "diff",
        cmd_diff,
        "compare two runs: first divergence, steps in one only, changed steps, time and cost",
        plan=False,
    )
    sp.add_argument("a", help="first run trace (any trace format)")
    sp.add_argument("b", help="second run trace")
    sp.add_argument(
        "--thread",
        metavar="ID",
        action="append",
        help=THREAD_HELP + "; once for both runs, twice for the first run's and the second's",
    )
    sp.add_argument(
        "--trace-format",
        choices=trace_formats,
        default=None,
        help="trace format (detected when omitted)",
    )
    sp.add_argument("--json", action="store_true")
    from planviz.frontends.cli.hindsightcli import add_command as add_hindsight

    add_hindsight(sub, trace_formats, THREAD_HELP)
    add("schema", cmd_schema, "print the JSON Schema of plan files", plan=False)
    from planviz.frontends.cli import (  # campaign, ablation; receive; show; what-if
        evaluationcli,
        receivecli,
        showcli,
        whatifcli,
    )

    evaluationcli.add_commands(sub)
    receivecli.add_command(sub)
    showcli.add_show(sub, trace_formats, THREAD_HELP)
    whatifcli.add_command(sub, trace_formats, THREAD_HELP)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); returns the exit code.

    >>> main(["validate", "no_such_plan.yaml"])
    2
    """
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed the usage error
        return int(exc.code or 0) and 2
    try:
        _refuse_overwriting(args)
        from planviz.frontends.cli.threadlist import (
            pick_thread,  # a checkpoint database of several threads, no --thread: listed
        )

        with neutral_stdout():  # no plan or trace text moves the terminal
            return pick_thread(args, args.func)
    # the reader left early (`planviz schema | head`): stop quietly, as shell tools do
    except BrokenPipeError:
        _silence_stdout()
        return 141
    except (PlanvizError, OSError, UnicodeError, RecursionError, MemoryError) as exc:
        from planviz.frontends.cli.tracemixup import (
            trace_refusal,  # imported on this error path only: startup stays as it was
        )

        message = (
            trace_refusal(exc, args)
            or str(exc)
            or (
                "out of memory: the input stands for more than this machine holds"
                if isinstance(exc, MemoryError)
                else type(exc).__name__
            )
        )
        # one line
        print(f"planviz: error: {' '.join(message.splitlines())}", file=NeutralText(sys.stderr))
        return 2
    except KeyboardInterrupt:  # Ctrl-C: no traceback; outputs are written whole or not at all
        print("planviz: interrupted", file=sys.stderr)
        return 130


# command -> (input options, output options); an output may be neither an input nor another output
_FILES = {
    "render": (("file", "contract", "trace"), ("output",)),
    "simulate": (("file", "contract", "new_contract"), ("trace", "report")),
    "report": (("file",), ("output",)),
    "align": (("file", "contract", "run"), ("output",)),
    "hindsight": (("file",), ("plan",)),
}
_FLAGS = {
    "file": "FILE",
    "contract": "--contract",
    "new_contract": "--new-contract",
    "trace": "--trace",
    "run": "RUN",
    "output": "-o",
    "report": "--report",
    "plan": "--plan",
}


# command -> output option -> (the suffixes of what it writes, what it writes)
_PICTURE = ((".svg", ".png", ".dot"), "a picture (SVG, PNG or Graphviz DOT, by the suffix)")
_SUFFIXES: dict[str, dict[str, tuple[tuple[str, ...], str]]] = {
    "render": {"output": _PICTURE},
    "align": {"output": _PICTURE},
    "report": {"output": ((".html", ".htm"), "an HTML page")},
    "simulate": {
        "trace": ((".jsonl", ".ndjson"), "a JSON Lines trace"),
        "report": ((".html", ".htm"), "an HTML page"),
    },
}


def _refuse_wrong_suffix(args: argparse.Namespace) -> None:
    """Refuse, before any work, an output whose suffix says another format than the one written to it."""
    for name, (suffixes, what) in _SUFFIXES.get(args.command, {}).items():
        path = getattr(args, name, None)
        # simulate --frozen writes nothing; --trace is read
        if path is None or getattr(args, "frozen", False):
            continue
        suffix = os.path.splitext(path)[1].lower()
        if suffix not in suffixes:
            raise PlanvizError(
                f"{_FLAGS[name]} {path}: {args.command} writes {what} there, and "
                f"{'a name with no suffix' if not suffix else repr(suffix)} says otherwise; name "
                f"it {' or '.join('OUT' + x for x in suffixes)}"
            )


def _refuse_overwriting(args: argparse.Namespace) -> None:
    """Refuse, before any work, an output path that names an input file or another output."""
    inputs, outputs = _FILES.get(args.command, ((), ()))
    # "-": the file standard input reads
    seen: list[tuple[str, str]] = [
        (name, getattr(args, name)) for name in inputs if getattr(args, name, None) is not None
    ]
    for name in outputs:
        path = getattr(args, name, None)
        if path is None:
            continue
        for other, other_path in seen:
            if path != "-" and same_file(path, other_path):
                shown = "- (standard input)" if other_path == "-" else other_path
                if other in inputs:
                    raise PlanvizError(
                        f"{_FLAGS[name]} {path} is the input {_FLAGS[other]} {shown}: write "
                        "the output to another file (planviz never overwrites its input)"
                    )
                raise PlanvizError(
                    f"{_FLAGS[name]} {path} is also the output {_FLAGS[other]} {other_path}: "
                    "give each output its own file"
                )
        seen.append((name, path))
    _refuse_wrong_suffix(args)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush into the closed pipe stays silent."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (captured output)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
