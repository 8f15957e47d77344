"""A run machine's index of one plan version after another, each grown from the last (a LangGraph fork).

A forked LangGraph history is read as one plan version per branch, each the
steps on the path to its fork point (the last version's prefix) and then its
own branch's: building every version's :class:`~planviz.structure.index.StructureIndex`
whole costs their total length, quadratic in the checkpoints. The machine
reads only a few tables of it; :class:`GrowingIndex` keeps those and changes
them in place from one version to the next.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from planviz.plan.model import Plan, Step
from planviz.structure.index import StructureIndex, _closure as closure

__all__ = ["GrowingIndex"]


class GrowingIndex:
    """The part of a plan's index a run machine reads (``steps``, ``children()``, ``producers``,
    ``descendants``, ``clean``; and ``position``, each step's place in the plan), kept for one plan version
    after another: a version whose first steps are the last version's (a LangGraph fork: the prefix before the
    fork point, then its own branch) is made from the last one's tables in place, the steps after the shared
    prefix taken out and the new ones put in. A version then costs what it changes, not its length. Made by
    :meth:`grow` only; the index it grows from is consumed (its tables are this one's); nothing is cached on
    the plan.

    >>> from planviz import Plan, Step
    >>> from planviz.structure.index import structure_index
    >>> a, b, c = Step("A", "a", produces="x"), Step("B", "b", depends_on="A"), Step("C", "c", depends_on="A")
    >>> one = Plan("g", [a, b])
    >>> ix = GrowingIndex.grow(Plan("g", [a, c]), structure_index(one), [b], [c], 1)
    >>> ix.children(), ix.producers("x"), sorted(ix.descendants(["A"]))
    ({'A': ['C'], 'C': []}, ['A'], ['A', 'C'])
    """

    __slots__ = ("steps", "clean", "position", "_children", "_producers")
    steps: dict[str, Step]
    clean: bool
    position: dict[str, int]
    _children: dict[str, list[str]] | None
    _producers: dict[str, list[str]] | None

    def __init__(self) -> None:
        raise TypeError("made by GrowingIndex.grow")

    @classmethod
    def grow(
        cls,
        plan: Plan,
        base: StructureIndex | GrowingIndex,
        gone: Sequence[Step],
        tail: Sequence[Step],
        k: int,
    ) -> GrowingIndex | None:
        """The index of ``plan`` from ``base``, the index of a plan whose first ``k`` steps are ``plan``'s first
        ``k`` and whose steps after them are ``gone`` (``plan``'s: ``tail``); None unless both list every step
        after its dependencies with no repeated id (build the plan's own index then). A :class:`StructureIndex`
        (cached on its plan, shared) is copied once; a GrowingIndex is changed in place, its table of steps
        too, so ``plan``'s own steps are never read whole."""
        if not base.clean:
            return None
        if isinstance(base, StructureIndex) and (base.duplicated or not base.file_ordered):
            return None
        old = base.steps
        gone_ids = {s.id for s in gone}
        new_ids = {s.id for s in tail}
        if len(new_ids) != len(tail) or len(old) - len(gone_ids) + len(tail) != len(plan):
            return None
        seen: set[str] = set()
        for s in tail:  # in dependency order: each dependency in the prefix or earlier in the tail
            if s.id in old and s.id not in gone_ids:
                return None  # a repeated id
            for d in s.depends_on:
                if d not in seen and (d in new_ids or d in gone_ids or d not in old):
                    return None
            seen.add(s.id)
        ix = cls.__new__(cls)
        ix.clean = True
        children: dict[str, list[str]]
        producers: dict[str, list[str]] | None
        if isinstance(base, StructureIndex):  # the cached index's tables are shared: copied once
            steps = dict(old)
            position = dict(zip(old, range(len(old))))
            children = {sid: [*kids] for sid, kids in base.children().items()}
            producers = (
                {f: [*ids] for f, ids in base._producers.items()}
                if base._producers is not None
                else None
            )
        else:
            steps, position = base.steps, base.position
            children, producers = base.children(), base._producers
            base._children = base._producers = None  # consumed
        ix.steps, ix.position, ix._children, ix._producers = steps, position, children, producers
        for s in gone:  # they follow every kept step: their ids end each list that holds them
            del children[s.id], steps[s.id], position[s.id]
            for d in s.depends_on:
                kids = children.get(d)
                while kids and kids[-1] in gone_ids:
                    kids.pop()
            if producers is not None:
                for f in dict.fromkeys(s.produces):
                    made = producers.get(f)
                    while made and made[-1] in gone_ids:
                        made.pop()
                    if made == []:
                        del producers[f]
        for i, s in enumerate(tail, k):
            sid = s.id
            steps[sid], position[sid], children[sid] = s, i, []
            for d in s.depends_on:
                children[d].append(sid)
            if producers is not None:
                for f in dict.fromkeys(s.produces):
                    have = producers.get(f)
                    if have is None:
                        producers[f] = [sid]
                    else:
                        have.append(sid)
        return ix

    def children(self) -> dict[str, list[str]]:
        """Successor lists (a step once per dependency entry naming it), in file order."""
        children = self._children
        if children is None:
            raise RuntimeError("this index was consumed by the next plan version's")
        return children

    def producers(self, fact: str) -> list[str]:
        """Every step producing ``fact``, in file order."""
        if self._producers is None:
            producers: dict[str, list[str]] = {}
            for sid, s in self.steps.items():
                for f in dict.fromkeys(s.produces):
                    producers.setdefault(f, []).append(sid)
            self._producers = producers
        return self._producers.get(fact, [])

    def descendants(self, roots: Iterable[str]) -> set[str]:
        """The roots and everything downstream of them."""
        return closure(roots, self.children())
