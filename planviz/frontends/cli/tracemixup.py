"""The trace mix-up: a run trace handed to a command that reads a plan, and what to run instead.

When a plan command (``validate``, ``grade``, ``simulate``, ``align``'s PLAN, ``campaign``,
``ablation``) cannot read its plan file and that file is a run trace the trace registry
(:mod:`planviz.traces`) reads, the command says which trace it is and which command
reads it. The registry is imported only then, on the error path: a plan that reads well
never pays for it. Any other unreadable file keeps the plan reader's own message.
``render`` draws a trace itself (``cli._trace_instead``).
"""

from __future__ import annotations

import argparse
import os

from planviz.errors import PlanFormatError, PlanvizError, TraceFormatError

__all__: list[str] = []

# command -> its arguments that name plan files (render is not here: it draws a trace it is given)
PLAN_FILES = {
    "validate": "file",
    "grade": "file",
    "simulate": "file",
    "align": "file",
    "campaign": "plans",
    "ablation": "plans",
}


def trace_refusal(error: BaseException, args: argparse.Namespace) -> str | None:
    """The message for ``error`` when the plan file it is about is a run trace; None for any other error."""
    if (
        not isinstance(error, PlanFormatError)
        or isinstance(error, TraceFormatError)
        or not error.source
    ):
        return None
    named = getattr(args, PLAN_FILES.get(getattr(args, "command", ""), ""), None)
    files = named if isinstance(named, list) else [named]
    if error.source not in files or error.source == "-" or not os.path.isfile(error.source):
        return None
    import shlex

    from planviz.traces import FORMATS, format_title, load_runs

    try:
        runs = load_runs(error.source)
    except (PlanvizError, OSError, UnicodeError, RecursionError, MemoryError):
        return None  # no trace either (or a trace too broken to name): the plan reader's message stands
    fmt = next((run.trace_format for run in runs if run.trace_format in FORMATS), None) or "planviz"
    path = shlex.quote(error.source)
    thread = " --thread ID" if len(runs) > 1 else ""
    threads = f"; it holds {len(runs)} threads: name one with --thread ID" if thread else ""
    return (
        f"{error.source}: this is a run trace ({format_title(fmt)}), not a plan: `planviz report {path} -o "
        f"OUT.html{thread}` steps through it, `planviz align PLAN {path}{thread}` matches it to a plan{threads}"
    )
