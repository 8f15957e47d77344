"""LangGraph histories become runs: the shared samples, snapshots written from the docs, forks, waits,
broken records."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from planviz import TraceFormatError, load_trace, load_traces, parse_trace, validate
from planviz.traces.langgraph.history import fact_of


def snap(
    cid,
    step,
    values,
    nxt=(),
    parent=None,
    second=0,
    source="loop",
    tasks=None,
    writes=None,
    thread="1",
):
    """One StateSnapshot as get_state_history() gives it, dumped to JSON."""
    cfg = {"configurable": {"thread_id": thread, "checkpoint_ns": "", "checkpoint_id": cid}}
    return {
        "values": values,
        "next": list(nxt),
        "config": cfg,
        "metadata": {"source": source, "step": step, "writes": writes},
        "created_at": f"2025-01-01T00:00:{second:02d}+00:00",
        "parent_config": None
        if parent is None
        else {"configurable": {"thread_id": thread, "checkpoint_ns": "", "checkpoint_id": parent}},
        "tasks": tasks
        if tasks is not None
        else [{"id": f"{cid}-{n}", "name": n, "error": None, "interrupts": []} for n in nxt],
    }


# --------------------------------------------------------------------------- the shared samples


@pytest.mark.corpus
def test_documented_history_example(corpus):
    run = load_trace(corpus / "langgraph" / "langgraph_docs_get_state_history_example.json")
    assert run.plan.ids == ("__start__", "node_a", "node_b")
    assert run.plan.step("node_b").depends_on == ("node_a",)
    assert run.outcome == "plan_complete"
    assert sorted(run.frame(-1).facts) == [fact_of("bar", ["a", "b"]), fact_of("foo", "b")]
    assert run.plan.premises == (fact_of("bar", []),)
    assert validate(run.plan).ok


@pytest.mark.corpus
def test_checkpoint_tuples_with_fan_out_interrupt_and_resume(corpus):
    path = corpus / "langgraph" / "langgraph_saved_checkpoints_v3.json"
    raw = json.loads(path.read_text())
    run = load_trace(path)
    nodes = {
        n
        for t in raw
        for n in t["checkpoint"]["versions_seen"]
        if not n.startswith("__") or n == "__start__"
    }
    assert set(run.plan.ids) == nodes - {"__interrupt__"}
    # certain: one node wrote its trigger
    assert run.plan.step("qa").depends_on == ("retriever_one",)
    assert run.plan.step("rewrite_query").depends_on == ("__start__",)
    inferred = next(f for f in run.plan.import_findings if f.code == "inferred_dependency")
    assert set(inferred.edges) == {
        ("analyzer_one", "retriever_one"),
        ("retriever_two", "retriever_one"),
    }
    assert "ambiguous_writer" in [f.code for f in run.plan.import_findings]
    kinds = [(e.kind, e.step) for e in run.events if e.step == "qa"]
    assert kinds == [
        ("start", "qa"),
        ("wait", "qa"),
        ("retry", "qa"),
        ("start", "qa"),
        ("complete", "qa"),
    ]
    # the wait lasts from the checkpoint whose task asked (an __interrupt__ write) to the one it resumed into
    asked = next(t for t in raw if any(w[1] == "__interrupt__" for w in t["pending_writes"]))
    resumed = next(
        t
        for t in raw
        if (t.get("parent_config") or {}).get("configurable", {}).get("checkpoint_id")
        == asked["checkpoint"]["id"]
    )
    waited = (
        datetime.fromisoformat(resumed["checkpoint"]["ts"])
        - datetime.fromisoformat(asked["checkpoint"]["ts"])
    ).total_seconds()
    wait = next(e for e in run.events if e.kind == "wait")
    resume = next(e for e in run.events if e.kind == "retry" and e.step == "qa")
    assert f"{waited:.3g} s" in wait.message and f"{waited:.3g} s" in resume.message
    assert run.frame(wait.index).statuses["qa"] == "waiting" and not any(
        e.kind == "fail" for e in run.events
    )
    assert run.outcome == "plan_complete"
    newest = raw[0]["checkpoint"]["channel_values"]
    assert fact_of("answer", newest["answer"]) in run.frame(-1).facts


# --------------------------------------------------------------------------- snapshots written from the docs

LINE = [
    snap("c0", -1, {}, ["__start__"], writes={"__start__": {"q": "x"}}),
    snap("c1", 0, {"q": "x"}, ["plan"], "c0", 1),
    snap("c2", 1, {"q": "x", "p": "draft"}, ["act"], "c1", 3, writes={"plan": {"p": "draft"}}),
    snap("c3", 2, {"q": "x", "p": "draft", "r": 1}, [], "c2", 6, writes={"act": {"r": 1}}),
]


@pytest.mark.parametrize("order", [LINE, LINE[::-1]], ids=["oldest first", "newest first"])
def test_either_order_gives_the_same_run(order):
    run = parse_trace(json.dumps(order))
    assert run.plan.ids == ("__start__", "plan", "act") and run.time == 6.0
    assert [e.time for e in run.events if e.kind == "complete"] == [1.0, 3.0, 6.0]


def test_snapshots_dumped_as_arrays_read_like_objects():
    fields = (
        "values",
        "next",
        "config",
        "metadata",
        "created_at",
        "parent_config",
        "tasks",
        "interrupts",
    )
    arrays = [
        [
            s.get(f, [])
            if f != "tasks"
            else [[t["id"], t["name"], [], None, [], None, None] for t in s["tasks"]]
            for f in fields
        ]
        for s in LINE
    ]
    assert parse_trace(json.dumps(arrays)).plan == parse_trace(json.dumps(LINE)).plan


def test_a_fork_is_a_new_plan_version_that_voids_the_abandoned_branch():
    history = LINE + [
        snap(
            "u1",
            2,
            {"q": "x", "p": "better"},
            ["act"],
            "c2",
            8,
            source="update",
            writes={"plan": {"p": "better"}},
            tasks=[{"id": "t", "name": "act", "error": None, "interrupts": []}],
        ),
        snap("c4", 3, {"q": "x", "p": "better", "r": 2}, [], "u1", 9, writes={"act": {"r": 2}}),
    ]
    run = parse_trace(json.dumps(history))
    assert [p.version for p in run.plans] == [1, 2]
    v2 = run.plans[1]
    assert v2.invalidated == ("act",) and v2.ids == ("__start__", "plan", "update", "act#2")
    assert v2.step("act#2").revises == "act"
    voiding = next(e for e in run.events if e.kind == "invalidate")
    # the update was written after the first branch ended
    assert voiding.voided == {"act"} and voiding.time == 6.0
    assert v2.step("update").depends_on == ("plan",) and v2.step("update").duration == 2.0
    assert fact_of("r", 1) not in run.frame(voiding.index).facts
    assert run.outcome == "plan_complete" and fact_of("r", 2) in run.frame(-1).facts


def test_an_interrupt_not_resumed_leaves_the_run_waiting():
    wait = [
        {
            "id": "t9",
            "name": "act",
            "error": None,
            "interrupts": [{"value": "approve?", "id": "i1"}],
        }
    ]
    run = parse_trace(
        json.dumps(
            LINE[:2]
            + [
                snap(
                    "c2",
                    1,
                    {"q": "x", "p": "draft"},
                    ["act"],
                    "c1",
                    3,
                    writes={"plan": {"p": "draft"}},
                    tasks=wait,
                )
            ]
        )
    )
    assert run.outcome is None
    last = run.events[-1]
    assert last.kind == "wait" and "approve?" in last.message and "not resumed" in last.message
    assert run.frame(-1).statuses["act"] == "waiting"


def test_a_task_error_fails_the_step_and_the_run():
    boom = [{"id": "t9", "name": "act", "error": "ValueError('no such file')", "interrupts": []}]
    run = parse_trace(
        json.dumps(
            LINE[:2]
            + [
                snap(
                    "c2",
                    1,
                    {"q": "x", "p": "draft"},
                    ["act"],
                    "c1",
                    3,
                    writes={"plan": {"p": "draft"}},
                    tasks=boom,
                )
            ]
        )
    )
    assert run.outcome == "step_failed"
    fail = next(e for e in run.events if e.kind == "fail")
    assert fail.step == "act" and "no such file" in fail.message


# --------------------------------------------------------------------------- broken histories


@pytest.mark.parametrize(
    "mutate, path, why",
    [
        (
            lambda h: h[1]["config"]["configurable"].pop("checkpoint_id"),
            "[1].config.configurable.checkpoint_id",
            "a string",
        ),
        (lambda h: h[2]["metadata"].update(step="two"), "[2].metadata.step", "integer"),
        (lambda h: h[2].update(created_at="yesterday"), "[2].created_at", "ISO 8601"),
        (lambda h: h[2].update(next="act"), "[2].next", "node names"),
        (lambda h: h[2]["tasks"].append({"id": 3}), "[2].tasks[1]", "string id and name"),
        (
            lambda h: h[3]["config"]["configurable"].update(thread_id="2"),
            "[3].config.configurable.thread_id",
            "one thread",
        ),
    ],
)
def test_bad_records_name_the_record_and_field(mutate, path, why):
    history = json.loads(json.dumps(LINE))
    mutate(history)
    with pytest.raises(TraceFormatError, match=why) as info:
        parse_trace(json.dumps(history), format="langgraph", source="h.json")
    assert info.value.path == path and info.value.source == "h.json"


def test_bad_checkpoint_tuples_name_the_write():
    record = {
        "config": {"configurable": {"thread_id": "1", "checkpoint_id": "a"}},
        "checkpoint": {"id": "a", "ts": "2025-01-01T00:00:00+00:00", "channel_values": {}},
        "metadata": {"step": -1},
        "pending_writes": [["t", "x"]],
    }
    with pytest.raises(TraceFormatError, match=r"\[task id, channel, value\]") as info:
        parse_trace(json.dumps([record]))
    assert info.value.path == "[0].pending_writes[0]"


def test_missing_parents_and_cycles_are_findings():
    history = json.loads(json.dumps(LINE))
    history[1]["parent_config"]["configurable"]["checkpoint_id"] = (
        "c3"  # c1 <- c3 <- c2 <- c1: a cycle
    )
    history[0]["parent_config"] = {"configurable": {"thread_id": "1", "checkpoint_id": "gone"}}
    run = parse_trace(json.dumps(history))
    assert "parent_cycle" in [f.code for f in run.plan.import_findings]
    assert len(run.events) > 1


# --------------------------------------------------------------------------- bad and big input (issue 29)


def test_a_checkpoint_that_is_its_own_parent_is_refused_naming_it():
    history = [snap("a", 0, {"x": 1}), snap("b", 1, {"x": 2}, parent="b")]
    with pytest.raises(
        TraceFormatError, match=r"\[1\]\.parent_config.*checkpoint 'b' names itself as its parent"
    ):
        parse_trace(json.dumps(history))


@pytest.mark.parametrize("depth", [150, 5000])
@pytest.mark.parametrize("format", [None, "langgraph"])
def test_deep_nesting_is_refused_naming_the_limit(depth, format):
    text = (
        json.dumps([snap("a", 0, {"x": 1})])[:-2]
        + ', "extra": '
        + "[" * depth
        + "1"
        + "]" * depth
        + "}]"
    )
    with pytest.raises(TraceFormatError, match=r"nesting.*MAX_DEPTH"):
        parse_trace(text, format=format)


def test_deep_values_in_python_data_are_refused():
    deep = "x"
    for _ in range(3000):
        deep = [deep]
    with pytest.raises(TraceFormatError, match=r"\[0\].*nesting deeper than"):
        load_trace([snap("a", 0, {"x": deep})])


@pytest.mark.parametrize("format", [None, "langgraph"])
def test_the_size_cap_holds_when_the_format_is_forced(format):
    text = json.dumps([snap("a", 0, {"x": "y" * 5000})])
    with pytest.raises(TraceFormatError, match="larger than 1,000 characters.*MAX_TRACE_BYTES"):
        parse_trace(text, format=format, max_bytes=1000)


@pytest.mark.parametrize(
    "given, said",
    [
        (
            {
                "messages": [
                    {
                        "lc": 1,
                        "type": "constructor",
                        "id": ["langchain", "schema", "messages", "HumanMessage"],
                        "kwargs": {"content": "What is  the weather?", "type": "human"},
                    }
                ]
            },
            "What is the weather?",
        ),
        ({"messages": [{"type": "human", "content": "hello"}]}, "hello"),
        (
            {
                "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "sum 2 and 3"},
                ]
            },
            "sum 2 and 3",
        ),
        ("plan my trip", "plan my trip"),
        ({"foo": ""}, ""),
        ({"messages": [{"type": "ai", "content": "no user here"}]}, ""),
    ],
)
def test_the_goal_is_what_the_user_asked(given, said):
    from planviz.traces.langgraph.langgraphversions import asked

    assert asked(given) == said


def test_database_threads_are_named_by_their_first_question(corpus):
    db = corpus / "langgraph" / "sqlite" / "hirokts_checkpoints.db"
    for run in load_traces(db):
        assert '"lc"' not in run.plans[0].goal and "constructor" not in run.plans[0].goal


def _micros(text):
    """ISO text to integer microseconds since the epoch, by hand (no float in between)."""
    delta = datetime.fromisoformat(text) - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


@pytest.mark.corpus
@pytest.mark.parametrize(
    "name, field",
    [
        ("langgraph_docs_get_state_history_example.json", "created_at"),
        ("langgraph_saved_checkpoints_v3.json", "ts"),
    ],
)
def test_node_runs_end_at_their_checkpoint_to_the_microsecond(corpus, name, field):
    """A float of seconds since 1970 holds a checkpoint's time only to about 0.2 us: a node run of 1.608 ms read
    1.6078948974609375 ms. Each node run ends at its checkpoint's time, and lasts what the checkpoints say."""
    raw = json.loads((corpus / "langgraph" / name).read_text())
    records = raw["history"] if isinstance(raw, dict) else raw
    times = sorted(_micros(r[field] if field in r else r["checkpoint"][field]) for r in records)
    run = load_trace(corpus / "langgraph" / name)
    ends = sorted({e.time for e in run.events if e.kind == "complete"})
    assert len(ends) == len(times) - 1
    assert ends == [pytest.approx((t - times[0]) / 1e6, abs=1e-12) for t in times[1:]]
    if name.startswith("langgraph_docs"):  # a chain: each node ran from one checkpoint to the next
        assert [s.duration for s in run.plan.steps] == [
            pytest.approx((b - a) / 1e6, abs=1e-12) for a, b in zip(times, times[1:])
        ]
