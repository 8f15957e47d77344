"""Plan files in and out: ``parse_*`` read text, ``load_*`` read paths, open files and parsed data.

A plan file is YAML or JSON (or JSON Lines, one plan per line) in the
planviz shape or the tool-call shape LLM agents emit; planner outputs in
the formats of :mod:`planviz.plan.importers` (TaskBench, LLMCompiler, ReWOO,
NESTFUL) load too. The format is detected when not given. Contracts are read by
:mod:`planviz.plan.contractfile`, and plans written by :mod:`planviz.plan.planwriter`.

Text is never a path: :func:`parse_plan` takes the text of a plan and never
touches the file system; :func:`load_plan` takes a path (``str`` or
``os.PathLike``), an open file, or data already parsed (a mapping or a list),
so untrusted text such as ``"."`` or ``"/etc/hostname"`` is never read from
disk by accident. Input is untrusted (:mod:`planviz.io.text`): every
failure is a :class:`~planviz.errors.PlanFormatError` naming the file, line,
column and field path, and saying what was expected.

>>> parse_plan("goal: g\\nsteps:\\n  - {id: A, action: do it, expected_evidence: done}\\n").ids
('A',)
>>> parse_plan("goal: g\\nsteps:\\n  - id: A\\n    action: a\\n    duration: soon\\n")  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
planviz.errors.PlanFormatError: <string>:5:15: steps[0].duration: expected a finite number >= 0
(in the plan's time_unit), got 'soon'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import IO, Any, Sequence

from planviz.errors import PlanFormatError, PlanvizTypeError
from planviz.io.plaindata import check_plain
from planviz.io.syntax import show_value
from planviz.io.text import STRING_NAME, read_path, read_stream, text_of
from planviz.io.tracesniff import SQLITE_MAGIC, sqlite_message, trace_message, trace_named
from planviz.plan import importers
from planviz.plan.bulk import paused_gc
from planviz.plan.document import Document, parse_document
from planviz.plan.fields import plan_shape
from planviz.plan.importers import notplans, outline
from planviz.plan.model import Plan
from planviz.plan.records import plan_from_dict

__all__ = [
    "FORMATS",
    "parse_plan",
    "parse_plans",
    "load_plan",
    "load_plans",
    "text_argument",
    "source_text",
]

FORMATS = ("planviz", "toolcall") + tuple(importers.FORMATS)
"""Every input format ``parse_plan``/``load_plan(..., format=)`` accepts."""


def parse_plan(text: str | bytes, format: str | None = None, source: str = STRING_NAME) -> Plan:
    """Read one plan from its text (or bytes); ``source`` names it in messages. Never reads a file.

    ``format`` is one of :data:`FORMATS`, or None to detect it. Text holding
    several plans is an error: use :func:`parse_plans`.

    Parameters
    ----------
    text : str or bytes
        The plan's text (never a path).
    format : str, optional
        One of ``FORMATS`` (``planviz``, ``toolcall``, ``taskbench``, ...); None detects it.
    source : str, optional
        How messages name the text (default ``<string>``).

    Returns
    -------
    Plan
        The plan, with ``import_findings`` for what an importer could not map.

    Raises
    ------
    PlanFormatError
        When the text is not a plan in the format, holds several plans, or breaks a limit; the message names
        line, column and field path.
    PlanvizTypeError
        When ``text`` is not str or bytes.

    Examples
    --------
    >>> parse_plan('{"goal": "g", "steps": [{"n": 1, "tool": "ping", "why": "pong"}]}').step("step_1").action
    'ping()'
    >>> parse_plan('{"goal": "g", "steps": []}\\n{"goal": "h", "steps": []}\\n')
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: <string>: holds 2 plans, expected one: use parse_plans to read them all
    """
    return _from_text(
        text_argument("parse_plan", text, source), source, format, single="parse_plans"
    )[0]


def parse_plans(
    text: str | bytes, format: str | None = None, source: str = STRING_NAME
) -> list[Plan]:
    """Read every plan in a text: one per JSON Lines line, YAML document or item of a list of plans.

    Parameters
    ----------
    text : str or bytes
        Text holding one or more plans.
    format : str, optional
        As for :func:`parse_plan`.
    source : str, optional
        How messages name the text.

    Returns
    -------
    list of Plan
        Every plan, in the order of the text.

    Raises
    ------
    PlanFormatError
        When a record is not a plan; the message names the record.
    PlanvizTypeError
        When ``text`` is not str or bytes.

    Examples
    --------
    >>> [p.goal for p in parse_plans('{"goal": "g", "steps": []}\\n\\n{"goal": "h", "steps": []}\\n')]
    ['g', 'h']
    """
    return _from_text(text_argument("parse_plans", text, source), source, format, single=None)


def load_plan(
    source: str
    | os.PathLike[str]
    | IO[bytes]
    | IO[str]
    | Mapping[str, object]
    | Sequence[object]
    | Plan,
    format: str | None = None,
) -> Plan:
    """Load one plan from a path, an open file, or parsed data (a mapping, a list, a :class:`Plan`).

    A string is always a path; to read plan text use :func:`parse_plan`.

    Parameters
    ----------
    source : path, open file, mapping, list or Plan
        Where the plan is; a string is always a path.
    format : str, optional
        As for :func:`parse_plan`; None detects it.

    Returns
    -------
    Plan
        The plan.

    Raises
    ------
    PlanFormatError
        When the file cannot be read or is not a plan (naming file, line and field), or holds several plans.
    PlanvizTypeError
        When ``source`` is none of the accepted kinds.

    Examples
    --------
    >>> load_plan({"goal": "g", "steps": [{"id": "A", "action": "a", "expected_evidence": "e"}]}).ids
    ('A',)
    >>> load_plan("no/such/plan.yaml")
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: no/such/plan.yaml: cannot read the file: No such file or directory
    """
    return _load("load_plan", source, format, single="load_plans")[0]


def load_plans(
    source: str
    | os.PathLike[str]
    | IO[bytes]
    | IO[str]
    | Mapping[str, object]
    | Sequence[object]
    | Plan,
    format: str | None = None,
) -> list[Plan]:
    """Load every plan of a path, an open file or parsed data (see :func:`load_plan`).

    Parameters
    ----------
    source : path, open file, mapping, list or Plan
        Where the plans are.
    format : str, optional
        As for :func:`parse_plan`.

    Returns
    -------
    list of Plan
        Every plan the source holds.

    Raises
    ------
    PlanFormatError
        When the file cannot be read or a record is not a plan.
    PlanvizTypeError
        When ``source`` is none of the accepted kinds.

    Examples
    --------
    >>> [p.goal for p in load_plans([{"goal": "g", "steps": []}, {"goal": "h", "steps": []}])]
    ['g', 'h']
    """
    return _load("load_plans", source, format, single=None)


# --------------------------------------------------------------------------- reading


def text_argument(function: str, text: Any, source: str) -> str:
    """The text a ``parse_*`` function was given, decoded; a value that is not text is a PlanvizTypeError."""
    if not isinstance(text, (str, bytes, bytearray, memoryview)):
        what = "contract" if "contract" in function else "plan"
        raise PlanvizTypeError(
            f"{function}(text=...) expects the text of a {what} (str or bytes), got "
            f"{type(text).__name__} {show_value(text)}; for a path, a file or parsed data "
            f"use {function.replace('parse_', 'load_')}"
        )
    if not isinstance(text, str) and bytes(text[:16]) == SQLITE_MAGIC:
        raise PlanFormatError(sqlite_message(None), source=source)
    return text_of(text, source)


def source_text(function: str, source: Any) -> tuple[str, str]:
    """(text, name) of a path or an open file."""
    if isinstance(source, str) and _looks_like_text(source):
        raise PlanFormatError(
            f"{function} reads a path, and no file is named {show_value(source, 60)}: it looks "
            f"like the text itself; to read text use planviz.{function.replace('load_', 'parse_')}"
            "(text)",
            source=STRING_NAME,
        )
    if isinstance(source, (str, os.PathLike)):
        return read_path(source)
    if hasattr(source, "read"):
        return read_stream(source)
    hint = (
        f"; for text use {function.replace('load_', 'parse_')}"
        if isinstance(source, (bytes, bytearray, memoryview))
        else ""
    )
    raise PlanvizTypeError(
        f"{function}(source=...) expects a path, an open file or parsed data, got "
        f"{type(source).__name__} {show_value(source)}{hint}"
    )


def _looks_like_text(source: str) -> bool:
    """A string that cannot be a file name a user meant: several lines, or a JSON/YAML mapping, and no such file."""
    head = source.lstrip()[:1]
    if not (
        "\n" in source
        or head in ("{", "[")
        or (": " in source and not source.strip().endswith(_SUFFIXES))
    ):
        return False
    try:
        return not os.path.exists(source)
    except (OSError, ValueError):
        return True


_SUFFIXES = (".yaml", ".yml", ".json", ".jsonl", ".ndjson", ".txt")


def _load(function: str, source: Any, format: str | None, *, single: str | None) -> list[Plan]:
    _check_format(format)
    if isinstance(source, Plan):
        return [source]
    if isinstance(source, (Mapping, list, tuple)):
        return _from_data(source, format, single=single)
    if isinstance(source, (str, os.PathLike)) and not (
        isinstance(source, str) and _looks_like_text(source)
    ):
        _refuse_database(source)
    text, name = source_text(function, source)
    return _from_text(text, name, format, single=single)


def _refuse_database(path: str | os.PathLike[str]) -> None:
    """A SQLite database is no plan: say what it is (a LangGraph checkpointer is a trace) before reading it as text."""
    try:
        # a FIFO or a device is never opened here (opening one may block)
        if not os.path.isfile(path):
            return
        with open(path, "rb") as fh:
            head = fh.read(16)
    except (OSError, ValueError, TypeError):
        return  # the text reader says why the file cannot be read
    if head == SQLITE_MAGIC:
        raise PlanFormatError(sqlite_message(os.fspath(path)), source=os.fspath(path))


def _from_text(text: str, name: str, format: str | None, *, single: str | None) -> list[Plan]:
    with paused_gc():  # parsed data and plans are many small acyclic containers
        return _parse(text, name, format, single=single)


def _check_format(format: str | None) -> None:
    if format is not None and format not in FORMATS:
        raise PlanFormatError(
            f"unknown format {format!r}: expected one of {', '.join(map(repr, FORMATS))}"
        )


def _from_data(data: Any, format: str | None, *, single: str | None) -> list[Plan]:
    """Plans from parsed data (no text: errors name field paths, not lines)."""
    records = _records(None, data)
    plan_shaped = format in ("planviz", "toolcall") or (
        format is None and records is not None and all(plan_shape(r[0]) for r in records)
    )
    if not plan_shaped:
        try:  # importers read whatever they are given; plan records check each field themselves
            check_plain(data)
        except PlanFormatError as exc:
            raise exc.located(source=STRING_NAME) from None
    fmt = format or _detect("", data, records)
    if fmt is None:
        raise PlanFormatError(_not_a_plan(data), source=STRING_NAME)
    return _plans(fmt, format, "", data, records, None, STRING_NAME, single)


def _parse(text: str, name: str, format: str | None, *, single: str | None) -> list[Plan]:
    _check_format(format)
    doc: Document | None = None
    parse_error: PlanFormatError | None = None
    try:
        doc = parse_document(text, name)
    except PlanFormatError as exc:
        parse_error = exc
    data = doc.data if doc is not None else None
    records = _records(doc, data)
    fmt = format or _detect(text, data, records)
    if fmt is None:
        why = outline.refusal(text)
        if why is not None:
            raise PlanFormatError(why, source=name, line=1, column=1)
        if parse_error is not None:
            raise parse_error
        raise PlanFormatError(_not_a_plan(data), source=name, line=1, column=1)
    if parse_error is not None and (fmt in ("planviz", "toolcall") or _refused(parse_error)):
        raise parse_error
    return _plans(fmt, format, text, data, records, doc, name, single)


# What a planner format's own reader may read past: text that is not quite JSON or YAML. Anything else the
# parser refused (nesting, number or size limits, lone surrogates, non-finite numbers) is refused for every format.
_SYNTAX = ("invalid JSON", "invalid YAML", "duplicate key", "empty document")


def _refused(error: PlanFormatError) -> bool:
    """Whether a parse error refuses the input whatever its format (not a syntax slip an importer reads past)."""
    message = (
        error.message.split(": ", 1)[1]
        if error.message.startswith("JSON Lines record")
        else error.message
    )
    return not message.startswith(_SYNTAX)


def _detect(text: str, data: Any, records: list[Any] | None) -> str | None:
    if records is not None and all(plan_shape(r[0]) for r in records):
        return "planviz"
    found = importers.detect(text, data)
    whole = data if data is not None or records is None else [r[0] for r in records]
    if found is None and (notplans.named(whole) is not None or trace_named(whole) is not None):
        return None  # a trace or another known file that is no plan: _not_a_plan names it
    if found is None and records is not None and any(_plan_like(r[0]) for r in records):
        return "planviz"
    return found


def _plans(
    fmt: str,
    forced: str | None,
    text: str,
    data: Any,
    records: list[Any] | None,
    doc: Document | None,
    name: str,
    single: str | None,
) -> list[Plan]:
    if fmt in ("planviz", "toolcall"):
        if records is None:
            raise PlanFormatError(
                f"not a {fmt} plan: expected a mapping with goal and steps, got {_describe(data)}",
                source=name,
            )
        if single and len(records) != 1:
            raise PlanFormatError(
                f"holds {len(records)} plans, expected one: use {single} to read them all",
                source=name,
            )
        plans = []
        for value, record, prefix in records:
            shape = forced or plan_shape(value) or "planviz"
            try:
                plans.append(plan_from_dict(value, shape=shape))
            except PlanFormatError as exc:
                raise (
                    doc.error(exc, record, prefix) if doc is not None else exc.located(source=name)
                ) from None
        return plans
    plans = importers.import_plans(fmt, text, data, source=name)
    if single and len(plans) != 1:
        raise PlanFormatError(
            f"holds {len(plans)} plans, expected one: use {single} to read them all"
            if plans
            else f"no plan found in this {fmt} input",
            source=name,
        )
    return plans


def _records(doc: Document | None, data: Any) -> list[tuple[Any, int, tuple[Any, ...]]] | None:
    """The candidate plans in parsed data: (value, record number, path prefix), or None if not plan-shaped."""
    if doc is not None and doc.multi:
        return [(value, i, ()) for i, value in enumerate(doc.values)]
    if isinstance(data, (list, tuple)):
        if data and all(isinstance(item, Mapping) and "steps" in item for item in data):
            return [(item, 0, (i,)) for i, item in enumerate(data)]
        return None
    if data is None and doc is None:
        return None
    return [(data, 0, ())]


def _plan_like(value: Any) -> bool:
    return isinstance(value, Mapping) and ("steps" in value or "goal" in value)


def _not_a_plan(data: Any) -> str:
    """Why parsed data no format claims is refused: what it is when that is known, else its shape."""
    traced = trace_message(data)
    if traced is not None:
        return traced
    named = notplans.named(data)
    if named is not None:
        return (
            f"not a plan format planviz reads: this is {named}; planviz reads it neither as a plan nor as a "
            f"trace. Plans are read as: {', '.join(FORMATS)}"
        )
    return (
        f"not a plan in any known format ({', '.join(FORMATS)}): expected a mapping with goal and steps, "
        f"got {_describe(data)}"
    )


def _describe(data: Any) -> str:
    if isinstance(data, Mapping):
        keys = ", ".join(
            k if isinstance(k, str) and k.isidentifier() else show_value(k, 30)
            for k in list(data)[:8]
        )
        return f"a mapping with keys {keys}" if keys else "an empty mapping"
    if isinstance(data, (list, tuple)):
        return f"a list of {len(data)} items"
    if isinstance(data, str):
        return f"the text {data[:40]!r}" + ("..." if len(data) > 40 else "")
    return show_value(data)
