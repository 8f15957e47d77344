"""Solutions to notebook 02, validation.

Try the exercises first. This file uses the notebook's plans (``plan``, ``contract``, ``edit``,
``forgot_edge``, ``strict``, ``audit``, ``read_only``, ``purge``, ``vouched``, ``checklist``, ``example``...), so
run it at the end of the notebook with ``%run -i solutions/02_validation.py``: it runs every answer
through the notebook's check and prints the verdicts. CI runs it the same way.
"""

from dataclasses import replace

import planviz
from planviz.teaching.lesson02 import (
    check_exercise_1,
    check_exercise_2,
    check_exercise_3,
    check_exercise_4,
    check_exercise_5,
    check_exercise_6,
    check_grade,
)

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


# Exercise 1: S4 still needs patch_applied, but S3 (its producer) is no longer an ancestor of S4:
# unmet_requirement (semantics). The contract also says patch must precede verify, and the patch S3 is
# not an ancestor of the verification S4 any more: order_violation (semantics). One edge, two rules.
# (No dead_end: the plan names no terminal step, so nothing says S3 must lead anywhere.)
drop_s3 = edit(plan, "S4", depends_on=["S2"])
codes = set(planviz.validate(drop_s3, contract).codes)

# Exercise 2: the new pair is a rule of the contract, so the semantics layer reports it as an
# order_violation, beside the unmet_requirement the missing edge already caused.
stricter = replace(contract, must_precede=contract.must_precede + (("S2", "S3"),))
new = [f for f in planviz.validate(forgot_edge, stricter).findings
       if f.code not in planviz.validate(forgot_edge, contract).codes]

# Exercise 3: two of the four milestones, every step well formed: the half plan of the notebook
# (reproduce, diagnose) scores 0.5 with no order violation; so does reproduce -> patch, which keeps
# the order reproduce < patch but lacks diagnose and verify.
half_plan = plan.replace(steps=[plan.step("S0"), plan.step("S1")])

# Exercise 4: the audit breaks the contract's intent (static layer): SemanticError. Without a contract
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

# Exercise 5: the words decide whether a check is vacuous ("ran", "done", "completed successfully" and the
# action restated are), the step decides the severity: S3 holds src/cache/keys.py (it changes the world:
# an error), S1 and S4 only read (a warning). "Patch applied." is not caught: the rule looks for words that
# only mean "it ran" or the action word for word. The last one is a real predicate.
vacuous = {"S3 ran": "error", "S1 done": "warning", "S3 restated": "error", "S4 completed": "warning",
           "S3 applied": None, "S4 both pass": None}

# Exercise 6: one edge fixes two findings (the snapshot argument is read, and the tool's precondition met,
# only when R5 is an ancestor of R4), and the purge gets a check about the world after it.
purge_fixed = edit(edit(purge, "R4", depends_on=["R3", "R5"]), "R4",
                   check="no entry one tenant read from another remains in the cache")

CHECKED = {
    "check_grade": check_grade(grade_it),
    "check_exercise_1": check_exercise_1(codes=codes),
    "check_exercise_2": check_exercise_2(layer=new[0].layer, code=new[0].code),
    "check_exercise_3": check_exercise_3(plan=half_plan),
    "check_exercise_4": check_exercise_4(gates),
    "check_exercise_5": check_exercise_5(vacuous),
    "check_exercise_6": check_exercise_6(purge_fixed),
}

for feedback in CHECKED.values():
    print(feedback)
