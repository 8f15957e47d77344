"""validate, prepare, grade: one case per finding code, the ancestor rule against NetworkX, reports."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from html.parser import HTMLParser

import networkx as nx
import pytest
from hypothesis import given, settings, strategies as st

from planviz import (
    Contract,
    Finding,
    Grade,
    GradeTable,
    Plan,
    PlanningFailure,
    Report,
    Step,
    ToolSpec,
    grade,
    grade_many,
    prepare,
    summarize,
    to_graph,
    validate,
)
from planviz.checks import context, semantic
from planviz.checks.validation import CODES, refusal
from planviz.errors import PlanFormatError, PlanvizTypeError, SchemaError, SemanticError
from planviz.plan.model import natural_key
from planviz.structure import ancestry
from tests.strategies import plans as random_plans_shared


def step(sid: str, **kw) -> Step:
    """A well-formed step: has evidence and produces ``<id>_done`` unless told otherwise."""
    kw.setdefault("expected_evidence", f"{sid} evidence")
    kw.setdefault("produces", (f"{sid}_done",))
    return Step(sid, kw.pop("action", f"do {sid}"), **kw)


def plan(*steps: Step, **kw) -> Plan:
    return Plan("goal", steps, **kw)


TOOLS = {
    "read_db": ToolSpec(),
    "write_db": ToolSpec(writes=True, preconditions=["backup"]),
    "backup": ToolSpec(),
    "shell": ToolSpec(permitted=False),
}

# name -> (plan, contract, expected {(code, steps)}, a regex one finding of the code must match)
CASES = {
    "duplicate_id": (
        plan(step("A"), step("A", action="again")),
        None,
        {("duplicate_id", ("A",))},
        r"2 steps share the id 'A'.*rename",
    ),
    "unknown_dependency": (
        plan(step("S1"), step("S2", depends_on="S11")),
        None,
        {("unknown_dependency", ("S2",))},
        r"'S2' depends on 'S11', which is not a step.*did you mean 'S1'.*S2\.depends_on",
    ),
    "self_dependency": (
        plan(step("S1", depends_on="S1")),
        None,
        {("self_dependency", ("S1",))},
        r"depends on itself; remove 'S1' from S1\.depends_on",
    ),
    "cycle": (
        plan(
            step("A", depends_on="C"),
            step("B", depends_on="A"),
            step("C", depends_on="B"),
            step("D"),
        ),
        None,
        {("cycle", ("A", "B", "C"))},
        r"'A' -> 'B' -> 'C' -> 'A'.*removing a dependency",
    ),
    "no_steps": (plan(), None, {("no_steps", ())}, r"the plan has no steps.*at least one step"),
    "dead_end": (
        plan(
            step("S1"),
            step("S2", depends_on="S1"),
            step("S3", depends_on="S2"),
            step("S4", depends_on="S1"),
            step("END", action="END", depends_on=["S2"], kind="finish"),
        ),
        None,
        {("dead_end", ("S3",)), ("dead_end", ("S4",))},
        r"step 'S3' never reaches 'END' \(it leaves the route after 'S2'\).*make 'END'.*depend on 'S3'",
    ),
    "isolated_step": (
        plan(step("S1"), step("S2"), step("F", action="F", depends_on="S1")),
        Contract(final="F"),
        {("isolated_step", ("S2",))},
        r"'S2' has no dependency and nothing depends on it.*never reaches 'F'",
    ),
    "empty_action": (
        plan(step("S1", action="   ")),
        None,
        {("empty_action", ("S1",))},
        r"'S1' has an empty action",
    ),
    "no_evidence": (
        plan(step("S1", expected_evidence="")),
        None,
        {("no_evidence", ("S1",))},
        r"'S1' has no expected_evidence",
    ),
    "infeasible_fact": (
        plan(step("S1", requires="keys")),
        Contract(obtainable_facts=["S1_done"]),
        {("infeasible_fact", ("S1",)), ("unmet_requirement", ("S1",))},
        r"'keys', required by 'S1', is neither given nor obtainable",
    ),
    "missing_required": (
        plan(step("S1", kind="patch")),
        Contract(required=["patch", "verify"]),
        {("missing_required", ())},
        r"requires a step with id or kind 'verify'.*kind: verify",
    ),
    "forbidden_step": (
        plan(step("S1", kind="delete_test"), step("S2")),
        Contract(forbidden=["delete_test", "S2"]),
        {("forbidden_step", ("S1",)), ("forbidden_step", ("S2",))},
        r"'S1' has kind 'delete_test', which the contract forbids",
    ),
    "order_violation": (
        plan(step("P", kind="patch"), step("V", kind="verify"), step("R", kind="reproduce")),
        Contract(must_precede=[("reproduce", "patch"), ("patch", "verify")]),
        {("order_violation", ("P", "R")), ("order_violation", ("V", "P"))},
        r"'reproduce' must precede 'patch', but 'R' is not an ancestor of step 'P'; "
        r"add 'R' to P\.depends_on",
    ),
    "unmet_requirement": (
        plan(
            step("S1"),
            step("S2", produces="built"),
            step("S5", depends_on="S1", requires=["built", "S1_done"]),
        ),
        None,
        {("unmet_requirement", ("S5", "S2"))},
        r"'S5' requires 'built', which no dependency ancestor produces: 'S2' produces it but "
        r"is not an ancestor of 'S5'; add 'S2' to S5\.depends_on",
    ),
    "unknown_tool": (
        plan(step("S1", tool="rm_rf")),
        Contract(tools=TOOLS),
        {("unknown_tool", ("S1",))},
        r"tool 'rm_rf', which the contract's tool registry does not list",
    ),
    "not_permitted": (
        plan(step("S1", tool="shell")),
        Contract(tools=TOOLS),
        {("not_permitted", ("S1",))},
        r"'shell', which the contract does not permit",
    ),
    "outside_intent": (
        plan(
            step("B", tool="backup"), step("S1", tool="write_db", depends_on="B", check="row there")
        ),
        Contract(tools=TOOLS, intent="read"),
        {("outside_intent", ("S1",))},
        r"'write_db', which writes, but the contract's intent is read",
    ),
    "bad_arguments": (
        plan(step("S1", tool="query", arguments={"sql": 7, "rows": 10})),
        Contract(
            tools={
                "query": ToolSpec(arguments={"sql": "string", "limit": "integer"}, required="sql")
            }
        ),
        {("bad_arguments", ("S1",))},
        r"step 'S1' passes sql=7 \(an integer\) to 'query', which takes sql: string",
    ),
    "tool_precondition": (
        plan(
            step("B", tool="backup"),
            step("W", tool="write_db", check="c"),
            step("X", tool="write_db", check="c"),
        ),
        Contract(tools={"write_db": TOOLS["write_db"], "backup": ToolSpec()}),
        {("tool_precondition", ("W", "B")), ("tool_precondition", ("X", "B"))},
        r"'W' calls 'write_db', which needs 'backup' to have run first; 'B' calls 'backup' but "
        r"is not an ancestor of 'W'; add 'B' to W\.depends_on",
    ),
    "bad_placeholder": (
        plan(
            step("S1"),
            step("S2", arguments={"q": {"deep": ["{{S1.id}}", "x {{S9.id}}"]}}),
            step("S3", depends_on="S1", arguments={"ok": "{{S1.id}}"}),
        ),
        None,
        {("bad_placeholder", ("S2", "S1")), ("bad_placeholder", ("S2",))},
        r"S2\.arguments\.q\.deep\[0\] uses '\{\{S1\.id\}\}', but step 'S1' is not an ancestor of "
        r"'S2'; add 'S1' to S2\.depends_on",
    ),
    "no_artifact": (
        plan(step("S1", produces=())),
        None,
        {("no_artifact", ("S1",))},
        r"'S1' produces no fact.*S1\.produces",
    ),
    "resource_conflict": (
        plan(
            step("S1", resources="db", check="c"),
            step("S2", resources="db", check="c"),
            step("S3", resources="db", depends_on=["S1", "S2"], check="c"),
        ),
        None,
        {("resource_conflict", ("S1", "S2"))},
        r"'S1' and 'S2' both hold 'db' and could run in parallel.*never lets them overlap.*"
        r"add 'S1' to S2\.depends_on",
    ),
    "high_risk_unguarded": (
        plan(
            step("S1", risk="high", rollback="revert"),
            step("S2", risk="high", approval="CHG-1", rollback="r"),
        ),
        None,
        {("high_risk_unguarded", ("S1",))},
        r"'S1' is high risk but has no approval",
    ),
    "forbidden_state": (
        plan(step("S1", produces="tests_deleted")),
        Contract(forbidden_states=["tests_deleted"]),
        {("forbidden_state", ("S1",))},
        r"'S1' produces 'tests_deleted', a state the contract forbids",
    ),
    "unsupported_premise": (
        plan(step("S1", requires="creds"), step("S2", requires="p"), premises=["creds", "p"]),
        Contract(given_facts=["p"], obtainable_facts=["S1_done", "S2_done"]),
        {("unsupported_premise", ("S1",))},
        r"'S1' relies on the premise 'creds', which the contract neither gives nor lets any "
        r"step obtain: a plan cannot vouch for its own facts",
    ),
    "assumed_fact": (
        plan(
            step("S1", requires="p"),
            step("S2", requires="p"),
            step("S3", depends_on="S4", requires="q"),
            step("S4", produces="q"),
            premises=["p"],
        ),
        None,
        {("assumed_fact", ("S1",)), ("assumed_fact", ("S2",))},
        r"'S1' relies on the premise 'p', which nothing gives or checks",
    ),
    "no_check": (
        plan(
            step("S1", resources="db"),
            step("S2", tool="write_db", depends_on="B"),
            step("B", tool="backup"),
            step("S3", resources="log", check="the log has the line"),
        ),
        Contract(tools=TOOLS),
        {("no_check", ("S1",)), ("no_check", ("S2",))},
        r"'S2' writes \(write_db\) but has no check.*S2\.check",
    ),
    "self_vouched_fact": (
        plan(
            step("S4", produces=["iso", "hit"]),
            step("S5", requires=["iso", "hit"]),
            premises=["iso", "hit"],
        ),
        None,
        {("self_vouched_fact", ("S5", "S4")), ("unmet_requirement", ("S5", "S4"))},
        r"the premise 'iso' is a fact step 'S4' of this plan produces: a plan cannot vouch for "
        r"its own facts.*remove 'iso' from premises and add 'S4' to S5\.depends_on",
    ),
    "unverified_effect": (
        plan(step("S1", tool="send_offer"), step("S2", effect="read", depends_on="S1")),
        Contract(intent="read"),
        {("unverified_effect", ("S1",))},
        r"'S1' calls 'send_offer', and the contract's registry does not say whether it only reads.*effect: read",
    ),
    "effect_conflict": (
        plan(step("S1", tool="read_db", effect="write", check="the row is there")),
        Contract(tools=TOOLS),
        {("effect_conflict", ("S1",))},
        r"'S1' declares effect 'write', but the contract's registry says 'read_db' reads",
    ),
    "vacuous_check": (
        plan(step("S1", resources="db", check="ran")),
        None,
        {("vacuous_check", ("S1",))},
        r"'S1' has the check 'ran', which only says the step ran.*about the world",
    ),
    "over_budget": (
        plan(
            step("N"),
            step(
                "F",
                horizon="far",
                budget={"steps": 1, "duration": 3},
                depends_on="N",
                expands_to=[step("F1", duration=2), step("F2", duration=2)],
            ),
        ),
        None,
        {("over_budget", ("F", "F1", "F2"))},
        r"expansion of 'F' has 2 steps, over its budget of 1 and durations adding up to 4, over its "
        r"budget of 3",
    ),
}
WARNINGS = {
    "no_artifact",
    "assumed_fact",
    "resource_conflict",
    "no_check",
    "over_budget",
    "dead_end",
    "isolated_step",
}


def test_every_code_has_a_case():
    assert set(CASES) == {code for codes in CODES.values() for code in codes}


@pytest.mark.parametrize("code", sorted(CASES))
def test_finding_code(code):
    p, contract, expected, pattern = CASES[code]
    report = validate(p, contract)
    assert {(f.code, f.steps) for f in report.findings} == expected
    found = report.by_code()[code]
    assert any(re.search(pattern, f.message) for f in found), [f.message for f in found]
    layer = next(layer for layer, codes in CODES.items() if code in codes)
    assert {(f.layer, f.severity) for f in found} == {
        (layer, "warning" if code in WARNINGS else "error")
    }
    assert report.ok is (code in WARNINGS)


def test_everything_at_once():
    """Findings of every layer in one report; it does not stop at the first."""
    p = plan(
        step("S1", action="", tool="shell"),
        step("S1"),
        step("S2", requires="nowhere", risk="high", produces="tests_deleted"),
    )
    contract = Contract(
        required=["verify"],
        forbidden=["S2"],
        given_facts=["x"],
        forbidden_states=["tests_deleted"],
        tools=TOOLS,
    )
    codes = validate(p, contract).codes
    assert codes == {
        "duplicate_id",
        "empty_action",
        "infeasible_fact",
        "missing_required",
        "forbidden_step",
        "unmet_requirement",
        "not_permitted",
        "high_risk_unguarded",
        "forbidden_state",
    }


def test_cycle_lists_its_edges_and_skips_ancestry_layers():
    p = plan(
        step("A", depends_on="B"),
        step("B", depends_on="A"),
        step("C", depends_on=["B", "E"]),
        step("D", depends_on="E"),
        step("E", depends_on="D"),
        step("F", requires="nothing"),
    )
    report = validate(p, Contract(must_precede=[("A", "F")]))
    cycles = report.by_code()["cycle"]
    assert [(f.steps, f.edges) for f in cycles] == [
        (("A", "B"), (("A", "B"), ("B", "A"))),
        (("D", "E"), (("D", "E"), ("E", "D"))),
    ]
    assert "unmet_requirement" not in report.codes and "order_violation" not in report.codes
    assert any(
        s.startswith(
            "semantics: order_violation, unmet_requirement not checked: the plan has a cycle"
        )
        for s in report.skipped
    )
    assert any("resource_conflict" in s for s in report.skipped)


def test_cycle_shown_is_the_shortest_through_the_smallest_id():
    p = plan(
        step("A", depends_on=["B", "D"]),
        step("B", depends_on="A"),
        step("C", depends_on="A"),
        step("D", depends_on="C"),
    )
    [f] = validate(p).findings
    assert f.steps == ("A", "B", "C", "D") and f.edges == (("A", "B"), ("B", "A"))
    assert "(4 steps are caught in it)" in f.message


def test_a_long_cycle_is_elided_in_the_message_but_listed_in_full():
    n = 30
    [f] = validate(
        plan(*[step(f"S{i:02}", depends_on=f"S{(i - 1) % n:02}") for i in range(n)])
    ).findings
    assert len(f.edges) == n and f.edges[0] == ("S00", "S01") and f.edges[-1] == ("S29", "S00")
    assert (
        "'S00' -> 'S01' -> 'S02' -> 'S03' -> 'S04' -> ... (21 more) -> 'S26' -> 'S27' -> 'S28' -> 'S29' -> 'S00'"
        in f.message
    )


def test_findings_name_at_most_eight_other_steps():
    producers = [step(f"P{i:02}", produces="x") for i in range(20)]
    [f] = validate(plan(*producers, step("C", requires="x"))).findings
    assert f.steps == ("C", *(f"P{i:02}" for i in range(8)))
    assert "'P07' and 12 more produces it" in f.message and "add 'P00' to C.depends_on" in f.message


def test_a_later_duplicate_is_checked_too():
    report = validate(plan(step("A"), step("A", depends_on="ghost"), step("B", depends_on="B")))
    assert {(f.code, f.steps) for f in report.findings} == {
        ("duplicate_id", ("A",)),
        ("unknown_dependency", ("A",)),
        ("self_dependency", ("B",)),
    }


def test_unknown_dependency_skips_ancestry_checks():
    report = validate(plan(step("A", depends_on="Z"), step("B", requires="A_done")))
    assert report.codes == {"unknown_dependency"}
    assert any("some dependencies name unknown steps" in s for s in report.skipped)


# (budget, dangling ids named by S5..S8, how many unknown_dependency messages keep a "did you mean")
HINT_BUDGETS = [
    (100_000, ["S1x", "S2x", "S3x", "S4x"], 4),
    (8, ["S1x", "S2x", "S3x", "S4x"], 1),  # one lookup over 8 ids, then the budget is spent
    (8, ["S1x", "S1x", "S1x", "S1x"], 4),  # one name asked four times costs one lookup
    (7, ["S1x", "S2x", "S3x", "S4x"], 0),
]


@pytest.mark.parametrize("budget, dangling, hinted", HINT_BUDGETS)
def test_did_you_mean_hints_stop_when_their_budget_is_spent(monkeypatch, budget, dangling, hinted):
    monkeypatch.setattr(context, "SUGGEST_BUDGET", budget)
    p = plan(
        *[step(f"S{i}") for i in range(1, 5)],
        *[step(f"S{i}", depends_on=d) for i, d in enumerate(dangling, 5)],
    )
    messages = [f.message for f in validate(p).findings if f.code == "unknown_dependency"]
    assert len(messages) == 4
    assert sum("did you mean" in m for m in messages) == hinted


def test_without_contract_unmet_requirement_uses_premises():
    p = plan(step("S1", requires=["assumed", "other"]), premises=["assumed"])
    report = validate(p)
    assert [(f.code, f.steps) for f in report.findings] == [
        ("assumed_fact", ("S1",)),
        ("unmet_requirement", ("S1",)),
    ]
    assert "'other', which no step produces and which is not given" in report.findings[1].message
    assert any("no contract" in s for s in report.skipped)
    assert validate(p, Contract(given_facts=["other", "assumed"], obtainable_facts=["S1_done"])).ok
    assert validate(p, Contract(given_facts=["other"], obtainable_facts=["S1_done"])).codes == {
        "unsupported_premise"
    }


def test_given_facts_satisfy_requirements():
    p = plan(step("S1", requires="creds"))
    assert not validate(p).ok
    assert validate(p, Contract(given_facts=["creds"])).ok


def test_fact_from_a_distant_ancestor_counts():
    chain = [step("S0", produces="root")] + [
        step(f"S{i}", depends_on=f"S{i - 1}") for i in range(1, 80)
    ]
    chain.append(step("END", depends_on="S79", requires="root"))
    assert validate(plan(*chain)).ok


def test_producer_after_the_consumer_suggests_reordering():
    p = plan(step("A", requires="late"), step("B", depends_on="A", produces="late"))
    [f] = validate(p).findings
    assert f.steps == ("A", "B")
    assert "runs after 'A'" in f.message and "add 'B'" not in f.message


def test_a_step_cannot_need_its_own_result():
    [f] = validate(plan(step("A", requires="x", produces="x"))).findings
    assert f.code == "unmet_requirement" and "which only 'A' itself produces" in f.message


def test_order_violation_with_no_first_step():
    [f] = validate(
        plan(step("V", kind="verify")), Contract(must_precede=[("patch", "verify")])
    ).findings
    assert (
        f.code == "order_violation" and f.steps == ("V",) and "the plan has no other" in f.message
    )


def test_placeholder_ids_may_contain_dots():
    p = plan(step("S3.v2"), step("S4", depends_on="S3.v2", arguments={"x": "{{S3.v2.result}}"}))
    assert validate(p).ok


def test_resource_chain_is_fine_and_big_resources_are_checked_as_a_chain():
    n = 260  # above the pairwise limit: consecutive sharers are checked
    chain = [
        step(f"S{i}", resources="repo", check="c", depends_on=[f"S{i - 1}"] if i else [])
        for i in range(n)
    ]
    assert validate(plan(*chain)).ok
    # S129 and S130 now parallel
    chain[130] = step("S130", resources="repo", check="c", depends_on="S128")
    chain[131] = step("S131", resources="repo", check="c", depends_on=["S129", "S130"])
    report = validate(plan(*chain))
    assert [f.steps for f in report.findings] == [("S129", "S130")]


# -- properties, with NetworkX as the oracle -------------------------------------------------------


@st.composite
def random_plans(draw, acyclic: bool):
    """A plan over n steps with random dependencies, facts, resources, kinds and placeholders."""
    n = draw(st.integers(1, 14))
    ids = [f"S{i}" for i in range(n)]
    facts = [f"f{i}" for i in range(draw(st.integers(1, 6)))]
    steps = []
    for i, sid in enumerate(ids):
        pool = ids[:i] if acyclic else ids
        deps = draw(st.lists(st.sampled_from(pool), max_size=3, unique=True)) if pool else []
        if not acyclic:
            deps = [d for d in deps if d != sid]
        ref = draw(st.sampled_from(ids))
        steps.append(
            Step(
                sid,
                f"do {sid}",
                expected_evidence="e",
                depends_on=deps,
                requires=draw(st.lists(st.sampled_from(facts), max_size=2, unique=True)),
                produces=draw(st.lists(st.sampled_from(facts), max_size=2, unique=True)),
                resources=draw(st.lists(st.sampled_from(["r1", "r2"]), max_size=1)),
                kind=draw(st.sampled_from([None, "a", "b"])),
                arguments={"x": f"{{{{{ref}.out}}}}"} if draw(st.booleans()) else {},
            )
        )
    return Plan("g", steps, premises=draw(st.lists(st.sampled_from(facts), max_size=1)))


def naive(p: Plan, contract: Contract) -> dict[str, set]:
    """The obvious reference: per-step ancestor sets from NetworkX."""
    g = to_graph(p)
    anc = {v: nx.ancestors(g, v) for v in g}
    # a given fact a step produces vouches for nothing
    produced = {f for s in p.steps for f in s.produces}
    given = (set(p.premises) | set(contract.given_facts)) - produced
    out: dict[str, set] = {
        "unmet_requirement": set(),
        "order_violation": set(),
        "resource_conflict": set(),
        "bad_placeholder": set(),
    }
    for s in p.steps:
        for f in s.requires:
            if f not in given and not any(f in g.nodes[a]["produces"] for a in anc[s.id]):
                out["unmet_requirement"].add((s.id, f))
        ref = s.arguments.get("x", "{{.}}")[2:].split(".")[0]
        if s.arguments and ref not in anc[s.id]:
            out["bad_placeholder"].add((s.id, ref))
    for a, b in contract.must_precede:
        firsts = {v for v in g if v == a or g.nodes[v]["kind"] == a}
        for v in g:
            if (v == b or g.nodes[v]["kind"] == b) and not firsts & anc[v]:
                out["order_violation"].add((v, (a, b)))
    for u in g:
        for v in g:
            if natural_key(u) < natural_key(v) and set(g.nodes[u]["resources"]) & set(
                g.nodes[v]["resources"]
            ):
                if u not in anc[v] and v not in anc[u]:
                    out["resource_conflict"].add((u, v))
    return out


def observed(report: Report, contract: Contract) -> dict[str, set]:
    out: dict[str, set] = {
        code: set()
        for code in ("unmet_requirement", "order_violation", "resource_conflict", "bad_placeholder")
    }
    for f in report.findings:
        if f.code == "unmet_requirement":
            out[f.code].add((f.steps[0], re.search(r"requires '([^']*)'", f.message).group(1)))
        elif f.code == "order_violation":
            pair = next(
                p
                for p in contract.must_precede
                if f"'{p[0]}' must precede '{p[1]}'" in f.message
                or f"({p[1]!r}) must come after a {p[0]!r}" in f.message
            )
            out[f.code].add((f.steps[0], pair))
        elif f.code == "resource_conflict":
            out[f.code].add(f.steps)
        elif f.code == "bad_placeholder":
            out[f.code].add((f.steps[0], re.search(r"\{\{([^.]*)\.", f.message).group(1)))
    return out


CONTRACT = Contract(must_precede=[("a", "b"), ("S0", "S3")], given_facts=["f0"])


@settings(max_examples=60, deadline=None)
@given(random_plans(acyclic=False))
def test_cycle_detection_agrees_with_networkx(p):
    report = validate(p)
    g = to_graph(p)
    cycles = report.by_code().get("cycle", ())
    assert (not cycles) == nx.is_directed_acyclic_graph(g)
    sccs = sorted(
        (sorted(c, key=natural_key) for c in nx.strongly_connected_components(g) if len(c) > 1),
        key=lambda c: [natural_key(x) for x in c],
    )
    assert [list(f.steps) for f in cycles] == sccs
    for f in cycles:
        assert all(g.has_edge(u, v) for u, v in f.edges)
        # a closed walk
        assert [v for _, v in f.edges] == [u for u, _ in f.edges[1:]] + [f.edges[0][0]]
        assert len({u for u, _ in f.edges}) == len(f.edges)  # a simple cycle


@pytest.mark.parametrize("tier", ["default", "bitsets", "few", "no_hops"])
@settings(max_examples=60, deadline=None)
@given(p=random_plans(acyclic=True))
def test_ancestor_rule_agrees_with_networkx(tier, p):
    with pytest.MonkeyPatch.context() as mp:
        # the rule stops looking two dependencies up after its first requirement
        if tier == "no_hops":
            mp.setattr(semantic, "HOP_TRIAL", 1)
        if tier == "bitsets":  # two bits, reused at every step: far questions take several sweeps
            mp.setattr(ancestry, "MAX_BITS", 2)
            mp.setattr(ancestry, "EPOCH", 1)
            mp.setattr(ancestry, "FEW", 0)
        elif tier == "few":  # every sweep pulls one bit per group from the dependencies
            mp.setattr(ancestry, "FEW", 10**9)
        report = validate(p, CONTRACT)
    assert observed(report, CONTRACT) == naive(p, CONTRACT)


@st.composite
def far_fact_plans(draw):
    """Layers of 2-8 steps; each step requires facts from 2 to 20 levels up along a random path of
    dependencies, or from a stranger of that level, sometimes twice, some facts with two producers."""
    rnd = draw(st.randoms(use_true_random=False))
    width, n = rnd.randint(2, 8), rnd.randint(20, 160)
    parents: dict[str, list[str]] = {}
    layers: list[list[str]] = []
    steps = []
    for i in range(n):
        if i % width == 0:
            layers.append([])
        sid, layer = f"S{i}", len(layers) - 1
        deps = rnd.sample(layers[-2], rnd.randint(1, min(3, len(layers[-2])))) if layer else []
        requires = []
        for _ in range(rnd.randint(0, 2) if layer >= 2 else 0):
            up = rnd.randint(2, min(20, layer))
            source = rnd.choice(deps)
            for _ in range(up - 1):
                source = rnd.choice(parents[source])
            if rnd.random() < 0.2:
                source = rnd.choice(layers[layer - up])  # same level: an ancestor or not
            requires += [f"f{source[1:]}"] * rnd.choice([1, 1, 1, 2])
        produces = [f"f{i}"] + ([f"f{rnd.randrange(n)}"] if rnd.random() < 0.1 else [])
        steps.append(
            Step(
                sid,
                f"do {sid}",
                expected_evidence="e",
                depends_on=deps,
                requires=requires,
                produces=produces,
            )
        )
        parents[sid] = deps
        layers[-1].append(sid)
    rnd.shuffle(steps)
    return Plan("g", steps)


@pytest.mark.parametrize("tier", ["default", "bitsets", "few", "no_hops"])
@settings(max_examples=40, deadline=None)
@given(p=far_fact_plans())
def test_facts_from_far_up_agree_with_networkx(tier, p):
    with pytest.MonkeyPatch.context() as mp:
        if tier == "no_hops":
            mp.setattr(semantic, "HOP_TRIAL", 1)
        if tier == "bitsets":
            mp.setattr(ancestry, "MAX_BITS", 3)
            mp.setattr(ancestry, "EPOCH", 2)
            mp.setattr(ancestry, "FEW", 0)
        elif tier == "few":
            mp.setattr(ancestry, "FEW", 10**9)
        report = validate(p, CONTRACT)
    assert (
        observed(report, CONTRACT)["unmet_requirement"] == naive(p, CONTRACT)["unmet_requirement"]
    )


@settings(max_examples=50, deadline=None)
@given(random_plans(acyclic=False), st.randoms(use_true_random=False))
def test_findings_do_not_depend_on_step_order(p, rnd):
    steps = list(p.steps)
    rnd.shuffle(steps)
    shuffled = p.replace(steps=tuple(steps))
    assert validate(shuffled, CONTRACT) == validate(p, CONTRACT)
    assert validate(p, CONTRACT).to_dict() == validate(p, CONTRACT).to_dict()


# -- Report ---------------------------------------------------------------------------------------


def test_report_sorted_by_layer_then_code_then_steps():
    p = plan(
        step("B", produces=()),
        step("A", produces=(), expected_evidence=""),
        step("C", depends_on="Z"),
    )
    report = validate(p)
    assert [(f.layer, f.code, f.steps) for f in report.findings] == [
        ("structure", "no_evidence", ("A",)),
        ("structure", "unknown_dependency", ("C",)),
        ("static", "no_artifact", ("A",)),
        ("static", "no_artifact", ("B",)),
    ]
    assert [f.code for f in report.errors] == ["no_evidence", "unknown_dependency"]
    assert len(report.warnings) == 2 and not report.ok
    assert [f.code for f in report.for_step("A")] == ["no_evidence", "no_artifact"]
    assert list(report.by_code()) == ["no_artifact", "no_evidence", "unknown_dependency"]


def test_import_findings_pass_through_first():
    imported = Finding("dangling_reference", "import", "error", "step 'S2' names <node-9>", ("S2",))
    report = validate(plan(step("S1"), step("S2")).replace(import_findings=(imported,)))
    assert report.findings == (imported,) and not report.ok


def test_to_text_lines_and_verdict():
    report = validate(
        plan(step("A", depends_on="B"), step("B", depends_on="A"), step("C", produces=()))
    )
    lines = report.to_text().splitlines()
    assert lines[0].startswith(
        "error  cycle  A, B  steps depend on each other in a cycle: 'A' -> 'B' -> 'A'"
    )
    assert lines[1].startswith("warning  no_artifact  C  step 'C' produces no fact")
    assert lines[-1] == "not ok: 1 error, 1 warning"
    assert any(line.startswith("skipped: semantics") for line in lines)
    assert validate(plan(step("A"))).to_text().splitlines()[-1] == "ok: no findings"
    assert validate(plan(step("A", produces=()))).verdict() == "ok (1 warning)"


def test_to_text_escapes_control_characters():
    sid = "S1\x1b[31m\nfake line"
    report = validate(plan(step(sid, depends_on=sid), step("S2", arguments={"k\r": "{{S9.x}}"})))
    text = report.to_text()
    assert "\x1b" not in text and "\r" not in text
    assert len(text.splitlines()) == len(report.findings) + len(report.skipped) + 1
    assert "S1\\x1b[31m\\nfake line" in text


def test_to_dict_is_json():
    report = validate(plan(step("A", depends_on="B"), step("B", depends_on="A")))
    data = json.loads(json.dumps(report.to_dict()))
    assert data["ok"] is False and data["errors"] == 1 and data["warnings"] == 0
    assert data["findings"][0] == {
        "code": "cycle",
        "layer": "structure",
        "severity": "error",
        "steps": ["A", "B"],
        "edges": [["A", "B"], ["B", "A"]],
        "message": report.findings[0].message,
        "where": "A.depends_on",
    }
    assert data["skipped"] == list(report.skipped)


def test_to_text_names_the_place_of_a_finding():
    found = Finding(
        "dangling_reference",
        "import",
        "error",
        "no task 7",
        ("node-1",),
        where="record 17, task_links[2]",
    )
    report = validate(plan(step("A")).replace(import_findings=(found,)))
    assert report.findings[0].where == "record 17, task_links[2]"
    assert report.to_text().splitlines()[0].endswith("no task 7  [record 17, task_links[2]]")


class _Table(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_repr_html_is_an_escaped_table():
    evil = "<script>alert(1)</script>"
    p = plan(step("<b>x</b>", action=evil, depends_on="<img src=x onerror=alert(1)>"))
    html_text = validate(p)._repr_html_()
    assert "<script>" not in html_text and "<img" not in html_text and "<b>" not in html_text
    parser = _Table()
    parser.feed(html_text)
    assert "script" not in parser.tags and "img" not in parser.tags
    assert parser.rows[0] == ["severity", "layer", "code", "steps", "message", "where"]
    [row] = parser.rows[1:]
    assert row[:4] == ["error", "structure", "unknown_dependency", "<b>x</b>"]
    assert "'<img src=x onerror=alert(1)>'" in row[4]
    assert row[5] == "<b>x</b>.depends_on"


def test_evil_action_in_a_message_is_escaped():
    evil = "<script>alert(1)</script>"
    p = plan(step("S1"), step("S2", arguments={"q": f"{{{{{evil}.x}}}}"}))
    report = validate(p)
    assert evil in report.findings[0].message
    assert evil not in report._repr_html_() and "&lt;script&gt;" in report._repr_html_()


def test_summarize_many_reports():
    reports = [
        validate(plan(step("A"))),
        validate(plan(step("A", depends_on="A"), step("B", produces=()))),
        validate(plan(step("A", produces=()), step("B", produces=()))),
    ]
    s = summarize(reports, names=["first", "second", "third"])
    assert (s.plans, s.plans_with_errors) == (3, 1)
    assert dict(s.counts) == {"no_artifact": 3, "self_dependency": 1}
    assert dict(s.plans_by_code) == {"no_artifact": 2, "self_dependency": 1}
    assert s.to_dict() == {
        "plans": 3,
        "plans_with_errors": 1,
        "counts": {"no_artifact": 3, "self_dependency": 1},
        "plans_by_code": {"no_artifact": 2, "self_dependency": 1},
        "severities": {"no_artifact": "warning", "self_dependency": "error"},
        "failed": [{"index": 1, "id": "second", "errors": ["self_dependency"]}],
    }
    text = s.to_text().splitlines()
    assert text[0] == "3 plans, 1 with errors"
    assert re.match(r"no_artifact\s+warning\s+3\s+2$", text[2])
    assert re.match(r"self_dependency\s+error\s+1\s+1$", text[3])
    assert text[4:] == ["failed (record index, id: error codes):", "  1  second: self_dependency"]
    assert summarize(reports).failed == ((1, "", ("self_dependency",)),)


@pytest.mark.parametrize(
    "severities, gravest",
    [
        (["info", "warning"], "warning"),
        (["warning", "info"], "warning"),
        (["info", "error", "warning"], "error"),
        (["info"], "info"),
    ],
)
def test_summary_names_the_gravest_severity_of_a_code(severities, gravest):
    reports = [Report((Finding("no_evidence", "structure", sev, "m"),)) for sev in severities]
    assert summarize(reports).severities == {"no_evidence": gravest}


@pytest.mark.parametrize(
    "severities, verdict, counts",
    [
        ((), "ok: no findings", (0, 0, 0)),
        (("info",), "ok (1 note)", (0, 0, 1)),
        (("warning", "info", "info"), "ok (1 warning, 2 notes)", (0, 1, 2)),
        (("error", "warning", "info"), "not ok: 1 error, 1 warning, 1 note", (1, 1, 1)),
    ],
)
def test_report_counts_three_severities(severities, verdict, counts):
    report = Report(
        tuple(Finding(f"c{i}", "structure", sev, "m") for i, sev in enumerate(severities))
    )
    assert report.verdict() == verdict
    assert (len(report.errors), len(report.warnings), len(report.infos)) == counts
    data = report.to_dict()
    assert (data["errors"], data["warnings"], data["infos"]) == counts
    assert report.ok is (counts[0] == 0)
    assert [line.split()[0] for line in report.to_text().splitlines()[:-1]] == list(severities)


# -- prepare ----------------------------------------------------------------------------------------


def test_prepare_returns_a_good_plan(cache_plan):
    assert prepare(cache_plan, cache_plan.contract) is cache_plan


def test_prepare_raises_schema_error_on_structure():
    with pytest.raises(SchemaError, match=r"structure is broken: .*cycle") as info:
        prepare(plan(step("A", depends_on="B"), step("B", depends_on="A")), Contract())
    assert info.value.report.codes == {"cycle"}


def test_prepare_refuses_an_infeasible_plan():
    p = plan(
        step("S1"),
        step("S2", depends_on="S1", requires=["creds", "S1_done"]),
        step("S3", requires="creds"),
    )
    out = prepare(p, Contract(obtainable_facts=["S1_done", "S2_done", "S3_done"], forbidden=["S3"]))
    assert isinstance(out, PlanningFailure) and not out
    assert out.unsatisfiable == ("creds",)
    assert "'creds', required by 'S2', 'S3'" in out.reason
    assert out.report.by_code()["infeasible_fact"]


def test_prepare_raises_semantic_error():
    with pytest.raises(SemanticError, match=r"does not satisfy its contract: .*'verify'") as info:
        prepare(plan(step("S1")), Contract(required=["verify"]))
    assert info.value.report.codes == {"missing_required"}


@pytest.mark.parametrize(
    "code",
    [
        "not_permitted",
        "outside_intent",
        "unknown_tool",
        "high_risk_unguarded",
        "forbidden_step",
        "forbidden_state",
        "tool_precondition",
        "bad_placeholder",
        "self_vouched_fact",
        "unverified_effect",
        "effect_conflict",
        "vacuous_check",
    ],
)
def test_prepare_refuses_every_gate_error_with_semantic_error(code):
    p, contract, _, _ = CASES[code]
    with pytest.raises(SemanticError, match="does not satisfy its contract") as info:
        prepare(p, contract)
    assert code in info.value.report.codes
    assert refusal(p, contract).code == code


@pytest.mark.parametrize("code", ["infeasible_fact", "unsupported_premise"])
def test_prepare_refuses_facts_no_route_can_have_with_a_planning_failure(code):
    p, contract, _, _ = CASES[code]
    out = prepare(p, contract)
    assert isinstance(out, PlanningFailure) and out.unsatisfiable == (
        ("keys",) if code == "infeasible_fact" else ("creds",)
    )
    assert refusal(p, contract).code == code


@pytest.mark.parametrize("code", sorted(WARNINGS))
def test_warnings_never_refuse(code):
    p, contract, _, _ = CASES[code]
    assert prepare(p, contract) is p and refusal(p, contract) is None


def test_the_gate_refuses_exactly_when_the_report_is_not_ok():
    for code, (p, contract, _, _) in CASES.items():
        assert (refusal(p, contract) is None) is validate(p, contract).ok, code


def test_a_plan_cannot_vouch_for_its_own_facts():
    from planviz import examples

    release = examples.load("release_no_credentials")
    vouched = release.replace(premises=(*release.premises, "deploy_credentials"))
    report = validate(vouched)
    assert report.codes == {"unsupported_premise"} and report.findings[0].steps == ("D1",)
    out = prepare(vouched)
    assert isinstance(out, PlanningFailure) and out.unsatisfiable == ("deploy_credentials",)


def test_a_premise_a_step_produces_is_refused_and_does_not_start_early():
    """Issue 23.1: S5 needs what S4 produces and lists it as premises; no back door past the ancestor rule."""
    from planviz import examples, simulate

    cache = examples.load("cache_isolation")
    s5 = Step(
        "S5",
        "announce the fix",
        expected_evidence="a note",
        requires=["isolation_verified", "hit_rate_ok"],
        produces=["announced"],
    )
    cheat = cache.replace(
        steps=(*cache.steps, s5), premises=(*cache.premises, "isolation_verified", "hit_rate_ok")
    )
    contract = cache.contract.__class__(
        **{
            **vars(cache.contract),
            "obtainable_facts": (*cache.contract.obtainable_facts, "announced"),
        }
    )
    assert {f.code for f in validate(cheat, contract).errors} == {
        "self_vouched_fact",
        "unmet_requirement",
    }
    with pytest.raises(SemanticError, match="cannot vouch for its own facts"):
        prepare(cheat, contract)
    for strategy in ("planner", "workflow"):
        run = simulate(cheat, contract, strategy=strategy)
        starts = [(e.time, e.step) for e in run.events if e.kind == "start"]
        assert ("S5" not in dict(map(reversed, starts))) or dict(map(reversed, starts))[
            "S5"
        ] >= 29, starts
    given = cache.replace(steps=(*cache.steps, s5))
    moved = cache.contract.__class__(
        **{**vars(contract), "given_facts": (*contract.given_facts, "hit_rate_ok")}
    )
    found = validate(given, moved).by_code()["self_vouched_fact"]
    assert found[0].where == "contract.given_facts" and "S4" in found[0].steps


@settings(max_examples=60, deadline=None)
@given(p=random_plans_shared(min_steps=1), data=st.data())
def test_no_random_plan_validates_with_a_premise_one_of_its_steps_produces(p, data):
    produced = sorted({f for s in p.steps for f in s.produces})
    premises = data.draw(st.lists(st.sampled_from(produced), min_size=1, max_size=3, unique=True))
    cheat = p.replace(premises=(*p.premises, *premises))
    report = validate(
        cheat, data.draw(st.sampled_from([None, Contract(), Contract(given_facts=["p"])]))
    )
    assert not report.ok and "self_vouched_fact" in report.codes
    assert refusal(cheat, None) is not None


def test_a_declared_write_under_read_intent_is_outside_intent_without_a_registry():
    p = plan(
        step("S1", effect="read"),
        step("S2", effect="write", check="the row is there", depends_on="S1"),
        step("S3", effect="destructive", check="the table is gone", depends_on="S2"),
    )
    report = validate(p, Contract(intent="read"))
    assert {(f.code, f.steps) for f in report.errors} == {
        ("outside_intent", ("S2",)),
        ("outside_intent", ("S3",)),
    }
    assert validate(p, Contract(intent="write")).ok


def test_a_registry_entry_declares_the_effect():
    p = plan(
        step("S1", tool="read_db"), step("S2", tool="write_db", depends_on="S1", check="row there")
    )
    codes = {(f.code, f.steps) for f in validate(p, Contract(tools=TOOLS, intent="read")).errors}
    assert codes == {("outside_intent", ("S2",)), ("tool_precondition", ("S2",))}


def test_past_due_account_under_a_read_only_contract_is_refused():
    """Issue 23.2: it sends an offer and logs the contact; a read-only contract with no registry must not pass it."""
    from planviz import examples

    account = examples.load("past_due_account")
    report = validate(account, Contract(intent="read"))
    assert {f.code for f in report.errors} == {"unverified_effect"}
    assert {s for f in report.errors for s in f.steps} == set(account.ids)
    with pytest.raises(
        SemanticError, match="unverified_effect|registry does not say whether it only reads"
    ):
        prepare(account, Contract(intent="read"))
    declared = account.replace(
        steps=tuple(
            replace(s, effect="write" if s.id in ("step_4", "step_5") else "read")
            for s in account.steps
        )
    )
    # a read not
    assert {(f.code, f.steps[0]) for f in validate(declared, Contract(intent="read")).errors} == {
        ("outside_intent", "step_4"),
        ("outside_intent", "step_5"),  # a declared write counts
        ("unverified_effect", "step_1"),
        ("unverified_effect", "step_2"),
        ("unverified_effect", "step_3"),
    }


@pytest.mark.parametrize(
    "check, writes, severity",
    [
        ("ran", True, "error"),
        ("Done.", True, "error"),
        ("completed", False, "warning"),
        ("the step executed successfully", True, "error"),
        ("do S1", False, "warning"),
        ("Do S1 - done", True, "error"),
        ("the row for C-17 is in the table", True, None),
        ("isolation test passes", False, None),
        ("", False, None),
    ],
)
def test_a_check_that_only_says_the_step_ran_is_no_check(check, writes, severity):
    p = plan(step("S1", check=check, resources=["db"] if writes else ()))
    found = validate(p).by_code().get("vacuous_check", [])
    assert [f.severity for f in found] == ([severity] if severity else [])


# -- grading ----------------------------------------------------------------------------------------


def test_grade():
    p = plan(
        step("R", kind="reproduce"),
        step("P", kind="patch"),
        step("D", kind="delete_test", depends_on="R"),
    )
    contract = Contract(
        required=["reproduce", "patch", "verify"],
        forbidden=["delete_test"],
        must_precede=[("reproduce", "patch")],
    )
    g = grade(p, contract)
    assert g == Grade(False, 2 / 3, ("D",), (("reproduce", "patch"),), ("verify",))
    assert g.to_dict()["order_violations"] == [["reproduce", "patch"]]
    text = g.to_text()
    assert "admissible: no" in text and "required recall: 0.67 (missing: verify)" in text
    assert "forbidden steps present: D" in text and "order violations: reproduce < patch" in text
    ok = grade(plan(step("R", kind="reproduce")), Contract(required=["reproduce"]))
    assert (ok.admissible, ok.required_recall, ok.forbidden_present, ok.order_violations) == (
        True,
        1.0,
        (),
        (),
    )


def test_grade_needs_a_contract():
    with pytest.raises(PlanFormatError, match="grading needs a contract"):
        grade(plan(step("A")))


def test_grade_many_table(cache_plan):
    bad = plan(step("X", kind="delete_test"))
    table = grade_many([("cache", cache_plan, cache_plan.contract), (bad, cache_plan.contract)])
    assert isinstance(table, GradeTable)
    assert [(name, g.admissible) for name, g in table.rows] == [("cache", True), ("#2", False)]
    assert table.admissible_rate == 0.5
    lines = table.to_text().splitlines()
    assert lines[0].split() == ["plan", "admissible", "recall", "forbidden", "order", "violations"]
    assert lines[1].split() == ["cache", "yes", "1.00", "0", "0"]
    assert lines[2].split() == ["#2", "no", "0.00", "0", "0"]
    assert lines[-1] == "2 plans, 50% admissible, mean required recall 0.50"
    assert json.loads(json.dumps(table.to_dict()))["rows"][1]["name"] == "#2"
    parser = _Table()
    parser.feed(table._repr_html_())
    assert parser.rows[1] == ["cache", "yes", "1.00", "0", "0"]
    with pytest.raises(PlanFormatError, match="expected"):
        grade_many([(cache_plan,)])


# (function, plan argument, contract argument, the message)
WRONG_ARGUMENTS = [
    (
        validate,
        "plan.yaml",
        None,
        r"^validate\(plan=...\) expects a planviz Plan, got str 'plan\.yaml'; .*load_plan",
    ),
    (validate, None, None, r"^validate\(plan=...\) expects a planviz Plan, got NoneType None"),
    (
        validate,
        "PLAN",
        "contract.yaml",
        r"^validate\(contract=...\) expects a planviz Contract or None, got str 'contract\.yaml'; .*load_contract",
    ),
    (
        prepare,
        "PLAN",
        {"required": ["verify"]},
        r"^prepare\(contract=...\) expects a planviz Contract or None, got dict",
    ),
    (grade, "PLAN", 3, r"^grade\(contract=...\) expects a planviz Contract or None, got int 3"),
    (grade, {"goal": "g"}, Contract(), r"^grade\(plan=...\) expects a planviz Plan, got dict"),
]


@pytest.mark.parametrize("func, plan_arg, contract_arg, match", WRONG_ARGUMENTS)
def test_wrong_argument_types_are_named(cache_plan, func, plan_arg, contract_arg, match):
    with pytest.raises(PlanvizTypeError, match=match):
        func(cache_plan if plan_arg == "PLAN" else plan_arg, contract_arg)


# (plan, contract, how the infeasible_fact finding says to fix it)
INFEASIBLE_FIXES = [
    (
        plan(step("A", produces="x"), step("B", depends_on="A", requires="x")),
        Contract(given_facts=["g"]),
        r"'A' produces it, but contract\.obtainable_facts does not list it: add it there",
    ),
    (
        plan(step("B", requires="creds")),
        Contract(obtainable_facts=["B_done"]),
        r"obtain it outside the plan and list it in contract\.given_facts",
    ),
]


@pytest.mark.parametrize("p, contract, fix", INFEASIBLE_FIXES)
def test_infeasible_fact_names_the_fix_and_the_place(p, contract, fix):
    [f] = validate(p, contract).by_layer("feasibility")
    assert f.code == "infeasible_fact" and f.steps == ("B",) and f.where == "B.requires"
    assert re.search(fix, f.message), f.message


# cases as a user may write them -> (names, admissible)
GRADE_CASE_SHAPES = [
    (lambda good, bad: [good, bad], ["#1", "#2"], [True, False]),
    (lambda good, bad: [("good", good), ("bad", bad)], ["good", "bad"], [True, False]),
    (lambda good, bad: [(good, None), ("bad", bad, good.contract)], ["#1", "bad"], [True, False]),
    (lambda good, bad: [[good, good.contract]], ["#1"], [True]),
]


@pytest.mark.parametrize("make, names, admissible", GRADE_CASE_SHAPES)
def test_grade_many_case_shapes(cache_plan, make, names, admissible):
    bad = plan(step("X", kind="delete_test"), contract=cache_plan.contract)
    table = grade_many(make(cache_plan, bad))
    assert [name for name, _ in table.rows] == names
    assert [g.admissible for _, g in table.rows] == admissible


@pytest.mark.parametrize("case", [("only-a-name",), ("a", "b", "c", "d"), "cache", 42, None])
def test_grade_many_names_a_malformed_case(case):
    with pytest.raises(
        PlanFormatError, match=r"^cases\[0\]: expected \(name, plan, contract\), .* got "
    ):
        grade_many([case])


# a step listing a fact twice -> one finding per (step, fact)
REPEATED_REQUIREMENTS = [
    (plan(step("B", requires=["y", "y"])), [("B",)]),
    (plan(step("A", produces="x"), step("B", requires=["x", "x", "y", "y"])), [("B",), ("B", "A")]),
    (plan(step("A", produces="x"), step("B", depends_on=["A", "A"], requires=["x", "x"])), []),
]


@pytest.mark.parametrize("p, expected", REPEATED_REQUIREMENTS)
def test_a_requirement_listed_twice_is_reported_once(p, expected):
    found = [f for f in validate(p).findings if f.code == "unmet_requirement"]
    assert sorted(f.steps for f in found) == sorted(expected)


# arguments -> the bad_placeholder findings' places: a placeholder repeated in one string is one finding
REPEATED_PLACEHOLDERS = [
    ({"x": "{{Z.v}} and {{Z.v}}"}, ["B.arguments.x"]),
    ({"x": "{{C.v}}, {{C.v}}, {{Z.v}}"}, ["B.arguments.x", "B.arguments.x"]),
    ({"x": "{{Z.v}}", "y": "{{Z.v}}"}, ["B.arguments.x", "B.arguments.y"]),
    ({"x": "{{A.v}} {{A.v}}"}, []),
]


@pytest.mark.parametrize("arguments, places", REPEATED_PLACEHOLDERS)
def test_a_placeholder_repeated_in_one_string_is_reported_once(arguments, places):
    p = plan(step("A"), step("B", depends_on="A", arguments=arguments), step("C"))
    assert sorted(f.where for f in validate(p).findings if f.code == "bad_placeholder") == places


# -- ids listed in natural order ------------------------------------------------------------------------------


def test_ids_are_listed_in_natural_order_step_9_before_step_10():
    ids = [f"step_{i}" for i in (10, 9, 2, 1)]
    p = plan(
        *(step(sid, resources="db") for sid in ids),
        step("END", depends_on=["step_1"], kind="finish"),
    )
    report = validate(p)
    assert [f.steps for f in report.by_code()["resource_conflict"]][:3] == [
        ("step_1", "step_2"),
        ("step_1", "step_9"),
        ("step_1", "step_10"),
    ]
    assert [f.steps for f in report.by_code()["isolated_step"]] == [
        ("step_2",),
        ("step_9",),
        ("step_10",),
    ]
    cycle = plan(step("S10", depends_on="S9"), step("S9", depends_on="S10"))
    assert validate(cycle).by_code()["cycle"][0].steps == ("S9", "S10")


@pytest.mark.parametrize(
    "tools, skipped",
    [((), False), ((None, None), False), ((None, "search"), True), (("search",), True)],
)
def test_a_contract_without_a_tool_registry_skips_the_tool_checks_only_when_a_step_calls_a_tool(
    tools, skipped
):
    plan = Plan(
        "g",
        [
            Step(f"S{i}", "a", expected_evidence="e", produces=f"f{i}", tool=tool)
            for i, tool in enumerate(tools)
        ],
    )
    report = validate(plan, Contract(required=[]))
    said = [s for s in report.skipped if "the contract has no tool registry" in s]
    assert len(said) == skipped
