"""planviz.importers: TaskBench/HuggingGPT, LLMCompiler, ReWOO and NESTFUL plans.

Tables of small inputs -> expected steps, edges, facts and import findings;
property tests over random reference graphs with NetworkX as the oracle; and
the same inputs through planviz.parse_plan / parse_plans (text) and load_plan / load_plans (files, data).
"""

from __future__ import annotations

import json

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planviz import to_graph, validate
from planviz.errors import PlanFormatError
from planviz.plan.importers import FORMATS, detect, import_plans

PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def one(fmt: str, text: str = "", data=None):
    plans = import_plans(fmt, text, data, source="<test>")
    assert len(plans) == 1, plans
    return plans[0]


def codes(plan) -> list[str]:
    return sorted(f.code for f in plan.import_findings)


def edges(plan) -> set[tuple[str, str]]:
    return {(d, s.id) for s in plan.steps for d in s.depends_on}


def record(nodes, links=None, request="do it"):
    rec = {"user_request": request, "task_nodes": nodes}
    if links is not None:
        rec["task_links"] = [{"source": s, "target": t} for s, t in links]
    return rec


def node(task, *args):
    return {"task": task, "arguments": list(args)}


# --------------------------------------------------------------------------- detection

LLMC = 'Question: ratio?\n1. search("Everest")\n2. search("K2")\n3. math("$1 / $2")\n4. join()<END_OF_PLAN>\n'
REWOO = (
    "Question: how high?\nPlan: look it up\n#E1 = Wikipedia[Colorado orogeny]\n"
    "Plan: ask\n#E2 = LLM[height? #E1]\n"
)
NEST = {
    "input": "q",
    "output": [
        {"name": "f", "arguments": {"a": 1}, "label": "var1"},
        {"name": "g", "arguments": {"x": "$var1.y$"}, "label": "var2"},
    ],
}
HGPT = '[{"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": "e1.jpg"}}]'


@pytest.mark.parametrize(
    "text, data, expected",
    [
        ("", record([node("A", "x")]), "taskbench"),
        ("", [record([node("A", "x")]), record([node("B", "y")])], "taskbench"),
        ("", (record([node("A", "x")]),), "taskbench"),
        (HGPT, json.loads(HGPT), "taskbench"),
        (HGPT.replace("}}]", "}}}}]"), None, "taskbench"),  # not valid JSON: detected from the text
        (
            "",
            [{"role": "user", "content": "hi"}, {"role": "assistant", "content": HGPT}],
            "taskbench",
        ),
        (LLMC, None, "llmcompiler"),
        ("", {"hotpot": LLMC}, "llmcompiler"),
        (REWOO, None, "rewoo"),
        ("", [{"plan_string": REWOO}], "rewoo"),
        ("", NEST, "nestful"),
        ("", {"executable": [NEST]}, "nestful"),
        ("", NEST["output"], "nestful"),
        ("", {"goal": "g", "steps": [{"id": "A", "action": "a", "expected_evidence": "e"}]}, None),
        ("", {"goal": "g", "steps": [{"n": 1, "tool": "t", "arguments": {}, "why": "w"}]}, None),
        ("1. Preheat the oven\n2. Bake", None, None),
        ("just some prose", None, None),
        ("", {"name": "x"}, None),
    ],
)
def test_detect(text, data, expected):
    assert detect(text, data) == expected


def test_unknown_format_is_refused_with_the_choices():
    with pytest.raises(
        PlanFormatError, match=r"unknown planner format 'yaml'.*'taskbench', 'llmcompiler'"
    ):
        import_plans("yaml", "", None, source="p.txt")
    assert FORMATS == (
        "taskbench",
        "llmcompiler",
        "rewoo",
        "nestful",
        "worfbench",
        "teval",
        "asynchow",
    )


# --------------------------------------------------------------------------- TaskBench

