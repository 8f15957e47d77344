"""The WorFBench importer: records and bare graph text, the noise of real outputs, and what is reported.

Tables of small texts -> steps, edges and findings; the goal taken from each domain's user turn; a
property test with NetworkX as the oracle for "nodes not on a START-to-END path"; mutated real records
(fuzz: only PlanFormatError may escape the public readers).
"""

from __future__ import annotations

import json

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planviz import critical_path, parse_plan, parse_plans, validate
from planviz.plan.importers import detect, import_plans
from tests.mutations import assert_only_format_errors, mutated_json, mutated_text

PROPS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Real WorFBench gold records (MIT, github.com/zjunlp/WorFBench; user turns shortened).
SEAL_TOOLS_9 = {
    "source": "seal_tools",
    "id": "seal_tools_9",
    "target": "graph",
    "category": "eval",
    "conversations": [
        {
            "role": "system",
            "content": "You are a helpful task planner. ... Keep your output in foramt:\nNode:\n"
            "1.{subtask_1}\n2.{subtask_2}\n...\nEdges:\n(START,1)\n...\n(n,END))",
        },
        {
            "role": "user",
            "content": "Now it's your turn.\nTask: I need your assistance in analyzing potential "
            'malicious activity on our server."\nOutput:\n\nThe tool list you can select '
            "from: [{'api_name': 'encryptData'}]",
        },
        {
            "role": "assistant",
            "content": "Node:\n1: Analyze potential malicious activity on the server using "
            "'server_logs.txt' and 'machine learning'\n2: Check ethical approval for the project \"Exploring the "
            'Impact of Social Media on Mental Health" by John Smith\n3: If approved, retrieve ethnographic research '
            "data from Africa over 6 months\n4: Provide a template for an informed consent form for social science "
            "research\nEdge: (START,1) (START,2) (2,3) (START,4) (3,END) (4,END)",
        },
    ],
}
WIKIHOW_9 = {
    "source": "wikihow",
    "id": "wikihow_9",
    "target": "graph",
    "category": "eval",
    "conversations": [
        {"role": "system", "content": "You are a helpful task planner."},
        {
            "role": "user",
            "content": "Task: How to Develop a Training Program on the Job\nThe action list you can "
            "take: ['Analyze the training need.\\n']",
        },
        {
            "role": "assistant",
            "content": "Node:\n1: Analyze the training need.\n2: Design the training program.\n"
            "3: Develop the training program.\n4: Implement the training program.\n5: Evaluate the training program.\n"
            'For the task of "How to Develop a Training Program on the Job," we would create a flow based on the '
            "sequential nature of the task. The nodes would connect in a linear pattern as each subtask follows "
            "naturally from the previous one:\n\nEdge: (START,1) (1,2) (2,3) (3,4) (4,5) (5,END) \n\nThis arrangement "
            "neatly illustrates the step-by-step progress typically involved in developing a training program.",
        },
    ],
}
REAL = [SEAL_TOOLS_9, WIKIHOW_9]


def one(text: str = "", data=None):
    [plan] = import_plans("worfbench", text, data, source="<test>")
    return plan


def edges(plan) -> set[tuple[str, str]]:
    return {(d, s.id) for s in plan.steps for d in s.depends_on}


def codes(plan) -> set[tuple[str, str]]:
    return {(f.code, f.severity) for f in plan.import_findings}


def test_a_record_becomes_a_plan_from_start_to_end():
    plan = one(json.dumps(SEAL_TOOLS_9), SEAL_TOOLS_9)
    assert plan.ids == ("START", "1", "2", "3", "4", "END")
    assert edges(plan) == {
        ("START", "1"),
        ("START", "2"),
        ("2", "3"),
        ("START", "4"),
        ("3", "END"),
        ("4", "END"),
    }
    assert (plan.step("START").kind, plan.step("END").kind) == ("start", "finish")
    assert plan.step("START").duration == plan.step("END").duration == 0
    assert (
        plan.step("3").action
        == "If approved, retrieve ethnographic research data from Africa over 6 months"
    )
    assert (
        plan.goal
        == "I need your assistance in analyzing potential malicious activity on our server."
    )
    assert (plan.name, plan.source_format, plan.import_findings) == (
        "seal_tools_9",
        "worfbench",
        (),
    )
    report = validate(plan)
    [dead] = report.by_code()["dead_end"]
    assert (dead.severity, dead.steps, dead.edges) == ("warning", ("1",), (("START", "1"),))
    assert "step '1' never reaches 'END'" in dead.message


