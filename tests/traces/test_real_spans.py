"""Real span traces from outside the corpus (tests/data/real/{langfuse,otel,openinference,otel-js}, SOURCES.md):
what planviz shows is computed here from the raw JSON of each file: the user's task, each tool call with its
arguments and result, the model calls with their tokens by kind, what each was given and answered, and the time."""

from __future__ import annotations

import ast
import json
from datetime import datetime
from pathlib import Path

import pytest

from planviz import diff_runs, load_trace, load_traces, parse_trace, run_usage

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
FILES = sorted(
    str(p.relative_to(REAL))
    for fmt in ("langfuse", "otel", "openinference", "otel-js")
    for p in (REAL / fmt).glob("*.json")
)


def _decoded(value):
    """JSON text decoded (as often as it was encoded): an object, a list, a string, null, true or false."""
    while isinstance(value, str) and (
        value.strip()[:1] in ("{", "[", '"') or value in ("null", "true", "false")
    ):
        try:
            value = json.loads(value)
        except ValueError:
            break
    return value


def _strings(value, out=None):
    """Every string inside a value, JSON text decoded on the way."""
    out = [] if out is None else out
    value = _decoded(value)
    if isinstance(value, str):
        out.append(value.strip())
    elif isinstance(value, dict):
        for v in value.values():
            _strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out)
    return out


