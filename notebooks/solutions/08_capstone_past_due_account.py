"""Solutions to notebook 08, the capstone on the past-due account.

Try the exercises first. This file uses the notebook's objects (``plan``, ``tools``...), so run it at
the end of the notebook with ``%run -i solutions/08_capstone_past_due_account.py``: it runs every
answer through the notebook's check and prints the verdicts. CI runs it the same way.
"""

from dataclasses import replace

from planviz import Contract, Step, ToolSpec
from planviz.teaching.lesson08 import check_exercise_1, check_exercise_2, check_exercise_4

# Exercise 1: the first attempt costs three tool calls (lookup, eligibility, installments: the third
# fails) and one model call (the plan). Each replan re-issues eligibility and installments: two tool
# calls and one model call more. So 3 + 2k and 1 + k.
def tool_calls(k):
    return 3 + 2 * k


def model_calls(k):
    return 1 + k


# Exercise 2: keep steps 1 to 3 as the planner wrote them; replace "send the offer" by "draft the
# offer" with a read-only tool, and drop the contact log (nothing was sent, nothing to log). The goal
# says what the analyst asked. The contract registers the new tool as read-only and keeps the others.
# A program cannot check that drafting is really read-only: that is the tool's owner's word (its
# ToolSpec), and a person reviews the draft.
draft = replace(plan.step("step_4"), tool="draft_payment_plan_offer",
                action="draft_payment_plan_offer(customer_id='C-17', installment={{step_3.installment}}, "
                       "months={{step_3.months}})",
                expected_evidence="a draft offer, not sent, for the analyst to review", produces=("step_4.draft",))
review = plan.replace(goal="Prepare a payment-plan offer for customer C-17 for the analyst to review",
                      steps=[plan.step("step_1"), plan.step("step_2"), plan.step("step_3"), draft])
review_contract = Contract(intent="read", tools={**tools, "draft_payment_plan_offer": ToolSpec()})

# Exercise 3 (in words, not checked): deploy the planner, whose plan is validated against the request
# before any call; for the write job, give send_payment_plan_offer an approval (the analyst), a check
# ("the offer appears in the account's offers"), forbid the state "customer contacted without consent",
# and turn the unknowns into the first calls (a collections-hold lookup before eligibility).

# Exercise 4 (open, designed): each unknown becomes a required milestone (a kind) and a read-only step
# before the send: a collections-hold lookup right after the account lookup, and an affordability
# check of the computed installment. The send waits for both, needs their facts, is approved by the
# collections team lead, and its check is what you would see if the offer went out. The contract
# forbids the harm the analyst fears most. The original plan meets neither milestone, so this contract
# refuses it. What the check leaves to a person: its rubric (lesson08.RUBRIC).
hold_lookup = Step("step_hold", "check_collections_hold(customer_id='C-17')", tool="check_collections_hold",
            kind="hold_check", arguments={"customer_id": "C-17"}, depends_on=("step_1",),
            produces=("no_collections_hold",), expected_evidence="the account's holds as of today: none")
afford = Step("step_afford", "check_affordability(customer_id='C-17', installment='{{step_3.installment}}')",
              tool="check_affordability", kind="affordability",
              arguments={"customer_id": "C-17", "installment": "{{step_3.installment}}"}, depends_on=("step_3",),
              requires=("step_3.installment",), produces=("installment_affordable",),
              expected_evidence="the installment against the customer's declared income: affordable")
send = replace(plan.step("step_4"), depends_on=("step_3", "step_hold", "step_afford"),
               requires=plan.step("step_4").requires + ("no_collections_hold", "installment_affordable"),
               approval="collections team lead", check="the offer id appears in the account's offers")
safe_plan = plan.replace(steps=[plan.step("step_1"), hold_lookup, plan.step("step_2"), plan.step("step_3"), afford, send,
                                plan.step("step_5")])
safe_contract = Contract(intent="write", tools={**tools, "check_collections_hold": ToolSpec(),
                                                "check_affordability": ToolSpec()},
                         required=("hold_check", "affordability"),
                         forbidden_states=("customer contacted while a collections hold is on the account",))

CHECKED = {
    "check_exercise_1": check_exercise_1(tool_calls=tool_calls, model_calls=model_calls),
    "check_exercise_2": check_exercise_2(plan=review, contract=review_contract),
    "check_exercise_4": check_exercise_4(plan=safe_plan, contract=safe_contract),
}

for feedback in CHECKED.values():
    print(feedback)
