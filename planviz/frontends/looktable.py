"""The report's looks: each distinct look of a node once (:class:`Looks`, the fields :data:`LOOK_FIELDS`), and
the group nodes of a focused picture restyled per frame from counts an event moves (:class:`GroupLooks`).

A look is what a frame changes on a node of render's picture: its status class and flags (a bit mask over
:data:`FLAGS`), the fill, outline and dash of its two outlines, its status word and the frame's end of its
tooltip (:mod:`planviz.frontends.deltatable` numbers them per event).

>>> LOOK_FIELDS[:3], len(LOOK_FIELDS)
(('status class', 'flags', 'fill'), 11)
>>> looks = Looks()
>>> done = ("status-done", 0, *[""] * 8, "")
>>> looks.add(done, "done"), looks.add(done, "done"), looks.keys
(0, 0, ['done'])
"""

from __future__ import annotations

from typing import Any

from planviz.pictures.grouping import COUNT_ORDER, counts_text, group_mark, member_key, traits_of
from planviz.pictures.style import Mark, slot_value, tip
from planviz.plan.model import STATUSES, Finding
from planviz.runs.frames import MARKING_KINDS

__all__ = ["Looks", "GroupLooks", "LOOK_FIELDS", "FLAGS"]

_SLOTS = (
    "fill",
    "stroke",
    "stroke-width",
    "stroke-dasharray",
    "outer-stroke",
    "outer-stroke-width",
    "outer-stroke-dasharray",
    "status",
)
FLAGS = ("voided", "kept", "conflict", "not_run")
LOOK_FIELDS = ("status class", "flags") + _SLOTS + ("tooltip end",)
"""The fields of a look, in order; ``flags`` is a bit mask over :data:`FLAGS`."""
_WORD = LOOK_FIELDS.index("status")  # a look's status word

_RANK: dict[str | None, int] = {key: rank for rank, key in enumerate(COUNT_ORDER)}
# what a group counts a member of each status as in a frame that voids, keeps and leaves out nothing
_PLAIN = {status: member_key("", {"": status}, frozenset(), frozenset()) for status in STATUSES}
_NONE: frozenset[str] = frozenset()


class Looks:
    """The look table: each distinct look once, numbered in order of first use."""

    def __init__(self) -> None:
        self.ids: dict[tuple[object, ...], int] = {}
        self._marks: dict[Mark, int] = {}  # many nodes share a mark: each is worked out once
        self.keys: list[str] = []

    def of(self, m: Mark) -> int:
        known = self._marks.get(m)
        if known is None:
            known = self._marks[m] = self._of(m)
        return known

    def _of(self, m: Mark) -> int:
        return self.add(self.key_of(m), m.key)

    @staticmethod
    def key_of(m: Mark) -> tuple[object, ...]:
        """The look of mark ``m``: its fields (:data:`LOOK_FIELDS`) in order."""
        status = next((c for c in m.classes if c.startswith("status-")), "status-pending")
        flags = sum(1 << k for k, flag in enumerate(FLAGS) if flag in m.classes)
        end = tip(m.extra, "text") if m.extra else ""
        return (status, flags, *(slot_value(kind, m, "") for kind in _SLOTS), end)

    def add(self, key: tuple[object, ...], legend: str) -> int:
        """The number of look ``key``, numbered now if new (``legend``: the legend entry of a node of this look)."""
        if key not in self.ids:
            self.ids[key] = len(self.ids)
            self.keys.append(legend)
        return self.ids[key]

    def table(self) -> list[list[Any]]:
        return [list(key) for key in self.ids]


