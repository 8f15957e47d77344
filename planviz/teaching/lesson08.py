"""Checks for notebook 08, the capstone on the past-due account (notebooks/08_capstone_past_due_account.ipynb).

The case is the bundled ``past_due_account`` tool-call plan under the
analyst's read-only contract (:func:`read_only_contract`) or the write job
(:func:`write_contract`); every expected answer is simulated here. The open
exercise is checked where a program can check it, by what the plan would
do rather than by the names it uses: run in the account's world
(:data:`WORLD`, what each tool of the account's system really does), it
contacts nobody and writes nothing; the contract stays read-only,
``prepare`` accepts the plan, it completes, it still does the analysis, and
a settled account stops it after its first call. Whether the
draft is what the analyst wanted is for a person to judge. Solutions:
notebooks/solutions/08_capstone_past_due_account.py.

>>> check_exercise_1(lambda k: 3, lambda k: 1).passed
False
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from planviz.checks.validation import prepare, validate
from planviz.errors import PlanvizError
from planviz.examples import load
from planviz.plan.arguments import expect_plan
from planviz.plan.model import Contract, Plan, ToolSpec
from planviz.runs.engine.simulation import simulate
from planviz.runs.fault import Fault
from planviz.runs.measures.runmetrics import metrics
from planviz.teaching.agreement import first_disagreement
from planviz.teaching.answers import number, stop_reason
from planviz.teaching.feedback import Feedback, is_blank, right, unanswered, wrong

__all__ = [
    "check_exercise_1",
    "check_exercise_2",
    "check_exercise_4",
    "RUBRIC",
    "read_only_contract",
    "write_contract",
    "TOOLS",
    "SETTLED",
    "COLLECTIONS_HOLD",
    "ANALYSIS",
    "WORLD",
    "world_run",
]

#: The tool registry of the case: what each tool does.
TOOLS = {
    "lookup_account": ToolSpec(),
    "check_payment_plan_eligibility": ToolSpec(),
    "compute_installments": ToolSpec(),
    "send_payment_plan_offer": ToolSpec(writes=True),
    "log_interaction": ToolSpec(writes=True),
}
#: The premise the lookup falsifies when the account was settled yesterday.
SETTLED = "account C-17 is past due"
#: A collections hold placed today (one of the plan's unknowns): the eligibility decision never holds for long.
COLLECTIONS_HOLD = Fault("step_3", "withdraw", fact="step_2.max_installments", times=10)
#: The analysis the analyst asked for: the tools a review plan must still call.
ANALYSIS = ("lookup_account", "check_payment_plan_eligibility", "compute_installments")


def read_only_contract() -> Contract:
    """The analyst's request: prepare a payment plan for review, contact nobody (intent ``read``)."""
    return Contract(intent="read", tools=TOOLS)


def write_contract() -> Contract:
    """The write job: send the offer and log it (intent ``write``)."""
    return Contract(intent="write", tools=TOOLS)


def _cap_costs(k: int) -> tuple[float, float]:
    m = metrics(
        simulate(
            load("past_due_account"),
            replace(write_contract(), max_replans=k),
            faults=[COLLECTIONS_HOLD],
        )
    )
    return float(m.tool_calls), float(m.model_calls or 0)  # a simulated run always counts them


def check_exercise_1(tool_calls: Any = None, model_calls: Any = None) -> Feedback:
    """Exercise 1: two functions of ``k`` = ``max_replans``: the planner's ``tool_calls(k)`` and
    ``model_calls(k)`` on the collections hold under the write job; compared with simulations for k = 0..6."""
    ex = "08 exercise 1"
    hint = (
        "count one replan: which steps does it re-issue, and how many model calls does it cost? Then add "
        "what the first attempt costs"
    )
    if is_blank(tool_calls) or is_blank(model_calls):
        return unanswered(
            ex, "check_exercise_1(tool_calls=lambda k: ..., model_calls=lambda k: ...)", hint
        )
    if not callable(tool_calls) or not callable(model_calls):
        return wrong(ex, "pass two functions of k (lambda k: ...), not numbers", hint)

    def student(k: int) -> tuple[float | None, float | None]:
        return number(tool_calls(k)), number(model_calls(k))

    found = first_disagreement([(k,) for k in range(7)], student, _cap_costs)
    if found is None:
        return right(
            ex,
            "each replan re-checks eligibility and recomputes the installments (two tool calls) and "
            "costs one model call; the cap says how many times the planner may pay that for a cause "
            "that does not go away.",
        )
    (k,), expected, got = found
    if isinstance(got, Exception):
        return wrong(ex, f"your function raised {type(got).__name__} for k={k}: {got}", hint)
    which = "tool calls" if got[0] != expected[0] else "model calls"
    return wrong(ex, f"for max_replans={k} your {which} differ from the run's", hint)


