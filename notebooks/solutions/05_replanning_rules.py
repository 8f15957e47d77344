"""Solutions to notebook 05, replanning and the rules every revision obeys.

Try the exercises first. This file uses the notebook's objects (``plan``, ``contract``...), so run it at
the end of the notebook with ``%run -i solutions/05_replanning_rules.py``: it runs every answer through
the notebook's check and prints the verdicts. CI runs it the same way. The exercises number on from
notebook 04's.
"""

from dataclasses import replace

import planviz
from planviz import Fault
from planviz.teaching.lesson05 import check_exercise_4, check_exercise_5, check_exercise_6, check_exercise_7, check_invariants


# Build it: what a revision may not change. After a goal change, anything may (the new goal is the point).
# Otherwise the goal must be the old one, and a contract the revision carries must say what the old
# version's says, field for field (== on the dataclass compares every field; `is` would refuse an equal
# copy). A revision that carries no contract keeps the run's, so None is never a change; but where the
# run had no contract, a revision that brings one changes what the run is held to, and the same
# comparison refuses it.
def refuse(old, new, goal_changed):
    """A reason to refuse revision new of plan old (goal_changed_by_replan), or None to adopt it."""
    if goal_changed:
        return None
    if new.goal != old.goal:
        return f"the goal {old.goal!r} became {new.goal!r}"
    if new.contract is not None and new.contract != old.contract:
        return "the revision brings a different contract"
    return None


# Exercise 4: without a new contract, the re-check holds each completed step against the run's own
# contract, which still wants leak_reproduced, key_builder_located and isolation_test_written: all
# three are kept (b); only the pending S3 and S4 are voided and re-issued for the new goal.
new_goal = planviz.simulate(plan, contract, faults=[Fault("S3", "goal_change", goal="Every tenant gets its own cache")])
kept = {e.step for e in new_goal.events if e.kind == "recheck" and e.step in e.kept}


# Exercise 5 (planviz.reissue of the steps not done would pass too: the text forbids no tool). Re-issue by hand
# exactly the steps that are not done: the voided ones, each under a new id that says which step it
# revises, with the dependencies on them renamed too. Everything completed keeps its id and its facts,
# so nothing is redone for nothing, and no completed id changes its meaning.
def just_enough(goal, contract, state, old):
    redo = {s.id: f"{s.revises or s.id}.redo{old.version + 1}" for s in old.steps if s.id not in state.completed}
    steps = []
    for s in old.steps:
        depends_on = [redo.get(d, d) for d in s.depends_on]
        if s.id in redo:
            steps.append(replace(s, id=redo[s.id], revises=s.id, depends_on=depends_on))
        else:
            steps.append(replace(s, depends_on=depends_on))
    return old.replace(steps=steps)


# Exercise 6: the cut-over takes 6 h; a week of silence before retiring the old database cannot be
# estimated at 20 h of work if the budget is 24: re-estimate the retirement (18 h of work: watch the
# connection count, then drop the old cluster), keep the approval and rollback on the risky switch.
within_budget = [dict(step) for step in cut_over]
within_budget[1]["duration"] = 18

# Exercise 7: a and f are time-outs on steps that write nothing (retry); b times out on the patch, which
# writes src/cache/keys.py (rollback, then retry); c observes an extra fact nothing needs (proceed); d and e
# spoil facts later steps need (local replan of the voided scope).
controller_choices = {"a": "retry", "b": "rollback", "c": "proceed", "d": "local replan", "e": "local replan",
                      "f": "retry"}

CHECKED = {
    "check_invariants": check_invariants(refuse),
    "check_exercise_4": check_exercise_4(kept=kept, choice="b"),
    "check_exercise_5": check_exercise_5(propose=just_enough),
    "check_exercise_6": check_exercise_6(steps=within_budget),
    "check_exercise_7": check_exercise_7(choices=controller_choices),
}

for feedback in CHECKED.values():
    print(feedback)
