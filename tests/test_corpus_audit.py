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
                if not (
                    isinstance(item, dict)
                    and set(item) == {"name", "value"}
                    and isinstance(item["name"], str)
                ):
                    continue
                for m in NODE_REF.finditer(item["name"]):
                    seen += 1
                    producer, step = f"node-{m.group(1)}", plan.steps[i]
                    place = f"{name}:{number} task {i} argument {k}"
                    said = [
                        f
                        for f in plan.import_findings
                        if f.code == "malformed_arguments"
                        and step.id in f.steps
                        and m.group(0) in f.message
                    ]
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
            named = [
                (k, item)
                for k, item in enumerate(args if isinstance(args, list) else [])
                if isinstance(item, dict) and set(item) == {"name", "value"}
            ]
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
                assert any(
                    f.code == "malformed_arguments"
                    and f.where.endswith(f"task_nodes[{i}].arguments[{k}].name")
                    for f in plan.import_findings
                ), (name, number, i, k)
    assert seen >= 10


def nestful_samples(corpus):
    """(place, raw sample, plan) for every NESTFUL sample of the corpus, in file order."""
    path = corpus / "nestful" / "sample.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    samples = [
        (f"{key}[{i}]", sample) for key, group in raw.items() for i, sample in enumerate(group)
    ]
    plans = load_plans(path, format="nestful")
    assert len(plans) == len(samples)
    return [(place, sample, plan) for (place, sample), plan in zip(samples, plans)]


def texts(value):
    """Every string in an arguments value (keys too)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from texts(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from texts(item)


def test_nestful_every_reference_is_an_edge_to_the_latest_call_with_its_label(corpus):
    """$varN.field$ (a field may be "Exchange Rate": the API's own key) reads the latest earlier call varN."""
    refs = with_space = 0
    for place, sample, plan in nestful_samples(corpus):
        labels = [call.get("label") for call in sample["output"]]
        for i, call in enumerate(sample["output"]):
            step = plan.steps[i]
            assert step.arguments == call["arguments"], (place, i)
            for text in texts(call["arguments"]):
                for m in re.finditer(r"\$(\w+)(?:\.([^$]+))?\$", text):
                    refs += 1
                    with_space += " " in (m.group(2) or "")
                    earlier = [j for j in range(i) if labels[j] == m.group(1)]
                    if earlier:
                        assert plan.steps[earlier[-1]].id in step.depends_on, (place, i, m.group(0))
                    else:  # no earlier call has that label: an error finding, never a silent drop
                        assert any(
                            f.severity == "error" and step.id in f.steps
                            for f in plan.import_findings
                        ), (place, i, m.group(0))
    assert (refs, with_space) == (268, 4)


def test_nestful_reference_that_lost_its_dollar_is_read_and_said(corpus):
    """ "var1.product_id$" (executable _index 21): the call uses var1's product id; it must not run beside var1."""
    seen = 0
    for place, sample, plan in nestful_samples(corpus):
        labels = [call.get("label") for call in sample["output"]]
        for i, call in enumerate(sample["output"]):
            for text in texts(call["arguments"]):
                for m in re.finditer(
                    r"(?:^|[^\w$.])(\w+)\.[^$]+\$", re.sub(r"\$\w+(\.[^$]+)?\$", " ", text)
                ):
                    if m.group(1) in labels[:i]:
                        seen += 1
                        producer = plan.steps[
                            max(j for j in range(i) if labels[j] == m.group(1))
                        ].id
                        assert producer in plan.steps[i].depends_on, (place, i, text)
                        assert any(
                            f.code == "nonstandard_reference" and plan.steps[i].id in f.steps
                            for f in plan.import_findings
                        ), (place, i, text)
    assert seen == 1


# other-formats/: each folder's SOURCE.txt says what its files are; that name must be planviz's answer
OTHER_FORMATS = [  # folder, the name SOURCE.txt gives its files, the file suffixes
    ("swe-agent", "SWE-agent", ".traj"),
    ("toolbench-dfsdt", "ToolBench", ".json"),
    ("planbench", "PlanBench", ".json"),
    ("travelplanner", "TravelPlanner", ".jsonl"),
]


@pytest.mark.parametrize("folder, name, suffix", OTHER_FORMATS, ids=[f for f, *_ in OTHER_FORMATS])
def test_files_that_are_not_plans_are_named_by_load_plan(corpus, folder, name, suffix):
    from planviz import PlanFormatError, load_plan

    source = (corpus / "other-formats" / folder / "SOURCE.txt").read_text(encoding="utf-8")
    assert name in source
    paths = sorted((corpus / "other-formats" / folder).glob(f"*{suffix}"))
    assert paths
    for path in paths:
        json.loads(
            path.read_text(encoding="utf-8").splitlines()[0]
            if suffix == ".jsonl"
            else path.read_text()
        )
        for read in (load_plan, load_plans):
            with pytest.raises(
                PlanFormatError, match=rf"not a plan format planviz reads: this is an? {name}"
            ) as err:
                read(path)
            assert str(path) in str(err.value)


def test_taskbench_every_template_placeholder_is_said(corpus):
    """<sentiment determined by Text Sentiment Analysis>, <task_nodes[2].arguments[0].value>: a template left in
    an argument binds no input, whatever its length or punctuation; a URL in angle brackets is a value."""
    reference = re.compile(r"<node[-_]?\d+>|<output[ _-]of[ _-]node[ _-]?\d+>", re.IGNORECASE)
    seen = 0
    for name, number, nodes, plan in taskbench_records(corpus):
        for i, node in enumerate(nodes):
            args = node.get("arguments")
            values = [
                item["value"] if isinstance(item, dict) and set(item) == {"name", "value"} else item
                for item in (args if isinstance(args, list) else [args])
            ]
            said = " ".join(
                f.message
                for f in plan.import_findings
                if f.code == "unresolved_placeholder" and plan.steps[i].id in f.steps
            )
            for text in texts(values):
                for m in re.finditer(r"<([A-Za-z][^<>:/@\"]{0,80})>", reference.sub(" ", text)):
                    if m.group(1).lower().startswith(("node", "generated")):
                        continue
                    seen += 1
                    assert m.group(0) in said, (name, number, i, m.group(0))
    assert seen >= 60


def test_taskbench_reference_in_another_case_is_said(corpus):
    """<Node-1> is read as <node-1>, and said, like every other spelling the format does not define."""
    seen = 0
    for name, number, nodes, plan in taskbench_records(corpus):
        for i, node in enumerate(nodes):
            for text in texts(node.get("arguments")):
                for m in re.finditer(r"<node-(\d+)>", text, re.IGNORECASE):
                    if m.group(0) == f"<node-{m.group(1)}>":
                        continue
                    seen += 1
                    assert any(
                        f.code == "nonstandard_reference" and m.group(0) in f.message
                        for f in plan.import_findings
                        if plan.steps[i].id in f.steps
                    ), (name, number, i)
    assert seen == 14  # in the arguments (four more are in task_steps prose)
