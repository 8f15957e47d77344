"""metrics, compare_strategies, attribution: the figures of a run (hand-computed on the worked example)."""

from __future__ import annotations

import pytest

from planviz import (
    Contract,
    Fault,
    Metrics,
    Plan,
    Recorder,
    Step,
    StrategyComparison,
    attribution,
    compare_strategies,
    metrics,
    simulate,
)

# Worked example: S0 5, S1 8 and S2 3 after S0, S3 6 after both, S4 10 after S3; makespan 29, serial 32.
# fields: success, executability, precondition_errors, duplicate_steps, replans, recovery_distance,
#         critical_path_delay, tool_calls, model_calls, time, outcome_class, work_voided
TABLE = [
    # no fault: the critical path, nothing repeated; one model call: the proposal
    ("planner", (), (True, 1.0, 0, 0, 0, 0, 0.0, 5, 1, 29.0, "goal_success", 0)),
    # S4 fails at 29; S3.v2 29-35, S4.v2 35-45; S3 was done when voided (S4 had failed): distance 1
    ("planner", ("S4:side_effect",), (True, 1.0, 0, 2, 1, 1, 16.0, 7, 2, 45.0, "goal_success", 1)),
    # S3 fails at 19; S1.v2 19-27, S3.v2 27-33, S4.v2 33-43; of S1, S3, S4 only S1 was done
    ("planner", ("S3:withdraw",), (True, 1.0, 0, 2, 1, 1, 14.0, 7, 2, 43.0, "goal_success", 1)),
    # S1 5-13 fails, retried 13-21; S3 21-27; S4 27-37
    ("planner", ("S1:transient",), (True, 1.0, 0, 1, 0, 0, 8.0, 6, 1, 37.0, "goal_success", 0)),
    # S1 three times (5-13, 13-21, 21-29), capped: S0 and S2 done; S1's last attempt a valid step that failed
    # and was never retried: executed (3 of 5), not an invalid step
    ("planner", ("S1:transientx3",), (False, 0.6, 0, 2, 0, 0, None, 5, 1, 29.0, "failure", 0)),
    # S2 fails at 8 while S1 runs and no new goal is given: everything is void, S0 included (distance 1)
    ("planner", ("S2:goal_change",), (False, 0.0, 0, 0, 0, 1, None, 3, 1, 8.0, "failure", 1)),
    # direct: S3 fails at 22, its result shows S1's fact gone: S1 redone 22-30, S3 30-36, S4 36-46; a call per
    # step call (7); S1 was done when voided: one hop back from S3, one step of work voided
    ("direct", ("S3:withdraw",), (True, 1.0, 0, 2, 0, 1, 17.0, 7, 7, 46.0, "goal_success", 1)),
    # workflow stops at the side effect: S0..S3 done, S4 ran as a valid step and failed (executed: 5 of 5);
    # a fixed script calls no model
    ("workflow", ("S4:side_effect",), (False, 1.0, 0, 0, 0, 0, None, 5, 0, 29.0, "failure", 0)),
]


@pytest.mark.parametrize("strategy, faults, expected", TABLE, ids=lambda v: str(v))
def test_metrics_on_the_worked_example(cache_plan, strategy, faults, expected):
    m = metrics(simulate(cache_plan, faults=[Fault.parse(f) for f in faults], strategy=strategy))
    assert m == Metrics(*expected)


def test_direct_in_a_bad_file_order_starts_nothing_unready(cache_plan):
    shuffled = cache_plan.replace(steps=[cache_plan.steps[i] for i in (0, 3, 1, 2, 4)])
    m = metrics(simulate(shuffled, strategy="direct"))
    # S3 is listed before S1 and S2, which it needs: the agent calls it once it holds their results
    assert (m.precondition_errors, m.executability, m.success, m.tool_calls) == (0, 1.0, True, 5)


def test_metrics_of_a_recorded_run_count_off_plan_and_repeated_steps():
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", produces="x"),
            Step("B", "b", expected_evidence="e", depends_on="A", requires="x", produces="y"),
        ],
    )
    rec = Recorder(clock=lambda: 1.0)
    rec.propose(plan)
    rec.start("B")  # not ready: a precondition error
    rec.fail("B", "x missing", "unmet_precondition")
    rec.start("rm -rf cache")  # not a step of the plan: an invalid step
    rec.fail("rm -rf cache", "not in the plan", "tool_error")
    rec.start("A")
    rec.complete("A")
    rec.start("B")
    rec.complete("B")
    rec.stop("plan_complete")
    m = metrics(rec.run)
    assert (m.precondition_errors, m.duplicate_steps, m.tool_calls, m.success, m.model_calls) == (
        1,
        2,
        4,
        True,
        1,
    )
    assert attribution(rec.run).party is None  # it succeeded: nothing to blame


