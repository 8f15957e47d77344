"""Live runs: how fast ``planviz.receive`` takes spans and reads them, and how soon a span's step is on screen.

Three measures, wall-clock time (a receiver is threads: the sender, the server's request threads and the reader
share the machine's cores), with the sender on the same machine:

- **received, raw POSTs**: a 10,000-span ReAct trace (:func:`tests.runs.otlp.react_trace`) posted as OTLP/JSON
  in batches of 500 spans, one request after the other, as a collector forwarding a file would;
- **received, SDK exporter**: the same number of spans made by the real OpenTelemetry SDK in an agent loop shape
  (a model call, then a tool call) and sent by its OTLP/HTTP protobuf exporter through a ``BatchSpanProcessor``
  (batches of 512, every 50 ms): from the first span's start to the receiver holding the last;
- **read**: ``rx.run(trace)`` of the 10,000 spans taken: what ``explore(rx)`` does each time a trace grows;
- **span end to step visible**: a tool span ends in an agent traced by the SDK (``SimpleSpanProcessor``: sent as
  it ends) while ``planviz.explore(rx)`` follows the trace; the delay until the explorer's synced snapshot (the
  widget state the browser draws from) holds the step. The explorer re-reads at most once a second, so the
  delay is up to a second plus a reading; measured on a short run and on one already holding 2,000 spans (each
  reading reads the whole trace again). On screen the browser adds its drawing of the new snapshot.

Figures only, no timed assertion. Run: ``.venv/bin/python benchmarks/bench_live.py`` (or ``make bench``).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from common import figure  # noqa: E402

import planviz  # noqa: E402
from tests.runs.otlp import react_trace  # noqa: E402

SPANS, BATCH, PROBES = 10_000, 500, 6


def _post(endpoint: str, doc: dict) -> None:
    body = json.dumps(doc).encode()
    request = urllib.request.Request(
        endpoint, data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status == 200, answer.status


def _batches(doc: dict, size: int) -> list[dict]:
    resource = doc["resourceSpans"][0]
    scope = resource["scopeSpans"][0]
    spans = scope["spans"]
    return [
        {"resourceSpans": [{**resource, "scopeSpans": [{**scope, "spans": spans[i : i + size]}]}]}
        for i in range(0, len(spans), size)
    ]


def raw_posts() -> tuple[float, float]:
    """Seconds to post the trace in batches, and to read it once all was taken."""
    batches = _batches(react_trace(SPANS), BATCH)
    with planviz.receive(port=0) as rx:
        began = time.perf_counter()
        for doc in batches:
            _post(rx.endpoint, doc)
        received = time.perf_counter() - began
        assert rx.accepted == SPANS, rx.accepted
        began = time.perf_counter()
        run = rx.run(rx.trace_ids[0])
        read = time.perf_counter() - began
        assert len(run.plan.steps) == SPANS // 2  # every other span is a tool call
    return received, read


def _sdk(endpoint: str, simple: bool):
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    provider = TracerProvider()
    exporter = OTLPSpanExporter(endpoint=endpoint)
    provider.add_span_processor(
        SimpleSpanProcessor(exporter)
        if simple
        else BatchSpanProcessor(
            exporter, max_queue_size=4 * SPANS, max_export_batch_size=512, schedule_delay_millis=50
        )
    )
    return provider


def _turn(tracer, i: int) -> None:
    with tracer.start_as_current_span(
        "chat model",
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "scripted",
            "gen_ai.usage.input_tokens": 300,
            "gen_ai.usage.output_tokens": 20,
        },
    ):
        pass
    with tracer.start_as_current_span(
        f"execute_tool tool_{i % 13}",
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": f"tool_{i % 13}",
            "gen_ai.tool.call.arguments": json.dumps({"query": f"item {i}"}),
            "gen_ai.tool.call.result": json.dumps({"id": f"result-{i}"}),
        },
    ):
        pass


def sdk_exporter() -> float:
    """Seconds from the first span's start to the receiver holding all SPANS spans the SDK exported."""
    with planviz.receive(port=0) as rx:
        provider = _sdk(rx.endpoint, simple=False)
        tracer = provider.get_tracer("bench")
        began = time.perf_counter()
        with tracer.start_as_current_span(
            "invoke_agent bench", attributes={"gen_ai.operation.name": "invoke_agent"}
        ):
            for i in range((SPANS - 1) // 2):
                _turn(tracer, i)
        provider.force_flush(timeout_millis=120_000)
        while rx.accepted < SPANS - 1 and time.perf_counter() - began < 120:
            time.sleep(0.005)
        taken = time.perf_counter() - began
        # one root and (SPANS - 1) // 2 turns of two spans
        assert rx.accepted == SPANS - 1, rx.accepted
        provider.shutdown()
    return taken


def _timed(obj, name: str, into: list) -> None:
    """Time each call of ``obj.name`` (the follow thread's readings and snapshots) into ``into``."""
    original = getattr(obj, name)

    def timed(*args):
        began = time.perf_counter()
        try:
            return original(*args)
        finally:
            into.append(time.perf_counter() - began)

    setattr(obj, name, timed)


def delays(before: int, probes: int) -> tuple[list[float], list[float], list[float]]:
    """Seconds from a tool span's end to its step in the explorer's snapshot, ``probes`` times, on a trace already
    holding ``before`` turns (two spans each); and the follow thread's readings and snapshots, in seconds."""
    out: list[float] = []
    reads: list[float] = []
    shows: list[float] = []
    with planviz.receive(port=0) as rx:
        provider = _sdk(rx.endpoint, simple=True)
        tracer = provider.get_tracer("bench")
        root = tracer.start_span(
            "invoke_agent bench", attributes={"gen_ai.operation.name": "invoke_agent"}
        )
        from opentelemetry import trace

        with trace.use_span(root, end_on_exit=False):
            for i in range(max(before, 1)):
                _turn(tracer, i)
            explorer = planviz.explore(rx)
            _timed(rx, "run", reads)
            _timed(explorer, "show_recorded", shows)
            for probe in range(probes):
                # the span ends at another point of the explorer's second
                time.sleep(0.37 * (probe % 3))
                name = f"probe_{probe}"
                with tracer.start_as_current_span(
                    f"execute_tool {name}",
                    attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name},
                ):
                    # the span ends here; SimpleSpanProcessor then sends it
                    ended = time.perf_counter()
                while name not in explorer.snapshot.get("details", {}):
                    time.sleep(0.002)
                out.append(time.perf_counter() - ended)
        root.end()
        provider.shutdown()
    return out, reads, shows


