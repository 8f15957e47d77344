"""A command given a LangGraph checkpoint database of several threads and no ``--thread``: the threads, listed.

``planviz render DB`` (and every command that reads a run: ``report``,
``align``, ``diff``, ``hindsight``...) reads one thread of a SqliteSaver
database. Without ``--thread`` on a database of several, :func:`pick_thread`
prints the threads (id, checkpoints, the first user message, trimmed) and how
to pick one, instead of running the command; nothing is read whole (the
listing comes from :func:`planviz.traces.langgraph.sqlitesaver.thread_table`). A
database of one thread, or any other input, runs the command as given.
"""

from __future__ import annotations

from typing import Any, Callable

from planviz.checks.report import printable

__all__ = ["pick_thread", "thread_listing"]

_INPUTS = ("file", "trace", "run", "a", "b")  # the options of the commands that may name a database


def thread_listing(path: str, command: str = "render") -> str | None:
    """The text listing the threads of the checkpoint database at ``path`` when it holds several, else None.

    >>> thread_listing("no_such.sqlite") is None
    True
    """
    from planviz.traces.langgraph.sqlitesaver import (
        thread_table,  # sqlite3 and the LangGraph reader: only when asked
    )

    table = thread_table(path)
    if table is None or table[0] < 2:
        return None
    count, rows = table
    width = max(len(printable(t)) for t, _, _ in rows)
    lines = [
        f"{printable(path)} is a LangGraph checkpoint database of {count} threads, one run each; "
        f"pick one with --thread ID, e.g. planviz {command} {printable(path)} --thread {printable(rows[0][0])}",
        "",
    ]
    lines.append(f"  {'thread'.ljust(width)}  checkpoints  first message")
    for thread, n, said in rows:
        said = " ".join(said.split())
        said = said if len(said) <= 60 else said[:59] + "…"
        lines.append(f"  {printable(thread).ljust(width)}  {n:>11}  {printable(said) or '(none)'}")
    if count > len(rows):
        lines.append(f"  ... and {count - len(rows)} more")
    return "\n".join(lines)


def pick_thread(args: Any, command: Callable[[Any], int]) -> int:
    """Run ``command(args)``, unless an input of it is a checkpoint database of several threads and no
    ``--thread`` was given: then print the threads and how to pick one (exit code 0, nothing written)."""
    if getattr(args, "thread", False) is None:
        for name in _INPUTS:
            path = getattr(args, name, None)
            listing = (
                thread_listing(path, args.command)
                if isinstance(path, str) and path != "-"
                else None
            )
            if listing:
                print(listing)
                return 0
    return command(args)
