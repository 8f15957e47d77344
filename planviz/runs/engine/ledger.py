"""What a run's last event showed, and what changed since: how the machine emits deltas.

The :class:`~planviz.runs.engine.machine.Machine` owns the state of a run (completed,
running, failed, voided, facts and their sources); the :class:`Ledger` keeps
what the last event showed (every status, the ready set, the facts held) and
which steps each operation may have changed: the step itself, its children
(a dependency completed), the steps requiring a fact gained or lost. Only
those are re-derived at the next event. The reachable set is kept as it
changes: a fact gained or lost that no remaining step could miss or newly use
leaves it as it was (LangGraph's channel writes replace a fact at every
superstep), and when it is recomputed only the steps that entered or left it
are re-derived. Only wholesale changes (a new plan version, work voided)
re-derive every status, and even then a step completed and shown done is
set in bulk, not looked at; a plan version grown from the last one (a
LangGraph fork: its :class:`~planviz.runs.engine.shape.Shape` grown from the last one's) re-derives only
the steps not done and those voided, and its first event holds a snapshot read from a log of changes
(:mod:`planviz.runs.engine.growth`). An event therefore costs what it changed (issue 42).

>>> from types import SimpleNamespace
>>> from planviz import Plan, Step
>>> m = SimpleNamespace(completed=set(), running={}, sources={}, interrupted=set(), waiting=set(),
...                     failed=set(), voided=set(), dead=set(), events=[])
>>> ledger, shape = Ledger(), Shape(Plan("g", [Step("A", "a"), Step("B", "b", depends_on="A")]))
>>> ledger.new_version(m, shape)
>>> ledger.changes(m, shape)
{'A': 'ready', 'B': 'pending'}
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import chain, filterfalse
from operator import attrgetter
from typing import AbstractSet, Any

from planviz.analysis.reach import reachable
from planviz.plan.model import natural_key
from planviz.runs.engine.growth import Growth
from planviz.runs.engine.shape import Shape

__all__ = ["Ledger"]

_NONE: frozenset[str] = frozenset()
_PRODUCES = attrgetter("produces")
_EMPTY_SET: set[str] = set()  # never filled


class Ledger:
    """The statuses and facts the last event showed, the steps and facts touched since, the reachable set.

    The machine calls :meth:`touch`, :meth:`completed`, :meth:`fact_changed`,
    :meth:`everything` and :meth:`new_version` as its state changes, and
    :meth:`changes` / :meth:`fact_changes` when it emits an event. ``m`` is
    the machine (its ``completed``, ``running``, ``failed``, ``voided``,
    ``dead`` and ``sources``).
    """

    def __init__(self) -> None:
        self.status: dict[str, str] = {}
        self.ready_order: list[
            str
        ] = []  # the ready steps, lowest id first, kept sorted as they change
        self._ready_keys: list[
            tuple[Any, ...]
        ] = []  # their sort keys in the same order: bisect needs no key function
        self._sort_key: dict[
            str, tuple[Any, ...]
        ] = {}  # id -> natural_key(id), for the steps ready or running
        self.touched: dict[
            str, None
        ] = {}  # an ordered set: changes list steps in the order they were touched
        # fact -> whether the last event showed it held, for the facts changed since, in the order they
        # changed (the order their strings were made, often), not in hash order, which costs more per fact the
        # more there are (issue 28); no set of the facts held is kept beside the machine's own
        self.facts_touched: dict[str, bool] = {}
        self._snapshot = True  # the next event starts a plan version: it lists every status
        self._everything = False
        # reachable remaining steps, kept while the state stays inside their closure (see _refresh_reach)
        self._reach: set[str] = set()
        self._promised: set[str] = set()  # the facts held plus those a reachable step produces
        # facts gained or lost since the reachable set was last brought up to date
        self._facts_moved: set[str] = set()
        self._reach_stale = True
        self._new_done: list[str] = []
        self._doomed: set[str] = set()
        self._shown_done: set[str] = set()  # the steps the status table shows done
        self._feasible = False
        self.growth: Growth | None = None  # while versions grow one from the last (growth.py)
        # the steps an invalidation voided since the last event that were not voided before: each is shown
        # invalidated, set in bulk (a fork onto an earlier branch voids the whole current path after the point
        # where the two paths part)
        self._voided_now: set[str] = set()

    # -- what the machine reports -------------------------------------------------------------------

    def touch(self, sid: str) -> None:
        self.touched[sid] = None

    def order_key(self, sid: str) -> tuple[Any, ...]:
        """``natural_key(sid)``, made once while the step is ready or running."""
        key = self._sort_key.get(sid)
        if key is None:
            key = self._sort_key[sid] = natural_key(sid)
        return key

    def completed(self, sid: str, shape: Shape | None) -> None:
        self._new_done.append(sid)
        touched = self.touched
        touched[sid] = None
        if shape is not None:
            for kid in shape.children.get(sid, ()):  # no dict made per step
                touched[kid] = None

    def fact_changed(self, fact: str, shape: Shape | None, gained: bool) -> None:
        """``fact`` was just gained (else lost); every change of the facts held comes through here."""
        # first change since the last event: held iff now lost
        self.facts_touched.setdefault(fact, not gained)
        if gained and fact in self._promised:
            pass  # a fact the reachable set already counted on: nothing to re-derive
        elif shape is None:
            self._reach_stale = True
        else:
            self._facts_moved.add(fact)
        if shape is not None:
            needing = shape.requirers.get(fact)
            if needing:
                touched = self.touched
                for sid in needing:  # no dict made per fact
                    touched[sid] = None

    def everything(self, lost: AbstractSet[str] = _NONE, newly: AbstractSet[str] = _NONE) -> None:
        """Completed steps or facts changed wholesale (``lost``: the steps whose work was voided, ``newly``: those
        of them not voided before): re-derive the reachable set and every status (while versions grow, every
        status that can have changed)."""
        self._everything = True
        self._reach_stale = True
        if self.growth is not None:
            self.growth.lost.update(lost)
        elif newly:
            self._voided_now.update(newly)

    def kept(self, m: Any, shape: Shape, voided: AbstractSet[str]) -> AbstractSet[str]:
        """The steps of the version completed (shown done at the last event) outside ``voided``."""
        if self.growth is not None:
            return self.growth.kept(
                shape.plan, len(m.events) - 1, self._shown_done, frozenset(voided)
            )
        return frozenset(m.completed.intersection(shape.plan.ids).difference(voided))

    def new_version(self, m: Any, shape: Shape, feasible: bool = False) -> None:
        """A new plan version; ``feasible``: validation found every step reachable from the facts held, so the
        reachability pass is skipped."""
        self._snapshot = True
        self.everything()
        self._feasible = feasible
        if shape.grown is None:
            self.growth = None
        else:  # grown from the last version: what it changes is what its events cost
            if self.growth is None:
                self.growth = Growth(self.status, len(m.events) - 1)
            self.growth.version(*shape.grown)
        self.doom(m, shape)

    def doom(self, m: Any, shape: Shape) -> None:
        """Steps that can never run: those waiting on a missing step, and everything after a dead one."""
        doomed = shape.broken
        if m.dead:
            doomed = shape.broken | shape.ix.descendants(m.dead.intersection(shape.steps))
        self.touched.update(dict.fromkeys(sorted(doomed.symmetric_difference(self._doomed))))
        self._doomed = doomed

    # -- what the next event holds ----------------------------------------------------------------

    def changes(self, m: Any, shape: Shape | None) -> dict[str, str]:
        """The statuses changed since the last event (every status when this event starts a plan version).

        The status rules are here, once, inline: this runs for every step an
        operation touched, twice per simulated step (issue 28). In order: done,
        running (or interrupted by the stop), waiting, failed, invalidated,
        blocked (doomed, or outside the reachable set), pending (a dependency
        not done or a required fact not held), else ready.
        """
        if shape is None:
            return {}
        if self._new_done or self._reach_stale or self._facts_moved:
            self._refresh_reach(m, shape)
        touched = self.touched
        snapshot = self._snapshot
        whole = snapshot or self._everything
        if not (touched or whole):
            return {}
        steps, status, shown_done = shape.steps, self.status, self._shown_done
        completed, running, reach, sources = m.completed, m.running, self._reach, m.sources
        todo: Any = touched
        growth, fresh = self.growth, snapshot
        bulk: set[str] = _EMPTY_SET
        if growth is not None and whole:  # only what can have changed, in the plan's order
            if snapshot:
                self._regrow(shape)
            todo, snapshot = growth.todo(m, shape, touched), False
        # every step, its table sized once instead of regrown as it fills (issue 28); the steps
        elif snapshot:
            # completed are done, set in bulk: a fork's version costs the steps it has not run yet
            status = self.status = dict.fromkeys(steps, "done")
            shown_done = self._shown_done = completed.intersection(steps)
            todo = list(filterfalse(completed.__contains__, steps))
        # every step, but those completed and shown done already stay done: not looked at
        elif whole:
            bulk = self._bulk_voided(m, steps)
            skip = shown_done.intersection(completed)
            todo = filterfalse((skip | bulk if bulk else skip).__contains__, steps)
        # mostly all empty: five tests fewer per step, and their tables read only when one is not
        rare = m.interrupted or m.waiting or m.failed or m.voided or self._doomed
        changes: dict[str, str] = {}
        for sid in todo:
            step = steps.get(sid)
            if step is None:
                continue  # not a step of this version (an off-plan start)
            if sid in completed:
                new = "done"
            elif sid in running:
                new = "running"
            elif rare and (
                sid in m.interrupted
                or sid in m.waiting
                or sid in m.failed
                or sid in m.voided
                or sid in self._doomed
            ):
                new = (
                    "running"
                    if sid in m.interrupted
                    else "waiting"
                    if sid in m.waiting
                    else "failed"
                    if sid in m.failed
                    else "invalidated"
                    if sid in m.voided
                    else "blocked"
                )
            elif sid not in reach:
                new = "blocked"
            else:
                new = "ready"
                for d in step.depends_on:
                    if d not in completed:
                        new = "pending"
                        break
                else:
                    for f in step.requires:
                        if f not in sources:
                            new = "pending"
                            break
            old = status.get(sid)
            if old != new:
                status[sid] = new
                if snapshot:
                    continue
                if new == "done":
                    shown_done.add(sid)
                elif old == "done":
                    shown_done.discard(sid)
                changes[sid] = new
                # the key of each id compared is a list entry, made once per id (issue 28)
                if new == "ready":
                    key = self._sort_key.get(sid)
                    if key is None:
                        key = self._sort_key[sid] = natural_key(sid)
                    i = bisect_right(self._ready_keys, key)
                    self._ready_keys.insert(i, key)
                    self.ready_order.insert(i, sid)
                elif old == "ready":
                    i = bisect_left(self._ready_keys, self._sort_key[sid])
                    del self._ready_keys[i], self.ready_order[i]
                # its key is made again if it is ever ready again: the keys held stay few (issue 28)
                if new == "done":
                    self._sort_key.pop(sid, None)
        if (
            bulk
        ):  # in the plan's order, as the loop lists them (a filter in C: no Python line per step)
            if changes:
                merged = {**changes, **dict.fromkeys(bulk, "invalidated")}
                order = list(filter(merged.__contains__, steps))
                changes = dict(zip(order, map(merged.__getitem__, order)))
            else:
                changes = dict.fromkeys(filter(bulk.__contains__, steps), "invalidated")
        if growth is not None:
            i = len(m.events)
            growth.shown(i, changes)
            if fresh:
                changes = growth.snapshot(shape.plan, i, changes, len(self.ready_order))  # type: ignore[assignment]
        elif snapshot:
            sort_key = self._sort_key
            ready = [sid for sid in todo if status[sid] == "ready"]  # in the order of the steps
            for sid in ready:
                if sid not in sort_key:
                    sort_key[sid] = natural_key(sid)
            ready.sort(key=sort_key.__getitem__)
            self.ready_order, self._ready_keys = ready, [sort_key[sid] for sid in ready]
            changes = dict(status)  # a copy of the whole table at once
        self._snapshot = self._everything = False
        touched.clear()
        self._voided_now.clear()
        return changes

    def _bulk_voided(self, m: Any, steps: Any) -> set[str]:
        """The steps of the version voided since the last event, not voided before: each is now shown
        invalidated (the status rules give it: not completed, running, waiting nor failed, and voided), set here
        in bulk; the loop of :meth:`changes` skips them."""
        voided_now = self._voided_now
        if not voided_now:
            return voided_now
        bulk = set(filter(steps.__contains__, voided_now))  # in C, the voided ids only
        bulk.intersection_update(m.voided)
        for other in (m.completed, m.running, m.interrupted, m.waiting, m.failed):
            if other:
                bulk.difference_update(other)
        if not bulk:
            return bulk
        self._shown_done.difference_update(bulk)
        if self.ready_order and not bulk.isdisjoint(self.ready_order):
            for sid in [s for s in self.ready_order if s in bulk]:
                i = bisect_left(self._ready_keys, self._sort_key[sid])
                del self._ready_keys[i], self.ready_order[i]
        self.status.update(dict.fromkeys(bulk, "invalidated"))
        return bulk

    def _regrow(self, shape: Shape) -> None:
        """The status table of a version grown from the last: the steps gone taken out, the new ones put last
        (each shown at the version's first event)."""
        gone, added = shape.grown or ((), ())
        status, keys = self.status, self._sort_key
        for sid in gone:
            if status.pop(sid, None) == "ready":
                i = bisect_left(self._ready_keys, keys[sid])
                del self._ready_keys[i], self.ready_order[i]
            self._shown_done.discard(sid)
            keys.pop(sid, None)
        status.update(dict.fromkeys(added, ""))

    def fact_changes(
        self, sources: dict[str, Any], like: frozenset[str] = _NONE
    ) -> tuple[frozenset[str], frozenset[str]]:
        """(gained, lost): the facts held now and not at the last event, and the other way round; ``like`` itself
        stands for the facts gained when it holds exactly them (a step's observation, not copied)."""
        if not self.facts_touched:
            return _NONE, _NONE
        gained, lost = [], []
        for f, was in self.facts_touched.items():
            if f in sources:
                if not was:
                    gained.append(f)
            elif was:
                lost.append(f)
        self.facts_touched.clear()
        if not gained:
            return _NONE, frozenset(lost) if lost else _NONE
        # no repeats in gained: the same set
        if len(gained) == len(like) and like.issuperset(gained):
            return like, frozenset(lost) if lost else _NONE
        return frozenset(gained), frozenset(lost) if lost else _NONE

    def _refresh_reach(self, m: Any, shape: Shape) -> None:
        """Bring the reachable remaining steps up to date, recomputing them only when the state left their closure.

        Completing reachable steps that established everything they produce,
        gaining facts the closure already promised, gaining a fact whose
        remaining requirers are all reachable already, and losing a fact no
        reachable step requires cannot change the least fixed point (the
        order in which the steps were found still works): the previous answer
        minus the steps completed is reused. Anything else (a step completed
        without its facts, a fact a reachable step needs lost, work voided)
        recomputes it, and the steps that entered or left it are re-derived.
        """
        steps, sources, reach = shape.steps, m.sources, self._reach
        if not self._reach_stale:
            for sid in self._new_done:
                step = steps.get(sid)
                if step is None:
                    continue
                if sid not in reach:
                    self._reach_stale = True
                    break
                for f in step.produces:
                    if f not in sources:
                        self._reach_stale = True
                        break
        if not self._reach_stale:
            reach.difference_update(self._new_done)
            self._reach_stale = bool(self._facts_moved) and not self._facts_keep_reach(m, shape)
        self._new_done.clear()
        self._facts_moved.clear()
        if not self._reach_stale:
            return
        if self._feasible:
            new = set(steps)  # sized once from the table
            new.difference_update(m.completed)
            promised = self._promised = {f for s in steps.values() for f in s.produces}
            promised.update(sources)  # in place: no second table of every fact
            self._feasible = False
        elif (
            shape.ix.clean
            and not shape.broken
            and (not shape.requirers or sources.keys() >= shape.requirers.keys())
        ):
            # acyclic, every dependency known, every fact required held: every remaining step is reachable, and
            # only those are looked at (a fork's version costs the steps it has not run yet)
            new = (
                self.growth.open(m, steps)
                if self.growth is not None
                else set(filterfalse(m.completed.__contains__, steps))
            )
            promised = self._promised = set(sources)
            # in C: a fork voids a whole branch, every step of it remaining again
            promised.update(chain.from_iterable(map(_PRODUCES, map(steps.__getitem__, new))))
        else:
            # no Python call per step: once per plan version
            done = frozenset(m.completed.intersection(steps))
            facts = frozenset(sources)
            found = reachable(shape.runnable, done, facts)
            new, self._promised = set(found.steps), set(found.facts | facts)
        self._reach_stale = False
        # re-derive the steps that entered or left the set
        if self.growth is not None or not (self._snapshot or self._everything):
            moved = reach.symmetric_difference(new)
            if moved:
                self.touched.update(dict.fromkeys(sorted(moved, key=natural_key)))
        self._reach = new

    def _facts_keep_reach(self, m: Any, shape: Shape) -> bool:
        """Whether the facts gained and lost since the last event leave the reachable set as it is (and
        keep the promised facts up to date when they do)."""
        sources, reach, promised, completed = m.sources, self._reach, self._promised, m.completed
        requirers, producers = shape.requirers, shape.ix.producers
        for f in self._facts_moved:
            needing = requirers.get(f, ())
            if f in sources:  # gained: a requirer outside the set might now be reached
                if f not in promised:
                    for r in needing:
                        if r not in reach and r not in completed:
                            return False
                    promised.add(f)
            else:  # lost: a reachable requirer might no longer be
                for r in needing:
                    if r in reach:
                        return False
                if f in promised:
                    for p in producers(f):
                        if p in reach:
                            break
                    else:
                        promised.discard(f)
        return True
