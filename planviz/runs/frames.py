"""How a run keeps its frames: snapshots plus deltas, indexed once, read in O(log changes).

An :class:`~planviz.Event` records only what it changed: ``changes`` (step ->
new status), ``gained`` and ``lost`` facts. The first event of each plan
version is a snapshot: its ``changes`` names every step of that version, and
every later event of the version changes some of those. :class:`FrameStore`
indexes the deltas in one pass (linear in the number of changes): per step, the
event indices where its status changed since its version's snapshot; per fact,
the indices where it was gained or lost; per event, how many facts are held
and steps ready. The stop event also notes the steps of its version that never
started and now never will (``not_run``). Reading frame ``i`` costs nothing up front: its statuses,
facts and ready set are read-only views, and a lookup in them is a binary
search in that one step's (or fact's) changes since the snapshot. Memory is
linear in events + changes, never events x steps.

>>> from types import SimpleNamespace as E
>>> store = FrameStore()
>>> store.append(E(plan_version=1, changes={"A": "ready", "B": "pending"}, gained={"x"}, lost=(), kind="propose",
...              voided=(), kept=(), step=None))
>>> store.append(E(plan_version=1, changes={"A": "done", "B": "ready"}, gained={"y"}, lost={"x"}, kind="complete",
...              voided=(), kept=(), step="A"))
>>> statuses, facts, ready, *_ = store.views(0)
>>> dict(statuses), sorted(facts), sorted(ready)
({'A': 'ready', 'B': 'pending'}, ['x'], ['A'])
>>> statuses, facts, ready, *_ = store.views(1)
>>> dict(statuses), sorted(facts), sorted(ready), len(facts)
({'A': 'done', 'B': 'ready'}, ['y'], ['B'], 1)
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Iterator, Mapping, Set
from dataclasses import dataclass
from typing import Any, Iterable, Sequence, cast

from planviz.errors import SimulationError
from planviz.plan.bulk import slot_filler
from planviz.runs.frameviews import SetView, StatusView, held_at, marked_at, ready_at
from planviz.runs.statuslog import DoneSet, Snapshot

__all__ = ["FrameStore", "FrameDelta", "StatusView", "SetView", "MARKING_KINDS", "logged_version"]

_EMPTY: frozenset[str] = frozenset()
# the kinds append reads besides changes and facts: a failure's voiding, a conflict, the stop
_INDEXED_KINDS = frozenset(("invalidate", "recheck", "conflict", "stop"))
# statuses only a step that started shows
_BEGUN = frozenset(("running", "waiting", "done", "failed"))
# a stopped run's steps in these, never started, were not run
_UNSTARTED = frozenset(("pending", "ready"))


MARKING_KINDS = frozenset(("invalidate", "recheck", "stop"))
"""The kinds of event whose frame may void, keep or leave not run other steps than the frame before it (besides
an event that starts a plan version): after any other event, a frame's ``voided``, ``kept`` and ``not_run`` are
the frame before's."""


def logged_version(event: Any) -> bool:
    """Whether ``event``, the first of its plan version, keeps the version's statuses in a log
    (:class:`~planviz.runs.statuslog.Snapshot`): its frames' statuses are read from the log, not from the
    events' ``changes``."""
    return type(event.changes) is Snapshot


class _Segment:
    """One plan version's stretch of events: the snapshot's keys and each step's status changes (or, for a
    version whose first event holds a :class:`~planviz.runs.statuslog.Snapshot`, its log's)."""

    __slots__ = ("start", "version", "hist", "first_conflict", "conflict_at", "logged")

    def __init__(self, start: int, version: Any) -> None:
        self.start = start
        self.version = version
        self.hist: Mapping[str, tuple[list[int], list[str]]] = {}
        self.first_conflict: dict[str, int] = {}
        self.conflict_at: list[int] = []
        self.logged: Snapshot | None = None


