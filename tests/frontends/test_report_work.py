"""The report's build stays linear in the run: the work it does (calls of planviz's own functions) at n and 4n
spans of the synthetic ReAct trace (tests/runs/otlp.react_trace). Counts, not seconds: the same on any machine
and under any load.

Every function of planviz called while ``report_html`` builds the page is counted (the trace loaded and its
hindsight worked out beforehand: the run's summary keeps it, and its own work is counted in
tests/runs/test_hindsight_frontier.py; its text matching grows by steps with the digits of the trace's ids) at
n, 2n and 4n spans. Work that
grows linearly, ``a * n + b``, grows twice as much from 2n to 4n as from n to 2n, whatever ``b`` (the picture
draws at most 300 steps at every size and groups the rest, so a group's count is the steps beyond those: ``b``
is negative there, and a plain 4n / n ratio would be above 4); quadratic work grows four times as much. The
whole count and each busy function's count may grow at most 2.4 times as much.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

import planviz
from planviz import load_trace, report_html, run_summary

from ..runs.otlp import react_trace
from .pagedata import page_data, shown_lines

PACKAGE = str(Path(planviz.__file__).parent)
LINEAR = 2.4  # growth from 2n to 4n over growth from n to 2n: 2 when linear, 4 when quadratic
# the frames, the events' changes, the steps' details: what still calls Python per event (the captions module is
# not: the events' caption lines are C passes over columns, most of them composed by the page's script, and
# critical_marks reads only the steps a picture draws, since the fifth round on issue 43; nor are the looks of a
# focused picture's groups: a stretch of events that only move groups' counts is one GroupLooks.restyle call, its
# per-event work a loop inside it, which the count below cannot see)
HOT_PATHS = (
    "runs/frames.py",
    "runs/events.py",
    "frontends/calldetails.py",
)
# the captions' function called once per caption too long for one line that the page keeps (none in a ReAct trace)
CUTTING = ("_cut",)


def _work(tmp_path: Path, spans: int) -> Counter:
    trace = tmp_path / f"t{spans}.json"
    trace.write_text(json.dumps(react_trace(spans)), encoding="utf-8")
    run = load_trace(trace)
    _ = run_summary(run).hindsight  # worked out first, kept by the run's summary the report reads
    calls: Counter = Counter()

    def count(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(PACKAGE):
            code = frame.f_code
            calls[(code.co_filename[len(PACKAGE) + 1 :], code.co_firstlineno, code.co_name)] += 1

    sys.setprofile(count)
    try:
        report_html(run, tmp_path / f"r{spans}.html")
    finally:
        sys.setprofile(None)
    return calls


def _long_captions(tmp_path: Path, spans: int) -> int:
    """How many events the page of ``spans`` spans captions in more than one line (read back from the page)."""
    data = page_data((tmp_path / f"r{spans}.html").read_text(encoding="utf-8"))
    return sum(1 for i in range(len(data["events"])) if shown_lines(data, i)[1].strip())


@pytest.mark.slow
def test_the_report_does_linear_work(tmp_path):
    n, twice, four = (_work(tmp_path, spans) for spans in (1_000, 2_000, 4_000))
    first, then = sum(twice.values()) - sum(n.values()), sum(four.values()) - sum(twice.values())
    assert 0 < then <= LINEAR * first, (
        f"{sum(n.values()):,}, {sum(twice.values()):,}, {sum(four.values()):,} calls"
    )
    # called about once per event or more
    busy = {f for f, k in four.items() if k - twice[f] >= 1_000}
    # the count reaches each hot path that still calls Python per event (the events table, the log and the
    # page's columns are C passes over columns since the fourth round on issue 43: no call to count there; nor
    # run_usage's figures since the fifth, read from the model call records as columns)
    reached = {module for module, _, _ in busy}
    assert set(HOT_PATHS) <= reached, f"not reached: {sorted(set(HOT_PATHS) - reached)}"
    # and what it checks below is most of the work that grows: the busy functions make at least 85% of the calls
    # added from 2k to 4k spans (91% after the fifth round on issue 43; a count of busy functions would fall as
    # passes become C loops)
    added = sum(four[f] - twice[f] for f in busy)
    assert added >= 0.85 * then, (added, then, sorted(busy))
    # a caption too long for one line is cut once (and the picture's own caption of its frame): that work is the
    # page's two-line captions, whose share grows with the digits of the events' numbers and the trace's ids
    # (1,000 to 4,000 spans), not with n
    long = [_long_captions(tmp_path, spans) for spans in (1_000, 2_000, 4_000)]
    for f in busy:
        if f[0] == "pictures/captions.py" and f[2] in CUTTING:
            counts = (n[f], twice[f], four[f])
            assert all(0 < k <= most + 1 for k, most in zip(counts, long)), (f, counts, long)
    grown = {
        f: (n[f], twice[f], four[f])
        for f in busy
        if four[f] - twice[f] > LINEAR * (twice[f] - n[f])
        and not (f[0] == "pictures/captions.py" and f[2] in CUTTING)
    }
    assert not grown, f"grew more than linearly from 1k to 4k spans: {grown}"
