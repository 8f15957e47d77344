"""Comparing: two sides of the same work, step by step.

==============  ==================================================================================
module          owns
==============  ==================================================================================
``matching``    which step of one side is which of the other (plan and run, run and run)
``alignment``   ``align``: each planned step's fate in a run, the unplanned calls
``rundiff``     ``diff_runs``: two runs of the same plan or task, first divergence, changes
``comparison``  ``compare_strategies``: strategies simulated side by side on the same plan and faults
==============  ==================================================================================

Reads the simulation modules of ``runs`` (events, usage, measures, simulation), never
``runs.traces``; nothing in ``runs`` outside it reads it.
"""