class _Logged(Mapping[str, tuple[list[int], list[str]]]):
    """A logged version's steps and each one's changes: the run's log, read for the snapshot's steps."""

    __slots__ = ("snap",)

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap

    def __getitem__(self, sid: str) -> tuple[list[int], list[str]]:
        if sid not in self.snap:
            raise KeyError(sid)
        return self.snap.log.hist[sid]

    def __contains__(self, sid: object) -> bool:
        return sid in self.snap

    def __iter__(self) -> Iterator[str]:
        return iter(self.snap)

    def __len__(self) -> int:
        return len(self.snap)


@dataclass(frozen=True, slots=True)
class FrameDelta:
    """What changed from frame ``index - 1`` to frame ``index`` of a run (:meth:`planviz.Run.delta`).

    ``new_version``: frame ``index`` is the first of its plan version (or of
    the run); ``steps`` are then every step of that version, else the steps
    whose status, voided, kept or conflict mark may differ, so a viewer
    stepping forward restyles only those. ``gained``/``lost`` are the facts
    that came and went, ``ready_in``/``ready_out`` the steps that became and
    stopped being ready.
    """

    index: int
    new_version: bool
    steps: frozenset[str]
    gained: frozenset[str]
    lost: frozenset[str]
    ready_in: frozenset[str]
    ready_out: frozenset[str]


# FrameDelta(...) with its values as given, at a fraction of the cost: one per event of a page
_new_delta = slot_filler(FrameDelta)


