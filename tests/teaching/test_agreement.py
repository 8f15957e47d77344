"""The random plans a student's function is checked on, and how the first disagreement is found."""

from __future__ import annotations

import networkx as nx

from planviz import to_graph
from planviz.teaching.agreement import ancestor_cases, first_disagreement, random_plans, reach_cases


def test_plans_are_acyclic_small_first_and_deterministic():
    plans = random_plans(300)
    assert all(nx.is_directed_acyclic_graph(to_graph(p)) for p in plans)
    sizes = [len(p.steps) for p in plans]
    assert sizes == sorted(sizes) and sizes[0] == 1 and sizes[-1] == 8
    assert random_plans(300) == plans


def test_file_order_is_not_dependency_order():
    """Some plans list a step before one of its dependencies, so trusting the file order is caught."""
    assert any(
        p.ids.index(d) > p.ids.index(s.id)
        for p in random_plans(300)
        for s in p.steps
        for d in s.depends_on
    )


def test_reach_cases_cover_withdrawn_facts_and_waiting_on_each_other():
    cases = reach_cases()
    withdrawn = [c for c in cases if {f for s in c[1] for f in c[0].step(s).produces} - c[2]]
    assert len(withdrawn) >= 30
    for plan, completed, _ in cases:  # a completed step's dependencies are completed too
        assert all(set(plan.step(s).depends_on) <= completed for s in completed)


def test_ancestor_cases_ask_about_every_step():
    cases = ancestor_cases(20)
    assert {(id(p), s) for p, s in cases} == {
        (id(p), s) for p in {id(p): p for p, _ in cases}.values() for s in p.ids
    }


def test_first_disagreement_returns_the_exception_it_met():
    def boom(x):
        raise KeyError(x)

    case, expected, got = first_disagreement([(1,)], boom, lambda x: x)
    assert case == (1,) and expected == 1 and isinstance(got, KeyError)
    assert first_disagreement([(1,), (2,)], lambda x: x, lambda x: x) is None


def _seen_ids(check, ask):
    """The step ids a build-it's check showed the student's function, and the feedback it gave."""
    seen: list[tuple[str, ...]] = []

    def student(plan, *rest):
        seen.append(plan.ids)
        return ask(plan, *rest)

    return seen, check(student)


def test_each_check_call_asks_under_fresh_names_in_their_natural_order_and_shows_them():
    """A table of the library's answers made before the check (keyed on the plan's ids) cannot know the names a
    call draws: two calls show other ids than the importable cases, and than each other; the order is kept, and
    the verdict shows the plan under the names the student's function was asked with."""
    from planviz.teaching import lesson01

    parents = lambda plan, sid: set(plan.step(sid).depends_on)  # noqa: E731 (wrong: the direct parents only)
    first, feedback = _seen_ids(lesson01.check_ancestors, parents)
    second, _ = _seen_ids(lesson01.check_ancestors, parents)
    fixed = [plan.ids for plan, _ in ancestor_cases()]
    assert first[:50] != fixed[:50] and first[:50] != second[:50]
    # the same plan: as many steps, in the same natural order
    for ours, theirs in zip(first, fixed):
        rank = sorted(theirs)
        assert [sorted(ours).index(o) for o in ours] == [rank.index(t) for t in theirs]
    assert not feedback.passed
    shown = {line.split()[0] for line in feedback.message.splitlines() if line.startswith("  ")}
    number = int(feedback.message.split("question ")[1].split()[0])
    assert shown == set(first[number - 1]) and set(first[number - 1]) != set(fixed[number - 1]), (
        feedback.message
    )


def test_a_lookup_table_of_the_fixed_cases_fails():
    """The hole the answer bank found: answers computed before the check, looked up while it runs (nothing of
    the library is called then, so the tripwire cannot see it)."""
    from planviz.teaching import lesson01

    table = {
        (tuple(sorted((s.id, s.depends_on) for s in plan.steps)), sid): nx.ancestors(
            to_graph(plan), sid
        )
        for plan, sid in ancestor_cases()
    }
    feedback = lesson01.check_ancestors(
        lambda plan, sid: table[(tuple(sorted((s.id, s.depends_on) for s in plan.steps)), sid)]
    )
    assert not feedback.passed and "KeyError" in feedback.message


def test_a_renamed_goal_tells_nothing_of_which_seeded_plan_was_asked():
    """The goal's number is drawn afresh, not computed from the old one: no arithmetic on it (``// 1000``, ``%``
    a constant) finds the seeded plan's index, and two goals keep two numbers."""
    from planviz.teaching.agreement import fresh_names

    plans = random_plans(300)
    asked = [plan for (plan,) in fresh_names([(p,) for p in plans])]
    k = [int(p.goal.rsplit(" ", 1)[1]) for p in plans]
    new = [int(p.goal.rsplit(" ", 1)[1]) for p in asked]
    assert len(set(new)) == len(set(k))
    for read in (lambda n: n // 1000, lambda n: n % 1000, lambda n: n // 1000 - 1):
        assert sum(read(n) == old for n, old in zip(new, k)) < 10
    # ordered goals would hand out the index too
    assert sorted(new) != new
