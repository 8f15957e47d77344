"""What was said and done at each step of a run: its arguments, what it returned, its error, the model calls
that led to it (with what the model was given and what it answered), and the run's chat turns.

The explorer, the reports (through the snapshot, :mod:`planviz.frontends.snapshot`) and ``planviz show``
(:mod:`planviz.frontends.cli.showcli`) all read a step's story here, so they say the same. Texts are the trace's
own, untrusted: each front end escapes them its own way (textContent in the page, control characters
neutralised on a terminal); here they are only cut to :data:`MAX_TEXT` characters, saying so.

>>> from planviz import examples, simulate, Fault
>>> run = simulate(examples.load("cache_isolation"), faults=[Fault("S2", "tool_error")])
>>> said = step_story(run)["S2"]
>>> said["status"], said["error"].startswith("'S2' failed")
('failed', True)
"""

from __future__ import annotations

import json
import math
from itertools import chain, repeat
from operator import attrgetter
from typing import Any, Callable, cast

from planviz.io.syntax import show_value

__all__ = ["step_story", "story_columns", "run_turns", "value_text", "MAX_TEXT", "CALL_FIELDS"]

#: The longest text kept for one value (a result, an error, a model's input or output, a turn).
MAX_TEXT = 20_000
#: The most turns kept for a thread.
MAX_TURNS = 2_000
_ONE_LINE_ANY = json.JSONEncoder(ensure_ascii=False).encode
_INDENTED_ANY = json.JSONEncoder(ensure_ascii=False, indent=2).encode
_SCALARS = (str, int, float, bool, type(None))
_TEXT = json.encoder.encode_basestring  # what that encoder writes for a string (ensure_ascii=False)
_KEYWORDS = {True: "true", False: "false", None: "null"}
_STR = {str}


