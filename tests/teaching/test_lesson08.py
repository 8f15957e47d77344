"""Notebook 08's checks: each accepts a right answer and catches wrong ones without giving the answer away."""

from __future__ import annotations

from dataclasses import replace

import pytest

import planviz
from planviz import Contract, Step, ToolSpec
from planviz.teaching.lesson08 import (
    TOOLS,
    check_exercise_1,
    check_exercise_2,
    check_exercise_4,
    read_only_contract,
)

PLAN = planviz.examples.load("past_due_account")
DRAFT = replace(
    PLAN.step("step_4"),
    tool="draft_payment_plan_offer",
    expected_evidence="a draft for review",
    action="draft_payment_plan_offer(customer_id='C-17', installment={{step_3.installment}}, "
    "months={{step_3.months}})",
    produces=("step_4.draft",),
)
REVIEW = PLAN.replace(steps=[*PLAN.steps[:3], DRAFT])
REVIEW_CONTRACT = Contract(intent="read", tools={**TOOLS, "draft_payment_plan_offer": ToolSpec()})


def test_exercise_1_right():
    assert check_exercise_1(lambda k: 3 + 2 * k, lambda k: 1 + k)


@pytest.mark.parametrize(
    "calls, models, says",
    [
        (lambda k: 3 + 2 * k, lambda k: 1, "for max_replans=1 your model calls differ"),
        (lambda k: 5 + 2 * k, lambda k: 1 + k, "for max_replans=0 your tool calls differ"),
        (lambda k: 3 + 3 * k, lambda k: 1 + k, "for max_replans=1 your tool calls differ"),
        (lambda k: 1 / 0, lambda k: 1 + k, "raised ZeroDivisionError for k=0"),
        (7, 3, "pass two functions"),
        (..., ..., "no answer yet"),
    ],
)
def test_exercise_1_wrong(calls, models, says):
    feedback = check_exercise_1(calls, models)
    assert not feedback and says in feedback.message and feedback.hint
    assert (
        "2k" not in feedback.message + feedback.hint
        and "2 * k" not in feedback.message + feedback.hint
    )


def test_exercise_2_right():
    assert check_exercise_2(REVIEW, REVIEW_CONTRACT)


# the read-only contract's cheats (issue 23, item 2), as the capstone shows them
SILENT = Contract(intent="read")  # no registry
SENDERS = ("step_4", "step_5")
DECLARED = PLAN.replace(
    steps=[replace(s, effect="write" if s.id in SENDERS else "read") for s in PLAN.steps]
)
# the plan vouches for itself
CLAIMS_READ = PLAN.replace(steps=[replace(s, effect="read") for s in PLAN.steps])
RENAMED = PLAN.replace(
    steps=[replace(s, tool="prepare_offer") if s.id == "step_4" else s for s in PLAN.steps[:4]]
)
# the planner's own registry
LAUNDERED = Contract(intent="read", tools={**TOOLS, "prepare_offer": ToolSpec()})


def _errors(plan, contract):
    return sorted((f.code, f.steps) for f in planviz.validate(plan, contract).errors)


def test_what_validate_says_of_the_cheats():
    """The library's side, which the notebook shows: refused without a registry, a declared write is outside the
    intent, a step and its registry entry that disagree conflict; a renamed tool registered read-only passes."""
    assert _errors(PLAN, SILENT) == [("unverified_effect", (s.id,)) for s in PLAN.steps]
    assert planviz.simulate(PLAN, SILENT).outcome == "refused"
    assert _errors(DECLARED, SILENT) == [
        ("outside_intent", ("step_4",)),
        ("outside_intent", ("step_5",)),
        *[("unverified_effect", (f"step_{i}",)) for i in (1, 2, 3)],
    ]
    assert _errors(RENAMED, LAUNDERED) == []
    says_write = RENAMED.replace(
        steps=[replace(s, effect="write") if s.id == "step_4" else s for s in RENAMED.steps]
    )
    assert [code for code, _ in _errors(says_write, LAUNDERED)] == [
        "effect_conflict",
        "outside_intent",
    ]


