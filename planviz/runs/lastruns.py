"""What is worked out once per run for the last runs asked about: :class:`LastRuns`.

A report reads the same run's model calls, call intervals and call spans from several places (usage,
hindsight, the recorded makespan, notes, details, timeline); each is made once and shared. A run is held by a
weak reference, so a run let go is forgotten, and only the last few are kept.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Generic, TypeVar

__all__ = ["LastRuns"]

T = TypeVar("T")


class LastRuns(Generic[T]):
    """``work(run)``, worked out once for each of the last ``keep`` runs asked about (each held weakly); the
    value is shared, never to be changed.

    >>> class Run: ...
    >>> made = []
    >>> length = LastRuns(lambda run: made.append(run) or len(made))
    >>> a = Run()
    >>> length(a), length(a), made == [a]
    (1, 1, True)
    """

    def __init__(self, work: Callable[[Any], T], keep: int = 2) -> None:
        self._work, self._keep = work, keep
        self._lock = threading.Lock()
        self._held: list[tuple[weakref.ref[Any], T]] = []

    def __call__(self, run: Any) -> T:
        with self._lock:
            for ref, value in self._held:
                if ref() is run:
                    return value
        value = self._work(run)
        with self._lock:
            alive = [entry for entry in self._held if entry[0]() is not None]
            self._held[:] = alive[max(0, len(alive) - self._keep + 1) :]
            self._held.append((weakref.ref(run), value))
        return value