def test_prose_around_the_graph_is_an_info_note_per_block():
    plan = one("", WIKIHOW_9)
    assert edges(plan) == {
        ("START", "1"),
        ("1", "2"),
        ("2", "3"),
        ("3", "4"),
        ("4", "5"),
        ("5", "END"),
    }
    notes = [(f.code, f.severity, f.where) for f in plan.import_findings]
    assert notes == [
        ("unparsed_line", "info", "conversations[2].content, line 7"),
        ("unparsed_line", "info", "conversations[2].content, line 11"),
    ]
    # the two prose blocks, and no evidence/outputs in the format
    assert validate(plan).verdict() == "ok (4 notes)"


GRAPH = "Node:\n1: find the key\n2: open the door\nEdge: (START,1) (1,2) (2,END)"


@pytest.mark.parametrize(
    "text, expected_edges, expected_codes",
    [
        (GRAPH, {("START", "1"), ("1", "2"), ("2", "END")}, set()),
        (
            "Node:\n1. find the key\n2. open the door\nEdges:\n(START, 1)\n(1, 2)\n(2, END)",
            {("START", "1"), ("1", "2"), ("2", "END")},
            set(),
        ),
        (
            "Nodes:\n1) find the key\n2) open the door\nGraph:\nEdge: ( START , 1 ) (1,2), (2,END).",
            {("START", "1"), ("1", "2"), ("2", "END")},
            set(),
        ),
        (
            "Node:\n1: find the key\n2: Edge the lawn: trim it\nEdge: (START,1) (1,2) (2,END)",  # node text with Edge
            {("START", "1"), ("1", "2"), ("2", "END")},
            set(),
        ),
        (
            "Sure! Here it is.\n" + GRAPH + "\nHope this helps.",
            {("START", "1"), ("1", "2"), ("2", "END")},
            {("unparsed_line", "info")},
        ),
        (
            GRAPH + "\nWhy:\n1. find the key first\n2. then open the door",
            {("START", "1"), ("1", "2"), ("2", "END")},
            {("unparsed_line", "info")},
        ),
        (
            GRAPH + "\nAlso (1, END) would work.",
            {("START", "1"), ("1", "2"), ("2", "END")},
            {("unparsed_line", "warning")},
        ),
        (
            GRAPH.replace("(2,END)", "(2,END) (2,4)"),
            {("START", "1"), ("1", "2"), ("2", "END")},
            {("dangling_link", "error")},
        ),
        (
            GRAPH.replace("(2,END)", "(2,END) (2,2)"),
            {("START", "1"), ("1", "2"), ("2", "END")},
            {("self_link", "error")},
        ),
        (
            GRAPH.replace("(2,END)", "(2,END) (1,2)"),
            {("START", "1"), ("1", "2"), ("2", "END")},
            {("duplicate_link", "warning")},
        ),
        (
            GRAPH.replace("(2,END)", "(2,END) (END,1) (2,START)"),
            {("START", "1"), ("1", "2"), ("2", "END")},
            {("malformed_link", "error")},
        ),
        (
            GRAPH.replace("2: open", "1: open"),
            {("START", "1")},  # node 2 is then unknown: (1,2), (2,END) dangle
            {("duplicate_label", "warning"), ("dangling_link", "error")},
        ),
        (
            GRAPH.replace("2: open the door", "2: open the door\n2: open the door"),
            {("START", "1"), ("1", "2"), ("2", "END")},
            {("unparsed_line", "info")},
        ),
        (
            GRAPH.replace("(START,1)", "(START,1) (START,2)"),
            {("START", "1"), ("START", "2"), ("1", "2"), ("2", "END")},
            {("redundant_start_edge", "warning")},
        ),
        (
            GRAPH.replace("(START,1)", ""),
            {("1", "2"), ("2", "END")},
            {("not_from_start", "warning")},
        ),
        # a numbered list before the Node: list is prose
        (
            "Let me think:\n1. find it\n2. open it\n" + GRAPH,
            {("START", "1"), ("1", "2"), ("2", "END")},
            {("unparsed_line", "info")},
        ),
        (
            "Node: 1: find the key\n2: open the door\nEdges: (START,1), (1,2) and (2,END)",
            {("START", "1"), ("1", "2"), ("2", "END")},
            set(),
        ),
        # the pairs of the Edge: line are read, the other words noted
        (
            GRAPH.replace("Edge: ", "Edge: here they are "),
            {("START", "1"), ("1", "2"), ("2", "END")},
            {("unparsed_line", "info")},
        ),
    ],
)
def test_noisy_graph_text(text, expected_edges, expected_codes):
    plan = one(text)
    assert detect(text, None) == "worfbench"
    assert (edges(plan), codes(plan)) == (expected_edges, expected_codes)
    assert plan.ids[:2] == ("START", "1") and plan.ids[-1] == "END"
    for f in plan.import_findings:
        assert f.where.startswith("line") and set(f.steps) <= set(plan.ids), f


