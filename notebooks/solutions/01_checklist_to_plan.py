"""Solutions to notebook 01, from a checklist to a plan.

Try the exercises first. Then, at the end of the notebook, run
``%run -i solutions/01_checklist_to_plan.py``: it defines each answer, runs it
through the notebook's check and prints the verdicts (``python
notebooks/solutions/01_checklist_to_plan.py`` works too). CI runs this file
the same way, so a solution that stops passing fails the build.
"""

from dataclasses import replace

import networkx as nx

import planviz
from planviz import Step
from planviz.teaching.lesson01 import (check_ancestors, check_exercise_1, check_exercise_2, check_exercise_3,
                                       check_topological_order)

cache = planviz.examples.load("cache_isolation")  # the notebook's plan, under a name of its own


# Build it: a step's ancestors. A to-do stack of ids to visit and a set of ids found; each id is
# visited once, so a step reached along two routes (S0, through S1 and through S2) costs nothing extra.
def ancestors(plan, step_id):
    """The ids of every step that must finish before step_id can start (not step_id itself)."""
    found = set()
    todo = list(plan.step(step_id).depends_on)
    while todo:
        sid = todo.pop()
        if sid not in found:
            found.add(sid)
            todo.extend(plan.step(sid).depends_on)
    return found


# Build it: a topological order (Kahn's algorithm). Count each step's dependencies not yet placed;
# place the steps whose count is zero (the smallest id first, so the answer is the same every time) and
# lower the counts of the steps that wait for them. Steps that never reach zero wait for each other,
# directly or not: a cycle, so there is no order (None).
def order(plan):
    """The step ids with each step after its dependencies, or None when the plan has a cycle."""
    waiting = {s.id: len(set(s.depends_on)) for s in plan.steps}
    dependents = {s.id: [] for s in plan.steps}
    for s in plan.steps:
        for d in set(s.depends_on):
            dependents[d].append(s.id)
    ready = sorted(sid for sid, n in waiting.items() if n == 0)
    placed = []
    while ready:
        sid = ready.pop(0)
        placed.append(sid)
        for other in dependents[sid]:
            waiting[other] -= 1
            if waiting[other] == 0:
                ready.append(other)
        ready.sort()
    return placed if len(placed) == len(waiting) else None


# Exercise 1: S5 requires isolation_verified and hit_rate_ok; S4 produces both, so S5 depends on S4
# (S0 to S3 then come first too: they are S4's ancestors, so S5's).
deploy = Step("S5", "Deploy the fix behind a feature flag", depends_on="S4",
              requires=["isolation_verified", "hit_rate_ok"], produces="fix_deployed",
              expected_evidence="the flag is on in staging and the isolation test passes there")
with_s5 = cache.replace(steps=cache.steps + (deploy,))

# Exercise 2: an edge carries what its source produces that its target requires.
edge_facts = list(planviz.to_graph(with_s5).edges["S4", "S5"]["facts"])

# Exercise 3: without depends_on, S4 is no longer an ancestor of S5, so the facts S5 requires are
# produced by no ancestor: unmet_requirement. Steps start when their dependencies are complete;
# the order of the file gives an executor no reason to wait for S4 (reason b).
loose = with_s5.replace(steps=cache.steps + (replace(deploy, depends_on=()),))
code = next(f.code for f in planviz.validate(loose, loose.contract).findings if "S5" in f.steps)

CHECKED = {
    "check_ancestors": check_ancestors(ancestors),
    "check_topological_order": check_topological_order(order),
    "check_exercise_1": check_exercise_1(with_s5),
    "check_exercise_2": check_exercise_2(edge_facts),
    "check_exercise_3": check_exercise_3(code=code, reason="b"),
}
assert ancestors(plan, "S4") == nx.ancestors(planviz.to_graph(plan), "S4")

for feedback in CHECKED.values():
    print(feedback)
