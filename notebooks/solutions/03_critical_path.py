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
from planviz.teaching.lesson03 import (check_critical_path, check_exercise_1, check_exercise_2, check_exercise_3,
                                       check_ready_waves)

cache = planviz.examples.load("cache_isolation")  # the notebook's plan, under a name of its own


def with_duration(plan, step_id, duration):
    """A copy of the plan in which one step takes ``duration``."""
    return plan.replace(steps=tuple(replace(s, duration=duration) if s.id == step_id else s for s in plan.steps))


# Build it: the two passes. First an order with dependencies first (take any step whose dependencies
# are all placed, until none is left: the plans here have no cycle). The forward pass gives each step
# the latest finish among its dependencies; the backward pass, in reverse order, the earliest latest
# start among its dependents (the makespan for a step nothing depends on), minus its own duration.
def passes(plan):
    """{step id: (earliest start, latest start)} by a forward and a backward pass."""
    steps = {s.id: s for s in plan.steps}
    order, placed = [], set()
    while len(order) < len(steps):
        for s in plan.steps:
            if s.id not in placed and all(d in placed for d in s.depends_on):
                order.append(s.id)
                placed.add(s.id)
    earliest = {}
    for sid in order:
        earliest[sid] = max((earliest[d] + steps[d].duration for d in steps[sid].depends_on), default=0.0)
    makespan = max((earliest[sid] + steps[sid].duration for sid in steps), default=0.0)
    dependents = {sid: [] for sid in steps}
    for s in plan.steps:
        for d in s.depends_on:
            dependents[d].append(s.id)
    latest = {}
    for sid in reversed(order):
        finish_by = min((latest[k] for k in dependents[sid]), default=makespan)
        latest[sid] = finish_by - steps[sid].duration
    return {sid: (earliest[sid], latest[sid]) for sid in steps}


# Build it: a step's wave is one more than the latest wave of its dependencies (0 without any); the
# plans have no cycle, so the recursion ends. Then group the steps by wave.
def waves(plan):
    """The ready waves: a list of sets of step ids, first wave first."""
    steps = {s.id: s for s in plan.steps}
    level = {}

    def wave_of(sid):
        if sid not in level:
            level[sid] = 1 + max((wave_of(d) for d in steps[sid].depends_on), default=-1)
        return level[sid]

    out = [set() for _ in range(1 + max((wave_of(sid) for sid in steps), default=-1))]
    for sid in steps:
        out[wave_of(sid)].add(sid)
    return out


assert passes(cache)["S2"] == (5, 10)  # S2's slack of 5 minutes, as the table shows


# Exercise 1: S0 -> S2 -> S3 -> S4 now takes 5 + 9 + 6 + 10 = 30 minutes, more than the 29 of the chain
# through S1: S2 slowed down by 6 minutes, one more than its slack of 5, so it became critical.
slow = planviz.critical_path(with_duration(cache, "S2", 9))
path, makespan = slow.path, slow.makespan

# Exercise 2: S3 and S4 save the full 6 minutes; S0 takes only 5, so it saves 5; S1 saves 5, not 6,
# because after 5 minutes the chain through S2 (slack 5) becomes the longest; S2 is off the critical
# path and saves nothing.
base = planviz.critical_path(cache).makespan
faster = {s.id: base - planviz.critical_path(with_duration(cache, s.id, max(0, s.duration - 6))).makespan
          for s in cache.steps}

# Exercise 3: with two workers, one follows the critical path S0 -> S1 -> S3 -> S4 while the other
# runs S2 (3 minutes) and then the docs (4 minutes), both inside S1's 8 minutes: still 29.
docs = Step("S5", "Read the cache docs", depends_on="S0", duration=4)
wider = cache.replace(steps=cache.steps + (docs,))
target = planviz.critical_path(wider).makespan
workers_needed = next(k for k in range(1, 10) if planviz.ready_timeline(wider, workers=k)[-1].time == target)

CHECKED = {
    "check_critical_path": check_critical_path(passes),
    "check_ready_waves": check_ready_waves(waves),
    "check_exercise_1": check_exercise_1(path=path, makespan=makespan),
    "check_exercise_2": check_exercise_2(faster),
    "check_exercise_3": check_exercise_3(plan=wider, workers=workers_needed),
}

for feedback in CHECKED.values():
    print(feedback)
