"""The ledger's bookkeeping while plan versions grow one from the last (a LangGraph fork every few checkpoints).

A version grown from the last one (its :class:`~planviz.runs.engine.ledger.Shape` made by
:class:`~planviz.structure.growing.GrowingIndex`) shares its first steps with it, most of them done. Listing
every status at its first event, re-deriving every step after an invalidation and copying the work kept would
each cost the version's length, and a history of n checkpoints forking every few holds n/10 versions of up to
n/2 steps: quadratic. :class:`Growth` keeps instead the steps of the current version not shown done and those
whose work was just voided (the only ones whose status can change wholesale), and a
:class:`~planviz.runs.statuslog.StatusLog` of every status shown since it began; the snapshot event then holds
a :class:`~planviz.runs.statuslog.Snapshot` read from the log, and an invalidation's kept work a
:class:`~planviz.runs.statuslog.DoneSet`. So each event costs what it changed (issue 42).

>>> g = Growth({"A": "done", "B": "ready"}, 3)
>>> sorted(g.undone), g.log.status("A", 3), g.v
(['B'], 'done', 0)
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from planviz.runs.statuslog import DoneSet, Snapshot, StatusLog

__all__ = ["Growth"]


class Growth:
    """Begun at a grown version from the status table the last event (``last``) showed; ended by a version that
    is not grown from the last (the ledger drops it)."""

    __slots__ = ("log", "undone", "lost", "v", "added")

    def __init__(self, status: Mapping[str, str], last: int) -> None:
        self.log = StatusLog()
        self.log.open(0, (), status)
        self.log.add(last, status)
        self.undone = {sid for sid, st in status.items() if st != "done"}
        self.lost: set[str] = set()  # done steps whose work was voided since the last event
        self.v = 0
        self.added: list[str] = []  # the steps the current version added, until its first event

    def version(self, gone: list[str], added: list[str]) -> None:
        """A new version: without ``gone``, with ``added`` (neither shown yet)."""
        self.v += 1
        self.log.open(self.v, gone, added)
        self.undone.difference_update(gone)
        self.lost.difference_update(gone)
        self.added = added

    def open(self, m: Any, steps: Mapping[str, Any]) -> set[str]:
        """The steps of the version not completed (every other is done, and shown done)."""
        completed = m.completed
        return {
            sid
            for group in (self.undone, self.lost, self.added)
            for sid in group
            if sid in steps and sid not in completed
        }

    def todo(self, m: Any, shape: Any, touched: Iterable[str]) -> list[str]:
        """What a wholesale change re-derives (a new version, voided work), in the plan's order."""
        where = shape.ix.position
        todo = self.open(m, shape.steps)
        todo.update(sid for sid in touched if sid in where)
        todo.update(sid for sid in self.added if sid in where)
        return sorted(todo, key=where.__getitem__)

    def shown(self, i: int, changes: dict[str, str]) -> None:
        """Event ``i`` showed ``changes``."""
        self.log.add(i, changes)
        undone = self.undone
        for sid, status in changes.items():
            if status == "done":
                undone.discard(sid)
            else:
                undone.add(sid)
        self.lost.clear()
        self.added = []

    def snapshot(self, plan: Any, i: int, fresh: dict[str, str], ready: int) -> Snapshot:
        """The statuses event ``i``, the first of the version ``plan``, shows (``fresh``: those it set)."""
        return Snapshot(self.log, plan, self.v, i, fresh, ready)

    def kept(self, plan: Any, last: int, shown_done: set[str], voided: frozenset[str]) -> DoneSet:
        """The steps of ``plan`` shown done at event ``last`` outside ``voided``: the work an invalidation keeps."""
        size = len(shown_done) - sum(1 for sid in voided if sid in shown_done)
        return DoneSet(self.log, plan, self.v, last, voided, size)
