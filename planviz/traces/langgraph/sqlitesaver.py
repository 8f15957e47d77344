"""LangGraph SqliteSaver databases: the file a LangGraph user has on disk, one run per thread.

A ``SqliteSaver`` (``langgraph-checkpoint-sqlite``) keeps two tables:
``checkpoints`` (``thread_id``, ``checkpoint_ns``, ``checkpoint_id``,
``parent_checkpoint_id``, ``type``, ``checkpoint``, ``metadata``) and
``writes`` (``thread_id``, ``checkpoint_ns``, ``checkpoint_id``, ``task_id``,
``idx``, ``channel``, ``type``, ``value``). The database is opened read-only
with the standard library's :mod:`sqlite3` (``mode=ro``); each blob is
decoded by :mod:`~planviz.traces.langgraph.checkpointblobs` (msgpack read as plain
values, nothing revived or imported); each thread's rows become the
checkpoint tuples that :mod:`~planviz.traces.langgraph.history` reads from a
JSON export (``config``, ``checkpoint``, ``metadata``, ``parent_config``,
``pending_writes``), so a database and its JSON export read alike.
Checkpoint versions 1 to 4 are read (v1 and v2 name triggers ``start:X`` and
``branch:source:condition:X``; v1 to v3 keep ``pending_sends``, unused here).

``load_traces(db)`` gives one run per thread (threads in the order the file
first holds them); ``load_trace(db, thread="ID")`` one; ``load_trace(db)`` on
a database of several threads is refused with the list of its threads.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
from collections import defaultdict
from typing import Any
from urllib.parse import quote

from planviz.errors import TraceFormatError
from planviz.io import limits
from planviz.io.syntax import show_value
from planviz.runs.events import Run
from planviz.traces import Document, Sample
from planviz.traces.langgraph.checkpointblobs import decode_blob, decode_msgpack
from planviz.traces.langgraph.history import run_of_history
from planviz.traces.langgraph.langgraphversions import asked

__all__ = [
    "TITLE",
    "BINARY",
    "THREADS",
    "detect",
    "read",
    "threads_of",
    "tuples_of",
    "thread_table",
]

TITLE = "LangGraph SqliteSaver database"
BINARY = True
THREADS = True
_CHECKPOINT_COLUMNS = (
    "thread_id",
    "checkpoint_ns",
    "checkpoint_id",
    "parent_checkpoint_id",
    "type",
    "checkpoint",
    "metadata",
)
# SqliteSaver before 0.2: JSON
_EARLY_COLUMNS = (
    "thread_id",
    "thread_ts",
    "parent_ts",
    "checkpoint",
    "metadata",
)
_WRITE_COLUMNS = (
    "thread_id",
    "checkpoint_ns",
    "checkpoint_id",
    "task_id",
    "idx",
    "channel",
    "type",
    "value",
)
_SHOWN_THREADS = 40


def detect(sample: Sample) -> float:
    """A SQLite database with a ``checkpoints`` table is surely one; any other SQLite database is claimed
    faintly, so that :func:`read` can say what it holds instead."""
    if not sample.is_sqlite:
        return 0.0
    if sample.path is None:
        return 0.5
    try:
        with _connect(sample.path) as con:
            return 0.95 if "checkpoints" in _tables(con) else 0.05
    except (sqlite3.Error, TraceFormatError, OSError):
        return 0.05


def _connect(path: str) -> sqlite3.Connection:
    """The database at ``path``, opened read-only, leaving nothing beside it.

    A database in WAL mode (SqliteSaver's) whose log is absent has no writer and nothing outside the file: it
    is opened as immutable, since a read-only connection would create ``-wal`` and ``-shm`` files next to it and
    could not remove them. With a log present, the connection joins it, to read what a running agent has
    committed; a log it cannot join is passed over (immutable). A log without its ``-shm`` index (no agent has
    the database open: a copy, a crash) is read from a private copy of the two files, removed when the
    connection's ``with`` block ends: joining it would leave a new ``-shm`` beside the user's file.
    """
    uri = "file:" + quote(os.path.abspath(path))
    if not os.path.exists(path + "-wal") and _in_wal_mode(path):
        return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)
    if os.path.exists(path + "-wal") and not os.path.exists(path + "-shm"):
        return _copied(path)
    try:
        con = sqlite3.connect(f"{uri}?mode=ro", uri=True)
        con.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
        return con
    except sqlite3.OperationalError:
        return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)


class _CopyConnection(sqlite3.Connection):
    """A connection to a private copy of a database; its ``with`` block's end closes it and removes the copy."""

    folder = ""

    def __exit__(self, *exc: Any) -> Any:
        try:
            return super().__exit__(*exc)
        finally:
            self.close()
            shutil.rmtree(self.folder, ignore_errors=True)


def _copied(path: str) -> sqlite3.Connection:
    """A read-only connection to a copy of the database at ``path`` and its ``-wal`` log, in a folder of its own."""
    folder = tempfile.mkdtemp(prefix="planviz-db-")
    try:
        copy = os.path.join(folder, "checkpoints.db")
        shutil.copyfile(path, copy)
        shutil.copyfile(path + "-wal", copy + "-wal")
        con = sqlite3.connect(f"file:{quote(copy)}?mode=ro", uri=True, factory=_CopyConnection)
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise TraceFormatError(
            f"the database and its -wal log cannot be copied to be read: {exc}", source=path
        ) from None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    con.folder = folder
    return con


def _in_wal_mode(path: str) -> bool:
    """Whether the database header says WAL mode (its read and write versions, bytes 18 and 19, are 2)."""
    try:
        with open(path, "rb") as fh:
            header = fh.read(20)
    except OSError:
        return False
    return header[18:20] == b"\x02\x02"


def _tables(con: sqlite3.Connection) -> dict[str, set[str]]:
    names = [
        r[0]
        for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    ]
    return {n: {r[1] for r in con.execute(f"PRAGMA table_info({_quoted(n)})")} for n in names}


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _check_schema(tables: dict[str, set[str]], source: str) -> None:
    if "checkpoints" not in tables:
        shown = ", ".join(sorted(tables)[:12]) or "none"
        raise TraceFormatError(
            f"this is a SQLite database but not a LangGraph checkpointer: it has no "
            f"'checkpoints' table (tables: {shown}); planviz reads LangGraph SqliteSaver "
            "databases (tables checkpoints and writes)",
            source=source,
        )
    missing = [c for c in _CHECKPOINT_COLUMNS if c not in tables["checkpoints"]]
    if missing and not set(_EARLY_COLUMNS) <= tables["checkpoints"]:
        raise TraceFormatError(
            f"the 'checkpoints' table lacks column(s) {', '.join(missing)}: not a LangGraph "
            "SqliteSaver database",
            source=source,
        )


def threads_of(con: sqlite3.Connection) -> list[str]:
    """The thread ids of a checkpoint database, in the order the file first holds them."""
    rows = con.execute("SELECT thread_id FROM checkpoints GROUP BY thread_id ORDER BY MIN(rowid)")
    return [str(r[0]) for r in rows]


def _metadata(raw: Any, source: str, where: str) -> dict[str, Any]:
    if raw is None:
        return {}
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else bytes(raw)
    try:
        value = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        value = decode_msgpack(data, source, where)  # newer savers may keep metadata as msgpack
    return value if isinstance(value, dict) else {}


def thread_lookup(con: sqlite3.Connection) -> dict[str, str]:
    """How to find one thread's rows of each table: ``WHERE thread_id = ?`` where an index leads with
    ``thread_id`` (SqliteSaver's primary keys); in a table without one, through a temporary index of
    (``thread_id``, ``rowid``) made once in the connection's own temporary database (the user's file is
    never written), so reading every thread is one scan and an index search per thread, not a scan each."""
    out = {}
    for table, columns in _tables(con).items():
        if (
            table not in ("checkpoints", "writes")
            or "thread_id" not in columns
            or _indexed(con, table)
        ):
            out[table] = "thread_id = ?"
            continue
        temp = f"planviz_{table}_threads"
        con.execute(
            f"CREATE TEMP TABLE IF NOT EXISTS {temp} AS SELECT thread_id, rowid AS r FROM main.{table}"
        )
        con.execute(f"CREATE INDEX IF NOT EXISTS temp.{temp}_index ON {temp} (thread_id)")
        out[table] = f"rowid IN (SELECT r FROM temp.{temp} WHERE thread_id = ?)"
    return out


def _indexed(con: sqlite3.Connection, table: str) -> bool:
    """Whether an index of ``table`` leads with ``thread_id``."""
    for index in con.execute(f"PRAGMA index_list({_quoted(table)})").fetchall():
        first = con.execute(f"PRAGMA index_info({_quoted(index[1])})").fetchone()
        if first is not None and first[2] == "thread_id":
            return True
    return False


def tuples_of(
    con: sqlite3.Connection, thread: str, source: str, lookup: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """One thread's checkpoints as checkpoint tuples (the JSON export's shape), oldest id first; ``lookup``
    (:func:`thread_lookup`) when several threads are read."""
    has_writes = "writes" in _tables(con)
    writes: dict[tuple[str, str], list[list[Any]]] = defaultdict(list)
    clause = lookup or {}
    if has_writes:
        rows = con.execute(
            "SELECT checkpoint_ns, checkpoint_id, task_id, channel, type, value FROM writes "
            f"WHERE {clause.get('writes', 'thread_id = ?')} "
            "ORDER BY checkpoint_ns, checkpoint_id, task_id, idx",
            (thread,),
        )
        for ns, cid, task, channel, kind, value in rows:
            where = f"writes[checkpoint {cid}, task {task}, channel {channel}]"
            writes[(ns or "", str(cid))].append(
                [str(task), str(channel), decode_blob(kind, value, source, where)]
            )
    out = []
    rows = con.execute(
        f"SELECT {_columns(con)}, checkpoint, metadata FROM checkpoints "
        f"WHERE {clause.get('checkpoints', 'thread_id = ?')} ORDER BY 1, 2",
        (thread,),
    )
    for ns, cid, parent, kind, blob, meta in rows:
        where = f"checkpoints[checkpoint {cid}]"
        checkpoint = decode_blob(kind, blob, source, where)
        if not isinstance(checkpoint, dict):
            raise TraceFormatError(
                f"expected a checkpoint object, got {show_value(checkpoint)}",
                source=source,
                path=where,
            )
        ns, cid = ns or "", str(cid)
        config = {"configurable": {"thread_id": thread, "checkpoint_ns": ns, "checkpoint_id": cid}}
        parent_config = (
            None
            if parent is None
            else {
                "configurable": {
                    "thread_id": thread,
                    "checkpoint_ns": ns,
                    "checkpoint_id": str(parent),
                }
            }
        )
        out.append(
            {
                "config": config,
                "checkpoint": checkpoint,
                "metadata": _metadata(meta, source, where),
                "parent_config": parent_config,
                "pending_writes": writes.get((ns, cid), []),
            }
        )
    return out


def _columns(con: sqlite3.Connection) -> str:
    """The namespace, id, parent id and blob type of a checkpoint row: the columns of today's table, or, in the
    table of SqliteSaver before LangGraph 0.2 (``thread_ts``, ``parent_ts``; JSON checkpoints, no ``writes``),
    what stands for them."""
    if "checkpoint_id" in _tables(con).get("checkpoints", ()):
        return "checkpoint_ns, checkpoint_id, parent_checkpoint_id, type"
    return "'', thread_ts, parent_ts, 'json'"


def read(doc: Document) -> tuple[Run, ...]:
    """The runs of a checkpoint database: every thread's, or the one ``doc.thread`` names."""
    if doc.path is None:
        raise TraceFormatError(
            "a SQLite database is read from its file: pass its path", source=doc.name
        )
    cap = doc.max_bytes or limits.MAX_TRACE_BYTES
    size = os.path.getsize(doc.path)
    if size > cap:
        raise TraceFormatError(
            f"the database is {limits.mib(size)}, over the {limits.mib(cap)} cap; "
            f"{limits.raise_hint('MAX_TRACE_BYTES')}",
            source=doc.name,
        )
    try:
        with _connect(doc.path) as con:
            _check_schema(_tables(con), doc.name)
            threads = threads_of(con)
            if not threads:
                raise TraceFormatError(
                    "the checkpoint database holds no checkpoint (no thread)", source=doc.name
                )
            if doc.thread is not None:
                if doc.thread not in threads:
                    raise TraceFormatError(
                        f"no thread {doc.thread!r} in this database; its threads: "
                        f"{_listing(threads)}",
                        source=doc.name,
                    )
                threads = [doc.thread]
            lookup = thread_lookup(con) if len(threads) > 1 else None
            return tuple(
                run_of_history(
                    tuples_of(con, t, f"{doc.name} thread {t}", lookup), f"{doc.name} thread {t}"
                )
                for t in threads
            )
    except sqlite3.Error as exc:
        raise TraceFormatError(
            f"the SQLite database cannot be read: {exc}", source=doc.name
        ) from None


def thread_table(
    path: str, limit: int = _SHOWN_THREADS
) -> tuple[int, list[tuple[str, int, str]]] | None:
    """The threads of the checkpoint database at ``path`` without reading any thread whole: how many there are,
    and for the first ``limit`` (file order) ``(thread id, checkpoints, first user message or '')``; None when
    ``path`` is no LangGraph checkpoint database. The message is looked for in the first checkpoints' metadata
    and writes (a few small rows per thread), never in every checkpoint.

    >>> thread_table("no_such_file.sqlite") is None
    True
    """
    try:
        # a FIFO or device is never opened here: load_trace refuses it on its own
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as fh:
            if fh.read(16) != b"SQLite format 3\x00":
                return None
        with _connect(path) as con:
            if "checkpoints" not in _tables(con):
                return None
            rows = con.execute(
                "SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id ORDER BY MIN(rowid)"
            )
            counts = [(str(t), int(n)) for t, n in rows]
            return len(counts), [(t, n, _first_asked(con, t, path)) for t, n in counts[:limit]]
    except (OSError, sqlite3.Error, TraceFormatError):
        return None


def threads_refusal(path: str, format: str | None = None) -> TraceFormatError | None:
    """The refusal of ``load_trace(path)`` with no thread on a checkpoint database of several threads (each
    listed with its checkpoints and first user message, nothing read whole); None for any other input."""
    table = thread_table(path) if format in (None, "langgraph-sqlite") else None
    if table is None or table[0] < 2:
        return None
    count, rows = table
    shown = "; ".join(
        f"{t!r} ({n} checkpoints{', ' + repr(_trimmed(said)) if said else ''})"
        for t, n, said in rows
    )
    more = f"; and {count - len(rows)} more" if count > len(rows) else ""
    return TraceFormatError(
        f"the checkpoint database holds {count} runs, one per thread (threads: {shown}{more}); "
        "name one with thread= (on the command line: --thread ID), or read them all with "
        "planviz.load_traces",
        source=path,
    )


def _trimmed(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _first_asked(con: sqlite3.Connection, thread: str, source: str) -> str:
    """The first user message of a thread, from its first three checkpoints' metadata and writes, or ''."""
    has_writes = "writes" in _tables(con)
    rows = con.execute(
        f"SELECT {_columns(con)}, metadata FROM checkpoints WHERE thread_id = ? ORDER BY 1, 2 LIMIT 3",
        (thread,),
    ).fetchall()
    for _, cid, _, _, meta in rows:
        said = asked(_metadata(meta, source, f"checkpoints[checkpoint {cid}]").get("writes"))
        if not said and has_writes:
            values = [
                decode_blob(kind, value, source, f"writes[checkpoint {cid}]")
                for kind, value in con.execute(
                    "SELECT type, value FROM writes WHERE thread_id = ? AND checkpoint_id = ?"
                    " AND channel NOT LIKE '%:%'"
                    " ORDER BY task_id, idx LIMIT 20",
                    (thread, cid),
                )
            ]
            said = asked(values)
        if said:
            return said
    return ""


def _listing(threads: list[str]) -> str:
    shown = ", ".join(repr(t) for t in threads[:_SHOWN_THREADS])
    return shown + (
        f" and {len(threads) - _SHOWN_THREADS} more" if len(threads) > _SHOWN_THREADS else ""
    )
