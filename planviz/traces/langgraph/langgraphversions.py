"""The plan versions of a LangGraph run: one per branch of its checkpoint tree, and the run played from them.

A fork (a checkpoint with several children: time travel, ``update_state`` on
an old checkpoint) starts a branch; :class:`Versions` (a part of the
LangGraph reader, :mod:`planviz.traces.langgraph.history`) turns each branch into
a plan version: at the fork the abandoned branch's steps are invalidated and
the new branch is proposed (re-run nodes ``revises`` the abandoned ones); the
first checkpoint's values are the premises; the head's pending tasks decide
the outcome (unfinished while something waits or is scheduled).

>>> fact_of("n", 3)
'n = 3'
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_right
from itertools import chain, compress, filterfalse, repeat
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any, Iterable, cast

from planviz.plan.grown import grown_plan
from planviz.plan.model import Finding, Plan, Step
from planviz.runs.events import Run
from planviz.traces.langgraph.checkpoints import Checkpoint
from planviz.traces.playback import Action, play

if TYPE_CHECKING:  # the builder's steps (history.py imports this module)
    from planviz.traces.langgraph.history import _Step

__all__ = ["Versions", "fact_of", "import_finding"]

_NODE, _REVISES = attrgetter("node"), attrgetter("revises")


def fact_of(channel: str, value: Any) -> str:
    """The fact a state channel's value stands for: ``channel = value``, the value as short JSON; a value too
    long to show whole ends with a digest of all of it, so two values that begin alike stay two facts (a chat's
    message list after each turn).

    >>> fact_of("docs", ["doc1", "doc2"])
    'docs = ["doc1", "doc2"]'
    >>> fact_of("log", "x" * 70) == fact_of("log", "x" * 71)
    False
    """
    text = json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)
    if len(text) <= 60:
        return f"{channel} = {text}"
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{channel} = {text[:50]}… #{digest}"


def import_finding(
    code: str,
    message: str,
    steps: Iterable[str] = (),
    edges: Iterable[tuple[str, str]] = (),
    where: str = "",
) -> Finding:
    return Finding(code, "import", "warning", message, tuple(steps), tuple(edges), where)


class Versions:
    """The plan-version half of the LangGraph reader's builder (its attributes are the builder's)."""

    steps: dict[str, _Step]
    by_id: dict[str, Checkpoint]
    order: list[Checkpoint]
    at: dict[str, list[str]]
    fails_at: dict[str, list[str]]
    members: dict[int, list[str]]
    findings: list[Finding]
    forks: list[tuple[str, int]]
    actions: list[Action]
    first_child: dict[str, str]
    started_at: dict[str, float]
    timed: bool
    thread: str | None
    late: set[str]
    made: dict[str, tuple[tuple[str, ...], Step]]
    flagged: set[str]  # the steps with an inferred dependency
    unknown: set[str]  # the steps of unknown duration
    renamed: list[str]
    renamed_at: list[int]
    depended: dict[str, list[str]] | None
    holder: dict[str, tuple[int, int]]
    version_ids: list[tuple[int | None, int, list[str], int]]
    position: dict[str, int]
    marked: list[tuple[list[str], list[str]]]
    plans: list[Plan]

    def _time(self, c: Checkpoint) -> float:
        raise NotImplementedError

    def _plan_steps(self, path_end: str, branch: int) -> list[str]:
        on_path, node = [], self.by_id.get(path_end)
        while node is not None:
            on_path.append(node.id)
            node = self.by_id.get(node.parent) if node.parent else None
        ids: dict[str, None] = {}
        for cid in reversed(on_path):
            for sid in self.at.get(cid, []) + self.fails_at.get(cid, []):
                ids[sid] = None
        for cid in self.members.get(branch, ()):
            for sid in self.at.get(cid, []) + self.fails_at.get(cid, []):
                ids[sid] = None
        return list(ids)

    def _plan(
        self,
        ids: list[str],
        goal: str,
        premises: list[str],
        grow: tuple[int, int, set[str], list[str], set[str], list[str]] | None = None,
        **version: Any,
    ) -> Plan:
        """The plan version of the steps ``ids``, or, given ``grow``, of the version the branch just placed
        (:meth:`_branch_ids`): ``(base version, k, changed, renamed, members, tail)``, a version whose first ``k``
        steps are the new one's, the ids that are members of one of the two versions only, the steps whose
        ``revises`` was set since, and the members and the steps after the ``k`` first of the new version. A
        step of the prefix keeps its Step unless one of its dependencies is among the changed (its edges
        changed) or it was renamed; the version is stored as what it changes
        (:func:`~planviz.plan.grown.grown_plan`), so it costs its own branch, not its prefix."""
        if grow is None:
            members = set(ids)
            flagged = list(filter(self.flagged.__contains__, ids))
            unknown = list(filter(self.unknown.__contains__, ids))
        else:
            members, tail = grow[4], grow[5]
            flagged, unknown = self.marked[len(self.version_ids) - 1]
        findings = self._findings(flagged, unknown, members)
        fields: dict[str, Any] = dict(
            premises=premises,
            time_unit="s" if self.timed else "checkpoint",  # built once
            import_findings=tuple(findings),
            name=f"thread {self.thread}" if self.thread else "",
            **version,
        )
        if grow is None:
            return Plan(goal, [self._step(sid, members) for sid in ids], **fields)
        b, k, changed, renamed, _, _ = grow
        dependants = self._dependants()
        redo = {d for u in changed for d in dependants.get(u, ())}
        redo.update(renamed)
        patches = {}
        for sid in redo:  # the steps of the prefix whose edges or revises changed
            i = self.position.get(sid)
            if i is not None and i < k and sid in members:
                patches[i] = self._step(sid, members)
        return grown_plan(
            self.plans[b],
            k,
            [self._step(sid, members) for sid in tail],
            patches,
            goal=goal,
            **fields,
        )

    def _findings(self, flagged: list[str], unknown: list[str], members: set[str]) -> list[Finding]:
        """The import findings of a version: the history's, its steps of unknown duration (``unknown``, in
        order) and the dependencies inferred for its ``flagged`` steps."""
        steps_of = self.steps
        inferred = sorted((u, s) for s in flagged for u in steps_of[s].inferred if u in members)
        findings = list(self.findings)
        if unknown:
            findings.append(
                import_finding(
                    "unknown_duration",
                    f"the checkpoints do not say how long {', '.join(unknown)} "
                    "ran (an error or interrupt is saved with no time, and no later checkpoint "
                    "ends it; or the clock went back): unknown, counted as 0 in the plan's "
                    "schedule",
                    steps=unknown,
                )
            )
        if inferred:
            findings.append(
                import_finding(
                    "inferred_dependency",
                    f"{len(inferred)} dependencies inferred: a node's trigger "
                    "was written in a superstep that ran several nodes, and the record does not "
                    "say which; every candidate is linked",
                    edges=inferred,
                )
            )
        return findings

    def _step(self, sid: str, members: set[str]) -> Step:
        """The Step of ``sid`` in a version of these members: built once, and again only when its edges or what
        it revises changed (else the same Step, shared)."""
        s = self.steps[sid]
        deps = tuple(u for u in s.deps if u in members)
        kept = self.made.get(sid)
        if kept is None or kept[0] != deps or kept[1].revises != s.revises:
            late = self.late
            kept = self.made[sid] = (
                deps,
                Step(
                    sid,
                    s.action,
                    expected_evidence="the node returns its state update",
                    duration=0.0 if s.duration is None or sid in late else s.duration,
                    depends_on=deps,
                    produces=sorted(s.facts),
                    tool=s.node,
                    revises=s.revises,
                ),
            )
        return kept[1]

    def _dependants(self) -> dict[str, list[str]]:
        """Step id -> the steps that depend on it (made once)."""
        if self.depended is None:
            self.depended = {}
            for sid, s in self.steps.items():
                for u in s.deps:
                    self.depended.setdefault(u, []).append(sid)
        return self.depended

    def _branch_ids(self, cid: str) -> tuple[int, int] | None:
        """Place the version whose branch starts at ``cid``: the steps on the path to its fork point (a prefix of
        the version holding that checkpoint, not copied), then its own chain's, noted as ``(base version, k, its
        own ids, length)`` in ``version_ids``; each checkpoint's place is noted once, in the one version whose
        chain holds it, and each step's place once (every step sits at one checkpoint). Returns the base
        version and the length of the prefix (None for the first)."""
        c = self.by_id[cid]
        held = self.holder.get(c.parent) if c.parent is not None else None
        version = len(self.version_ids)
        k = held[1] if held else 0
        at, fails_at, holder, first_child = self.at, self.fails_at, self.holder, self.first_child
        position, own = self.position, cast(list[str], [])
        node: str | None = cid
        while node is not None:
            for sid in (*at.get(node, ()), *fails_at.get(node, ())):
                position[sid] = k + len(own)
                own.append(sid)
            holder[node] = (version, k + len(own))
            node = first_child.get(node)
        self.version_ids.append((held[0] if held else None, k, own, k + len(own)))
        marks: list[list[str]] = []
        for table in (self.flagged, self.unknown):  # in version order: the prefix's, then its own
            before = self.marked[held[0]][len(marks)] if held and table else []
            marks.append(
                [sid for sid in before if position[sid] < k] + list(filter(table.__contains__, own))
            )
        self.marked.append((marks[0], marks[1]))
        return (held[0], k) if held else None

    def _ids(self, v: int | None, start: int = 0) -> list[str]:
        """The step ids of version ``v`` from place ``start`` on (walking down to the versions it shares)."""
        parts, limit = [], self.version_ids[v][3] if v is not None else 0
        while v is not None:
            base, k, own, _ = self.version_ids[v]
            parts.append(own[max(start - k, 0) : max(limit - k, 0)])
            if start >= k:
                break
            v, limit = base, min(limit, k)
        return list(chain.from_iterable(reversed(parts)))

    def _at(self, v: int, p: int) -> str:
        """The id of the step at place ``p`` of version ``v``."""
        while True:
            base, k, own, _ = self.version_ids[v]
            if p >= k or base is None:
                return own[p - k]
            v = base

    def _common(self, x: int, y: int) -> int:
        """How many first steps versions ``x`` and ``y`` share: a version's own steps are its alone, so the
        walk down from the later one to the versions it shares stops at the earlier one."""
        ids = self.version_ids
        cut = min(ids[x][3], ids[y][3])
        while x != y:
            if x < y:
                x, y = y, x
            base, k, _, _ = ids[x]
            if base is None:
                return 0
            if k < cut:
                cut = k
            x = base
        return cut

    def _play(self, head: Checkpoint) -> Run:
        root = self.order[0]
        # the steps ending at a checkpoint read later than its own time (the clock went back): unknown durations
        self.made: dict[
            str, tuple[tuple[str, ...], Step]
        ] = {}  # each step built once, shared by the versions
        self.late = {sid for c in self.order if c.late is not None for sid in self.at.get(c.id, ())}
        premises = sorted(fact_of(ch, v) for ch, v in root.values.items())
        thread = root.thread or "?"
        given = root.node_writes or {}
        said = asked(given) or self._first_asked()
        goal = f"LangGraph run (thread {thread})" + (
            f": {said[:100]}"
            if said
            else f": input {json.dumps(given, default=str)[:100]}"
            if given
            else ""
        )
        self.flagged = {sid for sid, s in self.steps.items() if s.inferred}
        self.unknown = {
            sid for sid, s in self.steps.items() if s.duration is None or sid in self.late
        }
        self.renamed: list[
            str
        ] = []  # the steps whose revises was set, in order, and the version each was set in
        self.renamed_at: list[int] = []
        self.depended: dict[str, list[str]] | None = None
        self.holder: dict[
            str, tuple[int, int]
        ] = {}  # checkpoint -> (its version's index, where its steps end)
        self.version_ids = []
        self.position: dict[str, int] = {}  # step -> its place in every version holding it
        self.marked: list[tuple[list[str], list[str]]] = []  # per version: its flagged, unknown
        placed = [sid for ids in (*self.at.values(), *self.fails_at.values()) for sid in ids]
        # each step at one checkpoint: versions share their prefixes
        shared = len(set(placed)) == len(placed)
        plans = self.plans = []
        if shared:
            self._branch_ids(root.id)
            ids = self._ids(0)
        else:
            ids = self._plan_steps(self._chain_end(root.id), 1)
        plan = self._plan(ids, goal, premises)
        plans.append(plan)
        current_ids = set(ids)  # the members of the current version, changed in place
        for cid, version in self.forks:
            c = self.by_id[cid]
            current = plans[-1]
            at = self._branch_ids(cid) if shared else None
            if shared:  # what the current version and the new one share: their first cut steps
                last = len(plans) - 1
                if at is None:  # no parent: none
                    cut = 0
                elif not at[1] or self._at(at[0], at[1] - 1) in current_ids:
                    cut = at[1]  # a fork of the current version's path: its whole prefix
                else:  # a fork onto another branch: down to where the two paths part
                    cut = min(at[1], self._common(last, at[0]))
                gone, tail = self._ids(last, cut), self._ids(last + 1, cut)
                # onto another branch: the node runs from where the two paths part to the fork point ran (on the
                # branch an earlier fork abandoned), and the fork point's state holds their work: done again
                restored = (
                    tail[: len(tail) - len(self.version_ids[-1][2])] if at and cut < at[1] else []
                )
                kept = set(tail)
                # its ids, none repeated (filtered in C: a fork onto an earlier branch voids half the history)
                voided = list(filterfalse(kept.__contains__, gone))
                fresh = list(filterfalse(current_ids.__contains__, tail))
                current_ids.difference_update(gone)
                current_ids.update(tail)
            else:
                restored = []
                ids = self._plan_steps(self._chain_end(cid), version)
                kept = set(ids)
                # its ids, none repeated
                voided = list(filterfalse(kept.__contains__, current.by_id))
                fresh = list(filterfalse(current_ids.__contains__, ids))
                current_ids = kept
            # each node's first voided step, and the fresh steps revising none yet (in C: a fork onto an earlier
            # branch voids half the history and takes back the other half, whose steps revise one already)
            step_of = self.steps.__getitem__
            nodes = list(map(_NODE, map(step_of, voided)))
            twins = dict(zip(reversed(nodes), reversed(voided)))
            for sid in compress(fresh, map(is_, map(_REVISES, map(step_of, fresh)), repeat(None))):
                twin = twins.get(self.steps[sid].node)
                if twin and self.steps[sid].revises is None:
                    self.steps[sid].revises = twin
                    self.renamed.append(sid)
                    self.renamed_at.append(len(plans))
            grow = None
            # grown from the current version (from the fork point's when the fork goes onto another branch);
            # the members of one of the two versions only: after the prefix
            if shared:
                b, k, own = (
                    (last, cut, tail)
                    if at is None or cut == at[1]
                    else (*at, self.version_ids[-1][2])
                )
                changed = set(gone if b == last else self._ids(b, k)).symmetric_difference(own)
                renamed = self.renamed[bisect_right(self.renamed_at, b) :]  # revises set since
                grow = (b, k, changed, renamed, current_ids, own)
            new = self._plan(
                ids if grow is None else [],
                goal,
                premises,
                grow,
                version=current.version + 1,
                parent=current,
                trigger=f"fork at checkpoint {c.parent or c.id} ({c.source})",
                invalidated=tuple(voided),
            )
            plans.append(new)
            t = self.started_at.get(cid, self._time(c))
            segment = 2 * len(plans) - 3  # after the abandoned branch's, before the new one's
            if voided:
                self.actions.append(
                    Action(
                        t,
                        "invalidate",
                        None,
                        (voided, f"fork: the branch after checkpoint {c.parent} is abandoned"),
                        segment=segment,
                    )
                )
            self.actions.append(
                Action(
                    t,
                    "replan",
                    None,
                    (
                        new,
                        f"plan v{new.version}: a new branch from checkpoint "
                        f"{c.parent} ({c.source})",
                        (),
                        restored,
                    ),
                    segment=segment,
                )
            )
        stop = self._outcome(head)
        if stop is not None:
            self.actions.append(
                Action(self._time(head), "stop", None, stop, segment=2 * len(self.forks))
            )
        return play(plan, self.actions)

    def _first_asked(self) -> str:
        """The first user message of the thread when the input the history starts with holds none (a greeting
        the graph was given, or an input saved only as its task's writes, as newer LangGraph saves it): the
        writes of each checkpoint's tasks, then its values, in the order they were written."""
        for c in self.order:
            for task in c.tasks:
                if task.writes and (said := asked([v for _, v in task.writes])):
                    return said
            if c.values and (said := asked(c.values)):
                return said
        return ""

    def _chain_end(self, cid: str) -> str:
        while cid in self.first_child:
            cid = self.first_child[cid]
        return cid

    def _outcome(self, head: Checkpoint) -> tuple[str, str] | None:
        waiting = [t for t in head.tasks if t.interrupts and not t.error]
        failed = [t for t in head.tasks if t.error]
        if failed:
            return (
                "step_failed",
                f"the run stopped at checkpoint {head.id}: {failed[0].name or failed[0].id} failed",
            )
        if waiting or head.next:
            return (
                None  # paused at an interrupt, or the history ends before the graph did: unfinished
            )
        return "plan_complete", f"the graph reached its end at checkpoint {head.id}"


def asked(value: Any, budget: int = 1000) -> str:
    """The text of the first user message in a graph's input (the task, for the run's goal), or ''.

    LangChain messages arrive as plain dicts (``{"type": "human", "content": ...}``), as their serialized
    constructors (``{"lc": 1, "type": "constructor", "id": [..., "HumanMessage"], "kwargs": {...}}``), as
    chat dicts (``{"role": "user", "content": ...}``) or as ``("user", text)`` pairs; a bare string input is the
    task itself. The walk is
    breadth-first and bounded, so a hostile input costs at most ``budget`` values.
    """
    queue: list[Any] = [value]
    for item in queue:
        if len(queue) > budget:
            break
        if isinstance(item, str) and item is value:
            return item.strip()
        if isinstance(item, dict):
            body = item.get("kwargs") if item.get("type") == "constructor" else item
            kind = (
                item.get("id", [""])[-1]
                if item.get("type") == "constructor"
                else item.get("type", item.get("role"))
            )
            if (
                isinstance(body, dict)
                and kind in ("human", "user", "HumanMessage")
                and isinstance(body.get("content"), str)
            ):
                return " ".join(body["content"].split())
            queue.extend(item.values())
        elif isinstance(item, (list, tuple)):
            # ("user", "text")
            if len(item) == 2 and item[0] in ("user", "human") and isinstance(item[1], str):
                return " ".join(item[1].split())
            queue.extend(item)
    return ""
