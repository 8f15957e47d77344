"""Graphviz in a child process: the time and memory limits hold, and the child reports what the layout cost."""

from __future__ import annotations

import pygraphviz as pgv
import pytest

from planviz.errors import LayoutTimeout
from planviz.pictures.layout import lay_out


def dense(n: int) -> pgv.AGraph:
    g = pgv.AGraph(directed=True)
    for i in range(n):
        for j in range(i):
            g.add_edge(f"S{j}", f"S{i}")
    return g


def test_child_reports_the_cpu_time_and_memory_of_the_layout():
    layout = lay_out(dense(8), in_child=True, timeout=60, memory=512 * 2**20)
    assert "pos=" in layout.dot and layout.svg.lstrip().startswith("<?xml")
    assert layout.seconds > 0 and layout.peak >= 0


def test_child_out_of_memory_is_stopped_and_says_so():
    with pytest.raises(
        LayoutTimeout, match=r"ran out of its memory limit of 2 MiB laying out 60 nodes"
    ):
        lay_out(dense(60), in_child=True, timeout=120, memory=2 * 2**20)


def test_child_out_of_time_is_stopped_and_says_so():
    with pytest.raises(
        LayoutTimeout, match=r"did not lay out 60 nodes within the time limit of 0\.5 s"
    ):
        lay_out(dense(60), in_child=True, timeout=0.5)