def main() -> dict:
    figures = []
    received, read = raw_posts()
    print(
        f"raw OTLP/JSON posts: {SPANS} spans in batches of {BATCH}: {received:.2f} s received, {read:.2f} s read"
    )
    figures.append(
        figure(
            f"`receive`, OTLP/JSON posts of {BATCH} spans: spans received per second",
            SPANS / received,
            unit=" spans/s",
            detail=f"{SPANS} spans in {received:.2f} s",
        )
    )
    figures.append(
        figure(
            f"`rx.run` of a {SPANS}-span live trace: spans read per second",
            SPANS / read,
            unit=" spans/s",
            detail=f"{read:.2f} s",
        )
    )
    taken = sdk_exporter()
    print(
        f"SDK exporter (protobuf, BatchSpanProcessor): {SPANS - 1} spans made and received in {taken:.2f} s"
    )
    figures.append(
        figure(
            "`receive`, OpenTelemetry SDK protobuf exporter: spans made, sent and received per second",
            (SPANS - 1) / taken,
            unit=" spans/s",
            detail=f"{SPANS - 1} spans in {taken:.2f} s",
        )
    )
    for before, probes in ((10, PROBES), (1000, 3)):
        seen, reads, shows = delays(before, probes)
        print(
            f"span end to step in the explorer's snapshot, trace of {2 * before + 1} spans: "
            + ", ".join(f"{s:.2f}" for s in seen)
            + " s"
        )
        split = (
            (
                f"each re-reading: `rx.run` {statistics.median(reads):.2f} s + new snapshot "
                f"{statistics.median(shows):.2f} s (medians)"
            )
            if reads and shows
            else ""
        )
        figures.append(
            figure(
                f"`explore(rx)`: a span's end to its step in the widget's state, trace of "
                f"{2 * before + 1} spans (median)",
                statistics.median(seen),
                unit=" s",
                detail=f"max {max(seen):.2f} s over {len(seen)} spans; {split}; re-read at most "
                "once a second",
            )
        )
    return {"figures": figures}


if __name__ == "__main__":
    main()
