"""OpenInference spans: OpenTelemetry spans with the OpenInference attributes (``openinference.span.kind``).

Written by the OpenInference instrumentations (LangChain, LlamaIndex,
smolagents, OpenAI Agents, CrewAI, DSPy...). The file shapes are
OpenTelemetry's (SDK span JSON, OTLP/JSON), so :mod:`~planviz.runs.traces.otel`
reads them; :mod:`~planviz.runs.traces.otelspans` reads each span by its own
convention (arguments from ``input.value``, never from ``tool.parameters``,
which is the tool's schema). This module only tells the convention apart.

>>> from planviz.runs.traces import Sample
>>> detect(Sample.of(b'{"name": "x", "context": {"span_id": "0x1"}, "attributes": '
...                  b'{"openinference.span.kind": "TOOL"}}')) > 0.8
True
"""

from __future__ import annotations

from typing import Any

from ..events import Run
from . import otel

__all__ = ["TITLE", "detect", "read", "KIND"]

TITLE = "OpenInference"
KIND = "openinference.span.kind"


def detect(sample: Any) -> float:
    """Sure when OpenTelemetry spans carry ``openinference.span.kind``; 0 otherwise."""
    if otel.detect(sample) <= 0:
        return 0.0
    if sample.parsed:
        return 0.95 if KIND in repr(sample.data)[:1 << 20] else 0.0
    return 0.95 if KIND in sample.text else 0.0


def read(doc: Any) -> Run:
    """The run of OpenInference spans (read as OpenTelemetry spans, by the OpenInference convention)."""
    return otel.read(doc)
