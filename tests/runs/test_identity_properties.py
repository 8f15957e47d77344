"""Identity is content (issue 23.3), as a property of runs: renaming every id, reordering the plan file and
re-issuing the same work under any new ids change nothing a run measures (outcome, what ran when, duplicate
work, how often a fault with ``times > 1`` strikes, how many revisions).

The new names keep the ids' order: events of one instant are taken lowest id first (a deterministic tie-break,
not identity), so a rename that reorders them may legitimately reorder what happens at one instant."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings, strategies as st

from planviz import Plan, metrics, simulate
from planviz.plan.model import natural_key
from tests.strategies import plans_and_faults

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def renamed(plan: Plan, new: dict[str, str]) -> Plan:
    return plan.replace(
        steps=tuple(
            replace(s, id=new[s.id], depends_on=tuple(new.get(d, d) for d in s.depends_on))
            for s in plan.steps
        )
    )


def what_ran(run, back=lambda sid: sid):
    """(time, kind, step) of every start, completion, failure and retry, steps named by ``back``, in time order."""
    return sorted(
        (e.time, e.kind, back(e.step))
        for e in run.events
        if e.kind in ("start", "complete", "fail", "retry")
    )


def measures(run):
    return (
        run.outcome,
        metrics(run).duplicate_steps,
        sum(e.kind == "fail" for e in run.events),
        len(run.plans),
    )


@SETTINGS
@given(plans_and_faults(), st.randoms(use_true_random=False))
def test_renaming_every_id_and_reordering_the_file_change_nothing_a_run_measures(pf, rnd):
    plan, faults = pf
    ranks = sorted(rnd.sample(range(1000), len(plan)))  # new names, in the order of the old ones
    new = {
        sid: f"w{k:03d}{rnd.choice('abqxz')}"
        for sid, k in zip(sorted(plan.ids, key=natural_key), ranks)
    }
    old = {v: k for k, v in new.items()}
    steps = list(renamed(plan, new).steps)
    rnd.shuffle(steps)
    other = simulate(
        plan.replace(steps=tuple(steps)), faults=[replace(f, step=new[f.step]) for f in faults]
    )
    run = simulate(plan, faults=faults)

    def back(sid):  # a re-issued id is the old one's root plus '.vN'
        root, dot, rest = sid.partition(".v")
        return old.get(root, root) + dot + rest

    assert measures(other) == measures(run)
    assert what_ran(other, back) == what_ran(run)


def copier(name, lineage: bool):
    """A replanner that re-issues every unfinished step unchanged, under ``name(id, version)``; with ``lineage``
    each copy says which step it ``revises`` (the old code's only way to know it was the same work)."""

    def propose(goal, contract, state, plan):
        left = [s for s in plan.steps if s.id not in state.completed]
        new = {s.id: name(s.id, plan.version + 1) for s in left}
        steps = [s for s in plan.steps if s.id in state.completed]
        steps += [
            replace(
                s,
                id=new[s.id],
                revises=(s.revises or s.id) if lineage else None,
                depends_on=tuple(new.get(d, d) for d in s.depends_on),
            )
            for s in left
        ]
        return Plan(plan.goal, steps, premises=plan.premises)

    return propose


@SETTINGS
@given(plans_and_faults(), st.integers(0, 10**6))
def test_the_same_work_reissued_under_any_ids_is_measured_the_same(pf, salt):
    plan, faults = pf
    lineage = simulate(
        plan, faults=faults, propose=copier(lambda sid, v: f"{sid.split('.')[0]}.v{v}", True)
    )
    fresh = simulate(
        plan,
        faults=faults,
        propose=copier(lambda sid, v: f"new{salt}_{sid.split('.')[0]}_{v}", False),
    )
    # a fault with times > 1 strikes the copy under any id
    assert measures(fresh) == measures(lineage)
    assert [(t, k) for t, k, _ in what_ran(fresh)] == [(t, k) for t, k, _ in what_ran(lineage)]