NODES = "Node:\n1: find the key\n2: open the door\n"
EDGES = {("START", "1"), ("1", "2"), ("2", "END")}


@pytest.mark.parametrize(
    "text, variants, line",
    [
        (NODES + "Edge:\n- (START,1)\n- (1,2)\n- (2,END)", ["a bullet or numbered list"], 5),
        (
            NODES + "Edge:**\n- (START, 1)\n- (1, 2)\n- (2, END)",
            ["an Edge: header in Markdown markup", "a bullet"],
            4,
        ),
        (
            NODES + "Edge: (START, 1)\nEdge: (1, 2)\nEdge: (2, END)",
            ["one `Edge: (1, 2)` line per edge"],
            5,
        ),
        (
            NODES
            + "Edges:\n- (START, 1) opens the workflow\n- (1, 2): the key opens it\n- (2, END) -- done",
            ["a bullet", "pairs followed by prose"],
            5,
        ),
        (
            NODES
            + "Here is how they connect.\n1. **Edge**: (START, 1)\n2. **Edge**: (1, 2)\n3. **Edge**: (2, END)",
            ["a bullet", "one `Edge: (1, 2)` line", "lines outside one Edge: list"],
            5,
        ),
        (
            NODES
            + "- **Edge:** (START, 1) [begin]\n- **Edge:** (1, 2)\n- **Edge: (2, END)**: finished",
            ["a bullet", "one `Edge: (1, 2)` line", "pairs followed by prose"],
            4,
        ),
        (
            NODES + "Edges:\n(START, 1)\nThen the door.\n(1, 2)\n(2, END)",
            ["lines outside one Edge: list"],
            7,
        ),
    ],
)
def test_edges_written_in_other_layouts_read_as_written_and_say_so(text, variants, line):
    plan = one(text)
    assert edges(plan) == EDGES
    assert validate(plan).ok and not {"dead_end", "isolated_step"} & set(validate(plan).by_code())
    [note] = [f for f in plan.import_findings if f.code == "edge_variant"]
    assert note.severity == "info" and note.where == f"line {line}"
    assert [v for v in variants if v in note.message] == variants and note.message.count(
        ";"
    ) == len(variants) - 1
    assert note.message.endswith(": 3 pair(s) in all")


@pytest.mark.parametrize(
    "text, expected_edges, warned",
    [
        (
            NODES + "Edge:\n- (START, 1) then (1, 2)\n- (2, END)",
            {("START", "1"), ("2", "END")},
            True,
        ),
        (NODES + "Edge: (START,1) (1,2) (2,END)\nAlso (1, END) would work.", EDGES, True),
        (
            NODES + "Edge: (START,1) (1,2) (2,END)\nSee:\n1. find the key\n2. open the door",
            EDGES,
            False,
        ),
    ],
)
def test_pairs_inside_prose_are_not_read_and_a_restated_list_is_prose(text, expected_edges, warned):
    plan = one(text)
    assert edges(plan) == expected_edges
    assert (
        ("unparsed_line", "warning") in codes(plan)
        if warned
        else ("unparsed_line", "info") in codes(plan)
    )
    assert [s.action for s in plan.steps[1:3]] == ["find the key", "open the door"]


