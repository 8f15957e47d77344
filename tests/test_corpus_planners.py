"""Planner outputs as the world writes them (../shared/corpus, skipped when absent): every WorFBench gold
graph's edges as written, and TaskBench records wrapped in ``result``.

The truth is computed here from the raw files with plain ``json`` and one regular expression, never from
planviz's output; every disagreement allowed is named with its reason.
"""

from __future__ import annotations

import collections
import json
import re

import networkx as nx
import pytest

from planviz import load_plans, parse_plans, validate

pytestmark = pytest.mark.corpus

WORFBENCH_FULL = (
    "alfworld",
    "intercodesql",
    "lumos",
    "os",
    "seal_tools",
    "toolalpaca",
    "toolbench",
    "webshop",
    "wikihow",
)
PAIR = re.compile(r"\(\s*(START|END|\d+)\s*,\s*(START|END|\d+)\s*\)", re.IGNORECASE)
# numbered lines before the first edge pair are the nodes
NODE = re.compile(r"(?m)^\s*(\d+)\s*[:.]")
OFF_ROUTE = ("dead_end", "isolated_step", "not_from_start")


def written_pairs(text: str) -> list[tuple[str, str]]:
    """Every (u, v) pair of START, END or node numbers in the text, in order, as written."""

    def token(word: str) -> str:
        return word.upper() if word.upper() in ("START", "END") else str(int(word))

    return [(token(u), token(v)) for u, v in PAIR.findall(text)]


# Pairs in the text that are not edges of the plan, each for a reason the importer states in a finding.
NOT_DRAWN = {
    "self_link": lambda u, v: u == v,  # a node to itself
    "malformed_link": lambda u, v: v == "START" or u == "END",  # into START or out of END
}


def graph_text(record: dict) -> str:
    return [t["content"] for t in record["conversations"] if t.get("role") in ("assistant", "gpt")][
        -1
    ]


def test_every_worfbench_gold_graph_reads_the_edges_as_written(corpus, record_property):
    figures: collections.Counter = collections.Counter()
    for subset in WORFBENCH_FULL:
        path = corpus / "worfbench" / "full" / f"gold_{subset}.json"
        records = json.loads(path.read_text())
        plans = load_plans(path)
        assert [p.name for p in plans] == [r["id"] for r in records]
        for record, plan in zip(records, plans):
            pairs = written_pairs(graph_text(record))
            codes = {f.code for f in plan.import_findings}
            not_drawn = {(u, v) for u, v in pairs for code, test in NOT_DRAWN.items() if test(u, v)}
            for u, v in not_drawn:
                assert next(c for c, test in NOT_DRAWN.items() if test(u, v)) in codes, (
                    plan.name,
                    u,
                    v,
                )
            read = {(d, step.id) for step in plan.steps for d in step.depends_on}
            assert read == set(pairs) - not_drawn, plan.name
            assert ("duplicate_link" in codes) == (len(set(pairs)) < len(pairs)), plan.name
            # dead ends and isolated steps only where the written graph has them (NetworkX on the raw pairs)
            g = nx.DiGraph()
            text = graph_text(record)
            nodes = NODE.findall(text[: PAIR.search(text).start()] if PAIR.search(text) else text)
            g.add_nodes_from({str(int(n)) for n in nodes} | {"START", "END"})
            g.add_edges_from(set(pairs) - not_drawn)
            off = (
                set(g)
                - ((nx.ancestors(g, "END") | {"END"}) & (nx.descendants(g, "START") | {"START"}))
                - {"END"}
            )
            report = validate(plan)
            assert {s for f in report.findings if f.code in OFF_ROUTE for s in f.steps} == off, (
                plan.name
            )
            variant = [f for f in plan.import_findings if f.code == "edge_variant"]
            assert all(f.severity == "info" for f in variant)
            figures.update(
                graphs=1,
                edges=len(read),
                off_route=bool(off),
                **{f"variant_{subset}": bool(variant)},
            )
    print(f"\nWorFBench full: {dict(figures)}")
    record_property("worfbench_full", json.dumps(dict(figures)))
    assert figures["graphs"] == 2146
    # the 21 graphs once read with other edges than written (17 wikihow, 3 lumos, 1 toolbench), and one
    # wikihow graph written one `Edge: (1, 2)` line per edge that read right before, name their layout
    assert (figures["variant_wikihow"], figures["variant_lumos"], figures["variant_toolbench"]) == (
        18,
        3,
        1,
    )
    assert sum(v for k, v in figures.items() if k.startswith("variant_")) == 22


