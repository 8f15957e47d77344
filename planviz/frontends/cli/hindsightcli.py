"""``planviz hindsight``: how long a run took against a schedule it could have run, and that schedule as a plan.

``--plan OUT`` writes the ideal schedule (:attr:`planviz.Hindsight.plan`):
YAML (``.yaml``, ``.yml``, or any other name), JSON (``.json``), or an
LLMCompiler planner's plan (``.txt``), which ``planviz validate`` and
``planviz simulate`` read back.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

__all__ = ["add_command", "cmd_hindsight"]


def cmd_hindsight(args: argparse.Namespace) -> int:
    from planviz.errors import PlanvizError
    from planviz.io.output import write_output
    from planviz.plan.planwriter import dump_plan
    from planviz.runs.hindsight.idealplan import llmcompiler_text
    from planviz.runs.hindsight.retrospect import hindsight
    from planviz.traces.own.tracefile import load_trace

    h = hindsight(load_trace(args.file, format=args.trace_format, thread=args.thread))
    print(json.dumps(h.to_dict(), indent=2) if args.json else h.to_text())
    if args.plan:
        if h.plan is None:
            raise PlanvizError(f"--plan {args.plan}: no step ran, so there is no schedule to write")
        if str(args.plan).endswith(".txt"):
            write_output(args.plan, llmcompiler_text(h.plan) + "\n")
        else:
            dump_plan(h.plan, args.plan)
    return 0


def add_command(sub: Any, trace_formats: Any, thread_help: str) -> None:
    """Add ``hindsight`` to the ``planviz`` command's subparsers."""
    help = (
        "how long a run took against a schedule it could have run (one plan, then the calls as their data "
        "allow): waits, steps that share no data yet ran one after the other, and why each call waited"
    )
    sp = sub.add_parser("hindsight", help=help, description=help)
    sp.set_defaults(func=cmd_hindsight)
    sp.add_argument("file", help="run trace (any trace format)")
    sp.add_argument("--thread", metavar="ID", help=thread_help)
    sp.add_argument(
        "--trace-format",
        choices=trace_formats,
        default=None,
        help="trace format (detected when omitted)",
    )
    sp.add_argument("--json", action="store_true")
    sp.add_argument(
        "--plan",
        metavar="OUT",
        help="also write the ideal schedule as a plan: YAML, JSON (.json) or an "
        "LLMCompiler plan (.txt)",
    )
