"""Stage 4, runs: simulated and recorded runs, their traces, and what they measure.

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
``recorder``            ``Recorder``: a real agent's run, framed by the same machine
``tracefile``           planviz's JSON Lines trace format: ``save_trace``, ``load_trace``, ``parse_trace`` (schema
                        versions, size caps, streaming)
``tracefields``         every field of a trace record, checked on the way in and written compactly on the way out
``measures``            ``metrics`` and ``attribute``: the figures of one run, and who is to blame
``comparison``          ``compare``: strategies side by side on the same faults
``faultmodel``          ``FaultModel``: fault lists sampled at a rate per step, one generator per sample
``intervals``           the 95% Wilson interval of a success rate, ``Estimate`` (a mean and its interval)
``mechanisms``          what a campaign row runs: a strategy, or the planner with mechanisms off (ablation rows)
``dispatch``            a campaign's chunks in-process, on a ``concurrent.futures`` executor or on Dask
``evaluation``          ``campaign`` and ``ablation``: strategies or mechanisms over a task set, with a spread
``campaigntable``       ``Campaign``, ``CampaignRow``: the rows as text, records, a frame, JSON
``traces``              trace formats, one module each (OTel, OpenInference, LangGraph...), and the registry that
                        picks one: ``load_traces``, detection, a file opened once
``playback``            a recorded timeline played through the machine (how foreign traces become runs)
``matching``            which step of one side is which of the other (plan and run, run and run)
``alignment``           ``align``: each planned step's fate, the unplanned calls
``rundiff``             ``diff_runs``: first divergence, steps in one run only, changes
``usage``               ``run_usage``, ``Usage``: the one count of model calls, tokens, cost, tool calls and time
``retrospect``          ``hindsight``: actual makespan against the ideal one with only data dependencies; waits
======================  ==================================================================================

Reads the plan, structure, checks and analysis stages; never pictures or front ends.
"""
