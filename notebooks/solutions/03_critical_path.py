"""Solutions to notebook 03, critical path and ready sets.

Try the exercises first. Then, at the end of the notebook, run
``%run -i solutions/03_critical_path.py``: it computes each answer with
planviz, runs it through the notebook's check and prints the verdicts
(``python notebooks/solutions/03_critical_path.py`` works too). CI runs this
file the same way.
"""

from dataclasses import replace

import planviz
from planviz import Step
from planviz.teaching.lesson03 import check_exercise_1, check_exercise_2, check_exercise_3

plan = planviz.examples.load("cache_isolation")


def with_duration(plan, step_id, duration):
    """A copy of the plan in which one step takes ``duration``."""
    return plan.replace(steps=tuple(replace(s, duration=duration) if s.id == step_id else s for s in plan.steps))


# Exercise 1: S0 -> S2 -> S3 -> S4 now takes 5 + 9 + 6 + 10 = 30 minutes, more than the 29 of the chain
# through S1: S2 slowed down by 6 minutes, one more than its slack of 5, so it became critical.
slow = planviz.critical_path(with_duration(plan, "S2", 9))
path, makespan = slow.path, slow.makespan

# Exercise 2: S3 and S4 save the full 6 minutes; S0 takes only 5, so it saves 5; S1 saves 5, not 6,
# because after 5 minutes the chain through S2 (slack 5) becomes the longest; S2 is off the critical
# path and saves nothing.
base = planviz.critical_path(plan).makespan
saved = {s.id: base - planviz.critical_path(with_duration(plan, s.id, max(0, s.duration - 6))).makespan
         for s in plan.steps}

# Exercise 3: with two workers, one follows the critical path S0 -> S1 -> S3 -> S4 while the other
# runs S2 (3 minutes) and then the docs (4 minutes), both inside S1's 8 minutes: still 29.
docs = Step("S5", "Read the cache docs", depends_on="S0", duration=4)
wider = plan.replace(steps=plan.steps + (docs,))
target = planviz.critical_path(wider).makespan
workers = next(k for k in range(1, 10) if planviz.ready_timeline(wider, workers=k)[-1].time == target)

CHECKED = {
    "check_exercise_1": check_exercise_1(path=path, makespan=makespan),
    "check_exercise_2": check_exercise_2(saved),
    "check_exercise_3": check_exercise_3(plan=wider, workers=workers),
}

for feedback in CHECKED.values():
    print(feedback)