CASES_TASKBENCH = [
    # (name, nodes, links, expected edges, expected import codes)
    (
        "chain agrees with links",
        [node("ASR", "a.wav"), node("TTS", "<node-0>"), node("QA", "topic", "<node-1>")],
        [("ASR", "TTS"), ("TTS", "QA")],
        {("node-0", "node-1"), ("node-1", "node-2")},
        [],
    ),
    (
        "dangling reference",
        [node("A", "x"), node("B", "<node-5>")],
        [("A", "B")],
        {("node-0", "node-1")},
        ["dangling_reference", "link_mismatch"],
    ),
    (
        "self reference",
        [node("A", "x"), node("B", "<node-1>")],
        [("A", "B")],
        {("node-0", "node-1")},
        ["link_mismatch", "one_based_references", "self_reference"],
    ),
    (
        "forward reference keeps its edge",
        [node("A", "<node-1>"), node("B", "x")],
        [("B", "A")],
        {("node-1", "node-0")},
        ["forward_reference"],
    ),
    (
        "reference without a link",
        [node("A", "x"), node("B", "<node-0>"), node("C", "<node-0>")],
        [("A", "B")],
        {("node-0", "node-1"), ("node-0", "node-2")},
        ["link_mismatch"],
    ),
    (
        "links only: one finding for the record",
        [node("A", "x"), node("B", "y"), node("C", "z")],
        [("A", "B"), ("B", "C")],
        {("node-0", "node-1"), ("node-1", "node-2")},
        ["link_mismatch"],
    ),
    (
        "link naming a tool used twice is not guessed",
        [node("OD", "img"), node("Edit", "<node-0>"), node("OD", "<node-1>")],
        [("OD", "Edit"), ("Edit", "OD")],
        {("node-0", "node-1"), ("node-1", "node-2")},
        ["ambiguous_link", "ambiguous_link"],
    ),
    (
        "link naming a tool nobody uses",
        [node("A", "x"), node("B", "<node-0>")],
        [("A", "B"), ("A", "none")],
        {("node-0", "node-1")},
        ["dangling_link"],
    ),
    (
        "link from a tool to itself",
        [node("A", "x"), node("B", "<node-0>")],
        [("A", "B"), ("B", "B")],
        {("node-0", "node-1")},
        ["self_link"],
    ),
    (
        "duplicate link",
        [node("A", "x"), node("B", "<node-0>")],
        [("A", "B"), ("A", "B")],
        {("node-0", "node-1")},
        ["duplicate_link"],
    ),
    (
        "odd spellings are read, and said",
        [
            node("A", "x"),
            node("B", "<node_0>"),
            node("C", "<output of node-1>"),
            node("D", "${{TaskNodes[2].output}}"),
        ],
        [("A", "B"), ("B", "C"), ("C", "D")],
        {("node-0", "node-1"), ("node-1", "node-2"), ("node-2", "node-3")},
        ["nonstandard_reference"] * 3,
    ),
    (
        "template placeholder left in",
        [node("A", "x"), node("B", "<translated_text>")],
        None,
        set(),
        ["unresolved_placeholder"],
    ),
    (
        "percent and dollar templates",
        [node("A", "x"), node("B", "%{previous_step.output%}"), node("C", "$(step-2-output)")],
        None,
        set(),
        ["unresolved_placeholder", "unresolved_placeholder"],
    ),
    (
        "empty arguments",
        [node("A", ""), {"task": "B", "arguments": [{"name": "text", "value": ""}]}],
        None,
        set(),
        ["empty_argument", "empty_argument"],
    ),
    (
        "argument objects without a value",
        [
            {"task": "A", "arguments": [{"name": "summarized text"}]},
            node("B", {"name": "<node-0>"}),
        ],
        None,
        {("node-0", "node-1")},
        ["malformed_arguments", "malformed_arguments"],
    ),
    (
        "no task_links field: references alone",
        [node("A", "x"), node("B", "<node-0>")],
        None,
        {("node-0", "node-1")},
        [],
    ),
    (
        "reference written as an argument's name is read, and said",
        [node("A", "x"), {"task": "B", "arguments": [{"name": "<node-0>", "value": "a passage"}]}],
        None,
        {("node-0", "node-1")},
        ["malformed_arguments"],
    ),
    (
        "repeated and empty argument names keep their values by position, and are said",
        [
            {
                "task": "A",
                "arguments": [
                    {"name": "text", "value": "a"},
                    {"name": "text", "value": "b"},
                    {"name": "", "value": "c"},
                ],
            }
        ],
        None,
        set(),
        ["malformed_arguments", "malformed_arguments"],
    ),
    (
        "another case is an odd spelling",
        [node("A", "x"), node("B", "<Node-0>")],
        None,
        {("node-0", "node-1")},
        ["nonstandard_reference"],
    ),
    (
        "long and punctuated templates are placeholders, a bracketed URL is a value",
        [
            node("A", "<sentiment determined by Text Sentiment Analysis>"),
            node("B", "<task_nodes[0].arguments[0].value>"),
            node("C", "<https://example.com/a.wav>"),
        ],
        None,
        set(),
        ["unresolved_placeholder"] * 2,
    ),
    (
        "every reference one off",
        [node("A", "x"), node("B", "<node-1>"), node("C", "<node-2>")],
        None,
        set(),
        ["one_based_references", "self_reference", "self_reference"],
    ),
]


@pytest.mark.parametrize(
    "name, nodes, links, expected_edges, expected_codes",
    CASES_TASKBENCH,
    ids=[c[0] for c in CASES_TASKBENCH],
)
def test_taskbench_table(name, nodes, links, expected_edges, expected_codes):
    plan = one("taskbench", "", record(nodes, links))
    assert plan.ids == tuple(f"node-{i}" for i in range(len(nodes)))
    assert edges(plan) == expected_edges
    assert codes(plan) == expected_codes
    assert all(f.layer == "import" and f.where for f in plan.import_findings)
    assert all(s.expected_evidence and s.action.startswith(s.tool + "(") for s in plan.steps)


def test_taskbench_reference_becomes_dependency_and_fact():
    rec = record(
        [
            node("Image-to-Text", "example.jpg"),
            {"task": "Text-to-Speech", "arguments": [{"name": "text", "value": "<node-0>"}]},
        ],
        [("Image-to-Text", "Text-to-Speech")],
    )
    plan = one("taskbench", "", rec)
    a, b = plan.steps
    assert (a.tool, a.arguments) == ("Image-to-Text", {"0": "example.jpg"})
    assert a.produces == ("node-0.output", "node-0.text")
    assert (b.depends_on, b.requires, b.arguments) == (
        ("node-0",),
        ("node-0.text",),
        {"text": "<node-0>"},
    )
    assert b.action == 'Text-to-Speech(text="<node-0>")'
    assert a.expected_evidence == "the Image-to-Text result"
    assert to_graph(plan).edges["node-0", "node-1"]["facts"] == ("node-0.text",)
    assert validate(plan).ok


def test_taskbench_findings_say_where():
    rec = record([node("A", "x"), node("B", "<node-7>")], [("A", "B"), ("A", "Nope")])
    plan = one("taskbench", "", rec)
    where = {f.code: f.where for f in plan.import_findings}
    assert where == {
        "dangling_reference": "task_nodes[1].arguments[0]",
        "dangling_link": "task_links[1]",
        "link_mismatch": "task_links[0]",
    }
    msg = {f.code: f.message for f in plan.import_findings}
    assert "'node-1' reads '<node-7>'" in msg["dangling_reference"]
    assert "'Nope'" in msg["dangling_link"]


