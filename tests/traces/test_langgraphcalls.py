"""LangGraph model calls: each AI message a node run wrote is one call, counted once, with its model and tokens."""

from __future__ import annotations

import json
import sqlite3

import pytest

from planviz import load_trace, load_traces, parse_trace, run_usage, save_trace

from .test_langgraph import snap

ASK = {"type": "human", "content": "weather in Paris?", "id": "h1"}


def ai(ident, text="", model="gpt-4o", usage=None, legacy=None):
    """An AIMessage as model_dump() gives it."""
    meta = {"model_name": model} if model else {}
    if legacy:
        meta["token_usage"] = legacy
    return {
        "type": "ai",
        "content": text,
        "id": ident,
        "response_metadata": meta,
        "usage_metadata": usage,
        "tool_calls": [],
    }


def lc_ai(ident, model):
    """The same as LangChain serialises it (metadata.writes, JSON checkpointers)."""
    return {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", "AIMessage"],
        "kwargs": {"content": "", "id": ident, "type": "ai", "response_metadata": {"model": model}},
    }


TOOL = {"type": "tool", "content": "18 C", "id": "t1", "tool_call_id": "call_1"}
FIRST = ai("a1", usage={"input_tokens": 40, "output_tokens": 7, "total_tokens": 47})
SECOND = ai("a2", "18 C in Paris", legacy={"prompt_tokens": 60, "completion_tokens": 9})
AGENT = [
    snap("c0", -1, {}, ["__start__"], writes={"__start__": {"messages": [ASK]}}, source="input"),
    snap("c1", 0, {"messages": [ASK]}, ["agent"], "c0", 1, writes=None),
    snap(
        "c2",
        1,
        {"messages": [ASK, FIRST]},
        ["tools"],
        "c1",
        3,
        writes={"agent": {"messages": [FIRST]}},
    ),
    snap(
        "c3",
        2,
        {"messages": [ASK, FIRST, TOOL]},
        ["agent"],
        "c2",
        4,
        writes={"tools": {"messages": [TOOL]}},
    ),
    snap(
        "c4",
        3,
        {"messages": [ASK, FIRST, TOOL, SECOND]},
        [],
        "c3",
        8,
        writes={"agent": {"messages": [SECOND]}},
    ),
]


def calls(history):
    run = parse_trace(json.dumps(history))
    return run, [
        (c.step, c.model, c.start, c.duration, c.input_tokens, c.output_tokens, c.id)
        for c in run.model_calls
    ]


def test_each_reply_a_node_wrote_is_one_call_of_that_node_run():
    run, got = calls(AGENT)
    starts = {e.step: e.time for e in run.events if e.kind == "start"}
    assert got == [
        ("agent", "gpt-4o", starts["agent"], None, 40, 7, "a1"),
        ("agent#2", "gpt-4o", starts["agent#2"], None, 60, 9, "a2"),
    ]
    usage = run_usage(run)
    assert (usage.model_calls, usage.input_tokens, usage.output_tokens) == (2, 100, 16)


def test_langchain_serialised_replies_are_read_too():
    history = [dict(s) for s in AGENT]
    history[2] = snap("c2", 1, {"messages": [ASK, lc_ai("a1", "claude-3")]}, ["tools"], "c1", 3)
    _, got = calls(history)
    assert [(step, model, i) for step, model, *_, i in got] == [
        ("agent", "claude-3", "a1"),
        ("agent#2", "gpt-4o", "a2"),
    ]


def test_replies_carried_into_a_fork_or_written_by_the_user_are_not_calls():
    # update_state(as_node="agent") rewrites the reply: no model ran
    edited = ai("a2", "it is sunny", model=None)
    fork = AGENT + [
        snap(
            "u1",
            4,
            {"messages": [ASK, FIRST, TOOL, edited]},
            ["agent"],
            "c3",
            10,
            source="update",
            writes={"agent": {"messages": [edited]}},
        ),
        snap(
            "c5",
            5,
            {"messages": [ASK, FIRST, TOOL, edited, ai("a3", "ok")]},
            [],
            "u1",
            12,
            writes={"agent": {"messages": [ai("a3", "ok")]}},
        ),
    ]
    run, got = calls(fork)
    assert [i for *_, i in got] == ["a1", "a2", "a3"]
    assert [p.version for p in run.plans] == [1, 2] and got[-1][0] == "agent#3"


