"""LangGraph state histories and checkpoint tuples as planviz runs.

A LangGraph run is a tree of checkpoints, one per superstep; :func:`run_of_history`
replays it through the run state machine:

- every node run between two checkpoints is a step (id: the node name,
  ``name#2``... when it ran again), started at the parent checkpoint's time
  and finished at the child's (a fork, replayed after the branch before it,
  starts at the latest checkpoint before it); a step's plan ``duration`` is
  what its run took; ``update_state`` and new inputs are steps too
  (``update``, ``input``), running from the end of the previous turn to the
  moment they were written, and depending on that turn's last step;
- the graph's state channels become facts, ``"channel = value"`` (the value
  shortened); a write replaces the channel's previous fact;
- dependencies come from ``versions_seen`` (the channel versions that
  triggered a node, traced to the superstep that wrote them) or, in state
  snapshots, from the supersteps (a node depends on the nodes of the
  superstep before it). When a superstep ran several nodes and the record
  does not say which one wrote what, every candidate is linked and the edges
  are listed as inferred (``inferred_dependency``, drawn dashed);
- a task error fails its step; an interrupt is a wait, not a failure: a
  ``wait`` event (status ``waiting``, its own look) and, when the run was
  resumed, a ``retry`` saying how long the wait lasted, then the step runs
  again and completes (LangGraph re-runs an interrupted node); a run that
  ends at an interrupt is unfinished (no stop event, outcome None);
- each AI message a node run wrote is a model call of that step (:mod:`.langgraphcalls`);
- forks (a checkpoint with several children: time travel, ``update_state`` on
  an old checkpoint) become plan versions: at the fork the abandoned branch's
  steps are invalidated and the new branch is proposed as the next version.

>>> history = [
...   {"values": {"x": 1}, "next": ["inc"], "config": {"configurable": {"thread_id": "t", "checkpoint_id": "a"}},
...    "metadata": {"source": "loop", "step": 0}, "created_at": "2025-01-01T00:00:00+00:00",
...    "tasks": [{"id": "t1", "name": "inc", "error": None, "interrupts": []}]},
...   {"values": {"x": 2}, "next": [], "config": {"configurable": {"thread_id": "t", "checkpoint_id": "b"}},
...    "metadata": {"source": "loop", "step": 1}, "created_at": "2025-01-01T00:00:02+00:00",
...    "parent_config": {"configurable": {"thread_id": "t", "checkpoint_id": "a"}}, "tasks": []}]
>>> run = run_of_history(history)
>>> run.plan.ids, run.outcome, sorted(run.frame(-1).facts), run.time
(('inc',), 'plan_complete', ['x = 2'], 2.0)
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from planviz.errors import TraceFormatError
from planviz.io.tracesniff import is_langgraph_history
from planviz.plan.bulk import paused_gc
from planviz.plan.model import Finding
from planviz.runs.events import ModelCall, Observation, Run
from planviz.traces import Document, Sample
from planviz.traces.langgraph.checkpoints import Checkpoint, Task, history_of
from planviz.traces.langgraph.langgraphcalls import (
    call_of,
    new_replies,
    thread_turns,
    tool_data,
    tool_results,
)
from planviz.traces.langgraph.langgraphversions import Versions, fact_of, import_finding
from planviz.traces.playback import Action

__all__ = ["run_of_history", "fact_of", "TITLE", "detect", "read"]

TITLE = "LangGraph"
_KEYS = re.compile(
    r'"(channel_values|versions_seen|pending_writes|parent_config|checkpoint_ns|configurable|'
    r'checkpoint_id)"\s*:'
)


def detect(sample: Sample) -> float:
    """How surely a sample is a LangGraph history: its keys (the earlier the first one, the surer)."""
    if sample.parsed:
        return 0.9 if is_langgraph_history(sample.data) else 0.0
    return sample.keys_confidence(_KEYS)


def read(doc: Document) -> Run:
    """The run of a LangGraph history (JSON: state snapshots or checkpoint tuples); the registry reads it with the
    collector paused, parsing included."""
    return run_of_history(doc.data(), doc.name)


@dataclass
class _Step:
    sid: str
    node: str
    action: str
    deps: dict[str, None] = field(default_factory=dict)
    inferred: set[str] = field(default_factory=set)
    # an ordered set: in the order the fact strings were made
    facts: dict[str, None] = field(default_factory=dict)
    branch: int = 1
    revises: str | None = None
    duration: float | None = None  # what the last run took (end - start), when it ran


def _action(node: str, step: int | None) -> str:
    """What a node run is, in LangGraph's words: the node and the step (superstep) it ran in, so the same node
    in a later step (a new chat turn, another round of a loop) is other work, not a repeat.

    >>> _action("chatbot", 4), _action("chatbot", None)
    ('run node chatbot at step 4', 'run node chatbot')
    """
    return f"run node {node}" + (f" at step {step}" if step is not None else "")


def run_of_history(data: Any, source: str = "<history>") -> Run:
    """The recorded :class:`~planviz.Run` of a LangGraph history (snapshots or checkpoint tuples, any order)."""
    # hundreds of thousands of small acyclic objects: no full collections while they pile up
    with paused_gc():
        return _Builder(*history_of(data, source), source).run()


class _Builder(Versions):
    def __init__(self, order: list[Checkpoint], findings: list[Finding], source: str) -> None:
        self.source = source
        self.findings = findings
        findings.append(
            Finding(
                "node_steps",
                "import",
                "info",
                "the steps are the graph's node runs (a node at "
                "each step it ran in), not tool calls: the tool calls are the ToolMessages the nodes "
                "wrote (the tools node's)",
                (),
                (),
                "",
            )
        )
        self.order = order
        self.thread = next((c.thread for c in order if c.thread is not None), None)
        self.by_id = {c.id: c for c in order}
        self.position = {c.id: i for i, c in enumerate(self.order)}
        self.timed = all(c.time is not None for c in self.order)
        if not self.timed:
            self.findings.append(
                import_finding(
                    "no_timestamps",
                    "some checkpoints carry no time: the run's clock counts "
                    "checkpoints instead of seconds",
                )
            )
        first = self.order[0].time
        self.t0: int = first if self.timed and first is not None else 0
        self.steps: dict[str, _Step] = {}
        self.names: Counter[str] = Counter()
        # checkpoint -> steps of the superstep ending there
        self.at: dict[str, list[str]] = defaultdict(list)
        # checkpoint -> steps that failed/waited there
        self.fails_at: dict[str, list[str]] = defaultdict(list)
        self.unresolved: dict[
            str, dict[str, str]
        ] = {}  # checkpoint -> node -> its failed step awaiting a retry
        self.branch: dict[str, int] = {}
        self.first_child: dict[str, str] = {}
        self.born: dict[
            tuple[str, str], str
        ] = {}  # (channel, version) -> checkpoint where it first appears
        self.actions: list[Action] = []
        self.forks: list[tuple[str, int]] = []  # (first checkpoint of the branch, version)
        self.emitted: set[tuple[str, str]] = set()
        self.failed: set[str] = set()  # steps with a failure recorded
        self.waits: dict[
            str, tuple[int, float, str]
        ] = {}  # waiting step -> (its wait action, since, message)
        self.started_at: dict[
            str, float
        ] = {}  # checkpoint -> when the superstep leading to it started
        self.branches = 0  # branches numbered so far
        # branch -> its checkpoints, in order
        self.members: dict[int, list[str]] = defaultdict(list)
        self.calls: list[ModelCall] = []  # the AI messages node runs wrote (langgraphcalls)
        self.replied: set[str] = set()  # their ids
        # the ToolMessages counted so far (langgraphcalls.tool_results)
        self.tool_ids: set[str] = set()

    def _next_branch(self) -> int:
        self.branches += 1
        return self.branches

    def _lineage(self, head: Checkpoint) -> list[tuple[dict[str, Any], float | None]]:
        """The values and times (None when untimed) of the checkpoints from the first to ``head``, on its branch."""
        chain: list[tuple[dict[str, Any], float | None]] = []
        c: Checkpoint | None = head
        seen: set[str] = set()
        while c is not None and c.id not in seen:
            seen.add(c.id)
            chain.append((c.values, self._time(c) if self.timed and c.time is not None else None))
            c = self.by_id.get(c.parent) if c.parent is not None else None
        return chain[::-1]

    def _time(self, c: Checkpoint) -> float:
        if self.timed and c.time is not None:  # timed: every checkpoint has a time
            return (
                c.time - self.t0
            ) / 1e9  # nanoseconds apart, exact: 0.001608 s, not 0.0016078948974609375
        return float(self.position[c.id])

    # -- steps -----------------------------------------------------------------------------------------

    def _new_step(self, node: str, action: str, c: Checkpoint, unresolved: dict[str, str]) -> str:
        if node in unresolved:
            return unresolved.pop(node)
        self.names[node] += 1
        sid = node if self.names[node] == 1 else f"{node}#{self.names[node]}"
        while sid in self.steps:
            self.names[node] += 1
            sid = f"{node}#{self.names[node]}"
        self.steps[sid] = _Step(sid, node, action, branch=self.branch[c.id])
        return sid

    def _node(self, task: Task, c: Checkpoint) -> str:
        """The node a task ran (every task of a superstep is named by :meth:`_names_ran`)."""
        if task.name is None:
            raise TraceFormatError(
                f"task {task.id!r} names no node", source=self.source, path=c.where
            )
        return task.name

    def _names_ran(self, p: Checkpoint, c: Checkpoint) -> list[Task]:
        """The tasks of the superstep from ``p`` to ``c``, named where the record allows."""
        if p.seen is not None and c.seen is not None:
            ran = [
                n
                for n, seen in c.seen.items()
                if n not in ("__input__", "__interrupt__") and seen != p.seen.get(n)
            ]
            tasks = [t for t in p.tasks if t.name in ran]
            unnamed = [t for t in p.tasks if t.name is None]
            left = [n for n in ran if n not in {t.name for t in tasks}]
            if len(left) == 1 and len(unnamed) == 1:
                unnamed[0].name = left[0]
                tasks.append(unnamed[0])
                left = []
            return tasks + [Task(f"{c.id}:{n}", n) for n in left]
        return [t for t in p.tasks if t.name]

    def _superstep(self, p: Checkpoint, c: Checkpoint, start: float) -> None:
        end = self._time(c)
        unresolved = dict(self.unresolved.get(p.id, {}))
        written = self._written(p, c)
        if c.source in ("update", "input", "fork"):
            what = ", ".join(sorted(c.node_writes or {})) or c.source
            after = (
                f", {self._span(end - start)} after the previous turn"
                if c.source != "fork" and end > start
                else ""
            )
            sid = self._new_step(
                c.source,
                f"{c.source}: state written by the user ({what}){after}"
                if c.source != "input"
                else f"input: a new input to the graph{after}",
                c,
                unresolved,
            )
            self._after_turn(sid, p)
            self._run_step(
                sid,
                start,
                end,
                facts=self._facts(written),
                replaced=self._replaced(p, c, written),
                data={"checkpoint": c.id},
            )
            self.at[c.id].append(sid)
            self._fail_rest(p, [], unresolved)
            self.unresolved[c.id] = unresolved
            return
        tasks = self._names_ran(p, c)
        writers = self._writers(p, c, tasks)
        facts, replaced = self._facts(written), self._replaced(p, c, written)
        ambiguous = writers is None and len(tasks) > 1 and facts
        if ambiguous:
            self.findings.append(
                import_finding(
                    "ambiguous_writer",
                    f"checkpoint {c.where}: the superstep ran "
                    f"{', '.join(self._node(t, c) for t in tasks)} and the record does not say which "
                    f"wrote {', '.join(sorted({f.split(' = ')[0] for f in facts}))}; each is "
                    "credited with all of it",
                    where=c.where,
                )
            )
        ran: dict[str, str] = {}  # node -> its step in this superstep
        # channel -> the new ToolMessages it holds
        results = tool_results(p.values, written, self.tool_ids)
        for i, task in enumerate(tasks):
            node = self._node(task, c)
            sid = ran[node] = self._new_step(node, _action(node, c.step), c, unresolved)
            self._depend(sid, p, c, node)
            mine = (
                facts
                if writers is None
                else {f: None for f in facts if f.split(" = ")[0] in writers.get(node, ())}
            )
            if task.error or task.interrupts:  # on a fork's branch: after the fork, in its version
                self._wait_or_error(sid, task, start, resumed=True)
            told = [
                m
                for ch, ms in results.items()
                for m in ms
                if (ch in writers.get(node, ()) if writers is not None else len(tasks) == 1)
            ]
            self._run_step(
                sid,
                start,
                end,
                mine,
                replaced if i == 0 else set(),
                data={"task_id": task.id, "checkpoint": c.id, **tool_data(told)},
                resumed=bool(task.error or task.interrupts),
            )
            self.at[c.id].append(sid)
        values = dict(written)
        for ch, message in new_replies(p.values, written, self.replied):
            by = [n for n in ran if writers is None or ch in writers.get(n, ())]
            # the graph's input, passed on into the state: no model wrote it
            if by == ["__start__"]:
                continue
            try:
                self.calls.append(
                    call_of(message, start, ran[by[0]] if len(by) == 1 else None, values.get(ch))
                )
            except ValueError as exc:  # a token count past float range
                raise TraceFormatError(
                    f"channel {ch!r}: {exc}", source=self.source, path=c.where
                ) from None
        self._fail_rest(p, [t.name for t in tasks], unresolved)
        self.unresolved[c.id] = unresolved

    def _fail_rest(self, p: Checkpoint, ran: list[str | None], unresolved: dict[str, str]) -> None:
        """Tasks of ``p`` that failed or waited and did not run again in this superstep: failures that stand."""
        for task in p.tasks:
            if (
                (task.error or task.interrupts)
                and task.name not in ran
                and (p.id, task.id) not in self.emitted
            ):
                node = task.name or self._trigger_name(p, task, ran) or f"task {task.id[:8]}"
                sid = self._new_step(
                    node, _action(node, None if p.step is None else p.step + 1), p, unresolved
                )
                self._depend(sid, p, None, node)
                self.actions.append(Action(self._time(p), "start", sid))
                self._wait_or_error(sid, task, self._time(p), resumed=False)
                self.fails_at[p.id].append(sid)
                unresolved[node] = sid
            self.emitted.add((p.id, task.id))

    def _trigger_name(self, p: Checkpoint, task: Task, ran: list[str | None]) -> str | None:
        """The node a failed task that names none ran: the one node ``p`` scheduled (``branch:to:X``) that no other
        task of ``p`` and no run of the superstep accounts for."""
        claimed = {t.name for t in p.tasks if t is not task} | set(ran)
        left = [n for n in p.next or () if n not in claimed]
        return left[0] if len(left) == 1 else None

    def _after_turn(self, sid: str, p: Checkpoint) -> None:
        """A new input or state update follows the previous turn: it depends on that turn's last step(s)."""
        node: Checkpoint | None = p
        seen: set[str] = set()
        while node is not None and node.id not in seen:
            seen.add(node.id)
            last = [u for u in self.at.get(node.id, ()) if u != sid]
            if last:
                self.steps[sid].deps.update(dict.fromkeys(last))
                return
            node = self.by_id.get(node.parent) if node.parent else None

    def _span(self, d: float) -> str:
        return f"{d:.3g} s" if self.timed else f"{d:g} checkpoint(s)"

    def _wait_or_error(self, sid: str, task: Task, t: float, resumed: bool) -> None:
        if resumed:  # started with the others, stopped, then re-run when resumed
            self.actions.append(Action(t, "start", sid, rank=4.0))
        if task.error:
            obs = Observation(
                False,
                kind="tool_error",
                data={"message": task.error, "error": task.error, "task_id": task.id},
            )
            self.actions.append(Action(t, "finish", sid, obs, rank=4.5))
            self.failed.add(sid)
            return
        value = json.dumps(task.interrupts[0], ensure_ascii=False, default=str)[:80]
        self.waits[sid] = (len(self.actions), t, f"{sid!r} waits for input (interrupt {value})")
        self.actions.append(
            Action(
                t, "wait", sid, self.waits[sid][2] + ": not resumed when the history ends", rank=4.5
            )
        )

    def _resume(self, sid: str, t: float) -> str:
        """The message of a waiting step's resumption at ``t``; the wait's own message gets its length too."""
        index, since, message = self.waits.pop(sid)
        waited = self._span(t - since)
        self.actions[index] = self.actions[index]._replace(
            payload=f"{message}: resumed {waited} later"
        )
        return f"{sid!r} resumed after waiting {waited} for input"

    def _run_step(
        self,
        sid: str,
        start: float,
        end: float,
        facts: dict[str, None],
        replaced: set[str],
        data: dict[str, Any] | None = None,
        resumed: bool = False,
    ) -> None:
        step = self.steps[sid]
        step.facts.update(facts)
        rank = None
        # stopped in this very superstep and resumed: re-run just before the next checkpoint
        if resumed:
            message = (
                self._resume(sid, end) if sid in self.waits else f"{sid!r} runs again (resumed)"
            )
            # no time passed: after its stop (rank 4.5, at the same instant), never before its first start
            ranks = (4.6, 4.7, 4.8) if end <= start else (0.1, 0.2, 0.3)
            self.actions.append(Action(end, "retry", sid, message, rank=ranks[0]))
            self.actions.append(Action(end, "start", sid, rank=ranks[1]))
            rank = ranks[2]
        else:
            # it waited for input at an earlier checkpoint: this run is its resumption
            if sid in self.waits:
                self.actions.append(Action(start, "retry", sid, self._resume(sid, start)))
            elif sid in self.failed:  # it failed at an earlier checkpoint: this run is its retry
                self.actions.append(Action(start, "retry", sid, f"{sid!r} runs again"))
            self.actions.append(Action(start, "start", sid))
            # no time passed: the ending follows the beginning, never the other way round
            if end <= start:
                rank = 4.2
        step.duration = max(end - start, 0.0)
        obs = Observation(
            True,
            frozenset(facts),
            data={k: v for k, v in (data or {}).items() if v},
            replaced=frozenset(replaced.difference(facts)),
        )
        self.actions.append(Action(end, "finish", sid, obs, rank=rank))

    # -- dependencies and facts ----------------------------------------------------------------------------

    def _depend(self, sid: str, p: Checkpoint, c: Checkpoint | None, node: str) -> None:
        step = self.steps[sid]
        groups: list[list[str]] = []
        if c is not None and p.seen is not None and c.seen is not None:
            before = p.seen.get(node, {})
            for ch, version in sorted(c.seen.get(node, {}).items()):
                if before.get(ch) != version and (ch, str(version)) in self.born:
                    q = self.born[(ch, str(version))]
                    groups.append([s for s in self.at.get(q, ()) if s != sid])
        else:
            groups.append([s for s in self.at.get(p.id, ()) if s != sid])
        for group in groups:
            for u in group:
                step.deps[u] = None
                if len(group) > 1:
                    step.inferred.add(u)

    def _writers(
        self, p: Checkpoint, c: Checkpoint, tasks: list[Task]
    ) -> dict[str, set[str]] | None:
        """Which channels each node of the superstep wrote, when the record says; None when it does not."""
        if c.node_writes is not None and all(t.name in c.node_writes for t in tasks):
            return {n: set(w) if isinstance(w, dict) else set() for n, w in c.node_writes.items()}
        if (
            tasks
            and all(t.writes is not None and t.name for t in tasks)
            and len({t.name for t in tasks}) == len(tasks)
        ):
            return {self._node(t, c): {ch for ch, _ in t.writes or ()} for t in tasks}
        return (
            None
            if len(tasks) > 1
            else {self._node(t, c): set(c.values) | set(p.values) for t in tasks}
        )

    def _written(self, p: Checkpoint, c: Checkpoint) -> list[tuple[str, Any]]:
        """The channels ``c`` wrote: ``(channel, value)`` where its value is not ``p``'s, in channel order (each
        value compared once; the facts and the model calls both read this)."""
        before = p.values
        return [(ch, v) for ch, v in c.values.items() if ch not in before or before[ch] != v]

    def _facts(self, written: list[tuple[str, Any]]) -> dict[str, None]:
        """The facts of the channels written, as an ordered set in channel order: sorting them later walks the
        strings in the order they were made (a set in hash order costs several times more per fact at 100k
        channels; issue 28)."""
        return {fact_of(ch, v): None for ch, v in written}

    def _replaced(self, p: Checkpoint, c: Checkpoint, written: list[tuple[str, Any]]) -> set[str]:
        """The facts of ``p`` that ``c`` no longer holds: the old values of the channels written, and of those it
        dropped (cleared): an update of the state, not a withdrawn fact."""
        before, after = p.values, c.values
        gone = {fact_of(ch, before[ch]) for ch, _ in written if ch in before}
        gone.update(fact_of(ch, v) for ch, v in before.items() if ch not in after)
        return gone

    # -- the run ------------------------------------------------------------------------------------------

    def _tag(self, since: int, segment: int) -> None:
        """The actions from ``since`` on belong to ``segment``: branch ``j`` (0 the first) is segment ``2j``, the
        fork that starts it ``2j - 1``, so at one instant what a branch recorded is played before the fork that
        abandons it, in its own plan version, and the new branch's after it (playback orders equal times
        by segment)."""
        actions = self.actions
        for i in range(since, len(actions)):
            actions[i] = actions[i]._replace(segment=segment)

    def run(self) -> Run:
        previous = None
        head: Checkpoint | None = None
        segment_of: dict[str, int] = {}  # checkpoint -> the segment of its branch
        for c in self.order:
            since = len(self.actions)
            p = self.by_id.get(c.parent) if c.parent is not None else None
            for ch, version in (c.versions or {}).items():
                self.born.setdefault((ch, str(version)), c.id)
            if p is None:
                self.branch[c.id] = self._next_branch()
                if self.branch[c.id] > 1:
                    self.forks.append((c.id, self.branch[c.id]))
                self.unresolved[c.id] = {}
            else:
                first = self.first_child.setdefault(p.id, c.id) == c.id
                self.branch[c.id] = self.branch[p.id] if first else self._next_branch()
                if not first:
                    self.forks.append((c.id, self.branch[c.id]))
                start = (
                    self._time(p)
                    if first or previous is None
                    else max(self._time(p), self._time(previous))
                )
                if c.source == "fork":  # a copy of a checkpoint, made at that moment
                    start = self._time(c)
                self.started_at[c.id] = start
                self._superstep(p, c, start)
            segment_of[c.id] = 2 * len(self.forks)
            self._tag(since, segment_of[c.id])
            previous = head = c
            self.members[self.branch[c.id]].append(c.id)
        for c in self.order:  # failures and waits where a branch ended
            if c.id not in self.first_child:
                since = len(self.actions)
                self._fail_rest(c, [], self.unresolved.setdefault(c.id, {}))
                self._tag(since, segment_of[c.id])
        if head is None:  # __init__ has read order[0]: never reached
            raise TraceFormatError("no checkpoints", source=self.source)
        run = self._play(head)
        run = replace(run, model_calls=tuple(self.calls)) if self.calls else run
        said = thread_turns(self._lineage(head))
        return replace(run, turns=said) if said else run