def test_taskbench_self_and_dangling_references_fail_validation_but_load():
    plan = one("taskbench", "", record([node("A", "x"), node("B", "<node-1>", "<node-9>")]))
    report = validate(plan)
    assert not report.ok
    assert {"self_reference", "dangling_reference"} <= report.codes
    assert plan.step("node-1").depends_on == ()  # no edge to itself or to a step that is not there
    assert plan.step("node-1").requires == ("node-1.output", "node-9.output")


def test_taskbench_cycle_from_links_is_reported_by_validate():
    rec = record(
        [node("A", "x"), node("B", "<node-0>"), node("C", "<node-1>")],
        [("A", "B"), ("B", "C"), ("C", "A")],
    )
    plan = one("taskbench", "", rec)
    assert codes(plan) == ["link_mismatch"]
    assert "cycle" in validate(plan).codes


def test_taskbench_unknown_fields_and_malformed_parts_are_findings_not_errors():
    rec = {
        "user_request": "r",
        "task_nodes": [
            {"task": "A", "arguments": ["x"], "metadata": {"k": 1}},
            {"task": "B", "or": ["C"]},
            {"task": "D", "arguments": {"name": "query", "value": ""}},
            "garbage",
            {"arguments": ["<node-0>"]},
        ],
        "task_links": [
            {"source": "A", "targets": ["B"]},
            "nonsense",
            {"source": "A", "target": "D", "or": "x"},
        ],
    }
    plan = one("taskbench", "", rec)
    assert len(plan.steps) == 5
    # links A -> B and A -> D have no argument reference, node-4 reads node-0 with no link; D's query is ""
    assert codes(plan) == ["empty_argument"] + ["link_mismatch"] * 3 + [
        "malformed_arguments",
        "malformed_link",
        "malformed_link",
        "malformed_node",
        "malformed_node",
        "unknown_field",
        "unknown_field",
        "unknown_field",
    ]
    assert plan.step("node-2").arguments == {"query": ""}


def test_taskbench_links_can_name_explicit_ids():
    rec = record(
        [
            {"task": "URL Extractor", "arguments": ["text"], "id": "extract_url"},
            {"task": "Audio Downloader", "arguments": ["<node-0>"], "id": "download_audio"},
        ],
        [("extract_url", "download_audio")],
    )
    plan = one("taskbench", "", rec)
    assert edges(plan) == {("node-0", "node-1")} and codes(plan) == []


def test_taskbench_ambiguous_link_message_names_the_candidates_and_the_matching_reference():
    rec = record(
        [node("OD", "img"), node("Edit", "<node-0>"), node("OD", "<node-1>")], [("OD", "Edit")]
    )
    plan = one("taskbench", "", rec)
    assert codes(plan) == ["ambiguous_link", "link_mismatch"]  # node-2 reads node-1 with no link
    [f] = [f for f in plan.import_findings if f.code == "ambiguous_link"]
    assert f.severity == "warning" and f.steps == ("node-0", "node-1", "node-2")
    assert "'OD' is used by node-0, node-2" in f.message
    assert "node-0 -> node-1 matches it" in f.message


def test_taskbench_links_naming_the_same_tools_are_one_ambiguous_finding_in_linear_work():
    n = 800  # issue 29: one tool repeated 800 times took 61 s (each link scanned and sorted every task)
    nodes = [node("Same", f"<node-{i - 1}>" if i else "x.jpg") for i in range(n)]
    plan = one("taskbench", "", record(nodes, [("Same", "Same")] * (n - 1)))
    [f] = [f for f in plan.import_findings if f.code == "ambiguous_link"]
    assert f.where == "task_links[0]" and len(f.steps) == n
    assert (
        f"written {n - 1} times (task_links[0], task_links[1]," in f.message
        and "and 791 more" in f.message
    )
    assert "the argument references node-0 -> node-1, node-1 -> node-2," in f.message
    assert [s.depends_on for s in plan.steps[1:4]] == [("node-0",), ("node-1",), ("node-2",)]
    # every reference is backed
    assert not [x for x in plan.import_findings if x.code == "link_mismatch"]


# Three TaskBench gold records (MIT, microsoft/JARVIS taskbench/data_dailylifeapis; the request is in
# "instruction", arguments are {name, value} objects, links name tools).
GOLD = [
    {
        "id": "77532649",
        "instruction": "I've been hearing a lot about this movie called 'Inception', could you help "
        "me watch it?",
        "task_nodes": [
            {"task": "play_movie_by_title", "arguments": [{"name": "title", "value": "Inception"}]}
        ],
        "task_links": [],
        "task_steps": ["Step 1: Invoke play_movie_by_title API with 'Inception' as movie title."],
    },
    {
        "id": "17286260",
        "instruction": "I have a busy day ahead. Can you install the 'example_software' for me, and "
        "then wake me up at 08:00?",
        "task_nodes": [
            {
                "arguments": [
                    {"name": "software", "value": "example_software"},
                    {"name": "instruction", "value": "install"},
                ],
                "task": "software_management",
            },
            {"arguments": [{"name": "time", "value": "08:00"}], "task": "set_alarm"},
        ],
        "task_links": [{"source": "software_management", "target": "set_alarm"}],
        "task_steps": [
            "Step 1: Execute software_management task to install 'example_software'",
            "Step 2: Once done, trigger set_alarm function to set an alarm at '08:00'",
        ],
    },
]


def test_taskbench_gold_records_read_the_instruction_as_the_goal_and_the_id_as_the_name():
    plans = import_plans("taskbench", "\n".join(map(json.dumps, GOLD)), list(GOLD))
    assert [p.goal for p in plans] == [r["instruction"] for r in GOLD]
    assert [p.name for p in plans] == ["77532649", "17286260"]
    assert [p.source_format for p in plans] == ["taskbench", "taskbench"]
    assert plans[1].step("node-0").arguments == {
        "software": "example_software",
        "instruction": "install",
    }