#: The past-due account's world: every tool its system has and what it really does there (its owner's word,
#: never a plan's or a student's registry): "contact" reaches the customer, "write" changes the account.
WORLD = {
    "lookup_account": "read",
    "check_payment_plan_eligibility": "read",
    "compute_installments": "read",
    "draft_payment_plan_offer": "read",
    "check_collections_hold": "read",
    "check_affordability": "read",
    "send_payment_plan_offer": "contact",
    "email_payment_plan_offer": "contact",
    "notify_customer": "contact",
    "deliver_offer": "contact",
    "log_interaction": "write",
}


def world_run(plan: Plan) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """What ``plan`` would do in the account's world, run as it is by an agent that does not check first
    (strategy ``direct``, every tool with its real effect): the ids of the steps that contacted the customer,
    of those that wrote to the account, and of those calling a tool the world does not have (the run stops
    there: nobody can say what it would do).

    >>> world_run(load("past_due_account"))
    (('step_4',), ('step_5',), ())
    """
    plan = expect_plan(plan, "world_run")
    tools = {name: ToolSpec(writes=effect != "read") for name, effect in WORLD.items()}
    run = simulate(plan, Contract(intent="write", tools=tools), strategy="direct")
    done = [e.step for e in run.events if e.kind == "complete" and e.step is not None]
    real = [(sid, WORLD.get(plan.step(sid).tool or "", "read")) for sid in dict.fromkeys(done)]
    unknown = tuple(s.id for s in plan.steps if s.tool is not None and s.tool not in WORLD)
    return (
        tuple(sid for sid, what in real if what == "contact"),
        tuple(sid for sid, what in real if what == "write"),
        unknown,
    )


