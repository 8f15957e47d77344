"""Stage 5, pictures: plans, findings and run frames drawn by Graphviz, safe with untrusted text.

===============  ==================================================================================
module           owns
===============  ==================================================================================
``escape``       the one escaping function for labels, the attribute allowlist, the SVG check
``style``        the visual vocabulary (looks per status) and the style of each node and edge in a frame
``layout``       Graphviz layout, in process or in a child process with time and memory limits; frame templates
``diagram``      ``Diagram``: a picture as SVG, positioned DOT and PNG; shows itself in a notebook
``drawing``      ``render``: a plan, its findings or one moment of a run, laid out once per plan version
``captions``     what a picture says besides shapes: caption, slack and finding notes, event lines
``labels``       label text wrapped and cut between words, never inside one (long tool names)
``arrangement``  which way ranks run (long chains top to bottom), which edges ``reduce=`` leaves out
``focus``        the view of a big plan: a failure's subgraph or a step's neighbourhood, the rest summarised
``grouping``     ``collapse="chains"`` and ``group_by="kind"``
``budget``       the measured layout cost model: what a layout would cost before it is tried
``summary``      the summary picture of a plan too big to draw
``gantt``        the timeline chart: a run against its critical path
``fatepicture``  the alignment picture: a plan with each step's fate in a run, unplanned calls attached
``animation``    the frames ``animate`` shows and the raster ones (GIF, PNG folder); ``Animation``
``costchart``    ``render_campaign``: a campaign's success rate against its cost, with both intervals
===============  ==================================================================================

Reads every earlier stage (plan, structure, analysis, runs); never the front ends or ipywidgets.
"""