@pytest.mark.parametrize(
    "args, expected",
    [
        # no arguments at all (UltraTool/RestBench style): the links are the only data flow
        (
            [[], []],
            [],
        ),
        ([None, None], []),
        ([["x"], ["y"]], ["link_mismatch"]),  # literal arguments, and a link no argument stands for
        ([["x"], ["<node-0>"]], []),
    ],
)
def test_taskbench_links_without_any_arguments_are_the_data_flow(args, expected):
    nodes = [{"task": t, **({"arguments": a} if a is not None else {})} for t, a in zip("AB", args)]
    plan = one("taskbench", "", record(nodes, [("A", "B")]))
    assert codes(plan) == expected
    assert edges(plan) == {("node-0", "node-1")}


@pytest.mark.parametrize(
    "steps, expected",
    [
        (["Step 1: a", "Step 2: b"], []),
        (["Step 1: a"], []),  # fewer described steps than nodes: not what this finding is about
        (["Step 1: a", "Step 2: b", "Step 3: save it"], ["steps_nodes_mismatch"]),
    ],
)
def test_taskbench_more_described_steps_than_nodes(steps, expected):
    rec = {**record([node("A", "x"), node("B", "<node-0>")], [("A", "B")]), "task_steps": steps}
    plan = one("taskbench", "", rec)
    assert codes(plan) == expected
    for f in plan.import_findings:
        assert f.severity == "warning" and f.where == "task_steps"
        assert f.message.startswith("task_steps describes 3 steps but task_nodes has 2 task(s)")
        assert 'e.g. "Step 3: save it"' in f.message


@pytest.mark.parametrize(
    "fmt, text, data, looks",
    [
        ("llmcompiler", "Let me think about it.", None, 'it begins "Let me think about it."'),
        ("rewoo", "Question: why?\nno plan here", None, "it begins"),
        ("rewoo", LLMC, None, "it reads as LLMCompiler: try format='llmcompiler'"),
        ("teval", "", {"goal": "g", "steps": []}, "it is a planviz plan (goal and steps)"),
        ("teval", "", {"a": 1}, "it is a mapping with keys a"),
        ("worfbench", "", [], "holds no numbered node"),
        (
            "taskbench",
            "",
            {"user_request": "r", "task_nodes": []},
            "it is a mapping with keys user_request, task_nodes",
        ),
    ],
)
def test_an_import_that_finds_no_step_is_an_error(fmt, text, data, looks):
    [plan] = import_plans(fmt, text, data, source="<test>")
    assert plan.steps == ()
    [f] = [f for f in plan.import_findings if f.code == "no_steps"]
    assert f.severity == "error" and looks in f.message
    report = validate(plan)
    assert not report.ok and report.codes >= {"no_steps"}
    assert sum(f.code == "no_steps" for f in report.findings) == 1  # said once, by the importer


def test_json_lines_text_with_a_broken_record_keeps_the_others():
    good = json.dumps(record([node("A", "x"), node("B", "<node-0>")]))
    text = good + "\n" + '{"user_request": "oops", "task_nodes": [' + "\n\n" + good + "\n"
    plans = import_plans("taskbench", text, None, source="f.jsonl")
    assert [len(p.steps) for p in plans] == [2, 0, 2]
    [f] = plans[1].import_findings
    assert (f.code, f.severity, f.where) == ("invalid_json", "error", "record 1 (line 2)")


def test_records_from_parsed_json_lines_name_their_line():
    text = (
        json.dumps(record([node("A", "<node-3>")]))
        + "\n\n"
        + json.dumps(record([node("A", "<node-3>")]))
    )
    data = [json.loads(line) for line in text.splitlines() if line.strip()]
    plans = import_plans("taskbench", text, data, source="f.jsonl")
    assert [p.import_findings[0].where for p in plans] == [
        "record 0 (line 1), task_nodes[0].arguments[0]",
        "record 1 (line 3), task_nodes[0].arguments[0]",
    ]


# --------------------------------------------------------------------------- HuggingGPT


def test_hugginggpt_dep_and_generated_references():
    tasks = [
        {"task": "object-detection", "id": 0, "dep": [-1], "args": {"image": "e1.jpg"}},
        {
            "task": "visual-question-answering",
            "id": 1,
            "dep": [0],
            "args": {"image": "<GENERATED>-0", "text": "how many sheep?"},
        },
    ]
    plan = one("taskbench", json.dumps(tasks), tasks)
    assert codes(plan) == []
    assert plan.step("node-1").requires == ("node-0.image",)
    assert plan.step("node-0").produces == ("node-0.output", "node-0.image")
    assert (
        plan.step("node-1").action
        == 'visual-question-answering(image="<GENERATED>-0", text="how many sheep?")'
    )


@pytest.mark.parametrize(
    "tasks, expected_codes",
    [
        (
            [
                {"task": "a", "id": 0, "dep": [-1], "args": {}},
                {"task": "b", "id": 1, "dep": [-1], "args": {"t": "<GENERATED>-0"}},
            ],
            ["link_mismatch"],
        ),
        (
            [
                {"task": "a", "id": 0, "dep": [-1], "args": {}},
                {"task": "b", "id": 1, "dep": [0], "args": {"t": "x"}},
            ],
            ["link_mismatch"],
        ),
        (
            [
                {"task": "a", "id": 0, "dep": [-1], "args": {}},
                {"task": "b", "id": 1, "dep": [4], "args": {}},
            ],
            ["dangling_link"],
        ),
        ([{"task": "a", "id": 0, "dep": [0], "args": {}}], ["self_link"]),
        (
            [
                {"task": "a", "id": 0, "dep": [-1], "args": {}},
                {"task": "b", "id": 1, "dep": [0], "args": {"t": "<GENERATED-0>"}},
            ],
            ["nonstandard_reference"],
        ),
        ([{"task": "a", "dep": [-1], "args": {}}], ["malformed_node"]),
    ],
)
def test_hugginggpt_table(tasks, expected_codes):
    assert codes(one("taskbench", json.dumps(tasks), tasks)) == expected_codes