def test_a_recorded_failure_with_an_unready_start_is_the_executors():
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", produces="x"),
            Step("B", "b", expected_evidence="e", depends_on="A", requires="x", produces="y"),
        ],
    )
    rec = Recorder(clock=lambda: 1.0)
    rec.propose(plan)
    rec.start("B")
    rec.fail("B", "x missing", "unmet_precondition")
    rec.stop("step_failed")
    assert attribution(rec.run).party == "executor"


@pytest.mark.parametrize("depends_on", ["ghost", "A"])  # a missing step; a cycle
def test_metrics_of_a_recorded_run_whose_plan_has_no_schedule(depends_on):
    plan = Plan("g", [Step("A", "a", expected_evidence="e", depends_on=depends_on)])
    rec = Recorder(clock=lambda: 1.0)
    rec.propose(plan)
    rec.stop("plan_complete")
    m = metrics(rec.run)
    assert (m.success, m.critical_path_delay, m.time) == (True, None, 1.0)
    assert attribution(rec.run).party is None
    failed = Recorder(clock=lambda: 1.0)
    failed.propose(plan)
    failed.stop("blocked")
    assert attribution(failed.run).party == "planner"  # its plan is broken


def test_metrics_render():
    m = Metrics(True, 0.8, 1, 2, 1, 1, None, 7, 2, 45.0, "goal_success", 1)
    assert m.to_dict()["critical_path_delay"] is None and list(m.to_dict())[0] == "success"
    text = m.to_text()
    # a completed run whose delay cannot be told (a model call's time unknown): unknown; a run that failed: none
    assert (
        "executability        0.80" in text
        and "critical_path_delay  unknown" in text
        and "success              yes" in text
    )
    assert (
        "critical_path_delay  -"
        in Metrics(False, 0.8, 1, 2, 1, 1, None, 7, 2, 45.0, "failure", 0).to_text()
    )
    html = m._repr_html_()
    assert html.count("<tr>") == 12 and "<td>45</td>" in html
    assert set(Metrics.describe()) == set(m.to_dict())


@pytest.mark.parametrize(
    "strategy, faults, contract, expected",
    [
        ("planner", (), None, None),  # success: nothing to attribute
        # infeasible: a correct refusal
        (
            "planner",
            (),
            Contract(obtainable_facts=["leak_reproduced"]),
            None,
        ),
        ("workflow", ("S4:side_effect",), Contract(required=["deploy"]), "planner"),
        ("planner", ("S1:missing_evidence",), None, "executor"),
        ("planner", ("S3:tool_error",), None, "executor"),
        ("planner", ("S2:extra_fact:tests_deleted",), None, "executor"),
        ("direct", ("S1:transientx3",), None, "executor"),
        ("planner", ("S4:side_effect",), None, None),  # recovered: a success
        ("planner", ("S3:withdraw",), None, None),
        # the verification did not show the evidence
        (
            "planner",
            ("S4:side_effectx3",),
            None,
            "executor",
        ),
        ("planner", ("S1:premise_false",), None, "environment"),
        ("workflow", ("S1:transientx3",), None, "executor"),
        ("workflow", ("S3:withdraw",), None, "environment"),
        ("planner", ("S2:goal_change",), None, "environment"),
        (
            "workflow",
            ("S4:side_effect",),
            Contract(obtainable_facts=["leak_reproduced"]),
            "contract",
        ),
    ],
)
def test_attribute(cache_plan, strategy, faults, contract, expected):
    run = simulate(cache_plan, contract, faults=[Fault.parse(f) for f in faults], strategy=strategy)
    assert attribution(run, contract).party == expected


