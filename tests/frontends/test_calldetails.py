"""What was said and done, in the data every view reads: a step's error, result, arguments and model calls (with the
model's input and output), and a thread's turns; the same in the snapshot the pages draw, in the trace file, in
``planviz show`` and through ``explore(run)``. Truth from the raw corpus files."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from planviz import PlanvizTypeError, explore, load_trace, replay, save_trace
from planviz.frontends.calldetails import run_turns, step_story
from planviz.frontends.snapshot import run_snapshot

ERROR = "ConnectionError: timezone service unreachable"
THREAD = "langgraph/sqlite/exported/thread_name_test7.json"


def failed_tool_trace(corpus, tmp_path, error=ERROR):
    """any-agent's OPENAI trace (real) with its get_current_time call marked failed (the corpus holds no failed tool
    call): the file and its raw spans."""
    data = json.loads((corpus / "otel" / "any-agent_OPENAI_trace.json").read_text(encoding="utf-8"))
    span = next(
        s for s in data["spans"] if s["attributes"].get("gen_ai.tool.name") == "get_current_time"
    )
    span["status"] = {"status_code": "error", "description": error}
    path = tmp_path / "failed_tool.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, data["spans"]


def _tool(spans, name):
    return next(s for s in spans if s["attributes"].get("gen_ai.tool.name") == name)


def test_a_failed_tool_call_shows_its_error_first_and_what_it_returned(corpus, tmp_path):
    path, spans = failed_tool_trace(corpus, tmp_path)
    raw = _tool(spans, "get_current_time")["attributes"]
    run = load_trace(path)
    details = run_snapshot(run, legend=False)["details"]["get_current_time"]
    assert details["status"] == "failed" and details["error"] == ERROR
    # the tool's output, kept on failure
    assert json.loads(details["result"]) == json.loads(raw["gen_ai.output"])
    assert details["arguments"] == [
        [k, json.dumps(v)] for k, v in sorted(json.loads(raw["gen_ai.tool.args"]).items())
    ]
    assert run.events[details["ended"]].kind == "fail"
    ok = run_snapshot(run, legend=False)["details"]["write_file"]
    assert ok["status"] == "done" and ok["error"] is None
    assert json.loads(ok["result"]) == json.loads(
        _tool(spans, "write_file")["attributes"]["gen_ai.output"]
    )


def test_the_model_calls_that_led_to_a_step_carry_what_the_model_was_given_and_answered(corpus):
    """The views show a model call's input and output (the readers fill them; here set from the raw spans)."""
    path = corpus / "otel" / "any-agent_OPENAI_trace.json"
    spans = sorted(
        json.loads(path.read_text(encoding="utf-8"))["spans"], key=lambda s: int(s["start_time"])
    )
    llm = [
        s["attributes"] for s in spans if s["attributes"].get("gen_ai.operation.name") == "call_llm"
    ]
    run = load_trace(path)
    assert len(run.model_calls) == len(llm)
    said = [(a.get("gen_ai.input.messages", "(none)")[-200:], a["gen_ai.output"]) for a in llm]
    run = replace(
        run,
        model_calls=tuple(
            replace(c, input=i, output=o) for c, (i, o) in zip(run.model_calls, said)
        ),
    )
    details = run_snapshot(run, legend=False)["details"]
    led = [(c.step, c.input, c.output) for c in run.model_calls if c.step is not None]
    assert led and all(
        any(row[7:] == [i, o] for row in details[step]["calls"]) for step, i, o in led
    )
    assert step_story(run)["write_file"]["calls"][0]["output"] == llm[1]["gen_ai.output"]


def _raw_thread(corpus):
    """Who said what in the raw thread: the user's message each input wrote, the AI messages each node wrote."""
    raw = json.loads((corpus / THREAD).read_text(encoding="utf-8"))
    expected = []
    for record in reversed(raw):  # the file lists the newest checkpoint first
        for node, wrote in (record["metadata"].get("writes") or {}).items():
            for m in wrote.get("messages", []):
                kind = m["id"][-1]
                if node == "__start__" and kind == "HumanMessage":
                    expected.append(("user", m["kwargs"]["content"]))
                elif kind == "AIMessage":
                    expected.append(("assistant", m["kwargs"]["content"]))
    return raw, expected


