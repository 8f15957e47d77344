"""Solutions to notebook 02b, real planner outputs and grading.

Try the exercises first. This file uses the notebook's plans (``plan``, ``contract``, ``strict``, ``audit``,
``read_only``, ``vouched``, ``checklist``, ``example``...), so run it at the end of the notebook with
``%run -i solutions/02b_planner_outputs_and_grading.py``: it runs every answer through the notebook's check and
prints the verdicts. CI runs it the same way.
"""

from dataclasses import replace

import planviz
from planviz.teaching.lesson02b import check_exercise_1, check_exercise_2, check_exercise_3, check_grade

# Build it: grading. An entry names the step with that id and every step of that kind. Recall is the
# share of required entries that name some step; a pair (a, b) is violated when some b step has no a
# step (other than itself) among its ancestors.
def grade_it(plan, contract):
    """(required recall, the set of must_precede pairs the plan violates)."""
    steps = {s.id: s for s in plan.steps}

    def named(name):
        return {sid for sid, s in steps.items() if sid == name or s.kind == name}

    def ancestors(sid):
        seen, todo = set(), list(steps[sid].depends_on)
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo.extend(steps[x].depends_on)
        return seen

    required = list(contract.required)
    recall = sum(1 for r in required if named(r)) / len(required) if required else 1.0
    violations = {(a, b) for a, b in contract.must_precede
                  if any(not (named(a) - {sid}) & ancestors(sid) for sid in named(b))}
    return recall, violations


# Exercise 1: two of the four milestones, every step well formed, and an order that cannot work. The half
# plan of the notebook (reproduce, diagnose) scores 0.5 with no order violation; reproduce and the patch
# without the edge between them score 0.5 too, but the patch no longer comes after the reproduction, and the
# diagnosis it must follow is missing: two violations, which recall alone never shows.
out_of_order = plan.replace(steps=[plan.step("S0"), replace(plan.step("S3"), depends_on=())])

# Exercise 2: the audit breaks the contract's intent (static layer): SemanticError. Without a contract
# the vouched premise is only an assumption (warning assumed_fact): it runs, and the run re-checks it.
# The checklist breaks the strict contract's order (semantics): SemanticError. The real output has
# import errors (self references): SchemaError. With nothing obtainable, the facts the steps need are
# infeasible: PlanningFailure.
gates = {
    "audit, read-only": (audit, read_only, "SemanticError"),
    "vouched, no contract": (vouched.replace(contract=None), None, "runs"),
    "checklist, strict": (checklist, strict, "SemanticError"),
    "real output": (example, None, "SchemaError"),
    "nothing obtainable": (plan, replace(contract, obtainable_facts=()), "PlanningFailure"),
}

# Exercise 3: a placeholder is resolved at run time, so validation checks only what it refers to: the step
# must exist (R9 does not; ids are case-sensitive, so r5 does not either), and be an ancestor of R4: not R4
# itself, and not R6, which runs after R4 (its result cannot exist yet). Spaces inside the braces and text around the placeholder are fine, and so is R1.tenants: R1 is an
# ancestor, and whether its result has a "tenants" field is for the run to find out. A literal is checked
# now: the snapshot id typed as a number is bad_arguments; as text it is fine.
placeholder_verdicts = {"as written": "ok", "spaces": "ok", "in a sentence": "ok", "an earlier step": "ok",
                        "twice": "ok", "no such step": "bad_placeholder",
                        "a later step": "bad_placeholder", "its own output": "bad_placeholder",
                        "lower case": "bad_placeholder", "a number": "bad_arguments", "a literal id": "ok"}

CHECKED = {
    "check_grade": check_grade(grade_it),
    "check_exercise_1": check_exercise_1(plan=out_of_order),
    "check_exercise_2": check_exercise_2(gates),
    "check_exercise_3": check_exercise_3(placeholder_verdicts),
}

for feedback in CHECKED.values():
    print(feedback)