def test_a_plan_vouching_for_its_own_facts_is_the_planners_and_an_infeasible_contract_is_not():
    from planviz import examples

    release = examples.load("release_no_credentials")
    # infeasible: a correct refusal is a result, not a failure
    assert attribution(simulate(release)).party is None
    vouched = release.replace(premises=(*release.premises, "deploy_credentials"))
    run = simulate(vouched)
    assert run.outcome == "refused" and run.events[-1].category == "unsupported_premise"
    assert attribution(run).party == "planner"
    # no checks: it "succeeds"
    assert attribution(simulate(vouched, strategy="workflow")).party is None


# Seed 000's tree, branch by branch (issue 23.6): did the plan pass the contract? did the steps produce
# the evidence they declared? was a fact withdrawn mid-run? else the contract was too weak.
def test_attribution_success_is_no_ones(cache_plan):
    why = attribution(simulate(cache_plan))
    assert why.party is None and "plan_complete" in why.reason


def test_attribution_a_correct_infeasibility_refusal_is_no_ones_with_the_reason_kept():
    from planviz import examples

    run = simulate(examples.load("release_no_credentials"))
    why = attribution(run)
    assert attribution(run).party is None and why.party is None
    assert "infeasible_fact" in why.reason and "deploy_credentials" in why.reason


def test_attribution_a_plan_failing_the_contract_is_the_planners(cache_plan):
    run = simulate(
        cache_plan,
        Contract(required=["deploy"]),
        strategy="workflow",
        faults=[Fault("S4", "side_effect")],
    )
    why = attribution(run, Contract(required=["deploy"]))
    assert why.party == "planner" and "missing_required" in why.reason


def test_attribution_a_side_effect_found_by_verification_is_the_executors(cache_plan):
    run = simulate(cache_plan, faults=[Fault("S4", "side_effect", times=3)])
    why = attribution(run)
    assert run.outcome == "replan_limit" and why.party == "executor" and "'S4'" in why.reason


def test_attribution_a_fact_withdrawn_mid_run_is_the_environments(cache_plan):
    run = simulate(
        cache_plan, faults=[Fault("S3", "withdraw", "key_builder_located")], strategy="workflow"
    )
    why = attribution(run)
    assert why.party == "environment" and "key_builder_located" in why.reason


def test_attribution_every_step_with_its_evidence_and_the_goal_still_failed_is_the_contracts(
    cache_plan,
):
    run = simulate(cache_plan)
    assert attribution(run).party is None  # nobody said the goal failed
    why = attribution(run, goal_met=False)
    assert why.party == "contract" and "too weak" in why.reason
    assert attribution(run, goal_met=False).party == "contract"
    recovered = simulate(cache_plan, faults=[Fault("S4", "side_effect")])
    # a step did not produce its evidence on the way
    assert attribution(recovered, goal_met=False).party == "executor"


def test_compare_runs_each_strategy_on_the_same_faults(cache_plan):
    table = compare_strategies(cache_plan, [Fault("S4", "side_effect")])
    assert isinstance(table, StrategyComparison) and [r.strategy for r in table.rows] == [
        "direct",
        "workflow",
        "planner",
    ]
    planner = table.rows[-1]
    assert planner.metrics == metrics(simulate(cache_plan, faults=[Fault("S4", "side_effect")]))
    # the direct agent redoes the patch the side effect spoiled; the fixed workflow stops
    assert [r.outcome for r in table.rows] == ["plan_complete", "step_failed", "plan_complete"]
    # a side effect: no evidence
    assert [r.attribution for r in table.rows] == [
        None,
        "executor",
        None,
    ]
    text = table.to_text().splitlines()
    assert text[0] == "faults: S4:side_effect"
    assert text[1].split()[:3] == ["strategy", "outcome", "success"]
    assert text[-1].split()[:4] == ["planner", "plan_complete", "yes", "1.00"]
    d = table.to_dict()
    assert (
        d["faults"] == ["S4:side_effect"]
        and d["rows"][2]["replans"] == 1
        and d["rows"][1]["success"] is False
    )
    one = compare_strategies(cache_plan, (), strategies=("planner",), workers=1)
    assert len(one.rows) == 1 and one.rows[0].metrics.time == 32.0


def test_compare_html_escapes_plan_text():
    plan = Plan("g", [Step("A", "a", expected_evidence="e", produces="x")])
    table = compare_strategies(plan, [Fault("A", "extra_fact", "<script>alert(1)</script>")])
    html = table._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert html.count("<tr>") == 1 + 3