@pytest.mark.parametrize(
    "text, n_tasks, skipped",
    [
        (
            '[{"task": "a", "id": 0, "dep": [-1], "args": {"x": 1}} }}, {"task": "b", "id": 1, "dep": [0], '
            '"args": {"t": "<GENERATED>-0"}}]',
            2,
            "'}}' at line 1 column 56",
        ),
        (
            '{"task": "a", "id": 0, "dep": [-1], "args": {}}, {"task": "b", "id": 1, "dep": [0], '
            '"args": {"t": "<GENERATED>-0"}}]',
            2,
            None,
        ),
    ],
)
def test_hugginggpt_invalid_json_is_a_finding_and_the_tasks_still_load(text, n_tasks, skipped):
    assert detect(text, None) == "taskbench"
    plan = one("taskbench", text, None)
    assert len(plan.steps) == n_tasks
    assert plan.step("node-1").depends_on == ("node-0",)
    [f] = [f for f in plan.import_findings if f.code == "invalid_json"]
    assert f.severity == "error" and f.where.startswith("line 1 column")
    assert (skipped in f.message) if skipped else ("skipped" not in f.message)


def test_hugginggpt_chat_demos_pair_each_plan_with_its_request():
    chat = [
        {"role": "user", "content": "count sheep"},
        {"role": "assistant", "content": HGPT},
        {"role": "user", "content": "draw a cat"},
        {
            "role": "assistant",
            "content": '[{"task": "text-to-image", "id": 0, "dep": [-1], "args": {"text": "cat"}}',
        },
    ]
    plans = import_plans("taskbench", json.dumps(chat), chat, source="demo.json")
    assert [p.goal for p in plans] == ["count sheep", "draw a cat"]
    assert [codes(p) for p in plans] == [[], ["invalid_json"]]
    assert plans[1].import_findings[0].where.startswith("message 3, line 1 column")
    assert len(plans[1].steps) == 1


# --------------------------------------------------------------------------- LLMCompiler


def test_llmcompiler_plan():
    plan = one("llmcompiler", LLMC)
    assert plan.goal == "ratio?"
    assert plan.ids == ("1", "2", "3", "4")
    assert edges(plan) == {("1", "3"), ("2", "3"), ("1", "4"), ("2", "4"), ("3", "4")}
    assert plan.step("3").requires == ("$1", "$2") and plan.step("1").produces == ("$1",)
    assert [s.tool for s in plan.steps] == ["search", "search", "math", "join"]
    assert (
        plan.step("1").arguments == {"0": "Everest"} and plan.step("3").action == 'math("$1 / $2")'
    )
    assert codes(plan) == [] and validate(plan).ok


@pytest.mark.parametrize(
    "body, expected_codes, expected_ids",
    [
        (
            '1. search("a")\n2. math("x", ["$1"]\n3. join()<END_OF_PLAN>',
            ["unparsed_line"],
            ("1", "2", "3"),
        ),
        (
            '1. search("a")\n2. this is not a call\n3. math("$2")\n4. join()',
            ["dangling_reference", "unparsed_line"],
            ("1", "3", "4"),
        ),
        ('1. math("$2")\n2. search("a")\n3. join()', ["forward_reference"], ("1", "2", "3")),
        ('1. math("$1")\n2. join()', ["self_reference"], ("1", "2")),
        (
            '1. search("a")\n2. join()<END_OF_PLAN>\n3. search("b")',
            ["unparsed_line"],
            ("1", "2", "3"),
        ),
        ('1. search("a")\n2. math("${1} + 1")\n3. join()', [], ("1", "2", "3")),
    ],
)
def test_llmcompiler_table(body, expected_codes, expected_ids):
    plan = one("llmcompiler", "Question: q\n" + body)
    assert codes(plan) == expected_codes
    assert plan.ids == expected_ids


def test_llmcompiler_missing_paren_says_line_and_consequence():
    plan = one(
        "llmcompiler", 'Question: q\n1. search("a")\n2. math("x", ["$1"]\n3. join()<END_OF_PLAN>'
    )
    [f] = plan.import_findings
    assert (f.where, f.severity, f.steps) == ("line 3", "error", ("2",))
    assert "no closing ')'" in f.message and "skips such a line" in f.message
    assert plan.step("2").depends_on == ("1",) and plan.step("2").arguments == {
        "0": "x",
        "1": ["$1"],
    }
    assert plan.step("2").action == 'math("x", ["$1"]'  # shown as written, not repaired


def test_llmcompiler_several_questions_and_labelled_texts():
    text = LLMC + "###\n\n" + LLMC.replace("ratio?", "other?")
    plans = import_plans("llmcompiler", "", {"a": text, "b": LLMC}, source="x.json")
    assert [p.goal for p in plans] == ["ratio?", "other?", "ratio?"]
    bad = import_plans(
        "llmcompiler",
        "",
        {"a": text.replace('3. math("$1 / $2")', '3. math("$1 / $2"', 1)},
        source="x.json",
    )
    assert [f.where for p in bad for f in p.import_findings] == ["a, line 4"]


# --------------------------------------------------------------------------- ReWOO


def test_rewoo_plan():
    plan = one("rewoo", REWOO)
    assert plan.goal == "how high?"
    assert plan.ids == ("E1", "E2")
    assert plan.step("E2").depends_on == ("E1",) and plan.step("E2").requires == ("#E1",)
    assert plan.step("E1").expected_evidence == "look it up"
    assert plan.step("E2").action == "LLM[height? #E1]" and plan.step("E2").tool == "LLM"
    assert plan.step("E2").arguments == {"input": "height? #E1"}
    assert codes(plan) == [] and validate(plan).ok