def check_exercise_2(plan: Any = None, contract: Any = None) -> Feedback:
    """Exercise 2 (open): your read-only ``plan`` for the analyst and its ``contract``; checked where checkable."""
    ex = "08 exercise 2"
    how = "start from past_due_account: keep the analysis, draft the offer instead of sending it"
    if is_blank(plan) or is_blank(contract):
        return unanswered(ex, "check_exercise_2(plan=..., contract=...)", how)
    if not isinstance(plan, Plan) or not isinstance(contract, Contract):
        return wrong(ex, "expected a planviz Plan and a planviz Contract", how)
    if contract.intent != "read":
        return wrong(
            ex,
            f"the contract's intent is {contract.intent!r}: the analyst asked for a read-only job",
            "Contract(intent='read', tools=...)",
        )
    loosened = [
        name
        for name, spec in TOOLS.items()
        if name in contract.tools and contract.tools[name] != spec
    ]
    if loosened:
        return wrong(
            ex,
            f"the contract changes what {loosened[0]!r} does",
            "a contract says what the tools do: change the plan, not the tools",
        )
    declared = [s for s in plan.steps if s.effect in ("write", "destructive")]
    if declared:
        return wrong(
            ex,
            f"{declared[0].id!r} declares effect {declared[0].effect!r}: a step that writes is outside a "
            "read-only job (outside_intent), whatever the registry says",
            how,
        )
    unregistered = sorted({s.tool for s in plan.steps if s.tool and s.tool not in contract.tools})
    if unregistered:
        return wrong(
            ex,
            f"the contract does not say what {unregistered[0]!r} does (a step's own effect is the "
            "planner's word, not the analyst's): under a read-only contract a "
            "tool nobody declared cannot be shown to only read",
            "register every tool the plan calls "
            "in Contract(tools=...), with ToolSpec(writes=True) for a tool that writes",
        )
    contacted, written, unknown = world_run(plan)
    if contacted or written:
        sid = (contacted or written)[0]
        what = (
            "still sends the offer: the customer is contacted"
            if contacted
            else "still writes to the account"
        )
        return wrong(
            ex,
            f"{sid!r} {what} when the plan runs in the account's world ({plan.step(sid).tool!r} "
            f"does that there, whatever a registry says): the analyst asked that nobody be contacted "
            f"and nothing be written",
            "draft the offer for review instead of sending it; a new name "
            "or a read-only registry entry for the same call does not change what it does",
        )
    if unknown:
        return wrong(
            ex,
            f"{unknown[0]!r} calls {plan.step(unknown[0]).tool!r}, which the account's system does not "
            f"have: nobody can say what it would do there (it could contact the customer)",
            f"call the system's own tools ({', '.join(sorted(WORLD))})",
        )
    try:
        prepare(plan, contract)
    except PlanvizError as exc:
        return wrong(
            ex, f"prepare refuses it: {exc}", "validate(plan, contract) lists every finding"
        )
    if not prepare(plan, contract):
        return wrong(
            ex, f"prepare refuses it: {validate(plan, contract).to_text().splitlines()[0]}", how
        )
    missing = [tool for tool in ANALYSIS if not any(s.tool == tool for s in plan.steps)]
    if missing:
        return wrong(
            ex,
            f"the plan no longer calls {missing[0]!r}",
            "the analyst still wants the analysis: "
            "the account, the eligibility and the installments",
        )
    installments = {s.id for s in plan.steps if s.tool == "compute_installments"}
    offer = [
        s.id for s in plan.steps if s.tool not in ANALYSIS and (set(s.depends_on) & installments)
    ]
    if not offer:
        return wrong(
            ex,
            "the plan prepares no offer: nothing comes after the installments",
            "the analyst asked for a payment plan to review: add a step that drafts the offer from "
            "the installments, with a read-only tool",
        )
    run = simulate(plan, contract)
    if run.outcome != "plan_complete":
        return wrong(ex, f"without any fault the run ends {stop_reason(run)}", how)
    if SETTLED not in plan.premises:
        return wrong(
            ex,
            f"the plan no longer names the premise {SETTLED!r}",
            "keep the assumption in premises: the run re-checks premises, the planner cannot otherwise",
        )
    lookup = next(s.id for s in plan.steps if s.tool == "lookup_account")
    settled = metrics(
        simulate(plan, contract, faults=[Fault(lookup, "premise_false", fact=SETTLED)])
    )
    if settled.tool_calls > 1:
        return wrong(
            ex,
            f"when the account was settled yesterday the planner still spends {settled.tool_calls} "
            "tool calls",
            "nothing should run before or beside the lookup that shows the balance",
        )
    return right(
        ex,
        f"read-only, accepted by prepare, complete in {metrics(run).tool_calls} tool calls, and a "
        "settled account stops it after its first call. What no check can say: whether the draft is "
        "what the analyst needs. Answer exercise 3 in words.",
    )


#: What a person judges in exercise 4, once the program has checked what it can.
RUBRIC = (
    "each step you added answers its unknown with the customer's own data (not a guess, not the plan's word)",
    "the approver is someone who may commit the company to an offer, and sees the installment before it goes",
    "each forbidden state names a harm the analyst cares about (a customer contacted under a hold, an "
    "offer the customer cannot afford), not a restatement of a step",
    "the send step's check is something you would see if the offer really went out (the offer id in the "
    "account's offers), not that the call returned",
)


def _send_step(plan: Plan) -> Any:
    return next((s for s in plan.steps if s.tool == "send_payment_plan_offer"), None)


def _ancestors_of(plan: Plan, sid: str) -> set[str]:
    seen, todo = set(), list(plan.step(sid).depends_on)
    while todo:
        x = todo.pop()
        if x not in seen and x in plan:
            seen.add(x)
            todo.extend(plan.step(x).depends_on)
    return seen


_VACUOUS = {
    "ran",
    "run",
    "done",
    "ok",
    "sent",
    "completed",
    "executed",
    "called",
    "success",
    "it worked",
}


