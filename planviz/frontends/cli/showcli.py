"""``planviz show TRACE [--step ID]``: what was said and done in a run, on a terminal.

Without ``--step`` it lists the steps (how each ended, its tool, the first line of its error) and how many turns
the conversation has; with ``--step ID`` it prints that step: its error first when it failed, what it returned,
its arguments, and the model calls that led to it with what the model was given and what it answered, as the
explorer and the reports show them (:mod:`planviz.frontends.calldetails`). ``--turns`` prints the conversation
(who said what). Every text is the trace's, untrusted: control characters (escape sequences, carriage returns,
bidi overrides) are printed as escapes, so a trace cannot move the cursor, colour the terminal or hide text.

>>> from planviz.frontends.cli.commands import main
>>> main(["show", "planviz/examples/traces/otel/any-agent_OPENAI_trace.json", "--step", "write_file"])
step write_file: done (tool write_file)
returned:
  {}
arguments:
  text = "2025"
model calls that led to it: 1
  1. mistral/mistral-small-latest at t=0.2444 s, 0.3136 s - tokens 359 in, 14 out - cost 4.01e-05 USD
     answered:
       write_file({"text": "2025"})
0
"""

from __future__ import annotations

import argparse
from typing import Any

from planviz.checks.report import printable
from planviz.errors import PlanvizError, did_you_mean
from planviz.frontends.calldetails import MAX_TEXT, run_turns, step_story
from planviz.plan.model import natural_key

__all__ = ["add_show", "cmd_show", "terminal_text"]

_SHORT = 2_000  # characters of one text printed without --full


def terminal_text(text: str, indent: str = "  ", limit: int | None = _SHORT) -> str:
    """Untrusted text for a terminal: each line indented, every control character but the line breaks shown as an
    escape (``\\x1b``, ``\\r``, ``\\u202e``), cut to ``limit`` characters (None: whole) saying how to see the rest.

    >>> print(terminal_text("ok\\n\\x1b[31mred\\x1b[0m"))
      ok
      \\x1b[31mred\\x1b[0m
    """
    cut = limit is not None and len(text) > limit
    shown = text[:limit] if limit is not None and cut else text
    lines = [indent + printable(line) for line in shown.split("\n")]
    if limit is not None and cut:
        lines.append(f"{indent}... ({len(text) - limit} more characters: --full prints them)")
    return "\n".join(lines)


def _figure(x: Any) -> str:
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def _call_line(n: int, call: dict[str, Any], unit: str) -> str:
    parts = [f"{n}. {printable(call['model']) or 'model'}"]
    if call["time"] is not None:
        parts.append(f" at t={_figure(call['time'])} {unit}")
    if call["duration"] is not None:
        parts.append(f", {_figure(call['duration'])} {unit}")
    if call["input_tokens"] is not None or call["output_tokens"] is not None:
        shown = [
            "?" if call[k] is None else str(call[k]) for k in ("input_tokens", "output_tokens")
        ]
        parts.append(f" - tokens {shown[0]} in, {shown[1]} out")
    if call["cost"] is not None:
        parts.append(f" - cost {_figure(call['cost'])} USD")
    return "".join(parts) + ("" if call["ok"] else " - failed")


