"""Traces: recording a run, planviz's own trace file, and every other format read into a run.

Besides the format modules, this package holds what records and writes traces:
:mod:`~planviz.traces.own.recorder` (``Recorder``: a real agent's run through the
machine), :mod:`~planviz.traces.own.tracefile` (planviz's JSON Lines: ``save_trace``,
``load_trace``, ``parse_trace``), :mod:`~planviz.traces.own.tracereader`,
:mod:`~planviz.traces.own.traceplans`, :mod:`~planviz.traces.own.tracefields` (reading it
within the caps, its plan records, its fields) and :mod:`~planviz.traces.playback`
(a recorded timeline played through the machine: how a foreign format becomes a run).
It reads the simulation modules of ``runs`` (events, machine, faults), never
``runs.comparisons``; nothing in ``runs`` outside it reads it.

Trace formats: one module per format, and the one registry that picks the reader of an input.

:data:`FORMATS` lists every trace format planviz reads, one line each: the
name ``format=`` takes and the module that reads it. A format module has

- ``TITLE``: how messages name the format;
- ``detect(sample) -> float``: how sure it is (0 to 1) that a :class:`Sample`
  (the first bytes of a file, or its parsed data) is in this format;
- ``read(doc) -> Run | tuple[Run, ...]``: the run(s) of a :class:`Document`;
- optionally ``BINARY = True`` (it is sniffed from raw bytes, like a SQLite
  database) and ``THREADS = True`` (it reads ``doc.thread`` itself).

A new trace format is one module and one line in :data:`FORMATS`.

An input is opened once and parsed at most once: the registry reads the
first :data:`HEAD` bytes, asks every format's ``detect``, and, when none is
sure from those bytes alone, parses the whole JSON document (once) and asks
again with the data; the reader then gets that same parsed data, never text
written back from it. Input no format claims is explained by
:mod:`~planviz.traces.nottraces` (what it is, and what planviz reads instead).

>>> from planviz.traces import Sample, detect
>>> detect(Sample.of(b'{"type": "header", "schema": "planviz-trace", "version": 1}'))
'planviz'
>>> detect(Sample.of(b'{"resourceSpans": [{"scopeSpans": []}]}'))
'otel'
>>> detect(Sample.of(b'[{"values": {}, "next": [], "config": {"configurable": {"thread_id": "1"}}}]'))
'langgraph'
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass, field, replace
from importlib import import_module
from types import ModuleType
from typing import IO, Any, BinaryIO, Mapping, Sequence

from planviz.errors import PlanFormatError, PlanvizTypeError, TraceFormatError
from planviz.io.plaindata import check_plain
from planviz.io.syntax import show_value
from planviz.io.text import open_regular
from planviz.plan.bulk import paused_gc
from planviz.runs.events import Run
from planviz.traces.runtext import check_run_text

__all__ = [
    "FORMATS",
    "TRACE_FORMATS",
    "HEAD",
    "Sample",
    "Document",
    "detect",
    "load_traces",
    "load_runs",
    "parse_runs",
    "one_run",
    "format_title",
]

FORMATS: Mapping[str, str] = {  # format name -> module of this package (one line per format)
    "planviz": "own.jsonlines",  # planviz's own JSON Lines (planviz.traces.own.tracefile)
    "otel": "otel.genai",  # OpenTelemetry GenAI spans: SDK span JSON, OTLP/JSON
    "openinference": "otel.openinference",  # OpenTelemetry spans with OpenInference attributes
    "phoenix": "otel.phoenix",  # Arize Phoenix span exports (REST API, client, span dataframe records)
    "mlflow": "otel.mlflowtraces",  # MLflow traces {info, data: {spans}} (Trace.to_json, MLflow 2 and 3)
    "otel-js": "otel.oteljs",  # OpenTelemetry JS SDK span objects, Vercel AI SDK ai.* attributes
    "otlp-proto": "otel.otlpproto",  # OTLP protobuf files: one request, or the Collector's length-delimited
    "langfuse": "langfuse.export",  # Langfuse trace exports {trace, observations}
    "langgraph": "langgraph.history",  # LangGraph state histories and checkpoint tuples (JSON)
    "langgraph-sqlite": "langgraph.sqlitesaver",  # LangGraph SqliteSaver checkpoint databases
}
TRACE_FORMATS = tuple(FORMATS)
HEAD = 64 * 1024
"""Bytes of an input every format's ``detect`` sees before anything is parsed."""
SURE = 0.5
"""The confidence above which a format is chosen without parsing the whole input."""
SQLITE_MAGIC = b"SQLite format 3\x00"
_NOT_PARSED = object()


