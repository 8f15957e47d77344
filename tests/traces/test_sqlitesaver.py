"""LangGraph SqliteSaver databases: every thread a run, times from checkpoint ts, nothing revived.

The truth is read from the raw database in this test (sqlite3, and the msgpack package with a hook that
keeps extension types as data), never from planviz's output.
"""

from __future__ import annotations

import importlib
import json
import pickle
import sqlite3
from datetime import datetime

import pytest

msgpack = pytest.importorskip("msgpack")

from planviz import TraceFormatError, load_trace, load_traces  # noqa: E402
from planviz.traces.langgraph.checkpointblobs import decode_blob  # noqa: E402

DB = ("langgraph", "sqlite", "hirokts_checkpoints.db")


def raw_value(kind, blob):
    """A blob as data: extension types kept as (code, inner) without importing anything."""
    if kind == "null" or blob is None:
        return None

    def hook(code, data):
        inner = msgpack.unpackb(data, ext_hook=hook, raw=False, strict_map_key=False)
        return inner[2] if code in (4, 5) else ("EXT", code, inner)

    return msgpack.unpackb(blob, ext_hook=hook, raw=False, strict_map_key=False)


def raw_threads(path):
    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    threads = [
        r[0]
        for r in con.execute(
            "SELECT thread_id FROM checkpoints GROUP BY thread_id ORDER BY MIN(rowid)"
        )
    ]
    rows = {}
    for t in threads:
        rows[t] = []
        for cid, parent, kind, blob, meta in con.execute(
            "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints "
            "WHERE thread_id = ? ORDER BY checkpoint_id",
            (t,),
        ):
            cp = raw_value(kind, blob)
            rows[t].append(
                {
                    "id": cid,
                    "parent": parent,
                    "ts": datetime.fromisoformat(cp["ts"]).timestamp(),
                    "v": cp["v"],
                    "meta": json.loads(meta),
                }
            )
    con.close()
    return threads, rows


_READ: dict = {}


@pytest.fixture
def corpus_db(corpus):
    """The corpus database: its path, planviz's runs and the raw truth (read once per session)."""
    path = corpus.joinpath(*DB)
    if path not in _READ:
        _READ[path] = (path, load_traces(path), raw_threads(path))
    return _READ[path]


@pytest.mark.corpus
def test_one_run_per_thread_in_file_order(corpus_db):
    path, runs, (threads, rows) = corpus_db
    assert [r.plan.name for r in runs] == [f"thread {t}" for t in threads]
    assert len(threads) == 23 and all(rows[t] for t in threads)
    for run in runs:
        assert run.strategy == "recorded" and run.events


@pytest.mark.corpus
def test_one_thread_by_name_and_a_database_of_many_refused_with_the_list(corpus_db):
    path, runs, (threads, rows) = corpus_db
    with pytest.raises(
        TraceFormatError,
        match=rf"holds 23 runs, one per thread \(threads: 'test_session' "
        rf"\({len(rows['test_session'])} checkpoints.*load_traces",
    ):
        load_trace(path)
    with pytest.raises(TraceFormatError, match=r"no thread 'nope'.*'weather_session'"):
        load_trace(path, thread="nope")
    one = load_trace(path, thread=threads[3])
    assert one.plan.name == f"thread {threads[3]}"
    assert [e.kind for e in one.events] == [e.kind for e in runs[3].events]


