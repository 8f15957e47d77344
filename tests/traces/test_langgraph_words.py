"""LangGraph runs in LangGraph's words, on real checkpoint databases (tests/data/real/langgraph and the corpus).

One test per variation class of issue 37: node runs are node steps, not tool calls (the tool calls are the
ToolMessages); a node that runs again in a new chat turn is no duplicate work; a channel overwritten by a
later node is an update, never a ``withdraw`` event; a model call's input and output; a tool run's result;
the goal from the first user message; a failed node named from its trigger and given no invented duration;
a database of several threads listed without reading them. The truth is read from the raw databases here
(sqlite3, msgpack with extension types kept as data), never from planviz.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import pytest

msgpack = pytest.importorskip("msgpack")

from planviz import (  # noqa: E402
    TraceFormatError,
    critical_path,
    load_trace,
    load_traces,
    metrics,
    parse_trace,
    run_usage,
    save_trace,
)
from planviz.frontends.cli.commands import main  # noqa: E402
from planviz.traces.langgraph import sqlitesaver  # noqa: E402

from .test_sqlitesaver import raw_value  # noqa: E402

REAL = Path(__file__).resolve().parents[1] / "data" / "real" / "langgraph"
# v1 checkpoints, a ReAct agent with tools, and chats without
HABTAMU = REAL / "habtamu_agent_ui_checkpoints.db"
# v2, a greeting before the user's message, one tool call
DEEJ = REAL / "deej4yng_myagent_checkpoints.db"
# v4, create_agent middleware nodes, the input as writes
MINIBOT = REAL / "minibot_agent_checkpoints_excerpt.db"
# v4, a pipeline with no messages
DIACRITIZE = REAL / "akbargherbal_diacritization_checkpoints.sqlite"
# v4, agent/tool_node/final_answer_node, a node failed and re-run
EEV = REAL / "eev_ai_checkpoints_excerpt.db"
REAL_DBS = (HABTAMU, DEEJ, MINIBOT, DIACRITIZE, EEV)
# SqliteSaver before LangGraph 0.2: thread_ts/parent_ts, JSON checkpoints, no writes table; OpenAI function_call
EARLY = REAL / "finnegan1_delivery_service_early_checkpoints.sqlite"


# ------------------------------------------------------------------------------------------- the raw truth


def raw_threads(path):
    """thread -> its checkpoints in id order: {id, parent, ts, values, meta, writes [(task, channel, value)]}."""
    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    out = {}
    for (t,) in con.execute(
        "SELECT thread_id FROM checkpoints GROUP BY thread_id ORDER BY MIN(rowid)"
    ):
        rows = []
        for cid, parent, kind, blob, meta in con.execute(
            "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints "
            "WHERE thread_id = ? ORDER BY checkpoint_id",
            (t,),
        ):
            cp = raw_value(kind, blob)
            writes = [
                (task, ch, raw_value(k, v))
                for task, ch, k, v in con.execute(
                    "SELECT task_id, channel, type, value FROM writes WHERE thread_id = ? AND checkpoint_id = ? "
                    "ORDER BY task_id, idx",
                    (t, cid),
                )
            ]
            rows.append(
                {
                    "id": cid,
                    "parent": parent,
                    "ts": datetime.fromisoformat(cp["ts"]).timestamp(),
                    "values": cp["channel_values"],
                    "meta": json.loads(meta),
                    "writes": writes,
                }
            )
        out[t] = rows
    con.close()
    return out


def messages(value):
    return value if isinstance(value, list) else []


def tool_message_ids(rows):
    """The ids of every ToolMessage any checkpoint of the thread holds: each is one tool call's result."""
    return {
        m["id"]
        for r in rows
        for m in messages(r["values"].get("messages"))
        if isinstance(m, dict) and m.get("type") == "tool"
    }


def input_ai_texts(rows):
    """The contents of the AI messages the graph was given as input (a greeting): no model call made them."""
    found, queue = (
        set(),
        [r["meta"].get("writes") for r in rows if r["meta"].get("source") == "input"],
    )
    queue += [v for r in rows for _, ch, v in r["writes"] if ch == "__start__"]
    for item in queue:
        if isinstance(item, dict):
            body = item.get("kwargs") if item.get("lc") == 1 else item
            if isinstance(body, dict) and (
                body.get("type") == "ai" or item.get("id", [""])[-1] == "AIMessage"
            ):
                found.add(body.get("content"))
            queue.extend(item.values())
        elif isinstance(item, list):
            queue.extend(item)
    return found