def _module(fmt: str) -> ModuleType | None:
    """A format's module, imported on first use; None when it is not installed in this planviz."""
    try:
        return import_module(f".{FORMATS[fmt]}", __name__)
    except ModuleNotFoundError as exc:
        if exc.name == f"{__name__}.{FORMATS[fmt]}":
            return None
        raise


def format_title(fmt: str) -> str:
    """How messages name format ``fmt`` (``format_title("otel")`` is ``'OpenTelemetry'``)."""
    module = _module(fmt) if fmt in FORMATS else None
    return getattr(module, "TITLE", fmt)


@dataclass
class Sample:
    """What ``detect`` sees of an input: its first bytes (``head``; ``text`` is them decoded, a BOM and
    leading white space dropped), the parsed ``data`` when the registry has it (else None, ``parsed``
    False), and the ``path`` of a file (a binary format may look inside)."""

    head: bytes = b""
    text: str = ""
    data: Any = None
    parsed: bool = False
    path: str | None = None

    @classmethod
    def of(cls, head: bytes, path: str | None = None) -> Sample:
        text = head[:HEAD].decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
        return cls(head[:HEAD], text, None, False, path)

    @property
    def is_sqlite(self) -> bool:
        return self.head.startswith(SQLITE_MAGIC)

    def keys_confidence(self, keys: re.Pattern[str]) -> float:
        """How surely the text is of a format whose telltale ``keys`` it shows: 0 when none appears, else
        0.7-0.8, the earlier the first one the surer (for detectors that read the text, not parsed data)."""
        found = keys.search(self.text)
        return 0.0 if found is None else 0.8 - 0.1 * found.start() / (len(self.text) + 1)


def _records_of_text(data: Any, doc: Document) -> Any:
    """A list whose every item is one JSON object written as text, each read as that object: the spans of
    ``json.dump([span.to_json() for span in spans])`` (OpenTelemetry's ``to_json`` returns text), or JSON Lines
    whose records were encoded twice. Each text is read by the same reader, within the same caps; anything
    else (one item that is no such text) is the data as it was.

    >>> _records_of_text(['{"name": "a"}', '{"name": "b"}'], Document("t.json"))
    [{'name': 'a'}, {'name': 'b'}]
    >>> _records_of_text(['{"name": "a"}', 'b'], Document("t.json"))
    ['{"name": "a"}', 'b']
    """
    if not (
        isinstance(data, list)
        and data
        and all(isinstance(x, str) and x.lstrip()[:1] == "{" for x in data)
    ):
        return data
    from planviz.traces.jsonstream import values

    records = []
    for text in data:
        try:
            found = values(io.BytesIO(text.encode("utf-8")), doc.name, doc.max_bytes)
        except (TraceFormatError, UnicodeEncodeError):
            return data
        if len(found) != 1 or not isinstance(found[0], dict):
            return data
        records.append(found[0])
    return records


@dataclass
class Document:
    """One input being read: opened once, parsed at most once.

    ``name`` names it in messages, ``path`` is its file (None for a stream,
    text or data), ``thread`` the thread asked for (formats with threads),
    ``max_bytes`` the size cap asked for. A reader takes what it needs:
    :meth:`stream` (the raw bytes from the start, read once) or :meth:`data`
    (every JSON value of the input, parsed once; a single document is
    itself, JSON Lines a list).
    """

    name: str
    path: str | None = None
    thread: str | None = None
    max_bytes: int | None = None
    _stream: BinaryIO | None = field(default=None, repr=False)
    _data: Any = field(default=_NOT_PARSED, repr=False)

    def stream(self) -> BinaryIO:
        """The input's bytes from the start (a format reads them once)."""
        if self._stream is None:
            raise TraceFormatError(
                "this input is parsed data, not a file: it cannot be read as a stream",
                source=self.name,
            )
        stream, self._stream = self._stream, None
        return stream

    def data(self) -> Any:
        """The input's JSON, parsed once (a document of several values is the list of them)."""
        if self._data is _NOT_PARSED:
            from planviz.traces.jsonstream import (
                values,  # imported here: a planviz trace never needs it
            )

            items = values(self.stream(), self.name, self.max_bytes)
            self._data = _records_of_text(items[0] if len(items) == 1 else items, self)
        return self._data

    @property
    def parsed(self) -> bool:
        return self._data is not _NOT_PARSED


