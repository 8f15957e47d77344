"""planviz.analysis: schedules, ready sets, reachability and failure scopes.

The worked example of SPEC section 5 as tables, then property tests over
random DAGs (in random step order) with NetworkX as the oracle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planviz import (
    AnalysisError,
    BlockReason,
    Contract,
    Plan,
    Reach,
    Step,
    StepTiming,
    StructureError,
    critical_path,
    failure_scope,
    invalidated,
    reachable,
    ready_timeline,
    ready_waves,
    why_blocked,
)
from planviz.errors import PlanvizError, PlanvizTypeError, UnknownStepError
from planviz.plan.model import natural_key

PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ALL = frozenset({"S0", "S1", "S2", "S3", "S4"})


def cache_steps() -> list[Step]:
    """The cache-isolation fix of SPEC section 5, as in planviz/examples/cache_isolation.yaml."""
    e = "evidence"
    return [
        Step(
            "S0",
            "reproduce",
            expected_evidence=e,
            kind="reproduce",
            duration=5,
            produces=["leak_reproduced"],
        ),
        Step(
            "S1",
            "locate",
            expected_evidence=e,
            kind="diagnose",
            duration=8,
            depends_on=["S0"],
            requires=["leak_reproduced"],
            produces=["key_builder_located"],
        ),
        Step(
            "S2",
            "contract",
            expected_evidence=e,
            kind="diagnose",
            duration=3,
            depends_on=["S0"],
            requires=["leak_reproduced"],
            produces=["isolation_test_written"],
        ),
        Step(
            "S3",
            "patch",
            expected_evidence=e,
            kind="patch",
            duration=6,
            depends_on=["S1", "S2"],
            requires=["key_builder_located", "isolation_test_written"],
            produces=["patch_applied"],
        ),
        Step(
            "S4",
            "verify",
            expected_evidence=e,
            kind="verify",
            duration=10,
            depends_on=["S3"],
            requires=["patch_applied"],
            produces=["isolation_verified", "hit_rate_ok"],
        ),
    ]


@pytest.fixture(params=["python", "reversed", "file"])
def example(request) -> Plan:
    """The worked example built in Python, in reverse file order, and loaded from the bundled file."""
    if request.param == "file":
        return request.getfixturevalue("cache_plan")
    steps = cache_steps()
    if request.param == "reversed":
        steps.reverse()
    return Plan(
        "Tenants never see each other's cache entries",
        steps,
        premises=["the service uses the level-1 cache"],
        time_unit="min",
    )


# --------------------------------------------------------------------------- worked example


def test_worked_example_schedule(example):
    s = critical_path(example)
    assert (s.makespan, s.serial_time) == (29.0, 32.0)
    assert s.path == ("S0", "S1", "S3", "S4")
    assert s.critical == frozenset({"S0", "S1", "S3", "S4"})
    assert s.steps["S2"].slack == 5.0


@pytest.mark.parametrize(
    "sid, timing",
    [
        ("S0", StepTiming(0, 5, 0, 5, 0)),
        ("S1", StepTiming(5, 13, 5, 13, 0)),
        ("S2", StepTiming(5, 8, 10, 13, 5)),
        ("S3", StepTiming(13, 19, 13, 19, 0)),
        ("S4", StepTiming(19, 29, 19, 29, 0)),
    ],
)
def test_worked_example_timings(example, sid, timing):
    assert critical_path(example).steps[sid] == timing


def test_worked_example_waves_and_timeline(example):
    assert ready_waves(example) == ({"S0"}, {"S1", "S2"}, {"S3"}, {"S4"})
    points = ready_timeline(example)
    assert [p.time for p in points] == [0, 5, 8, 13, 19, 29]
    assert [p.ready for p in points if p.ready] == [{"S0"}, {"S1", "S2"}, {"S3"}, {"S4"}]
    assert [p.running for p in points] == [{"S0"}, {"S1", "S2"}, {"S1"}, {"S3"}, {"S4"}, set()]
    assert points[2].done == {"S0", "S2"}
    assert points[-1].done == ALL


@pytest.mark.parametrize(
    "workers, finish, at_5",
    [
        (1, 32.0, {"S1"}),  # lower id first
        (2, 29.0, {"S1", "S2"}),
        (None, 29.0, {"S1", "S2"}),
    ],
)
def test_worked_example_workers(example, workers, finish, at_5):
    points = ready_timeline(example, workers=workers)
    assert points[-1].time == finish and points[-1].done == ALL
    at = {p.time: p for p in points}
    assert at[5.0].ready == {"S1", "S2"} and at[5.0].running == at_5


@pytest.mark.parametrize(
    "state",
    [
        None,
        (
            {"S0", "S1", "S2", "S3"},
            {"leak_reproduced", "key_builder_located", "isolation_test_written", "patch_applied"},
        ),
    ],
)
def test_worked_example_side_effect_at_verify(example, state):
    scope = failure_scope(example, "S4", "side_effect", state=state)
    assert (scope.category, scope.action, scope.restart) == (
        "side_effect",
        "invalidate_subgraph",
        "S3",
    )
    assert scope.voided == {"S3", "S4"}
    assert scope.kept == {"S0", "S1", "S2"}
    assert "S3" in scope.message


def test_worked_example_precondition_returns_to_producer(example):
    state = ({"S0", "S1", "S2"}, {"leak_reproduced", "isolation_test_written"})
    scope = failure_scope(example, "S3", "precondition", fact="key_builder_located", state=state)
    assert (scope.action, scope.restart, scope.blocked_fact) == ("return_to_source", "S1", None)
    assert scope.voided == {"S1", "S3", "S4"}
    assert scope.kept == {"S0", "S2"}


@pytest.mark.parametrize(
    "category, action, restart, voided, kept",
    [
        ("transient", "retry", "S3", set(), {"S0", "S1", "S2"}),
        # global: kept only once re-checked
        (
            "goal_change",
            "replan",
            None,
            {"S0", "S1", "S2", "S3", "S4"},
            set(),
        ),
        # S3 is the patch itself
        (
            "side_effect",
            "invalidate_subgraph",
            "S3",
            {"S3", "S4"},
            {"S0", "S1", "S2"},
        ),
        ("precondition", "return_to_source", "S2", {"S2", "S3", "S4"}, {"S0", "S1"}),
    ],
)
def test_scope_table_at_patch(example, category, action, restart, voided, kept):
    state = ({"S0", "S1", "S2"}, set())
    fact = "isolation_test_written" if category == "precondition" else None
    scope = failure_scope(example, "S3", category, fact=fact, state=state)
    assert (scope.action, scope.restart, scope.voided, scope.kept) == (
        action,
        restart,
        voided,
        kept,
    )


def test_goal_change_without_state_voids_everything(example):
    scope = failure_scope(example, "S2", "goal_change")
    assert scope.voided == ALL and scope.kept == frozenset() and scope.restart is None


def test_precondition_on_a_given_fact_is_blocked(example):
    fact = "the service uses the level-1 cache"
    scope = failure_scope(
        example, "S3", "precondition", fact=fact, state=({"S0", "S1", "S2"}, set())
    )
    assert (scope.action, scope.restart, scope.blocked_fact) == ("blocked", None, fact)
    assert scope.voided == {"S3", "S4"} and scope.kept == {"S0", "S1", "S2"}
    assert repr(fact) in scope.message


def test_precondition_fact_inferred_only_when_unambiguous(example):
    assert failure_scope(example, "S1", "precondition").restart == "S0"  # S1 requires one fact
    with pytest.raises(
        AnalysisError, match=r"needs the fact.*'isolation_test_written', 'key_builder_located'"
    ):
        failure_scope(example, "S3", "precondition")


def test_precondition_prefers_nearest_ancestor_then_any_producer():
    plan = Plan(
        "g",
        [
            Step("A", "a", produces="f"),
            Step("B", "b", depends_on="A", produces="f"),
            Step("C", "c", depends_on="B"),
            Step("Z", "z", produces="g"),
            Step("Y", "y", depends_on="Z"),
            Step("X", "x", depends_on="C", requires=["f", "g"]),
        ],
    )
    assert failure_scope(plan, "X", "precondition", fact="f").restart == "B"
    only_a = failure_scope(plan, "X", "precondition", fact="f", state=({"A", "C", "Z"}, ()))
    assert only_a.restart == "A" and only_a.voided == {"A", "B", "C", "X"} and only_a.kept == {"Z"}
    # no producer of g is an ancestor of X: the nearest ignoring direction wins over the lower id
    other = Plan(
        "g",
        [
            Step("A", "a"),
            Step("X", "x", depends_on="A", requires="g"),
            Step("Z", "z", depends_on="A", produces="g"),
            Step("W", "w", depends_on="Z", produces="g"),
        ],
    )
    assert failure_scope(other, "X", "precondition").restart == "Z"
    assert failure_scope(other, "X", "precondition", state=({"A", "W"}, ())).restart == "W"


def test_side_effect_without_patch_voids_direct_dependencies():
    plan = Plan(
        "g",
        [
            Step("A", "a"),
            Step("B", "b"),
            Step("C", "c", depends_on=["A", "B"]),
            Step("D", "d", depends_on="A"),
        ],
    )
    scope = failure_scope(plan, "C", "side_effect", state=({"A", "B", "D"}, ()))
    assert (
        scope.restart == "A" and scope.voided == {"A", "B", "C", "D"} and scope.kept == frozenset()
    )
    root = failure_scope(plan, "A", "side_effect")
    assert root.restart == "A" and root.voided == {"A", "C", "D"} and root.kept == {"B"}


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda p: failure_scope(p, "S4", "cosmic_ray"),
            AnalysisError,
            r"unknown failure category 'cosmic_ray'; choose one of 'transient', 'precondition', 'side_effect', "
            r"'goal_change'",
        ),
        (lambda p: failure_scope(p, "S9", "transient"), UnknownStepError, r"no step 'S9'.*'S0'"),
        (lambda p: why_blocked(p, ((), ()), "S9"), UnknownStepError, r"no step 'S9'"),
        (
            lambda p: critical_path(p, durations={"S9": 1}),
            UnknownStepError,
            r"durations names 'S9'",
        ),
        (
            lambda p: critical_path(p, durations={"S1": -1}),
            AnalysisError,
            r"durations\['S1'\].*got -1",
        ),
        (
            lambda p: critical_path(p, durations={"S1": 10**400}),
            AnalysisError,
            r"durations\['S1'\] must be a finite",
        ),
        (
            lambda p: critical_path(p, durations={"S1": True}),
            AnalysisError,
            r"durations\['S1'\].*got True",
        ),
        (lambda p: ready_timeline(p, workers=0), AnalysisError, r"positive integer.*got 0"),
        (lambda p: invalidated(p, object()), PlanvizTypeError, r"\(completed, facts\) pair"),
        (lambda p: reachable(p, "S0", ()), PlanvizTypeError, r"got the string 'S0'"),
        (
            lambda p: reachable(p, (), "leak_reproduced"),
            PlanvizTypeError,
            r"facts must be .*got the string 'leak_reproduced'",
        ),
        (
            lambda p: invalidated(p, ((), "leak_reproduced")),
            PlanvizTypeError,
            r"facts must be .*the string",
        ),
        (
            lambda p: failure_scope(p, "S4", "side_effect", state=("S0", ())),
            PlanvizTypeError,
            r"completed must be .*'S0'",
        ),
        (
            lambda p: failure_scope(p, "S0", "precondition"),
            AnalysisError,
            r"pass fact=, 'S0' requires no fact",
        ),
    ],
)
def test_bad_arguments(example, call, error, match):
    with pytest.raises(error, match=match):
        call(example)


# --------------------------------------------------------------------------- structure errors

CYCLES = [
    (
        Plan("g", [Step("A", "a", depends_on="B"), Step("B", "b", depends_on="A")]),
        r"cycle \('A' -> 'B' -> 'A'\)",
    ),
    (
        Plan("g", [Step("B", "b", depends_on="A"), Step("A", "a", depends_on="B")]),
        r"cycle \('A' -> 'B' -> 'A'\)",
    ),
    (Plan("g", [Step("A", "a", depends_on="A")]), r"step 'A' depends on itself"),
]
UNKNOWN = [
    (
        Plan("g", [Step("A", "a", depends_on=["nope", "B"]), Step("B", "b")]),
        r"step 'A' depends on unknown step 'nope'",
    )
]
SCHEDULES = [
    critical_path,
    ready_waves,
    ready_timeline,
    lambda p: failure_scope(p, "A", "transient"),
]
REACHES = [
    lambda p: reachable(p, (), ()),
    lambda p: invalidated(p, ((), ())),
    lambda p: why_blocked(p, ((), ()), "A"),
]


@pytest.mark.parametrize("plan, match", CYCLES + UNKNOWN)
@pytest.mark.parametrize("call", SCHEDULES)
def test_structure_errors_say_run_validate(plan, match, call):
    with pytest.raises(StructureError, match=match + r".*run planviz\.validate\(plan\)") as info:
        call(plan)
    assert isinstance(info.value, PlanvizError) and isinstance(info.value, ValueError)
    assert "A" in info.value.steps


@pytest.mark.parametrize("plan, match", UNKNOWN)
@pytest.mark.parametrize("call", REACHES)
def test_reachability_refuses_unknown_dependencies(plan, match, call):
    with pytest.raises(StructureError, match=match):
        call(plan)


@pytest.mark.parametrize("plan", [p for p, _ in CYCLES])
def test_steps_on_a_cycle_are_never_reachable(plan):
    assert reachable(plan, (), ()).steps == frozenset()
    assert invalidated(plan, ((), ())) == set(plan.ids)
    assert why_blocked(plan, ((), ()), "A")[-1].kind == "unknown"


# --------------------------------------------------------------------------- small cases


def test_empty_plan():
    plan = Plan("nothing to do")
    s = critical_path(plan)
    assert (s.makespan, s.serial_time, s.path, s.critical, dict(s.steps)) == (
        0.0,
        0.0,
        (),
        frozenset(),
        {},
    )
    assert ready_waves(plan) == ()
    assert [(p.time, p.done) for p in ready_timeline(plan)] == [(0.0, frozenset())]
    assert reachable(plan, (), ()) == Reach(frozenset(), frozenset())


def test_zero_duration_steps_release_work_at_the_same_instant():
    plan = Plan(
        "g",
        [
            Step("C", "c", depends_on="B", duration=1),
            Step("B", "b", depends_on="A", duration=0),
            Step("A", "a", duration=0),
            Step("D", "d", duration=0, depends_on="C"),
        ],
    )
    points = ready_timeline(plan)
    assert [(p.time, p.ready, p.running, p.done) for p in points] == [
        (0.0, {"A", "B", "C"}, {"C"}, {"A", "B"}),
        (1.0, {"D"}, set(), {"A", "B", "C", "D"}),
    ]
    s = critical_path(plan)
    assert (
        s.makespan == 1.0 and s.path == ("A", "B", "C", "D") and s.critical == {"A", "B", "C", "D"}
    )


def test_critical_path_ties_by_id_and_duration_override():
    plan = Plan(
        "g",
        [
            Step("Z", "z", duration=2),
            Step("M", "m", duration=2),
            Step("E", "e", depends_on=["Z", "M"]),
        ],
    )
    assert critical_path(plan).path == ("M", "E")
    assert critical_path(plan, durations={"M": 1}).path == ("Z", "E")


def test_float_durations_leave_no_spurious_slack():
    plan = Plan(
        "g",
        [
            Step("A", "a", duration=0.1),
            Step("B", "b", duration=0.2, depends_on="A"),
            Step("C", "c", duration=0.3),
        ],
    )
    s = critical_path(plan)
    assert s.steps["C"].slack == 0.0 and s.critical == {"A", "B", "C"}


def test_duplicate_ids_keep_the_first_step_like_to_graph():
    plan = Plan("g", [Step("A", "a", duration=2), Step("A", "again", duration=7)])
    assert critical_path(plan).makespan == 2.0


# --------------------------------------------------------------------------- reachability


@dataclass(frozen=True)
class FakeState:
    completed: frozenset
    facts: frozenset


def test_withdrawn_fact_is_not_restored_by_a_completed_producer(example):
    state = FakeState(
        frozenset({"S0", "S1", "S2"}), frozenset({"leak_reproduced", "isolation_test_written"})
    )
    facts, steps = reachable(example, state.completed, state.facts)
    assert steps == frozenset() and facts == {"leak_reproduced", "isolation_test_written"}
    assert invalidated(example, state) == {"S3", "S4"}
    assert invalidated(example, (state.completed, state.facts)) == {"S3", "S4"}
    chain = why_blocked(example, state, "S4")
    assert [(r.step, r.kind, r.missing, r.producers) for r in chain] == [
        ("S4", "dependency", "S3", ()),
        ("S3", "fact", "key_builder_located", ("S1",)),
    ]
    assert "completed steps are not re-run" in chain[-1].message
    assert why_blocked(example, state, "S0") == ()


def test_initial_state_reaches_everything(example):
    reach = reachable(example, (), {"the service uses the level-1 cache"})
    assert reach.steps == ALL and "hit_rate_ok" in reach.facts
    assert invalidated(example, ((), ())) == frozenset()


def test_least_fixed_point_two_blocked_steps_cannot_free_each_other():
    plan = Plan(
        "g",
        [
            Step("A", "a", requires="b_done", produces="a_done"),
            Step("B", "b", requires="a_done", produces="b_done"),
            Step("C", "c", depends_on="A"),
        ],
    )
    assert reachable(plan, (), ()).steps == frozenset()
    assert reachable(plan, (), {"a_done"}).steps == {"A", "B", "C"}
    chain = why_blocked(plan, ((), ()), "C")
    assert [(r.step, r.kind, r.missing) for r in chain] == [
        ("C", "dependency", "A"),
        ("A", "fact", "b_done"),
        ("B", "unknown", "a_done"),
    ]
    assert isinstance(chain[0], BlockReason) and "circular" in chain[-1].message


def test_fact_nobody_produces():
    plan = Plan("g", [Step("A", "a", requires="key")])
    (reason,) = why_blocked(plan, ((), ()), "A")
    assert (reason.kind, reason.missing, reason.producers) == ("fact", "key", ())
    assert "no step of the plan produces" in reason.message


def test_completed_ids_of_an_older_plan_version_are_ignored(example):
    assert reachable(example, {"S0", "S3.v1"}, {"leak_reproduced"}).steps == {
        "S1",
        "S2",
        "S3",
        "S4",
    }


# --------------------------------------------------------------------------- property tests

FACTS = ["f0", "f1", "f2", "f3", "f4"]
DURATIONS = [0, 0.5, 1, 2, 3, 4.25, 8]


@st.composite
def plans(draw, max_steps=10):
    """A random DAG plan: ids unrelated to the dependency order, steps in random file order."""
    n = draw(st.integers(0, max_steps))
    names = draw(st.permutations([f"s{i}" for i in range(n)]))
    steps = []
    for j in range(n):
        deps = draw(st.sets(st.integers(0, j - 1), max_size=3)) if j else set()
        steps.append(
            Step(
                names[j],
                f"step {j}",
                depends_on=[names[d] for d in sorted(deps)],
                duration=draw(st.sampled_from(DURATIONS)),
                requires=sorted(draw(st.sets(st.sampled_from(FACTS), max_size=2))),
                produces=sorted(draw(st.sets(st.sampled_from(FACTS), max_size=2))),
                kind=draw(st.sampled_from([None, None, "patch", "verify"])),
            )
        )
    order = draw(st.permutations(steps))
    return Plan("random", list(order))


def oracle_graph(plan: Plan) -> nx.DiGraph:
    g = nx.DiGraph()
    for s in plan.steps:
        g.add_node(s.id, d=s.duration)
    g.add_edges_from((d, s.id) for s in plan.steps for d in s.depends_on)
    return g


def split_longest(g: nx.DiGraph) -> float:
    """Longest path with node weights moved onto edges: v_in -> v_out carries v's duration."""
    h = nx.DiGraph()
    for v, d in g.nodes(data="d"):
        h.add_edge((v, "in"), (v, "out"), weight=d)
    h.add_edges_from((((u, "out"), (v, "in"), {"weight": 0}) for u, v in g.edges))
    return nx.dag_longest_path_length(h) if len(h) else 0.0