class FrameStore:
    """The index of a run's deltas; :meth:`append` events in order, then read any frame with :meth:`views`.

    :meth:`append` checks what the index relies on and raises
    :class:`~planviz.errors.SimulationError` otherwise: a snapshot starts each
    plan version, a later event changes only steps of its snapshot, a fact is
    gained only when not held and lost only when held.
    """

    def __init__(self) -> None:
        self._segments: list[_Segment] = []
        # every step some event showed running, waiting, done or failed
        self._began: set[str] = set()
        self._stop: tuple[int, frozenset[str]] | None = (
            None  # the stop event and the steps it left never run
        )
        self._starts: list[int] = []
        self._facts: dict[str, list[int]] = {}
        self._held: set[str] = set()
        self._current: dict[str, str] = {}  # the open segment's statuses
        self._nfacts: list[int] = []
        self._nready: list[int] = []
        self._marks: list[
            tuple[frozenset[str], Set[str]]
        ] = []  # voided, kept (a DoneSet, not copied)
        self._ready = 0

    def __len__(self) -> int:
        return len(self._nfacts)

    def append(self, event: Any) -> None:
        """Index one more event (duck-typed: ``plan_version``, ``changes``, ``gained``, ``lost``, ``kind``,
        ``step``, ``voided``, ``kept``)."""
        i = len(self._nfacts)
        segments = self._segments
        fresh = not segments or event.plan_version != segments[-1].version
        marks: tuple[frozenset[str], Set[str]]
        if fresh:
            seg = _Segment(i, event.plan_version)
            segments.append(seg)
            self._starts.append(i)
            self._current = {}
            self._ready = 0
            marks = (_EMPTY, _EMPTY)
        else:
            seg = segments[-1]
            marks = self._marks[-1]
        if fresh and type(event.changes) is Snapshot or seg.logged is not None:
            self._logged(seg, event, i, fresh)
        else:
            self._changes(seg, event, i, fresh)
        self._toggle(event.gained, False, i)
        self._toggle(event.lost, True, i)
        if event.kind == "invalidate":
            kept = event.kept
            marks = (frozenset(event.voided), kept if type(kept) is DoneSet else frozenset(kept))
        # a goal change's voiding, refined one re-checked step at a time
        elif event.kind == "recheck":
            voided, kept = marks
            marks = ((voided - event.kept) | event.voided, (kept - event.voided) | event.kept)
        elif event.kind == "conflict" and event.step and event.step not in seg.first_conflict:
            seg.first_conflict[event.step] = i
            seg.conflict_at.append(i)
        elif event.kind == "stop":  # what was still to come will never run: not run, never voided
            began = self._began
            current = self._current if seg.logged is None else StatusView(seg.hist, i)
            self._stop = (
                i,
                frozenset(
                    sid for sid, st in current.items() if st in _UNSTARTED and sid not in began
                ),
            )
        self._marks.append(marks)
        self._nfacts.append(len(self._held))
        self._nready.append(self._ready)

    def extend(self, events: Iterable[Any], rows: list[Any] | None = None) -> None:
        """:meth:`append` each of ``events``, in order: the same index, the same checks, the same errors; an event
        that only changes statuses and facts within a version under way (nearly all of a long run) is indexed
        without a call of its own. ``rows``: each event's row of :meth:`rows` is appended to it as the event is
        indexed, None for an event :meth:`append` indexed (:meth:`indexed_rows` makes those)."""
        segments, marks, nfacts, nready = self._segments, self._marks, self._nfacts, self._nready
        began, held, facts = self._began, self._held, self._facts
        add_row = None if rows is None else rows.append
        for event in events:
            seg = segments[-1] if segments else None
            if (
                seg is None
                or event.plan_version != seg.version
                or seg.logged is not None
                or event.kind in _INDEXED_KINDS
            ):
                self.append(event)
                if add_row is not None:
                    add_row(None)
                continue
            i = len(nfacts)
            hist: dict[str, tuple[list[int], list[str]]] = seg.hist  # type: ignore[assignment]
            current = self._current
            ready = self._ready
            # its row (what rows() says of it): the steps it changed, in order, those it made ready and no longer
            # ready; it voids, keeps, conflicts and stops nothing (those kinds go to append)
            changed: tuple[str, ...] = ()
            ready_in: tuple[str, ...] = ()
            ready_out: tuple[str, ...] = ()
            for sid, status in event.changes.items():
                h = hist.get(sid)
                if h is None:
                    raise SimulationError(
                        f"event {i} changes the status of {sid!r}, which the snapshot of plan "
                        f"version {seg.version!r} (event {seg.start}) does not list"
                    )
                at = h[0]
                if at[-1] == i:
                    raise SimulationError(f"event {i} changes the status of {sid!r} twice")
                at.append(i)
                h[1].append(status)
                changed += (sid,)
                old = current.get(sid)
                if status == "ready":
                    if old != "ready":
                        ready += 1
                        ready_in += (sid,)
                elif old == "ready":
                    ready -= 1
                    ready_out += (sid,)
                current[sid] = status
                if status in _BEGUN:
                    began.add(sid)
            if add_row is not None:
                add_row((changed, ready_in, ready_out, True))
            self._ready = ready
            gained, lost = event.gained, event.lost
            # facts gained that were not held and lost that were (a set of them: each once): indexed here, else
            # by _toggle, which raises at the first that breaks the rule
            if gained:
                if type(gained) is frozenset and held.isdisjoint(gained):
                    held.update(gained)
                    for f in gained:
                        facts.setdefault(f, []).append(i)
                else:
                    self._toggle(gained, False, i)
            if lost:
                if type(lost) is frozenset and held.issuperset(lost):
                    held.difference_update(lost)
                    for f in lost:
                        facts.setdefault(f, []).append(i)
                else:
                    self._toggle(lost, True, i)
            marks.append(marks[-1])
            nfacts.append(len(held))
            nready.append(ready)

    def _logged(self, seg: _Segment, event: Any, i: int, fresh: bool) -> None:
        """Index an event of a logged version: its statuses are in the log already; count what it made ready."""
        changes = event.changes
        if fresh:
            seg.logged, seg.hist, self._ready = changes, _Logged(changes), changes.ready
            changes = changes.fresh
        else:
            snap = cast(Snapshot, seg.logged)
            for sid, status in changes.items():
                if sid not in snap:
                    raise SimulationError(
                        f"event {i} changes the status of {sid!r}, which the snapshot of plan "
                        f"version {seg.version!r} (event {seg.start}) does not list"
                    )
                self._ready += (status == "ready") - (snap.log.status(sid, i - 1) == "ready")
        self._began.update(sid for sid, status in changes.items() if status in _BEGUN)

    def _changes(self, seg: _Segment, event: Any, i: int, fresh: bool) -> None:
        hist, current = cast(dict[str, tuple[list[int], list[str]]], seg.hist), self._current
        for sid, status in event.changes.items():
            h = hist.get(sid)
            if h is None:
                if not fresh:
                    raise SimulationError(
                        f"event {i} changes the status of {sid!r}, which the snapshot of plan "
                        f"version {seg.version!r} (event {seg.start}) does not list"
                    )
                hist[sid] = ([i], [status])
            else:
                if h[0][-1] == i:
                    raise SimulationError(f"event {i} changes the status of {sid!r} twice")
                h[0].append(i)
                h[1].append(status)
            old = current.get(sid)
            self._ready += (status == "ready") - (old == "ready")
            current[sid] = status
            if status in _BEGUN:
                self._began.add(sid)

    def delta(self, i: int, event: Any) -> FrameDelta:
        """What changed from frame ``i - 1`` to frame ``i`` (``event`` is event ``i``)."""
        k = bisect_right(self._starts, i) - 1
        seg = self._segments[k]
        if seg.start == i:
            ready, before = (
                self._ready_now(seg, i, True),
                self._ready_now(self._segments[k - 1], i - 1, False) if i else _EMPTY,
            )
            return FrameDelta(
                i,
                True,
                frozenset(seg.hist),
                frozenset(event.gained),
                frozenset(event.lost),
                ready - before,
                before - ready,
            )
        steps, ready_in, ready_out = set(event.changes), set(), set()
        for sid, new in event.changes.items():
            at, values = seg.hist[sid]
            old = values[bisect_right(at, i - 1) - 1]
            if new == "ready" and old != "ready":
                ready_in.add(sid)
            elif old == "ready" and new != "ready":
                ready_out.add(sid)
        (voided, kept), (was_voided, was_kept) = self._marks[i], self._marks[i - 1]
        if voided is not was_voided or kept is not was_kept:
            steps |= (voided ^ was_voided) | (kept ^ was_kept)
        if event.step is not None and seg.first_conflict.get(event.step) == i:
            steps.add(event.step)
        if self._stop is not None and self._stop[0] == i:
            steps |= self._stop[1]
        return FrameDelta(
            i,
            False,
            frozenset(steps & seg.hist.keys()),
            frozenset(event.gained),
            frozenset(event.lost),
            frozenset(ready_in),
            frozenset(ready_out),
        )

    def _ready_now(self, seg: _Segment, i: int, first: bool) -> frozenset[str]:
        """The steps ready at event ``i``, the first (``first``) or the last event of ``seg``: a version of changes
        read from each step's first or last status, without a frame's view of each."""
        if seg.logged is not None:
            return frozenset(self.views(i)[2])
        at = 0 if first else -1
        hist = cast(dict[str, tuple[list[int], list[str]]], seg.hist)
        return frozenset([sid for sid, h in hist.items() if h[1][at] == "ready"])

    def deltas(self, events: Sequence[Any]) -> tuple[FrameDelta, ...]:
        """:meth:`delta` of every event (``events`` are the events indexed), in one pass: each plan version
        looked up once, and an event within a version costs what it changed."""
        new, starts = _new_delta, set(self._starts)
        return tuple(
            [
                new(
                    i,
                    i in starts,
                    steps if type(steps) is frozenset else frozenset(steps),
                    frozenset(event.gained),
                    frozenset(event.lost),
                    frozenset(ready_in),
                    frozenset(ready_out),
                )
                for i, (event, (steps, ready_in, ready_out, _)) in enumerate(
                    zip(events, self.rows(events))
                )
            ]
        )

    def indexed_rows(
        self, events: Sequence[Any]
    ) -> list[tuple[Collection[str], Collection[str], Collection[str], bool]]:
        """:meth:`extend` by ``events`` (none indexed before), and their :meth:`rows`, made in the same pass for
        every event indexed without :meth:`append` (nearly all), then the others'."""
        made: list[Any] = []
        self.extend(events, made)
        return list(self.rows(events, made))

    def rows(
        self, events: Sequence[Any], made: Sequence[Any] | None = None
    ) -> Iterator[tuple[Collection[str], Collection[str], Collection[str], bool]]:
        """What :meth:`deltas` says of each event, as plain collections: ``(steps, ready_in, ready_out, plain)``;
        ``plain`` when ``steps`` are the event's ``changes``' keys, as a tuple in their order (an event of a
        version under way that voids, keeps, conflicts and stops nothing: nearly every one), else a frozenset.
        What a page steps through reads these, and the facts from the events themselves. ``made``: the rows
        :meth:`extend` made, each given as it is (None: made here)."""
        starts = [*self._starts, len(self._nfacts)]
        marks = self._marks
        stop_at, never = self._stop if self._stop is not None else (-1, _EMPTY)
        for k, seg in enumerate(self._segments):
            first = seg.start
            d = self.delta(first, events[first])
            yield d.steps, d.ready_in, d.ready_out, False
            hist, keys, conflicts = seg.hist, seg.hist.keys(), seg.first_conflict
            # each step's status at the event before, kept up to date in this pass (a logged version's read from
            # its log): the snapshot lists every step of its version
            now: Any = (
                {sid: values[0] for sid, (at, values) in hist.items()}
                if seg.logged is None and made is None
                else None
            )
            for i in range(first + 1, starts[k + 1]):
                if made is not None:
                    row = made[i]
                    if row is not None:
                        yield row
                        continue
                event = events[i]
                ready_in: tuple[str, ...] = ()
                ready_out: tuple[str, ...] = ()
                changed: tuple[str, ...] = ()
                for sid, status in event.changes.items():
                    changed += (sid,)
                    if now is None:
                        at, values = hist[sid]
                        old = values[bisect_right(at, i - 1) - 1]
                    else:
                        old = now[sid]
                        now[sid] = status
                    if status == "ready":
                        if old != "ready":
                            ready_in += (sid,)
                    elif old == "ready":
                        ready_out += (sid,)
                # the steps it changed are of its version (append checked it); the others are filtered
                steps: frozenset[str] | None = None
                mark = marks[i]
                if (
                    mark is not marks[i - 1]
                ):  # the same marks (most events): nothing voided or kept anew
                    (voided, kept), (was_voided, was_kept) = mark, marks[i - 1]
                    if voided is not was_voided or kept is not was_kept:
                        steps = (
                            frozenset(changed) | ((voided ^ was_voided) | (kept ^ was_kept)) & keys
                        )
                step = event.step
                if conflicts and step is not None and conflicts.get(step) == i and step in keys:
                    steps = (frozenset(changed) if steps is None else steps) | {step}
                if i == stop_at:
                    steps = (frozenset(changed) if steps is None else steps) | never & keys
                if steps is None:
                    yield changed, ready_in, ready_out, True
                else:
                    yield steps, ready_in, ready_out, False

    def _toggle(self, facts: Iterable[str], held: bool, i: int) -> None:
        for f in facts:
            if (f in self._held) != held:
                raise SimulationError(
                    f"event {i} {'loses' if held else 'gains'} the fact {f!r}, which is "
                    f"{'not ' if held else 'already '}held"
                )
            (self._held.discard if held else self._held.add)(f)
            self._facts.setdefault(f, []).append(i)

    def views(
        self, i: int
    ) -> tuple[StatusView, SetView, SetView, frozenset[str], Set[str], SetView, frozenset[str]]:
        """Frame ``i`` (0 <= i < len): statuses, facts, ready, voided, kept, conflicted, not run, as read-only
        views (not run: from the stop event on, the steps of its version it left pending or ready and that
        never started)."""
        seg = self._segments[bisect_right(self._starts, i) - 1]
        statuses = StatusView(seg.hist, i)
        facts = SetView(held_at, self._facts, i, self._nfacts[i])
        ready = SetView(ready_at, statuses, i, self._nready[i])
        conflicted = SetView(marked_at, seg.first_conflict, i, bisect_right(seg.conflict_at, i))
        voided, kept = self._marks[i]
        stop = self._stop
        not_run = stop[1] if stop is not None and seg.start <= stop[0] <= i else _EMPTY
        return statuses, facts, ready, voided, kept, conflicted, not_run
