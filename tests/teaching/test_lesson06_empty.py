"""Notebook 06's exercise 5 (seed 003): replanning on an empty result that has dependents. A teacher's answer
bank of recorded runs, each with its verdict; what each run did is written out event by event here."""

from __future__ import annotations

import pytest

import planviz
from planviz import Observation, Recorder
from planviz.teaching.lesson06 import check_exercise_5

PLAN = planviz.examples.load("cache_isolation")
DOWNSTREAM = {
    "S1": {"S1", "S3", "S4"},
    "S2": {"S2", "S3", "S4"},
    "S4": {"S4"},
    "S0": {"S0", "S1", "S2", "S3", "S4"},
}


def _record(script: list[tuple], outcome: str = "plan_complete") -> planviz.Run:
    """Each item: ("ok", id) completes with the step's facts; ("empty", id) observes nothing; ("some", id) one
    fact short; ("replan", id) voids id and what depends on it and proposes the re-issue; ("stop",) stops."""
    rec = Recorder(PLAN.contract, clock=iter(range(1000)).__next__)
    rec.propose(PLAN)
    for item in script:
        kind, sid = item[0], (item[1] if len(item) > 1 else None)
        if kind == "stop":
            rec.stop(
                outcome if outcome != "plan_complete" else "expected_evidence_missing", "stopped"
            )
            return rec.run
        if kind == "replan":
            plan = rec.run.plan
            voided = {
                s.id for s in plan.steps if s.id in DOWNSTREAM[sid] or s.revises in DOWNSTREAM[sid]
            } & set(plan.ids)
            rec.invalidate(voided, f"{sid} came back empty", step_id=sid)
            rec.replan(
                planviz.reissue(plan, voided, f"{sid} came back empty"), f"{sid} came back empty"
            )
            continue
        step = rec.run.plan.step(sid)
        facts = {"ok": set(step.produces), "empty": set(), "some": set(list(step.produces)[1:])}[
            kind
        ]
        rec.start(sid)
        rec.observe(sid, Observation(True, facts, data={}))
    rec.stop(outcome)
    return rec.run


GOOD = _record(
    [
        ("ok", "S0"),
        ("empty", "S1"),
        ("replan", "S1"),
        ("ok", "S1.v2"),
        ("ok", "S2"),
        ("ok", "S3.v2"),
        ("ok", "S4.v2"),
    ]
)
GOOD_S2_FIRST = _record(
    [
        ("ok", "S0"),
        ("ok", "S2"),
        ("empty", "S1"),
        ("replan", "S1"),
        ("ok", "S1.v2"),
        ("ok", "S3.v2"),
        ("ok", "S4.v2"),
    ]
)
GOOD_EMPTY_S2 = _record(
    [
        ("ok", "S0"),
        ("ok", "S1"),
        ("empty", "S2"),
        ("replan", "S2"),
        ("ok", "S2.v2"),
        ("ok", "S3.v2"),
        ("ok", "S4.v2"),
    ]
)
GOOD_TWICE = _record(
    [
        ("ok", "S0"),
        ("empty", "S1"),
        ("replan", "S1"),
        ("ok", "S1.v2"),
        ("empty", "S2"),
        ("replan", "S2"),
        ("ok", "S2.v3"),
        ("ok", "S3.v3"),
        ("ok", "S4.v3"),
    ]
)
STOPPED = _record([("ok", "S0"), ("empty", "S1"), ("stop",)], "expected_evidence_missing")
# S4 has no dependents
LEAF = _record(
    [
        ("ok", "S0"),
        ("ok", "S1"),
        ("ok", "S2"),
        ("ok", "S3"),
        ("empty", "S4"),
        ("replan", "S4"),
        ("ok", "S4.v2"),
    ]
)
SHORT = _record(
    [("ok", "S0"), ("ok", "S1"), ("ok", "S2"), ("ok", "S3"), ("some", "S4"), ("stop",)],
    "expected_evidence_missing",
)
NEVER_ASKED_AGAIN = _record(
    [("ok", "S0"), ("empty", "S1"), ("replan", "S1"), ("ok", "S2"), ("stop",)], "step_failed"
)
NOT_FINISHED = _record(
    [
        ("ok", "S0"),
        ("empty", "S1"),
        ("replan", "S1"),
        ("ok", "S1.v2"),
        ("ok", "S2"),
        ("ok", "S3.v2"),
        ("stop",),
    ],
    "step_failed",
)
NOTHING_WRONG = _record([("ok", "S0"), ("ok", "S1"), ("ok", "S2"), ("ok", "S3"), ("ok", "S4")])
SIMULATED = planviz.simulate(
    PLAN, faults=[planviz.Fault("S1", "missing_evidence", fact="key_builder_located")]
)


