"""hindsight's ideal is a schedule an agent could run: provenance edges, model calls in the schedule, its plan.

Truth comes from the raw files here (plain json): tool and model spans, their times, arguments and results.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from planviz import (
    Fault,
    Plan,
    Recorder,
    Step,
    diff_runs,
    dump_plan,
    hindsight,
    load_plan,
    load_trace,
    parse_plan,
    parse_trace,
    simulate,
    validate,
)
from planviz.frontends.cli.commands import main

from ..seeds import outputs_under_hash_seeds
from ..strategies import plans
from .otlp import agent, chat, text, tool

FORMATS = ("otel", "otel/more", "openinference", "langfuse", "otel-js")


def _ts(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def _tool_names(value) -> set[str]:
    """The tool names a model's output asked for: a mapping holding ``name`` beside ``arguments``."""
    out: set[str] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if "arguments" in v and isinstance(v.get("name"), str):
                out.add(v["name"])
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


def _raw_spans(
    path: Path,
) -> tuple[list[tuple[float, float | None]], list[tuple[float, float | None]]]:
    """(tool calls, model calls) of a raw trace as (start, end or None) in seconds, by each format's own words."""
    raw = json.loads(path.read_text())
    tools, models = [], []
    if isinstance(raw, dict) and "observations" in raw:  # Langfuse
        obs = raw["observations"]
        named = set().union(
            *(_tool_names(o.get("output")) for o in obs if o["type"] == "GENERATION")
        )
        events = {}
        for o in obs:
            m = re.fullmatch(r"(.*)\.(start|finish)-(\d+)", o["name"])
            if m:  # beeai's event spans: a call runs from its start event to its finish event (else to the end
                # of its start span)
                events.setdefault((m.group(1), m.group(3)), {})[m.group(2)] = _ts(o["startTime"])
                if m.group(2) == "start":
                    events[(m.group(1), m.group(3))]["end"] = (
                        _ts(o["endTime"]) if o.get("endTime") else None
                    )
        for (prefix, _), times in events.items():
            row = (
                (times["start"], times.get("finish", times.get("end")))
                if "start" in times
                else None
            )
            if row and prefix.startswith("tool."):
                tools.append(row)
            elif row and prefix.startswith("backend.") and "chat" in prefix:
                models.append(row)
        for o in obs:
            if re.fullmatch(r".*\.(start|finish|success|update|partial_update)-\d+", o["name"]):
                continue
            row = (_ts(o["startTime"]), _ts(o["endTime"]) if o.get("endTime") else None)
            if o["type"] == "TOOL" or (o["type"] == "SPAN" and o["name"] in named):
                tools.append(row)
            elif o["type"] == "GENERATION":
                models.append(row)
        # a GENERATION around another (agno's OpenAIChat.invoke around its chat request) is one call: the request
        inner = [
            m
            for m in models
            if not any(
                o != m and m[0] <= o[0] and o[1] is not None and m[1] is not None and o[1] <= m[1]
                for o in models
            )
        ]
        return tools, inner
    spans = raw["spans"] if isinstance(raw, dict) else raw
    for s in spans:
        a = s.get("attributes", {})
        if "startTime" in s:  # OTel JS (hrtime pairs)
            start = s["startTime"][0] + s["startTime"][1] / 1e9
            end = s["endTime"][0] + s["endTime"][1] / 1e9 if s.get("endTime") else None
        else:
            start = s["start_time"] / 1e9
            end = s["end_time"] / 1e9 if s.get("end_time") is not None else None
        kind = (
            a.get("openinference.span.kind")
            or a.get("gen_ai.operation.name")
            or a.get("ai.operationId")
        )
        if kind in ("TOOL", "execute_tool", "ai.toolCall"):
            tools.append((start, end))
        elif kind in (
            "LLM",
            "call_llm",
            "chat",
            "ai.generateText.doGenerate",
            "ai.streamText.doStream",
        ):
            models.append((start, end))
    return tools, models


def _chain(tools, models) -> float:
    """The longest (issuing model call, tool call, final model call): the model call that ended last before the
    tool started, the tool, and the model call that started last after every tool ended."""
    last = max(e for _, e in tools)
    best = 0.0
    for s, e in tools:
        before = [(ms, me) for ms, me in models if me <= s]
        issuing = (
            max(before, key=lambda m: m[1])[1] - max(before, key=lambda m: m[1])[0]
            if before
            else 0.0
        )
        best = max(best, issuing + (e - s))
    after = [(ms, me) for ms, me in models if ms >= last]
    final = max(after, key=lambda m: m[0]) if after else None
    return best + (final[1] - final[0] if final else 0.0)


