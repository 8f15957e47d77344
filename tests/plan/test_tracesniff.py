"""load_plan / parse_plan on a run trace: the message names the trace format and the function that reads it.

Before, every trace was "not a plan in any known format ... got a mapping with keys spans, final_output", an
ATIF agent trajectory was "unknown key 'schema_version' (did you mean 'version'?)" and a SQLite file was
"invalid UTF-8 ... save the file as UTF-8". The plan stage names traces by shape only (it never imports the
trace readers): the name it gives must be the one the trace registry reads the file as.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from planviz import examples, load_plan, load_traces, parse_plan, save_trace, simulate
from planviz.errors import PlanFormatError
from planviz.io.tracesniff import trace_named

REAL = Path(__file__).parent.parent / "data" / "real"
CORPUS_TRACES = (
    "otel/any-agent_OPENAI_trace.json",
    "otel/more/AGNO_trace.json",
    "openinference/LANGCHAIN_trace_openinference.json",
    "otel-js/all-spans.json",
    "otel-js/ai-generateText.json",
    "langfuse/agno-2025-06-11.json",
    "langfuse/openai-assistants-2024-05-29.json",
    "langgraph/langgraph_docs_get_state_history_example.json",
    "langgraph/langgraph_saved_checkpoints_v3.json",
)
REAL_TRACES = (
    "phoenix/atif_simple_trajectory.spans.json",
    "phoenix/atif_multi_tool_trajectory.spans.jsonl",
    "mlflow/tool_agent.mlflow3.json",
)


def _refusal(path) -> str:
    with pytest.raises(PlanFormatError) as info:
        load_plan(path)
    return info.value.message


def _check_named(path: Path) -> None:
    fmt = load_traces(path)[0].trace_format
    message = _refusal(path)
    assert (
        f"format={fmt!r}" in message and "planviz.load_trace" in message and "not a plan" in message
    )
    text = path.read_text(encoding="utf-8")
    data = (
        [json.loads(line) for line in text.splitlines() if line.strip()]
        if path.suffix == ".jsonl"
        else json.loads(text)
    )
    assert trace_named(data)[0] == fmt
    with pytest.raises(PlanFormatError, match=f"format={fmt!r}"):
        parse_plan(text)


@pytest.mark.corpus
@pytest.mark.parametrize("name", CORPUS_TRACES)
def test_corpus_traces_are_named_with_the_registrys_format(corpus, name):
    _check_named(corpus / name)


@pytest.mark.parametrize("name", REAL_TRACES)
def test_real_traces_are_named_with_the_registrys_format(name):
    _check_named(REAL / name)


def test_planviz_own_trace(tmp_path):
    path = tmp_path / "run.jsonl"
    save_trace(simulate(examples.load("cache_isolation")), path)
    assert "format='planviz'" in _refusal(path) and "planviz.load_trace" in _refusal(path)


def test_atif_trajectory_is_named():
    message = _refusal(REAL / "atif" / "simple_trajectory.json")
    assert "ATIF agent trajectory" in message and "schema_version" not in message


def test_a_sqlite_file_that_is_no_checkpointer(tmp_path):
    path = tmp_path / "notes.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (body TEXT)")
    message = _refusal(path)
    assert "SQLite database (tables: notes)" in message and "UTF-8" not in message
    with pytest.raises(PlanFormatError, match="SQLite database"):
        parse_plan(path.read_bytes())


@pytest.mark.corpus
def test_a_langgraph_checkpoint_database(corpus, tmp_path):
    src = corpus / "langgraph" / "sqlite" / "hirokts_checkpoints.db"
    # a copy: the corpus is read-only and SQLite may want its -wal beside it
    path = tmp_path / "checkpoints.db"
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(str(src) + suffix):
            Path(str(path) + suffix).write_bytes(Path(str(src) + suffix).read_bytes())
    message = _refusal(path)
    assert "LangGraph checkpoint database" in message and "load_trace(path, thread=...)" in message


def test_a_plan_is_still_a_plan():
    assert load_plan({"goal": "g", "steps": [{"id": "A", "action": "a"}]}).ids == ("A",)


def test_load_trace_names_an_atif_trajectory_too():
    from planviz import load_trace
    from planviz.errors import TraceFormatError

    with pytest.raises(TraceFormatError, match="this is an ATIF agent trajectory"):
        load_trace(REAL / "atif" / "simple_trajectory.json")
