"""Every number a trace reader reads is refused out of float range with the file named, never a crash
(issue 42 item 3): in a real file of each format, each numeric field in turn (a seeded sample) holds an integer
of 401 digits or ``1e999`` (as a JSON number, and as text where the field holds digits as text); ``parse_trace``
reads it or raises a :class:`~planviz.PlanvizError` naming the file, never ``OverflowError``, ``ValueError`` or
``ZeroDivisionError``, and what it reads ``save_trace`` writes and ``load_trace`` reads back.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

import planviz

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
REAL = ROOT / "tests" / "data" / "real"

FILES = [
    CORPUS / "otel" / "any-agent_OPENAI_trace.json",
    CORPUS / "otel" / "more" / "TINYAGENT_trace.json",
    CORPUS / "openinference" / "SMOLAGENTS_trace_openinference.json",
    CORPUS / "langfuse" / "openai-agents-2025-09-30.json",
    CORPUS / "langfuse" / "langgraph-2025-08-22.json",
    CORPUS / "otel-js" / "ai-generateText.json",
    CORPUS / "langgraph" / "langgraph_saved_checkpoints_v3.json",
    CORPUS / "langgraph" / "langgraph_docs_get_state_history_example.json",
    REAL / "phoenix" / "atif_simple_trajectory.spans.json",
    REAL / "mlflow" / "tool_agent.mlflow3.json",
    REAL / "otel-js" / "ai-streamText-doStream.json",
    REAL / "langfuse" / "pydantic-ai-tools-2025-12-04.json",
]

BIG = "1" + "0" * 400
HUGE = "1e999"
_DIGITS = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")
_SENTINEL = "\u2603number\u2603"


def _numbers(value, where=(), nested=False):
    """The path of every number, and of every string of digits, in parsed JSON; ``nested``: and in JSON text held
    in a string (MLflow's attributes), the path going through :data:`_JSON` into it."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _numbers(v, where + (k,), nested)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _numbers(v, where + (i,), nested)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield where, False
    elif isinstance(value, str) and _DIGITS.fullmatch(value):
        yield where, True
    elif nested and isinstance(value, str) and value[:1] in "{[":
        try:
            inner = json.loads(value)
        except ValueError:
            return
        yield from _numbers(inner, where + (_JSON,), nested)


_JSON = "<json text>"


def _with(raw, where, text: bool, number: str) -> str:
    value = json.loads(json.dumps(raw))
    if _JSON in where:  # the number sits in JSON text held in a string: rewrite that text
        i = where.index(_JSON)
        node = value
        for key in where[: i - 1]:
            node = node[key]
        node[where[i - 1]] = _with(json.loads(node[where[i - 1]]), where[i + 1 :], text, number)
        return json.dumps(value)
    *parents, last = where
    node = value
    for key in parents:
        node = node[key]
    node[last] = number if text else _SENTINEL
    return json.dumps(value).replace(json.dumps(_SENTINEL), number)


def _own_trace() -> tuple[str, list]:
    from planviz.traces.own.tracefile import run_to_lines

    run = planviz.simulate(planviz.examples.load("cache_isolation"))
    return "own.jsonl", [json.loads(line) for line in run_to_lines(run)]


def _cases() -> list:
    return list(_case_iter())


def _case_iter():
    for path in FILES:
        yield pytest.param(path, id=path.name)
    yield pytest.param(None, id="planviz-jsonl")


@pytest.mark.parametrize("path", _cases())
def test_a_number_out_of_float_range_anywhere_in_a_real_trace_is_read_or_refused_naming_the_file(
    path, tmp_path
):
    if path is None:
        name, records = _own_trace()
        fields = [((i,) + w, t) for i, r in enumerate(records) for w, t in _numbers(r)]
        raw = records
    else:
        if not path.is_file():
            pytest.skip(f"{path} is not here")
        name, raw = path.name, json.loads(path.read_text(encoding="utf-8"))
        fields = list(_numbers(raw))
    assert fields, name
    rnd = random.Random(f"numbers-{name}")
    for where, text in rnd.sample(fields, min(120, len(fields))):
        for number in (BIG, HUGE):
            if path is None:
                lines = [json.dumps(r) for r in raw]
                lines[where[0]] = _with(raw[where[0]], where[1:], text, number)
                doc = "\n".join(lines) + "\n"
            else:
                doc = _with(raw, where, text, number)
            source = f"{name}@{'.'.join(map(str, where))}"
            try:
                run = planviz.parse_trace(doc, source=source)
            except planviz.PlanvizError as exc:
                assert source in str(exc), (where, number[:8], str(exc)[:300])
                continue
            except (OverflowError, ValueError, ZeroDivisionError) as exc:
                raise AssertionError(
                    f"{source} = {number[:8]}...: {type(exc).__name__}: {exc}"
                ) from exc
            out = tmp_path / "t.jsonl"
            planviz.save_trace(run, out)
            back = planviz.load_trace(out)
            assert [(e.kind, e.step) for e in back.events] == [
                (e.kind, e.step) for e in run.events
            ], source


# -- integers: a token count of 401 digits is refused naming the field, in every format ---------------------------

_COUNTS = ("input_tokens", "output_tokens", "reasoning_tokens", "cached_tokens", "total_tokens")


def _name(raw, where) -> str:
    """The name a number stands under: its key, or for an OTLP attribute ``{"key": k, "value": {"intValue": n}}``
    the attribute's key."""
    last = where[-1]
    if _JSON in where:
        return str(last)
    if last in ("intValue", "doubleValue") and len(where) >= 2:
        node = raw
        for key in where[:-2]:
            node = node[key]
        return str(node.get("key", last))
    return str(last)


def _token_fields(raw) -> list:
    """Every number (or digit text) stated as a token count: a name with ``token`` in it, or under a usage object."""
    return [
        (w, t, _name(raw, w))
        for w, t in _numbers(raw, nested=True)
        if "token" in _name(raw, w).lower() or any("usage" in str(k).lower() for k in w[:-1])
    ]


def _huge_counts(run) -> list:
    return [
        getattr(c, k)
        for c in run.model_calls
        for k in _COUNTS
        if getattr(c, k) is not None and getattr(c, k) > 1e308
    ]


@pytest.mark.parametrize("path", _cases())
def test_a_token_count_of_401_digits_is_refused_naming_the_field_in_every_format(path):
    if path is None:
        name, records = _own_trace()
        call = {
            "type": "model_call",
            "model_call": {
                "model": "m",
                "start": 0.0,
                "input_tokens": 7,
                "output_tokens": 3,
                "reasoning_tokens": 1,
                "cached_tokens": 2,
                "total_tokens": 10,
            },
        }
        raw = records[:-1] + [call, records[-1]]
        fields = [((i,) + w, t, n) for i, r in enumerate(raw) for w, t, n in _token_fields(r)]
    else:
        if not path.is_file():
            pytest.skip(f"{path} is not here")
        name, raw = path.name, json.loads(path.read_text(encoding="utf-8"))
        fields = _token_fields(raw)
    refused = 0
    for where, text, field in fields[:60]:
        if path is None:
            lines = [json.dumps(r) for r in raw]
            lines[where[0]] = _with(raw[where[0]], where[1:], text, BIG)
            doc = "\n".join(lines) + "\n"
        else:
            doc = _with(raw, where, text, BIG)
        source = f"{name}@{'.'.join(map(str, where))}"
        try:
            run = planviz.parse_trace(doc, source=source)
        except planviz.PlanvizError as exc:
            assert source in str(exc) and field in str(exc), (where, str(exc)[:300])
            refused += 1
            continue
        assert not _huge_counts(run), f"{source}: a token count of 401 digits was kept"
    read = planviz.parse_trace(
        "\n".join(map(json.dumps, raw)) + "\n" if path is None else json.dumps(raw)
    )
    # it reads token counts
    if any(getattr(c, k) is not None for c in read.model_calls for k in _COUNTS):
        assert refused, f"{name}: no token count refused among {len(fields)} fields"


# -- numbers inside LangGraph checkpoint blobs (SqliteSaver databases: msgpack and JSON) -----------------------------

DATABASES = sorted(p for p in (REAL / "langgraph").iterdir() if p.suffix in (".db", ".sqlite"))


class _Ext:
    """A msgpack extension value kept whole: its code and its payload, decoded when it is msgpack itself."""

    def __init__(self, code: int, data: bytes) -> None:
        import msgpack

        self.code, self.data, self.inner = code, data, None
        try:
            self.inner = [_unpack(data)]
        except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
            pass


def _unpack(blob: bytes):
    import msgpack

    return msgpack.unpackb(blob, ext_hook=_Ext, raw=False, strict_map_key=False, timestamp=0)


def _pack(value) -> bytes:
    import msgpack

    def ext(obj):
        if isinstance(obj, _Ext):
            return msgpack.ExtType(obj.code, obj.data if obj.inner is None else _pack(obj.inner[0]))
        raise TypeError(type(obj))

    return msgpack.packb(value, default=ext, use_bin_type=True, datetime=False)


def _blob_numbers(value, where=()):
    """The path of every number in a decoded msgpack value, into extension payloads (``inner``) too."""
    if isinstance(value, _Ext):
        if value.inner is not None:
            yield from _blob_numbers(value.inner, where + ("<ext>",))  # then 0: the payload
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _blob_numbers(v, where + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _blob_numbers(v, where + (i,))
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield where


def _blob_with(blob: bytes, where, number: float) -> bytes:
    holder = [_unpack(blob)]
    path = (0, *where)
    node = holder
    for key in path[:-1]:
        node = node.inner if key == "<ext>" else node[key]
    node[path[-1]] = number
    return _pack(holder[0])


def _cells(path: Path) -> list:
    """Every blob of the database: ``(table, rowid, column, kind, bytes)``; metadata (and checkpoints before
    LangGraph 0.2) are JSON."""
    import sqlite3

    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    columns = {r[1] for r in con.execute("PRAGMA table_info(checkpoints)")}
    cells = []
    typed = "type" in columns
    for rowid, kind, blob, meta in con.execute(
        f"SELECT rowid, {'type' if typed else 'NULL'}, checkpoint, metadata FROM checkpoints"
    ):
        cells.append(("checkpoints", rowid, "checkpoint", kind if typed else "json", blob))
        cells.append(("checkpoints", rowid, "metadata", "json", meta))
    if "writes" in tables:
        for rowid, kind, blob in con.execute("SELECT rowid, type, value FROM writes"):
            cells.append(("writes", rowid, "value", kind, blob))
    con.close()
    return [c for c in cells if c[4] is not None and c[3] in ("msgpack", "json")]


def _put(path: Path, cell, blob: bytes) -> None:
    import sqlite3

    table, rowid, column = cell[:3]
    con = sqlite3.connect(path)
    con.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (blob, rowid))
    con.commit()
    con.close()


def _kinds(runs) -> list:
    return [[(e.kind, e.step) for e in r.events] for r in runs]


@pytest.mark.parametrize("path", DATABASES, ids=[p.name for p in DATABASES])
def test_a_number_out_of_float_range_in_a_checkpoint_blob_is_read_or_refused_naming_the_file(
    path, tmp_path
):
    import shutil

    cells = _cells(path)
    places = []
    for cell in cells:
        if cell[3] == "msgpack":
            # the rewriting keeps every other byte
            assert _pack(_unpack(cell[4])) == bytes(cell[4]), cell[:3]
            places += [(cell, w, True) for w in _blob_numbers(_unpack(cell[4]))]
        else:
            raw = json.loads(bytes(cell[4]).decode("utf-8"))
            places += [(cell, w, t) for w, t in _numbers(raw)]
    assert places, path.name
    assert any(c[3] == "msgpack" for c, _, _ in places) or "finnegan1" in path.name
    rnd = random.Random(f"blob-numbers-{path.name}")
    for cell, where, flag in rnd.sample(places, min(25, len(places))):
        for number in (float("inf"), float("nan")) if cell[3] == "msgpack" else (BIG, HUGE):
            copy = tmp_path / f"{path.stem}@{cell[0]}.{cell[1]}.{cell[2]}{path.suffix}"
            shutil.copyfile(path, copy)
            if cell[3] == "msgpack":
                _put(copy, cell, _blob_with(bytes(cell[4]), where, number))
            else:
                _put(
                    copy,
                    cell,
                    _with(json.loads(bytes(cell[4]).decode("utf-8")), where, flag, number).encode(),
                )
            shown = f"{copy.name} {'.'.join(map(str, where))} = {str(number)[:8]}"
            try:
                runs = planviz.load_traces(copy)
            except planviz.PlanvizError as exc:
                assert copy.name in str(exc), (shown, str(exc)[:300])
                continue
            except (OverflowError, ValueError, ZeroDivisionError) as exc:
                raise AssertionError(f"{shown}: {type(exc).__name__}: {exc}") from exc
            for i, run in enumerate(runs):
                out = tmp_path / f"t{i}.jsonl"
                planviz.save_trace(run, out)
                assert _kinds([planviz.load_trace(out)]) == _kinds([run]), shown


def test_a_langgraph_step_of_401_digits_is_refused_naming_the_field():
    snap = {
        "values": {"x": 1},
        "next": [],
        "config": {"configurable": {"thread_id": "t", "checkpoint_id": "c1"}},
        "metadata": {"source": "loop", "step": "@"},
        "created_at": "2024-08-29T19:19:38+00:00",
        "tasks": [],
    }
    with pytest.raises(
        planviz.TraceFormatError, match=r"h\.json: \[0\]\.metadata\.step: .*float range"
    ):
        planviz.parse_trace(json.dumps([snap]).replace('"@"', BIG), source="h.json")