@PROPS
@given(plans(max_steps=12))
def test_schedule_matches_networkx(plan):
    g = oracle_graph(plan)
    s = critical_path(plan)
    assert s.makespan == pytest.approx(split_longest(g))
    assert max((x.duration for x in plan.steps), default=0) <= s.makespan <= s.serial_time + 1e-9
    assert s.serial_time == pytest.approx(sum(x.duration for x in plan.steps))
    for v, t in s.steps.items():
        assert t.ef == pytest.approx(t.es + g.nodes[v]["d"]) and t.slack >= 0
        assert t.es == pytest.approx(max((s.steps[u].ef for u in g.pred[v]), default=0))
        assert (t.slack == 0) == (v in s.critical)
    # the path is the id-smallest source-to-sink path whose durations add up to the makespan
    sources = [v for v in g if not g.in_degree(v)]
    sinks = [v for v in g if not g.out_degree(v)]
    full = [
        tuple(p)
        for a in sources
        for b in sinks
        for p in ([[a]] if a == b else nx.all_simple_paths(g, a, b))
        if sum(g.nodes[v]["d"] for v in p) == pytest.approx(s.makespan)
    ]
    assert s.path == (min(full, key=lambda p: [natural_key(v) for v in p]) if full else ())
    assert set(s.path) <= s.critical


