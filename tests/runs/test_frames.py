"""Frames from snapshots plus deltas reproduce exactly what full copies gave (a reference machine in this test)."""

from __future__ import annotations

import copy
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planviz import Fault, Observation, Recorder, Step, reachable, simulate
from planviz.errors import FrameIndexError, SimulationError
from planviz.runs.engine import machine as machine_module, simulation as simulation_module
from planviz.runs.frames import FrameStore
from planviz.structure.index import structure_index
from planviz.traces.own import recorder as recorder_module
from tests.strategies import plans as random_plans, plans_and_faults as random_plans_and_faults

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference_statuses(m) -> dict[str, str]:
    """Every status derived from scratch from the machine's state, as the full-copy machine did at each event."""
    plan = m.plan
    if plan is None:
        return {}
    ix = structure_index(plan)
    steps = ix.steps
    waiting = {sid for sid, s in steps.items() if any(d not in steps for d in s.depends_on)}
    broken = ix.descendants(waiting) if waiting else set()
    runnable = (
        plan.replace(steps=tuple(s for s in plan.steps if s.id not in broken)) if broken else plan
    )
    done = {sid for sid in steps if sid in m.completed}
    reach = reachable(runnable, done, set(m.sources)).steps
    doomed = broken | (ix.descendants(m.dead & set(steps)) if m.dead else set())
    out = {}
    for sid, step in steps.items():
        if sid in done:
            out[sid] = "done"
        elif sid in m.running or sid in m.interrupted:
            out[sid] = "running"
        elif sid in m.failed:
            out[sid] = "failed"
        elif sid in m.voided:
            out[sid] = "invalidated"
        elif sid in doomed or sid not in reach:
            out[sid] = "blocked"
        elif all(d in done for d in step.depends_on) and all(f in m.sources for f in step.requires):
            out[sid] = "ready"
        else:
            out[sid] = "pending"
    return out


