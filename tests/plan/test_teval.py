"""The T-Eval importer: records, the benchmark's map of queries, prediction lists, and what is reported.

Tables of small inputs -> steps, edges and findings; a property test with NetworkX as the oracle for
"actions whose output never reaches FinishAction"; mutated real records (fuzz: only PlanFormatError may
escape the public readers).
"""

from __future__ import annotations

import json

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planviz import critical_path, load_plans, parse_plan, render, validate
from planviz.plan.importers import detect, import_plans
from tests.mutations import assert_only_format_errors, mutated_json, mutated_text

PROPS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Real T-Eval planning queries (Apache-2.0, github.com/open-compass/T-Eval, data/plan_json_v1.json;
# the system prompt shortened).
QUERY_0_2 = {
    "meta": {
        "prompt_type": "json",
        "API_list": [
            "ArxivSearch.get_arxiv_article_information",
            "AirbnbSearch.search_property_by_place",
            "AirbnbSearch.get_property_checkout_price",
        ],
    },
    "ground_truth": [
        {
            "id": 0,
            "prev": [],
            "name": "AirbnbSearch.search_property_by_place",
            "args": {"place": "San Francisco"},
        },
        {
            "id": 1,
            "prev": [0],
            "name": "AirbnbSearch.get_property_checkout_price",
            "args": {"propertyId": 49634091, "checkIn": "2023-12-01", "checkOut": "2023-12-05"},
        },
        {
            "id": 2,
            "prev": [0],
            "name": "AirbnbSearch.get_property_checkout_price",
            "args": {"propertyId": 997382, "checkIn": "2023-12-01", "checkOut": "2023-12-05"},
        },
        {
            "id": 3,
            "prev": [0],
            "name": "AirbnbSearch.get_property_checkout_price",
            "args": {"propertyId": 21387647, "checkIn": "2023-12-01", "checkOut": "2023-12-05"},
        },
        {
            "id": 4,
            "prev": [3],
            "name": "ArxivSearch.get_arxiv_article_information",
            "args": {"query": "artificial intelligence"},
        },
        {"id": 5, "prev": [4], "name": "FinishAction", "args": {}},
    ],
    "origin_prompt": [
        {
            "role": "system",
            "content": "You have access to the following API: ... Please generate a plan ...",
        },
        {
            "role": "user",
            "content": "As an event organizer, I'm planning a conference in San Francisco from "
            "December 1st to December 5th. Could you assist me in finding out the properties "
            "and their checkout costs for these dates?",
        },
    ],
}
QUERY_101_2 = {
    "meta": {
        "prompt_type": "json",
        "API_list": [
            "PPT.get_image",
            "PPT.save_file",
            "PPT.add_text_page",
            "PPT.add_text_image_page",
            "PPT.create_file",
        ],
    },
    "ground_truth": [
        {
            "id": 0,
            "prev": [],
            "name": "PPT.create_file",
            "args": {"theme": "Business", "abs_location": "outputs/GlobalWarming.ppt"},
        },
        {
            "id": 1,
            "prev": [0],
            "name": "PPT.add_text_page",
            "args": {
                "title": "Global Warming",
                "bullet_items": "Causes[SPAN]Effects[SPAN]Solutions",
            },
        },
        {"id": 2, "prev": [0], "name": "PPT.get_image", "args": {"keywords": "Global Warming"}},
        {
            "id": 3,
            "prev": [1, 2],
            "name": "PPT.add_text_image_page",
            "args": {
                "title": "Global Warming",
                "bullet_items": "Causes[SPAN]Effects[SPAN]Solutions",
                "image": "outputs/1697796325.6373634.jpg",
            },
        },
        {"id": 4, "prev": [3], "name": "PPT.save_file", "args": {}},
        {"id": 5, "prev": [4], "name": "FinishAction", "args": {}},
    ],
    "origin_prompt": [
        {
            "role": "user",
            "content": "As a presentation designer, I want to create a PowerPoint "
            "presentation with text and images.",
        }
    ],
}
FILE = {"query_0_2": QUERY_0_2, "query_101_2": QUERY_101_2}


def one(text: str = "", data=None):
    [plan] = import_plans("teval", text, data, source="<test>")
    return plan


def edges(plan) -> set[tuple[str, str]]:
    return {(d, s.id) for s in plan.steps for d in s.depends_on}


def codes(plan) -> set[tuple[str, str]]:
    return {(f.code, f.severity) for f in plan.import_findings}


def test_a_record_becomes_a_plan_ending_in_finish_action():
    plan = one("", QUERY_0_2)
    assert plan.ids == ("0", "1", "2", "3", "4", "5")
    assert edges(plan) == {("0", "1"), ("0", "2"), ("0", "3"), ("3", "4"), ("4", "5")}
    assert plan.step("5").kind == "finish" and plan.step("5").duration == 0
    assert plan.step("1").tool == "AirbnbSearch.get_property_checkout_price"
    assert plan.step("1").action.startswith(
        "AirbnbSearch.get_property_checkout_price(propertyId=49634091, "
    )
    assert plan.goal.startswith("As an event organizer") and plan.source_format == "teval"
    assert plan.import_findings == ()
    report = validate(plan)
    assert {(f.code, f.steps) for f in report.warnings} == {
        ("dead_end", ("1",)),
        ("dead_end", ("2",)),
    }
    assert "step '1' never reaches '5' (FinishAction())" in report.by_code()["dead_end"][0].message
    assert [(f.code, f.severity, f.steps) for f in report.infos] == [
        ("no_evidence", "info", ()),
        ("no_artifact", "info", ()),
    ]
    assert report.ok


def test_a_clean_record_validates_with_notes_only():
    report = validate(one("", QUERY_101_2))
    assert report.verdict() == "ok (2 notes)"


def test_the_benchmark_file_maps_query_keys_to_records(tmp_path):
    path = tmp_path / "plan_json_v1.json"
    path.write_text(json.dumps(FILE))
    plans = load_plans(path)
    assert [p.name for p in plans] == ["query_0_2", "query_101_2"]
    assert detect(path.read_text(), FILE) == "teval"


def test_the_critical_path_ends_at_finish_action():
    plan = one("", QUERY_0_2)
    slow = critical_path(plan, durations={"1": 10})
    assert slow.path == ("0", "3", "4", "5") and slow.makespan == 3
    assert slow.steps["1"].slack == float("inf") and "1" not in slow.critical


@pytest.mark.parametrize(
    "actions, expected_edges, expected_codes",
    [
        # a prediction: no prev, args as text, in order
        (
            [
                {"id": 0, "name": "A.f", "args": "{'q': 'x'}"},
                {"id": 1, "name": "FinishAction", "args": "{}"},
            ],
            {("0", "1")},
            {("implied_order", "info")},
        ),
        (
            [
                {"id": 0, "prev": [], "name": "A.f", "args": {}},
                {"id": 1, "prev": [0, 7], "name": "FinishAction"},
            ],
            {("0", "1")},
            {("dangling_link", "error")},
        ),
        (
            [
                {"id": 0, "prev": [0], "name": "A.f", "args": {}},
                {"id": 1, "prev": [0, 0], "name": "FinishAction"},
            ],
            {("0", "1")},
            {("self_link", "error"), ("duplicate_link", "warning")},
        ),
        (
            [
                {"id": 0, "prev": "0", "name": "A.f", "args": {}},
                {"id": 1, "prev": [0], "name": "FinishAction"},
            ],
            {("0", "1")},
            {("malformed_link", "error")},
        ),
        (
            [
                {"id": 0, "prev": [], "name": "A.f", "args": {}},
                {"id": 1, "prev": [0], "name": "B.g", "args": {}},
            ],
            {("0", "1")},
            {("missing_finish", "warning")},
        ),
        (
            [
                {"id": 0, "prev": [], "name": "A.f", "args": "not a dict("},
                {"id": 1, "prev": [0], "name": "FinishAction"},
            ],
            {("0", "1")},
            {("malformed_arguments", "warning")},
        ),
        (
            [
                {"id": 0, "prev": [], "name": "A.f", "args": {}, "thought": "hm"},
                {"id": 1, "prev": [0], "name": "FinishAction"},
            ],
            {("0", "1")},
            {("unknown_field", "warning")},
        ),
        (
            [
                {"prev": [], "name": "A.f", "args": {}},
                {"id": 1, "prev": [0], "name": "FinishAction"},
            ],
            {("0", "1")},
            {("malformed_node", "warning")},
        ),
        (
            ["nonsense", {"id": 1, "prev": [0], "name": "FinishAction"}],
            {("0", "1")},
            {("malformed_node", "error")},
        ),
    ],
)
def test_prediction_lists(actions, expected_edges, expected_codes):
    plan = one(json.dumps(actions), actions)
    assert (edges(plan), codes(plan)) == (expected_edges, expected_codes)
    for f in plan.import_findings:
        assert f.where and set(f.steps) <= set(plan.ids), f


def test_args_written_as_a_python_literal_are_decoded():
    plan = one("", [{"id": 0, "prev": [], "name": "A.f", "args": "{'place': 'Berlin', 'n': 3}"}])
    assert plan.step("0").arguments == {"place": "Berlin", "n": 3}


def test_a_reply_with_the_list_in_a_code_fence_reads():
    reply = (
        'Here is the plan:\n```json\n[{"id": 0, "name": "A.f", "args": "{}"},\n'
        ' {"id": 1, "name": "FinishAction", "args": "{}"}]\n```'
    )
    plan = parse_plan(reply, format="teval")
    assert plan.ids == ("0", "1") and edges(plan) == {("0", "1")}
    assert detect(reply, None) == "teval"


def test_text_with_no_action_is_no_steps():
    plan = parse_plan("I would search the web.", format="teval")
    [f] = plan.import_findings
    assert (f.code, f.severity) == ("no_steps", "error")
    assert "read as T-Eval (format='teval'), the input holds no step" in f.message
    assert 'it begins "I would search the web."' in f.message


def test_the_picture_marks_dead_ends_and_wraps_long_api_names():
    svg = render(one("", QUERY_0_2), report=validate(one("", QUERY_0_2))).svg
    assert 'class="node status-pending finding finding-warning' in svg
    # never cut mid-word
    assert "get_property_checkout_pric" not in svg.replace("get_property_checkout_price", "")


# --------------------------------------------------------------------------- the NetworkX oracle


@st.composite
def action_lists(draw):
    """Random T-Eval ground truths: actions 0..n-1 whose prev lists name earlier actions, then FinishAction."""
    n = draw(st.integers(1, 9))
    actions = [
        {
            "id": i,
            "prev": sorted(draw(st.sets(st.integers(0, i - 1), max_size=3))) if i else [],
            "name": f"API.call{i}",
            "args": {},
        }
        for i in range(n)
    ]
    finish_prev = sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=2)))
    actions.append({"id": n, "prev": finish_prev, "name": "FinishAction", "args": {}})
    return actions