@pytest.mark.parametrize(
    "body, expected_codes",
    [
        ("Plan: a\n#E1 = Google[x]\nPlan: b\n#E2 = LLM[#E3]", ["dangling_reference"]),
        ("Plan: a\n#E1 = Google[#E2]\nPlan: b\n#E2 = LLM[y]", ["forward_reference"]),
        ("Plan: a\n#E1 = Google[#E1]", ["self_reference"]),
        ("Plan: a\n#E1 = Google[x\nPlan: b\n#E2 = LLM[#E1]", ["unparsed_line"]),
        ("Plan: a\nPlan: b\n#E1 = Google[x]", ["unparsed_line"]),
        (
            "Plan: a #E1 = Google[2024 Open winner]\nPlan: b #E2 = Google[hometown of 2024 Open winner]",
            ["implicit_reference"],
        ),
        (
            "Plan: a #E1 = Google[2024 Open winner]\nPlan: b #E2 = Google[hometown of #E1, the 2024 Open winner]",
            [],
        ),
    ],
)
def test_rewoo_table(body, expected_codes):
    assert codes(one("rewoo", "Question: q\n" + body)) == expected_codes


def test_rewoo_unclosed_bracket_is_shown_as_written():
    plan = one("rewoo", "Plan: a\n#E1 = Google[x\nPlan: b\n#E2 = LLM[#E1]")
    assert plan.step("E1").action == "Google[x" and plan.step("E2").depends_on == ("E1",)
    [f] = plan.import_findings
    assert (f.code, f.where, f.steps) == ("unparsed_line", "line 2", ("E1",))


def test_rewoo_questions_split_into_plans():
    plans = import_plans(
        "rewoo", REWOO + "\n" + REWOO.replace("how high?", "how deep?"), None, source="t"
    )
    assert [p.goal for p in plans] == ["how high?", "how deep?"]


# --------------------------------------------------------------------------- NESTFUL


def test_nestful_plan():
    sample = {
        "input": "hotels and flights",
        "output": [
            {"name": "Loc", "arguments": {"query": "Costa Rica"}, "label": "var1"},
            {
                "name": "Hotels",
                "arguments": {"geoId": "$var1.geoId$", "style": ["eco"]},
                "label": "var2",
            },
            {"name": "var_result", "arguments": {"hotels": "$var2$"}},
        ],
    }
    plan = one("nestful", "", sample)
    assert plan.goal == "hotels and flights"
    assert plan.ids == ("var1", "var2", "var_result")
    assert plan.step("var2").requires == ("var1.geoId",) and plan.step("var1").produces == (
        "var1",
        "var1.geoId",
    )
    assert plan.step("var_result").depends_on == ("var2",) and plan.step("var_result").tool is None
    assert plan.step("var2").action == 'Hotels(geoId="$var1.geoId$", style=["eco"])'
    assert codes(plan) == [] and validate(plan).ok


@pytest.mark.parametrize(
    "calls, expected_codes, expected_ids",
    [
        (
            [
                {"name": "f", "arguments": {}, "label": "var1"},
                {"name": "g", "arguments": {"x": "$var1.a$"}, "label": "var1"},
                {"name": "var_result", "arguments": {"r": "$var1$", "s": "$var2$"}},
            ],
            ["dangling_reference", "duplicate_label"],
            ("var1", "var1#2", "var_result"),
        ),
        (
            [
                {"name": "f", "arguments": {"x": "$var2.a$"}, "label": "var1"},
                {"name": "g", "arguments": {}, "label": "var2"},
            ],
            ["forward_reference"],
            ("var1", "var2"),
        ),
        (
            [{"name": "f", "arguments": {"x": "$var1.a$"}, "label": "var1"}],
            ["self_reference"],
            ("var1",),
        ),
        (
            [
                {"name": "f", "arguments": {}},
                {"name": "g", "arguments": {"x": 1}, "label": "var2", "extra": 1},
            ],
            ["missing_label", "unknown_field"],
            ("call1", "var2"),
        ),
        # a field with spaces is a reference; one that lost its opening $ is read, and said
        (
            [
                {"name": "f", "arguments": {}, "label": "var1"},
                {
                    "name": "g",
                    "arguments": {"n": "2 * $var1.Exchange Rate$", "m": "var1.Ask Price$"},
                    "label": "var2",
                },
            ],
            ["nonstandard_reference"],
            ("var1", "var2"),
        ),
    ],
)
def test_nestful_table(calls, expected_codes, expected_ids):
    plan = one("nestful", "", {"input": "q", "output": calls})
    assert codes(plan) == expected_codes and plan.ids == expected_ids


def test_nestful_fields_with_spaces_are_the_facts_read():
    calls = [
        {"name": "f", "arguments": {}, "label": "var1"},
        {
            "name": "g",
            "arguments": {"n": "2 * $var1.Exchange Rate$", "m": "var1.Ask Price$"},
            "label": "var2",
        },
    ]
    plan = one("nestful", "", {"input": "q", "output": calls})
    assert plan.step("var2").depends_on == ("var1",)
    assert plan.step("var2").requires == ("var1.Exchange Rate", "var1.Ask Price")


def test_nestful_duplicate_label_resolves_to_the_latest_call():
    calls = [
        {"name": "f", "arguments": {}, "label": "var1"},
        {"name": "g", "arguments": {"x": "$var1.a$"}, "label": "var1"},
        {"name": "var_result", "arguments": {"r": "$var1$"}},
    ]
    plan = one("nestful", "", {"input": "q", "output": calls})
    assert plan.step("var1#2").depends_on == ("var1",)
    assert plan.step("var_result").depends_on == ("var1#2",) and plan.step(
        "var_result"
    ).requires == ("var1#2",)


