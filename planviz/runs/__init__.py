"""Stage 4, runs: simulated and recorded runs, their traces, and what they measure.

==============  ==================================================================================
module          owns
==============  ==================================================================================
``fault``       ``Fault``: what to inject, at which step, how often
``events``      the values of a run: ``Observation``, ``ExecutionState``, ``Conflict``, ``Event``, ``Frame``, ``Run``
``frames``      how a run keeps its frames: snapshots plus deltas, indexed once (``Run.frame`` reads them)
``machine``     the run state machine shared by the simulator and the recorder (events hold what changed)
``ledger``      what the last event showed and what changed since: how the machine emits deltas
``revision``    plan revisions: ``reissue``, redundant work, completed steps a revision may not change
``simulation``  ``simulate``: the controller (strategies, faults, scoped recovery, replanning)
``recorder``    ``Recorder``: a real agent's run, framed by the same machine
``tracefile``   planviz's JSON Lines trace format: ``save_trace``, ``load_trace``, ``parse_trace`` (caps, streaming)
``tracefields`` every field of a trace record, checked on the way in and written compactly on the way out
``measures``    ``metrics`` and ``attribute``: the figures of one run, and who is to blame
``comparison``  ``compare``: strategies side by side on the same faults
==============  ==================================================================================

Reads the plan, structure, checks and analysis stages; never pictures or front ends.
"""