def _seconds(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _flat(attrs, prefix):
    """OpenInference's flattened messages: ``prefix.N.message.role`` / ``.content``."""
    rows = {}
    for k, v in attrs.items():
        if k.startswith(prefix + "."):
            n, _, rest = k[len(prefix) + 1 :].partition(".")
            rows.setdefault(int(n), {})[rest] = v
    return [
        {"role": r.get("message.role"), "content": r.get("message.content")}
        for _, r in sorted(rows.items())
    ]


def _message_text(m):
    """A message's text as the file writes it: ``content`` text, or its parts' ``text``/``content``/``response``."""
    content = m.get("content")
    if isinstance(content, str):
        return (
            _decoded(content).get("text", content)
            if isinstance(_decoded(content), dict)
            else content
        )
    parts = content if isinstance(content, list) else m.get("parts") or []
    return " ".join(
        str(next((p[k] for k in ("text", "content", "response", "result") if k in p), ""))
        for p in parts
        if isinstance(p, dict)
    )


def _last_given(messages):
    """The last user or tool message of a message list that holds text (the truth of a model call's ``input``;
    google-vertex-tools writes tool definitions as ``tool`` messages, with no text). A tool's result is also
    a message whose role is the name of a tool an earlier message asked for (LangChain JS through Langfuse
    writes ``{"role": "get_weather", "content": ...}``); one message object is a list of one."""
    if isinstance(messages, dict):
        if "role" not in messages:  # no role: its text is what the call was given
            return _message_text(messages).strip() or None
        messages = [messages]
    called = {
        (c.get("function") or c).get("name")
        for m in messages or []
        for c in m.get("tool_calls") or []
        if isinstance(c, dict)
    }
    for m in reversed(messages or []):
        if (m.get("role") in ("user", "tool") or m.get("role") in called) and _message_text(
            m
        ).strip():
            return _message_text(m).strip()
    return None


def _literal(text):
    """A tool's arguments as the span writes them: JSON text, or the ``str()`` of a Python dict (any-agent's
    LangChain traces of May 2025), read here with ``ast.literal_eval``."""
    value = _decoded(text)
    if isinstance(value, str) and value.startswith("{"):
        value = ast.literal_eval(value)
    return value


def _json_value(text):
    """The value an attribute's JSON text holds (once decoded), or the text itself when it is no JSON."""
    try:
        return json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return text


def _objects(value, out=None):
    """Every object inside a value, JSON text decoded on the way."""
    out = [] if out is None else out
    value = _decoded(value)
    if isinstance(value, dict):
        out.append(value)
        for v in value.values():
            _objects(v, out)
    elif isinstance(value, list):
        for v in value:
            _objects(v, out)
    return out


def _decoded_observation(o):
    """A Langfuse observation as the API writes it: the web UI's download holds metadata, input and output
    as JSON text (a transcript that is no JSON stays text)."""
    return {
        **o,
        "metadata": _decoded(o.get("metadata")) or {},
        "input": _decoded(o.get("input")),
        "output": _decoded(o.get("output")),
    }


def _tool_names_asked(gens):
    """The names of the tools the model calls asked for, read from their outputs (OpenAI/LangChain messages)."""
    names = set()
    for o in gens:
        for s in _strings_with_keys(o["output"]):
            names.add(s)
    return names


def _strings_with_keys(value, out=None):
    """Every ``name`` of a ``tool_calls`` entry or ``tool_use`` block inside a value."""
    out = [] if out is None else out
    value = _decoded(value)
    if isinstance(value, dict):
        for c in value.get("tool_calls") or []:
            f = c.get("function") or c
            out.append(f.get("name"))
        if value.get("type") in ("tool_use", "tool_call", "tool-call"):
            out.append(value.get("name") or value.get("toolName"))
        for v in value.values():
            if isinstance(v, (dict, list)):
                _strings_with_keys(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings_with_keys(v, out)
    return out


def _truth(fmt, raw):
    """What the raw file says: task, tool calls (name, arguments, result), model calls (tokens, given), time."""
    if fmt == "langfuse":
        obs = [_decoded_observation(o) for o in raw["observations"]]
        attrs = [o["metadata"].get("attributes", {}) for o in obs]
        by_id = {o["id"]: o for o in obs}
        # a GENERATION with a GENERATION under it wraps that call (the AI SDK's generateText around its
        # doGenerate): the call is the inner one
        wrappers = {o.get("parentObservationId") for o in obs if o["type"] == "GENERATION"} & {
            o["id"] for o in obs if o["type"] == "GENERATION"
        }
        gens = sorted(
            (o for o in obs if o["type"] == "GENERATION" and o["id"] not in wrappers),
            key=lambda o: o["startTime"],
        )
        asked = _tool_names_asked(gens)
        tools = [
            (
                a.get("gen_ai.tool.name") or o["name"],
                o["input"],
                o["output"],
            )
            for o, a in zip(obs, attrs)
            if o["type"] == "TOOL"
            or "gen_ai.tool.name" in a
            and a.get("gen_ai.operation.name") in (None, "execute_tool")
            # a tool LangGraph's ToolNode ran: under the ``tools`` node, named as a tool the model asked for
            or o["metadata"].get("langgraph_node") == "tools"
            and o["name"] in asked
            and by_id.get(o.get("parentObservationId"), {}).get("name") == "tools"
        ]
        usage = [
            o.get("usageDetails")
            or {"input": o["inputUsage"], "output": o["outputUsage"], "total": o["totalUsage"]}
            for o in gens
        ]
        given = [
            o["input"].strip()
            if isinstance(o["input"], str)
            else _last_given(o["input"].get("messages", o["input"]))
            if isinstance(o["input"], dict)
            else _last_given(o["input"])
            for o in gens
        ]
        answered = [o["output"] for o in gens]
        trace_input = _decoded(raw["trace"].get("input"))  # no input at all in the older export
        task = (
            trace_input
            if isinstance(trace_input, str)
            else _message_text(next(m for m in trace_input if m.get("role") == "user"))
            if isinstance(trace_input, list)
            else trace_input["args"][0]
            if isinstance(trace_input, dict) and "args" in trace_input
            else trace_input["prompt"]
            if isinstance(trace_input, dict) and "prompt" in trace_input
            else _message_text(next(m for m in trace_input["messages"] if m["role"] == "user"))
            if isinstance(trace_input, dict)
            else _message_text(
                next(
                    m
                    for o in gens
                    if isinstance(o["input"], (list, dict))
                    for m in (
                        o["input"]["messages"] if isinstance(o["input"], dict) else o["input"]
                    )
                    if m["role"] == "user"
                )
            )
        )
        span = min(_seconds(o["startTime"]) for o in obs), max(_seconds(o["endTime"]) for o in obs)
        return task, tools, usage, given, answered, span[1] - span[0]
    if fmt == "otel-js":
        calls = [
            s
            for s in raw
            if s["attributes"]["ai.operationId"].endswith((".doGenerate", ".doStream"))
        ] or raw
        attrs = [s["attributes"] for s in calls]
        usage = [
            {
                "input": a.get("ai.usage.inputTokens", a.get("ai.usage.promptTokens")),
                "output": a.get("ai.usage.outputTokens", a.get("ai.usage.completionTokens")),
                "total": a.get("ai.usage.totalTokens"),
            }
            for a in attrs
        ]
        prompts = [
            json.loads(a["ai.prompt.messages"])
            if "ai.prompt.messages" in a
            else [{"role": "user", "content": json.loads(a["ai.prompt"])["prompt"]}]
            for a in attrs
        ]
        given = [_last_given(p) for p in prompts]
        answered = [a.get("ai.response.text") or a.get("ai.response.object") for a in attrs]
        times = [t[0] + t[1] / 1e9 for s in raw for t in (s["startTime"], s["endTime"])]
        return given[0], [], usage, given, answered, max(times) - min(times)
    # any-agent's evaluation sample: a JSON list of each span's ``to_json()`` text
    spans = raw["spans"] if isinstance(raw, dict) else [json.loads(text) for text in raw]
    times = [t for s in spans for t in (s["start_time"], s["end_time"]) if t]
    if fmt == "otel":
        a_of = [s["attributes"] for s in spans]
        # any-agent of May 2025 spells the output's namespace ``genai.``
        out_of = [a.get("gen_ai.output", a.get("genai.output")) for a in a_of]
        tools = [
            # the result is the attribute's JSON value: a JSON string whose text is JSON stays text
            (
                a["gen_ai.tool.name"],
                _literal(a["gen_ai.tool.args"]) if "gen_ai.tool.args" in a else {},
                _json_value(out),
            )
            for a, out in zip(a_of, out_of)
            if a.get("gen_ai.operation.name") == "execute_tool"
        ]
        llm = [a for a in a_of if a.get("gen_ai.operation.name") == "call_llm"]
        usage = [
            {"input": a["gen_ai.usage.input_tokens"], "output": a["gen_ai.usage.output_tokens"]}
            for a in llm
        ]
        given = [
            _last_given(json.loads(a["gen_ai.input.messages"]))
            if "gen_ai.input.messages" in a
            else None
            for a in llm
        ]
        answered = [a.get("gen_ai.output", a.get("genai.output")) for a in llm]
        task = next(  # None: the file holds no user message (any-agent of May 2025)
            (
                m["content"]
                for m in json.loads(llm[0].get("gen_ai.input.messages", "[]"))
                if m["role"] == "user"
            ),
            None,
        )
        return task, tools, usage, given, answered, (max(times) - min(times)) / 1e9
    kind = [(s["attributes"].get("openinference.span.kind"), s["attributes"]) for s in spans]
    tools = [
        (
            a["tool.name"],
            json.loads(a["input.value"]).get("kwargs", json.loads(a["input.value"])),
            _decoded(a.get("output.value")),
        )
        for k, a in kind
        if k == "TOOL"
    ]
    llm = [a for k, a in kind if k == "LLM"]
    usage = [
        {
            "input": int(a["llm.token_count.prompt"]),
            "output": int(a["llm.token_count.completion"]),
            "total": int(a["llm.token_count.total"]) if "llm.token_count.total" in a else None,
        }
        for a in llm
    ]
    # the messages flattened, else (any-agent's evaluation sample) the message list in ``input.value``
    given_lists = [_flat(a, "llm.input_messages") or json.loads(a["input.value"]) for a in llm]
    given = [_last_given(m) for m in given_lists]
    answered = [a.get("output.value") for a in llm]
    task = next(m["content"] for m in given_lists[0] if m["role"] == "user")
    return task, tools, usage, given, answered, (max(times) - min(times)) / 1e9


@pytest.mark.parametrize("name", FILES)
def test_a_real_span_trace_reads_as_its_raw_json_says(name):
    fmt = name.split("/")[0]
    raw = json.loads((REAL / name).read_text(encoding="utf-8"))
    task, tools, usage, given, answered, elapsed = _truth(fmt, raw)
    run = load_trace(REAL / name)
    if task is None:  # the file records no task: none is claimed
        assert not [t for t in run.turns if t.role == "user"]
    else:
        # the user's task, not a span name
        assert task.strip() and task.strip()[:200] in run.plan.goal
    # every tool call, with its arguments and its result on the step's observation
    shown = sorted(
        (
            run.plan.step(sid).tool,
            json.dumps(run.plan.step(sid).arguments, sort_keys=True),
            json.dumps(o.data.get("result"), sort_keys=True),
        )
        for sid, o in run.state.observations
        if tools
    )
    assert shown == sorted(
        (t, json.dumps(a, sort_keys=True), json.dumps(r, sort_keys=True)) for t, a, r in tools
    )
    assert run_usage(run).tool_calls == len(tools)
    # the model calls, their tokens by kind, and the total the file states
    calls = sorted(run.model_calls, key=lambda c: c.start)
    assert len(calls) == len(usage)
    assert [c.input_tokens for c in calls] == [int(u["input"]) for u in usage]
    assert [c.output_tokens for c in calls] == [int(u["output"]) for u in usage]
    stated = [int(u["total"]) if u.get("total") is not None else None for u in usage]
    assert [c.total_tokens for c in calls] == stated
    assert run_usage(run).total_tokens == sum(
        t if t is not None else int(u["input"]) + int(u["output"]) for t, u in zip(stated, usage)
    )
    # what each call was given (its last user or tool message) and what it answered (text or tool calls)
    assert (
        [c.input for c in calls]
        == [  # cut at 2,000 characters, the cut marked
            g.strip()[:2000] + ("…" if len(g.strip()) > 2000 else "") if g else None for g in given
        ]
    )
    for call, out in zip(calls, answered):
        strings = _strings(out)
        assert call.output, f"{call.id}: no reply read from {str(out)[:80]}"
        for part in call.output.removesuffix("…").split("; "):
            name_, _, args = part.partition("(")
            # a tool call it asked for: the name and every argument value
            if args and name_ in strings:
                assert set(_strings(json.loads(args[:-1]))) <= set(strings)
            # a structured answer (generateObject; a text part that is JSON): the object as JSON text
            elif part.startswith("{") and not any(s.startswith(part[:300]) for s in strings):
                assert json.dumps(_decoded(out), ensure_ascii=False).startswith(part) or (
                    _json_value(part) in _objects(out)
                )
            else:
                assert any(s.startswith(part[:300]) for s in strings) or part[:300] in " ".join(
                    strings
                )
    assert run.time == pytest.approx(elapsed, abs=2e-3)


def test_tool_spans_without_an_operation_name_are_tool_calls():
    """Koog's tool spans carry gen_ai.tool.name and gen_ai.tool.call.id, never gen_ai.operation.name: its two
    parallel tool calls were lost and its two model calls drawn as steps in sequence."""
    raw = json.loads((REAL / "langfuse/koog-2025-08-26.json").read_text(encoding="utf-8"))
    tools = [o for o in raw["observations"] if "gen_ai.tool.call.id" in o["metadata"]["attributes"]]
    run = load_trace(REAL / "langfuse/koog-2025-08-26.json")
    assert (
        sorted(s.tool for s in run.plan.steps)
        == sorted(o["metadata"]["attributes"]["gen_ai.tool.name"] for o in tools)
        == ["ByeTool", "HelloTool"]
    )
    assert not any(f.code == "no_tool_calls" for f in run.plan.import_findings)
    # both started at 19:41:02.023: in parallel
    assert all(not s.depends_on for s in run.plan.steps)
    ids = {o.data["call_id"] for _, o in run.state.observations}
    assert ids == {o["metadata"]["attributes"]["gen_ai.tool.call.id"] for o in tools}


def test_the_web_ui_download_with_metadata_as_json_text_reads_like_the_api_export():
    """Langfuse's UI download writes each observation's metadata as JSON text: LangGraph's ``tools`` node (the
    run's one tool call) was hidden, its model calls became the steps, and diff said the two exports differ."""
    corpus = (
        Path(__file__).resolve().parents[3]
        / "shared"
        / "corpus"
        / "langfuse"
        / "langgraph-2025-08-22.json"
    )
    raw = json.loads(corpus.read_text(encoding="utf-8"))
    for o in raw["observations"]:
        o["metadata"] = json.dumps(o["metadata"])
    tools = [
        o
        for o in raw["observations"]
        if json.loads(o["metadata"]).get("langgraph_node") == "tools" and o["name"] != "tools"
    ]
    api, ui = load_trace(corpus), parse_trace(json.dumps(raw))
    assert ui.plan.ids == api.plan.ids == tuple(o["name"] for o in tools)
    d = diff_runs(api, ui)
    assert d.same and d.same_usage


def test_reasoning_tokens_and_a_total_above_input_plus_output_are_kept():
    """google-gemini-2025-08-01.json (corpus): usageDetails holds a reasoning count and a total; both were dropped."""
    corpus = (
        Path(__file__).resolve().parents[3]
        / "shared"
        / "corpus"
        / "langfuse"
        / "google-gemini-2025-08-01.json"
    )
    raw = json.loads(corpus.read_text(encoding="utf-8"))
    gens = [o["usageDetails"] for o in raw["observations"] if o["type"] == "GENERATION"]
    run = load_trace(corpus)
    usage = run_usage(run)
    assert usage.reasoning_tokens == sum(u["completion_details.reasoning"] for u in gens)
    assert usage.total_tokens == sum(u["total"] for u in gens)
    assert [c.reasoning_tokens for c in run.model_calls] == [
        u["completion_details.reasoning"] for u in gens
    ]


def test_spans_written_as_json_text_read_as_the_spans_themselves(tmp_path):
    """any-agent's evaluation sample is ``json.dump([span.to_json() for span in spans])``: a list of 8 texts,
    each one span (OpenTelemetry's ``to_json`` returns text). It was refused as "a JSON list of 8 item(s)"; now
    it reads as the same spans written as objects, and so do JSON Lines whose records were encoded twice."""
    name = REAL / "openinference" / "any-agent_unit_evaluation_OPENAI_span_texts__3689d61a.json"
    texts = json.loads(name.read_text(encoding="utf-8"))
    assert all(isinstance(t, str) for t in texts) and len(texts) == 8
    objects = tmp_path / "objects.json"
    objects.write_text(json.dumps([json.loads(t) for t in texts]), encoding="utf-8")
    lines = tmp_path / "lines.jsonl"
    lines.write_text("".join(json.dumps(t) + "\n" for t in texts), encoding="utf-8")
    want = load_trace(objects)
    for got in (load_trace(name), load_trace(lines)):
        assert got.plan.steps == want.plan.steps and got.model_calls == want.model_calls
        assert [e.kind for e in got.events] == [e.kind for e in want.events]
    tools = [json.loads(t)["attributes"].get("tool.name") for t in texts]
    assert [s.tool for s in want.plan.steps] == [t for t in tools if t]  # search_web, write_file


LANGFUSE = [name for name in FILES if name.startswith("langfuse/")]


@pytest.mark.parametrize("name", LANGFUSE)
def test_langfuse_observations_without_their_trace_read_as_the_export(name, tmp_path):
    """A page of Langfuse's observations API (``{"data": [...], "meta": {...}}``, what
    ``GET /api/public/observations?traceId=...`` answers) and a bare list of observations hold a trace's
    observations without the trace: they were refused ("expected a Langfuse trace export..."; the bare list
    was taken for OpenTelemetry spans with no ``context``). Now each reads like the export: its tool calls
    with arguments and results, its model calls with their tokens, input and output, its time."""
    raw = json.loads((REAL / name).read_text(encoding="utf-8"))
    obs = raw["observations"]
    # the trace's input stands in for the task here: these files hold no trace, and the task is not checked
    _, tools, usage, given, answered, elapsed = _truth(
        "langfuse", {"trace": {"input": "-"}, "observations": obs}
    )
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"data": obs, "meta": {"page": 1, "totalItems": len(obs)}}))
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(obs))
    for path in (page, bare):
        run = load_trace(path)
        shown = sorted(
            (run.plan.step(sid).tool, json.dumps(run.plan.step(sid).arguments, sort_keys=True))
            for sid, _ in run.state.observations
            if tools
        )
        assert shown == sorted((t, json.dumps(a, sort_keys=True)) for t, a, _ in tools)
        calls = sorted(run.model_calls, key=lambda c: c.start)
        assert [(c.input_tokens, c.output_tokens) for c in calls] == [
            (int(u["input"]), int(u["output"]) if u.get("output") is not None else None)
            for u in usage
        ]
        assert [c.input for c in calls] == [
            g.strip()[:2000] + ("…" if len(g.strip()) > 2000 else "") if g else None for g in given
        ]
        assert all(c.output for c, a in zip(calls, answered) if a)
        assert run.time == pytest.approx(elapsed, abs=2e-3)


def test_observations_of_two_traces_are_two_runs(tmp_path):
    """One page of the observations API may hold several traces' observations: one run per ``traceId``."""
    a, b = (
        json.loads((REAL / "langfuse" / n).read_text(encoding="utf-8"))["observations"]
        for n in ("claude-agent-2025-12-22.trace.json", "vercel-aisdk-2025-11-17.trace.json")
    )
    assert {o["traceId"] for o in a}.isdisjoint({o["traceId"] for o in b})
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"data": a + b, "meta": {}}))
    runs = load_traces(page)
    assert [sorted(s.tool for s in r.plan.steps) for r in runs] == [
        sorted(o["name"] for o in a if o["type"] == "TOOL"),
        sorted(o["name"] for o in b if o["type"] == "TOOL"),
    ]