@PROPS
@given(plans(max_steps=10), st.data())
def test_with_a_terminal_the_schedule_ends_there(plan, data):
    """NetworkX as the oracle: the makespan is the longest path into the terminal; other steps never count."""
    if not plan.steps:
        return
    end = data.draw(st.sampled_from(plan.ids))
    plan = plan.replace(
        steps=[
            x
            if x.id != end
            else x.__class__(
                x.id, x.action, depends_on=x.depends_on, duration=x.duration, kind="finish"
            )
            for x in plan.steps
        ]
    )
    g = oracle_graph(plan)
    route = nx.ancestors(g, end) | {end}
    s = critical_path(plan)
    assert s.makespan == pytest.approx(split_longest(g.subgraph(route)))
    assert s.path[-1] == end and set(s.path) <= route
    assert s.critical <= route
    assert {v for v, t in s.steps.items() if t.slack == math.inf} == set(g) - route


def test_the_contract_final_milestone_is_the_terminal():
    plan = Plan(
        "g",
        [
            Step("A", "a", duration=1),
            Step("B", "b", depends_on="A", kind="verify"),
            Step("C", "c", depends_on="A", duration=9),
        ],
    )
    assert critical_path(plan).path == ("A", "C")
    assert critical_path(plan, contract=Contract(final="verify")).path == ("A", "B")
    assert critical_path(plan.replace(contract=Contract(final="B"))).makespan == 2.0


