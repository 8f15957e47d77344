"""Solutions to notebook 02, validation.

Try the exercises first. This file uses the notebook's plans (``plan``, ``contract``, ``edit``,
``forgot_edge``, ``purge``...), so
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
)

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

# Exercise 3: the words decide whether a check is vacuous ("ran", "done", "completed successfully", the
# action restated, and "Patch applied.", the action's word plus one that only means "it ran", are), the step
# decides the severity: S3 holds src/cache/keys.py (it changes the world: an error), S1 and S4 only read (a
# warning). "compiles" is something you could observe, so the check that says it is a predicate, weak as it
# is; the last one is a real predicate.
vacuous = {"S3 ran": "error", "S1 done": "warning", "S3 restated": "error", "S4 completed": "warning",
           "S3 applied": "error", "S3 compiles": None, "S4 both pass": None}

# Exercise 4: one edge fixes two findings (the snapshot argument is read, and the tool's precondition met,
# only when R5 is an ancestor of R4), and the purge gets a check about the world after it.
purge_fixed = edit(edit(purge, "R4", depends_on=["R3", "R5"]), "R4",
                   check="no entry one tenant read from another remains in the cache")

# Exercise 5: each field answers a question a rule reads. Without produces, nothing produces patch_applied for
# S4 (unmet_requirement) and S3 leaves nothing behind (no_artifact, a warning); without expected_evidence the
# plan is malformed (no_evidence); without a check, a warning (no_check). A rollback matters to validation only
# on a high-risk step (high_risk_unguarded). And without requires, nothing: S3 declares no need, so the
# ancestor rule has nothing to check. That silence is the most expensive: the step may start before its
# inputs exist and no finding says so.
contract_fields = {"no requires": set(), "no produces": {"unmet_requirement", "no_artifact"},
                   "no expected_evidence": {"no_evidence"}, "no check": {"no_check"}, "no rollback": set(),
                   "no rollback, high risk": {"high_risk_unguarded"}}

CHECKED = {
    "check_exercise_1": check_exercise_1(codes=codes),
    "check_exercise_2": check_exercise_2(layer=new[0].layer, code=new[0].code),
    "check_exercise_3": check_exercise_3(vacuous),
    "check_exercise_4": check_exercise_4(purge_fixed),
    "check_exercise_5": check_exercise_5(contract_fields),
}

for feedback in CHECKED.values():
    print(feedback)