@pytest.mark.corpus
def test_times_are_checkpoint_ts(corpus_db):
    """The run's clock is seconds since the thread's first checkpoint; each node run lasts from its
    superstep's parent checkpoint to the checkpoint it wrote. A fork (a second child of one checkpoint: time
    travel) was replayed after the branch before it: its run starts at the latest checkpoint before it."""
    path, runs, (threads, rows) = corpus_db
    checked = forks = 0
    for run, t in zip(runs, threads):
        ts = {r["id"]: r["ts"] for r in rows[t]}
        parent = {r["id"]: r["parent"] for r in rows[t]}
        first_child = {}
        for r in sorted(rows[t], key=lambda r: r["ts"]):
            first_child.setdefault(r["parent"], r["id"])
        began = {}
        for cid, p in parent.items():
            if p is None:
                continue
            if first_child[p] == cid:
                began[cid] = ts[p]
            else:
                began[cid] = max(ts[p], max(x for x in ts.values() if x < ts[cid]))
                forks += 1
        t0 = min(ts.values())
        assert run.plan.time_unit == "s"
        assert run.time == pytest.approx(max(ts.values()) - t0, abs=1e-6)
        started = {}
        for e in run.events:
            if e.kind == "start":
                started[e.step] = e.time
            if (
                e.kind == "complete"
                and e.observation is not None
                and "checkpoint" in e.observation.data
            ):
                cid = e.observation.data["checkpoint"]
                assert e.time == pytest.approx(ts[cid] - t0, abs=1e-6)
                assert e.time - started[e.step] == pytest.approx(ts[cid] - began[cid], abs=1e-6), (
                    t,
                    e.step,
                )
                checked += 1
    assert checked >= 23 and forks >= 2


def loop_writes(rows, cid):
    meta = next(r for r in rows if r["id"] == cid)["meta"]
    return meta.get("source") == "loop" and meta.get("writes")


@pytest.mark.corpus
def test_every_node_run_is_a_step(corpus_db):
    """Each checkpoint whose metadata names the node that wrote it (metadata.writes) is a step of that node."""
    path, runs, (threads, rows) = corpus_db
    for run, t in zip(runs, threads):
        truth = sorted(
            node
            for r in rows[t]
            if r["meta"].get("source") == "loop"
            for node in (r["meta"].get("writes") or {})
        )
        seen = {}
        for plan in run.plans:
            for s in plan.steps:
                seen[s.id] = s.tool
        ran = sorted(
            seen[e.step]
            for e in run.events
            if e.kind == "complete"
            and e.observation is not None
            and "checkpoint" in e.observation.data
            and loop_writes(rows[t], e.observation.data["checkpoint"])
        )
        assert ran == truth, t


@pytest.mark.corpus
def test_database_and_its_json_exports_read_alike(corpus_db, corpus):
    path, runs, (threads, _) = corpus_db
    exports = sorted((corpus / "langgraph" / "sqlite" / "exported").glob("thread_*.json"))
    assert len(exports) == 6
    for f in exports:
        t = f.stem[len("thread_") :]
        a, b = load_trace(f), runs[threads.index(t)]
        assert [(e.kind, e.step, round(e.time, 6)) for e in a.events] == [
            (e.kind, e.step, round(e.time, 6)) for e in b.events
        ]
        assert [(s.id, s.produces) for s in a.plan.steps] == [
            (s.id, s.produces) for s in b.plan.steps
        ]


@pytest.mark.corpus
def test_blobs_decode_like_msgpack_itself(corpus):
    con = sqlite3.connect(f"file:{corpus.joinpath(*DB)}?mode=ro&immutable=1", uri=True)
    blobs = list(con.execute("SELECT type, checkpoint FROM checkpoints")) + list(
        con.execute("SELECT type, value FROM writes")
    )
    con.close()
    assert len(blobs) > 600
    for kind, blob in blobs:
        assert decode_blob(kind, blob) == raw_value(kind, blob)


# --------------------------------------------------------------------------- crafted databases