def errors(rows):
    """(checkpoint index, task id, error text) of every ``__error__`` write."""
    return [
        (i, task, value)
        for i, r in enumerate(rows)
        for task, ch, value in r["writes"]
        if ch == "__error__"
    ]


def forked(rows):
    children = defaultdict(int)
    for r in rows:
        children[r["parent"]] += 1
    return any(n > 1 for p, n in children.items() if p is not None)


def text(message):
    content = message.get("content")
    return (
        content
        if isinstance(content, str)
        else "\n".join(b["text"] for b in content if "text" in b)
    )


_RAW: dict = {}


def raw(path):
    if path not in _RAW:
        _RAW[path] = raw_threads(path)
    return _RAW[path]


def runs_of(path):
    key = ("runs", path)
    if key not in _RAW:
        _RAW[key] = {r.plan.name[len("thread ") :]: r for r in load_traces(path)}
    return _RAW[key]


# ------------------------------------------------------------------------------------------------ the tests


@pytest.mark.parametrize("path", REAL_DBS, ids=lambda p: p.name)
def test_tool_calls_are_the_tool_messages_not_the_node_runs(path):
    for thread, rows in raw(path).items():
        run = runs_of(path)[thread]
        truth = len(tool_message_ids(rows))
        node_runs = sum(1 for e in run.events if e.kind == "start")
        assert run_usage(run).tool_calls == metrics(run).tool_calls == truth, (thread, node_runs)
    assert any(tool_message_ids(rows) for rows in raw(path).values()) or path in (
        MINIBOT,
        DIACRITIZE,
    )


def test_a_chat_without_tools_reports_no_tool_call(corpus):
    path = corpus / "langgraph" / "sqlite" / "hirokts_checkpoints.db"
    rows = raw(path)["test_session"]
    assert not tool_message_ids(rows) and len(rows) == 36
    assert metrics(load_trace(path, thread="test_session")).tool_calls == 0  # was 35: its node runs


@pytest.mark.parametrize("path", REAL_DBS, ids=lambda p: p.name)
def test_a_node_running_again_in_a_new_turn_is_no_duplicate_work(path):
    for thread, rows in raw(path).items():
        # time travel and a retry after a failure re-run work on purpose
        if forked(rows) or errors(rows):
            continue
        run = runs_of(path)[thread]
        turns = sum(1 for r in rows if r["meta"].get("source") == "input")
        assert metrics(run).duplicate_steps == 0, (thread, turns)


def test_the_corpus_chats_repeat_no_work(corpus):
    path = corpus / "langgraph" / "sqlite" / "hirokts_checkpoints.db"
    rows = raw(path)
    for thread in ("test_session", "name_test7", "weather_session"):
        assert not forked(rows[thread])
        turns = sum(1 for r in rows[thread] if r["meta"].get("source") == "input")
        run = load_trace(path, thread=thread)
        assert turns > 1 and metrics(run).duplicate_steps == 0  # was 18, 30 and 6


@pytest.mark.parametrize("path", REAL_DBS, ids=lambda p: p.name)
def test_a_channel_overwritten_is_an_update_not_a_withdrawn_fact(path):
    for thread, rows in raw(path).items():
        run = runs_of(path)[thread]
        assert not [e for e in run.events if e.kind == "withdraw"], thread
        if forked(rows):
            continue
        head = {k for k in rows[-1]["values"] if ":" not in k and not k.startswith("__")}
        names = [f.split(" = ")[0] for f in run.frame(-1).facts]
        # one fact per state channel at the end: every overwritten value left the state with its update
        assert len(names) == len(set(names)) and set(names) <= head, thread
        for i, e in enumerate(run.events):
            # what an update replaced: earlier values of channels it wrote
            if e.kind == "complete" and e.lost:
                written = {f.split(" = ")[0] for f in e.observation.facts}
                after = {f.split(" = ")[0] for f in run.frame(i).facts}
                assert all(
                    f.split(" = ")[0] in written or f.split(" = ")[0] not in after for f in e.lost
                ), thread