@PROPS
@given(plans())
def test_waves_are_topological_generations(plan):
    g = oracle_graph(plan)
    waves = ready_waves(plan)
    assert list(waves) == [frozenset(w) for w in nx.topological_generations(g)]
    for wave in waves:
        assert not any(nx.has_path(g, u, v) for u in wave for v in wave if u != v)  # antichain


@PROPS
@given(plans(), st.sampled_from([None, 1, 2, 3]))
def test_timeline_invariants(plan, workers):
    g = oracle_graph(plan)
    points = ready_timeline(plan, workers=workers)
    s = critical_path(plan)
    times = [p.time for p in points]
    assert times[0] == 0 and times == sorted(set(times))
    assert points[-1].done == set(g) and not points[-1].running
    prev_done = frozenset()
    for p in points:
        assert prev_done <= p.done and not (p.ready & prev_done) and not (p.running & p.done)
        assert workers is None or len(p.running) <= workers
        for v in p.running | (p.done - prev_done):
            assert set(g.pred[v]) <= p.done  # nothing runs before its dependencies are done
        prev_done = p.done
    if workers is None:
        assert points[-1].time == pytest.approx(s.makespan)
        for v in g:  # with unlimited workers every step starts at its earliest start
            assert min(p.time for p in points if v in p.running | p.done) == pytest.approx(
                s.steps[v].es
            )
    if workers == 1:
        assert points[-1].time == pytest.approx(s.serial_time)