def diamond() -> Plan:
    """A -> B, A -> C, (B, C) -> D; D also needs A's fact, which a fault withdraws."""
    return Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", produces="a", duration=1),
            Step(
                "B",
                "b",
                expected_evidence="e",
                depends_on="A",
                requires="a",
                produces="b",
                duration=1,
            ),
            Step(
                "C",
                "c",
                expected_evidence="e",
                depends_on="A",
                requires="a",
                produces="c",
                duration=1,
            ),
            Step(
                "D",
                "d",
                expected_evidence="e",
                depends_on=["B", "C"],
                requires=["a", "b", "c"],
                produces="d",
                duration=1,
            ),
        ],
    )


def test_recovery_distance_is_hops_back_and_work_voided_its_own_figure():
    run = simulate(diamond(), faults=[Fault("D", "withdraw", "a")])
    [inv] = [e for e in run.events if e.kind == "invalidate"]
    # read from the event: A's work is redone
    assert inv.step == "D" and {"A", "B", "C"} <= inv.voided
    m = metrics(run)
    # D -> B -> A: two hops back to the re-run point A; A, B and C were done and are voided
    assert (m.recovery_distance, m.work_voided, m.success) == (2, 3, True)


def test_a_step_the_plan_lists_twice_is_no_duplicate():
    # as WorFBench writes it: steps ordered by edges only, the same action twice
    plan = Plan(
        "wash",
        [
            Step("1", "go to toilet", expected_evidence="e"),
            Step("2", "wash hands", expected_evidence="e", depends_on="1"),
            Step("3", "go to toilet", expected_evidence="e", depends_on="2"),
        ],
    )
    assert metrics(simulate(plan)).duplicate_steps == 0
    # the retry
    assert metrics(simulate(plan, faults=[Fault("3", "transient")])).duplicate_steps == 1


@pytest.mark.parametrize(
    "faults", [(), ("S4:side_effect",), ("S3:withdraw",), ("S1:transient",), ("S4:goal_change",)]
)
def test_metrics_read_the_state_before_each_start_from_the_changes(cache_plan, faults, monkeypatch):
    """One pass over the events, the statuses and facts before each start read as they change: a frame per plan
    version, and one before each recovery (not one or two per start); a version whose statuses the run keeps in
    a log (a replan's) is read from its frames."""
    from planviz.runs.events import Run
    from planviz.runs.frames import logged_version

    run = simulate(cache_plan, faults=[Fault(*f.split(":")) for f in faults], strategy="planner")
    expected = metrics(run)
    read = []
    frame = Run.frame
    monkeypatch.setattr(Run, "frame", lambda self, i: read.append(i) or frame(self, i))
    assert metrics(run) == expected
    firsts = [
        i
        for i, e in enumerate(run.events)
        if not i or e.plan_version != run.events[i - 1].plan_version
    ]
    logged = {
        i
        for k, first in enumerate(firsts)
        if logged_version(run.events[first])
        for i in range(first, (firsts + [len(run.events)])[k + 1])
    }
    recoveries = sum(e.kind in ("invalidate", "recheck") for e in run.events)
    starts = sum(e.kind == "start" for e in run.events)
    # a logged version's starts read a frame per dependency (of at most two here)
    logged_reads = sum(2 for i in logged if run.events[i].kind == "start")
    assert len(read) <= len(firsts) + 2 * recoveries + logged_reads
    assert len(firsts) + 2 * recoveries < starts


def test_metrics_reads_the_facts_held_only_for_a_step_that_requires_some(monkeypatch):
    from planviz.runs.events import Event

    free = Plan(
        "g",
        [
            Step("a", "get a", expected_evidence="e", produces="x"),
            Step("b", "use a", expected_evidence="e", depends_on="a"),
        ],
    )
    needy = Plan(
        "g",
        [
            Step("a", "get a", expected_evidence="e", produces="x"),
            Step("b", "use a", expected_evidence="e", depends_on="a", requires="x"),
        ],
    )
    runs = [simulate(free), simulate(needy)]
    expected = [metrics(run) for run in runs]
    reads: list[int] = []
    gained = Event.gained
    monkeypatch.setattr(
        Event, "gained", property(lambda e: reads.append(e.index) or gained.__get__(e, Event))
    )
    assert metrics(runs[0]) == expected[0] and reads == []  # no step requires a fact
    assert metrics(runs[1]) == expected[1] and reads  # b requires x: the facts are read