def step_text(run: Any, sid: str, full: bool = False) -> str:
    """What ``planviz show TRACE --step SID`` prints: the step's error first when it failed, what it returned, its
    arguments and the model calls that led to it, with their input and output."""
    story = step_story(run)
    if sid not in story:
        known = sorted(story, key=natural_key)
        raise PlanvizError(
            f"--step {printable(sid)!r}: no such step in this run{did_you_mean(sid, known)}; its steps "
            f"are {', '.join(known[:20])}{', ...' if len(known) > 20 else ''} (planviz show TRACE "
            "lists them)"
        )
    said = story[sid]
    limit = None if full else _SHORT
    step = next(p.step(sid) for p in reversed(run.plans) if sid in p)
    unit = next((p.time_unit for p in reversed(run.plans) if p.time_unit), "") or "time units"
    out = [
        f"step {printable(sid)}: {said['status']}"
        + (f" (tool {printable(step.tool)})" if step.tool else "")
    ]
    if said["error"] is not None:
        out += ["error:", terminal_text(said["error"], limit=limit)]
    if said["result"] is not None:
        out += ["returned:", terminal_text(said["result"], limit=limit)]
    elif said["status"] in ("done", "failed"):
        out.append("returned: (the trace does not say)")
    if said["arguments"]:
        out.append("arguments:")
        out += [
            f"  {printable(k)} = {terminal_text(v, '', limit).strip()}"
            for k, v in said["arguments"]
        ]
    else:
        out.append("arguments: (none)")
    calls = said["calls"]
    out.append(
        f"model calls that led to it: {len(calls)}"
        if calls
        else "model calls that led to it: (none recorded)"
    )
    for n, call in enumerate(calls, 1):
        out.append("  " + _call_line(n, call, unit))
        for name, key in (("given", "input"), ("answered", "output")):
            if call[key] is not None:
                out += [f"     {name}:", terminal_text(call[key], "       ", limit)]
    return "\n".join(out)


def steps_text(run: Any) -> str:
    """What ``planviz show TRACE`` prints: every step of the run's last plan version, how it ended and its tool, the
    first line of its error; then how many turns the conversation has."""
    story = step_story(run)
    plan = run.plans[-1] if run.plans else None
    out = [f"goal: {printable(plan.goal)}" if plan is not None else "no plan"]
    for s in plan.steps if plan is not None else ():
        said = story[s.id]
        error = (said["error"] or "").strip().split("\n")[0]
        out.append(
            f"  {printable(s.id)}  {said['status']}"
            + (f"  tool {printable(s.tool)}" if s.tool else "")
            + (f"  error: {printable(error[:120])}" if error else "")
        )
    turns = getattr(run, "turns", ())
    out.append(
        f"conversation: {len(turns)} turn(s) (--turns prints them)"
        if turns
        else "conversation: not recorded"
    )
    out.append(
        "planviz show TRACE --step ID prints a step: its error, what it returned, its arguments, its model calls"
    )
    return "\n".join(out)


def turns_text(run: Any, full: bool = False) -> str:
    """Who said what: each turn of the run's conversation, its role, then its text."""
    turns = run_turns(run)
    if not turns:
        return "conversation: not recorded in this trace"
    out = []
    for role, text, time in turns:
        out += [
            f"{printable(role)}" + (f" (t={_figure(time)})" if time is not None else "") + ":",
            terminal_text(text, limit=None if full else _SHORT),
        ]
    return "\n".join(out)


def cmd_show(args: argparse.Namespace) -> int:
    from planviz.traces.own.tracefile import load_trace

    run = load_trace(args.file, format=args.trace_format, thread=args.thread)
    if args.step is not None:
        print(step_text(run, args.step, args.full))
    elif args.turns:
        print(turns_text(run, args.full))
    else:
        print(steps_text(run))
    return 0


def add_show(sub: Any, trace_formats: tuple[str, ...], thread_help: str) -> None:
    """Register ``planviz show`` on the command parser's subcommands."""
    sp = sub.add_parser(
        "show",
        help="what was said and done in a run: its steps, or one step's error, result, "
        "arguments and model calls",
        description=__doc__.split("\n\n")[1].replace("\n", " "),
    )
    sp.set_defaults(func=cmd_show)
    sp.add_argument("file", help="run trace (any trace format)")
    sp.add_argument("--step", metavar="ID", help="the step to show (without it: the list of steps)")
    sp.add_argument("--turns", action="store_true", help="print the conversation: who said what")
    sp.add_argument(
        "--full", action="store_true", help=f"print every text whole (up to {MAX_TEXT} characters)"
    )
    sp.add_argument("--thread", metavar="ID", help=thread_help)
    sp.add_argument(
        "--trace-format",
        choices=trace_formats,
        default=None,
        help="trace format (detected when omitted)",
    )
