"""A frame's read-only views, as :meth:`planviz.runs.frames.FrameStore.views` gives them: its statuses
(:class:`StatusView`, each a binary search in that step's changes since its version's snapshot) and its sets
(:class:`SetView`: facts held, steps ready, steps in conflict), computed on demand and never copied.

>>> statuses = StatusView({"A": ([0, 2], ["ready", "done"]), "B": ([0], ["pending"])}, 1)
>>> dict(statuses), sorted(SetView(ready_at, statuses, 1, 1))
({'A': 'ready', 'B': 'pending'}, ['A'])
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Mapping
from typing import Any, Callable

from planviz.runs.statuslog import FrozenView

__all__ = ["StatusView", "SetView", "held_at", "ready_at", "marked_at"]


class StatusView(Mapping[str, str]):
    """The statuses of one frame: step -> status, every step of the frame's plan version, read-only."""

    __slots__ = ("_hist", "_i")

    def __init__(self, hist: Mapping[str, tuple[list[int], list[str]]], i: int) -> None:
        self._hist = hist
        self._i = i

    def __getitem__(self, sid: str) -> str:
        at, values = self._hist[sid]
        return values[0] if len(at) == 1 else values[bisect_right(at, self._i) - 1]

    def get(self, sid: str, default: Any = None) -> Any:
        """``self[sid]``, or ``default`` for a step the frame's version does not list (Mapping.get's meaning,
        without its try/except around ``__getitem__``: a report reads statuses a few hundred thousand times)."""
        h = self._hist.get(sid)
        if h is None:
            return default
        at, values = h
        return values[0] if len(at) == 1 else values[bisect_right(at, self._i) - 1]

    def __iter__(self) -> Iterator[str]:
        return iter(self._hist)

    def __len__(self) -> int:
        return len(self._hist)

    def __contains__(self, sid: object) -> bool:
        return sid in self._hist

    def __repr__(self) -> str:
        return repr(dict(self))


def held_at(index: dict[str, list[int]], i: int, item: str) -> bool:
    at = index.get(item)
    # gained, lost, gained, ... at these events
    return at is not None and bisect_right(at, i) % 2 == 1


def ready_at(statuses: StatusView, i: int, item: str) -> bool:
    return item in statuses and statuses[item] == "ready"


def marked_at(first: dict[str, int], i: int, item: str) -> bool:
    return first.get(item, i + 1) <= i


class SetView(FrozenView):
    """A read-only set of one frame (facts held, steps ready, steps in conflict); compares equal to a frozenset."""

    __slots__ = ("_test", "_index", "_i", "_len")

    def __init__(
        self, test: Callable[[Any, int, Any], bool], index: Any, i: int, length: int
    ) -> None:
        self._test, self._index, self._i, self._len = test, index, i, length

    def __contains__(self, item: object) -> bool:
        return self._test(self._index, self._i, item)

    def __iter__(self) -> Iterator[str]:
        test, index, i = self._test, self._index, self._i
        return (k for k in index if test(index, i, k))

    def __len__(self) -> int:
        return self._len
