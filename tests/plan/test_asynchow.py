"""AsyncHow's how-to plans: each record a plan, its gold minimum durations as step durations, its 1-based
step_deps as dependencies; checked against the raw records of the shared corpus."""

from __future__ import annotations

import json
import re

import pytest

from planviz import critical_path, load_plans, parse_plans


def test_every_corpus_record_imports_with_its_steps_edges_and_gold_durations(corpus):
    for path in sorted((corpus / "asynchow").glob("*.jsonl")):
        records = [json.loads(line) for line in path.read_text().splitlines()]
        plans = load_plans(path)
        assert len(plans) == len(records)
        for record, plan in zip(records, plans):
            n = len(record["steps"])
            assert (
                plan.source_format == "asynchow"
                and plan.goal == record["title"]
                and plan.name == str(record["index"])
            )
            assert [s.action for s in plan.steps] == record["steps"] and plan.ids == tuple(
                str(i) for i in range(1, n + 1)
            )
            edges = {(str(a), str(b)) for a, b in record["step_deps"]}
            assert {(d, s.id) for s in plan.steps for d in s.depends_on} == edges
            assert [s.duration for s in plan.steps] == [
                record["duration_seconds"][str(i)][0] for i in range(1, n + 1)
            ]


def test_the_critical_path_is_the_gold_shortest_time_but_for_the_documented_errors(corpus):
    m = re.search(
        r"Known: (\w+) records (\d+) and (\d+) have a gold",
        (corpus / "asynchow" / "LICENSE.txt").read_text(),
    )
    documented = {(m.group(1), int(m.group(2))), (m.group(1), int(m.group(3)))}
    off = set()
    for path in sorted((corpus / "asynchow").glob("*.jsonl")):
        records = [json.loads(line) for line in path.read_text().splitlines()]
        for record, plan in zip(records, load_plans(path)):
            if critical_path(plan).makespan != pytest.approx(
                record["gold_total_seconds"][0], abs=1e-6
            ):
                off.add((path.stem, record["index"]))
    assert off == documented


@pytest.mark.parametrize(
    "deps, code",
    [
        ([["1", "3"]], "dangling_link"),
        ([["2", "2"]], "self_link"),
        ([["1", "2"], [1, 2]], "duplicate_link"),
        ([["1"]], "malformed_link"),
    ],
)
def test_defective_links_are_findings_not_repairs(deps, code):
    record = {
        "index": 7,
        "title": "t",
        "steps": ["a", "b"],
        "step_deps": deps,
        "duration_seconds": {"1": [1.0, 1.0], "2": [2.0, 2.0]},
    }
    [plan] = parse_plans(json.dumps(record))
    assert plan.source_format == "asynchow" and code in [f.code for f in plan.import_findings]


def test_a_step_without_a_duration_says_so():
    record = {"index": 1, "title": "t", "steps": ["a"], "step_deps": [], "duration_seconds": {}}
    [plan] = parse_plans(json.dumps(record))
    assert plan.step("1").duration == 1.0 and [f.code for f in plan.import_findings] == [
        "malformed_node"
    ]