def make_db(path, checkpoints, writes=()):
    """A SqliteSaver database: checkpoints as (thread, id, parent, type, blob, metadata dict)."""
    con = sqlite3.connect(path)
    con.execute(
        "CREATE TABLE checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', "
        "checkpoint_id TEXT NOT NULL, parent_checkpoint_id TEXT, type TEXT, checkpoint BLOB, metadata BLOB, "
        "PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id))"
    )
    con.execute(
        "CREATE TABLE writes (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', "
        "checkpoint_id TEXT NOT NULL, task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, "
        "type TEXT, value BLOB, task_path TEXT NOT NULL DEFAULT '', "
        "PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx))"
    )
    for thread, cid, parent, kind, blob, meta in checkpoints:
        con.execute(
            "INSERT INTO checkpoints VALUES (?, '', ?, ?, ?, ?, ?)",
            (thread, cid, parent, kind, blob, json.dumps(meta).encode()),
        )
    for thread, cid, task, idx, channel, kind, blob in writes:
        con.execute(
            "INSERT INTO writes VALUES (?, '', ?, ?, ?, ?, ?, ?, '')",
            (thread, cid, task, idx, channel, kind, blob),
        )
    con.commit()
    con.close()
    return path


def checkpoint(v, cid, second, values, seen, versions):
    return msgpack.packb(
        {
            "v": v,
            "ts": f"2025-01-01T00:{second // 60:02d}:{second % 60:02d}+00:00",
            "id": cid,
            "channel_values": values,
            "channel_versions": versions,
            "versions_seen": seen,
            "pending_sends": [],
        }
    )


def hostile(module, name, arg, code=0):
    return msgpack.ExtType(code, msgpack.packb([module, name, arg]))


