"""Solutions to notebook 09, debugging a real trace.

Try the exercises first. This file uses the notebook's objects (``run``, ``declared``...), so run it at
the end of the notebook with ``%run -i solutions/09_debugging_a_real_trace.py``: it runs every answer
through the notebook's check and prints the verdicts. CI runs it the same way.
"""

import json

import planviz
from planviz import Fault, Plan
from planviz.teaching.lesson09 import check_exercise_1, check_exercise_2, check_exercise_3, check_exercise_4

# Exercise 1: both agents called get_current_time, then write_file, and both completed: the events
# agree one by one, so there is no first divergence. The extra model call shows only in the usage:
# time, model calls, input and output tokens, and cost; tool calls are the same.
langchain = planviz.load_trace(planviz.examples.trace("any-agent_LANGCHAIN_trace"))
usage = planviz.diff_runs(run, langchain)
a, b = usage.usage
differ = {name for name in ("time", "tool_calls", "model_calls", "input_tokens", "output_tokens", "cost",
                             "reasoning_tokens", "cached_tokens", "total_tokens") if getattr(a, name) != getattr(b, name)}

# Exercise 2: drop `check`, the step that reads the file back. Then every declared step ran as planned,
# but only because the plan stopped promising the verification the agent skipped (b).
trusting = Plan(declared.goal, [s for s in declared.steps if s.id != "check"])

# Exercise 3: the first call fails once in the simulation where the recorded one completed: the runs
# part at that completion (event 2). The workflow retries the transient failure, so it still completes.
transient = planviz.simulate(run.plan, faults=[Fault("get_current_time", "transient")], strategy="workflow")
parted = planviz.diff_runs(run, transient)

# Exercise 4: write_file's text is "2025"; get_current_time's result is
# {"timezone": "America/New_York", "datetime": "2025-09-16T08:43:13-04:00", "is_dst": true}: the year is a
# part of the datetime field, not a whole value: derived (hindsight.data_edges says the same).
text = dict(run.plan.step("write_file").arguments)["text"]
results = {step: o.data.get("result") for step, o in run.state.observations}  # a result as JSON gives it
source = next(step for step, r in results.items() if r and text in json.dumps(r) and step != "write_file")
field = next(k for k, v in results[source].items() if text in str(v))
kind = "exact" if text == results[source][field] else "derived"

CHECKED = {
    "check_exercise_1": check_exercise_1(first_divergence=usage.first_divergence, differ=differ),
    "check_exercise_2": check_exercise_2(plan=trusting, choice="b"),
    "check_exercise_3": check_exercise_3(divergence=parted.first_divergence, outcome=transient.outcome),
    "check_exercise_4": check_exercise_4(source=source, field=field, kind=kind),
}

for feedback in CHECKED.values():
    print(feedback)