class ReferenceMachine(machine_module.Machine):
    """The machine, plus a full copy of the state computed from scratch at every event."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.copies: list[tuple[dict[str, str], frozenset[str]]] = []

    def _emit(self, kind, step, message, **extra):
        self.copies.append((reference_statuses(self), frozenset(self.sources)))
        return super()._emit(kind, step, message, **extra)


@contextmanager
def recording(module):
    """While active, every Machine the module makes is a ReferenceMachine; yields the list of them."""
    made: list[ReferenceMachine] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(
            module, "Machine", lambda *args: made.append(ReferenceMachine(*args)) or made[-1]
        )
        yield made


def assert_frames_match(run, copies) -> None:
    assert len(copies) == len(run.events)
    marks_version, voided, kept, conflicted = None, frozenset(), frozenset(), set()
    for i, (e, (statuses, facts)) in enumerate(zip(run.events, copies)):
        f = run.frame(i)
        assert dict(f.statuses) == statuses, i
        assert f.facts == facts and len(f.facts) == len(facts) and set(f.facts) == facts, i
        assert f.ready == {s for s, v in statuses.items() if v == "ready"}, i
        assert len(f.ready) == sum(v == "ready" for v in statuses.values()), i
        assert all((s in f.ready) == (v == "ready") for s, v in statuses.items()), i
        if e.plan_version != marks_version:
            marks_version, voided, kept, conflicted = (
                e.plan_version,
                frozenset(),
                frozenset(),
                set(),
            )
        if e.kind == "invalidate":
            voided, kept = e.voided, e.kept
        elif e.kind == "conflict" and e.step:
            conflicted.add(e.step)
        assert (f.voided, f.kept, f.conflicted) == (voided, kept, conflicted), i
        assert len(f.conflicted) == len(conflicted)
        delta = run.delta(i)
        before = run.frame(i - 1) if i else None
        assert delta.new_version == (not i or run.events[i - 1].plan_version != e.plan_version), i
        if delta.new_version:
            assert delta.steps == set(statuses), i
        else:
            moved = {s for s in statuses if before.statuses[s] != statuses[s]}
            moved |= (
                (before.voided ^ f.voided)
                | (before.kept ^ f.kept)
                | (set(f.conflicted) - set(before.conflicted))
            )
            assert moved & set(statuses) <= delta.steps <= set(statuses), i
        held = copies[i - 1][1] if i else frozenset()
        assert (delta.gained, delta.lost) == (facts - held, held - facts), i
        ready_before = set(before.ready) if before is not None else set()
        assert (delta.ready_in, delta.ready_out) == (
            set(f.ready) - ready_before,
            ready_before - set(f.ready),
        ), i
    # random access, in any order, gives the same frames
    for i in reversed(range(len(run.events))):
        assert dict(run.frame(i).statuses) == copies[i][0]


def plans():
    return random_plans(
        max_steps=9,
        durations=st.sampled_from([0, 1, 2, 2.5, 7]),
        strays=True,
        resources=st.sampled_from([[], [], ["db"]]),
        rollbacks=True,
    )


def plans_and_faults():
    return random_plans_and_faults(
        plans(), max_faults=4, extra_facts=("noise", "not f0", "not p", "f1", "x")
    )


@SETTINGS
@given(
    plans_and_faults(),
    st.sampled_from(["direct", "workflow", "planner"]),
    st.sampled_from([None, 1, 2]),
)
def test_simulated_frames_equal_full_copies(pf, strategy, workers):
    plan, faults = pf
    with recording(simulation_module) as made:
        run = simulate(plan, faults=faults, workers=workers, strategy=strategy)
    assert_frames_match(run, made[0].copies)


_OPS = st.lists(
    st.tuples(
        st.sampled_from(["start", "complete", "fail", "observe", "invalidate", "replan", "retry"]),
        st.integers(0, 20),
        st.integers(0, 20),
    ),
    max_size=25,
)


@SETTINGS
@given(plans(), _OPS, st.booleans())
def test_recorded_frames_equal_full_copies(plan, ops, stop):
    with recording(recorder_module) as made:
        rec = Recorder(clock=iter(range(1000)).__next__)
    rec.propose(plan)
    ids = list(plan.ids) + ["ghost"]
    facts = [f for s in plan.steps for f in s.produces] + ["p", "noise", "x"]
    for op, a, b in ops:
        sid = ids[a % len(ids)]
        try:
            if op == "start":
                rec.start(sid)
            elif op == "complete":
                rec.complete(sid)
            elif op == "fail":
                rec.fail(sid, "broke", "tool_error")
            elif op == "retry":
                rec.retry(sid)
            elif op == "observe":
                rec.observe(
                    sid,
                    Observation(
                        bool(b % 2), {facts[b % len(facts)]}, {facts[(a + b) % len(facts)]}
                    ),
                )
            elif op == "invalidate":
                rec.invalidate([sid, ids[b % len(ids)]], "voided by hand")
            else:
                keep = [s for s in rec.run.plan.steps if s.id != sid]
                rec.replan(
                    rec.run.plan.replace(
                        steps=keep + [Step(f"N{a}", "new", expected_evidence="e")]
                    ),
                    "why",
                )
        except SimulationError:
            pass
    if stop:
        rec.stop("blocked", "gave up")
    assert_frames_match(rec.run, made[0].copies)


def test_frames_read_like_full_copies(cache_plan):
    run = simulate(cache_plan, faults=[Fault("S4", "side_effect")])
    f = run.frame(-1)
    assert f.statuses == {
        "S0": "done",
        "S1": "done",
        "S2": "done",
        "S3.v2": "done",
        "S4.v2": "done",
    }
    assert f.ready == frozenset() and hash(f.facts) == hash(frozenset(f.facts))
    assert f.facts | {"x"} == frozenset(f.facts) | {"x"} and isinstance(f.facts | {"x"}, frozenset)
    assert "patch_applied" in f.facts and "nope" not in f.facts and 3 not in f.statuses
    inv = next(i for i, e in enumerate(run.events) if e.kind == "invalidate")
    assert run.frame(inv).voided == {"S3", "S4"} and "patch_applied" not in run.frame(inv).facts
    assert repr(run.frame(0).ready) == "frozenset(['S0'])"
    with pytest.raises(FrameIndexError, match="no event 99"):
        run.frame(99)


def test_events_hold_only_what_changed(cache_plan):
    run = simulate(cache_plan)
    assert len(run.events[0].changes) == len(cache_plan.ids)  # the snapshot
    assert all(len(e.changes) <= 3 for e in run.events[1:])
    with pytest.raises(AttributeError, match=r"run.frame\(3\).statuses"):
        _ = run.events[3].statuses
    with pytest.raises(AttributeError, match="run.conflicts"):
        _ = run.events[3].conflicts


@pytest.mark.parametrize(
    "events, match",
    [
        (
            [
                dict(plan_version=1, changes={"A": "ready"}),
                dict(plan_version=1, changes={"B": "done"}),
            ],
            "'B', which the snapshot of plan version 1 .event 0. does not list",
        ),
        (
            [
                dict(plan_version=1, changes={}, gained={"x"}),
                dict(plan_version=1, changes={}, gained={"x"}),
            ],
            "event 1 gains the fact 'x', which is already held",
        ),
        (
            [dict(plan_version=1, changes={}, lost={"x"})],
            "event 0 loses the fact 'x', which is not held",
        ),
    ],
)
def test_the_store_refuses_deltas_it_cannot_index(events, match):
    from types import SimpleNamespace

    store = FrameStore()
    with pytest.raises(SimulationError, match=match):
        for e in events:
            store.append(
                SimpleNamespace(
                    **{
                        "gained": (),
                        "lost": (),
                        "kind": "start",
                        "step": None,
                        "voided": (),
                        "kept": (),
                        **e,
                    }
                )
            )


def _stores(run):
    """The run's frames indexed event by event (append) and in one pass (extend)."""
    one, bulk = FrameStore(), FrameStore()
    for e in run.events:
        one.append(e)
    bulk.extend(run.events)
    return one, bulk