@pytest.fixture
def no_reviving(monkeypatch):
    """Importing a module by name or unpickling anything fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"planviz tried to revive {args!r}")

    monkeypatch.setattr(importlib, "import_module", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)


@pytest.mark.parametrize(
    "ext, shown",
    [
        (hostile("os", "system", "touch /tmp/planviz-pwned"), "<os.system: not read>"),
        (hostile("subprocess", "Popen", ["id"], code=1), "<subprocess.Popen: not read>"),
        (hostile("builtins", "eval", "1+1", code=3), "<builtins.eval: not read>"),
        (hostile("myapp.state", "Secret", {"k": "v"}, code=5), "<myapp.state.Secret: not read>"),
        (msgpack.ExtType(42, b"\x00\x01"), "<msgpack extension type 42, 2 bytes: not read>"),
    ],
)
def test_hostile_blobs_are_opaque_text_and_never_imported(tmp_path, no_reviving, ext, shown):
    first = checkpoint(4, "c1", 0, {"x": 1}, {}, {"x": 1})
    second = checkpoint(4, "c2", 3, {"x": ext}, {"inc": {"branch:to:inc": 1}}, {"x": 2})
    path = make_db(
        tmp_path / "cp.db",
        [
            ("t", "c1", None, "msgpack", first, {"source": "loop", "step": 0}),
            ("t", "c2", "c1", "msgpack", second, {"source": "loop", "step": 1}),
        ],
        [("t", "c1", "task1", 0, "x", "pickle", pickle.dumps({"boom": 1}))],
    )
    run = load_trace(path)
    assert f"x = {json.dumps(shown)}" in run.frame(-1).facts
    assert run.time == 3.0


def test_pickle_and_unknown_blob_types_are_opaque(no_reviving):
    assert (
        decode_blob("pickle", pickle.dumps([1, 2]))
        == f"<pickle, {len(pickle.dumps([1, 2]))} bytes: not read>"
    )
    assert decode_blob("bytes", b"abc") == "<3 bytes: not read>"
    assert decode_blob("weird", b"abc") == "<weird, 3 bytes: not read>"
    assert decode_blob("null", b"") is None


def test_allowed_shapes_become_plain_values():
    blob = msgpack.packb(
        {
            "when": hostile("datetime", "datetime", "2025-01-01T00:00:00", code=3),
            "id": hostile("uuid", "UUID", "0" * 32),
            "tags": hostile("builtins", "set", ["a", "b"]),
            "msg": msgpack.ExtType(
                5,
                msgpack.packb(
                    [
                        "langchain_core.messages.human",
                        "HumanMessage",
                        {"content": "hi", "type": "human"},
                        "model_validate_json",
                    ]
                ),
            ),
        }
    )
    assert decode_blob("msgpack", blob) == {
        "when": "2025-01-01T00:00:00",
        "id": "0" * 32,
        "tags": ["a", "b"],
        "msg": {"content": "hi", "type": "human"},
    }


@pytest.mark.parametrize(
    "blob, match",
    [
        (b"\x91" * 200 + b"\x01", "nesting deeper than"),
        (b"\xdd\xff\xff\xff\xff", "longer than the blob"),
        (b"\xd9\x10ab", "runs past the end"),
        (b"\xc1", "starts no msgpack value"),
        (b"\x01\x02", "follow the value"),
    ],
)
def test_broken_msgpack_is_refused_naming_the_place(tmp_path, blob, match):
    path = make_db(
        tmp_path / "cp.db", [("t", "c1", None, "msgpack", blob, {"source": "loop", "step": 0})]
    )
    with pytest.raises(TraceFormatError, match=match):
        load_trace(path)


@pytest.mark.parametrize(
    "v, trigger", [(1, "start:inc"), (2, "start:inc"), (3, "branch:to:inc"), (4, "branch:to:inc")]
)
def test_checkpoint_versions_1_to_4(tmp_path, v, trigger):
    """Triggers (start:X before v3, branch:to:X after) schedule a node and are not state; the node's run
    lasts from its parent checkpoint to the checkpoint it wrote."""
    first = checkpoint(v, "c1", 0, {"x": 1, trigger: None}, {"__input__": {}}, {"x": 1, trigger: 1})
    second = checkpoint(
        v, "c2", 7, {"x": 2}, {"__input__": {}, "inc": {trigger: 1}}, {"x": 2, trigger: 1}
    )
    path = make_db(
        tmp_path / "cp.db",
        [
            ("t", "c1", None, "msgpack", first, {"source": "loop", "step": 0}),
            (
                "t",
                "c2",
                "c1",
                "msgpack",
                second,
                {"source": "loop", "step": 1, "writes": {"inc": {"x": 2}}},
            ),
        ],
    )
    run = load_trace(path)
    assert run.plan.ids == ("inc",)
    assert sorted(run.frame(-1).facts) == ["x = 2"]
    assert [(e.kind, e.time) for e in run.events if e.step == "inc" and e.kind != "withdraw"] == [
        ("start", 0.0),
        ("complete", 7.0),
    ]


def test_a_sqlite_database_that_is_no_checkpointer_is_named(tmp_path):
    path = tmp_path / "other.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE users (id INTEGER)")
    con.commit()
    con.close()
    with pytest.raises(
        TraceFormatError, match=r"SQLite database but not a LangGraph checkpointer.*tables: users"
    ):
        load_trace(path)


@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_the_database_is_opened_read_only_and_nothing_is_left_beside_it(tmp_path, journal):
    first = checkpoint(4, "c1", 0, {"x": 1}, {}, {"x": 1})
    path = make_db(
        tmp_path / "cp.db", [("t", "c1", None, "msgpack", first, {"source": "loop", "step": 0})]
    )
    with sqlite3.connect(path) as con:  # SqliteSaver's databases are in WAL mode
        assert con.execute(f"PRAGMA journal_mode={journal}").fetchone()[0] == journal
    con.close()
    before = path.read_bytes()
    path.chmod(0o444)
    assert load_traces(path)[0].plan.name == "thread t"
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cp.db"]


def test_what_a_running_agent_committed_to_the_log_is_read(tmp_path):
    first = checkpoint(4, "c1", 0, {"x": 1}, {}, {"x": 1})
    path = make_db(
        tmp_path / "cp.db", [("a", "c1", None, "msgpack", first, {"source": "loop", "step": 0})]
    )
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode=wal")
    # the new rows stay in cp.db-wal while the agent runs
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute(
        "INSERT INTO checkpoints VALUES ('b', '', 'c1', NULL, 'msgpack', ?, ?)",
        (first, json.dumps({"source": "loop", "step": 0}).encode()),
    )
    writer.commit()
    try:
        assert (tmp_path / "cp.db-wal").stat().st_size > 0
        assert [r.plan.name for r in load_traces(path)] == ["thread a", "thread b"]
    finally:
        writer.close()


# --------------------------------------------------------------------------- turns, order, durations


@pytest.mark.corpus
def test_turns_follow_each_other_and_every_step_starts_before_it_completes(corpus_db):
    """A new input depends on the step that ended the turn before it (the step that wrote the input
    checkpoint's parent); nothing completes before it starts; nothing is reported interrupted."""
    path, runs, (threads, rows) = corpus_db
    inputs = 0
    for run, t in zip(runs, threads):
        by_id = {r["id"]: r for r in rows[t]}
        wrote = {
            e.observation.data["checkpoint"]: e.step
            for e in run.events
            if e.kind == "complete"
            and e.observation is not None
            and "checkpoint" in e.observation.data
        }
        steps = {s.id: s for plan in run.plans for s in plan.steps}
        truth_inputs = [
            r for r in rows[t] if r["meta"].get("source") == "input" and r["parent"] is not None
        ]
        assert sum(1 for s in steps.values() if s.tool == "input") == len(truth_inputs), t
        for r in truth_inputs:
            before = by_id[r["parent"]]
            while before["id"] not in wrote and before["parent"] is not None:
                before = by_id[before["parent"]]
            step = next(
                sid for sid, s in steps.items() if s.tool == "input" and wrote.get(r["id"]) == sid
            )
            assert steps[step].depends_on == (wrote[before["id"]],), (t, step)
            inputs += 1
        started = {}
        for e in run.events:
            assert "interrupted" not in e.message, (t, e.message)
            if e.kind == "start":
                started[e.step] = e.index
            elif e.kind == "complete":
                assert e.step in started and run.events[started[e.step]].time <= e.time, (t, e.step)
    assert inputs > 20


@pytest.mark.corpus
def test_plan_durations_are_what_happened(corpus_db):
    """Each plan step lasts what its recorded run took: the critical path of a serial conversation is its
    length, not one second per step."""
    path, runs, (threads, rows) = corpus_db
    run = runs[threads.index("name_test7")]
    ts = sorted(r["ts"] for r in rows["name_test7"])
    # no fork: one turn after the other
    assert all(
        r["parent"] is None or sum(1 for x in rows["name_test7"] if x["parent"] == r["parent"]) == 1
        for r in rows["name_test7"]
    )
    assert sum(s.duration for s in run.plan.steps) == pytest.approx(ts[-1] - ts[0], abs=1e-3)
    assert ts[-1] - ts[0] > 1600


def test_an_interrupt_in_a_database_is_a_wait_of_the_recorded_length(tmp_path):
    """A node asks a human (an __interrupt__ write), the run is resumed later: a wait, not a failure, whose
    length (from the checkpoint that asked to the one it resumed into) the events say."""
    # seconds: the node starts at t1, the human answers; the resumed node ends at t2
    t0, t1, t2 = (
        0,
        1,
        83,
    )
    first = checkpoint(
        4,
        "c1",
        t0,
        {"q": "x", "branch:to:ask": None},
        {"__input__": {}},
        {"q": 1, "branch:to:ask": 1},
    )
    second = checkpoint(
        4,
        "c2",
        t1,
        {"q": "x", "branch:to:review": None},
        {"__input__": {}, "ask": {"branch:to:ask": 1}},
        {"q": 1, "branch:to:review": 2},
    )
    third = checkpoint(
        4,
        "c3",
        t2,
        {"q": "x", "ok": True},
        {"__input__": {}, "ask": {"branch:to:ask": 1}, "review": {"branch:to:review": 2}},
        {"q": 1, "ok": 3, "branch:to:review": 2},
    )
    interrupt = msgpack.packb(
        [
            msgpack.ExtType(
                2,
                msgpack.packb(["langgraph.types", "Interrupt", {"value": "approve?", "id": "i1"}]),
            )
        ]
    )
    path = make_db(
        tmp_path / "hitl.db",
        [
            ("t", "c1", None, "msgpack", first, {"source": "loop", "step": 0}),
            ("t", "c2", "c1", "msgpack", second, {"source": "loop", "step": 1}),
            ("t", "c3", "c2", "msgpack", third, {"source": "loop", "step": 2}),
        ],
        [
            ("t", "c2", "task-r", 0, "__interrupt__", "msgpack", interrupt),
            (
                "t",
                "c2",
                "00000000-0000-0000-0000-000000000000",
                0,
                "__resume__",
                "msgpack",
                msgpack.packb("yes"),
            ),
            ("t", "c2", "task-r", 1, "ok", "msgpack", msgpack.packb(True)),
        ],
    )
    run = load_trace(path)
    review = [e for e in run.events if e.step == "review"]
    assert [e.kind for e in review] == ["start", "wait", "retry", "start", "complete"]
    wait, resume = review[1], review[2]
    assert wait.time == t1 - t0 and run.frame(wait.index).statuses["review"] == "waiting"
    assert (
        "approve?" in wait.message
        and f"{t2 - t1:.3g} s" in wait.message
        and f"{t2 - t1:.3g} s" in resume.message
    )
    assert not any(e.kind == "fail" for e in run.events) and run.outcome == "plan_complete"


def raw_records(path):
    data = json.loads(path.read_text())
    items = (
        data
        if isinstance(data, list)
        else next(data[k] for k in ("history", "checkpoints") if k in data)
    )
    out = []
    for r in items:
        ts = r["checkpoint"]["ts"] if "checkpoint" in r else r["created_at"]
        cid = (
            r["checkpoint"]["id"]
            if "checkpoint" in r
            else r["config"]["configurable"]["checkpoint_id"]
        )
        out.append((cid, datetime.fromisoformat(ts).timestamp()))
    return out


@pytest.mark.corpus
def test_every_langgraph_json_file_reads_right(corpus):
    """Every JSON file of the LangGraph corpus: the clock spans the checkpoints' times, each node run lasts
    from its start to the checkpoint it wrote, nothing completes before it starts, nothing is 'interrupted'."""
    files = sorted((corpus / "langgraph").rglob("*.json"))
    assert len(files) >= 8
    for path in files:
        records = raw_records(path)
        times = dict(records)
        run = load_trace(path)
        assert run.time == pytest.approx(max(times.values()) - min(times.values()), abs=1e-6), (
            path.name
        )
        started = {}
        for e in run.events:
            assert "interrupted" not in e.message, (path.name, e.message)
            if e.kind == "start":
                started[e.step] = e.time
            elif e.kind == "complete":
                assert started[e.step] <= e.time, (path.name, e.step)
                cid = (
                    (e.observation.data or {}).get("checkpoint")
                    if e.observation is not None
                    else None
                )
                if cid is not None:
                    assert e.time == pytest.approx(times[cid] - min(times.values()), abs=1e-6), (
                        path.name,
                        e.step,
                    )


# --------------------------------------------------------------------------- issue 42: big and odd databases


def test_a_log_without_its_index_is_read_and_leaves_nothing_beside_the_file(tmp_path):
    """A -wal beside a database without its -shm (no agent has it open: a copy, a crash): what the log holds
    is read, and no new -shm is left beside the user's file (issue 42 item 10)."""
    import shutil

    first = checkpoint(4, "c1", 0, {"x": 1}, {}, {"x": 1})
    path = make_db(
        tmp_path / "cp.db", [("a", "c1", None, "msgpack", first, {"source": "loop", "step": 0})]
    )
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode=wal")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute(
        "INSERT INTO checkpoints VALUES ('b', '', 'c1', NULL, 'msgpack', ?, ?)",
        (first, json.dumps({"source": "loop", "step": 0}).encode()),
    )
    writer.commit()
    user = tmp_path / "user"
    user.mkdir()
    shutil.copyfile(path, user / "cp.db")
    shutil.copyfile(f"{path}-wal", user / "cp.db-wal")
    writer.close()
    before = {p.name: p.read_bytes() for p in user.iterdir()}
    assert sorted(before) == ["cp.db", "cp.db-wal"]
    # the truth: the rows the log holds, read from a copy made here
    shutil.copytree(user, tmp_path / "truth")
    truth = sqlite3.connect(tmp_path / "truth" / "cp.db")
    threads = [r[0] for r in truth.execute("SELECT thread_id FROM checkpoints ORDER BY rowid")]
    truth.close()
    assert threads == ["a", "b"]
    assert [r.plan.name for r in load_traces(user / "cp.db")] == [f"thread {t}" for t in threads]
    assert load_trace(user / "cp.db", thread="b").plan.name == "thread b"
    assert {p.name: p.read_bytes() for p in user.iterdir()} == before


