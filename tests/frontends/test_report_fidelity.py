"""What a reader of the report and the CLI sees, against the raw corpus file read by hand in each test."""

from __future__ import annotations

import json
import re
from datetime import datetime

import pytest

from tests.frontends.pagedata import page_data


def _report(cli, trace, tmp_path) -> dict:
    out = tmp_path / "report.html"
    assert cli("report", str(trace), "-o", str(out)).returncode == 0
    return page_data(out.read_text(encoding="utf-8"))


def _innermost_llm_spans(spans: list) -> list:
    """The OpenInference LLM spans with no LLM span below them: each model call once."""
    parent = {s["context"]["span_id"]: (s.get("parent") or {}).get("span_id") for s in spans}
    llm = [s for s in spans if s["attributes"].get("openinference.span.kind") == "LLM"]
    wrappers = set()
    for s in llm:
        p = parent.get(s["context"]["span_id"])
        while p is not None:
            wrappers.add(p)
            p = parent.get(p)
    return [s for s in llm if s["context"]["span_id"] not in wrappers]


@pytest.mark.parametrize(
    "name", ["LANGCHAIN_trace_openinference.json", "SMOLAGENTS_trace_openinference.json"]
)
def test_openinference_cost_is_shown_as_recorded(corpus, cli, tmp_path, name):
    """any-agent's OpenInference spans record each call's cost as cost_prompt + cost_completion: the report's
    metrics, each step's model calls and `planviz diff` show it (they said nothing, or '-', before)."""
    path = corpus / "openinference" / name
    calls = _innermost_llm_spans(json.loads(path.read_text(encoding="utf-8"))["spans"])
    costs = [
        float(s["attributes"]["cost_prompt"]) + float(s["attributes"]["cost_completion"])
        for s in calls
    ]
    assert len(costs) == 3 and all(c > 0 for c in costs)
    data = _report(cli, path, tmp_path)
    assert {m["name"]: m["value"] for m in data["metrics"]}["cost"] == f"{sum(costs):.3g} USD"
    shown = sorted(c["cost"] for d in data["details"].values() for c in d["calls"])
    assert shown and all(any(abs(c - t) < 1e-12 for t in costs) for c in shown)
    diff = cli("diff", str(path), str(path)).stdout
    assert f"cost: a {sum(costs):.6g} USD, b {sum(costs):.6g} USD" in diff