def test_findings_name_the_place_and_the_fix():
    plan = one(
        GRAPH.replace("(START,1)", "(START,1) (START,2)").replace("(2,END)", "(2,END) (3,7)")
    )
    by_code = {f.code: f for f in plan.import_findings}
    assert by_code["dangling_link"].message.startswith(
        "edge (3, 7) names '3' and '7', which is neither START, END nor a numbered node (nodes: 1, 2)"
    )
    assert by_code["redundant_start_edge"].edges == (("START", "2"),)
    assert "drop it, or the edge (1, 2)" in by_code["redundant_start_edge"].message
    assert by_code["dangling_link"].where == "line 4"


def test_branches_off_the_route_are_distinct_findings():
    """A dead end (never reaches END), an isolated node (no edge at all) and a branch START never reaches."""
    text = (
        "Node:\n1: a\n2: b\n3: c\n4: d\n5: e\n6: f\n7: g\n"
        "Edge: (START,1) (1,END) (1,2) (2,3) (5,6) (6,END)"
    )
    plan = one(text)
    report = validate(plan)
    found = {(f.code, f.steps) for f in report.findings if f.severity != "info"}
    assert found == {
        ("dead_end", ("2", "3")),
        ("isolated_step", ("4",)),
        ("isolated_step", ("7",)),
        ("not_from_start", ("5", "6")),
    }
    assert report.ok


def test_a_graph_with_no_node_is_no_steps():
    plan = one("I cannot plan this task.\nEdge: (START,END)")
    assert plan.steps == ()
    [f] = [f for f in plan.import_findings if f.code == "no_steps"]
    assert (
        f.severity == "error" and "holds no numbered node" in f.message and "1 edge(s)" in f.message
    )
    assert not validate(plan).ok


def test_the_critical_path_ends_at_end_not_on_a_longer_dead_branch():
    text = "Node:\n1: a\n2: b\n3: c\n4: d\nEdge: (START,1) (1,END) (START,2) (2,3) (3,4)"
    schedule = critical_path(one(text))
    assert schedule.path == ("START", "1", "END")
    assert schedule.makespan == 1
    assert all(schedule.steps[s].slack == float("inf") for s in ("2", "3", "4"))


@pytest.mark.parametrize(
    "user, goal",
    [
        (
            "You are in the middle of a room.\n\nYour task is to: find two newspaper and put them in "
            "armchair.The action list you can take: 1. go to {recep}",
            "find two newspaper and put them in armchair.",
        ),
        (
            "Now, I will start a new problem in a new OS. My problem is:\n\nLocate the text files."
            "The action list you can take: bash",
            "Locate the text files.",
        ),
        (
            "WebShop [SEP] Instruction: [SEP] i am looking for pink massage sheets [SEP] SearchThe action list you can "
            "take: search[keywords]",
            "i am looking for pink massage sheets",
        ),
        (
            "Task: What is the average GNP?\nThe database tables and corresponding fields you can operate are: {}",
            "What is the average GNP?",
        ),
        (
            "Task: How to Clean a Jade Roller\nThe action list you can take: []",
            "How to Clean a Jade Roller",
        ),
        ("Task: Check the domain.\napi_list:[{'name': 'x'}]", "Check the domain."),
        ("Please just plan this.", "Please just plan this."),
    ],
)
def test_the_task_of_each_domain_is_the_goal(user, goal):
    rec = {
        "id": "r",
        "conversations": [
            {"role": "user", "content": user},
            {"role": "assistant", "content": GRAPH},
        ],
    }
    assert one("", rec).goal == goal


@pytest.mark.parametrize(
    "text, data, expected",
    [
        ("", SEAL_TOOLS_9, "worfbench"),
        ("", REAL, "worfbench"),
        (GRAPH, None, "worfbench"),
        ("Node:\n1: a\nEdges:\n(START, 1)\n(1, END)", None, "worfbench"),
        ("We start (START, 1) here", None, None),  # no Node/Edge header: not a graph
        ("1. Preheat the oven\n2. Bake", None, None),
    ],
)
def test_detect(text, data, expected):
    assert detect(text, data) == expected