def test_a_langgraph_thread_has_its_turns_in_order_the_last_reply_included(corpus):
    raw, expected = _raw_thread(corpus)
    run = load_trace(corpus / THREAD)
    assert [(t.role, t.text) for t in run.turns] == expected
    last = raw[0]["checkpoint"]["channel_values"]["messages"][-1]
    assert last["type"] == "ai" and run.turns[-1].text == last["content"]
    assert [row[:2] for row in run_snapshot(run, legend=False)["turns"]] == [
        list(x) for x in expected
    ]
    assert run_turns(run)[-1][2] == run.turns[-1].time is not None


def test_turns_survive_the_trace_file_and_an_old_file_reads_without_them(corpus, tmp_path):
    run = load_trace(corpus / THREAD)
    save_trace(run, tmp_path / "t.jsonl")
    assert load_trace(tmp_path / "t.jsonl").turns == run.turns
    # as a trace written before turns were
    before = [
        line
        for line in (tmp_path / "t.jsonl").read_text(encoding="utf-8").splitlines()
        if json.loads(line).get("type") != "turn"
    ]
    (tmp_path / "old.jsonl").write_text("\n".join(before) + "\n", encoding="utf-8")
    assert load_trace(tmp_path / "old.jsonl").turns == ()


def test_a_span_trace_says_the_users_message(corpus):
    path = corpus / "otel" / "any-agent_OPENAI_trace.json"
    spans = json.loads(path.read_text(encoding="utf-8"))["spans"]
    asked = next(
        m["content"]
        for s in spans
        for m in json.loads(s["attributes"].get("gen_ai.input.messages", "[]"))
        if m.get("role") == "user"
    )
    first = load_trace(path).turns[0]
    assert (first.role, first.text, first.time) == ("user", asked, None)


def test_explore_takes_a_recorded_run(corpus):
    run = load_trace(corpus / "otel" / "any-agent_OPENAI_trace.json")
    assert explore(run).run is run and replay(run).run is run
    with pytest.raises(PlanvizTypeError, match=r"replay\(run\)"):
        explore(run, faults=["write_file:tool_error"])


def test_show_prints_a_step_error_first_with_control_characters_neutralised(corpus, tmp_path, cli):
    path, spans = failed_tool_trace(
        corpus, tmp_path, error="Boom\x1b[2J\x1b[31m red\r hidden \u202e"
    )
    out = cli("show", str(path), "--step", "get_current_time")
    assert out.returncode == 0
    text = out.stdout
    assert "\x1b" not in text and "\r" not in text and "\u202e" not in text
    assert "\\x1b[2J" in text and "\\r" in text and "\\u202e" in text
    assert text.index("error:") < text.index("returned:") < text.index("arguments:")
    raw = _tool(spans, "get_current_time")["attributes"]
    assert '"America/New_York"' in text.split("arguments:")[1]
    assert json.loads(text.split("returned:\n")[1].split("\narguments:")[0]) == json.loads(
        raw["gen_ai.output"]
    )
    listed = cli("show", str(path))
    assert (
        listed.returncode == 0
        and "get_current_time  failed" in listed.stdout
        and "write_file  done" in listed.stdout
    )
    wrong = cli("show", str(path), "--step", "write_fil")
    assert wrong.returncode == 2 and "did you mean 'write_file'" in wrong.stderr


def test_a_step_that_never_ended_or_never_started_says_so(cache_plan, tmp_path):
    from planviz import Fault, simulate

    run = simulate(cache_plan, faults=[Fault("S2", "tool_error", times=99)], strategy="direct")
    story = step_story(run)
    assert story["S2"]["status"] == "failed" and story["S4"]["status"] == "not started"
    assert (
        story["S4"]["error"] is None
        and story["S4"]["result"] is None
        and story["S4"]["ended"] is None
    )
    save_trace(simulate(cache_plan), tmp_path / "run.jsonl")
    lines = (tmp_path / "run.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    cut = next(
        i
        for i, line in enumerate(lines)
        if json.loads(line).get("event", {}).get("kind") == "start"
    )
    # the agent died mid-step
    (tmp_path / "cut.jsonl").write_text("".join(lines[: cut + 1]), encoding="utf-8")
    crashed = load_trace(tmp_path / "cut.jsonl")
    sid = crashed.events[-1].step
    assert step_story(crashed)[sid]["status"] == "started, no end recorded"
