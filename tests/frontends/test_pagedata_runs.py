"""The page data of many runs reads back to what each run says: corpus traces of five formats, simulated runs with
faults, retries and replans, a synthetic ReAct trace, the two-run report and the flipbook.

A guard for the report's speed work (issue 43: a 100k-span report within 5 s): however the snapshot and its columns
are computed, a page must still hold every event, every frame change and every step's details the run holds. The
page is read by the tests' own decoder (tests/frontends/pagedata.py, which imports nothing of planviz); the
expected values come from the run itself (its events, frames and plans), never from the snapshot code.
"""

from __future__ import annotations

import json
import math

import pytest

from planviz import Fault, animate, examples, load_trace, report_html, simulate
from planviz.pictures.captions import event_lines

from ..runs.otlp import react_trace
from .pagedata import composed_lines, page_data, shown_lines

CORPUS_TRACES = (
    "otel/any-agent_OPENAI_trace.json",
    "otel/any-agent_LANGCHAIN_trace.json",
    "openinference/SMOLAGENTS_trace_openinference.json",
    "langfuse/openai-agents-2025-09-30.json",
    "otel-js/ai-generateText.json",
    "langgraph/langgraph_docs_get_state_history_example.json",
)


def _simulated() -> dict:
    parser = examples.load("parser_fix")
    middle = parser.steps[len(parser.steps) // 2].id
    return {
        "side effect, replan": simulate(
            examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")]
        ),
        "retries and replans": simulate(
            parser,
            faults=[
                Fault(middle, "tool_error", times=3),
                Fault(parser.steps[-1].id, "side_effect"),
            ],
            strategy="planner",
        ),
        "workflow, failed": simulate(
            examples.load("cache_isolation"),
            faults=[Fault("S2", "tool_error", times=5)],
            strategy="workflow",
        ),
    }


def _ended(run) -> dict:
    """Each step's last complete or fail event, and the last result it returned, read from the events."""
    ended, result = {}, {}
    for i, e in enumerate(run.events):
        if e.step is None or e.kind not in ("complete", "fail"):
            continue
        ended[e.step] = (i, e.kind)
        if e.observation is not None and e.observation.data.get("result") is not None:
            result[e.step] = e.observation.data["result"]
    return ended, result


def check_against_run(snap: dict, run) -> None:
    """Every event, frame change and step detail of ``snap`` (a decoded page's run) is what ``run`` says."""
    events = run.events
    n = len(events)
    assert len(snap["log"]) == len(snap["events"]) == n
    facts, steps = snap["facts"], snap["steps"]
    for i, e in enumerate(events):
        row, out = snap["log"][i], snap["events"][i]
        assert [row["kind"], row["step"], row["message"], row["attempt"]] == [
            str(e.kind),
            e.step or "",
            str(e.message or ""),
            e.attempt,
        ], i
        assert row["observed"] == (sorted(e.observation.facts) if e.observation else []), i
        assert out["t"] == (e.time if math.isfinite(e.time) else None), i
        assert ("v" in out) == (i == 0 or e.plan_version != events[i - 1].plan_version), i
        # the picture's caption lines, kept or composed from the log row as the script does, are the picture's own
        assert shown_lines(snap, i) == list(event_lines(e, i, run, run.plan_at(i))), i
        assert ("c" in out) == (i == n - 1 or composed_lines(snap, i) != shown_lines(snap, i)), i
        frame = run.frame(i)
        before_facts = run.frame(i - 1).facts if i else frozenset()
        assert {facts[k] for k in out.get("g", [])} == frame.facts - before_facts, i
        assert {facts[k] for k in out.get("l", [])} == before_facts - frame.facts, i
        # a new version's first frame restarts
        if i and e.plan_version == events[i - 1].plan_version:
            ready, before = set(frame.ready), set(run.frame(i - 1).ready)
            assert {steps[k] for k in out.get("ri", [])} == ready - before, i
            assert {steps[k] for k in out.get("ro", [])} == before - ready, i
        assert {steps[k] for k in out.get("vo", [])} == set(e.voided), i
        assert {steps[k] for k in out.get("ke", [])} == set(e.kept), i
    latest = {s.id: s for plan in run.plans for s in plan.steps}
    assert set(snap["details"]) == set(latest)
    ended, result = _ended(run)
    for sid, s in latest.items():
        d = snap["details"][sid]
        assert [d["action"], d["tool"], d["kind"], d["evidence"]] == [
            s.action,
            s.tool or "",
            s.kind or "",
            s.expected_evidence,
        ], sid
        assert [d["requires"], d["produces"], d["depends_on"], d["duration"]] == [
            list(s.requires),
            list(s.produces),
            list(s.depends_on),
            s.duration,
        ], sid
        assert [a["name"] for a in d["arguments"]] == sorted(map(str, s.arguments)), sid
        end = ended.get(sid)
        assert d["ended"] == (end[0] if end else None), sid
        if end is None:
            assert d["status"] in ("not started", "started, no end recorded"), sid
        else:
            assert d["status"] == ("failed" if end[1] == "fail" else "done"), sid
        if sid in result and isinstance(result[sid], str):
            assert d["result"].startswith(result[sid][:1000]), sid
    last = run.frame(-1)
    assert {facts[k] for k in snap["last_facts"]} == set(last.facts)
    assert {steps[k] for k in snap["last_ready"]} == set(last.ready)
    assert snap["unfinished"] == (run.outcome is None)


def _runs(corpus, tmp_path) -> dict:
    runs = {name: load_trace(corpus / name) for name in CORPUS_TRACES}
    runs.update(_simulated())
    trace = tmp_path / "react.json"
    trace.write_text(json.dumps(react_trace(400)), encoding="utf-8")
    runs["react, 400 spans"] = load_trace(trace)
    return runs


def test_each_report_reads_back_to_its_run(corpus, tmp_path):
    for k, (name, run) in enumerate(_runs(corpus, tmp_path).items()):
        page = report_html(run, tmp_path / f"r{k}.html").read_text(encoding="utf-8")
        check_against_run(page_data(page), run)
        assert name  # (the name shows in the traceback of a failing run)


@pytest.mark.parametrize("kind", ["two-run report", "flipbook"])
def test_each_run_of_a_two_run_page_reads_back(corpus, tmp_path, kind):
    sims = _simulated()
    pairs = [
        (sims["side effect, replan"], simulate(examples.load("cache_isolation"))),
        (sims["retries and replans"], load_trace(corpus / CORPUS_TRACES[0])),
    ]
    for k, pair in enumerate(pairs):
        out = tmp_path / f"p{k}.html"
        if kind == "two-run report":
            page = report_html(list(pair), out).read_text(encoding="utf-8")
        else:
            page = animate(list(pair), out).path.read_text(encoding="utf-8")
        halves = page_data(page)["pair"]
        assert len(halves) == 2
        for snap, run in zip(halves, pair):
            check_against_run(snap, run)
