"""Stage 6, front ends: where people meet planviz.

================  ===============================================================================
module            owns
================  ===============================================================================
``panels``        what the explorer and the reports both show (frame pictures, event rows, metrics)
``page``          what every offline page needs: script-safe JSON and the locked CSP
``deltatable``    what the report's script steps through: a picture per plan version, each event's changes
``htmlreport``    ``report_html``: one self-contained, offline HTML page that steps through a run
``pairreport``    ``report_html([a, b])``: two runs side by side on one stepper, offline
``explorer``      ``explore``, ``replay``, ``Explorer``: the ipywidgets app
``viewpanel``     the explorer's view controls (focus, hops, search)
``sidebyside``    ``compare_runs``: two runs in one ipywidgets stepper
``terminal``      progress of long commands on a terminal, clean Ctrl-C
``cli``           the ``planviz`` command (also ``python -m planviz``)
``evaluationcli`` ``planviz campaign`` and ``planviz ablation`` (local processes or a Dask scheduler)
``demo``          the headless walkthrough behind ``make demo``
================  ===============================================================================

Only ``explorer``, ``viewpanel`` and ``sidebyside`` import ipywidgets. The top of the flow (with
:mod:`planviz.teaching`): may read every stage, and no other stage imports it.
"""
