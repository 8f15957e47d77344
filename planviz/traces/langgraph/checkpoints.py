"""LangGraph checkpoints as planviz reads them: state snapshots and raw checkpoint tuples, one shape.

LangGraph persists a run as checkpoints, one per superstep. Two exports are common:

- ``graph.get_state_history(config)`` as JSON: **StateSnapshots** (``values``,
  ``next``, ``config``, ``metadata`` {``source``, ``step``, ``writes``},
  ``created_at``, ``parent_config``, ``tasks`` [{``id``, ``name``,
  ``error``, ``interrupts``}]), as objects or as the arrays a NamedTuple
  dumps to;
- a checkpointer's **CheckpointTuples** (``config``, ``checkpoint`` {``id``,
  ``ts``, ``channel_values``, ``channel_versions``, ``versions_seen``},
  ``metadata``, ``parent_config``, ``pending_writes`` [[task id, channel,
  value]]).

:func:`checkpoint_of` turns either into a :class:`Checkpoint` (what a run
needs, every field it reads checked: a bad one is a
:class:`~planviz.errors.TraceFormatError` naming the record and the field).
LangGraph's own channels (``branch:to:X``, ``__start__``, ``__interrupt__``...)
are kept apart from the state's channels.

>>> c = checkpoint_of({"values": {"foo": "a"}, "next": ["node_b"], "config": {"configurable": {"thread_id": "1",
...     "checkpoint_id": "c1"}}, "metadata": {"source": "loop", "step": 1}, "created_at": "2024-08-29T19:19:38+00:00",
...     "tasks": [{"id": "t1", "name": "node_b", "error": None, "interrupts": []}]}, 0, "h.json")
>>> c.id, c.step, c.values, [t.name for t in c.tasks]
('c1', 1, {'foo': 'a'}, ['node_b'])
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from planviz.errors import TraceFormatError
from planviz.io import limits
from planviz.io.plaindata import iso_nanos
from planviz.io.syntax import show_value
from planviz.plan.model import Finding

__all__ = ["Checkpoint", "Task", "checkpoint_of", "history_of", "is_internal", "SNAPSHOT_FIELDS"]

_LISTS = ("history", "checkpoints", "snapshots", "states")

SNAPSHOT_FIELDS = (
    "values",
    "next",
    "config",
    "metadata",
    "created_at",
    "parent_config",
    "tasks",
    "interrupts",
)
TASK_FIELDS = ("id", "name", "path", "error", "interrupts", "state", "result")
NULL_TASK = "00000000-0000-0000-0000-000000000000"


def is_internal(channel: str) -> bool:
    """LangGraph's own channels (triggers, branches, joins, interrupts), not the graph's state.

    >>> [is_internal(c) for c in ("query", "branch:to:qa", "__start__", "__root__", "start:agent")]
    [False, True, True, False, True]
    """
    return channel != "__root__" and (channel.startswith("__") or ":" in channel)


@dataclass
class Task:
    """One task (a node's run) a checkpoint scheduled: its id, node name (None when the record does not say),
    error, interrupt values, whether it was resumed, and its writes (channel, value) when recorded."""

    id: str
    name: str | None
    error: str | None = None
    interrupts: list[Any] = field(default_factory=list)
    resumed: bool = False
    writes: list[tuple[str, Any]] | None = None


@dataclass
class Checkpoint:
    """One checkpoint, whichever export it came from."""

    id: str
    parent: str | None
    thread: str | None
    namespace: str
    step: int | None
    # nanoseconds since the epoch: exact, so two checkpoints a microsecond apart stay one apart
    time: int | None
    source: str
    values: dict[str, Any]
    # the nodes scheduled next (snapshots: ``next``; tuples: ``branch:to:X`` triggers)
    next: tuple[str, ...] | None
    tasks: list[Task]
    node_writes: dict[str, Any] | None  # metadata.writes: node -> its writes (older LangGraph)
    seen: dict[str, dict[str, Any]] | None  # versions_seen: node -> {channel: version}
    versions: dict[str, Any] | None  # channel_versions
    where: str
    index: int
    late: int | None = (
        None  # its own time, when it is older than a checkpoint written before it (then time is that one's)
    )


def _get(
    record: Any,
    key: str,
    where: str,
    source: str,
    kind: type | tuple[type, ...] = dict,
    required: bool = True,
) -> Any:
    value = record.get(key) if isinstance(record, dict) else None
    if value is None and not required:
        return None
    if (
        not isinstance(value, kind)
        or isinstance(value, bool)
        and bool not in (kind if isinstance(kind, tuple) else (kind,))
    ):
        raise TraceFormatError(
            f"expected {_kind(kind)}, got {show_value(value)}",
            source=source,
            path=where + "." + key,
        )
    return value


def _kind(kind: type | tuple[type, ...]) -> str:
    names = {dict: "an object", list: "a list", str: "a string", int: "an integer"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _config_id(
    config: Any, where: str, source: str, required: bool
) -> tuple[str | None, str | None, str]:
    """(checkpoint_id, thread_id, checkpoint_ns) of a RunnableConfig."""
    if config is None and not required:
        return None, None, ""
    conf = _get({"config": config}, "config", where, source)
    configurable = _get(conf, "configurable", f"{where}.config", source)
    cid = _get(configurable, "checkpoint_id", f"{where}.config.configurable", source, str, required)
    thread = configurable.get("thread_id")
    ns = configurable.get("checkpoint_ns") or ""
    return cid, None if thread is None else str(thread), ns if isinstance(ns, str) else str(ns)


def _time(value: Any, where: str, source: str) -> int | None:
    if value is None:
        return None
    nanos = iso_nanos(value) if isinstance(value, str) else None
    if nanos is not None:
        return nanos
    raise TraceFormatError(
        f"expected an ISO 8601 time, got {show_value(value)}", source=source, path=where
    )


def _task(raw: Any, where: str, source: str) -> Task:
    if isinstance(raw, list):
        raw = dict(zip(TASK_FIELDS, raw))
    if not isinstance(raw, dict):
        raise TraceFormatError(
            f"expected a task object, got {show_value(raw)}", source=source, path=where
        )
    tid = raw.get("id")
    name = raw.get("name")
    if not isinstance(tid, str) or not isinstance(name, str):
        raise TraceFormatError(
            f"expected a task with string id and name, got id {show_value(tid)}, "
            f"name {show_value(name)}",
            source=source,
            path=where,
        )
    interrupts = raw.get("interrupts") or []
    if not isinstance(interrupts, list):
        raise TraceFormatError(
            f"expected a list, got {show_value(interrupts)}",
            source=source,
            path=f"{where}.interrupts",
        )
    error = raw.get("error")
    return Task(
        tid, name, None if error in (None, "") else str(error), [_interrupt(i) for i in interrupts]
    )


def _interrupt(raw: Any) -> Any:
    if isinstance(raw, dict):
        return raw.get("value", raw)
    if isinstance(raw, list) and raw:  # Interrupt(value, ...) dumped as an array
        return raw[0]
    return raw


def checkpoint_of(raw: Any, index: int, source: str) -> Checkpoint:
    """The :class:`Checkpoint` of one record: a StateSnapshot (object or array) or a CheckpointTuple."""
    where = f"[{index}]"
    _check_depth(raw, where, source)
    if isinstance(raw, list) and 7 <= len(raw) <= 8:
        raw = dict(zip(SNAPSHOT_FIELDS, raw))
    if not isinstance(raw, dict) or not ("config" in raw or "checkpoint" in raw):
        raise TraceFormatError(
            f"expected a state snapshot (values, next, config, ...) or checkpoint tuple "
            f"(config, checkpoint, ...) object, got {show_value(raw)}",
            source=source,
            path=where,
        )
    metadata = _get(raw, "metadata", where, source, required=False) or {}
    step = metadata.get("step")
    # a bool, no integer, or one past float range
    if step is not None and limits.read_int(step) is None:
        raise TraceFormatError(
            f"expected an integer within float range, got {show_value(step)}",
            source=source,
            path=f"{where}.metadata.step",
        )
    src = metadata.get("source") or "loop"
    parent, _, _ = _config_id(
        raw.get("parent_config"), f"{where}.parent_config", source, required=False
    )
    node_writes = metadata.get("writes") if isinstance(metadata.get("writes"), dict) else None
    if "checkpoint" in raw:
        return _tuple(raw, where, index, source, step, str(src), parent, node_writes)
    cid, thread, ns = _config_id(raw.get("config"), where, source, required=True)
    if cid is None:  # required: _config_id has already refused a missing id
        raise TraceFormatError(
            "expected a checkpoint_id", source=source, path=f"{where}.config.configurable"
        )
    values = raw.get("values")
    values = (
        values if isinstance(values, dict) else ({} if values is None else {"__root__": values})
    )
    nxt = raw.get("next")
    if nxt is not None and (not isinstance(nxt, list) or not all(isinstance(n, str) for n in nxt)):
        raise TraceFormatError(
            f"expected a list of node names, got {show_value(nxt)}",
            source=source,
            path=f"{where}.next",
        )
    tasks_raw = raw.get("tasks") or []
    if not isinstance(tasks_raw, list):
        raise TraceFormatError(
            f"expected a list of tasks, got {show_value(tasks_raw)}",
            source=source,
            path=f"{where}.tasks",
        )
    tasks = [_task(t, f"{where}.tasks[{i}]", source) for i, t in enumerate(tasks_raw)]
    if not tasks and nxt:
        tasks = [Task(f"{cid}:{n}", n) for n in nxt]
    return Checkpoint(
        cid,
        parent,
        thread,
        ns,
        step,
        _time(raw.get("created_at"), f"{where}.created_at", source),
        str(src),
        {k: v for k, v in values.items() if not is_internal(k)},
        tuple(nxt) if nxt is not None else None,
        tasks,
        node_writes,
        None,
        None,
        where,
        index,
    )


def _tuple(
    raw: dict[str, Any],
    where: str,
    index: int,
    source: str,
    step: int | None,
    src: str,
    parent: str | None,
    node_writes: dict[str, Any] | None,
) -> Checkpoint:
    cp = _get(raw, "checkpoint", where, source)
    cid, thread, ns = _config_id(raw.get("config"), where, source, required=False)
    cid = cid or _get(cp, "id", f"{where}.checkpoint", source, str)
    values = _get(cp, "channel_values", f"{where}.checkpoint", source, required=False) or {}
    versions = _get(cp, "channel_versions", f"{where}.checkpoint", source, required=False)
    seen = _get(cp, "versions_seen", f"{where}.checkpoint", source, required=False)
    for node, chans in (seen or {}).items():
        if not isinstance(chans, dict):
            raise TraceFormatError(
                f"expected an object of channel -> version, got {show_value(chans)}",
                source=source,
                path=f"{where}.checkpoint.versions_seen.{node}",
            )
    writes = raw.get("pending_writes") or []
    if not isinstance(writes, list):
        raise TraceFormatError(
            f"expected a list of [task id, channel, value], got {show_value(writes)}",
            source=source,
            path=f"{where}.pending_writes",
        )
    tasks: dict[str, Task] = {}
    for i, w in enumerate(writes):
        if (
            not isinstance(w, list)
            or len(w) != 3
            or not isinstance(w[0], str)
            or not isinstance(w[1], str)
        ):
            raise TraceFormatError(
                f"expected [task id, channel, value], got {show_value(w)}",
                source=source,
                path=f"{where}.pending_writes[{i}]",
            )
        tid, channel, value = w
        if tid == NULL_TASK:
            continue
        task = tasks.setdefault(tid, Task(tid, None, writes=[]))
        if channel == "__error__":
            task.error = str(value)
        elif channel == "__interrupt__":
            for item in value if isinstance(value, list) else [value]:
                task.interrupts.append(_interrupt(item))
                ns_list = item.get("ns") if isinstance(item, dict) else None
                if (
                    isinstance(ns_list, list)
                    and ns_list
                    and isinstance(ns_list[0], str)
                    and ":" in ns_list[0]
                ):
                    # the interrupt names its node: "qa:<task id>"
                    task.name = ns_list[0].split(":", 1)[0]
        elif channel == "__resume__":
            task.resumed = True
        else:
            if task.writes is None:  # made with writes=[] above; restated for the type checker
                task.writes = []
            task.writes.append((channel, value))
    if not isinstance(values, dict):
        raise TraceFormatError(
            f"expected an object of channel -> value, got {show_value(values)}",
            source=source,
            path=f"{where}.checkpoint.channel_values",
        )
    scheduled = tuple(sorted({node for k in values if (node := _trigger_target(k)) is not None}))
    _name_from_triggers(list(tasks.values()), scheduled)
    # channels named after nodes were triggers
    old_layout = isinstance(cp.get("v"), int) and cp["v"] < 3 and seen
    return Checkpoint(
        cid,
        parent,
        thread,
        ns,
        step,
        _time(cp.get("ts"), f"{where}.checkpoint.ts", source),
        src,
        {k: v for k, v in values.items() if not is_internal(k) and not (old_layout and k in seen)},
        scheduled,
        list(tasks.values()),
        node_writes,
        seen,
        versions if isinstance(versions, dict) else None,
        where,
        index,
    )


def _name_from_triggers(tasks: list[Task], scheduled: tuple[str, ...]) -> None:
    """Name the one task whose writes name no node (a failed task: its only write is ``__error__``) after the
    one scheduled node no named task claims: ``branch:to:triage`` scheduled it, so it ran ``triage``."""
    unnamed = [t for t in tasks if t.name is None]
    unclaimed = [n for n in scheduled if n not in {t.name for t in tasks}]
    if len(unnamed) == 1 and len(unclaimed) == 1:
        unnamed[0].name = unclaimed[0]


def _check_depth(raw: Any, where: str, source: str) -> None:
    """Refuse a record nested deeper than :data:`planviz.io.limits.MAX_DEPTH` (its values become facts,
    written out as JSON): one pass, no recursion."""
    stack = [(raw, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > limits.MAX_DEPTH:
            raise TraceFormatError(
                f"nesting deeper than {limits.MAX_DEPTH} levels; {limits.raise_hint('MAX_DEPTH')}",
                source=source,
                path=where,
            )
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend((v, depth + 1) for v in value)


def _trigger_target(channel: str) -> str | None:
    """The node a trigger channel schedules: ``branch:to:X`` (checkpoints v3, v4), ``start:X`` and
    ``branch:source:condition:X`` (v1, v2); None for any other channel."""
    if channel.startswith("branch:to:"):
        return channel[len("branch:to:") :] or None
    if channel.startswith("start:"):
        return channel[len("start:") :] or None
    if channel.startswith("branch:") and channel.count(":") == 3:
        return channel.rsplit(":", 1)[1] or None
    return None


def _finding(code: str, message: str, where: str = "") -> Finding:
    return Finding(code, "import", "warning", message, (), (), where)


def history_of(data: Any, source: str = "<history>") -> tuple[list[Checkpoint], list[Finding]]:
    """The checkpoints of one thread in the order they were written (parents first), and what was odd.

    ``data`` is a list of records, or an object holding one under ``history``,
    ``checkpoints``, ``snapshots`` or ``states``. Records of several threads
    are refused (a run is one thread); subgraph checkpoints, repeated ids,
    missing parents and cycles of parents are reported as findings.
    """
    items = data
    if isinstance(data, dict):
        items = next((data[k] for k in _LISTS if isinstance(data.get(k), list)), [data])
    if not isinstance(items, list) or not items:
        raise TraceFormatError(
            "expected a list of state snapshots or checkpoint tuples (get_state_history() or "
            "a checkpointer's list()), got "
            + ("an empty list" if items == [] else type(items).__name__),
            source=source,
        )
    cps = [checkpoint_of(raw, i, source) for i, raw in enumerate(items)]
    threads = {c.thread for c in cps if c.thread is not None}
    if len(threads) > 1:
        first = next(c for c in cps if c.thread is not None)
        other = next(c for c in cps if c.thread not in (None, first.thread))
        raise TraceFormatError(
            f"thread_id {other.thread!r} differs from {first.thread!r} (record {first.where}): "
            "a run is one thread; export one thread's history",
            source=source,
            path=f"{other.where}.config.configurable.thread_id",
        )
    findings: list[Finding] = []
    nested = [c for c in cps if c.namespace]
    if nested:
        findings.append(
            _finding(
                "subgraph_checkpoints",
                f"{len(nested)} checkpoint(s) of subgraphs (checkpoint_ns "
                f"{nested[0].namespace!r}...) are left out: the run shows the top-level graph",
                nested[0].where,
            )
        )
    by_id: dict[str, Checkpoint] = {}
    for c in cps:
        if not c.namespace and c.id not in by_id:
            by_id[c.id] = c
    if len(by_id) < len(cps) - len(nested):
        findings.append(
            _finding(
                "duplicate_checkpoint",
                "some checkpoint ids appear twice; the first record of each is kept",
            )
        )
    return _chronological(by_id, findings, source), findings


def _chronological(
    by_id: dict[str, Checkpoint], findings: list[Finding], source: str
) -> list[Checkpoint]:
    """Parents before children; a branch is read to its end (each checkpoint's earliest child next), then the
    earliest (time, step, record order) checkpoint ready: two branches never interleave, so the replay plays one
    plan version at a time (a branch older than the one before it is a finding of :func:`_clock_forward`)."""
    children: dict[str | None, list[Checkpoint]] = defaultdict(list)
    roots, missing = [], []
    selfish = next((c for c in by_id.values() if c.parent == c.id), None)
    # impossible in LangGraph (every checkpoint id is new): the record is broken
    if selfish is not None:
        raise TraceFormatError(
            f"checkpoint {selfish.id!r} names itself as its parent; a parent is an earlier "
            "checkpoint",
            source=source,
            path=f"{selfish.where}.parent_config",
        )
    for c in by_id.values():
        if c.parent in by_id and c.parent != c.id:
            children[c.parent].append(c)
        else:
            if c.parent is not None:
                missing.append(c)
            roots.append(c)
    if len(missing) > 1 or (missing and len(roots) > 1):
        findings.append(
            _finding(
                "missing_parent",
                f"{len(missing)} checkpoint(s) name a parent that is not in the "
                f"history (first: {missing[0].where}); each starts a branch of its own",
                missing[0].where,
            )
        )
    steps = [c.step for c in by_id.values() if c.step is not None]
    newest_first = len(steps) > 1 and steps[0] > steps[-1]

    def key(c: Checkpoint) -> tuple[float, int, int]:
        return (
            c.time if c.time is not None else float("-inf"),
            c.step if c.step is not None else 0,
            -c.index if newest_first else c.index,
        )

    ready = [(key(c), c.id) for c in roots]
    heapq.heapify(ready)
    out, done = [], set()
    chain: str | None = (
        None  # a branch goes on with its earliest child before another branch is taken up
    )
    while ready or chain is not None:
        cid, chain = (heapq.heappop(ready)[1], None) if chain is None else (chain, None)
        if cid in done:
            continue
        done.add(cid)
        out.append(by_id[cid])
        kids = children.get(cid, ())
        if kids:
            chain = min(kids, key=key).id
            for child in kids:
                if child.id != chain:
                    heapq.heappush(ready, (key(child), child.id))
    if len(out) < len(by_id):  # the rest hang off a cycle of parents
        left = sorted((c for c in by_id.values() if c.id not in done), key=key)
        findings.append(
            _finding(
                "parent_cycle",
                f"{len(left)} checkpoint(s) form a cycle of parents (first: "
                f"{left[0].where}); they are read in time order as one branch",
                left[0].where,
            )
        )
        for c in left:
            c.parent = out[-1].id if out else None
            out.append(c)
    _clock_forward(out, findings)
    return out


def _clock_forward(order: list[Checkpoint], findings: list[Finding]) -> None:
    """A checkpoint older than one read before it (its parent: the clock went back; the end of the branch before
    its own: the branches overlap) is read a nanosecond after that checkpoint, its own time kept as ``late``, so the
    replay keeps the order it was read in; one finding names them.
    Every checkpoint is kept and the replay never ends a step before it starts."""
    latest: int | None = None
    back: list[Checkpoint] = []
    for c in order:
        if c.time is None:
            continue
        if latest is not None and c.time < latest:
            c.late, c.time = c.time, latest + 1
            back.append(c)
        latest = c.time
    if back:
        first = back[0]
        ago = (
            (first.time or 0) - 1 - (first.late or 0)
        ) / 1e9  # its time now is a nanosecond after the one before
        findings.append(
            _finding(
                "clock_backwards",
                f"{len(back)} checkpoint(s) are older than a checkpoint read "
                f"before them (first: {first.where}, {ago:.6g} s "
                "older): the clock went back, or two branches overlap in time; each is read a "
                "nanosecond after the one before it, and the steps ending there ran for an unknown "
                "time",
                first.where,
            )
        )
