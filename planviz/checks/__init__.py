"""Stage 3a, checks: every defect of a plan found before anything runs, and the gate that refuses it.

================  ==================================================================================
module            owns
================  ==================================================================================
``context``       what all checks share: the structural index, validation caches, finding helpers
``structural``    the structure layer (ids, dependencies, cycles, empty fields, dead ends)
``semantic``      the feasibility and semantics layers (facts, milestones, order, the ancestor rule)
``static``        the static layer (tools, placeholders, artifacts, resources, risk, forbidden states)
``report``        ``Report`` and ``Summary``: what was found, as text, data and a notebook table
``validation``    ``validate``, ``prepare`` and ``refusal``: the layers run together, and the gate
``grading``       ``grade`` and ``grade_many``: a planner's output against a contract, offline
================  ==================================================================================

Reads the plan and structure stages; never analysis, runs, pictures or front ends.
"""
