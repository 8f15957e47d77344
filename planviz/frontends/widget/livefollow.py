"""``planviz.explore(rx)``: the explorer follows a live run as its spans reach a :func:`~planviz.receive` receiver.

The explorer opens on the newest trace received (waiting for a first span when none has arrived), and a
background thread reads the trace again when spans arrived, at most once per ``interval`` (a second), showing
the newer run (:meth:`~planviz.Explorer.show_recorded`): steps appear as they are reported, the frame shown
stays where the user stepped back to, or follows the last event. When the trace's root span has ended and its
last reading is shown, the thread stops: the run on screen is final (``explorer.following`` turns False), and the
explorer's mode line, which said ``live run, receiving spans``, says ``live run, final (root span ended)``.

While the run is not final, a span whose parent has not arrived is expected (the parent, often the root, ends
last): the ``missing_parent`` finding is shown only once the run is final, or when the receiver stopped before its
root span arrived (:meth:`~planviz.frontends.receiver.Receiver.run`).

OTLP exporters send a span when it ends, so a step appears once its call returned; a call still running shows
when its span arrives.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from planviz.frontends.receiver import NoRunYet
from planviz.frontends.widget.explorer import Explorer

__all__ = ["follow"]


def _newest(rx: Any, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while not rx.trace_ids:
        if time.monotonic() >= deadline or rx.stopped:
            raise NoRunYet(
                f"no span reached {rx.endpoint} within {timeout:g} s: point the agent's exporter there "
                f"(OTEL_EXPORTER_OTLP_ENDPOINT=http://{rx.host}:{rx.port}) and start it"
            )
        time.sleep(0.05)
    newest: str = rx.trace_ids[-1]
    return newest


def _follow(explorer: Explorer, rx: Any, trace_id: str, interval: float, shown: int) -> None:
    while not rx.stopped or rx.changes(trace_id) != shown:
        # read before the version: the root's spans are in that version
        finished = rx.finished(trace_id)
        version = rx.changes(trace_id)
        if version != shown:
            explorer.show_recorded(rx.run(trace_id))
            shown = version
        if finished:
            break
        time.sleep(interval)
    # the receiver stopped first: the run is final, parents still missing are reported
    if not rx.finished(trace_id):
        explorer.show_recorded(rx.run(trace_id))
    _mark(
        explorer,
        "final (root span ended)"
        if rx.finished(trace_id)
        else "stopped (the receiver stopped first)",
    )


def _mark(explorer: Explorer, state: str) -> None:
    """Say on screen whether the run shown is still receiving spans, or final: the explorer's mode line."""
    explorer._live_state = state
    explorer.mode = explorer._mode()


def follow(
    rx: Any, trace_id: str | None = None, *, interval: float = 1.0, timeout: float = 60.0
) -> Explorer:
    """An :class:`~planviz.Explorer` on ``trace_id`` (default: the newest trace) of receiver ``rx``, kept current
    by a background thread until the trace's root span ended (re-read at most once per ``interval`` seconds)."""
    trace_id = trace_id or _newest(rx, timeout)
    shown = rx.changes(trace_id)
    explorer = Explorer(recorded=rx.run(trace_id))
    # a live run opens on its newest event, and follows it
    explorer.index = len(explorer.run.events) - 1
    _mark(explorer, "receiving spans")
    thread = threading.Thread(
        target=_follow,
        args=(explorer, rx, trace_id, max(interval, 0.05), shown),
        name=f"planviz-follow-{trace_id[:8]}",
        daemon=True,
    )
    explorer._live = thread
    thread.start()
    return explorer