def detect(sample: Sample, candidates: tuple[str, ...] = TRACE_FORMATS) -> str | None:
    """The format ``sample`` is most surely in (ties: :data:`FORMATS` order), or None when none claims it."""
    best, found = 0.0, None
    for fmt in candidates:
        module = _module(fmt)
        if module is None or bool(getattr(module, "BINARY", False)) != sample.is_sqlite:
            continue
        score = float(module.detect(sample))
        if score > best:
            best, found = score, fmt
    return found if best > 0 else None


def _choose(doc: Document, sample: Sample) -> str:
    """The format of an input: sure from its first bytes, else from its data (parsed here, once)."""
    if sample.is_sqlite:
        fmt = detect(sample)
        if fmt is None:
            raise _refusal(sample, doc.name)
        return fmt
    best = detect(sample)
    if best == "planviz" or best is not None and _confidence(best, sample) >= SURE:
        return best  # planviz's own reader says what is wrong with a record that only looks like its own
    # '"{': JSON Lines of records encoded twice (each line an object's JSON text)
    if not sample.parsed and (sample.text[:1] in ("{", "[") or sample.text.startswith('"{')):
        sample.data, sample.parsed = doc.data(), True  # the one parse: the reader gets this data
        best = detect(sample)
        if best is not None and _confidence(best, sample) >= SURE:
            return best
    from planviz.traces.nottraces import refuse

    # JSON no format claims, or not JSON at all
    strict = sample.parsed or sample.text[:1] not in (
        "{",
        "[",
        "",
    )
    error = refuse(sample, doc.name, strict=strict)
    if error is not None:
        raise error
    return "planviz"  # planviz's own reader says what is wrong with the text


def _refusal(sample: Sample, source: str) -> TraceFormatError:
    """The error for an input no trace format claims (strict: nottraces always names one)."""
    from planviz.traces.nottraces import refuse

    error = refuse(sample, source)
    return (
        error if error is not None else TraceFormatError("not a trace planviz reads", source=source)
    )


def _confidence(fmt: str, sample: Sample) -> float:
    module = _module(fmt)
    return float(module.detect(sample)) if module is not None else 0.0


def _check_format(format: str | None) -> None:
    if format is not None and format not in FORMATS:
        raise TraceFormatError(
            f"unknown trace format {format!r}; choose one of {', '.join(TRACE_FORMATS)} "
            "(or leave format=None to detect it)"
        )


def _read(doc: Document, fmt: str, thread: str | None) -> tuple[Run, ...]:
    module = _module(fmt)
    if module is None:
        raise TraceFormatError(
            f"this planviz cannot read {fmt} traces yet (no reader installed)", source=doc.name
        )
    if thread is not None and not getattr(module, "THREADS", False):
        raise TraceFormatError(
            f"thread={thread!r}: a {format_title(fmt)} trace holds one run, not threads; "
            "leave thread= out",
            source=doc.name,
        )
    doc.thread = thread
    try:
        runs = module.read(doc)
    except TraceFormatError:
        raise
    except PlanFormatError as exc:  # a plan a reader made from the trace's text: name the file too
        raise TraceFormatError(
            exc.message,
            source=exc.source or doc.name,
            line=exc.line,
            column=exc.column,
            path=exc.path,
        ) from None
    runs = tuple(check_run_text(r, doc.name) for r in ((runs,) if isinstance(runs, Run) else runs))
    if fmt == "planviz":  # its own header says where it came from
        return runs
    return tuple(run if run.trace_format else replace(run, trace_format=fmt) for run in runs)


def load_runs(
    source: Any,
    format: str | None = None,
    *,
    thread: str | None = None,
    max_bytes: int | None = None,
) -> tuple[Run, ...]:
    """Every run of a trace at ``source`` (a path, an open binary or text file, or parsed data)."""
    _check_format(format)
    if isinstance(source, (dict, list)):
        try:  # data a file could hold: acyclic, string keys, bounded depth and integers
            check_plain(source)
        except PlanFormatError as exc:
            raise TraceFormatError(exc.message, source="<data>", path=exc.path) from None
        doc = Document("<data>", thread=thread, max_bytes=max_bytes, _data=source)
        fmt = format or detect(Sample(data=source, parsed=True))
        if fmt is None:
            raise _refusal(Sample(data=source, parsed=True), "<data>")
        with paused_gc():
            return _read(doc, fmt, thread)
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        with open_regular(
            name, "a trace is a regular file", TraceFormatError, "trace", "a trace file"
        ) as fh:
            return _from_stream(fh, name, name, format, thread, max_bytes)
    if hasattr(source, "read"):
        return _from_stream(
            source, str(getattr(source, "name", "<stream>")), None, format, thread, max_bytes
        )
    raise PlanvizTypeError(
        f"load_trace(source=...) expects a path, an open file or parsed trace data (a dict "
        f"or list), got {type(source).__name__} {show_value(source)}; for the text of a trace "
        "use planviz.parse_trace"
    )


