"""OpenInference spans: OpenTelemetry spans with the OpenInference attributes (``openinference.span.kind``).

Written by the OpenInference instrumentations (LangChain, LlamaIndex,
smolagents, OpenAI Agents, CrewAI, DSPy...). The file shapes are
OpenTelemetry's (SDK span JSON, OTLP/JSON), so :mod:`~planviz.traces.otel.genai`
reads them; :mod:`~planviz.traces.otel.otelspans` reads each span by its own
convention, with the attribute decoding of :mod:`~planviz.traces.otel.openinferencevalues`:

- a tool call's arguments are its ``input.value``, unwrapped from the
  ``{"args": [...], "kwargs": {...}}`` that smolagents and LlamaIndex write,
  JSON-decoded; text that is not JSON (a Python repr) is kept as text. Never
  ``tool.parameters``: that is the tool's JSON schema, not the call;
- its result is ``output.value``; tokens are ``llm.token_count.prompt`` and
  ``llm.token_count.completion``; the model ``llm.model_name``;
- the goal is the user's task in the AGENT span's ``input.value`` (else a
  CHAIN span's, else the first LLM span's user message); each model call's
  input and reply from ``llm.input_messages.*`` / ``llm.output_messages.*``
  (else ``input.value`` / ``output.value``).

>>> TITLE
'OpenInference'
"""

from __future__ import annotations

from planviz.runs.events import Run
from planviz.traces import Document, Sample
from planviz.traces.otel.genai import (
    detect as otel_detect,  # the span shapes are OpenTelemetry's
    read as otel_read,
)
from planviz.traces.otel.openinferencevalues import KIND

__all__ = ["TITLE", "detect", "read"]

TITLE = "OpenInference"


def detect(sample: Sample) -> float:
    """Sure when OpenTelemetry spans carry ``openinference.span.kind``; 0 otherwise."""
    if otel_detect(sample) <= 0:
        return 0.0
    if sample.parsed:
        return 0.95 if KIND in repr(sample.data)[: 1 << 20] else 0.0
    return 0.95 if KIND in sample.text else 0.0


def read(doc: Document) -> Run:
    """The run of OpenInference spans (read as OpenTelemetry spans, each by its own convention)."""
    return otel_read(doc)