def test_the_updates_survive_the_trace_file(tmp_path):
    run = runs_of(HABTAMU)["6da3c227-f679-409b-9d2c-09882ea391a7"]
    save_trace(run, tmp_path / "run.jsonl")
    again = load_trace(tmp_path / "run.jsonl")
    assert [e.kind for e in again.events] == [e.kind for e in run.events]
    assert again.frame(-1).facts == run.frame(-1).facts
    assert [o.replaced for _, o in again.state.observations] == [
        o.replaced for _, o in run.state.observations
    ]
    assert any(o.replaced for _, o in run.state.observations)


@pytest.mark.parametrize("path", (HABTAMU, DEEJ, MINIBOT, EEV), ids=lambda p: p.name)
def test_each_model_call_has_its_input_and_output(path):
    for thread, rows in raw(path).items():
        run = runs_of(path)[thread]
        history = max((messages(r["values"].get("messages")) for r in rows), key=len)
        expected = {}
        given_ai = input_ai_texts(rows)
        for i, m in enumerate(history):
            if m.get("type") != "ai" or m["content"] in given_ai:
                continue
            given = next(
                (text(h) for h in reversed(history[:i]) if h.get("type") in ("human", "tool")), None
            )
            said = [t for t in [text(m).strip()] if t] + [
                f"{c['name']}({json.dumps(c['args'], ensure_ascii=False, sort_keys=True)})"
                for c in m["tool_calls"]
            ]
            expected[m["id"]] = (given, "\n".join(said) or None)
        calls = {c.id: (c.input, c.output) for c in run.model_calls}
        assert set(calls) == set(expected), thread  # every AI message once, none invented
        for ident, got in calls.items():
            assert got == expected[ident], (thread, ident)


def test_a_tool_run_shows_what_each_tool_returned():
    thread = "6da3c227-f679-409b-9d2c-09882ea391a7"
    rows = raw(HABTAMU)[thread]
    history = messages(rows[-1]["values"]["messages"])
    results = [m for m in history if m.get("type") == "tool"]
    assert len(results) == 3 and {m["name"] for m in results} == {"Calculator", "WebSearch"}
    run = runs_of(HABTAMU)[thread]
    told = {sid: o.data for sid, o in run.state.observations if o.data.get("tool_calls")}
    assert sorted(told) == ["tools", "tools#2"]
    assert told["tools"]["tool_calls"] == 2 and told["tools#2"]["tool_calls"] == 1
    assert told["tools"]["result"] == "\n".join(f"{m['name']}: {m['content']}" for m in results[:2])
    assert told["tools#2"]["result"] == results[2]["content"]
    assert not any("error" in d for d in told.values())  # every ToolMessage has status success
    assert all(m["status"] == "success" for m in results)


@pytest.mark.parametrize("path", (DEEJ, MINIBOT, HABTAMU), ids=lambda p: p.name)
def test_the_goal_is_the_first_user_message(path):
    for thread, rows in raw(path).items():
        first = None
        for r in rows:  # the input's writes, then the state, in the order written
            for _, _ch, value in r["writes"]:
                for m in value if isinstance(value, list) else [value]:
                    if (
                        first is None
                        and isinstance(m, dict)
                        and (m.get("role") == "user" or m.get("type") == "human")
                    ):
                        first = m["content"]
            for m in messages(r["values"].get("messages")):
                if first is None and m.get("type") == "human":
                    first = m["content"]
        assert first, thread
        assert (
            runs_of(path)[thread].plan.goal
            == f"LangGraph run (thread {thread}): {' '.join(first.split())[:100]}"
        )