def check_exercise_4(plan: Any = None, contract: Any = None) -> Feedback:
    """Exercise 4 (open, designed by you): the write job made safe. A ``contract`` for sending the offer that
    turns the plan's two unknowns into required work, and a ``plan`` that meets it. Checked where a program
    can check: a write contract with every tool registered as it is; the original plan refused by it; each
    required milestone the original lacks met by a read-only step before the send; the send approved, with
    a check that is not "ran"; at least one forbidden state; accepted and complete. The rest is
    :data:`RUBRIC`, for a person."""
    ex = "08 exercise 4"
    how = (
        "Contract(intent='write', tools=..., required=[...one milestone per unknown...], forbidden_states=[...]) "
        "and the plan with a read-only step per unknown before the send, and an approval on the send"
    )
    if is_blank(plan) or is_blank(contract):
        return unanswered(ex, "check_exercise_4(plan=..., contract=...)", how)
    if not isinstance(plan, Plan) or not isinstance(contract, Contract):
        return wrong(ex, "expected a planviz Plan and a planviz Contract", how)
    if contract.intent != "write":
        return wrong(
            ex, f"the contract's intent is {contract.intent!r}: this job sends an offer", how
        )
    changed = [name for name, spec in TOOLS.items() if contract.tools.get(name) != spec]
    if changed:
        return wrong(
            ex,
            f"the contract does not register {changed[0]!r} as it is",
            "keep the five tools' specs (lesson08.TOOLS) and add the tools your new steps call",
        )
    unregistered = sorted({s.tool for s in plan.steps if s.tool and s.tool not in contract.tools})
    if unregistered:
        return wrong(ex, f"the contract does not say what {unregistered[0]!r} does", how)
    original = load("past_due_account")
    try:
        refuses_original = not prepare(original, contract)
    except PlanvizError:
        refuses_original = True
    if not refuses_original:
        return wrong(
            ex,
            "your contract accepts the original plan, which ignores both unknowns",
            "require the work that answers each unknown (contract.required: an id or a kind per unknown)",
        )
    new = [
        r
        for r in contract.required
        if r not in original.ids and not any(s.kind == r for s in original.steps)
    ]
    if len(new) < len(original.unknowns):
        return wrong(
            ex,
            f"the contract requires {len(new)} milestone(s) the original plan lacks; the plan has "
            f"{len(original.unknowns)} unknowns",
            "one required milestone per unknown",
        )
    send = _send_step(plan)
    if send is None:
        return wrong(ex, "the plan no longer sends the offer: this is the write job", how)
    before = _ancestors_of(plan, send.id)
    for milestone in new:
        meeting = [s for s in plan.steps if s.id == milestone or s.kind == milestone]
        if not meeting:
            return wrong(ex, f"no step of the plan meets the required {milestone!r}", how)
        if not any(s.id in before for s in meeting):
            return wrong(
                ex,
                f"{milestone!r} is met only after the offer is sent (or beside it): an unknown must "
                "be answered before the send depends on it",
                "make the send depend on it",
            )
        if any(
            contract.tools.get(s.tool or "", ToolSpec()).writes for s in meeting if s.id in before
        ):
            return wrong(
                ex,
                f"{milestone!r} is met by a step that writes: finding something out should not "
                "change the account",
                how,
            )
    if not send.approval:
        return wrong(
            ex, "nobody approves the offer before it goes out", "Step(..., approval='...')"
        )
    if not send.check or send.check.strip().lower().rstrip(".") in _VACUOUS | {
        send.action.strip().lower()
    }:
        return wrong(
            ex,
            f"the send step's check {send.check!r} says only that it ran",
            "what would you see if the offer really went out?",
        )
    if not contract.forbidden_states:
        return wrong(
            ex,
            "the contract forbids no state: what must never become true while this runs?",
            "Contract(forbidden_states=[...])",
        )
    try:
        accepted = prepare(plan, contract)
    except PlanvizError as exc:
        return wrong(
            ex, f"prepare refuses your plan: {exc}", "validate(plan, contract) lists every finding"
        )
    if not accepted:
        return wrong(
            ex,
            f"prepare refuses your plan: {validate(plan, contract).to_text().splitlines()[0]}",
            how,
        )
    run = simulate(plan, contract, approval_time=0)
    if run.outcome != "plan_complete":
        return wrong(ex, f"without any fault the run ends {stop_reason(run)}", how)
    rubric = "\n".join(f"  - {item}" for item in RUBRIC)
    return right(
        ex,
        f"the program found nothing more to object to: {len(new)} unknown(s) answered before the "
        f"send, an approval, a real check, {len(contract.forbidden_states)} forbidden state(s), and "
        f"the run completes in {metrics(run).tool_calls} tool calls. Now ask a person (or "
        f"yourself) the questions no program can answer:\n{rubric}",
    )
