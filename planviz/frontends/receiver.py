"""``planviz.receive``: an OTLP/HTTP receiver, so a run is read while the agent that makes it runs.

Point an agent's OpenTelemetry exporter at it (``OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318``) and each
trace it sends becomes a :class:`~planviz.Run`, read by the same readers as a file of the same spans (OTel
GenAI, OpenInference, Vercel ``ai.*``): the body is decoded by :mod:`~planviz.frontends.otlpbody` with the
official message classes and written back as the OTLP/JSON a file holds, and :func:`~planviz.load_trace`
reads that. A server thread answers ``POST /v1/traces`` on 127.0.0.1 (``host=`` says otherwise).

Safe by default: a body larger than :data:`~planviz.io.limits.MAX_OTLP_BYTES` (or inflating past it), a body
that is not an ``ExportTraceServiceRequest``, or a span the reader refuses is answered 4xx with the reason and
changes nothing (a request is taken whole or not at all); so is a request that would take what the receiver
holds past :data:`~planviz.io.limits.MAX_TRACE_BYTES` (256 MiB); more than :data:`BUSY` requests at once are
answered 503 with ``Retry-After``, which exporters retry; the receiver keeps serving. A span is kept before its
request is answered 200, and :meth:`Receiver.stop` lets requests already begun finish, so stopping never loses a
span an exporter was told was taken.

>>> import planviz
>>> with planviz.receive(port=0) as rx:  # port 0: a free port, read back from rx.port
...     rx.endpoint.startswith("http://127.0.0.1:"), rx.runs
(True, [])
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from planviz.errors import PlanvizError, TraceFormatError, expect_type, show_value
from planviz.frontends.otlpbody import JSON, PROTOBUF, Refused, decode, inflate, too_large
from planviz.io import limits
from planviz.runs.events import Run
from planviz.traces.jsonstream import walk
from planviz.traces.otel.genai import CONTAINERS
from planviz.traces.otel.otelspans import span_of

__all__ = ["receive", "Receiver", "NoRunYet", "BUSY"]

BUSY = 8  # requests decoded at once; one more is answered 503 (Retry-After: 1) rather than queued without end
PATH = "/v1/traces"
EXPECTED_WHILE_OPEN = (
    "missing_parent"  # a finding only once the run is final: until then the parent may come
)


class NoRunYet(PlanvizError, TimeoutError):
    """:meth:`Receiver.wait` found no finished run in its time."""


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # stop() waits for requests begun: none is lost half-taken

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that left mid-request (a broken pipe, a reset): nothing was taken; no traceback on stderr."""


class _Trace:
    """The spans received for one trace id, one per span id (see :meth:`_Trace.keep`), and the run last read."""

    __slots__ = ("trace_id", "parts", "spans", "finished", "version", "read", "waited")

    def __init__(self, trace_id: str) -> None:
        self.trace_id = trace_id
        self.parts: dict[
            str, tuple[dict[str, Any], dict[str, Any]]
        ] = {}  # resource and scope, by their JSON
        self.spans: dict[
            str, tuple[str, dict[str, Any]]
        ] = {}  # span id -> (its part, the span), first come first
        self.finished = False  # its root span (no parent) arrived, ended
        self.version = (
            0  # grows when a span arrives or is replaced: the run is read again only then
        )
        self.read: tuple[tuple[int, bool], Run] | None = (
            None  # (version, final) read, and the run read
        )
        self.waited = False

    def keep(self, part: str, span: dict[str, Any]) -> bool:
        """Keep ``span``: one per span id, a later copy replacing an earlier one (a span exported while it ran,
        then again when it ended; an export retried), except that an ended copy is never replaced by an unended
        one. Returns whether what the trace holds changed."""
        key = str(span.get("spanId", ""))
        old = self.spans.get(key)
        if old is not None and (old == (part, span) or (_ended(old[1]) and not _ended(span))):
            return False
        self.spans[key] = (part, span)
        return True

    def document(self) -> dict[str, Any]:
        """The spans held, as the OTLP/JSON of a file: one ``resourceSpans`` entry per resource and scope."""
        grouped: dict[str, list[dict[str, Any]]] = {}
        for part, span in self.spans.values():
            grouped.setdefault(part, []).append(span)
        out = []
        for part, spans in grouped.items():
            resource, scope = self.parts[part]
            out.append({**resource, "scopeSpans": [{**scope, "spans": spans}]})
        return {"resourceSpans": out}


def _ended(span: dict[str, Any]) -> bool:
    return span.get("endTimeUnixNano") not in (None, "", "0", 0)