@pytest.mark.parametrize(
    "subset, index, variants",
    [
        ("lumos", 159, ["an Edge: header in Markdown markup", "a bullet or numbered list"]),
        ("wikihow", 64, ["a bullet or numbered list"]),
        ("wikihow", 78, ["a bullet or numbered list", "pairs followed by prose"]),
        (
            "wikihow",
            165,
            [
                "a bullet or numbered list",
                "one `Edge: (1, 2)` line per edge",
                "pairs followed by prose",
                "lines outside one Edge: list",
            ],
        ),
        (
            "wikihow",
            27,
            [
                "a bullet or numbered list",
                "pairs followed by prose",
                "lines outside one Edge: list",
            ],
        ),
        (
            "toolbench",
            51,
            [
                "a bullet or numbered list",
                "one `Edge: (1, 2)` line per edge",
                "pairs followed by prose",
                "lines outside one Edge: list",
            ],
        ),
    ],
)
def test_the_variant_finding_names_how_the_record_wrote_its_edges(corpus, subset, index, variants):
    path = corpus / "worfbench" / "full" / f"gold_{subset}.json"
    plan = load_plans(path)[index]
    [note] = [f for f in plan.import_findings if f.code == "edge_variant"]
    assert [v for v in variants if v in note.message] == variants, note.message
    assert note.message.count(";") == len(variants) - 1
    assert note.where.startswith(f"record {index}, conversations[")


WRAPPED = "taskbench-wrapped/MiniMax-Text-01_multimedia_first12.jsonl"
NODE_REF = re.compile(r"<node-(\d+)>")
OTHER_PLACEHOLDER = re.compile(r"<(?!node-\d+>)([A-Za-z][\w \-]*)>")


def test_result_wrapped_taskbench_records_read_and_show_their_two_defects(corpus):
    path = corpus / WRAPPED
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    plans = load_plans(path)  # detected: no format given
    assert [p.source_format for p in plans] == ["taskbench"] * 12
    assert [p.name for p in plans] == [r["id"] for r in records]
    defects = {}
    for record, plan in zip(records, plans):
        nodes = record["result"]["task_nodes"]
        assert plan.goal == record["user_request"]
        assert [s.tool for s in plan.steps] == [n["task"] for n in nodes]
        arguments = [[a for a in n["arguments"] if isinstance(a, str)] for n in nodes]
        own = {
            f"node-{i}"
            for i, args in enumerate(arguments)
            for a in args
            for k in NODE_REF.findall(a)
            if int(k) == i
        }
        loose = {
            f"node-{i}"
            for i, args in enumerate(arguments)
            for a in args
            if OTHER_PLACEHOLDER.search(a)
        }
        found = {
            f.code: {s for g in plan.import_findings if g.code == f.code for s in g.steps}
            for f in plan.import_findings
        }
        assert found.get("self_reference", set()) == own, plan.name
        assert found.get("unresolved_placeholder", set()) == loose, plan.name
        assert all(
            f.where.startswith(f"record {records.index(record)} (line ")
            and "result.task_nodes[" in f.where
            for f in plan.import_findings
        )
        if found:
            defects[plan.name] = sorted(found)
    assert defects == {"89116871": ["self_reference"], "21047396": ["unresolved_placeholder"]}


def test_one_wrapped_record_alone_reads_as_the_record(corpus):
    line = (corpus / WRAPPED).read_text().splitlines()[0]
    record = json.loads(line)
    [plan] = parse_plans(line)
    assert [s.tool for s in plan.steps] == [n["task"] for n in record["result"]["task_nodes"]]
    assert plan.step("node-1").depends_on == ("node-0",)