# --------------------------------------------------------------------------- properties


@st.composite
def reference_lists(draw):
    """Task lists whose argument references go anywhere: back, forward, self, or past the end."""
    n = draw(st.integers(1, 8))
    refs = [draw(st.lists(st.integers(0, n + 1), max_size=3)) for _ in range(n)]
    return n, refs


@PROPS
@given(reference_lists())
def test_taskbench_references_map_exactly(case):
    n, refs = case
    nodes = [node(f"T{i}", *[f"<node-{k}>" for k in ks]) for i, ks in enumerate(refs)]
    plan = one("taskbench", "", record(nodes))
    oracle = nx.DiGraph()
    oracle.add_nodes_from(f"node-{i}" for i in range(n))
    expected: dict[str, int] = {
        "dangling_reference": 0,
        "self_reference": 0,
        "forward_reference": 0,
    }
    for i, ks in enumerate(refs):
        for k in ks:  # each written reference is reported where it is written
            if k >= n:
                expected["dangling_reference"] += 1
            elif k == i:
                expected["self_reference"] += 1
            else:
                oracle.add_edge(f"node-{k}", f"node-{i}")
                expected["forward_reference"] += k > i
    got = {code: sum(1 for f in plan.import_findings if f.code == code) for code in expected}
    assert got == expected
    g = to_graph(plan)
    assert set(g.edges) == set(oracle.edges)
    assert ("cycle" in validate(plan).codes) == (not nx.is_directed_acyclic_graph(oracle))
    for u, v in g.edges:
        assert g.edges[u, v]["facts"] == (f"{u}.output",)


@PROPS
@given(st.integers(1, 7), st.data())
def test_every_format_draws_the_same_backward_dag(n, data):
    """One random backward-reference DAG written in all four formats gives the same graph."""
    parents = [
        sorted(data.draw(st.sets(st.integers(0, i - 1), max_size=3)) if i else []) for i in range(n)
    ]
    oracle = {(k, i) for i, ps in enumerate(parents) for k in ps}
    tb = record([node(f"T{i}", *[f"<node-{k}>" for k in ps]) for i, ps in enumerate(parents)])
    llmc = "Question: q\n" + "".join(
        f"{i + 1}. tool({', '.join(repr(f'${k + 1}') for k in ps)})\n"
        for i, ps in enumerate(parents)
    )
    llmc = llmc.rstrip("\n") + "<END_OF_PLAN>\n"
    rw = "Question: q\n" + "".join(
        f"Plan: step {i + 1}\n#E{i + 1} = Tool[{' '.join(f'#E{k + 1}' for k in ps) or 'x'}]\n"
        for i, ps in enumerate(parents)
    )
    ns = {
        "input": "q",
        "output": [
            {
                "name": "tool",
                "arguments": {f"a{k}": f"$var{k + 1}.out$" for k in ps},
                "label": f"var{i + 1}",
            }
            for i, ps in enumerate(parents)
        ],
    }
    for fmt, text, parsed, ids in [
        ("taskbench", "", tb, [f"node-{i}" for i in range(n)]),
        ("llmcompiler", llmc, None, [str(i + 1) for i in range(n)]),
        ("rewoo", rw, None, [f"E{i + 1}" for i in range(n)]),
        ("nestful", "", ns, [f"var{i + 1}" for i in range(n)]),
    ]:
        assert detect(text, parsed) == fmt
        plan = one(fmt, text, parsed)
        assert plan.import_findings == ()
        assert edges(plan) == {(ids[k], ids[i]) for k, i in oracle}, fmt
        assert validate(plan).ok, fmt


@PROPS
@given(
    st.sampled_from(FORMATS),
    st.text(
        alphabet=st.sampled_from(list('{}[]",:$#<>()-=.\n 0123456789aEnodetask')), max_size=300
    ),
)
def test_any_text_imports_without_an_exception(fmt, text):
    for plan in import_plans(fmt, text, None, source="<fuzz>"):
        assert all(f.layer == "import" for f in plan.import_findings)
        validate(plan)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "task",
                    "arguments",
                    "args",
                    "dep",
                    "id",
                    "task_nodes",
                    "task_links",
                    "source",
                    "target",
                    "name",
                    "label",
                    "output",
                    "input",
                    "role",
                    "content",
                ]
            ),
            kids,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@PROPS
@given(st.sampled_from(FORMATS), json_values)
def test_any_parsed_data_imports_without_an_exception(fmt, data):
    for plan in import_plans(fmt, json.dumps(data), data, source="<fuzz>"):
        validate(plan)


@pytest.mark.parametrize(
    "fmt, data",
    [
        (
            "taskbench",
            [
                {"role": "user", "content": "x"},
                {"role": "assistant", "content": "[" * 5000 + "]" * 5000},
            ],
        ),
        (
            "taskbench",
            [
                {
                    "role": "assistant",
                    "content": '[{"task": "A", "args": ' + "[" * 5000 + "]" * 5000 + "}",
                }
            ],
        ),
        (
            "teval",
            {
                "q": {
                    "ground_truth": [
                        {"id": 0, "prev": [], "name": "A", "args": "[" * 500 + "]" * 500},
                        {"id": 1, "prev": [0], "name": "FinishAction", "args": {}},
                    ]
                }
            },
        ),
    ],
)
def test_json_inside_a_planner_output_is_held_to_the_one_nesting_limit(fmt, data):
    with pytest.raises(PlanFormatError, match=r"nesting deeper than 100 levels: .*MAX_DEPTH"):
        import_plans(fmt, json.dumps(data), data, source="<deep>")


