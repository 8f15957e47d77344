"""Stage 6, front ends: where people meet planviz.

================  ===============================================================================
module            owns
================  ===============================================================================
``panels``        what the explorer and the reports both show (frame pictures, event rows, metrics)
``page``          the one page shell: script-safe JSON, the locked CSP, the front-end module, no-script view
``js/``           the one front end (ES modules, with ``explorer.css``): the widget's, inlined by every page
``jsmodules``     ``module_text``: the front end's modules joined into the one module text both hosts load
``snapshot``      what the front end draws a run from: pictures, deltas, log, details, legend, timeline
``deltatable``    what the front end steps through: a picture per plan version, each event's changes
``pagedata``      the one page data format: a snapshot as columns (its JSON Schema ships beside it)
``runpage``       the offline page of runs: report, two-run report, ``animate``'s flipbook, the static fallback
``htmlreport``    ``report_html``: one self-contained, offline HTML page that steps through a run
``pairreport``    ``report_html([a, b])``: two runs side by side on one stepper, offline
``slides``        ``animate``: a run's frames for slides (GIF, PNG folder, the page as a flipbook)
``explorer``      ``explore``, ``replay``, ``Explorer``: the anywidget
``viewpanel``     the explorer's view choice (focus, hops, auto, whole)
``widget``        ``FrontEnd``: the anywidget running the front end in a notebook, with its static fallback
``sidebyside``    ``side_by_side``: two runs on one stepper (the widget's two-run mode)
``terminal``      progress of long commands on a terminal, clean Ctrl-C
``cli``           the ``planviz`` command (also ``python -m planviz``)
``evaluationcli`` ``planviz campaign`` and ``planviz ablation`` (local processes or a Dask scheduler)
``demo``          the headless walkthrough behind ``make demo``
================  ===============================================================================

Only ``widget`` and ``explorer`` import anywidget (built on ipywidgets). The top of the flow (with
:mod:`planviz.teaching`): may read every stage, and no other stage imports it.
"""
