"""planviz's own JSON Lines traces in the registry: detected by their header line, read by
:mod:`planviz.traces.own.tracefile` (which owns the format: schema versions, caps, streaming).

>>> from planviz.traces import Sample
>>> detect(Sample.of(b'{"type": "header", "schema": "planviz-trace", "version": 2}\\n'))
1.0
>>> detect(Sample.of(b'{"resourceSpans": []}'))
0.0
"""

from __future__ import annotations

import re

from planviz.runs.events import Run
from planviz.traces import Document, Sample
from planviz.traces.own.tracereader import read_trace, trace_lines

__all__ = ["TITLE", "detect", "read"]

TITLE = "planviz JSON Lines"
_HEADER = re.compile(r'\{\s*"type"\s*:\s*"header"')
_RECORD = re.compile(
    r'^\{\s*"(type|schema|version)"\s*:\s*"?(header|plan|event|planviz-trace)?', re.M
)


def detect(sample: Sample) -> float:
    """1 for a planviz header line; a little for a file with a line that looks like a planviz record
    (its reader then says what is wrong with it); 0 otherwise."""
    if sample.parsed:
        data = sample.data
        first = data[0] if isinstance(data, list) and data else data
        return (
            1.0
            if isinstance(first, dict) and first.get("type") == "header" and "schema" in first
            else 0.0
        )
    if _HEADER.match(sample.text):
        return 1.0
    return 0.2 if _RECORD.search(sample.text) else 0.0


def read(doc: Document) -> Run:
    """The run of a planviz trace, read line by line from the file."""
    return read_trace(trace_lines(doc.stream(), doc.name, doc.max_bytes), doc.name)