@pytest.mark.parametrize(
    "plan, contract",
    [
        # effects declared too
        (
            REVIEW.replace(steps=[replace(s, effect="read") for s in REVIEW.steps]),
            REVIEW_CONTRACT,
        ),
        (
            REVIEW,
            replace(
                REVIEW_CONTRACT,
                tools={**TOOLS, "draft_payment_plan_offer": ToolSpec(effect="read")},
            ),
        ),
    ],
)
def test_exercise_2_right_in_other_forms(plan, contract):
    assert check_exercise_2(plan, contract)


@pytest.mark.parametrize(
    "plan, contract, says",
    [
        (PLAN, SILENT, "the contract does not say what"),  # no registry at all
        (DECLARED, SILENT, "'step_4' declares effect 'write'"),  # a declared write
        (DECLARED, read_only_contract(), "'step_4' declares effect 'write'"),
        # the plan says it only reads
        (
            CLAIMS_READ,
            SILENT,
            "a step's own effect is the planner's word",
        ),
        (CLAIMS_READ, read_only_contract(), "'step_4' still sends the offer"),
        # renamed
        (
            RENAMED,
            LAUNDERED,
            "'step_4' calls 'prepare_offer', which the account's system does not have",
        ),
        (
            RENAMED.replace(
                steps=[replace(s, effect="write") if s.id == "step_4" else s for s in RENAMED.steps]
            ),
            LAUNDERED,
            "'step_4' declares effect 'write'",
        ),
        (
            RENAMED.replace(
                steps=[replace(s, effect="read") if s.id == "step_4" else s for s in RENAMED.steps]
            ),
            LAUNDERED,
            "which the account's system does not have",
        ),
        (
            RENAMED,
            Contract(intent="read", tools={"prepare_offer": ToolSpec()}),
            "the contract does not say what",
        ),
        (
            REVIEW.replace(
                steps=[
                    replace(s, effect="destructive") if s.id == "step_4" else s
                    for s in REVIEW.steps
                ]
            ),
            REVIEW_CONTRACT,
            "declares effect 'destructive'",
        ),
        # the draft's effect declared by the plan alone: validate accepts it, the exercise asks the analyst's registry
        (
            REVIEW.replace(steps=[replace(s, effect="read") for s in REVIEW.steps]),
            read_only_contract(),
            "does not say what 'draft_payment_plan_offer' does",
        ),
    ],
)
def test_exercise_2_rejects_the_read_only_cheats(plan, contract, says):
    feedback = check_exercise_2(plan, contract)
    assert not feedback and says in feedback.message and feedback.hint