class GroupLooks:
    """The group nodes of a focused picture (a big plan's chains drawn as one node each), restyled per frame.

    Each group's members are counted by status once, at the version's first frame; an event then moves the
    counts of the members it changed, so a frame costs what its event changed, not the group's size.
    """

    def __init__(
        self,
        diagram: Any,
        plan: Any,
        critical: frozenset[str],
        findings: tuple[Finding, ...],
        looks: Looks,
    ) -> None:
        view = None if diagram.summarized else diagram.view
        self.all = tuple(view.groups) if view is not None else ()
        self.dom_ids = tuple(f"group-{g.name}" for g in self.all)
        self._of: dict[str, list[int]] = {}
        for j, g in enumerate(self.all):
            for sid in g.members:
                self._of.setdefault(sid, []).append(j)
        self.members = self._of.keys()
        self._traits = traits_of(self.all, plan, critical, findings)
        # what a group's look depends on besides its counts (its kind, its traits), numbered
        kinds: dict[tuple[str, tuple[bool, str | None]], int] = {}
        self._kind = [
            kinds.setdefault((g.kind, t), len(kinds)) for g, t in zip(self.all, self._traits)
        ]
        self._key: dict[str, str] = {}
        # each group's members by key, in COUNT_ORDER (the only keys its counts' text shows), as one int: a field of
        # ``bits`` bits per key, wide enough for any group's size, so an event moves a count with one addition and
        # the counts are looked up by that int, not by a tuple of them
        self._bits = max((len(g.members) for g in self.all), default=0).bit_length() + 1
        self._weight: dict[str | None, int] = {
            key: 1 << (self._bits * rank) for key, rank in _RANK.items() if key
        }
        self._code: list[int] = [0] * len(self.all)
        self._looks = looks
        # a group's mark depends on its kind, its counts' text and its traits only: groups of one size share
        # their texts (a 100k-span ReAct trace: 99,432 group restyles, 6,258 distinct), each looked up once
        self._ids: dict[tuple[str, str, tuple[bool, str | None]], int] = {}
        # and its counts give that text: a look number per (kind and traits, counts), no text made twice
        self._by_counts: dict[tuple[int, int], int] = {}
        # the look of one text per kind and traits and first count word, and its legend entry (_new_look)
        self._made: dict[tuple[int, str], tuple[tuple[object, ...], str]] = {}

    def _look(self, j: int) -> int:
        """The look number of group ``j``'s mark at its current counts."""
        code = self._code[j]
        known = self._by_counts.get((self._kind[j], code))
        if known is None:
            g, traits = self.all[j], self._traits[j]
            mask = (1 << self._bits) - 1
            counts = [(code >> (self._bits * rank)) & mask for rank in range(len(COUNT_ORDER))]
            text = counts_text(dict(zip(COUNT_ORDER, counts)))
            key = (g.kind, text, traits)
            known = self._ids.get(key)
            if known is None:
                known = self._ids[key] = self._new_look(j, text)
            self._by_counts[self._kind[j], code] = known
        return known

    def _new_look(self, j: int, text: str) -> int:
        """The look number of group ``j`` saying ``text``: :func:`group_mark`'s look, worked out once per kind,
        traits and first count word (its status class, colours and legend entry); the look of any other text of
        those is that one's with its own status word and tooltip end (both the text)."""
        first = (
            text.split(" · ")[0].split(" ", 1)[1].replace(" ", "_")
        )  # group_mark's reading of its text
        made = self._made.get((self._kind[j], first))
        if made is None:
            m = group_mark(self.all[j], text, self._traits[j])
            made = self._made[self._kind[j], first] = (self._looks.key_of(m), m.key)
            return self._looks.add(*made)
        key, legend = made
        return self._looks.add(
            (*key[:_WORD], text, *key[_WORD + 1 : -1], tip((f"in this frame: {text}",), "text")),
            legend,
        )

    def start(self, frame: Any) -> dict[int, int]:
        """Count every member in ``frame`` (a version's first); the look numbers of every group."""
        statuses, voided, kept, not_run = frame.statuses, frame.voided, frame.kept, frame.not_run
        weight = self._weight
        for j, g in enumerate(self.all):
            code = 0
            for sid in g.members:
                key = self._key[sid] = member_key(sid, statuses, voided, kept, not_run)
                code += weight.get(key, 0)
            self._code[j] = code
        return {j: self._look(j) for j in range(len(self.all))}

    def step(
        self, steps: Any, statuses: Any, voided: Any, kept: Any, not_run: Any
    ) -> dict[Any, int]:
        """Move the counts of the members in ``steps`` to a frame's (its ``statuses`` of those steps at least, and
        its ``voided``, ``kept`` and ``not_run``); the look numbers of the groups whose counts moved."""
        moved: list[int] = []  # an event moves a group or two
        of, keys, codes, weight = self._of, self._key, self._code, self._weight
        # a frame that voids, keeps and leaves out nothing (most): a member's key is its status's
        plain = None if voided or kept or not_run else _PLAIN
        for sid in steps:
            groups = of.get(sid)
            if not groups:
                continue
            key = (
                plain.get(statuses.get(sid, "pending")) if plain is not None else None
            ) or member_key(sid, statuses, voided, kept, not_run)
            old = keys.get(sid)
            if key == old:
                continue
            keys[sid] = key
            move = weight.get(key, 0) - weight.get(old, 0)  # never None's: no key is
            for j in groups:
                codes[j] += move
                if j not in moved:
                    moved.append(j)
        if len(moved) > 1:
            moved.sort()
        # each group's look at its counts: known for most, else made once (_look)
        by_counts, kind, look = self._by_counts, self._kind, self._look
        out = {}
        for j in moved:
            known = by_counts.get((kind[j], codes[j]))
            out[j] = look(j) if known is None else known
        return out

    def restyle(
        self,
        events: Any,
        rows: Any,
        i: int,
        last: int,
        drawn: Any,
        current: dict[Any, int],
        first: int,
        changed_at: list[int],
        restyles: list[list[int]],
        progress: Any = None,
    ) -> int:
        """The restyles of events ``i``..``last`` while each restyles no node of ``drawn`` and is plain (its steps its
        changes, ``rows`` of :meth:`planviz.Run.delta_rows`) under a frame that voids, keeps and leaves out nothing
        (no marking kind): :meth:`step` of its ``changes`` (step -> status, every status it moved), then straight to
        the page's restyles ``(node, look before, look after)`` for each group whose look moved (node ``first + j``
        is group ``j``), appended to ``restyles`` with the event's index to ``changed_at``, ``current`` (each node's
        look) kept up to date; the first event not taken, or ``last + 1``. One pass over the stretch, no mapping of
        looks in between (nearly every event of a long run's focused picture); ``progress`` hears of every 256
        events, as the report's loop does."""
        of, keys, codes, weight = self._of, self._key, self._code, self._weight
        by_counts, kind, look = self._by_counts, self._kind, self._look
        disjoint = drawn.isdisjoint
        while i <= last:
            event = events[i]
            steps, _, _, plain = rows[i]
            if not plain or event.kind in MARKING_KINDS or not disjoint(steps):
                return i
            if progress is not None and not i % 256:
                progress("report: frames", i, len(events))
            moved: list[int] = []
            changes = event.changes
            for sid, status in changes.items():
                groups = of.get(sid)
                if not groups:
                    continue
                key = _PLAIN.get(status) or member_key(sid, changes, _NONE, _NONE, _NONE)
                old = keys.get(sid)
                if key == old:
                    continue
                keys[sid] = key
                move = weight.get(key, 0) - weight.get(old, 0)
                for j in groups:
                    codes[j] += move
                    if j not in moved:
                        moved.append(j)
            if moved:
                if len(moved) > 1:
                    moved.sort()
                triples: list[int] = []
                for j in moved:
                    new = by_counts.get((kind[j], codes[j]))
                    if new is None:
                        new = look(j)
                    was = current[j]
                    if new != was:
                        triples += [first + j, was, new]
                        current[j] = new
                if triples:
                    changed_at.append(i)
                    restyles.append(triples)
            i += 1
        return i
