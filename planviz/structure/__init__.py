"""Stage 2, structure: what the dependencies of a plan make of it.

=============  ==================================================================================
module         owns
=============  ==================================================================================
``index``      the one structural index per plan; the one topological pass (Kahn, over integers)
``cycle``      the one cycle extractor: every loop, named the same everywhere
``dag``        ``require_dag``: the index, or a StructureError naming the unknown id or the loop
``ancestry``   batched "is a member of this group an ancestor of that step?" queries
``graph``      ``to_graph``/``from_graph``: the plan as a ``networkx.DiGraph``
``terminal``   the terminal steps where a plan ends (``kind: finish``, ``contract.final``), and what reaches them
=============  ==================================================================================

Reads only the plan stage (:mod:`planviz.plan`).
"""
