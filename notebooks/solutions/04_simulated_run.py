"""Solutions to notebook 04, a simulated run with faults (its exercises 1 to 3; 4 and 5 are in notebook 05).

Try the exercises first. This file uses the notebook's objects (``plan``, ``contract``, ``explorer``...), so run it at the end
of the notebook with ``%run -i solutions/04_simulated_run.py``: it runs every answer through the notebook's check and prints the verdicts. CI runs it the same way.
"""

import planviz
from planviz import Fault
from planviz.teaching.lesson04 import check_exercise_1, check_exercise_2, check_exercise_3, check_failure_scope

# Build it: the side effect's scope. Find the patch to undo: the step itself when it is a patch, else
# the nearest patch walking back (breadth first, so the first patches found are the nearest; ties by
# id), else the direct dependencies (the step itself without any). Then void it and everything
# downstream, following the dependents.
def voided(plan, step_id):
    """The ids a side effect found at step_id voids: the patch that caused it and everything downstream."""
    steps = {s.id: s for s in plan.steps}
    if steps[step_id].kind == "patch":
        roots = [step_id]
    else:
        distance, frontier = {}, [step_id]
        while frontier:
            nearer = []
            for sid in frontier:
                for d in steps[sid].depends_on:
                    if d not in distance:
                        distance[d] = distance.get(sid, 0) + 1
                        nearer.append(d)
            frontier = nearer
        patches = [a for a in distance if steps[a].kind == "patch"]
        if patches:
            roots = [min(patches, key=lambda a: (distance[a], a))]
        else:
            roots = sorted(set(steps[step_id].depends_on)) or [step_id]
    dependents = {sid: [] for sid in steps}
    for s in plan.steps:
        for d in s.depends_on:
            dependents[d].append(s.id)
    found, todo = set(), list(roots)
    while todo:
        sid = todo.pop()
        if sid not in found:
            found.add(sid)
            todo.extend(dependents[sid])
    return found


# Exercise 1: the fault withdraws key_builder_located at S3. Its producer is S1, so execution returns
# to S1: S1 and everything built on its fact (S3, S4) are in the scope; the run voids S1 and S3 (S4 never
# started, so there is nothing of it to void; the check takes either set). S0 and S2 keep their work.
withdrawn = explorer.inject(Fault("S3", "withdraw", fact="key_builder_located"))
voiding_event = next(e for e in withdrawn.events if e.kind == "invalidate")
restart = voiding_event.message.split("return to ")[1].split("'")[1]

# Exercise 2: max_retries is 2. With times=2, S1 fails twice and the second retry passes: plan_complete.
# With times=3, the third attempt fails too and no retry is left: step_failed after 3 attempts.
twice = planviz.simulate(plan, contract, faults=[Fault("S1", "transient", times=2)])
thrice = planviz.simulate(plan, contract, faults=[Fault("S1", "transient", times=3)])
attempts = sum(1 for e in thrice.events if e.kind == "start" and e.step == "S1")

# Exercise 3: search every step and kind of the table. A goal change at S4 voids the four steps that
# were done (and stops, with no new goal); a transient failure never voids anything, its scope is empty.
# (Outside the table, an observation that contradicts the very first fact at S4, extra_fact
# "not leak_reproduced", voids all five: a conflict sends execution back to the start.)
voided_work = {}
for candidate in plan.steps:
    for kind in ("transient", "withdraw", "side_effect", "goal_change"):
        for fact in (candidate.requires if kind == "withdraw" else [None]):
            fault = Fault(candidate.id, kind, fact=fact)
            voided_work[fault] = planviz.metrics(planviz.simulate(plan, contract, faults=[fault])).work_voided
most = max(voided_work, key=voided_work.get)

CHECKED = {
    "check_failure_scope": check_failure_scope(voided),
    "check_exercise_1": check_exercise_1(voided=voiding_event.voided, kept=voiding_event.kept, restart=restart),
    "check_exercise_2": check_exercise_2(outcome_2=twice.outcome, outcome_3=thrice.outcome, attempts_3=attempts),
    "check_exercise_3": check_exercise_3(most=most, never="transient"),
}

for feedback in CHECKED.values():
    print(feedback)
