"""No cheat does better than the honest plan under the same faults (issue 40.7), family by family."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.rules.cheats import FAMILIES, HONEST, cheats, gains

QUICK, SLOW = 520, 3000


def _failures(found):
    out = []
    for c in found:
        won = gains(c)
        if won is not None:
            out.append(f"[{c.family}] {c.label}: {won}")
    return out


def test_the_generator_covers_every_family_with_500_cheats():
    found = cheats(QUICK)
    assert len(found) >= 500
    assert set(Counter(c.family for c in found)) == set(FAMILIES)


@pytest.mark.parametrize("family", FAMILIES)
def test_no_cheat_improves_on_the_honest_run(family):
    found = [c for c in cheats(QUICK) if c.family == family]
    failures = _failures(found)
    assert not failures, f"{len(failures)} of {len(found)} {family} cheats gain:\n" + "\n".join(
        failures[:15]
    )


@pytest.mark.parametrize("family", HONEST)
def test_an_honest_variant_loses_nothing(family):
    """Honest variants (the re-issue in another file order) end as the honest run does, with the same metrics:
    the rules refuse what a plan does, never how it is written down."""
    from planviz import metrics

    lost = []
    for c in (c for c in cheats(QUICK) if c.family == family):
        a, b = c.cheat.run(), c.honest.run()
        if (a.outcome, metrics(a)) != (b.outcome, metrics(b)):
            lost.append(f"[{family}] {c.label}: {a.outcome} vs {b.outcome}")
    assert not lost, "\n".join(lost[:15])


@pytest.mark.slow
def test_no_cheat_improves_on_the_honest_run_many_seeds():
    failures = _failures(cheats(SLOW, seed=4040))
    assert not failures, f"{len(failures)} cheats gain:\n" + "\n".join(failures[:30])


def test_a_silent_executor_is_never_certified():
    """Family silent_executor (issue 40.5): whatever the plan's produces say, an executor that withholds
    declared evidence gets a lower evidence rate than the honest one and the blame."""
    from planviz import frozen_plan_test
    from tests.rules.cheats import silent_executors

    failures = []
    for label, plan, faults in silent_executors(60):
        honest, cheat = frozen_plan_test(plan), frozen_plan_test(plan, faults=faults)
        if cheat.evidence_rate >= honest.evidence_rate or cheat.attribution is None:
            failures.append(
                f"[silent_executor] {label}: rate {cheat.evidence_rate} vs {honest.evidence_rate}, "
                f"attribution {cheat.attribution}"
            )
    assert not failures, "\n".join(failures[:15])


def test_no_capstone_answer_that_still_acts_passes_as_read_only():
    """Family capstone_rename (issue 40.6): the exercise is checked by what the plan does, not by names."""
    from planviz.teaching.lesson08 import check_exercise_2
    from tests.rules.cheats import capstone_cheats

    passed = [
        label for label, plan, contract in capstone_cheats(80) if check_exercise_2(plan, contract)
    ]
    assert not passed, f"{len(passed)} capstone cheats pass: {passed[:10]}"