def test_read_through_the_public_functions(tmp_path):
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(REAL))
    from planviz import load_plans

    plans = load_plans(path)
    assert [p.name for p in plans] == ["seal_tools_9", "wikihow_9"]
    assert plans[1].import_findings[0].where == "record 1, conversations[2].content, line 7"
    assert parse_plan(GRAPH).ids == ("START", "1", "2", "END")
    assert [p.ids for p in parse_plans(json.dumps(REAL), format="worfbench")] == [
        p.ids for p in plans
    ]


# --------------------------------------------------------------------------- the NetworkX oracle


@st.composite
def graph_texts(draw):
    """Random WorFBench graphs: n nodes, random edges among START, the nodes and END (some dangling)."""
    n = draw(st.integers(1, 8))
    names = ["START", *map(str, range(1, n + 1)), "END"]
    pairs = draw(
        st.lists(st.tuples(st.sampled_from(names[:-1]), st.sampled_from(names[1:])), max_size=14)
    )
    # acyclic: no cycle findings
    forward = [(u, v) for u, v in pairs if names.index(u) < names.index(v)]
    nodes = "\n".join(f"{k}: subtask {k}" for k in range(1, n + 1))
    return f"Node:\n{nodes}\nEdge: " + " ".join(f"({u},{v})" for u, v in forward), n, forward


@PROPS
@given(graph_texts())
def test_off_route_findings_agree_with_networkx(case):
    """Every step named by dead_end, isolated_step or not_from_start is off every START-to-END path, and back."""
    text, n, pairs = case
    g = nx.DiGraph()
    g.add_nodes_from(["START", "END", *map(str, range(1, n + 1))])
    g.add_edges_from(pairs)
    on_route = (nx.descendants(g, "START") | {"START"}) & nx.ancestors(g, "END")
    oracle = set(g) - on_route - {"END"}  # START too, when no path leads from it to END
    plan = one(text)
    report = validate(plan)
    named = {
        s
        for f in report.findings
        if f.code in ("dead_end", "isolated_step", "not_from_start")
        for s in f.steps
    }
    assert named == oracle
    assert {s for f in report.by_code().get("isolated_step", ()) for s in f.steps} == {
        v for v in oracle if g.degree(v) == 0
    }


# --------------------------------------------------------------------------- mutated real records


@PROPS
@given(st.sampled_from(REAL), st.data())
def test_mutated_real_records_never_crash(rec, data):
    assert_only_format_errors(json.dumps(mutated_json(rec, data)), "worfbench")


@PROPS
@given(st.sampled_from(REAL), st.data())
def test_mutated_real_graph_text_never_crashes(rec, data):
    text = mutated_text(rec["conversations"][-1]["content"], data)
    assert_only_format_errors(text, "worfbench")
    for plan in import_plans("worfbench", text, None):
        assert all(f.layer == "import" for f in plan.import_findings)
        validate(plan)


@pytest.mark.slow
def test_a_huge_noisy_graph_reads_in_bounded_time(tmp_path):
    """20,000 nodes with prose between them and 40,000 edges: linear work, in a child process with a time limit."""
    import subprocess
    import sys

    n = 20_000
    lines = ["Node:"] + [
        line for i in range(1, n + 1) for line in (f"{i}: subtask {i}", f"note about {i}")
    ]
    lines.append("Edge: " + " ".join(f"(START,{i}) ({i},END)" for i in range(1, n + 1)))
    path = tmp_path / "big.txt"
    path.write_text("\n".join(lines))
    done = subprocess.run(
        [sys.executable, "-m", "planviz", "validate", "--format", "worfbench", str(path)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith(f"ok ({n + 2} notes)")


def test_a_broken_record_among_good_ones_is_a_finding_and_the_others_read():
    plans = import_plans(
        "worfbench", "", [SEAL_TOOLS_9, "oops", {"id": "x", "conversations": "no"}]
    )
    assert [len(p.steps) for p in plans] == [6, 0, 0]
    assert [[(f.code, f.where) for f in p.import_findings] for p in plans[1:]] == [
        [("malformed_record", "record 1")],
        [("malformed_record", "record 2")],
    ]