def _iso(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _history_seconds(path) -> float:
    stamps = [
        _iso(c["created_at"]) for c in json.loads(path.read_text(encoding="utf-8"))["history"]
    ]
    return (max(stamps) - min(stamps)).total_seconds()


def _span_seconds(path) -> float:
    spans = json.loads(path.read_text(encoding="utf-8"))["spans"]
    return (max(s["end_time"] for s in spans) - min(s["start_time"] for s in spans)) / 1e9


@pytest.mark.parametrize(
    "where, seconds",
    [
        # 5.544 ms: was "0.01 s"
        (
            "langgraph/langgraph_docs_get_state_history_example.json",
            _history_seconds,
        ),
        ("langgraph/langgraph_saved_checkpoints_v3.json", None),
        ("otel/any-agent_LANGCHAIN_trace.json", _span_seconds),
    ],
)
def test_metrics_time_keeps_its_figure(corpus, cli, tmp_path, where, seconds):
    """The metrics tab's time is the run's recorded time to three significant digits or two decimals, whichever
    says more, as the hindsight row beside it does: a 5.544 ms run is never shown as 0.01 s."""
    path = corpus / where
    if seconds is None:  # checkpoint tuples: their ts fields
        stamps = [_iso(c["checkpoint"]["ts"]) for c in json.loads(path.read_text(encoding="utf-8"))]
        truth = (max(stamps) - min(stamps)).total_seconds()
    else:
        truth = seconds(path)
    shown = {m["name"]: m["value"] for m in _report(cli, path, tmp_path)["metrics"]}["time"]
    number, unit = shown.split()
    assert unit == "s"
    # two decimals; three significant digits below 1 s
    tolerance = 0.005 if truth >= 1 else 0.005 * truth
    assert abs(float(number) - truth) <= tolerance, (shown, truth)


def _otel_tool_arguments(path) -> dict:
    """tool name -> its arguments, from each execute_tool span's JSON text (any-agent: gen_ai.tool.args)."""
    out = {}
    for s in json.loads(path.read_text(encoding="utf-8"))["spans"]:
        a = s["attributes"]
        if a.get("gen_ai.operation.name") == "execute_tool":
            out[a["gen_ai.tool.name"]] = json.loads(a["gen_ai.tool.args"])
    return out


def _langfuse_tool_arguments(path) -> dict:
    """tool name -> its arguments, from each TOOL span's OpenInference tool.parameters (BeeAI's export)."""
    out = {}
    for o in json.loads(path.read_text(encoding="utf-8"))["observations"]:
        attrs = (o.get("metadata") or {}).get("attributes") or {}
        if attrs.get("openinference.span.kind") == "TOOL" and "tool.parameters" in attrs:
            out[o["name"].removeprefix("tool.").rsplit(".", 1)[0]] = attrs["tool.parameters"]
    return out


@pytest.mark.parametrize(
    "where, read",
    [
        # full_text: false, shown as Python's False
        (
            "langfuse/beeai-2025-08-01.json",
            _langfuse_tool_arguments,
        ),
        ("otel/any-agent_OPENAI_trace.json", _otel_tool_arguments),
        ("otel/any-agent_LANGCHAIN_trace.json", _otel_tool_arguments),
    ],
)
def test_step_arguments_are_written_as_the_trace_writes_them(corpus, cli, tmp_path, where, read):
    """A step's details show each argument as the file's JSON (``false``, ``"Tokyo"``), the spelling of the step's
    action beside them, not Python's (``False``, ``'Tokyo'``)."""
    path = corpus / where
    truth = read(path)
    assert truth
    details = _report(cli, path, tmp_path)["details"]
    for tool, arguments in truth.items():
        assert details[tool]["arguments"] == [
            {"name": k, "value": json.dumps(v, ensure_ascii=False)}
            for k, v in sorted(arguments.items())
        ]


@pytest.mark.parametrize("command", ["align", "diff", "hindsight", "what-if"])
def test_trace_format_offers_every_format_planviz_reads(cli, command):
    """--trace-format lists the registry's formats, as each command's help says it reads any (it offered
    planviz, otel and langgraph only: langfuse, openinference, otel-js and langgraph-sqlite were refused)."""
    from planviz.traces import FORMATS

    error = cli(command, "--trace-format", "no-such-format", "x", "y").stderr
    offered = error.split("choose from ", 1)[1].rstrip(")\n").replace("'", "").split(", ")
    assert offered == list(FORMATS)


def test_a_forced_trace_format_reads_the_file(corpus, cli):
    """`planviz diff --trace-format langfuse` reads a Langfuse export: its tokens and cost as the file records."""
    path = corpus / "langfuse" / "openai-agents-2025-09-30.json"
    generations = [
        o
        for o in json.loads(path.read_text(encoding="utf-8"))["observations"]
        if o["type"] == "GENERATION"
    ]
    result = cli("diff", "--trace-format", "langfuse", "--json", str(path), str(path))
    assert result.returncode == 0, result.stderr
    usage = json.loads(result.stdout)["usage"]["a"]
    assert usage["input_tokens"] == sum(o["usageDetails"]["input"] for o in generations)
    assert usage["cost"] == pytest.approx(sum(o["costDetails"]["total"] for o in generations))


@pytest.mark.parametrize(
    "name",
    [
        "google-gemini-2025-08-01.json",
        "google-vertex-tools-langchain-2025-09-19.json",
        "llamaindex-2025-06-05.json",
        "openai-assistants-2024-05-29.json",
    ],
)
def test_a_trace_without_tool_calls_is_not_said_to_lack_tool_call_ids(corpus, cli, tmp_path, name):
    """A Langfuse export with no tool observation: the picture says its model calls are the steps, and no longer
    warns that 'no tool call carries gen_ai.tool.call.id' (there is none to carry it; nor any execute_tool span to
    name in a Langfuse file)."""
    path = corpus / "langfuse" / name
    observations = json.loads(path.read_text(encoding="utf-8"))["observations"]
    assert not [
        o for o in observations if o["type"] == "TOOL" or "tool" in (o.get("name") or "").lower()
    ]
    report = _report(cli, path, tmp_path)
    svg = report["versions"][0]["svg"]
    # one line
    assert re.search(r"warnings? \([a-z_, ]*no_tool_calls[a-z_, ]*\), listed in the details", svg)
    assert [f["message"] for f in report["findings"] if f["code"] == "no_tool_calls"][0].startswith(
        "the trace records no tool call"
    )
    assert "no_call_ids" not in svg and "execute_tool" not in svg


def test_diff_says_not_recorded_where_a_trace_holds_no_model_call(corpus, cli):
    """The LangGraph docs history holds no AI message, the any-agent trace four call_llm spans: `planviz diff` says
    the first's model calls, tokens and cost are not recorded, as the report does, where it printed '-'."""
    history = corpus / "langgraph" / "langgraph_docs_get_state_history_example.json"
    spans = corpus / "otel" / "any-agent_LANGCHAIN_trace.json"
    assert "AIMessage" not in history.read_text(encoding="utf-8")
    calls = [
        s
        for s in json.loads(spans.read_text(encoding="utf-8"))["spans"]
        if s["attributes"].get("gen_ai.operation.name") == "call_llm"
    ]
    lines = cli("diff", str(history), str(spans)).stdout.splitlines()
    assert f"model calls: a not recorded, b {len(calls)} calls" in lines
    tokens = sum(int(s["attributes"]["gen_ai.usage.input_tokens"]) for s in calls)
    assert f"input tokens: a not recorded, b {tokens} tokens" in lines
