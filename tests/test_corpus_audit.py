"""Fidelity of the importers on every real corpus record, computed from the raw files.

Each test reads the raw record with plain json/re code, from the format's own definition, and
compares what planviz made of the same record: what an importer dropped or renamed silently shows
here as a disagreement.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from planviz import load_plans

TASKBENCH_FILES = ("taskbench-predictions", "taskbench-wrapped", "taskbench-gold")
NODE_REF = re.compile(r"<node-(\d+)>")


def taskbench_records(corpus):
    """(file, line number, record's task nodes, plan) for every TaskBench record of the corpus."""
    for folder in TASKBENCH_FILES:
        for path in sorted((corpus / folder).glob("*.jsonl")):
            lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            plans = load_plans(path, format="taskbench")
            assert len(plans) == len(lines), path
            for number, (line, plan) in enumerate(zip(lines, plans), 1):
                record = json.loads(line)
                record = record["result"] if "task_nodes" not in record else record
                yield path.name, number, record.get("task_nodes") or [], plan


def test_taskbench_reference_written_as_argument_name_is_read_and_said(corpus):
    """{"name": "<node-0>", "value": "..."}: the planner put task 0's output as an input; it is not dropped."""
    seen = 0
    for name, number, nodes, plan in taskbench_records(corpus):
        for i, node in enumerate(nodes):
            args = node.get("arguments")
            for k, item in enumerate(args if isinstance(args, list) else []):
                if not (isinstance(item, dict) and set(item) == {"name", "value"} and isinstance(item["name"], str)):
                    continue
                for m in NODE_REF.finditer(item["name"]):
                    seen += 1
                    producer, step = f"node-{m.group(1)}", plan.steps[i]
                    place = f"{name}:{number} task {i} argument {k}"
                    said = [f for f in plan.import_findings
                            if f.code == "malformed_arguments" and step.id in f.steps and m.group(0) in f.message]
                    assert said, place
                    if int(m.group(1)) < len(nodes) and int(m.group(1)) != i:
                        assert producer in step.depends_on, place
                    else:  # a reference to itself or to no task is that error, never dropped
                        codes = {f.code for f in plan.import_findings if step.id in f.steps}
                        assert codes & {"self_reference", "dangling_reference"}, place
    assert seen == 21  # in 10 records of the predictions


def test_taskbench_repeated_or_empty_argument_names_are_said(corpus):
    """Six arguments all named "text": the later five are kept under their positions, never silently."""
    seen = 0
    for name, number, nodes, plan in taskbench_records(corpus):
        for i, node in enumerate(nodes):
            args = node.get("arguments")
            named = [(k, item) for k, item in enumerate(args if isinstance(args, list) else [])
                     if isinstance(item, dict) and set(item) == {"name", "value"}]
            first = Counter()
            for k, item in named:
                nm = item["name"]
                bad = not isinstance(nm, str) or not nm or first[nm] > 0
                if isinstance(nm, str):
                    first[nm] += 1
                if not bad:
                    continue
                seen += 1
                step = plan.steps[i]
                assert step.arguments[str(k)] == item["value"], (name, number, i, k)
                assert any(f.code == "malformed_arguments" and f.where.endswith(f"task_nodes[{i}].arguments[{k}].name")
                           for f in plan.import_findings), (name, number, i, k)
    assert seen >= 10