def naive_reach(plan: Plan, completed: set, facts: set) -> tuple[set, set]:
    """Reference: add reachable steps until nothing changes (quadratic, obviously right)."""
    facts, found = set(facts), set()
    changed = True
    while changed:
        changed = False
        for s in plan.steps:
            if s.id in completed or s.id in found:
                continue
            if all(d in completed or d in found for d in s.depends_on) and set(s.requires) <= facts:
                found.add(s.id)
                facts |= set(s.produces)
                changed = True
    return facts, found


@st.composite
def plans_and_states(draw):
    plan = draw(plans())
    ids = sorted(plan.ids)
    completed = draw(st.sets(st.sampled_from(ids))) if ids else set()
    facts = draw(st.sets(st.sampled_from(FACTS)))
    return plan, completed, facts


@PROPS
@given(plans_and_states())
def test_reachable_equals_naive_fixed_point(case):
    plan, completed, facts = case
    want_facts, want_steps = naive_reach(plan, completed, facts)
    reach = reachable(plan, completed, facts)
    assert (reach.facts, reach.steps) == (want_facts, want_steps)
    lost = invalidated(plan, (completed, facts))
    assert lost == set(plan.ids) - completed - want_steps
    for sid in plan.ids:
        chain = why_blocked(plan, (completed, facts), sid)
        assert bool(chain) == (sid in lost)
        if chain:
            assert chain[0].step == sid and chain[-1].kind in ("fact", "unknown")
            for link, nxt in zip(chain, chain[1:]):
                assert (
                    nxt.step == link.missing
                    if link.kind == "dependency"
                    else nxt.step in link.producers
                )
                assert nxt.step in lost


