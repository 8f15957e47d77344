"""``planviz what-if TRACE --fault STEP:KIND``: replay a recorded run with faults injected (:func:`planviz.what_if`).

Prints what the faults void, what verified work is kept, what would have to
re-run, the new makespan and the tokens of the re-run; ``-o OUT.svg`` draws
it on the recorded timeline. Without ``--fault``, a failed run's blast radius.
Trace text reaches the terminal with its control characters shown as escapes.

>>> import os, tempfile
>>> from planviz import examples, save_trace, simulate
>>> from planviz.frontends.cli.commands import main
>>> path = os.path.join(tempfile.mkdtemp(), "run.jsonl")
>>> save_trace(simulate(examples.load("cache_isolation")), path)
>>> main(["what-if", path, "--fault", "S4:side_effect"])  # doctest: +ELLIPSIS
S4:side_effect: 2 voided, 3 kept, 2 to re-run; 45 min instead of 29 min (plan_complete)
voided: S3, S4
kept: S0, S1, S2
re-run: S3, S4
...
0
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Sequence

__all__ = ["add_command", "cmd_what_if"]

HELP = (
    "replay a recorded run with faults injected: which recorded steps are voided, which verified work is kept, "
    "what would have to re-run, the new makespan and token cost; without --fault, a failed run's blast radius"
)


def add_command(sub: Any, trace_formats: Sequence[str], thread_help: str) -> None:
    """Register ``what-if`` on the CLI's subcommands."""
    sp = sub.add_parser("what-if", help=HELP, description=HELP)
    sp.set_defaults(func=cmd_what_if)
    sp.add_argument("file", help="run trace (any trace format)")
    sp.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="STEP:KIND[:FACT][xN]",
        help="a fault to inject, e.g. get_current_time:tool_error or search:transientx2 (repeatable); "
        "STEP is a tool call's id as `planviz what-if TRACE` lists them, or '(final answer)'",
    )
    sp.add_argument(
        "-o", "--output", metavar="OUT.svg", help="also draw it on the recorded timeline (SVG)"
    )
    sp.add_argument("--thread", metavar="ID", help=thread_help)
    sp.add_argument(
        "--trace-format",
        choices=trace_formats,
        default=None,
        help="trace format (detected when omitted)",
    )
    sp.add_argument("--json", action="store_true", help="machine-readable output")


def cmd_what_if(args: argparse.Namespace) -> int:
    """Run ``planviz what-if``: 0 when the replay completes, 1 when the faults make it stop short."""
    import os

    from planviz.checks.report import printable
    from planviz.errors import PlanvizError
    from planviz.io.output import same_file, write_output
    from planviz.runs.fault import Fault
    from planviz.runs.hindsight.whatif import what_if
    from planviz.traces.own.tracefile import load_trace

    if args.output is not None:
        if os.path.splitext(args.output)[1].lower() != ".svg":
            raise PlanvizError(
                f"-o {args.output}: what-if draws an SVG picture there; name it OUT.svg"
            )
        if same_file(args.output, args.file):
            raise PlanvizError(
                f"-o {args.output} is the input FILE {args.file}: write the picture to another file "
                "(planviz never overwrites its input)"
            )
    faults = [Fault.parse(text) for text in args.fault]
    w = what_if(load_trace(args.file, format=args.trace_format, thread=args.thread), faults=faults)
    if args.output is not None:
        from planviz.pictures.whatifchart import render_what_if

        write_output(args.output, render_what_if(w))
    text = json.dumps(w.to_dict(), indent=2) if args.json else w.to_text()
    print("\n".join(printable(line) for line in text.splitlines()))
    return 0 if w.outcome == "plan_complete" else 1