def _failed_history():
    """The shape of the real failures read by hand (ferrerallan/langgraph-human-feedback, alejandro434/
    LLMs_Agents_Evals, anupamsharnagat/prreviewagent; not stored, no licence): a v4 checkpoint that scheduled
    one node (``branch:to:triage``) whose task saved only ``__error__``, and no later checkpoint."""
    conf = {"thread_id": "t", "checkpoint_ns": ""}
    return [
        {
            "config": {"configurable": {**conf, "checkpoint_id": "c0"}},
            "parent_config": None,
            "checkpoint": {
                "v": 4,
                "id": "c0",
                "ts": "2025-06-01T10:00:00.000000+00:00",
                "channel_values": {
                    "__start__": {"messages": [{"type": "human", "content": "my order?"}]}
                },
                "channel_versions": {"__start__": 1},
                "versions_seen": {"__input__": {}},
            },
            "metadata": {"source": "input", "step": -1},
            "pending_writes": [],
        },
        {
            "config": {"configurable": {**conf, "checkpoint_id": "c1"}},
            "parent_config": {"configurable": {**conf, "checkpoint_id": "c0"}},
            "checkpoint": {
                "v": 4,
                "id": "c1",
                "ts": "2025-06-01T10:00:00.003800+00:00",
                "channel_values": {
                    "messages": [{"type": "human", "content": "my order?", "id": "h1"}],
                    "branch:to:triage": None,
                },
                "channel_versions": {"__start__": 2, "messages": 2, "branch:to:triage": 2},
                "versions_seen": {"__input__": {}, "__start__": {"__start__": 1}},
            },
            "metadata": {"source": "loop", "step": 0},
            "pending_writes": [
                ["b3a7f618-0000-4000-8000-000000000001", "__error__", "ValueError('no ticket id')"]
            ],
        },
    ]


def test_a_failed_node_is_named_from_its_trigger_and_lasts_what_the_checkpoints_say():
    history = _failed_history()
    trigger = next(
        k for k in history[-1]["checkpoint"]["channel_values"] if k.startswith("branch:to:")
    )
    error = history[-1]["pending_writes"][0][2]
    span = (
        datetime.fromisoformat(history[-1]["checkpoint"]["ts"])
        - datetime.fromisoformat(history[0]["checkpoint"]["ts"])
    ).total_seconds()
    run = parse_trace(json.dumps(history))
    failed = [e for e in run.events if e.kind == "fail"]
    assert [e.step for e in failed] == [trigger[len("branch:to:") :]]  # was 'task b3a7f618'
    assert failed[0].observation.data["error"] == error and error in failed[0].message
    assert run.outcome == "step_failed" and run.time == pytest.approx(span)
    plan = run.plans[-1]
    assert plan.step("triage").duration == 0.0  # unknown: never the invented 1.0
    # the caption's makespan: 0.0038 s, not 1.0038 s
    assert critical_path(plan).makespan == pytest.approx(span)
    assert any(f.code == "unknown_duration" and "triage" in f.steps for f in plan.import_findings)


def test_a_database_of_several_threads_is_listed_without_reading_a_thread(
    monkeypatch, capsys, tmp_path
):
    rows = raw(HABTAMU)

    def unread(*args, **kwargs):
        raise AssertionError("a thread was read whole")

    monkeypatch.setattr(sqlitesaver, "tuples_of", unread)
    with pytest.raises(TraceFormatError) as caught:
        load_trace(HABTAMU)
    message = str(caught.value)
    assert f"holds {len(rows)} runs, one per thread" in message and "--thread ID" in message
    for thread, checkpoints in rows.items():
        assert f"{thread!r} ({len(checkpoints)} checkpoints" in message
    out = tmp_path / "run.svg"
    assert main(["render", str(HABTAMU), "-o", str(out)]) == 0 and not out.exists()
    shown = capsys.readouterr().out
    assert "pick one with --thread ID" in shown
    asks = {
        t: next(
            m["content"]
            for r in rs
            for m in messages(r["values"].get("messages"))
            if m["type"] == "human"
        )
        for t, rs in rows.items()
    }
    for thread, checkpoints in rows.items():
        line = next(line for line in shown.splitlines() if line.strip().startswith(thread))
        assert line.split()[1] == str(len(checkpoints)) and asks[thread] in line