def parse_runs(
    text: str | bytes,
    format: str | None = None,
    source: str = "<string>",
    *,
    thread: str | None = None,
    max_bytes: int | None = None,
) -> tuple[Run, ...]:
    """Every run of a trace given as its text (never a path)."""
    _check_format(format)
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    return _from_stream(io.BytesIO(raw), source, None, format, thread, max_bytes)


def _from_stream(
    fh: Any,
    name: str,
    path: str | None,
    format: str | None,
    thread: str | None,
    max_bytes: int | None,
) -> tuple[Run, ...]:
    """Sniff an open file without consuming it (seek back, or keep the head and read on), then read it."""
    head = fh.read(HEAD)
    if isinstance(head, str):  # a file opened in text mode
        head = head.encode("utf-8", "surrogatepass")
        fh = _Chain(head, _TextAsBytes(fh))
    elif getattr(fh, "seekable", lambda: False)():
        fh.seek(-len(head), io.SEEK_CUR)
    else:
        fh = _Chain(head, fh)
    doc = Document(name, path, thread, max_bytes, _stream=fh)
    sample = Sample.of(head, path)
    # parsed records, events and plans are many small acyclic containers: no full-heap passes
    with paused_gc():
        return _read(doc, format or _choose(doc, sample), thread)


def one_run(runs: tuple[Run, ...], source: str) -> Run:
    """The one run of a trace; a file of several runs is refused, naming how to read them."""
    if len(runs) == 1:
        return runs[0]
    if not runs:
        raise TraceFormatError("the trace holds no run", source=source)
    names = [r.plans[0].name for r in runs if r.plans and r.plans[0].name.startswith("thread ")]
    listing = ""
    if len(names) == len(runs):  # the threads of a checkpoint database
        listing = (
            " (threads: "
            + ", ".join(repr(n[len("thread ") :]) for n in names[:40])
            + (f" and {len(names) - 40} more" if len(names) > 40 else "")
            + ")"
        )
    raise TraceFormatError(
        f"the trace holds {len(runs)} runs{listing}; read them all with planviz.load_traces, or "
        "name one with thread= (on the command line: --thread ID)",
        source=source,
    )


def load_traces(
    source: str | os.PathLike[str] | IO[bytes] | IO[str] | Mapping[str, object] | Sequence[object],
    format: str | None = None,
    *,
    max_bytes: int | None = None,
) -> tuple[Run, ...]:
    """Every run a trace file holds (one per thread of a LangGraph checkpoint database; one for the others).

    Parameters
    ----------
    source : str, os.PathLike, open file, dict or list
        The trace: a path, an open file, or parsed data.
    format : str, optional
        One of :data:`TRACE_FORMATS`; None detects it from the input.
    max_bytes : int, optional
        The size cap for planviz's own traces (default ``planviz.io.limits.MAX_TRACE_BYTES``).

    Returns
    -------
    tuple of Run
        The runs, in the order the file holds them.

    Raises
    ------
    TraceFormatError
        When the input is not a trace planviz reads (the message says what it is) or a record is invalid.

    Examples
    --------
    >>> import os, tempfile
    >>> from planviz import examples, save_trace, simulate, load_traces
    >>> path = os.path.join(tempfile.mkdtemp(), "run.jsonl")
    >>> save_trace(simulate(examples.load("cache_isolation")), path)
    >>> [run.outcome for run in load_traces(path)]
    ['plan_complete']
    """
    return load_runs(source, format, max_bytes=max_bytes)


class _TextAsBytes(io.RawIOBase):
    """A file opened in text mode, read as UTF-8 bytes."""

    def __init__(self, fh: Any) -> None:
        self.fh, self.pending = fh, b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self.pending:
            text = self.fh.read(HEAD)
            if not text:
                return 0
            self.pending = text.encode("utf-8", "surrogatepass")
        n = min(len(buffer), len(self.pending))
        buffer[:n], self.pending = self.pending[:n], self.pending[n:]
        return n


class _Chain(io.BufferedReader):
    """The bytes already read (the head), then the rest of the stream: a stream that cannot seek, sniffed."""

    def __init__(self, head: bytes, rest: Any) -> None:
        super().__init__(_ChainRaw(head, rest))


class _ChainRaw(io.RawIOBase):
    def __init__(self, head: bytes, rest: Any) -> None:
        self.head, self.rest = memoryview(head), rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n], self.head = self.head[:n], self.head[n:]
            return n
        data = self.rest.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        return n