def _threads_db(path, n: int, indexed: bool):
    """The repro sqlite_threads_noindex: ``n`` threads of two checkpoints and a write each, tables with or without
    SqliteSaver's primary keys."""
    keys = (
        (
            ", PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)",
            ", PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)",
        )
        if indexed
        else ("", "")
    )
    con = sqlite3.connect(path)
    con.execute(
        "CREATE TABLE checkpoints (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, "
        f"parent_checkpoint_id TEXT, type TEXT, checkpoint BLOB, metadata BLOB{keys[0]})"
    )
    con.execute(
        "CREATE TABLE writes (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, task_id TEXT, "
        f"idx INTEGER, channel TEXT, type TEXT, value BLOB{keys[1]})"
    )
    rows = []
    for t in range(n):
        for k in range(2):
            rows.append(
                (
                    f"th{t}",
                    "",
                    f"c{k}",
                    "c0" if k else None,
                    "msgpack",
                    checkpoint(4, f"c{k}", k, {"x": k}, {}, {"x": k + 1}),
                    json.dumps({"source": "input" if k == 0 else "loop", "step": k - 1}).encode(),
                )
            )
    con.executemany("INSERT INTO checkpoints VALUES (?,?,?,?,?,?,?)", rows)
    con.executemany(
        "INSERT INTO writes VALUES (?,?,?,?,?,?,?,?)",
        [(f"th{t}", "", "c0", "task", 0, "x", "msgpack", msgpack.packb(t)) for t in range(n)],
    )
    con.commit()
    con.close()
    return path


@pytest.mark.parametrize("indexed", [False, True])
def test_reading_every_thread_is_linear_whatever_the_indexes(tmp_path, monkeypatch, indexed):
    """SQLite's own work (virtual machine steps, counted by a progress handler) at n and 4n threads: one scan per
    thread of a table without an index on thread_id was quadratic (issue 42 item 5)."""
    from planviz.traces.langgraph import sqlitesaver

    ticks = [0]
    real = sqlitesaver._connect

    def counted(path):
        con = real(path)
        con.set_progress_handler(lambda: ticks.__setitem__(0, ticks[0] + 1) or 0, 100)
        return con

    monkeypatch.setattr(sqlitesaver, "_connect", counted)

    def work(n: int) -> int:
        path = _threads_db(tmp_path / f"{n}.db", n, indexed)
        before = path.read_bytes()
        ticks[0] = 0
        runs = load_traces(path)
        assert [r.plan.name for r in runs] == [f"thread th{t}" for t in range(n)]
        # the user's file is never written (the index is a temporary one)
        assert path.read_bytes() == before
        return ticks[0]

    small, big = work(150), work(600)
    assert big <= 5 * small, (small, big)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["150.db", "600.db"]
