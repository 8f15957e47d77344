"""Stage 1, the plan: the model (steps, plans, contracts, findings) and reading and writing plan files.

=====================  ==========================================================================
module                 owns
=====================  ==========================================================================
``model``              ``Step``, ``Plan``, ``Contract``, ``ToolSpec``, ``Finding``: immutable values
``horizon``            ``Budget`` and the checks of a far-horizon step's own fields
``placeholder``        ``{{S1.field}}``: find, split, rename (the one placeholder syntax)
``lineage``            revision lineage: the original step a re-issued step stands for
``limits``             the caps on untrusted input, in one place (a program or the environment may raise them)
``text``               untrusted bytes, paths and streams to checked text
``syntax``             what both readers share: caps, scalars, field paths back to line and column
``jsonsyntax``         JSON and JSON Lines, depth capped before parsing
``yamlsyntax``         YAML built from its event stream: plain data only, aliases capped
``plaindata``          Python data held to what a plan file could hold (acyclic, finite, string keys, Unicode)
``document``           a parsed plan file and where each field is
``fields``             the field tables of plan files (loader, writer and schema read them)
``records``            parsed data to ``Plan``/``Contract`` and back
``files``              ``parse_plan``/``load_plan``/``dump_plan`` and friends, format detection
``output``             every output file written whole or not at all (a temporary file renamed into place)
``schema``             the JSON Schema of plan files
``importers``          planner outputs in the wild (one module per format)
=====================  ==========================================================================

Nothing here imports a later stage (structure, checks, analysis, runs, pictures, front ends).
"""
