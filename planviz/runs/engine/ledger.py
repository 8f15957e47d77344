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
set in bulk, not looked at; a plan version sharing most of its steps with
the last one (a LangGraph fork) grows its :class:`Shape` from the last
one's (:class:`~planviz.structure.growing.GrowingIndex`). An event
therefore costs what it changed (issue 42).

>>> from planviz import Plan, Step
>>> shape = Shape(Plan("g", [Step("A", "a"), Step("B", "b", depends_on="A"), Step("C", "c", depends_on="Z")]))
>>> sorted(shape.broken), shape.requirers, shape.children["A"]
(['C'], {}, ['B'])
>>> Shape(Plan("g", [Step("A", "a"), Step("B", "b", requires="x"), Step("C", "c", requires="x")])).requirers
{'x': ['B', 'C']}
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import compress, count, filterfalse
from operator import is_not
from typing import Any, Mapping, Sequence

from planviz.analysis.reach import reachable
from planviz.plan.model import Plan, Step, natural_key
from planviz.structure.growing import GrowingIndex
from planviz.structure.index import StructureIndex, structure_index

__all__ = ["Ledger", "Shape"]

_NONE: frozenset[str] = frozenset()


class Shape:
    """What the machine needs of one plan version: its index, the steps that wait on an id it lacks, and
    who requires each fact (who produces one: the index's ``producers``). ``base``: the last version's
    Shape, consumed when this version shares most of its first steps with it (its tables changed in place)."""

    __slots__ = ("plan", "ix", "steps", "children", "requirers", "broken", "runnable")
    plan: Plan
    ix: StructureIndex | GrowingIndex
    steps: Mapping[str, Step]
    children: dict[str, list[str]]
    requirers: dict[str, Sequence[str]]
    broken: set[str]
    runnable: Plan

    def __init__(self, plan: Plan, base: Shape | None = None) -> None:
        self.plan = plan
        k = _prefix(plan, base.plan) if base is not None and not base.broken else 0
        grown = (
            GrowingIndex.grow(plan, base.ix, base.plan.steps, k)
            if base is not None and 2 * k > len(plan.steps)
            else None
        )
        if (
            grown is not None and base is not None
        ):  # a version sharing most of its steps with the last (a fork):
            self.ix, self.steps = (
                grown,
                grown.steps,
            )  # made from the last one's shape, which it consumes
            self.children = grown.children()
            self.requirers = _requirers_grown(base.requirers, base.plan.steps[k:], plan.steps[k:])
            self.broken, self.runnable = set(), plan  # in dependency order, every dependency known
            return
        ix = self.ix = structure_index(plan)
        steps = self.steps = ix.steps
        self.children = ix.children()
        # fact -> the steps that require it. Most facts have one: the step's own (sid,), shared by all its
        # facts, stands for it, and a list is made only for a second one (issue 28)
        requirers: dict[str, Sequence[str]] = {}
        setdefault = requirers.setdefault
        for sid, s in steps.items():
            one = (sid,)
            for f in s.requires:
                have = setdefault(f, one)
                if have is not one:
                    if type(have) is tuple:
                        requirers[f] = [*have, sid]
                    else:
                        have.append(sid)  # type: ignore[attr-defined]
        self.requirers = requirers
        waiting = (
            ()
            if ix.clean
            else {sid for sid, s in steps.items() if any(d not in steps for d in s.depends_on)}
        )
        self.broken: set[str] = (
            ix.descendants(waiting) if waiting else set()
        )  # they wait on a missing step
        self.runnable = (
            plan.replace(steps=tuple(st for st in plan.steps if st.id not in self.broken))
            if self.broken
            else plan
        )


def _prefix(plan: Plan, base: Plan) -> int:
    """How many first steps ``plan`` and ``base`` share (the same Step objects), compared in bulk."""
    return next(
        compress(count(), map(is_not, plan.steps, base.steps)),
        min(len(plan.steps), len(base.steps)),
    )


def _requirers_grown(
    table: dict[str, Sequence[str]], gone: Sequence[Any], added: Sequence[Any]
) -> dict[str, Sequence[str]]:
    """``Shape.requirers`` of a version: ``table`` (its base's, changed in place) without the steps ``gone`` and
    with the steps ``added`` after the shared prefix (a plan whose steps require nothing costs nothing)."""
    if not table and not any(s.requires for s in added):
        return table
    new = table  # the last version's, consumed
    for s in gone:
        for f in s.requires:
            have = new.get(f)
            if have is not None:
                rest = [r for r in have if r != s.id]
                if rest:
                    new[f] = tuple(rest) if len(rest) == 1 else rest
                else:
                    del new[f]
    for s in added:
        one = (s.id,)
        for f in s.requires:
            have = new.get(f)
            if have is None:
                new[f] = one
            elif type(have) is list:
                have.append(s.id)
            elif have is not one:
                new[f] = [*have, s.id]
    return new


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
        self._facts_moved: set[str] = (
            set()
        )  # facts gained or lost since the reachable set was last brought up to date
        self._reach_stale = True
        self._new_done: list[str] = []
        self._doomed: set[str] = set()
        self._shown_done: set[str] = set()  # the steps the status table shows done
        self._feasible = False

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
        self.facts_touched.setdefault(
            fact, not gained
        )  # first change since the last event: held iff now lost
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

    def everything(self) -> None:
        """Completed steps or facts changed wholesale: re-derive the reachable set and every status."""
        self._everything = True
        self._reach_stale = True

    def new_version(self, m: Any, shape: Shape, feasible: bool = False) -> None:
        """A new plan version; ``feasible``: validation found every step reachable from the facts held, so the
        reachability pass is skipped."""
        self._snapshot = True
        self.everything()
        self._feasible = feasible
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
        if (
            snapshot
        ):  # every step, its table sized once instead of regrown as it fills (issue 28); the steps
            # completed are done, set in bulk: a fork's version costs the steps it has not run yet
            status = self.status = dict.fromkeys(steps, "done")
            shown_done = self._shown_done = completed.intersection(steps)
            todo = list(filterfalse(completed.__contains__, steps))
        elif (
            whole
        ):  # every step, but those completed and shown done already stay done: not looked at
            todo = filterfalse(shown_done.intersection(completed).__contains__, steps)
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
                if (
                    new == "ready"
                ):  # the key of each id compared is a list entry, made once per id (issue 28)
                    key = self._sort_key.get(sid)
                    if key is None:
                        key = self._sort_key[sid] = natural_key(sid)
                    i = bisect_right(self._ready_keys, key)
                    self._ready_keys.insert(i, key)
                    self.ready_order.insert(i, sid)
                elif old == "ready":
                    i = bisect_left(self._ready_keys, self._sort_key[sid])
                    del self._ready_keys[i], self.ready_order[i]
                if (
                    new == "done"
                ):  # its key is made again if it is ever ready again: the keys held stay few (issue 28)
                    self._sort_key.pop(sid, None)
        if snapshot:
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
        return changes

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
        if len(gained) == len(like) and like.issuperset(
            gained
        ):  # no repeats in gained: the same set
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
            new = set(filterfalse(m.completed.__contains__, steps))
            promised = self._promised = set(sources)
            for sid in new:
                promised.update(steps[sid].produces)
        else:
            done = frozenset(
                m.completed.intersection(steps)
            )  # no Python call per step: once per plan version
            facts = frozenset(sources)
            found = reachable(shape.runnable, done, facts)
            new, self._promised = set(found.steps), set(found.facts | facts)
        self._reach_stale = False
        if not (
            self._snapshot or self._everything
        ):  # re-derive the steps that entered or left the set
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
