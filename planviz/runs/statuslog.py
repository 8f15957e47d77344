"""Statuses kept as changes across plan versions: how a version that shares most of its steps with the last
(a LangGraph fork) is stored without a copy of every status.

The first event of a plan version names every step of it (:class:`~planviz.runs.events.Event`). For a version
grown from the last one (:func:`~planviz.plan.grown.grown_plan`) the run machine keeps one
:class:`StatusLog` instead: per step, every status it was shown at and from which event, and the versions it
belongs to. The snapshot event then holds a :class:`Snapshot`, a read-only mapping of every step of its version
to its status at that event, read from the log (a lookup is a binary search in that step's changes), and the
verified work an invalidation keeps is a :class:`DoneSet` of the same kind. So a version costs what it changes,
and the snapshot reads as the whole table it stands for (``dict(snapshot)``, ``len``, ``in``, equality).

>>> from planviz import Plan, Step
>>> log = StatusLog()
>>> plan = Plan("g", [Step("A", "a"), Step("B", "b", depends_on="A")])
>>> log.open(0, (), plan.ids)
>>> log.add(0, {"A": "ready", "B": "pending"})
>>> log.add(1, {"A": "done", "B": "ready"})
>>> snap = Snapshot(log, plan, 0, 0, {"A": "ready", "B": "pending"}, 1)
>>> dict(snap), snap == {"A": "ready", "B": "pending"}, "C" in snap
({'A': 'ready', 'B': 'pending'}, True, False)
>>> sorted(DoneSet(log, plan, 0, 1, frozenset(), 1))
['A']
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Mapping, Set
from typing import Any, Iterable

__all__ = ["StatusLog", "Snapshot", "DoneSet"]


class StatusLog:
    """Every status each step was shown at (event indices and statuses, in order) and the versions it belongs to
    (the log's own count of versions: a step's versions are one or a few runs of them)."""

    __slots__ = ("hist", "spans", "versions")

    def __init__(self) -> None:
        self.hist: dict[str, tuple[list[int], list[str]]] = {}
        self.spans: dict[str, list[int]] = {}  # first version in, first version out, in again, ...
        self.versions = 0

    def open(self, v: int, gone: Iterable[str], added: Iterable[str]) -> None:
        """Version ``v`` of the log: without the steps ``gone``, with the steps ``added``."""
        spans = self.spans
        for sid in gone:
            spans[sid].append(v)
        for sid in added:
            have = spans.get(sid)
            if have is None:
                spans[sid] = [v]
            elif len(have) % 2 == 0:
                have.append(v)
        self.versions = v + 1

    def add(self, i: int, changes: Mapping[str, str]) -> None:
        """The statuses event ``i`` showed."""
        hist = self.hist
        for sid, status in changes.items():
            h = hist.get(sid)
            if h is None:
                hist[sid] = ([i], [status])
            else:
                h[0].append(i)
                h[1].append(status)

    def member(self, sid: object, v: int) -> bool:
        spans = self.spans.get(sid)  # type: ignore[call-overload]
        return spans is not None and bisect_right(spans, v) % 2 == 1

    def status(self, sid: str, i: int) -> str:
        """``sid``'s status at event ``i`` (a member of the version of ``i``)."""
        at, values = self.hist[sid]
        return values[-1] if at[-1] <= i else values[bisect_right(at, i) - 1]


class Snapshot(Mapping[str, str]):
    """The statuses a plan version's first event shows: every step of ``plan`` (version ``v`` of ``log``) and its
    status at event ``i``, read from the log. ``fresh``: the statuses the event itself set (those that changed
    and the new steps'), which is all a check of its text or a count of the statuses seen needs; ``ready``: how
    many steps it shows ready."""

    __slots__ = ("log", "plan", "v", "i", "fresh", "ready")

    def __init__(
        self, log: StatusLog, plan: Any, v: int, i: int, fresh: dict[str, str], ready: int
    ) -> None:
        self.log, self.plan, self.v, self.i, self.fresh, self.ready = log, plan, v, i, fresh, ready

    def __getitem__(self, sid: str) -> str:
        if not self.log.member(sid, self.v):
            raise KeyError(sid)
        return self.log.status(sid, self.i)

    def __contains__(self, sid: object) -> bool:
        return self.log.member(sid, self.v)

    def __iter__(self) -> Iterator[str]:
        return iter(self.plan.by_id)

    def __len__(self) -> int:
        return len(self.plan)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return len(self) == len(other) and dict(self.items()) == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(dict(self))


class FrozenView(Set[str]):
    """A read-only set computed on demand that acts as a frozenset: set operations give frozensets, it hashes
    and shows as the frozenset of its members. Subclasses give ``__contains__``, ``__iter__`` and ``__len__``."""

    __slots__ = ()

    @classmethod
    def _from_iterable(cls, it: Iterable[Any]) -> frozenset[Any]:
        return frozenset(it)

    def __hash__(self) -> int:
        return hash(frozenset(self))

    def __repr__(self) -> str:
        return f"frozenset({sorted(self)!r})" if len(self) else "frozenset()"


class DoneSet(FrozenView):
    """The steps of ``plan`` (version ``v`` of ``log``) shown done at event ``i``, but those in ``minus``: the
    verified work an invalidation keeps; ``size`` is its length, counted when it was made."""

    __slots__ = ("log", "plan", "v", "i", "minus", "size")

    def __init__(
        self, log: StatusLog, plan: Any, v: int, i: int, minus: frozenset[str], size: int
    ) -> None:
        self.log, self.plan, self.v, self.i, self.minus, self.size = log, plan, v, i, minus, size

    def __contains__(self, sid: object) -> bool:
        return (
            sid not in self.minus
            and self.log.member(sid, self.v)
            and self.log.status(sid, self.i) == "done"  # type: ignore[arg-type]
        )

    def __iter__(self) -> Iterator[str]:
        return (sid for sid in self.plan.by_id if sid in self)

    def __len__(self) -> int:
        return self.size