def _corpus_files(corpus):
    for fmt in FORMATS:
        yield from sorted((corpus / fmt).glob("*.json"))


@pytest.mark.corpus
def test_the_ideal_is_never_below_the_longest_chain_of_model_call_tool_call_final_answer(corpus):
    checked = unknown = 0
    for path in _corpus_files(corpus):
        tools, models = _raw_spans(path)
        if not tools:
            continue
        h = hindsight(load_trace(path))
        # a call that never ended: inferred and said so, or unknown
        if any(e is None for _, e in tools + models):
            run = load_trace(path)
            if any(c.duration is None for c in run.model_calls):
                assert h.ideal_makespan is None, (path.name, h.summary())  # unknown, not free
            else:
                assert any(c.duration_inferred for c in run.model_calls), path.name
                assert (
                    h.ideal_makespan is not None and h.ideal_makespan <= h.actual_makespan + 1e-9
                ), path.name
            unknown += 1
            continue
        chain = _chain(tools, models)
        assert h.ideal_makespan is not None and h.ideal_makespan >= chain - 1e-6, (
            path.name,
            chain,
            h.summary(),
        )
        assert h.ideal_makespan <= h.actual_makespan + 1e-9, path.name
        # the plan is the schedule: it validates and, simulated, takes the schedule's makespan
        assert not [f for f in validate(h.plan).findings if f.severity == "error"], path.name
        assert simulate(h.plan).time == pytest.approx(h.schedule_makespan), path.name
        checked += 1
    assert checked >= 12 and unknown >= 1, (checked, unknown)


@pytest.mark.corpus
def test_a_year_taken_from_a_timestamp_makes_a_dependency(corpus):
    """In the raw spans, write_file's text is the year of get_current_time's datetime: a derived edge."""
    found = 0
    for path in sorted((corpus / "otel").glob("*.json")) + sorted(
        (corpus / "otel" / "more").glob("*.json")
    ):
        spans = json.loads(path.read_text())["spans"]
        calls = [
            s["attributes"]
            for s in spans
            if s["attributes"].get("gen_ai.operation.name") == "execute_tool"
        ]
        by = {a["gen_ai.tool.name"]: a for a in calls}
        if "get_current_time" not in by or "write_file" not in by:
            continue
        args = by["write_file"].get(
            "gen_ai.tool.call.arguments", by["write_file"].get("gen_ai.tool.args")
        )
        year = json.loads(args)
        # one trace encodes its arguments twice
        year = year if isinstance(year, dict) else json.loads(year)
        result = by["get_current_time"].get(
            "gen_ai.tool.call.result", by["get_current_time"].get("gen_ai.output")
        )
        if not result:
            continue
        stamp = re.search(r"(\d{4})-\d\d-\d\dT[\d:]+", result)
        # the raw file: the year of the timestamp
        assert stamp and year["text"] == stamp.group(1), path.name
        edges = {(u, v): why for u, v, why in hindsight(load_trace(path)).data_edges}
        why = edges.get(("get_current_time", "write_file"), "")
        assert why.startswith(f"derived: '{year['text']}' in "), (path.name, edges)
        found += 1
    assert found >= 5


TASK = "Compare the weather in Paris and Rome"
# the first call's result names Rome, but the task already does: the second call needs nothing from the first
TWO_CITIES = [
    agent(1, 0, 5),
    chat(2, 0, 1, user=TASK),
    tool(3, "get_weather", 1, 2, args={"city": "Paris"}, result={"city": "Rome", "sky": "sunny"}),
    chat(4, 2, 2.5),
    tool(5, "get_weather", 2.5, 3.5, args={"city": "Rome"}, result={"sky": "rain"}),
    chat(6, 3.5, 4),
]


def test_a_value_the_task_gives_makes_no_dependency():
    h = hindsight(parse_trace(text(TWO_CITIES)))
    assert h.data_edges == ()
    # one plan (the longest issuing call: 1 s), both calls beside each other (1 s), the answer (0.5 s)
    assert h.ideal_makespan == pytest.approx(1 + 1 + 0.5)
    assert h.parts["ideal"] == pytest.approx({"tool": 1.0, "model": 1.5, "wait": 0.0})
    assert h.parts["actual"] == pytest.approx({"tool": 2.0, "model": 2.0, "wait": 1.0})