def test_an_early_sqlitesaver_database_reads_with_its_function_calls():
    con = sqlite3.connect(f"file:{EARLY}?mode=ro&immutable=1", uri=True)
    columns = {r[1] for r in con.execute("PRAGMA table_info(checkpoints)")}
    assert {"thread_ts", "parent_ts"} <= columns and "checkpoint_id" not in columns
    rows = [
        (ts, parent, json.loads(cp), json.loads(meta))
        for ts, parent, cp, meta in con.execute(
            "SELECT thread_ts, parent_ts, checkpoint, metadata FROM checkpoints ORDER BY thread_ts"
        )
    ]
    threads = {t for (t,) in con.execute("SELECT DISTINCT thread_id FROM checkpoints")}
    con.close()
    assert len(threads) == 1
    thread = threads.pop()
    first = next(m["writes"]["messages"] for _, _, _, m in rows if m.get("source") == "input")
    assert first[0] == "user"  # the input as a ("user", text) pair
    history = max((r[2]["channel_values"].get("messages", []) for r in rows), key=len)
    said = []
    for m in history:
        if m["id"][-1] != "AIMessage":
            continue
        kwargs = m["kwargs"]
        call = (
            kwargs["tool_calls"][0]
            if kwargs.get("tool_calls")
            else kwargs["additional_kwargs"]["function_call"]
        )
        args = call["args"] if "args" in call else json.loads(call["arguments"])
        said.append(f"{call['name']}({json.dumps(args, sort_keys=True)})")
    run = load_trace(EARLY)  # one thread: no --thread needed
    assert run.plan.goal == f"LangGraph run (thread {thread}): {first[1]}"
    assert [c.output for c in run.model_calls] == said and all(
        c.model == "gpt-4-32k" for c in run.model_calls
    )
    assert metrics(run).tool_calls == 0  # routing function calls, no ToolMessage: no tool ran
    assert len(run.plan.steps) == len(rows) - 1 and run.time == pytest.approx(
        (
            datetime.fromisoformat(rows[-1][2]["ts"]) - datetime.fromisoformat(rows[0][2]["ts"])
        ).total_seconds()
    )


def test_a_tool_message_of_status_error_is_the_steps_error():
    """LangGraph's ToolNode turns a tool's exception into a ToolMessage of status "error" (no stored real file
    holds one; the shape is ToolNode's, as a checkpoint tuple export writes it)."""
    conf = {"thread_id": "t", "checkpoint_ns": ""}
    ask = {
        "type": "ai",
        "content": "",
        "id": "a1",
        "tool_calls": [{"name": "lookup", "args": {"q": "x"}, "id": "c1"}],
    }
    told = {
        "type": "tool",
        "content": "Error: KeyError('x')\n Please fix your mistakes.",
        "name": "lookup",
        "id": "m2",
        "tool_call_id": "c1",
        "status": "error",
    }
    history = [  # get_state_history() snapshots: the tools node scheduled, then what it wrote
        {
            "values": {"messages": [ask]},
            "next": ["tools"],
            "config": {"configurable": {**conf, "checkpoint_id": "c0"}},
            "metadata": {"source": "loop", "step": 1},
            "created_at": "2025-01-01T00:00:00+00:00",
            "tasks": [{"id": "k1", "name": "tools", "error": None, "interrupts": []}],
        },
        {
            "values": {"messages": [ask, told]},
            "next": [],
            "config": {"configurable": {**conf, "checkpoint_id": "c1"}},
            "metadata": {"source": "loop", "step": 2, "writes": {"tools": {"messages": [told]}}},
            "created_at": "2025-01-01T00:00:02+00:00",
            "parent_config": {"configurable": {**conf, "checkpoint_id": "c0"}},
            "tasks": [],
        },
    ]
    run = parse_trace(json.dumps(history))
    data = dict(run.state.observations)["tools"].data
    assert data["tool_calls"] == 1 and data["error"] == told["content"] and "result" not in data
    assert metrics(run).tool_calls == 1


def test_a_real_failed_node_is_named_from_its_trigger_with_its_error():
    thread = "36a6b780-2354-453f-8b8c-f1d33b15460b"
    rows = raw(EEV)[thread]
    ((at, task, error),) = errors(rows)
    scheduled = [k[len("branch:to:") :] for k in rows[at]["values"] if k.startswith("branch:to:")]
    assert len(scheduled) == 1  # the one node its checkpoint scheduled: the task that failed ran it
    run = runs_of(EEV)[thread]
    failed = [e for e in run.events if e.kind == "fail"]
    assert len(failed) == 1 and failed[0].step.split("#")[0] == scheduled[0]  # was 'task 019b7599'
    assert failed[0].observation.data["error"] == error and error in failed[0].message
    assert failed[0].time == pytest.approx(rows[at]["ts"] - rows[0]["ts"], abs=1e-6)
    # re-run when the graph was invoked again: a retry, then the node completes; the run ends complete
    assert [e.kind for e in run.events if e.step == failed[0].step][-3:] == [
        "retry",
        "start",
        "complete",
    ]
    assert run.outcome == "plan_complete" and not rows[-1]["writes"]