@pytest.mark.parametrize(
    "plan, contract, says",
    [
        (PLAN, read_only_contract(), "still sends the offer"),
        # not registered
        (
            REVIEW,
            read_only_contract(),
            "does not say what 'draft_payment_plan_offer' does",
        ),
        # the cheats of the issue: no registry, no offer at all, the sending step under a renamed read-only tool
        (PLAN, Contract(intent="read"), "the contract does not say what"),
        (
            PLAN.replace(steps=PLAN.steps[:3]),
            Contract(intent="read", tools=TOOLS),
            "prepares no offer",
        ),
        (
            PLAN.replace(steps=[*PLAN.steps[:3], replace(PLAN.step("step_4"), tool="offer_tool")]),
            Contract(intent="read", tools={**TOOLS, "offer_tool": ToolSpec()}),
            "'offer_tool', which the account's system",
        ),
        (
            PLAN.replace(steps=[*PLAN.steps[:3], replace(DRAFT, tool="send_for_review")]),
            Contract(intent="read", tools={**TOOLS, "send_for_review": ToolSpec()}),
            "'send_for_review', which the account",
        ),
        (REVIEW, replace(REVIEW_CONTRACT, intent="write"), "the analyst asked for a read-only job"),
        (
            PLAN,
            Contract(
                intent="read",
                tools={
                    **TOOLS,
                    "send_payment_plan_offer": ToolSpec(),
                    "log_interaction": ToolSpec(),
                },
            ),
            "changes what 'send_payment_plan_offer'",
        ),
        (
            REVIEW,
            Contract(
                intent="read", tools={**TOOLS, "draft_payment_plan_offer": ToolSpec(writes=True)}
            ),
            "prepare refuses it",
        ),
        (
            REVIEW.replace(
                steps=[
                    REVIEW.step("step_1"),
                    replace(DRAFT, depends_on=("step_1",), requires=(), arguments={}),
                ]
            ),
            REVIEW_CONTRACT,
            "no longer calls 'check_payment_plan_eligibility'",
        ),
        (REVIEW.replace(premises=()), REVIEW_CONTRACT, "no longer names the premise"),
        (
            REVIEW.replace(
                steps=[
                    Step("warm", "warm the cache", tool="lookup_account", expected_evidence="e"),
                    *REVIEW.steps,
                ]
            ),
            REVIEW_CONTRACT,
            "still spends 2 tool calls",
        ),
        ("plan", REVIEW_CONTRACT, "expected a planviz Plan"),
        (None, None, "no answer yet"),
    ],
)
def test_exercise_2_wrong(plan, contract, says):
    feedback = check_exercise_2(plan, contract)
    assert not feedback and says in feedback.message and feedback.hint


HOLD = Step(
    "step_hold",
    "check_collections_hold(customer_id='C-17')",
    tool="check_collections_hold",
    kind="hold_check",
    depends_on=("step_1",),
    produces=("no_collections_hold",),
    expected_evidence="the account's holds as of today",
)
AFFORD = Step(
    "step_afford",
    "check_affordability(customer_id='C-17')",
    tool="check_affordability",
    kind="affordability",
    depends_on=("step_3",),
    requires=("step_3.installment",),
    produces=("installment_affordable",),
    expected_evidence="affordable or not",
)
SEND = replace(
    PLAN.step("step_4"),
    depends_on=("step_3", "step_hold", "step_afford"),
    requires=PLAN.step("step_4").requires + ("no_collections_hold", "installment_affordable"),
    approval="collections team lead",
    check="the offer id appears in the account's offers",
)
SAFE = PLAN.replace(
    steps=[
        PLAN.step("step_1"),
        HOLD,
        PLAN.step("step_2"),
        PLAN.step("step_3"),
        AFFORD,
        SEND,
        PLAN.step("step_5"),
    ]
)
SAFE_TOOLS = {**TOOLS, "check_collections_hold": ToolSpec(), "check_affordability": ToolSpec()}
SAFE_CONTRACT = Contract(
    intent="write",
    tools=SAFE_TOOLS,
    required=("hold_check", "affordability"),
    forbidden_states=("customer contacted under a collections hold",),
)


def _with(plan, sid, **changes):
    return plan.replace(steps=[replace(s, **changes) if s.id == sid else s for s in plan.steps])


def test_exercise_4_right_and_gives_the_rubric():
    feedback = check_exercise_4(SAFE, SAFE_CONTRACT)
    assert (
        feedback and "no program can answer" in feedback.message and "approver" in feedback.message
    )


def test_exercise_4_right_with_required_ids_instead_of_kinds():
    assert check_exercise_4(SAFE, replace(SAFE_CONTRACT, required=("step_hold", "step_afford")))


