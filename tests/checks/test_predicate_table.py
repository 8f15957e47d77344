"""Checks as predicates (issue 40.4): process words are no predicate whatever the phrasing; a check naming an
object, a quantity or a state, or comparing one, is. Table-tested both ways, the phrasings generated."""

from __future__ import annotations

import itertools
import random

import pytest

from planviz import Plan, Step, validate
from planviz.checks.predicate import vacuous
from tests.rules.cheats import open_vacuous, own_id_vacuous, respell, vacuous_phrasings

#: (action, tool) of three writing steps of the worked examples
ACTIONS = [
    ("Purge the leaked entries", "purge_cache"),
    (
        "send_payment_plan_offer(customer_id='C-17', installment='{{step_3.installment}}')",
        "send_payment_plan_offer",
    ),
    ("Patch the key builder to include the tenant id", "edit_file"),
]

OBJECTS = [
    "the isolation test",
    "the hit rate",
    "the cache",
    "the account history",
    "the offer id",
    "the CHANGELOG",
    "tenant B's read of tenant A's key",
    "the release suite report",
    "every installment",
    "the purge count",
    "the interaction log",
    "the key of tenant B",
]
STATES = [
    "passes",
    "is above 0.9",
    "contains the tenant id",
    "holds no entry of tenant A",
    "is empty",
    "equals the balance",
    "exists",
    "is absent",
    "shows version 2.4.0",
    "matches the schedule",
    "is less than 3",
    "remains unchanged",
]


def _predicates() -> list[str]:
    rnd = random.Random(404)
    return [
        respell(f"{o} {s}", None, rnd) if rnd.random() < 0.3 else f"{o} {s}"
        for o, s in itertools.product(OBJECTS, STATES)
    ]


#: States in other forms: passive, negated, counted in words, things that are there, up or came back.
UNUSUAL_STATES = [
    "has been emptied",
    "was emptied by the purge",
    "is not readable by tenant B",
    "no longer holds tenant A's entries",
    "holds zero entries",
    "holds exactly three installments",
    "lists two payments",
    "is there",
    "is up",
    "came back",
    "got updated",
    "was received",
    "is unchanged",
]
#: The same facts with the words in another order.
REORDERED = [
    "in the cache, no entry of tenant A remains",
    "remaining in the cache: nothing of tenant A",
    "three installments are scheduled",
    "fewer than three retries were needed",
    "tenant B cannot read tenant A's key",
    "the customer replied",
    "payment received",
    "offer delivered to the customer",
    "row there",
    "the row is there",
]


def _unusual_predicates() -> list[str]:
    """Right checks written unusually, generated: each object with a state in another form, and reorderings."""
    return [
        f"{o} {s}" for o in [*OBJECTS, "the server", "the service"] for s in UNUSUAL_STATES
    ] + REORDERED


def _non_predicates(tool: str) -> list[str]:
    return sorted(set(vacuous_phrasings(tool, random.Random(40))))


def test_the_tables_hold_at_least_60_phrasings_each_way():
    assert len(_predicates()) >= 60 and all(len(_non_predicates(t)) >= 60 for _, t in ACTIONS)


@pytest.mark.parametrize("action, tool", ACTIONS)
def test_process_words_are_no_predicate_whatever_the_phrasing(action, tool):
    slipped = [c for c in _non_predicates(tool) if not vacuous(c, action, step_id="S3", tool=tool)]
    assert not slipped, f"{len(slipped)} process phrasings read as predicates: {slipped[:10]}"


@pytest.mark.parametrize("action, tool", ACTIONS)
def test_a_check_about_the_world_written_unusually_is_a_predicate(action, tool):
    refused = [c for c in _unusual_predicates() if vacuous(c, action, step_id="S3", tool=tool)]
    assert not refused, f"{len(refused)} predicates read as vacuous: {refused[:10]}"


@pytest.mark.parametrize("step_id", ["S3", "step_4", "W12", "N007"])
def test_a_check_naming_its_own_step_by_another_spelling_is_vacuous(step_id):
    action, tool = ACTIONS[0]
    slipped = [
        c for c in own_id_vacuous(step_id) if not vacuous(c, action, step_id=step_id, tool=tool)
    ]
    assert not slipped, (
        f"{len(slipped)} of {len(own_id_vacuous(step_id))} read as predicates: {slipped[:10]}"
    )


@pytest.mark.parametrize(
    "check", ["3 entries remain", "S4 returns 200", "S12 done", "hit rate above 3", "step 5 done"]
)
def test_a_number_or_another_step_s_id_is_still_a_predicate(check):
    assert not vacuous(check, ACTIONS[0][0], step_id="S3", tool=ACTIONS[0][1])


@pytest.mark.xfail(
    strict=True, reason="open: two unknown words, a thing and a verb the rule cannot tell apart"
)
def test_the_phrasings_still_open_are_no_predicate():
    action, tool = ACTIONS[0]
    slipped = [c for c in open_vacuous(tool) if not vacuous(c, action, step_id="S3", tool=tool)]
    assert not slipped, (
        f"{len(slipped)} of {len(open_vacuous(tool))} read as predicates: {slipped[:10]}"
    )


@pytest.mark.parametrize("action, tool", ACTIONS)
def test_a_check_about_the_world_is_a_predicate(action, tool):
    refused = [c for c in _predicates() if vacuous(c, action, step_id="S3", tool=tool)]
    assert not refused, f"{len(refused)} predicates read as vacuous: {refused[:10]}"


@pytest.mark.parametrize(
    "check",
    [
        "the tool was invoked",
        "I have understood",
        "the command returned",
        "it did not fail",
        "purge_cache returned",
        "Offer sent.",
    ],
)
def test_the_issue_s_phrasings_refuse_a_writing_step(check):
    step = Step(
        "S3",
        "Purge the cache; send the offer",
        tool="purge_cache",
        resources=["cache"],
        expected_evidence="e",
        produces="x",
        check=check,
    )
    found = [f for f in validate(Plan("g", [step])).findings if f.code == "vacuous_check"]
    assert [f.severity for f in found] == ["error"]