def test_a_derived_value_needs_a_model_call_at_the_median_between_the_calls():
    spans = [
        agent(1, 0, 6),
        chat(2, 0, 1, user="What year is it? Save it."),
        tool(3, "now", 1, 1.5, args={"tz": "UTC"}, result={"datetime": "2031-02-03T04:05:06"}),
        chat(4, 1.5, 3.5),
        tool(5, "save", 3.5, 4, args={"text": "2031"}, result="ok"),
        chat(6, 4, 6),
    ]
    h = hindsight(parse_trace(text(spans)))
    assert h.data_edges == (("now", "save", "derived: '2031' in '2031-02-03T04:05:06'"),)
    # the model calls took 1, 2 and 2 s: the median is 2; plan (2: the longest issuing call) + now + model + save
    # + answer (2)
    assert h.ideal_makespan == pytest.approx(min(6.0, 2 + 0.5 + 2 + 0.5 + 2))
    assert h.schedule_makespan == pytest.approx(7.0) and h.ideal_makespan == 6.0
    assert "no sooner than the run's" in h.to_text()
    step = h.plan.step("model for save")
    assert step.duration == 2.0 and step.depends_on == ("now", "plan")
    assert h.plan.step("save").depends_on == ("model for save",)
    # the model call fills it
    assert dict(h.plan.step("save").arguments) == {"text": "{{model for save.text}}"}
    # no model call before it: as recorded
    assert dict(h.plan.step("now").arguments) == {"tz": "UTC"}


def test_a_plain_copy_is_a_placeholder_in_the_plan_and_the_plan_round_trips(tmp_path):
    spans = [
        agent(1, 0, 5),
        chat(2, 0, 1, user="Summarize the weather"),
        tool(3, "get_weather", 1, 2, args={"city": "Oslo"}, result={"sky": "sunny over Oslo"}),
        chat(4, 2, 3),
        tool(5, "summarize", 3, 4, args={"text": "sunny over Oslo"}, result="done"),
        chat(6, 4, 5),
    ]
    h = hindsight(parse_trace(text(spans)))
    assert h.data_edges == (("get_weather", "summarize", "exact"),)
    assert dict(h.plan.step("summarize").arguments) == {"text": "{{get_weather.sky}}"}
    assert h.ideal_makespan == pytest.approx(1 + 1 + 1 + 1)  # plan, get_weather, summarize, answer
    assert not [f for f in validate(h.plan).findings if f.severity == "error"]
    ideal = simulate(h.plan)
    assert ideal.time == pytest.approx(h.ideal_makespan)
    # the run against the schedule it could have run
    diff = diff_runs(parse_trace(text(spans)), ideal)
    assert set(diff.only_b) == {"plan", "answer"} and diff.usage[1].time == pytest.approx(4.0)
    broken = simulate(
        h.plan, faults=[Fault("get_weather", "tool_error", times=3)], strategy="workflow"
    )
    assert broken.outcome == "step_failed" and "summarize" not in {
        e.step for e in broken.events if e.kind == "start"
    }
    again = parse_plan(dump_plan(h.plan, tmp_path / "ideal.yaml"))
    assert again == h.plan
    assert (
        main(["hindsight", str(_write(tmp_path, spans)), "--plan", str(tmp_path / "out.txt")]) == 0
    )
    compiler = load_plan(tmp_path / "out.txt", format="llmcompiler")  # LLMCompiler's own plan text
    assert [s.tool for s in compiler.steps] == ["get_weather", "summarize", "join"]
    assert compiler.steps[1].requires == ("$1",) and dict(compiler.steps[1].arguments) == {
        "0": "$1"
    }
    assert (
        main(["hindsight", str(_write(tmp_path, spans)), "--plan", str(tmp_path / "out.yaml")]) == 0
    )
    assert load_plan(tmp_path / "out.yaml").ids == h.plan.ids


def _write(tmp_path, spans) -> Path:
    path = tmp_path / "t.json"
    path.write_text(text(spans))
    return path


def test_a_model_call_that_never_ended_is_inferred_under_an_ended_agent_else_the_ideal_is_unknown_not_free():
    spans = [
        agent(1, 0, 5),
        chat(2, 0, 1, user="What year is it?"),
        tool(3, "now", 1, 2, args={"tz": "UTC"}, result={"datetime": "2031-02-03"}),
        chat(4, 2, 5),
    ]
    spans[-1]["endTimeUnixNano"] = ""
    run = parse_trace(text(spans))
    assert run.model_calls[-1].duration_inferred and run.model_calls[-1].duration == pytest.approx(
        3
    )
    # its end is the agent's: inferred, and said so
    assert hindsight(run).ideal_makespan is not None
    spans[0]["endTimeUnixNano"] = (
        ""  # nothing above it ended either: nothing tells how long it took
    )
    h = hindsight(parse_trace(text(spans)))
    assert h.ideal_makespan is None and h.saving is None
    assert "possible unknown" in h.summary()