def _by_trace(
    doc: dict[str, Any],
) -> dict[str, list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]]]:
    """A request's spans by trace id, each as ``(part key, resource, scope, span)``: the resource and scope
    without their lists of spans, and a key naming the pair (its JSON)."""
    out: dict[str, list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]]] = {}
    for resource in doc.get("resourceSpans", []):
        bare = {k: v for k, v in resource.items() if k != "scopeSpans"}
        for scope in resource.get("scopeSpans", []):
            part = {k: v for k, v in scope.items() if k != "spans"}
            key = json.dumps([bare, part], sort_keys=True)
            for span in scope.get("spans", []):
                out.setdefault(span["traceId"], []).append((key, bare, part, span))
    return out


class Receiver:
    """A running OTLP/HTTP receiver (see :func:`receive`): ``runs``, ``wait``, ``stop``; a context manager."""

    def __init__(self, port: int, host: str) -> None:
        self._lock = threading.Condition()
        self._traces: dict[str, _Trace] = {}
        self._busy = threading.BoundedSemaphore(BUSY)
        self.accepted = 0  # spans taken
        self.refused = (
            0  # requests refused (4xx); 503s are not refusals: the exporter sends them again
        )
        self.held = 0  # bytes of request bodies taken (inflated), at most limits.MAX_TRACE_BYTES
        try:
            self._server = _Server((host, port), _handler(self))
        except (OSError, UnicodeError, OverflowError) as exc:
            reason = getattr(exc, "strerror", None) or show_value(str(exc))
            raise PlanvizError(
                f"receive(port={port}, host={show_value(host)}): cannot listen there ({reason}); "
                "pass port=0 for a free port, or stop what holds it"
            ) from None
        self.host, self.port = host, self._server.server_address[1]
        self.endpoint = f"http://{host if ':' not in host else f'[{host}]'}:{self.port}{PATH}"
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            name=f"planviz-receive-{self.port}",
            kwargs={"poll_interval": 0.1},
            daemon=True,
        )
        self._thread.start()
        self._stopped = False

    def __repr__(self) -> str:
        state = "stopped" if self._stopped else "serving"
        return f"<planviz Receiver {state} {self.endpoint}: {len(self._traces)} traces, {self.accepted} spans>"

    def __enter__(self) -> Receiver:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop listening; requests already begun finish first, so every span answered 200 is kept."""
        if not self._stopped:
            self._stopped = True
            self._server.shutdown()
            self._server.server_close()  # joins the request threads (daemon_threads False)
            self._thread.join()

    # ------------------------------------------------------------------ taking spans (server threads)
    def take(self, body: bytes, content_type: str, encoding: str) -> int:
        """Decode, check and keep one request's spans, all or none; returns how many. Raises :class:`Refused`."""
        data = inflate(body, encoding)
        doc = decode(data, content_type, "")
        # every span read now: a bad one refuses the request
        for raw, ctx, where, line in walk(doc, CONTAINERS):
            try:
                span_of(raw, ctx, where, line, "<request body>")
            except TraceFormatError as exc:
                raise Refused(400, " ".join(str(exc).splitlines())[:400]) from None
        parts = _by_trace(doc)
        count = sum(len(spans) for spans in parts.values())
        with self._lock:
            # memory is bounded: what is held stays readable
            if self.held + len(data) > limits.MAX_TRACE_BYTES:
                raise Refused(
                    413,
                    f"the receiver holds {limits.mib(self.held)} of spans, and this request would "
                    f"take it past {limits.mib(limits.MAX_TRACE_BYTES)}: stop it (its runs stay "
                    f"readable) and start another, or {limits.raise_hint('MAX_TRACE_BYTES')}",
                )
            self.held += len(data)
            for trace_id, spans in parts.items():
                trace = self._traces.get(trace_id) or self._traces.setdefault(
                    trace_id, _Trace(trace_id)
                )
                changed = False
                for key, resource, scope, span in spans:
                    trace.parts.setdefault(key, (resource, scope))
                    changed = trace.keep(key, span) or changed
                    trace.finished = trace.finished or (
                        not span.get("parentSpanId") and _ended(span)
                    )
                if changed:
                    trace.version += 1
            self.accepted += count
            self._lock.notify_all()
        return count

    def count_refusal(self) -> None:
        with self._lock:
            self.refused += 1

    # ------------------------------------------------------------------ reading runs (the caller's thread)
    @property
    def trace_ids(self) -> list[str]:
        """The trace ids received, in the order their first span arrived."""
        with self._lock:
            return list(self._traces)

    @property
    def runs(self) -> list[Run]:
        """One :class:`~planviz.Run` per trace received, in the order their first span arrived; a trace whose
        root span has not arrived yet is read as far as it got, as a file of those spans would be (the reader
        cannot tell the run is not over: :meth:`finished` says whether its root span arrived), less the
        ``missing_parent`` finding until the run is final (see :meth:`run`)."""
        return [self.run(t) for t in self.trace_ids]

    def finished(self, trace_id: str) -> bool:
        """Whether the root span (the one without a parent) of ``trace_id`` arrived, ended."""
        with self._lock:
            return self._trace(trace_id).finished

    def changes(self, trace_id: str) -> int:
        """How many requests changed the spans held for ``trace_id`` (brought a new span, or a newer copy of one
        held): it grows as the trace does, and an exact repeat leaves it as it was."""
        with self._lock:
            return self._trace(trace_id).version

    @property
    def stopped(self) -> bool:
        """Whether :meth:`stop` was called."""
        return self._stopped

    def run(self, trace_id: str) -> Run:
        """The run of ``trace_id`` as received so far, read again only when spans arrived since.

        Until the run is final (its root span arrived, ended, or the receiver stopped), a span whose parent has
        not arrived yet is expected, not a defect: the ``missing_parent`` finding is left out of the run's
        plans; once final it is reported, as a file of the same spans reports it."""
        with self._lock:
            trace = self._trace(trace_id)
            key = (trace.version, trace.finished or self._stopped)
            if trace.read is not None and trace.read[0] == key:
                return trace.read[1]
            doc = trace.document()
        from planviz.traces.own.tracefile import load_trace

        run = load_trace(doc)
        if not key[1]:
            run = _while_open(run)
        with self._lock:
            if trace.read is None or trace.read[0] < key:
                trace.read = (key, run)
        return run

    def _trace(self, trace_id: str) -> _Trace:
        trace = self._traces.get(trace_id) if isinstance(trace_id, str) else None
        if trace is None:
            raise PlanvizError(
                f"no trace {show_value(trace_id)} received here; the traces received are "
                f"{', '.join(list(self._traces)[:10]) or 'none yet'}"
            )
        return trace

    def wait(self, trace_id: str | None = None, timeout: float | None = 60.0) -> Run:
        """The run of ``trace_id`` once its root span ended; with no ``trace_id``, the first trace to finish that
        no earlier ``wait()`` returned. Raises :class:`NoRunYet` (a TimeoutError) after ``timeout`` seconds
        (None: no limit).

        >>> import planviz
        >>> with planviz.receive(port=0) as rx:
        ...     rx.wait(timeout=0.01)
        Traceback (most recent call last):
        ...
        planviz.frontends.receiver.NoRunYet: no trace finished within 0.01 s at http://127.0.0.1:...
        """
        expect_type(
            trace_id,
            (str, type(None)),
            "Receiver.wait",
            "trace_id",
            "a trace id (hex text) or None",
        )
        expect_type(
            timeout, (int, float, type(None)), "Receiver.wait", "timeout", "seconds or None"
        )
        deadline = None if timeout is None else time.monotonic() + max(0.0, float(timeout))
        with self._lock:
            while True:
                if trace_id is not None:
                    found = self._traces.get(trace_id)
                    found = found if found is not None and found.finished else None
                else:
                    found = next(
                        (t for t in self._traces.values() if t.finished and not t.waited), None
                    )
                if found is not None:
                    found.waited = True
                    break
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    which = f"trace {trace_id}" if trace_id else "no trace"
                    raise NoRunYet(
                        f"{which} finished within {timeout:g} s at {self.endpoint}"
                        + (
                            ""
                            if trace_id
                            else f" ({len(self._traces)} traces received, none new and "
                            "finished); point the agent's exporter here (OTEL_EXPORTER_OTLP_ENDPOINT="
                            f"http://{self.host}:{self.port}) or wait longer"
                        )
                    )
                self._lock.wait(left if left is None else min(left, 1.0))
        return self.run(found.trace_id)


