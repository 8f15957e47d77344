"""Stage 3b, analysis: what a plan promises (schedule, parallel work) and what a failure costs.

=============  ==================================================================================
module         owns
=============  ==================================================================================
``schedule``   ``critical_path``: forward and backward pass, makespan, slack, the critical path
``timeline``   ``ready_waves`` and ``ready_timeline``: what can run at once, with durations and workers
``reach``      ``reachable`` and ``invalidated``: the least fixed point of dependencies and facts
``scope``      ``failure_scope``: what one classified failure voids and keeps
``blocking``   ``why_blocked``: the chain from a blocked step back to its root cause
=============  ==================================================================================

Reads the plan and structure stages; never checks, runs, pictures or front ends.

The worked example of the spec (durations in minutes):

>>> from planviz import Plan, Step
>>> plan = Plan("fix the cache", [
...     Step("S0", "reproduce", duration=5, produces="leak_reproduced", kind="reproduce"),
...     Step("S1", "locate", duration=8, depends_on="S0", produces="key_builder_located"),
...     Step("S2", "contract", duration=3, depends_on="S0"),
...     Step("S3", "patch", duration=6, depends_on=["S1", "S2"], requires="key_builder_located",
...          kind="patch"),
...     Step("S4", "verify", duration=10, depends_on="S3", kind="verify")])
>>> from planviz import critical_path, ready_waves, failure_scope
>>> schedule = critical_path(plan)
>>> schedule.makespan, schedule.serial_time, schedule.path, schedule.steps["S2"].slack
(29.0, 32.0, ('S0', 'S1', 'S3', 'S4'), 5.0)
>>> [sorted(wave) for wave in ready_waves(plan)]
[['S0'], ['S1', 'S2'], ['S3'], ['S4']]
>>> scope = failure_scope(plan, "S4", "side_effect")
>>> scope.action, scope.restart, sorted(scope.voided), sorted(scope.kept)
('invalidate_subgraph', 'S3', ['S3', 'S4'], ['S0', 'S1', 'S2'])
"""