@st.composite
def recorded(draw):
    """A random plan recorded with Recorder: each step starts some time after its dependencies ended, takes a
    random time and returns a result; its arguments copy a dependency's result, take the year out of one, give a
    value of the task, or a value of its own."""
    plan = draw(plans(max_steps=6, goal="Plan the trip to Paris"))
    order = sorted(plan.steps, key=lambda s: int(s.id[1:]))
    times, steps = {}, []
    for s in order:
        ready = max([times[d][1] for d in s.depends_on], default=0.0)
        start = ready + draw(st.sampled_from([0.0, 0.5, 2.0]))
        times[s.id] = (start, start + draw(st.sampled_from([0.0, 1.0, 1.5, 3.0])))
        choice = draw(st.sampled_from(["copy", "year", "task", "own"])) if s.depends_on else "own"
        dep = s.depends_on[0] if s.depends_on else None
        value = {
            "copy": f"id-{dep}-x",
            "year": str(2000 + int(s.id[1:]) if dep is None else 2000 + int(dep[1:])),
            "task": "Paris",
            "own": f"own value {s.id}q",
        }[choice]
        steps.append(
            Step(
                s.id,
                s.action,
                expected_evidence=s.expected_evidence,
                depends_on=s.depends_on,
                requires=s.requires,
                produces=s.produces,
                duration=s.duration,
                arguments={"v": value},
            )
        )
    plan = Plan(plan.goal, steps, premises=plan.premises)
    events = sorted(
        [(t[0], 1, "start", sid) for sid, t in times.items()]
        + [(t[1], 0, "complete", sid) for sid, t in times.items()]
    )
    end = max(t for t, *_ in events)
    clock = iter([0.0] + [t for t, *_ in events] + [end]).__next__
    rec = Recorder(clock=clock)
    rec.propose(plan)
    for _, _, kind, sid in events:
        if kind == "start":
            rec.start(sid)
        else:
            n = int(sid[1:])
            rec.complete(sid, result={"id": f"id-{sid}-x", "when": f"{2000 + n}-01-02T03:04:05"})
    rec.stop("plan_complete")
    return rec.run


@settings(max_examples=60, deadline=None)
@given(recorded())
def test_recorded_runs_ideal_within_actual_and_the_plan_reaches_it(run):
    h = hindsight(run)
    assert h.ideal_makespan is not None and h.ideal_makespan <= h.actual_makespan + 1e-9
    assert not [f for f in validate(h.plan).findings if f.severity == "error"], validate(
        h.plan
    ).findings
    took = simulate(h.plan).time
    assert abs(took - h.ideal_makespan) <= 0.05 * h.ideal_makespan + 1e-9, (took, h.ideal_makespan)


def test_cost_in_hindsight_tokens_on_the_critical_path_and_off_it():
    spans = [
        agent(1, 0, 5),
        chat(2, 0, 1, user=TASK, tokens=(100, 7)),
        tool(3, "get_weather", 1, 2, args={"city": "Paris"}, result={"sky": "sunny"}),
        chat(4, 2, 2.5, tokens=(120, 9)),
        tool(5, "get_weather", 2.5, 3.5, args={"city": "Rome"}, result={"sky": "rain"}),
        chat(6, 3.5, 4, tokens=(150, 30)),
    ]
    chats = [s for s in spans if s["name"].startswith("chat")]

    def usage(c, key):
        return int(
            next(
                a["value"]["intValue"] for a in c["attributes"] if a["key"] == f"gen_ai.usage.{key}"
            )
        )

    inputs, outputs = (
        [usage(c, "input_tokens") for c in chats],
        [usage(c, "output_tokens") for c in chats],
    )
    tokens = [i + o for i, o in zip(inputs, outputs)]
    h = hindsight(parse_trace(text(spans)))
    # the path holds one of the two weather calls (each issued by the chat before it) and the answer (the last chat)
    [on] = [s for s in h.path if s.startswith("get_weather")]
    issued = 0 if on == "get_weather" else 1
    assert h.cost["tokens"] == sum(tokens)
    assert (
        h.cost["tokens_on_path"] == tokens[issued] + tokens[2]
        and h.cost["tokens_off_path"] == tokens[1 - issued]
    )
    # the ideal: one plan reading what the first call read and writing both calls, then the answer
    assert h.cost["ideal_tokens"] == inputs[0] + outputs[0] + outputs[1] + tokens[2]
    assert h.cost["ideal_model_calls"] == 2 and h.cost["time_on_path"] == pytest.approx(
        h.ideal_makespan
    )
    # the other weather call runs beside the path
    assert h.cost["time_off_path"] == pytest.approx(1.0)