def _while_open(run: Run) -> Run:
    """``run`` without the ``missing_parent`` findings: while a trace is open its parents may still arrive."""
    plans = tuple(
        replace(
            p, import_findings=tuple(f for f in p.import_findings if f.code != EXPECTED_WHILE_OPEN)
        )
        if any(f.code == EXPECTED_WHILE_OPEN for f in p.import_findings)
        else p
        for p in run.plans
    )
    return run if all(a is b for a, b in zip(plans, run.plans)) else replace(run, plans=plans)


def _handler(receiver: Receiver) -> type:
    class Handler(BaseHTTPRequestHandler):
        timeout = 10  # seconds a client may take to send its request: a slow one cannot hold stop() for ever
        server_version = "planviz-receive"

        def log_message(
            self, format: str, *args: Any
        ) -> None:  # quiet: the caller prints what it wants
            pass

        def _answer(
            self,
            status: int,
            text: str,
            content_type: str = "text/plain; charset=utf-8",
            body: bytes | None = None,
            headers: dict[str, str] | None = None,
        ) -> None:
            data = body if body is not None else (text + "\n").encode("utf-8", "replace")
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _drain(self, length: int) -> None:
            """Read and drop a refused body (up to four times the cap), so the client reads the 413, not a
            broken pipe; a larger one is answered mid-send and the connection closed."""
            left = length if length <= 4 * _limit() else 0
            while left > 0:
                chunk = self.rfile.read(min(left, 1 << 16))
                if not chunk:
                    break
                left -= len(chunk)

        def do_GET(self) -> None:
            self._answer(
                405, f"planviz receives OTLP traces by POST {PATH}", headers={"Allow": "POST"}
            )

        def do_POST(self) -> None:
            if self.path.split("?")[0] != PATH:
                self._answer(
                    404, f"{self.path[:80]!r}: planviz receives traces at POST {PATH} only"
                )
                return
            length_text = self.headers.get("Content-Length")
            if length_text is None or not length_text.strip().isdigit():
                receiver.count_refusal()
                self._answer(411, "send Content-Length (chunked bodies are not read)")
                return
            length = int(length_text)
            try:
                if length > _limit():
                    # answered before the body is read; the connection then closes
                    raise too_large(length)
            except Refused as exc:
                receiver.count_refusal()
                self._drain(length)
                self._answer(exc.status, exc.reason)
                return
            if not receiver._busy.acquire(timeout=2.0):
                self._answer(503, "busy: send again", headers={"Retry-After": "1"})
                return
            try:
                body = self.rfile.read(length)
                kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
                receiver.take(body, kind, self.headers.get("Content-Encoding") or "")
            except Refused as exc:
                receiver.count_refusal()
                self._answer(exc.status, exc.reason)
                return
            finally:
                receiver._busy.release()
            if kind in PROTOBUF:  # an empty ExportTraceServiceResponse: nothing was rejected
                self._answer(200, "", "application/x-protobuf", body=b"")
            else:
                self._answer(200, "", JSON[0], body=b"{}")

    return Handler


