"""Structure-aware fuzzing of the planner importers and planviz's own trace reader on the corpus's real
files (../shared/corpus, skipped when absent): 10,000 documents per format (1,000 in the quick suite), each
a real record (or real trace) after one to three seeded edits of its structure or its text. Only planviz's
own errors may come out.

Plain seeded ``random`` (the same documents every run, so a red run names a real bug), not Hypothesis: at
10,000 documents per format the whole file stays near a minute.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import planviz
from planviz.errors import PlanFormatError, TraceFormatError
from planviz.traces.own.tracefile import run_to_lines

pytestmark = pytest.mark.corpus

# 10,000 documents per format in the full run (`make test`, CI); the quick suite (-m "not slow") runs 1,000
COUNTS = [pytest.param(10_000, marks=pytest.mark.slow, id="10k"), pytest.param(1_000, id="1k")]
FILES = {
    "taskbench": [
        "taskbench-predictions/gnn4tp_pred_multimedia_mistral-7b.jsonl",
        "taskbench-wrapped/MiniMax-Text-01_multimedia_first12.jsonl",
        "hugginggpt/demo_parse_task.json",
    ],
    "nestful": ["nestful/sample.json"],
    "worfbench": ["worfbench/full/gold_wikihow.json", "worfbench/full/gold_lumos.json"],
    "teval": ["teval/plan_json_v1_sample.json"],
    "llmcompiler": ["llmcompiler/planner_prompt_examples.json"],
    "rewoo": ["rewoo/fewshot_plans.json", "rewoo/langgraph_tutorial_planner_outputs.json"],
}
HOSTILE: list[Any] = [
    None,
    "",
    0,
    -1,
    10**30,
    1.5,
    True,
    [],
    {},
    "<node-0>",
    "<node-99>",
    "<node-1>",
    "<GENERATED>-0",
    "$var1.x$",
    "$nope.y$",
    "#E1",
    "$1",
    "(START, 1)",
    "(1, END)",
    "(2, 2)",
    "Edge:",
    "Node:\n1: x",
    "\u202e",
    "x" * 300,
    [[[[[]]]]],
    {"task": "A"},
    {"name": "f"},
    "\\udfff",
    "{{step_1.x}}",
    ["a", None, 3],
    {"source": "A", "target": "A"},
]
PIECES = list('{}[]()",:;.#$<>-=_\n\t 0123456789') + [
    "START",
    "END",
    "Node:",
    "Edge:",
    "<node-",
    "$var",
    "#E",
    "join()",
    "Plan:",
    "\\u",
    "\\ud800",
    "\u202e",
    "é",
]


def _records(corpus, fmt: str) -> list[Any]:
    out: list[Any] = []
    for name in FILES[fmt]:
        text = (corpus / name).read_text(encoding="utf-8")
        if name.endswith(".jsonl"):
            out += [json.loads(line) for line in text.splitlines() if line.strip()][:60]
            continue
        try:
            data = json.loads(text)
        except ValueError:  # shipped not quite JSON: its text is the record
            out.append(text)
            continue
        if isinstance(data, dict) and fmt == "nestful":  # samples by source: {"glaive": [...], ...}
            values = [s for v in data.values() if isinstance(v, list) for s in v[:20]]
        elif isinstance(data, dict) and fmt in ("llmcompiler", "rewoo", "teval"):
            values = list(data.values())
        else:
            values = data if isinstance(data, list) else [data]
        out += values[:60]
    return out


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _paths(v, path + (i,))
    return found


def _at(value: Any, path: tuple) -> Any:
    for key in path:
        value = value[key]
    return value


def mutate_text(text: str, rnd: random.Random) -> str:
    for _ in range(rnd.randint(1, 3)):
        i = rnd.randint(0, len(text))
        j = rnd.randint(i, min(len(text), i + 40))
        op = rnd.choice(["delete", "repeat", "insert", "overwrite"])
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "repeat":
            text = text[:j] + text[i:j] * rnd.choice([2, 3, 50]) + text[j:]
        else:
            text = text[:i] + rnd.choice(PIECES) + (text[i:] if op == "insert" else text[j:])
    return text


def mutate(value: Any, rnd: random.Random) -> Any:
    """A copy of a record after one to three edits: a value replaced, a key dropped, an item repeated,
    or a string's text edited (graph text, task lists as text, reference spellings)."""
    value = json.loads(json.dumps(value))
    for _ in range(rnd.randint(1, 3)):
        path = rnd.choice(_paths(value))
        if not path:
            continue
        holder, key = _at(value, path[:-1]), path[-1]
        target = holder[key]
        op = rnd.choice(["replace", "drop", "repeat", "text", "text"])
        if op == "text" and isinstance(target, str):
            holder[key] = mutate_text(target, rnd)
        elif op == "drop":
            del holder[key]
        elif op == "repeat" and isinstance(holder, list):
            holder.insert(key, json.loads(json.dumps(target)))
        else:
            # a copy: never shared, never a cycle
            holder[key] = json.loads(json.dumps(rnd.choice(HOSTILE)))
    return value


def only_planviz_errors(text: str, fmt: str | None) -> None:
    try:
        planviz.parse_plans(text, format=fmt)
    except PlanFormatError:
        pass


@pytest.mark.parametrize("documents", COUNTS)
@pytest.mark.parametrize("fmt", sorted(FILES))
def test_ten_thousand_mutated_real_records_per_importer_give_plans_or_a_plan_format_error(
    corpus, fmt, documents
):
    records = _records(corpus, fmt)
    rnd = random.Random(f"importers-{fmt}-{documents}")
    for n in range(documents):
        record = rnd.choice(records)
        if isinstance(record, str):
            text = mutate_text(record, rnd)
        elif n % 3 == 2:
            text = mutate_text(json.dumps(record), rnd)
        else:
            text = json.dumps(mutate(record, rnd))
        try:
            only_planviz_errors(text, fmt if n % 2 else None)
        except Exception as exc:  # noqa: BLE001 - the document is the report
            raise AssertionError(
                f"document {n} of {fmt} raised {type(exc).__name__}: {exc}\n{text[:3000]}"
            ) from exc


@pytest.mark.parametrize("documents", COUNTS)
def test_ten_thousand_mutated_real_traces_give_a_run_or_a_trace_format_error(documents):
    runs = [
        planviz.simulate(planviz.examples.load("cache_isolation"), faults=faults, strategy=strategy)
        for faults, strategy in [
            ([], "planner"),
            ([planviz.Fault("S4", "side_effect")], "workflow"),
            ([planviz.Fault.parse("S2:goal_change")], "planner"),
            ([planviz.Fault.parse("S1:transientx2")], "direct"),
        ]
    ]
    traces = [[json.loads(line) for line in run_to_lines(run)] for run in runs]
    rnd = random.Random(f"planviz-trace-{documents}")
    for n in range(documents):
        records = rnd.choice(traces)
        if n % 4 == 3:
            text = mutate_text("".join(json.dumps(r) + "\n" for r in records), rnd)
        else:
            edited = list(records)
            k = rnd.randrange(len(edited))
            edited[k] = mutate(edited[k], rnd) if rnd.random() < 0.8 else rnd.choice(edited)
            text = "".join(json.dumps(r) + "\n" for r in edited)
        try:
            planviz.parse_trace(text, format="planviz")
        except TraceFormatError:
            pass
        except Exception as exc:  # noqa: BLE001
            raise AssertionError(
                f"trace document {n} raised {type(exc).__name__}: {exc}\n{text[:3000]}"
            ) from exc