def test_the_runs_do_what_the_bank_says():
    kinds = [(e.kind, e.step) for e in GOOD.events]
    assert (
        kinds.index(("fail", "S1"))
        < [k for k, _ in kinds].index("replan")
        < kinds.index(("start", "S3.v2"))
    )
    assert GOOD.outcome == "plan_complete" and STOPPED.outcome != "plan_complete"
    # LEAF's empty step has no dependents
    assert not [s for s in PLAN.steps if "S4" in s.depends_on]


@pytest.fixture(scope="module")
def reloaded(tmp_path_factory):
    path = tmp_path_factory.mktemp("trace") / "empty.jsonl"
    planviz.save_trace(GOOD, path)
    return planviz.load_trace(path)


BANK = [
    ("GOOD", True),
    ("GOOD_S2_FIRST", True),
    ("GOOD_EMPTY_S2", True),
    ("GOOD_TWICE", True),
    ("RELOADED", True),
    ("STOPPED", False),
    ("LEAF", False),
    ("SHORT", False),
    ("NEVER_ASKED_AGAIN", False),
    ("NOT_FINISHED", False),
    ("NOTHING_WRONG", False),
    ("SIMULATED", False),
    ("PLAN", False),
    ("NONE", False),
    ("TEXT", False),
    ("NUMBER", False),
    ("EVENTS", False),
    ("LIST", False),
    ("DICT", False),
    ("RECORDER", False),
    ("GOOD_EVENTS_ONLY", False),
    ("TRACE_TEXT", False),
    ("ELLIPSIS", False),
    ("STOPPED_LIST", False),
    ("CLASS", False),
]


def _value(name: str, reloaded):
    rec = Recorder(PLAN.contract)
    return {
        "GOOD": GOOD,
        "GOOD_S2_FIRST": GOOD_S2_FIRST,
        "GOOD_EMPTY_S2": GOOD_EMPTY_S2,
        "GOOD_TWICE": GOOD_TWICE,
        "RELOADED": reloaded,
        "STOPPED": STOPPED,
        "LEAF": LEAF,
        "SHORT": SHORT,
        "NEVER_ASKED_AGAIN": NEVER_ASKED_AGAIN,
        "NOT_FINISHED": NOT_FINISHED,
        "NOTHING_WRONG": NOTHING_WRONG,
        "SIMULATED": SIMULATED,
        "PLAN": PLAN,
        "NONE": None,
        "TEXT": "plan_complete",
        "NUMBER": 1,
        "EVENTS": GOOD.events,
        "LIST": [GOOD],
        "DICT": {"run": GOOD},
        "RECORDER": rec,
        "GOOD_EVENTS_ONLY": list(GOOD.events),
        "TRACE_TEXT": GOOD.to_text(),
        "ELLIPSIS": ...,
        "STOPPED_LIST": [STOPPED],
        "CLASS": planviz.Run,
    }[name]


@pytest.mark.parametrize("name, passed", BANK)
def test_exercise_5_bank(reloaded, name, passed):
    feedback = check_exercise_5(run=_value(name, reloaded))
    assert feedback.passed is passed, f"{name}: {feedback}"


def test_the_bank_is_big_enough():
    assert len(BANK) >= 25 and sum(p for _, p in BANK) >= 5