@st.composite
def failures(draw):
    plan = draw(plans().filter(len))
    g = oracle_graph(plan)
    order = list(nx.topological_sort(g))
    completed = set(order[: draw(st.integers(0, len(order)))])  # a run got this far
    step = draw(st.sampled_from(sorted(g)))
    fact = draw(st.sampled_from(FACTS))
    with_state = draw(st.booleans())
    return plan, g, step, fact, completed if with_state else None


def nearest(g: nx.DiGraph, step: str, candidates) -> str:
    dist_up = nx.single_source_shortest_path_length(g.reverse(copy=False), step)
    ups = [c for c in candidates if c in dist_up and c != step]
    if ups:
        return min(ups, key=lambda c: (dist_up[c], c))
    dist = nx.single_source_shortest_path_length(g.to_undirected(as_view=True), step)
    return min(candidates, key=lambda c: (dist.get(c, float("inf")), c))


@PROPS
@given(failures(), st.sampled_from(["transient", "precondition", "side_effect", "goal_change"]))
def test_failure_scopes(case, category):
    plan, g, step, fact, completed = case
    scope = failure_scope(
        plan, step, category, fact=fact, state=None if completed is None else (completed, ())
    )
    universe = set(g) if completed is None else completed
    assert scope.category == category and not (scope.voided & scope.kept)
    assert scope.kept == (frozenset() if category == "goal_change" else universe - scope.voided)
    for v in scope.voided:
        assert nx.descendants(g, v) <= scope.voided  # closed downstream
    upstream = nx.ancestors(g, step) | {step}
    if category == "transient":
        assert (scope.action, scope.restart, scope.voided) == ("retry", step, frozenset())
    elif category == "goal_change":
        assert scope.voided == set(g) and scope.restart is None and scope.action == "replan"
    elif category == "side_effect":
        patches = [v for v in upstream if plan.step(v).kind == "patch"]
        roots = (
            [nearest(g, step, patches) if step not in patches else step]
            if patches
            else (sorted(g.pred[step]) or [step])
        )
        want = set(roots).union(*(nx.descendants(g, r) for r in roots))
        assert scope.voided == want and step in scope.voided and scope.restart == min(roots)
        for c in universe:  # unrelated verified work survives
            if not (nx.ancestors(g, c) | {c}) & upstream:
                assert c in scope.kept
    else:
        producers = [v for v in universe if v != step and fact in plan.step(v).produces]
        if not producers:
            assert (scope.action, scope.blocked_fact, scope.restart) == ("blocked", fact, None)
            assert scope.voided == nx.descendants(g, step) | {step}
        else:
            source = nearest(g, step, producers)
            assert (scope.action, scope.restart) == ("return_to_source", source)
            assert scope.voided == nx.descendants(g, source) | {source}
            for (
                c
            ) in universe:  # a step whose facts still hold, not downstream of a producer, is kept
                if fact not in plan.step(c).produces and not any(
                    nx.has_path(g, p, c) for p in producers
                ):
                    assert c in scope.kept


