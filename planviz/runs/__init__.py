"""Stage 4, runs: simulated and recorded runs, their traces, and what they measure.

Three groups, one way: the modules here are a run and its simulation (the values of a run, the
machine, faults, strategies, metrics, campaigns); ``traces/`` records, writes and reads runs (the
``Recorder``, planviz's trace file, every other trace format); ``comparisons/`` sets two sides
beside each other (``align``, ``diff_runs``, ``compare_strategies``). Both subpackages read the modules here;
the modules here never read them, and they never read each other (``tests/test_layout.py``).

======================  ==================================================================================
module                  owns
======================  ==================================================================================
``fault``               ``Fault``: what to inject, at which step, how often; checked against the plan
``events``              the values of a run: ``Observation``, ``ExecutionState``, ``Conflict``, ``Event``, ``Frame``,
                        ``Run``
``frames``              how a run keeps its frames: snapshots plus deltas, indexed once (``Run.frame`` reads them)
``machine``             the run state machine shared by the simulator and the recorder (events hold what changed)
``ledger``              what the last event showed and what changed since: how the machine emits deltas
``observer``            what an injected fault makes a step's observation say
``revision``            plan revisions: ``reissue``, redundant work, completed steps a revision may not change
``simulation``          ``simulate``: the controller (faults, resources, scoped recovery, replanning)
``strategies``          direct (an adaptive implicit agent), workflow, planner
``approval``            approvals waited for before a step starts; a denial stops the run
``horizon``             far-horizon steps expanded into new plan versions (``expand``, ``awaiting_expansion``)
``goalchange``          a changed goal: everything void, completed work re-checked, a version for the new goal
``measures``            ``metrics`` and ``attribution``: the figures of one run, and who is to blame
``faultmodel``          ``FaultModel``: fault lists sampled at a rate per step, one generator per sample
``intervals``           the 95% Wilson interval of a success rate, ``Estimate`` (a mean and its interval)
``mechanisms``          what a campaign row runs: a strategy, or the planner with mechanisms off (ablation rows)
``dispatch``            a campaign's chunks in-process, on a ``concurrent.futures`` executor or on Dask
``evaluation``          ``campaign`` and ``ablation``: strategies or mechanisms over a task set, with a spread
``campaigntable``       ``Campaign``, ``CampaignRow``: the rows as text, records, a frame, JSON
``usage``               ``run_usage``, ``Usage``: the one count of model calls, tokens, cost, tool calls and time
``lastruns``            ``LastRuns``: worked out once per run for the last runs asked about (each held weakly)
``callrecords``         what a run recorded of each call: when it ran (once per run), its result's values
``provenance``          ``data_edges``: which earlier result a call's arguments came from, and why
``idealplan``           the ideal schedule as a Plan: one plan, the calls over their data, the answer
``hindsightcost``       a hindsight figure's tool, model and wait time; tokens on the critical path and off it
``retrospect``          ``hindsight``: actual makespan against the ideal schedule's; waits
``steptimes``           the run's own steps: model time after their inputs were ready; ``recorded_makespan``
``traces/``             recording (``Recorder``), planviz's trace file (``save_trace``, ``load_trace``,
                        ``parse_trace``), trace formats (OTel, OpenInference, LangGraph...) and the registry
                        that picks one (``load_traces``), playback of a recorded timeline
``comparisons/``        ``align``, ``diff_runs``, ``compare_strategies``, and the step matching they share
``summary/``            ``run_summary``: the analyses a view of a run shows, each computed once per run
======================  ==================================================================================

Reads the plan, structure, checks and analysis stages; never pictures or front ends.
"""
