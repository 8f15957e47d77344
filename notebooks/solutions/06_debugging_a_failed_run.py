"""Solutions to notebook 06, debugging a failed run.

Try the exercises first. This file uses the notebook's agent (``plan``,
``run_agent``, ``observe``, ``TOOLS``, ``locate``, ``trace_path``, ``OUT``...),
so run it at the end of the notebook with
``%run -i solutions/06_debugging_a_failed_run.py``: it records the runs each
exercise asks for, runs every answer through the notebook's check and prints
the verdicts. CI runs it the same way.
"""

import networkx as nx

import planviz
from planviz import Observation, Recorder, Step
from planviz.teaching.lesson06 import (check_exercise_1, check_exercise_2, check_exercise_3, check_exercise_4,
                                       check_exercise_5, check_reachable)


# Build it: the least fixed point with a worklist. Each remaining step counts what it still waits
# for (dependencies not completed, facts not held); a step is reachable when its count reaches zero,
# and then its facts and its dependents are released. Completed steps are never queued, so a fact
# they produced that is no longer held stays lost unless a remaining step produces it again.
def reachable(plan, completed, facts):
    """The ids of the remaining (not completed) steps that could still run if every future step succeeded."""
    held = set(facts)
    waiting, dependents, needers, ready = {}, {}, {}, []
    for s in plan.steps:
        if s.id in completed:
            continue
        deps = [d for d in s.depends_on if d not in completed]
        needs = [f for f in s.requires if f not in held]
        for d in deps:
            dependents.setdefault(d, []).append(s.id)
        for f in needs:
            needers.setdefault(f, []).append(s.id)
        waiting[s.id] = len(deps) + len(needs)
        if not waiting[s.id]:
            ready.append(s.id)
    found = set()
    while ready:
        sid = ready.pop()
        found.add(sid)
        released = list(dependents.get(sid, []))
        for f in plan.step(sid).produces:
            if f not in held:
                held.add(f)
                released += needers.pop(f, [])
        for other in released:
            waiting[other] -= 1
            if not waiting[other]:
                ready.append(other)
    return found


# Exercise 1: S1's report names a function with no callers, so the stricter observer establishes
# nothing for S1; the run fails at S1 (t=13) instead of S4 (t=32), and attribute blames the executor
# (a step did not produce its evidence).
def strict(name, results):
    if name == "S1" and not results["S1"]["callers"]:
        return Observation(True, set(), data=results["S1"])
    return observe(name, results)


strict_clock = [0.0]
strict_recorder = Recorder(contract, clock=lambda: strict_clock[0])
run_agent(plan, strict_recorder, strict_clock, observe=strict)
strict_run = strict_recorder.run
strict_failed = next(e.step for e in strict_run.events if e.kind == "fail")

# Exercise 2: a trace cut at a line boundary loads up to its last whole event: the header, the plan
# and six events, no stop event and no outcome (b).
cut = OUT / "cut_trace.jsonl"
cut.write_text("".join(trace_path.read_text().splitlines(keepends=True)[:8]))
cut_run = planviz.load_trace(cut)

# Exercise 3: with locate fixed, the first look finds cache/keys.py:make_key and the run completes.
# plan_complete says every planned milestone was established, which is evidence about the plan,
# not proof that the user's goal holds (b).
fixed_tools = dict(TOOLS, S1=lambda results, again: locate(called_only=True))
fixed_clock = [0.0]
fixed_recorder = Recorder(contract, clock=lambda: fixed_clock[0])
run_agent(plan, fixed_recorder, fixed_clock, tools=fixed_tools)
fixed_run = fixed_recorder.run

# Exercise 4: the route plus one call of the agent's own (C1 runs before S3: the agent takes the lowest
# ready id); the frozen-plan test finds C1 outside the plan, and blames the executor (S4 still lacks its
# evidence, and the trace leaves the route).
eager_route = plan.replace(steps=[*plan.steps, Step("C1", "Flush the shared cache to be safe", tool="flush_cache",
                                                    depends_on=["S2"], expected_evidence="the cache is empty")])
eager_tools = dict(TOOLS, C1=lambda results, again: {"flushed": 1200})


def eager_observe(name, results):
    if name == "C1":
        return Observation(True, set(), data=results[name])
    return observe(name, results)


eager_clock = [0.0]
eager_recorder = Recorder(contract, clock=lambda: eager_clock[0])
run_agent(eager_route, eager_recorder, eager_clock, observe=eager_observe, tools=eager_tools)
eager_frozen = planviz.frozen_plan_test(plan, contract, trace=eager_recorder.run)

# Exercise 5: on an empty result of a step that has dependents, void it and what depends on it, re-issue
# them and go on; everything else as run_agent does.
def replanning_agent(plan, recorder, clock, observe=observe, tools=TOOLS):
    recorder.propose(plan)
    results = {}
    while recorder.run.frame(-1).ready:
        plan = recorder.run.plan
        step = plan.step(min(recorder.run.frame(-1).ready))
        name = step.revises or step.id
        recorder.start(step.id)
        results[name] = tools[name](results, again=step.revises is not None)
        clock[0] += step.duration
        seen = observe(name, results)
        if "fail" in [e.kind for e in recorder.observe(step.id, seen)]:
            needed_by = [s.id for s in plan.steps if step.id in s.depends_on]
            if seen.facts or not needed_by or step.revises is not None:
                recorder.stop("expected_evidence_missing", f"{step.id} did not show what it promised")
                return
            voided = {step.id} | nx.descendants(planviz.to_graph(plan), step.id)
            trigger = f"{step.id} returned an empty result that {', '.join(needed_by)} need"
            recorder.invalidate(voided, trigger, step_id=step.id)
            recorder.replan(planviz.reissue(plan, voided, trigger), trigger)
    recorder.stop("plan_complete")


replanning_clock = [0.0]
replanning_recorder = Recorder(contract, clock=lambda: replanning_clock[0])
replanning_agent(plan, replanning_recorder, replanning_clock, tools=empty_tools)

CHECKED = {
    "check_reachable": check_reachable(reachable),
    "check_exercise_1": check_exercise_1(run=strict_run, failed_step=strict_failed,
                                         attribution=planviz.attribution(strict_run).party),
    "check_exercise_2": check_exercise_2(run=cut_run, choice="b"),
    "check_exercise_3": check_exercise_3(run=fixed_run, choice="b"),
    "check_exercise_4": check_exercise_4(run=eager_recorder.run, out_of_plan=eager_frozen.out_of_plan,
                                         attribution=eager_frozen.attribution),
    "check_exercise_5": check_exercise_5(run=replanning_recorder.run),
}

for feedback in CHECKED.values():
    print(feedback)
