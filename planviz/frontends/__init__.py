"""Stage 6, front ends: where people meet planviz.

===============  ================================================================================
module           owns
===============  ================================================================================
``panels``       what the explorer and the report both show (frame pictures, event rows, metrics)
``htmlreport``   ``report_html``: one self-contained, offline HTML page that steps through a run
``deltatable``   what the report's script steps through: one picture per plan version, what each event changes
``explorer``     ``explore``, ``replay``, ``Explorer``: the ipywidgets app (the only ipywidgets user)
``cli``          the ``planviz`` command
``demo``         the headless walkthrough behind ``make demo``
===============  ================================================================================

The top of the flow: may read every stage, and nothing imports it.
"""
