"""Identity by normalised content (issue 40.2): the same work under any id and any spelling of its action."""

from __future__ import annotations

from dataclasses import replace

import pytest

from planviz import Fault, Plan, Step, examples, metrics, simulate
from planviz.plan.identity import folded_action, work_key

SPELLINGS = [
    lambda a, t: a + ".",
    lambda a, t: a + " ",
    lambda a, t: a.upper(),
    lambda a, t: a.lower(),
    lambda a, t: f"{t}: {a}",
    lambda a, t: f"{a} ({t})",
    lambda a, t: a.replace(" ", "  "),
    lambda a, t: f"[{t}] {a.swapcase()}!",
]


@pytest.mark.parametrize("spell", range(len(SPELLINGS)))
def test_a_respelled_copy_meets_the_same_fault_and_counts_as_repeated_work(spell):
    cache = examples.load("cache_isolation")
    cache = cache.replace(
        steps=tuple(
            replace(s, tool="edit_file" if s.id == "S3" else "run_tests") for s in cache.steps
        )
    )

    def copy(goal, contract, state, plan):
        left = [s for s in plan.steps if s.id not in state.completed]
        new = {s.id: f"N{plan.version}{s.id}" for s in left}
        steps = [s for s in plan.steps if s.id in state.completed]
        steps += [
            replace(
                s,
                id=new[s.id],
                action=SPELLINGS[spell](s.action, s.tool),
                depends_on=tuple(new.get(d, d) for d in s.depends_on),
            )
            for s in left
        ]
        return plan.replace(steps=tuple(steps))

    run = simulate(cache, faults=[Fault("S4", "side_effect", times=10)], propose=copy)
    assert run.outcome == "replan_limit" and metrics(run).duplicate_steps == 4


def test_other_words_a_other_tool_or_other_facts_are_other_work():
    s = Step("A", "Verify isolation and hit rate", tool="run_tests", produces="ok")
    assert work_key(s) == work_key(
        replace(s, id="B", action="VERIFY isolation, and hit-rate. (run_tests)")
    )
    for other in (
        replace(s, action="Verify isolation"),
        replace(s, tool="run_suite"),
        replace(s, produces="ko"),
        replace(s, requires="x"),
        replace(s, arguments={"k": 1}),
    ):
        assert work_key(other) != work_key(s)
    assert (
        folded_action("run_tests now", "run_tests") == "now"
        and folded_action("run tests", None) == "run tests"
    )
    assert Plan is not None


def test_a_completed_step_respelled_under_its_id_is_the_same_work_and_is_kept():
    cache = examples.load("cache_isolation")

    def respell_s1(goal, contract, state, plan):
        from planviz import reissue

        again = reissue(plan, {"S3", "S4"}, "side effect")
        return again.replace(
            steps=tuple(
                replace(s, action=s.action.upper() + " .") if s.id == "S1" else s
                for s in again.steps
            )
        )

    run = simulate(cache, faults=[Fault("S4", "side_effect")], propose=respell_s1)
    assert run.outcome == "plan_complete" and run.plans[-1].step("S1").action.endswith(" .")