@pytest.mark.corpus
def test_the_report_shows_the_data_edges_and_offers_the_plan(corpus):
    from planviz.frontends.panels import metrics_rows

    raw = json.loads((corpus / "otel" / "any-agent_OPENAI_trace.json").read_text())["spans"]
    stamp = next(
        s["attributes"]["gen_ai.output"]
        for s in raw
        if s["attributes"].get("gen_ai.tool.name") == "get_current_time"
    )
    year = re.search(r'"datetime": "(\d{4})-', stamp).group(1)
    rows = dict(metrics_rows(load_trace(corpus / "otel" / "any-agent_OPENAI_trace.json")))
    assert rows["data edges"].startswith(
        f"write_file waits for get_current_time (derived: '{year}' in "
    )
    assert "--plan ideal.yaml" in rows["ideal schedule"]
    assert rows["hindsight"].startswith("1.23 s ran, 1.23 s possible")  # was 0.316 s: the overclaim


def test_the_summary_names_the_time_no_call_ran():
    spans = [
        agent(1, 0, 5),
        chat(2, 0, 1, user="Weather in Oslo?"),
        tool(3, "get_weather", 1, 2, args={"city": "Oslo"}, result={"sky": "sunny"}),
        chat(4, 4, 5),
    ]
    busy = sorted((int(s["startTimeUnixNano"]), int(s["endTimeUnixNano"])) for s in spans[1:])
    # the calls do not overlap here
    idle = sum(max(0, b[0] - a[1]) for a, b in zip(busy, busy[1:])) / 1e9
    h = hindsight(parse_trace(text(spans)))
    assert h.parts["actual"]["wait"] == pytest.approx(idle) == pytest.approx(2.0)
    assert h.summary() == "5 s ran, 3 s possible: 2 s when no call ran (the agent's own time)"


class _Counted(float):
    """A time that counts the comparisons made with it: the work ``_minus`` does, without a clock."""

    seen = 0

    def _count(self, other, op):
        _Counted.seen += 1
        return op(float(self), float(other))

    def __lt__(self, other):
        return self._count(other, float.__lt__)

    def __le__(self, other):
        return self._count(other, float.__le__)

    def __gt__(self, other):
        return self._count(other, float.__gt__)

    def __ge__(self, other):
        return self._count(other, float.__ge__)


def test_hindsight_time_outside_tool_calls_takes_linear_work():
    from planviz.runs.hindsight.hindsightcost import _minus

    def work(n: int) -> tuple[int, float]:
        # model calls 2 long, every 3
        parts = [(_Counted(3 * i), _Counted(3 * i + 2)) for i in range(n)]
        # tool calls: 0.5 of each inside
        cut = [(_Counted(3 * i + 1.5), _Counted(3 * i + 2.5)) for i in range(n)]
        _Counted.seen = 0
        left = _minus(parts, cut)
        return _Counted.seen, left

    small, left = work(200)
    # each model call loses the half second a tool call covers
    assert left == pytest.approx(200 * (2 - 0.5))
    big, left = work(800)
    assert left == pytest.approx(800 * 1.5)
    # 4 times the calls, about 4 times the work (a pairwise loop did 16 times)
    assert big <= 5 * small


_COST_PROGRAM = """
from planviz import Plan, Step, hindsight, simulate
widths = [0.1, 0.2, 0.7, 1.3, 0.3]
steps = [
    Step(f"S{i}", f"do {i}", expected_evidence="ok", duration=widths[i % 5] + i / 7,
         produces=[f"f{i}"], depends_on=[f"S{i - 1}"] if i else [], requires=[f"f{i - 1}"] if i else [])
    for i in range(40)
]
cost = hindsight(simulate(Plan("g", steps))).cost
print(repr(cost["time_on_path"]), repr(cost["time_off_path"]))
"""


def test_the_time_on_the_ideal_path_does_not_depend_on_the_hash_seed():
    """Summed in the path's order: over a set, the last digit changed with the hash seed (132.2285714285714 or
    ...143, and time off the path 2.8e-14 or 0). The chain's durations are summed here in its order."""
    outputs = outputs_under_hash_seeds(_COST_PROGRAM)
    total = 0.0
    for i in range(40):
        total += [0.1, 0.2, 0.7, 1.3, 0.3][i % 5] + i / 7
    assert outputs == {f"{total!r} 0.0"}
