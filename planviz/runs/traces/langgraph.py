"""LangGraph state histories and checkpoint tuples as planviz runs.

A LangGraph run is a tree of checkpoints, one per superstep; :func:`run_of_history`
replays it through the run state machine:

- every node run between two checkpoints is a step (id: the node name,
  ``name#2``... when it ran again), started at the parent checkpoint's time
  and finished at the child's; ``update_state`` and new inputs are steps too
  (``update``, ``input``);
- the graph's state channels become facts, ``"channel = value"`` (the value
  shortened); a write replaces the channel's previous fact;
- dependencies come from ``versions_seen`` (the channel versions that
  triggered a node, traced to the superstep that wrote them) or, in state
  snapshots, from the supersteps (a node depends on the nodes of the
  superstep before it). When a superstep ran several nodes and the record
  does not say which one wrote what, every candidate is linked and the edges
  are listed as inferred (``inferred_dependency``, drawn dashed);
- a task error fails its step; an interrupt is a wait: the step fails with
  category ``interrupt`` ("waits for input") and, when the run was resumed,
  is retried and completes (LangGraph re-runs an interrupted node); a run that
  ends at an interrupt is unfinished (no stop event, outcome None);
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
from dataclasses import dataclass, field
from typing import Any

from ...plan.bulk import paused_gc
from ...plan.model import Finding, Plan, Step
from .checkpoints import Checkpoint, Task, history_of
from ..events import Observation, Run
from ..playback import Action, play

__all__ = ["run_of_history", "fact_of", "TITLE", "detect", "read"]

TITLE = "LangGraph"
_KEYS = re.compile(r'"(channel_values|versions_seen|pending_writes|parent_config|checkpoint_ns|configurable|'
                   r'checkpoint_id)"\s*:')


def detect(sample: Any) -> float:
    """How surely a sample is a LangGraph history: its keys (the earlier the first one, the surer)."""
    if sample.parsed:
        return 0.9 if _is_history(sample.data) else 0.0
    found = _KEYS.search(sample.text)
    return 0.0 if found is None else 0.8 - 0.1 * found.start() / (len(sample.text) + 1)


def _is_history(data: Any) -> bool:
    items = data
    if isinstance(data, dict):
        items = next((data[k] for k in ("history", "checkpoints", "snapshots", "states")
                      if isinstance(data.get(k), list)), [data])
    first = items[0] if isinstance(items, list) and items else None
    if isinstance(first, dict):
        return "checkpoint" in first or ("config" in first and ("values" in first or "metadata" in first))
    return isinstance(first, list) and len(first) >= 4 and isinstance(first[2], dict) and "configurable" in first[2]


def read(doc: Any) -> Run:
    """The run of a LangGraph history (JSON: state snapshots or checkpoint tuples)."""
    return run_of_history(doc.data(), doc.name)

def fact_of(channel: str, value: Any) -> str:
    """The fact a state channel's value stands for: ``channel = value``, the value as short JSON.

    >>> fact_of("docs", ["doc1", "doc2"])
    'docs = ["doc1", "doc2"]'
    """
    text = json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)
    return f"{channel} = {text if len(text) <= 60 else text[:59] + '…'}"


def _finding(code: str, message: str, steps=(), edges=(), where: str = "") -> Finding:
    return Finding(code, "import", "warning", message, tuple(steps), tuple(edges), where)


@dataclass
class _Step:
    sid: str
    node: str
    action: str
    deps: dict = field(default_factory=dict)
    inferred: set = field(default_factory=set)
    facts: set = field(default_factory=set)
    branch: int = 1
    revises: str | None = None


def run_of_history(data: Any, source: str = "<history>") -> Run:
    """The recorded :class:`~planviz.Run` of a LangGraph history (snapshots or checkpoint tuples, any order)."""
    with paused_gc():  # hundreds of thousands of small acyclic objects: no full collections while they pile up
        return _Builder(*history_of(data, source), source).run()


class _Builder:
    def __init__(self, order: list[Checkpoint], findings: list[Finding], source: str) -> None:
        self.source = source
        self.findings = findings
        self.order = order
        self.thread = next((c.thread for c in order if c.thread is not None), None)
        self.by_id = {c.id: c for c in order}
        self.position = {c.id: i for i, c in enumerate(self.order)}
        self.timed = all(c.time is not None for c in self.order)
        if not self.timed:
            self.findings.append(_finding("no_timestamps", "some checkpoints carry no time: the run's clock counts "
                                          "checkpoints instead of seconds"))
        self.t0 = self.order[0].time if self.timed else 0.0
        self.steps: dict[str, _Step] = {}
        self.names: Counter[str] = Counter()
        self.at: dict[str, list[str]] = defaultdict(list)  # checkpoint -> steps of the superstep ending there
        self.fails_at: dict[str, list[str]] = defaultdict(list)  # checkpoint -> steps that failed/waited there
        self.unresolved: dict[str, dict[str, str]] = {}  # checkpoint -> node -> its failed step awaiting a retry
        self.branch: dict[str, int] = {}
        self.first_child: dict[str, str] = {}
        self.born: dict[tuple[str, str], str] = {}  # (channel, version) -> checkpoint where it first appears
        self.actions: list[Action] = []
        self.forks: list[tuple[str, int]] = []  # (first checkpoint of the branch, version)
        self.emitted: set[tuple[str, str]] = set()
        self.failed: set[str] = set()  # steps with a failure or wait recorded
        self.started_at: dict[str, float] = {}  # checkpoint -> when the superstep leading to it started
        self.branches = 0  # branches numbered so far
        self.members: dict[int, list[str]] = defaultdict(list)  # branch -> its checkpoints, in order

    def _next_branch(self) -> int:
        self.branches += 1
        return self.branches

    def _time(self, c: Checkpoint) -> float:
        return (c.time - self.t0) if self.timed else float(self.position[c.id])

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

    def _names_ran(self, p: Checkpoint, c: Checkpoint) -> list[Task]:
        """The tasks of the superstep from ``p`` to ``c``, named where the record allows."""
        if p.seen is not None and c.seen is not None:
            ran = [n for n, seen in c.seen.items() if n not in ("__input__", "__interrupt__")
                   and seen != p.seen.get(n)]
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
        if c.source in ("update", "input", "fork"):
            what = ", ".join(sorted(c.node_writes or {})) or c.source
            sid = self._new_step(c.source, f"{c.source}: state written by the user ({what})"
                                 if c.source != "input" else "input: a new input to the graph", c, unresolved)
            self._run_step(sid, start, end, facts=self._facts(p, c), withdrawn=self._withdrawn(p, c))
            self.at[c.id].append(sid)
            self._fail_rest(p, [], unresolved)
            self.unresolved[c.id] = unresolved
            return
        tasks = self._names_ran(p, c)
        writers = self._writers(p, c, tasks)
        facts, withdrawn = self._facts(p, c), self._withdrawn(p, c)
        ambiguous = writers is None and len(tasks) > 1 and facts
        if ambiguous:
            self.findings.append(_finding("ambiguous_writer", f"checkpoint {c.where}: the superstep ran "
                                          f"{', '.join(t.name for t in tasks)} and the record does not say which "
                                          f"wrote {', '.join(sorted({f.split(' = ')[0] for f in facts}))}; each is "
                                          "credited with all of it", where=c.where))
        for i, task in enumerate(tasks):
            sid = self._new_step(task.name, f"run node {task.name}", c, unresolved)
            self._depend(sid, p, c, task.name)
            mine = facts if writers is None else {f for f in facts if f.split(" = ")[0] in writers.get(task.name, ())}
            if task.error or task.interrupts:
                self._wait_or_error(sid, task, self._time(p), resumed=True)
            self._run_step(sid, start, end, mine, withdrawn if i == 0 else set(),
                           data={"task_id": task.id, "checkpoint": c.id}, resumed=bool(task.error or task.interrupts))
            self.at[c.id].append(sid)
        self._fail_rest(p, [t.name for t in tasks], unresolved)
        self.unresolved[c.id] = unresolved

    def _fail_rest(self, p: Checkpoint, ran: list, unresolved: dict) -> None:
        """Tasks of ``p`` that failed or waited and did not run again in this superstep: failures that stand."""
        for task in p.tasks:
            if (task.error or task.interrupts) and task.name not in ran and (p.id, task.id) not in self.emitted:
                node = task.name or f"task {task.id[:8]}"
                sid = self._new_step(node, f"run node {node}", p, unresolved)
                self._depend(sid, p, None, node)
                self.actions.append(Action(self._time(p), "start", sid))
                self._wait_or_error(sid, task, self._time(p), resumed=False)
                self.fails_at[p.id].append(sid)
                unresolved[node] = sid
            self.emitted.add((p.id, task.id))

    def _wait_or_error(self, sid: str, task: Task, t: float, resumed: bool) -> None:
        if task.error:
            message, category = f"{sid!r} failed: {task.error}", "tool_error"
        else:
            value = json.dumps(task.interrupts[0], ensure_ascii=False, default=str)[:80]
            message, category = f"{sid!r} waits for input (interrupt {value})", "interrupt"
        if resumed:  # started with the others, stopped, then re-run when resumed
            self.actions.append(Action(t, "start", sid, rank=4.0))
        self.actions.append(Action(t, "fail", sid, (message, category), rank=4.5))
        self.failed.add(sid)

    def _run_step(self, sid: str, start: float, end: float, facts: set, withdrawn: set, data: dict | None = None,
                  resumed: bool = False) -> None:
        step = self.steps[sid]
        step.facts |= facts
        rank = None
        if resumed:  # stopped in this very superstep and resumed: re-run just before the next checkpoint
            self.actions.append(Action(end, "retry", sid, f"{sid!r} runs again (resumed)", rank=0.1))
            self.actions.append(Action(end, "start", sid, rank=0.2))
            rank = 0.3
        else:
            if sid in self.failed:  # it failed or waited at an earlier checkpoint: this run is its retry
                self.actions.append(Action(start, "retry", sid, f"{sid!r} runs again"))
            self.actions.append(Action(start, "start", sid))
        obs = Observation(True, facts, withdrawn - facts, data={k: v for k, v in (data or {}).items() if v})
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

    def _writers(self, p: Checkpoint, c: Checkpoint, tasks: list[Task]) -> dict[str, set] | None:
        """Which channels each node of the superstep wrote, when the record says; None when it does not."""
        if c.node_writes is not None and all(t.name in c.node_writes for t in tasks):
            return {n: set(w) if isinstance(w, dict) else set() for n, w in c.node_writes.items()}
        if tasks and all(t.writes is not None and t.name for t in tasks) and len({t.name for t in tasks}) == len(tasks):
            return {t.name: {ch for ch, _ in t.writes} for t in tasks}
        return None if len(tasks) > 1 else {t.name: set(c.values) | set(p.values) for t in tasks}

    def _facts(self, p: Checkpoint, c: Checkpoint) -> set[str]:
        return {fact_of(ch, v) for ch, v in c.values.items() if ch not in p.values or p.values[ch] != v}

    def _withdrawn(self, p: Checkpoint, c: Checkpoint) -> set[str]:
        return {fact_of(ch, v) for ch, v in p.values.items() if ch not in c.values or c.values[ch] != v}

    # -- the run ------------------------------------------------------------------------------------------

    def run(self) -> Run:
        previous = None
        head: Checkpoint | None = None
        for c in self.order:
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
                start = self._time(p) if first or previous is None else max(self._time(p), self._time(previous))
                if c.source in ("update", "input", "fork"):  # the user wrote the state at that moment
                    start = self._time(c)
                self.started_at[c.id] = start
                self._superstep(p, c, start)
            previous = head = c
            self.members[self.branch[c.id]].append(c.id)
        for c in self.order:  # failures and waits where a branch ended
            if c.id not in self.first_child:
                self._fail_rest(c, [], self.unresolved.setdefault(c.id, {}))
        return self._play(head)

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

    def _plan(self, ids: list[str], goal: str, premises: list[str]) -> Plan:
        members = set(ids)
        inferred = sorted((u, s) for s in ids for u in self.steps[s].inferred if u in members)
        findings = list(self.findings)
        if inferred:
            findings.append(_finding("inferred_dependency", f"{len(inferred)} dependencies inferred: a node's trigger "
                                     "was written in a superstep that ran several nodes, and the record does not "
                                     "say which; every candidate is linked", edges=inferred))
        steps = []
        for sid in ids:
            s = self.steps[sid]
            steps.append(Step(sid, s.action, expected_evidence="the node returns its state update",
                              depends_on=[u for u in s.deps if u in members], produces=sorted(s.facts), tool=s.node,
                              revises=s.revises))
        return Plan(goal, steps, premises=premises, time_unit="s" if self.timed else "checkpoint",
                    import_findings=tuple(findings), name=f"thread {self.thread}" if self.thread else "")

    def _play(self, head: Checkpoint) -> Run:
        root = self.order[0]
        premises = sorted(fact_of(ch, v) for ch, v in root.values.items())
        thread = root.thread or "?"
        given = root.node_writes or {}
        goal = f"LangGraph run (thread {thread})" + (f": input {json.dumps(given, default=str)[:100]}" if given else "")
        plan = self._plan(self._plan_steps(self._chain_end(root.id), 1), goal, premises)
        current = plan
        for cid, version in self.forks:
            c = self.by_id[cid]
            ids = self._plan_steps(self._chain_end(cid), version)
            kept, before = set(ids), set(current.ids)
            voided = [s for s in current.ids if s not in kept]
            twins: dict[str, str] = {}
            for v in voided:
                twins.setdefault(self.steps[v].node, v)
            for sid in ids:
                twin = twins.get(self.steps[sid].node)
                if sid not in before and twin and self.steps[sid].revises is None:
                    self.steps[sid].revises = twin
            new = self._plan(ids, goal, premises).replace(version=current.version + 1, parent=current,
                                                          trigger=f"fork at checkpoint {c.parent or c.id} "
                                                                  f"({c.source})", invalidated=tuple(voided))
            t = self.started_at.get(cid, self._time(c))
            if voided:
                self.actions.append(Action(t, "invalidate", None, (voided, f"fork: the branch after checkpoint "
                                                                   f"{c.parent} is abandoned")))
            self.actions.append(Action(t, "replan", None, (new, f"plan v{new.version}: a new branch from checkpoint "
                                                          f"{c.parent} ({c.source})")))
            current = new
        stop = self._outcome(head)
        if stop is not None:
            self.actions.append(Action(self._time(head), "stop", None, stop))
        return play(plan, self.actions)

    def _chain_end(self, cid: str) -> str:
        while cid in self.first_child:
            cid = self.first_child[cid]
        return cid

    def _outcome(self, head: Checkpoint) -> tuple[str, str] | None:
        waiting = [t for t in head.tasks if t.interrupts and not t.error]
        failed = [t for t in head.tasks if t.error]
        if failed:
            return "step_failed", f"the run stopped at checkpoint {head.id}: {failed[0].name or failed[0].id} failed"
        if waiting or head.next:
            return None  # paused at an interrupt, or the history ends before the graph did: unfinished
        return "plan_complete", f"the graph reached its end at checkpoint {head.id}"