@pytest.mark.parametrize(
    "fmt, data",
    [
        (
            "taskbench",
            [{"role": "assistant", "content": '[{"task": "A", "args": {"x": "\\udfff"}}]'}],
        ),
        (
            "taskbench",
            [
                {
                    "role": "assistant",
                    "content": '[{"task": "A", "args": {"x": ' + "7" * 5000 + "}}]",
                }
            ],
        ),
        (
            "teval",
            {
                "q": {
                    "ground_truth": [
                        {"id": 0, "prev": [], "name": "A", "args": '{"x": "\\ud800"}'},
                        {"id": 1, "prev": [0], "name": "FinishAction", "args": {}},
                    ]
                }
            },
        ),
        (
            "teval",
            {
                "q": {
                    "ground_truth": [
                        {"id": 0, "prev": [], "name": "A", "args": "{'x': '\\ud800'}"},
                        {"id": 1, "prev": [0], "name": "FinishAction", "args": {}},
                    ]
                }
            },
        ),
        ("llmcompiler", '1. search("\\udfff")\n2. join()<END_OF_PLAN>'),
    ],
)
def test_json_inside_a_planner_output_brings_no_lone_surrogate_or_huge_integer(fmt, data):
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(
        PlanFormatError, match=r"lone surrogate|integer of 5,000 digits is too large"
    ):
        import_plans(fmt, text, None if isinstance(data, str) else data, source="<in>")


def test_hostile_text_is_bounded():
    with pytest.raises(
        PlanFormatError, match=r"^<hostile>: JSON text inside the input: nesting deeper than 100"
    ):
        # braces outside strings nest
        import_plans("taskbench", '{"task": "' * 20_000, None, source="<hostile>")


# --------------------------------------------------------------------------- through the public readers


@pytest.fixture
def io():
    """The public reading functions, so these tests read like a user's code."""
    import planviz

    return planviz


def test_io_load_plan_detects_each_format(io, tmp_path):
    assert io.parse_plan(LLMC).ids == ("1", "2", "3", "4")
    assert io.parse_plan(REWOO).ids == ("E1", "E2")
    assert io.load_plan(NEST).ids == ("var1", "var2")
    assert io.load_plan(record([node("A", "x"), node("B", "<node-0>")])).ids == ("node-0", "node-1")
    path = tmp_path / "plan.txt"
    path.write_text(LLMC.replace('3. math("$1 / $2")', '3. math("$1 / $2"'))
    plan = io.load_plan(path, format="llmcompiler")
    assert [f.code for f in plan.import_findings] == ["unparsed_line"]


def test_io_load_plans_reads_a_json_lines_file(io, tmp_path):
    path = tmp_path / "preds.jsonl"
    recs = [record([node("A", "x"), node("B", f"<node-{k}>")]) for k in (0, 1, 5)]
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    plans = io.load_plans(path, format="taskbench")
    assert [codes(p) for p in plans] == [
        [],
        ["one_based_references", "self_reference"],
        ["dangling_reference"],
    ]
    assert io.load_plans(path)[2].import_findings[0].where.startswith("record 2 (line 3)")


WRAPPED = {
    "id": "7",
    "user_request": "caption then speak",
    "result": {
        "task_steps": ["Step 1: caption", "Step 2: speak"],
        "task_nodes": [
            {"task": "Image-to-Text", "arguments": ["example.jpg"]},
            {"task": "Text-to-Speech", "arguments": ["<node-1>"]},
        ],
    },
}


@pytest.mark.parametrize(
    "text", [json.dumps(WRAPPED), json.dumps(WRAPPED) + "\n" + json.dumps({**WRAPPED, "id": "8"})]
)
def test_taskbench_records_wrapped_in_result_are_detected_and_read(text):
    from planviz import parse_plans

    plans = parse_plans(text)
    assert (
        detect(text, None) == "taskbench"
        and detect(text, json.loads(text.split("\n")[0])) == "taskbench"
    )
    for plan in plans:
        assert (plan.goal, [s.tool for s in plan.steps]) == (
            "caption then speak",
            ["Image-to-Text", "Text-to-Speech"],
        )
        [self_ref] = [f for f in plan.import_findings if f.code == "self_reference"]
        assert self_ref.steps == ("node-1",)
        assert self_ref.where.endswith("result.task_nodes[1].arguments[0]")
    assert [p.name for p in plans] == ["7", "8"][: len(plans)]


@pytest.mark.parametrize(
    "text",
    [
        "1. Gather materials\n   1.1 Find a hammer\n   1.2 Find nails\n2. Build the shelf\n   2.1 Measure: the wall\n",
        "Step 1: Gather materials\n - find a hammer: any will do\n - find nails\nStep 2: Build: the shelf\n",
        "1) Check the weather\n   a) call the weather API\n2) Pack\n3) Leave\n",
    ],
)
def test_a_plain_text_outline_is_refused_as_not_a_plan_format_naming_the_close_ones(text):
    from planviz import parse_plan

    with pytest.raises(
        PlanFormatError,
        match=r"^<string>:1:1: not a plan format planviz reads: a plain-text "
        r"outline \(\d+ numbered steps, \d+ sub-steps?, as UltraTool",
    ) as info:
        parse_plan(text)
    assert "invalid YAML" not in str(info.value)
    assert all(
        name in str(info.value) for name in ("planviz plan", "WorFBench", "LLMCompiler", "ReWOO")
    )


@pytest.mark.parametrize(
    "text, fmt",
    [
        ('1. search("weather")\n2. join()<END_OF_PLAN>', "llmcompiler"),
        ("Node:\n1: find the key\n2: open the door\nEdge: (START,1) (1,2) (2,END)", "worfbench"),
    ],
)
def test_numbered_formats_are_not_taken_for_outlines(text, fmt):
    from planviz import parse_plan

    assert parse_plan(text).source_format == fmt