def test_shared_index_gives_the_same_answers_on_repeat_pickled_and_replaced_plans(cache_plan):
    import pickle

    from planviz import validate

    fresh = critical_path(cache_plan.replace())
    again = critical_path(cache_plan)
    assert critical_path(cache_plan) == again == fresh
    assert ready_waves(cache_plan) == ready_waves(cache_plan.replace())
    assert validate(cache_plan) == validate(cache_plan.replace())
    clone = pickle.loads(pickle.dumps(cache_plan))
    assert clone == cache_plan and critical_path(clone) == fresh
    # a derived plan never sees the old index
    shorter = cache_plan.replace(steps=cache_plan.steps[:3])
    assert critical_path(shorter).makespan == 13.0
    assert sorted(critical_path(shorter).steps) == ["S0", "S1", "S2"]


# --------------------------------------------------------------------------- exclusive resources


def test_critical_path_stays_the_resource_free_bound_and_says_when_resources_stretch_it(example):
    from dataclasses import replace

    shared = example.replace(
        steps=tuple(
            replace(s, resources=["staging-cache"]) if s.id in ("S1", "S2") else s
            for s in example.steps
        )
    )
    schedule = critical_path(shared)
    assert schedule.makespan == 29.0 and schedule.contended == (("staging-cache", "S1", "S2"),)
    assert (
        "'S1' and 'S2' both hold 'staging-cache'" in schedule.note
        and "may take longer" in schedule.note
    )
    chained = shared.replace(
        steps=tuple(
            replace(s, depends_on=("S0", "S1")) if s.id == "S2" else s for s in shared.steps
        )
    )
    assert critical_path(chained).contended == () and critical_path(chained).note == ""
    assert critical_path(example).contended == ()


@PROPS
@given(plans(), st.data())
def test_contended_names_exactly_the_holders_whose_earliest_intervals_overlap(plan, data):
    from dataclasses import replace

    plan = plan.replace(
        steps=[
            replace(
                s,
                resources=data.draw(
                    st.lists(st.sampled_from(["db", "repo"]), max_size=2, unique=True)
                ),
            )
            for s in plan.steps
        ]
    )
    schedule = critical_path(plan)
    t = schedule.steps
    overlapping = {
        res
        for s in plan.steps
        for o in plan.steps
        if s.id < o.id
        for res in set(s.resources) & set(o.resources)
        if t[s.id].es < t[o.id].ef
        and t[o.id].es < t[s.id].ef
        and t[s.id].es < t[s.id].ef
        and t[o.id].es < t[o.id].ef
    }
    assert {res for res, _, _ in schedule.contended} == overlapping
    for res, a, b in schedule.contended:
        assert res in plan.step(a).resources and res in plan.step(b).resources