@pytest.mark.parametrize(
    "plan, contract, says",
    [
        (SAFE, replace(SAFE_CONTRACT, intent="read"), "this job sends an offer"),
        (
            SAFE,
            replace(SAFE_CONTRACT, tools={**SAFE_TOOLS, "send_payment_plan_offer": ToolSpec()}),
            "does not register 'send_payment_plan_offer' as it is",
        ),
        (SAFE, replace(SAFE_CONTRACT, tools=TOOLS), "does not say what 'check_affordability' does"),
        # the unknowns ignored
        (
            SAFE,
            replace(SAFE_CONTRACT, required=()),
            "accepts the original plan",
        ),
        (
            SAFE,
            replace(SAFE_CONTRACT, required=("hold_check", "step_1")),
            "1 milestone(s) the original plan lacks",
        ),
        (
            SAFE,
            replace(SAFE_CONTRACT, required=("hold_check",)),
            "1 milestone(s) the original plan lacks",
        ),
        (
            SAFE.replace(steps=[s for s in SAFE.steps if s.tool != "send_payment_plan_offer"]),
            SAFE_CONTRACT,
            "no longer sends the offer",
        ),
        (
            SAFE,
            replace(SAFE_CONTRACT, required=("hold_check", "budget_review")),
            "no step of the plan meets",
        ),
        (
            _with(
                _with(
                    SAFE,
                    "step_4",
                    depends_on=("step_3", "step_hold"),
                    requires=PLAN.step("step_4").requires + ("no_collections_hold",),
                ),
                "step_afford",
                depends_on=("step_4",),
            ),
            SAFE_CONTRACT,
            "only after the offer is sent",
        ),
        (
            SAFE,
            replace(
                SAFE_CONTRACT, tools={**SAFE_TOOLS, "check_affordability": ToolSpec(writes=True)}
            ),
            "a step that writes",
        ),
        (_with(SAFE, "step_4", approval=None), SAFE_CONTRACT, "nobody approves"),
        (_with(SAFE, "step_4", check="ran"), SAFE_CONTRACT, "says only that it ran"),
        (_with(SAFE, "step_4", check=" Done. "), SAFE_CONTRACT, "says only that it ran"),
        (SAFE, replace(SAFE_CONTRACT, forbidden_states=()), "forbids no state"),
        (
            SAFE,
            replace(SAFE_CONTRACT, forbidden_states=("no_collections_hold",)),
            "prepare refuses your plan",
        ),
        (SAFE, None, "no answer yet"),
        ("plan", SAFE_CONTRACT, "expected a planviz Plan"),
    ],
)
def test_exercise_4_wrong(plan, contract, says):
    feedback = check_exercise_4(plan, contract)
    assert not feedback and says in feedback.message and feedback.hint


# issue 40.6: the open exercise is checked by what the plan would do in the account's world, not by names
@pytest.mark.parametrize("name", ["email_payment_plan_offer", "notify_customer", "deliver_offer"])
@pytest.mark.parametrize("own_effect", [None, "read"])
def test_exercise_2_sees_the_offer_go_out_under_any_name_the_world_knows(name, own_effect):
    step_4 = PLAN.step("step_4")
    sending = replace(
        step_4,
        tool=name,
        action=name + step_4.action[len("send_payment_plan_offer") :],
        effect=own_effect,
    )
    plan = PLAN.replace(steps=[*PLAN.steps[:3], sending])
    feedback = check_exercise_2(
        plan, Contract(intent="read", tools={**TOOLS, name: ToolSpec(effect="read")})
    )
    assert (
        not feedback
        and "'step_4' still sends the offer: the customer is contacted" in feedback.message
    )
    assert name in feedback.message


def test_the_world_run_reports_contact_writes_and_unknown_tools():
    from planviz.teaching.lesson08 import world_run

    assert world_run(PLAN) == (("step_4",), ("step_5",), ())
    assert world_run(REVIEW) == ((), (), ())
    quiet_log = PLAN.replace(
        steps=[
            *PLAN.steps[:3],
            replace(
                PLAN.step("step_5"),
                depends_on=("step_3",),
                requires=(),
                arguments={"customer_id": "C-17"},
            ),
        ]
    )
    assert world_run(quiet_log) == ((), ("step_5",), ())
    renamed = REVIEW.replace(steps=[*REVIEW.steps[:3], replace(DRAFT, tool="prepare_offer")])
    assert world_run(renamed) == ((), (), ("step_4",))