@SETTINGS
@given(plans_and_faults(), st.sampled_from(["direct", "workflow", "planner"]))
def test_extend_indexes_every_event_as_append_does(pf, strategy):
    plan, faults = pf
    run = simulate(plan, faults=faults, strategy=strategy)
    one, bulk = _stores(run)
    assert len(bulk) == len(one) == len(run.events)
    for i in range(len(run.events)):
        a, b = one.views(i), bulk.views(i)
        assert dict(a[0]) == dict(b[0]) and tuple(map(frozenset, a[1:])) == tuple(
            map(frozenset, b[1:])
        )
    # and the one-pass deltas are each event's delta
    assert bulk.deltas(run.events) == tuple(one.delta(i, e) for i, e in enumerate(run.events))


@pytest.mark.parametrize(
    "events, match",
    [
        (
            [
                dict(plan_version=1, changes={"A": "ready"}),
                dict(plan_version=1, changes={"B": "done"}),
            ],
            "'B', which the snapshot of plan version 1 .event 0. does not list",
        ),
        (
            [
                dict(plan_version=1, changes={"A": "ready"}),
                dict(plan_version=1, changes={}, gained={"x"}),
                dict(plan_version=1, changes={}, gained={"x"}),
            ],
            "event 2 gains the fact 'x', which is already held",
        ),
        (
            [dict(plan_version=1, changes={"A": "ready"}), dict(plan_version=1, lost={"x"})],
            "event 1 loses the fact 'x', which is not held",
        ),
    ],
)
def test_extend_refuses_what_append_refuses(events, match):
    from types import SimpleNamespace

    store = FrameStore()
    base = {"changes": {}, "gained": (), "lost": (), "kind": "start", "step": None}
    with pytest.raises(SimulationError, match=match):
        store.extend(SimpleNamespace(**{**base, "voided": (), "kept": (), **e}) for e in events)


@SETTINGS
@given(plans_and_faults(), st.sampled_from(["direct", "workflow", "planner"]))
def test_only_marking_kinds_change_voided_kept_and_not_run(pf, strategy):
    """What the report's delta table relies on to restyle group nodes without reading a frame per event."""
    from planviz.runs.frames import MARKING_KINDS, logged_version

    plan, faults = pf
    run = simulate(plan, faults=faults, strategy=strategy)
    assert not logged_version(run.events[0])
    for i in range(1, len(run.events)):
        e, before = run.events[i], run.events[i - 1]
        if e.kind in MARKING_KINDS or e.plan_version != before.plan_version:
            continue
        now, then = run.frame(i), run.frame(i - 1)
        assert (now.voided, now.kept, now.not_run) == (then.voided, then.kept, then.not_run)


def _assert_rows_made_while_indexing(run):
    """The rows made in the indexing pass (FrameStore.indexed_rows, and Run.delta_rows of a run whose frames were
    never read) are the rows read after indexing, and the store the same."""
    one = FrameStore()
    one.extend(run.events)
    expected = list(one.rows(run.events))
    two = FrameStore()
    assert two.indexed_rows(run.events) == expected
    for i in range(len(run.events)):
        a, b = one.views(i), two.views(i)
        assert dict(a[0]) == dict(b[0]) and tuple(map(frozenset, a[1:])) == tuple(
            map(frozenset, b[1:])
        )
    fresh = copy.copy(run)  # (no store built yet)
    assert "_store" not in fresh.__dict__
    assert list(fresh.delta_rows()) == expected and list(fresh.delta_rows()) == expected
    assert fresh.deltas() == one.deltas(run.events)


@SETTINGS
@given(
    plans_and_faults(),
    st.sampled_from(["direct", "workflow", "planner"]),
    st.sampled_from([None, 1, 2]),
)
def test_rows_made_while_indexing_simulated_runs(pf, strategy, workers):
    plan, faults = pf
    _assert_rows_made_while_indexing(
        simulate(plan, faults=faults, workers=workers, strategy=strategy)
    )


@SETTINGS
@given(plans(), _OPS, st.booleans())
def test_rows_made_while_indexing_recorded_runs(plan, ops, stop):
    rec = Recorder(clock=iter(range(1000)).__next__)
    rec.propose(plan)
    ids = list(plan.ids) + ["ghost"]
    for op, a, b in ops:
        sid = ids[a % len(ids)]
        try:
            if op == "start":
                rec.start(sid)
            elif op in ("complete", "observe"):
                rec.complete(sid)
            elif op == "fail":
                rec.fail(sid, "broke", "tool_error")
            elif op == "retry":
                rec.retry(sid)
            elif op == "invalidate":
                rec.invalidate([sid, ids[b % len(ids)]], "voided by hand")
            else:
                keep = [s for s in rec.run.plan.steps if s.id != sid]
                rec.replan(rec.run.plan.replace(steps=keep + [Step(f"N{a}", "new")]), "why")
        except SimulationError:
            pass
    if stop:
        rec.stop("blocked", "gave up")
    _assert_rows_made_while_indexing(rec.run)
