"""OpenTelemetry GenAI traces become runs: the shared samples, OTLP/JSON written from the spec, broken traces."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap

import pytest

from planviz import (
    TraceFormatError,
    load_trace,
    metrics,
    parse_trace,
    render,
    report_html,
    validate,
)
from planviz.pictures.escape import check_svg
from tests.runs.otlp import agent, chat, envelope, span, text, tool

OTEL = ("any-agent_OPENAI_trace.json", "any-agent_LANGCHAIN_trace.json")


def codes(run) -> list[str]:
    return [f.code for f in run.plan.import_findings]


# --------------------------------------------------------------------------- the shared samples


@pytest.mark.corpus
@pytest.mark.parametrize("name", OTEL)
def test_any_agent_traces_load_with_their_deviations_reported(corpus, name):
    raw = json.loads((corpus / "otel" / name).read_text())
    run = load_trace(corpus / "otel" / name)
    tools = [
        s for s in raw["spans"] if s["attributes"].get("gen_ai.operation.name") == "execute_tool"
    ]
    llm = [s for s in raw["spans"] if s["attributes"].get("gen_ai.operation.name") == "call_llm"]
    assert run.plan.ids == ("get_current_time", "write_file")
    assert [s.tool for s in run.plan.steps] == [s["attributes"]["gen_ai.tool.name"] for s in tools]
    assert run.plan.step("get_current_time").arguments == {"timezone": "America/New_York"}
    assert run.outcome == "plan_complete"
    assert run.plan.goal.startswith("any_agent: Find what year it is")
    deviations = " ".join(
        f.message for f in run.plan.import_findings if f.code == "deviating_attribute"
    )
    assert (
        "'gen_ai.tool.args'" in deviations
        and "'call_llm'" in deviations
        and "'gen_ai.output'" in deviations
    )
    assert "no_call_ids" in codes(run)
    inferred = next(f for f in run.plan.import_findings if f.code == "inferred_dependency")
    assert inferred.edges == (("get_current_time", "write_file"),)
    assert len(run.model_calls) == len(llm)
    assert sum(c.input_tokens for c in run.model_calls) == sum(
        s["attributes"]["gen_ai.usage.input_tokens"] for s in llm
    )
    start = min(s["start_time"] for s in raw["spans"])
    assert run.time == pytest.approx((max(s["end_time"] for s in raw["spans"]) - start) / 1e9)
    assert metrics(run).tool_calls == len(tools)


# --------------------------------------------------------------------------- OTLP/JSON from the specification


def test_otlp_envelope_with_parallel_calls_data_flow_and_a_failure():
    spans = [
        agent(1, 0, 10, name="researcher"),
        chat(2, 0, 1, user="compare two papers"),
        tool(
            3,
            "search",
            1,
            3,
            args={"q": "paper one"},
            result={"url": "https://a.example/one"},
            call_id="call_1",
        ),
        tool(
            4,
            "search",
            1,
            2,
            args={"q": "paper two"},
            result={"url": "https://b.example/two"},
            call_id="call_2",
        ),
        tool(
            5,
            "fetch",
            3.5,
            5,
            args={"url": "https://a.example/one"},
            result="text one",
            call_id="call_3",
        ),
        tool(
            6,
            "summarize",
            6,
            7,
            args={"text": "whatever"},
            error="TimeoutError: took too long",
            call_id="call_4",
        ),
    ]
    run = parse_trace(text(spans))
    plan = run.plan
    # ordered by start, ties by record
    assert plan.ids == (
        "search",
        "search#2",
        "fetch",
        "summarize",
    )
    assert plan.goal == "researcher: compare two papers"
    assert set(plan.step("fetch").depends_on) == {"search", "search#2"}
    # the data-flow edge carries the result
    assert plan.step("fetch").requires == ("search.result",)
    flow, timing = [f for f in plan.import_findings if f.code == "inferred_dependency"]
    assert flow.edges == (("search", "fetch"),)
    assert ("search#2", "fetch") in timing.edges and ("fetch", "summarize") in timing.edges
    assert run.outcome == "step_failed"
    fail = next(e for e in run.events if e.kind == "fail")
    assert (
        fail.step == "summarize"
        and fail.category == "tool_error"
        and "TimeoutError" in fail.message
    )
    assert run.frame(-1).statuses["summarize"] == "failed"
    ids = [(o.data.get("call_id"), o.ok) for _, o in run.state.observations]
    # in the order they returned
    assert ids == [
        ("call_2", True),
        ("call_1", True),
        ("call_3", True),
        ("call_4", False),
    ]
    # the failed call keeps its error text
    failed = [(sid, o) for sid, o in run.state.observations if not o.ok]
    assert [(sid, o.data.get("call_id")) for sid, o in failed] == [("summarize", "call_4")]
    assert "TimeoutError" in failed[0][1].data["error"] and failed[0][1].data["error"].endswith(
        "took too long"
    )


def test_sdk_span_json_with_hex_ids_and_iso_times_one_span_per_line():
    lines = [
        {
            "name": "execute_tool add",
            "context": {
                "trace_id": "0x5b8efff798038103d269b633813fc60c",
                "span_id": "0x00000000000000a1",
            },
            "parent_id": None,
            "start_time": "2025-01-01T00:00:01.000000Z",
            "end_time": "2025-01-01T00:00:02Z",
            "status": {"status_code": "OK"},
            "kind": "SpanKind.INTERNAL",
            "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "add"},
        },
        {
            "name": "execute_tool mul",
            "context": {
                "trace_id": "0x5b8efff798038103d269b633813fc60c",
                "span_id": "0x00000000000000a2",
            },
            "parent_id": None,
            "start_time": "2025-01-01T00:00:03Z",
            "end_time": "2025-01-01T00:00:05Z",
            "status": {"status_code": "ERROR", "description": "overflow"},
            "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "mul"},
        },
    ]
    run = load_trace(io.BytesIO("\n".join(json.dumps(x) for x in lines).encode()))
    assert run.plan.ids == ("add", "mul") and run.plan.step("mul").depends_on == ("add",)
    assert [(e.kind, e.time) for e in run.events[1:]] == [
        ("start", 0.0),
        ("complete", 1.0),
        ("start", 2.0),
        ("fail", 4.0),
        ("stop", 4.0),
    ]
    assert "overflow" in run.events[4].message


def test_a_failed_call_repeated_is_one_step_retried():
    spans = [
        agent(1, 0, 9),
        tool(2, "lookup", 1, 2, args={"id": 7}, error="HTTPError: 503"),
        tool(3, "lookup", 3, 4, args={"id": 7}, result={"name": "Ada"}),
    ]
    run = parse_trace(text(spans))
    assert run.plan.ids == ("lookup",)
    assert [e.kind for e in run.events] == [
        "propose",
        "start",
        "fail",
        "retry",
        "start",
        "complete",
        "stop",
    ]
    assert run.outcome == "plan_complete" and "retry_inferred" in codes(run)


def test_sub_agents_scope_the_timing_edges():
    spans = [
        agent(1, 0, 20, name="boss"),
        agent(2, 1, 8, parent=1, name="a"),
        agent(3, 9, 19, parent=1, name="b"),
        tool(4, "x", 2, 3, parent=2),
        tool(5, "y", 4, 7, parent=2),
        tool(6, "z", 10, 11, parent=3),
        tool(7, "w", 10, 12, parent=3),
    ]
    plan = parse_trace(text(spans)).plan
    assert plan.step("y").depends_on == ("x",)
    # via the sub-agents
    assert plan.step("z").depends_on == ("y",) and plan.step("w").depends_on == ("y",)
    assert plan.step("x").depends_on == ()


def test_a_child_outliving_its_parent_never_makes_a_cycle():
    """Found by the property below: a call nested in a span that ended before it did, at the same instant as
    a sibling of that span, once gave a -> b and b -> a."""
    spans = [
        span(16, "chat", 0, 0.25, gen_ai__operation__name="chat"),
        tool(9, "a", 0.25, 0.25, parent=None, args={"v": "alpha-1"}, result={"out": "beta-22"}),
        tool(11, "a", 0.25, None, parent=16, args={"v": "beta-22"}, result={"out": "alpha-1"}),
    ]
    run = parse_trace(text(spans))
    assert validate(run.plan).ok and run.plan.step("a#2").depends_on == ("a",)


def test_model_calls_without_tools_are_the_steps():
    run = parse_trace(text([agent(1, 0, 5), chat(2, 0, 1, user="hi"), chat(3, 2, 4)]))
    assert len(run.plan) == 2 and "no_tool_calls" in codes(run)
    assert run.outcome == "plan_complete"
    assert [(c.start, c.duration, c.step) for c in run.model_calls] == [
        (0.0, 1.0, run.plan.ids[0]),
        (2.0, 2.0, run.plan.ids[1]),
    ]


def test_an_unfinished_span_leaves_the_run_unfinished():
    run = parse_trace(text([agent(1, 0, 5), tool(2, "a", 1, 2), tool(3, "b", 3, None)]))
    assert run.outcome is None and run.events[-1].kind == "start"
    assert "unfinished_span" in codes(run)


@pytest.mark.parametrize(
    "spans, ends, outcome",
    [
        # returned under an agent that ended: it ends when the next span under the agent began...
        (
            [agent(1, 0, 5), tool(2, "a", 1, None, result="x"), chat(3, 2, 3)],
            {"a": 2.0},
            "plan_complete",
        ),
        # ...else when the agent ended
        (
            [agent(1, 0, 5), chat(3, 0, 1), tool(2, "a", 1, None, result="x")],
            {"a": 5.0},
            "plan_complete",
        ),
        # the nearest ancestor that ended bounds it, through one that did not
        (
            [
                agent(1, 0, 6),
                agent(4, 1, None, parent=1, name="sub"),
                tool(2, "a", 2, None, 4, result="x"),
            ],
            {"a": 6.0},
            "plan_complete",
        ),
        # no result, an error, or nothing above it that ended: still running when the trace was written
        ([agent(1, 0, 5), tool(2, "a", 1, None)], {}, None),
        ([agent(1, 0, 5), tool(2, "a", 1, None, result="x", error="E: no")], {}, None),
        ([tool(2, "a", 1, None, None, result="x")], {}, None),
    ],
)
def test_a_call_that_returned_but_never_ended_ends_where_its_parent_says(spans, ends, outcome):
    """Instrumentations that export a call before ending it (any-agent's TinyAgent in 2025-06) leave a call with
    its result and no end under an agent that ended: it returned, no later than the next span under its parent
    began, and no later than the span above it ended."""
    run = parse_trace(text(spans))
    done = {e.step: e.time for e in run.events if e.kind == "complete"}
    assert done == ends and run.outcome == outcome
    assert ("end_inferred" in codes(run)) == bool(ends) and ("unfinished_span" in codes(run)) == (
        outcome is None
    )


@pytest.mark.corpus
def test_the_unended_children_trace_ends_with_its_agent(corpus):
    """TinyAgent's children never ended but hold their outputs: each call ends when the next span under its
    parent began, the run when the agent span ended (it read 1.33 s, unfinished, where the agent ran 2.56 s)."""
    path = corpus / "otel" / "more" / "TINYAGENT_trace__237ca107_unended_children.json"
    spans = json.loads(path.read_text())["spans"]
    up = {id(s): (s["parent"] or {}).get("span_id") for s in spans}
    t0 = min(s["start_time"] for s in spans)
    root = next(s for s in spans if up[id(s)] is None)
    expected = {}
    for s in spans:
        if s["attributes"].get("gen_ai.operation.name") == "execute_tool":
            assert s["end_time"] is None and s["attributes"]["gen_ai.output"]
            later = [
                o["start_time"]
                for o in spans
                if up[id(o)] == up[id(s)] and o["start_time"] > s["start_time"]
            ]
            expected[s["attributes"]["gen_ai.tool.name"]] = (min(later) - t0) / 1e9
    run = load_trace(path)
    assert len(expected) == 2 and run.outcome == "plan_complete"
    assert {e.step: e.time for e in run.events if e.kind == "complete"} == pytest.approx(
        expected, abs=1e-9
    )
    assert run.time == pytest.approx((root["end_time"] - t0) / 1e9, abs=1e-9)


# --------------------------------------------------------------------------- broken traces: located errors


@pytest.mark.parametrize(
    "mutate, where, why",
    [
        (lambda s: s.pop("spanId"), "spans[1].spanId", "missing"),
        (lambda s: s.update(startTimeUnixNano="soon"), "spans[1].startTimeUnixNano", "nanoseconds"),
        (lambda s: s.update(spanId="xyz!"), "spans[1].spanId", "hex id"),
        # a flat object of attributes is read (CloudWatch's aws/spans records); text is no attributes
        (lambda s: s.update(attributes="a=1"), "spans[1].attributes", "key, value"),
        (
            lambda s: s["attributes"].append({"key": "k", "value": {"intValue": "12x"}}),
            "spans[1].attributes[2].value",
            "intValue",
        ),
        (lambda s: s.update(status={"code": 7}), "spans[1].status.code", "UNSET, OK or ERROR"),
        (
            lambda s: s["attributes"].append(
                {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "-3"}}
            ),
            "spans[1].attributes",
            "token count",
        ),
    ],
)
def test_bad_fields_name_the_record_and_the_field(mutate, where, why):
    spans = [agent(1, 0, 5), tool(2, "a", 1, 2)]
    mutate(spans[1])
    with pytest.raises(TraceFormatError, match=why) as info:
        parse_trace(text(spans), source="bad.json")
    assert info.value.source == "bad.json" and where in info.value.path


@pytest.mark.parametrize(
    "blob, why",
    [
        (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "01", ', "not valid JSON"),
        (
            b'{"resourceSpans": [{"scopeSpans": [{"spans": ["just text"]}]}]}',
            "expected a span object",
        ),
        (b'\xff\xfe{"spanId"', "UTF-8"),
    ],
)
def test_unreadable_otel_text_is_a_trace_format_error(blob, why):
    with pytest.raises(TraceFormatError, match=why):
        parse_trace(blob, format="otel")


def test_missing_parent_cycle_duplicates_and_disorder_are_findings_not_crashes():
    spans = [
        tool(9, "late", 8, 9, parent=1),
        agent(1, 0, 10),
        tool(3, "orphan", 1, 2, parent=77),
        span(4, "a", 2, 3, parent=5),
        span(5, "b", 2, 3, parent=4),
        tool(6, "in_cycle", 2.5, 2.8, parent=4),
        tool(3, "orphan again", 1, 2),
        tool(7, "odd", 4, 5, unknown__attr="x", gen_ai__future__thing=[1, 2]),
    ]
    run = parse_trace(text(spans))
    assert {"missing_parent", "parent_cycle", "duplicate_span"} <= set(codes(run))
    assert run.plan.ids == ("orphan", "in_cycle", "odd", "late")  # ordered by time, not by record
    assert run.outcome == "plan_complete"
    assert validate(run.plan).ok


def test_streaming_in_small_pieces_gives_the_same_run(monkeypatch):
    from planviz.traces import jsonstream

    spans = [agent(1, 0, 50)] + [
        tool(i, f"t{i % 3}", i, i + 0.5, args={"n": i}) for i in range(2, 40)
    ]
    whole = parse_trace(json.dumps(envelope(spans), indent=1))
    monkeypatch.setattr(jsonstream, "CHUNK", 97)
    pieces = parse_trace(json.dumps(envelope(spans), indent=1))
    assert pieces.plan == whole.plan and [e.message for e in pieces.events] == [
        e.message for e in whole.events
    ]


HOSTILE = '</script><script>alert(1)</script><img src=x onerror=alert(1)> \\N "q" <b>'


def test_hostile_attribute_text_stays_inert_in_svg_and_html(tmp_path):
    spans = [
        agent(1, 0, 9, name=HOSTILE),
        chat(2, 0, 1, user=HOSTILE),
        tool(3, HOSTILE, 1, 2, args={HOSTILE: HOSTILE}, result=HOSTILE),
        tool(4, "next", 3, 4, error=f"Boom: {HOSTILE}"),
    ]
    run = parse_trace(text(spans))
    svg = render(run.plan, run=run).svg
    root = check_svg(svg)  # parses, and refuses any script, handler, link or foreign object
    assert not {el.tag.rsplit("}", 1)[-1] for el in root.iter()} & {
        "script",
        "img",
        "image",
        "foreignObject",
    }
    assert "alert(1)" in svg  # shown as text, not run
    page = report_html(run, tmp_path / "r.html").read_text()
    body = page.split('<script type="application/octet-stream"', 1)[0]
    assert "<script>alert" not in page and "<img src=x" not in body


# --------------------------------------------------------------------------- a 50 MB trace in bounded memory


@pytest.mark.slow
def test_a_50_mb_trace_is_streamed_in_bounded_memory(tmp_path):
    """50 MB of spans (big prompts and tool results) load with a Python heap peak under half the file's size
    (json.load of the same file peaks at about twice its size): records are read one at a time and only
    what a run needs is kept. Measured with tracemalloc in a child process."""
    path = tmp_path / "big.json"
    filler = "x" * 25_000
    spans = [agent(1, 0, 3000)]
    for i in range(2, 2002):
        spans.append(
            tool(i, f"t{i % 5}", i, i + 0.5, result={"blob": filler})
            if i % 10 == 0
            else chat(i, i, i + 0.2, user=filler)
        )
    path.write_text(json.dumps(envelope(spans)))
    size = path.stat().st_size
    assert size > 50e6
    child = textwrap.dedent(f"""
        import tracemalloc, planviz
        tracemalloc.start()
        run = planviz.load_trace({str(path)!r})
        print(len(run.plan), run.outcome, tracemalloc.get_traced_memory()[1])
    """)
    out = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, timeout=600, check=True
    )
    steps, outcome, peak = out.stdout.split()
    assert int(steps) == 200 and outcome == "plan_complete"
    assert int(peak) < size / 2, (
        f"the heap peaked at {int(peak) / 1e6:.0f} MB reading a {size / 1e6:.0f} MB trace"
    )


# --------------------------------------------------------------------------- any trace: a run over a DAG

from hypothesis import (  # noqa: E402
    given,
    settings,
    strategies as st,  # noqa: E402
)


@st.composite
def random_traces(draw):
    """Spans with random parents (missing ones and cycles included), times, tools, arguments and results."""
    n = draw(st.integers(1, 25))
    spans = []
    for i in range(2, n + 2):
        start = draw(st.integers(0, 40)) / 4
        end = None if draw(st.integers(0, 15)) == 0 else start + draw(st.integers(0, 12)) / 4
        parent = draw(st.sampled_from([None, 1, 99] + list(range(2, n + 2))))
        kind = draw(st.sampled_from(["tool", "tool", "tool", "chat", "agent"]))
        value = draw(st.sampled_from(["alpha-1", "beta-22", "gamma", 1234, "x"]))
        if kind == "tool":
            spans.append(
                tool(
                    i,
                    draw(st.sampled_from("abc")),
                    start,
                    end,
                    parent,
                    args={"v": value},
                    result={"out": draw(st.sampled_from(["alpha-1", "beta-22", "zeta"]))},
                    error="E: bad" if draw(st.integers(0, 5)) == 0 else "",
                )
            )
        elif kind == "chat":
            spans.append(chat(i, start, end if end is not None else start, parent))
        else:
            spans.append(agent(i, start, end if end is not None else start + 1, parent))
    return spans


@settings(max_examples=150, deadline=None)
@given(random_traces())
def test_any_trace_loads_as_a_run_over_a_dag(spans):
    """Inferred dependencies never form a cycle, never name a missing step, and the run obeys the machine."""
    run = parse_trace(text(spans))
    report = validate(run.plan)
    assert not [f for f in report.findings if f.layer == "structure" and f.code != "no_steps"], (
        report.to_text()
    )
    # a trace with no tool call plans nothing
    assert ("no_steps" in report.codes) == (not run.plan.steps)
    ids = set(run.plan.ids)
    assert all(d in ids for s in run.plan.steps for d in s.depends_on)
    assert [e.index for e in run.events] == list(range(len(run.events)))
    assert all(a.time <= b.time for a, b in zip(run.events, run.events[1:]))
    assert (run.outcome is None) == _left_running(spans)


def _left_running(spans):
    """Whether a tool call is still running by the raw spans: no end, and not a call that returned (a result, no
    error) under an ancestor that ended (which ends it). Parents as the reader documents them: a repeated id keeps
    its first span, a missing parent makes a top-level span, a cycle is cut at its earliest span (start, id)."""
    by_id = {}
    for s in spans:
        by_id.setdefault(s["spanId"], s)
    parent = {
        i: s["parentSpanId"] if s["parentSpanId"] in by_id else None for i, s in by_id.items()
    }
    for i in by_id:
        path, node = [], i
        while node is not None and node not in path:
            path.append(node)
            node = parent[node]
        if node is not None:
            cycle = path[path.index(node) :]
            parent[min(cycle, key=lambda x: (int(by_id[x]["startTimeUnixNano"]), x))] = None

    def ended_above(i):
        up = parent[i]
        while up is not None and not by_id[up]["endTimeUnixNano"]:
            up = parent[up]
        return up is not None

    return any(
        not s["endTimeUnixNano"]
        and (
            s["status"]["code"] == 2
            or not ended_above(i)
            or not any(a["key"] == "gen_ai.tool.call.result" for a in s["attributes"])
        )
        for i, s in by_id.items()
        if s["name"].startswith("execute_tool")
    )


def test_the_tool_tier_attribute_fills_the_steps_effect():
    spans = [
        agent(1, 0, 10, name="analyst"),
        chat(2, 0, 1, user="look up the account"),
        tool(
            3,
            "lookup",
            1,
            2,
            args={"id": "C-17"},
            result={"balance": 1},
            gen_ai__agent__tool__tier="read",
        ),
        tool(
            4,
            "send_offer",
            3,
            4,
            args={"id": "C-17"},
            result="sent",
            gen_ai__agent__tool__tier="Write",
        ),
        tool(5, "drop_table", 5, 6, args={}, result="ok", gen_ai__agent__tool__tier="destructive"),
        tool(6, "note", 7, 8, args={}, result="ok", gen_ai__agent__tool__tier="sometimes"),
    ]
    raw = json.loads(text(spans))
    tiers = {}
    for scope in raw["resourceSpans"][0]["scopeSpans"]:
        for s in scope["spans"]:
            attrs = {a["key"]: a["value"].get("stringValue") for a in s["attributes"]}
            if "gen_ai.tool.name" in attrs:
                tier = (attrs.get("gen_ai.agent.tool.tier") or "").lower()
                tiers[attrs["gen_ai.tool.name"]] = (
                    tier if tier in ("read", "write", "destructive") else None
                )
    plan = parse_trace(text(spans)).plan
    assert {s.tool: s.effect for s in plan.steps} == tiers
    assert {
        f.code for f in validate(plan, __import__("planviz").Contract(intent="read")).errors
    } >= {"outside_intent", "unverified_effect"}


def test_two_waves_of_parallel_calls_give_linear_timing_edges():
    from planviz.traces.otel.spandependencies import MAX_PREDECESSORS

    spans = (
        [agent(1, 0, 100)]
        + [tool(i + 2, f"a{i}", 1, 2) for i in range(20)]
        + [tool(i + 30, f"b{i}", 3, 4) for i in range(20)]
    )
    run = parse_trace(text(spans))
    assert all(len(run.plan.step(f"b{i}").depends_on) == MAX_PREDECESSORS for i in range(20))
    assert all(not run.plan.step(f"a{i}").depends_on for i in range(20))
    timing = [f for f in run.plan.import_findings if f.code == "inferred_dependency"][-1]
    assert (
        len(timing.edges) == 20 * MAX_PREDECESSORS
        and f"linked to the {MAX_PREDECESSORS}" in timing.message
    )


def test_a_retry_storm_is_one_step_retried():
    spans = [agent(1, 0, 10**4)] + [
        tool(i + 2, "fetch", 2 * i + 1, 2 * i + 2, args={"u": "x"}, error="boom")
        for i in range(300)
    ]
    run = parse_trace(text(spans))
    assert run.plan.ids == ("fetch",)
    assert sum(e.kind == "retry" for e in run.events) == 299 and run.outcome == "step_failed"


def _decoded(value):
    """JSON text decoded until it is no longer JSON text (the raw attribute, read by hand)."""
    while isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            break
    return value


@pytest.mark.corpus
def test_every_otel_sample_gives_each_tool_call_its_arguments_decoded_however_often_encoded(corpus):
    """any-agent's OpenAI Agents trace of 2025-07 holds gen_ai.tool.args as JSON text of JSON text: the
    arguments are the object inside, not that text under 'input'."""
    files = sorted((corpus / "otel").glob("*.json")) + sorted(
        (corpus / "otel" / "more").glob("*.json")
    )
    assert len(files) == 9
    twice = 0
    for path in files:
        spans, seen = [], set()
        for s in json.loads(path.read_text())["spans"]:  # a repeated span id: the first is kept
            if (
                s["context"]["span_id"] not in seen
                and s["attributes"].get("gen_ai.operation.name") == "execute_tool"
            ):
                spans.append(s)
            seen.add(s["context"]["span_id"])
        spans.sort(key=lambda s: s["start_time"])
        expected = [
            (s["attributes"]["gen_ai.tool.name"], _decoded(s["attributes"]["gen_ai.tool.args"]))
            for s in spans
        ]
        twice += sum(
            isinstance(json.loads(s["attributes"]["gen_ai.tool.args"]), str) for s in spans
        )
        run = load_trace(path)
        if not spans:
            continue
        started = [e.step for e in run.events if e.kind == "start"]
        assert [
            (run.plan.step(sid).tool, run.plan.step(sid).arguments) for sid in started
        ] == expected, path.name
    assert twice == 2  # the sample the test is for still holds them


@pytest.mark.corpus
def test_no_call_waits_for_a_call_of_another_trace(corpus):
    """A trace is one request: timing says nothing about calls of two traces in one file (the OTel JS sample
    holds five model calls, each in its own trace, that were read as a chain of four inferred waits)."""
    paths = (
        sorted((corpus / "otel").glob("*.json"))
        + sorted((corpus / "otel" / "more").glob("*.json"))
        + sorted((corpus / "openinference").glob("*.json"))
        + sorted((corpus / "otel-js").glob("*.json"))
    )
    edges = several = 0
    for path in paths:
        raw = json.loads(path.read_text())
        spans = raw["spans"] if isinstance(raw, dict) else raw
        if "spanContext" in spans[0]:  # OTel JS: hex ids
            trace_of = {s["spanContext"]["spanId"]: s["spanContext"]["traceId"] for s in spans}
        else:  # the Python SDK: integer ids, read as 16 hex digits
            trace_of = {f"{s['context']['span_id']:016x}": s["context"]["trace_id"] for s in spans}
        several += len(set(trace_of.values())) > 1
        run = load_trace(path)
        span_of = {
            e.step: e.observation.data["span_id"]
            for e in run.events
            if e.kind == "complete" and e.observation is not None
        }
        for step in run.plan.steps:
            for dep in step.depends_on:
                edges += 1
                assert trace_of[span_of[dep]] == trace_of[span_of[step.id]], (
                    path.name,
                    dep,
                    step.id,
                )
    assert several == 2 and edges >= 10  # both OTel JS files hold one trace per call