def _one_line(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)``: a string, number, bool or None written here as the encoder
    writes it (its string function, ``repr`` of an int or a finite float, ``NaN``/``Infinity``), without the
    encoder's setting up per value (most arguments and results are such scalars); anything else by it."""
    kind = type(value)
    if kind is str:
        return _TEXT(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        if math.isfinite(value):
            return float.__repr__(value)
        return "NaN" if value != value else "Infinity" if value > 0 else "-Infinity"
    if kind is bool or value is None:
        return _KEYWORDS[value]
    return _ONE_LINE_ANY(value)


def _refuse(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _flat_encoder() -> Callable[[Any], str]:
    """The C encoder of ``json.dumps(value, ensure_ascii=False, separators=(",\\n  ", ": "))`` made once, for flat
    values (no container inside, so no cycle to look for): ``JSONEncoder.encode`` makes it anew for every value,
    which costs twice the writing of a small one."""
    make = json.encoder.c_make_encoder  # type: ignore[attr-defined]
    if make is None:  # no C accelerator: the encoder's own way
        return json.JSONEncoder(ensure_ascii=False, separators=(",\n  ", ": ")).encode
    encode = make(
        None, _refuse, json.encoder.encode_basestring, None, ": ", ",\n  ", False, False, True
    )
    return lambda value: "".join(encode(value, 0))


_FLAT_ITEMS = _flat_encoder()
_SCALAR_TYPES = frozenset(_SCALARS)


def _indented(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=2)``: a flat mapping with text keys, or a flat list, of
    scalars (most results: ``{"id": "result-2", "n": 2}``) written by the C encoder on one line with the indented
    text's separator between items (``",\\n  "``: a separator inside a string is escaped there), its brackets
    then put on lines of their own: the same text the indenting encoder (pure Python) writes; anything else by
    that encoder."""
    kind = type(value)
    if kind is dict and value:
        if set(map(type, value)) == _STR and set(map(type, value.values())) <= _SCALAR_TYPES:
            return "{\n  " + _FLAT_ITEMS(value)[1:-1] + "\n}"
    elif kind is list and value and set(map(type, value)) <= _SCALAR_TYPES:
        return "[\n  " + _FLAT_ITEMS(value)[1:-1] + "\n]"
    return _INDENTED_ANY(value)


def _value_texts(values: list[Any]) -> list[str | None]:
    """``[None if v is None else value_text(v) for v in values]``; when every value is None or a flat mapping with
    text keys (most results: ``{"id": "result-2", "n": 2}``), all of them are written by one call of the C encoder
    (:func:`_indented`'s, whose separator between items is ``",\\n  "`` in a list as in a mapping) and cut apart
    where one mapping ends and the next begins: ``"},\\n  {"``, which no flat mapping's text holds (a line break
    inside a string is escaped, a scalar never ends with a brace)."""
    present = [v for v in values if v is not None]
    if not (
        present
        and set(map(type, present)) == {dict}
        and 0 not in map(len, present)
        and set(map(type, chain.from_iterable(present))) == _STR
        and set(map(type, chain.from_iterable(map(dict.values, present)))) <= _SCALAR_TYPES
    ):
        return [None if v is None else value_text(v) for v in values]
    try:
        parts = _FLAT_ITEMS(present)[2:-2].split("},\n  {")
    except (TypeError, ValueError, RecursionError):  # value_text shows such a value its own way
        return [None if v is None else value_text(v) for v in values]
    texts = map("{{\n  {}\n}}".format, parts)
    out: list[str | None] = [None if v is None else next(texts) for v in values]
    if max(map(len, filter(None, out))) > MAX_TEXT:
        out = [
            text if text is None else value_text(text) for text in out
        ]  # cut, as value_text cuts a text
    return out


def value_text(value: Any, limit: int = MAX_TEXT, quoted: bool = False) -> str:
    """A value as text: a string as is, anything else as JSON (``null``, ``{"a": 1}``: indented, to be read;
    ``quoted``: on one line and a string quoted too, as an argument is written in a trace), cut to ``limit``
    characters with a note of how many more there were.

    >>> value_text({"city": "Paris"}, quoted=True), value_text("x" * 30, 10), value_text("Paris", quoted=True)
    ('{"city": "Paris"}', 'xxxxxxxxxx... (20 more characters)', '"Paris"')
    """
    if isinstance(value, str) and not quoted:
        text = value
    else:
        try:  # json.dumps(value, ensure_ascii=False, indent=...) with its encoder made once, not per value
            text = (_one_line if quoted else _indented)(value)
        except (TypeError, ValueError, RecursionError):
            text = show_value(value, limit)
    return (
        text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit} more characters)"
    )


def _number(value: Any) -> float | None:
    kind = type(value)
    if kind is float:  # the usual figure, checked at once
        return value if math.isfinite(value) else None
    if kind is int or value is None:
        return cast("float | None", value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return value


#: A model call's fields in the order :func:`story_columns` gives them (the snapshot's rows of model calls).
CALL_FIELDS = (
    "model",
    "time",
    "duration",
    "input_tokens",
    "output_tokens",
    "cost",
    "ok",
    "input",
    "output",
)


def _calls(run: Any) -> dict[str, list[list[Any]]]:
    """The model calls that led to each step, in the run's order, as rows of :data:`CALL_FIELDS` (None where not
    recorded): made in that order once, never as a dict per call that the snapshot takes apart again."""
    from planviz.runs.usage import (
        model_calls,  # here: `planviz validate` builds the CLI without the runs stage
    )

    out: dict[str, list[list[Any]]] = {}
    for step, call in model_calls(run):
        if step is None:
            continue
        get = call.get
        said = [
            str(get("model") or "")[:200],
            _number(get("time")),
            _number(get("duration")),
            _number(get("input_tokens")),
            _number(get("output_tokens")),
            _number(get("cost")),
            get("ok") is not False,
            None if get("input") is None else value_text(call["input"]),
            None if get("output") is None else value_text(call["output"]),
        ]
        step = step if type(step) is str else str(step)
        found = out.get(step)
        if found is None:
            out[step] = [said]
        else:
            found.append(said)
    return out


def _endings(run: Any) -> dict[str, tuple[Any, Any]]:
    """For each step that started, (its last ending event or None, the last observation that holds a result)."""
    last: dict[str, Any] = {}
    returned: dict[str, Any] = {}
    for e in run.events:
        step, kind = e.step, e.kind
        if step is None:
            continue
        if kind == "start":  # started: an ending may follow (else it never recorded one)
            if step not in last:
                last[step] = None
        elif kind == "complete" or kind == "fail":
            last[step] = e
            observation = e.observation
            if observation is not None and observation.data.get("result") is not None:
                returned[step] = observation
    if not returned.keys() - last.keys():
        return {sid: (end, returned.get(sid)) for sid, end in last.items()}
    return {sid: (last.get(sid), returned.get(sid)) for sid in set(last) | set(returned)}


_NEVER = (None, None)


def _argument_rows(arguments: Any) -> list[list[str]]:
    """A step's arguments as ``[name, value as text]`` rows, sorted: :func:`value_text` ``quoted`` of each value,
    a text or an integer written here at once (most arguments)."""
    rows = []
    for k, v in sorted(arguments.items()):
        kind = type(v)
        if kind is str:
            text = _TEXT(v)
        elif kind is int:
            text = int.__repr__(v)
        else:
            rows.append([str(k), value_text(v, quoted=True)])
            continue
        rows.append(
            [
                k if type(k) is str else str(k),
                text
                if len(text) <= MAX_TEXT
                else f"{text[:MAX_TEXT]}... ({len(text) - MAX_TEXT} more characters)",
            ]
        )
    return rows


def step_story(run: Any) -> dict[str, dict[str, Any]]:
    """What was said and done at each step of ``run`` (every plan version's steps; the latest version's wins):
    ``arguments`` (``[name, value as text]``, sorted), ``status`` (how its last attempt ended: ``done``,
    ``failed``; ``started, no end recorded``; ``not started``), ``error`` (the error text when its last
    attempt failed: its observation's ``data["error"]``, else the failure's message; else None), ``result``
    (what it returned: the observation's
    ``data["result"]`` as text; None when the trace does not say), ``ended`` (the index of the event its last
    attempt ended at; None when it never ended) and ``calls`` (the model calls that led to it:
    ``model``, ``time``, ``duration``, tokens, ``cost``, ``ok``, ``input`` and ``output``)."""
    steps, arguments, statuses, errors, results, calls, ended = story_columns(run)
    calls = [[dict(zip(_STORY_ORDER, map(row.__getitem__, _AT))) for row in rows] for rows in calls]
    told = (arguments, statuses, errors, results, calls, ended)
    return dict(zip(map(_ID, steps), map(dict, map(zip, repeat(_TOLD), zip(*told)))))


_TOLD = ("arguments", "status", "error", "result", "calls", "ended")
# a call's keys in a story, in the order it always gave them, and where each is in a row of CALL_FIELDS
_STORY_ORDER = (
    "time",
    "duration",
    "input_tokens",
    "output_tokens",
    "cost",
    "model",
    "ok",
    "input",
    "output",
)
_AT = tuple(map(CALL_FIELDS.index, _STORY_ORDER))
_ID = attrgetter("id")


def story_columns(
    run: Any,
) -> tuple[list[Any], list[list[list[str]]], list[str], list[Any], list[Any], list[Any], list[Any]]:
    """:func:`step_story` as columns, one item per step id (in order of first appearance; each the latest plan
    version's step): ``(steps, arguments, status, error, result, calls, ended)``; the snapshot's details read them
    without a story dict per step, and each story is worked out once per step, not once per version holding it;
    a step's model calls are rows of :data:`CALL_FIELDS`, each a new list."""
    calls = _calls(run)
    ends = _endings(run)
    latest: dict[str, Any] = {}
    for plan in run.plans:
        latest.update(zip(map(_ID, plan.steps), plan.steps))
    steps = list(latest.values())
    statuses: list[str] = []
    errors: list[Any] = []
    results: list[Any] = []
    ended: list[Any] = []
    for sid in latest:
        end, returned = ends.get(sid, _NEVER)
        error = None
        if end is None:
            status = "started, no end recorded" if sid in ends else "not started"
        elif end.kind == "fail":
            status = "failed"
            data = end.observation.data if end.observation is not None else {}
            error = (
                value_text(data["error"])
                if data.get("error") is not None
                else str(end.message or "failed")
            )
        else:
            status = "done"
        statuses.append(status)
        errors.append(error)
        results.append(None if returned is None else returned.data["result"])
        ended.append(None if end is None else int(end.index))
    results = _value_texts(results)
    arguments = [_argument_rows(a) if a else [] for a in map(_ARGUMENTS, steps)]
    told = [calls.get(sid, []) for sid in latest]
    return steps, arguments, statuses, errors, results, told, ended


_ARGUMENTS = attrgetter("arguments")


def run_turns(run: Any) -> list[list[Any]]:
    """The run's chat turns (``Run.turns``) as ``[role, text, time]`` (time None when not recorded), the texts cut
    to :data:`MAX_TEXT`; at most :data:`MAX_TURNS`, the last ones (a thread's latest reply is what is looked for)."""
    turns = tuple(getattr(run, "turns", ()) or ())[-MAX_TURNS:]
    return [[str(t.role)[:40], value_text(t.text), _number(t.time)] for t in turns]
