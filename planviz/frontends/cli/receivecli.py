"""``planviz receive --port 4318 -o DIR``: receive OpenTelemetry traces while agents run, and keep each run.

Each trace whose root span ended is written as it finishes: ``DIR/<trace id>.jsonl`` (planviz JSON Lines, by
:func:`~planviz.save_trace`) and ``DIR/<trace id>.html`` (its report), and one line is printed: the goal, the
outcome, the calls (tools and models), the tokens and the time. Ctrl-C (or ``--runs N`` finished runs) stops it:
the receiver lets requests already begun finish, and traces received but not finished are written too, marked
unfinished, so no span an agent was told was taken is lost. Text from the traces is neutralised by the CLI's
standard output (:class:`~planviz.frontends.cli.terminal.NeutralText`).

>>> from planviz.frontends.cli.commands import main
>>> main(["receive", "--port", "-1", "-o", "out"])  # refused before anything listens or is written
2
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

__all__ = ["add_command", "cmd_receive", "run_line"]


def _figure(x: Any) -> str:
    return "?" if x is None else f"{x:,}"


def run_line(run: Any, name: str, finished: bool = True) -> str:
    """The line printed for one run: its trace, goal, outcome, calls, tokens and time."""
    from planviz.runs.summary.runsummary import run_summary

    use = run_summary(run).usage  # the report of the run counted it: its summary's
    goal = " ".join(str(run.plan.goal).split())
    goal = goal if len(goal) <= 60 else goal[:59] + "..."
    outcome = (
        (run.outcome or "unfinished") if finished else "unfinished (its root span never arrived)"
    )
    tokens = (
        f"tokens {_figure(use.input_tokens)} in, {_figure(use.output_tokens)} out"
        if use.input_tokens is not None or use.output_tokens is not None
        else "tokens unknown"
    )
    return (
        f"{name}: {goal!r} - {outcome} - {use.tool_calls} tool calls, {_figure(use.model_calls)} model calls - "
        f"{tokens} - {use.time:.3g} {run.plan.time_unit or 's'}"
    )


def _write(rx: Any, trace_id: str, out: str, finished: bool) -> None:
    from planviz.frontends.pages.htmlreport import report_html
    from planviz.runs.summary.runsummary import run_summary
    from planviz.traces.own.tracefile import save_trace

    run = rx.run(trace_id)
    summary = run_summary(run)  # held for the report and the line: one count of the run's usage
    save_trace(run, os.path.join(out, f"{trace_id}.jsonl"))
    report_html(run, os.path.join(out, f"{trace_id}.html"))
    print(run_line(summary.run, trace_id, finished), flush=True)


def cmd_receive(args: argparse.Namespace) -> int:
    from planviz.errors import PlanvizError
    from planviz.frontends.receiver import NoRunYet, receive

    if args.runs is not None and args.runs < 1:
        raise PlanvizError(
            f"--runs {args.runs}: give a number of runs of 1 or more (or leave it out)"
        )
    written: set[str] = set()
    rx = receive(port=args.port, host=args.host)
    try:
        os.makedirs(args.output, exist_ok=True)
    except OSError:
        rx.stop()
        raise
    print(
        f"planviz: receiving OTLP traces at {rx.endpoint} (OTEL_EXPORTER_OTLP_ENDPOINT=http://{rx.host}:"
        f"{rx.port}); writing to {args.output}; Ctrl-C stops",
        file=sys.stderr,
        flush=True,
    )
    try:
        while args.runs is None or len(written) < args.runs:
            try:
                rx.wait(timeout=0.5)
            except NoRunYet:
                continue
            for trace_id in rx.trace_ids:
                if trace_id not in written and rx.finished(trace_id):
                    _write(rx, trace_id, args.output, True)
                    written.add(trace_id)
    except KeyboardInterrupt:
        print("planviz: stopping", file=sys.stderr, flush=True)
    finally:
        rx.stop()  # requests begun finish first
    for trace_id in rx.trace_ids:  # what arrived before the stop: written, finished or not
        if trace_id not in written:
            _write(rx, trace_id, args.output, rx.finished(trace_id))
            written.add(trace_id)
    print(
        f"planviz: {len(written)} runs written to {args.output} ({rx.accepted:,} spans taken, {rx.refused} "
        "requests refused)",
        file=sys.stderr,
    )
    return 0


def add_command(sub: Any) -> None:
    """Register ``planviz receive`` on the CLI's subcommands."""
    help = "receive OpenTelemetry traces over OTLP/HTTP while agents run; write each finished run and its report"
    sp = sub.add_parser("receive", help=help, description=help)
    sp.set_defaults(func=cmd_receive)
    sp.add_argument(
        "--port",
        type=int,
        default=4318,
        help="port to listen on (default 4318, OTLP/HTTP's; 0: a free one)",
    )
    sp.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    sp.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="DIR",
        help="folder for TRACE_ID.jsonl (planviz JSON Lines) and TRACE_ID.html (its report)",
    )
    sp.add_argument(
        "--runs",
        type=int,
        default=None,
        metavar="N",
        help="stop after N finished runs (default: Ctrl-C)",
    )