def _limit() -> int:
    return limits.MAX_OTLP_BYTES


def receive(port: int = 4318, host: str = "127.0.0.1") -> Receiver:
    """Receive OpenTelemetry traces over OTLP/HTTP while an agent runs: each trace becomes a :class:`~planviz.Run`.

    Serves ``POST /v1/traces`` (protobuf or JSON, gzip or not) in a background thread until
    :meth:`Receiver.stop` (or the end of a ``with`` block). ``rx.runs`` lists the runs received, read by the
    same readers as a file of the same spans; ``rx.wait()`` returns the next run whose root span ended.

    Parameters
    ----------
    port : int
        The port to listen on (4318, OTLP/HTTP's own, by default); 0 picks a free one (``rx.port``).
    host : str
        The address to listen on: 127.0.0.1 (this machine only) unless you mean otherwise.

    Returns
    -------
    Receiver
        The running receiver: ``endpoint``, ``port``, ``runs``, ``trace_ids``, ``run(id)``, ``wait``, ``stop``.

    Raises
    ------
    PlanvizError
        When the port cannot be listened on (taken, or not allowed).
    PlanvizTypeError
        When ``port`` is not an int in 0..65535 or ``host`` not a string.

    Examples
    --------
    >>> import planviz
    >>> rx = planviz.receive(port=0)
    >>> rx.port > 0
    True
    >>> rx.stop()
    """
    expect_type(
        port,
        int,
        "receive",
        "port",
        "a port number (int 0..65535)",
        "4318 is OTLP/HTTP's; 0 picks a free one",
    )
    expect_type(
        host,
        str,
        "receive",
        "host",
        "an address to listen on (str)",
        "127.0.0.1 listens on this machine only",
    )
    if not 0 <= port <= 65535:
        raise PlanvizError(
            f"receive(port={show_value(port)}): a port is 0..65535 (0 picks a free one)"
        )
    return Receiver(port, host)