@PROPS
@given(action_lists())
def test_dead_ends_agree_with_networkx(actions):
    g = nx.DiGraph()
    g.add_nodes_from(str(a["id"]) for a in actions)
    g.add_edges_from((str(p), str(a["id"])) for a in actions for p in a["prev"])
    finish = str(actions[-1]["id"])
    oracle = set(g) - nx.ancestors(g, finish) - {finish}
    report = validate(one("", actions))
    named = {s for f in report.findings if f.code in ("dead_end", "isolated_step") for s in f.steps}
    assert named == oracle
    schedule = critical_path(one("", actions))
    assert schedule.path[-1] == finish
    assert schedule.makespan == nx.dag_longest_path_length(
        g.subgraph(nx.ancestors(g, finish) | {finish}), default_weight=1
    )


# --------------------------------------------------------------------------- mutated real records


@PROPS
@given(st.sampled_from([QUERY_0_2, QUERY_101_2, FILE, QUERY_0_2["ground_truth"]]), st.data())
def test_mutated_real_records_never_crash(value, data):
    assert_only_format_errors(json.dumps(mutated_json(value, data)), "teval")


@PROPS
@given(st.sampled_from([QUERY_0_2, QUERY_101_2]), st.data())
def test_mutated_real_text_never_crashes(rec, data):
    assert_only_format_errors(mutated_text(json.dumps(rec, indent=1), data), "teval")


def test_a_broken_record_among_good_ones_is_a_finding_and_the_others_read():
    plans = import_plans("teval", "", [QUERY_0_2, 3])
    assert [len(p.steps) for p in plans] == [6, 0]
    assert [(f.code, f.where) for f in plans[1].import_findings] == [("malformed_record", "[1]")]
