"""Structure-aware fuzzing of the span readers with mutations of the corpus's real files (issue 29).

Per format (OpenTelemetry, OpenInference, Langfuse, OpenTelemetry JS), 10,000 documents with a fixed seed:
each is a real record with one to three edits (a value replaced by a hostile one: odd types, digit strings
int() refuses, huge or negative numbers, lone surrogates, deep nesting; a key dropped; a value wrapped in a
list). Every document goes through the reader's own record reader (where untrusted values enter), and every
25th document, placed among the file's other records, through the whole ``load_trace`` (the run, its
dependencies, its model calls, the machine). Only planviz's own errors may come out.
"""

from __future__ import annotations

import copy
import json
import random
import traceback
from typing import Any, Callable

import pytest

from planviz import PlanvizError, load_trace

DOCUMENTS = 10_000
FULL_EVERY = 25
HOSTILE: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    2**70,
    -(10**30),
    1.5,
    -0.0,
    "",
    "²",
    "--5",
    "٣",
    "9" * 5000,
    "0x",
    "x" * 3000,
    "\udc80",
    "null",
    "[1, 2",
    '{"args": [], "kwargs": 5}',
    '{"a": [[[[]]]]}',
    [],
    {},
    [[[]]],
    [None],
    {"a": {"b": [1]}},
    ["ERROR"],
    {"code": [2]},
    [1, 2, 3],
    "2025-13-45T99:99:99Z",
    "1e999",
    [1770131992],
    [1770131992, -5],
    [2**40, 0],
]


def _deep(n: int) -> Any:
    value: Any = "x"
    for _ in range(n):
        value = [value]
    return value


HOSTILE.append(_deep(150))


def _paths(value: Any, path: tuple = (), out: list | None = None, depth: int = 0) -> list[tuple]:
    out = [] if out is None else out
    out.append(path)
    if depth < 8:
        if isinstance(value, dict):
            for k, v in value.items():
                _paths(v, path + (k,), out, depth + 1)
        elif isinstance(value, list):
            for i, v in enumerate(value[:6]):
                _paths(v, path + (i,), out, depth + 1)
    return out


def mutate(record: Any, rnd: random.Random) -> Any:
    """A copy of ``record`` with one to three edits at random places."""
    record = copy.deepcopy(record)
    for _ in range(rnd.randint(1, 3)):
        paths = _paths(record)
        path = rnd.choice(paths[1:] or paths)
        if not path:
            return rnd.choice(HOSTILE)
        parent = record
        for key in path[:-1]:
            parent = parent[key]
        op = rnd.random()
        if op < 0.15 and isinstance(parent, dict):
            del parent[path[-1]]
        elif op < 0.25:
            parent[path[-1]] = [parent[path[-1]]]
        else:
            parent[path[-1]] = copy.deepcopy(rnd.choice(HOSTILE))
    return record


def _fuzz(
    records: list[Any], read_one: Callable[[Any], Any], whole: Callable[[list[Any]], Any], seed: int
) -> None:
    rnd = random.Random(seed)
    for n in range(DOCUMENTS):
        i = rnd.randrange(len(records))
        bad = mutate(records[i], rnd)
        try:
            read_one(bad)
            if n % FULL_EVERY == 0:
                whole(records[:i] + [bad] + records[i + 1 :])
        except PlanvizError:
            pass
        except Exception:  # noqa: BLE001 - the point: anything else is a bug, shown with the document
            pytest.fail(
                f"document {n} (seed {seed}, record {i}) raised a non-planviz error:\n"
                f"{json.dumps(bad, default=repr)[:2000]}\n{traceback.format_exc()}"
            )


def _span_records(corpus, folder: str) -> list[dict]:
    out = []
    for path in sorted((corpus / folder).rglob("*.json")):
        data = json.loads(path.read_text())
        out.extend(data["spans"] if isinstance(data, dict) else data)
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("folder, seed", [("otel", 1), ("openinference", 2)])
def test_span_readers_raise_only_planviz_errors(corpus, folder, seed):
    from planviz.traces.otel.otelspans import span_of

    records = _span_records(corpus, folder)
    _fuzz(
        records,
        lambda r: span_of(r, {}, "spans[0]", 1, "fuzz.json"),
        lambda rs: load_trace({"spans": rs}),
        seed,
    )


@pytest.mark.corpus
def test_otel_js_reader_raises_only_planviz_errors(corpus):
    from planviz.traces.otel.oteljs import python_shape
    from planviz.traces.otel.otelspans import span_of

    records = _span_records(corpus, "otel-js")
    _fuzz(
        records,
        lambda r: span_of(python_shape(r, "[0]", 1, "fuzz.json"), {}, "[0]", 1, "fuzz.json"),
        lambda rs: load_trace(rs, format="otel-js"),
        3,
    )


@pytest.mark.corpus
def test_langfuse_reader_raises_only_planviz_errors(corpus):
    from planviz.traces.langfuse.export import spans_of

    exports = [json.loads(p.read_text()) for p in sorted((corpus / "langfuse").glob("*.json"))]
    records = [o for e in exports for o in e["observations"]]
    trace = exports[0]["trace"]
    _fuzz(
        records,
        lambda o: spans_of({"trace": trace, "observations": [o]}, "fuzz.json"),
        lambda os: load_trace({"trace": trace, "observations": os[:40]}, format="langfuse"),
        4,
    )


def test_the_mutations_reach_the_readers():
    """The fuzzer is no test that cannot fail: a record it mutates differs from the original, with a fixed seed."""
    rnd = random.Random(5)
    record = {"a": {"b": [1, 2]}, "c": "x"}
    assert all(mutate(record, rnd) != record for _ in range(50))