@pytest.mark.parametrize(
    "after",
    [[ASK, FIRST, SECOND], [FIRST, SECOND], [SECOND, FIRST]],
    ids=["appended", "trimmed", "reordered"],
)
def test_replies_the_history_starts_with_are_not_calls_of_this_run(after):
    history = [
        snap("c0", 0, {"messages": [ASK, FIRST]}, ["agent"]),
        snap("c1", 1, {"messages": after}, [], "c0", 2),
    ]
    _, got = calls(history)
    assert [(step, i) for step, *_, i in got] == [("agent", "a2")]


def test_replies_without_ids_count_where_a_copy_is_added():
    ok = {"type": "ai", "content": "OK", "response_metadata": {}}
    history = [
        snap("c0", 0, {"messages": [ASK]}, ["agent"], second=0),
        snap("c1", 1, {"messages": [ASK, ok]}, ["agent"], "c0", 1),
        snap("c2", 2, {"messages": [ASK, ok, ok]}, ["agent"], "c1", 2),
        snap("c3", 3, {"messages": [ASK, ok, ok], "n": 1}, [], "c2", 3),
    ]
    _, got = calls(history)
    assert [(step, model) for step, model, *_ in got] == [
        ("agent", "AI message"),
        ("agent#2", "AI message"),
    ]


def test_a_reply_no_record_ties_to_one_of_several_nodes_is_counted_without_a_step():
    both = [{"id": f"t-{n}", "name": n, "error": None, "interrupts": []} for n in ("a", "b")]
    history = [
        snap("c0", 0, {"messages": [ASK]}, ["a", "b"], tasks=both),
        snap("c1", 1, {"messages": [ASK, FIRST], "x": 1}, [], "c0", 2),
    ]
    run, got = calls(history)
    assert [(step, i) for step, *_, i in got] == [(None, "a1")]
    assert run_usage(run).model_calls == 1


@pytest.mark.parametrize("values", [{"x": 1}, {"messages": [ASK, TOOL]}])
def test_a_history_with_no_replies_records_no_calls(values):
    history = [snap("c0", 0, {}, ["n"]), snap("c1", 1, values, [], "c0", 1)]
    run, got = calls(history)
    assert got == [] and run.model_calls == ()


@pytest.mark.corpus
def test_every_reply_a_node_of_the_corpus_database_wrote_is_one_model_call(corpus):
    """The AIMessages each checkpoint's metadata.writes holds (LangChain's serialisation, read here as plain JSON
    with sqlite3), each once by id (a node may write the whole list again), with the model its response_metadata
    names, on a step of the node that wrote it."""
    path = corpus / "langgraph" / "sqlite" / "hirokts_checkpoints.db"
    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    truth: dict[str, dict] = {}
    written = 0
    for thread, meta in con.execute(
        "SELECT thread_id, metadata FROM checkpoints ORDER BY checkpoint_id"
    ):
        meta = json.loads(meta)
        for node, writes in (
            (meta.get("writes") or {}).items() if meta.get("source") == "loop" else ()
        ):
            for value in (writes or {}).values():
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, dict) and item.get("id", [None])[-1] == "AIMessage":
                        written += 1
                        kw = item["kwargs"]
                        truth.setdefault(thread, {})[kw["id"]] = (
                            node,
                            kw["response_metadata"]["model_name"],
                        )
    con.close()
    runs = load_traces(path)
    assert len(runs) == len(truth) == 23
    for run in runs:
        want = truth[run.plan.name.removeprefix("thread ")]
        node_of = {s.id: s.tool for plan in run.plans for s in plan.steps}
        assert sorted((c.id, (node_of[c.step], c.model)) for c in run.model_calls) == sorted(
            want.items()
        )
        assert run_usage(run).model_calls == len(want)
    assert sum(map(len, truth.values())) < written  # messages written again are not new calls


def test_calls_without_a_duration_keep_none_through_a_saved_trace(tmp_path):
    run = parse_trace(json.dumps(AGENT))
    save_trace(run, tmp_path / "run.jsonl")
    assert load_trace(tmp_path / "run.jsonl").model_calls == run.model_calls
    assert all(c.duration is None for c in run.model_calls)
