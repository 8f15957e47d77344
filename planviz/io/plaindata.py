"""Python data handed to planviz is held to what a plan file could hold: plain, finite, acyclic, bounded.

Parsed plan text is plain data by construction; data a program passes
(``load_plan(mapping)``, ``Step(arguments=...)``) may be anything: tuple
keys, sets, a list that contains itself, floats that are not finite, an
integer too long to write, a string with a lone surrogate, or shared lists
that stand for far more text than they take in memory (the Python form of a
YAML alias bomb). :func:`check_plain` walks the data once, visiting each
shared list or mapping once, and refuses all of these with the field path, so
importers, validation, pictures and trace files never meet them.

>>> check_plain({"a": [1, "x", None, 2.5]})
>>> loop = []
>>> loop.append(loop)
>>> check_plain({"steps": loop})
Traceback (most recent call last):
...
planviz.errors.PlanFormatError: steps[0]: this list contains itself: expected plain data (a tree of lists and mappings)
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from planviz.errors import PlanFormatError
from planviz.io import limits
from planviz.io.syntax import join_path, literal, show_value

__all__ = [
    "check_plain",
    "check_unicode",
    "check_unicode_data",
    "copy_plain",
    "as_duration",
    "iso_nanos",
    "python_literal",
    "ARGUMENTS_DEPTH",
    "MAX_LITERAL",
]

_END = object()
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_FRACTION = re.compile(r":[0-9]{2}[.,]([0-9]+)")  # the seconds' fraction
_LOG10_2 = math.log10(2)


MAX_LITERAL = 20_000
"""Characters of text read as a Python literal (:func:`python_literal`); longer text stays text."""

ARGUMENTS_DEPTH = 3
"""Lists and mappings above a step's arguments in a plan file (the document, its steps, the step): checked
with ``above=ARGUMENTS_DEPTH``, arguments a plan holds are never too deep for its file to be read back."""


def check_plain(
    value: Any, path: tuple[Any, ...] = (), *, prefix: str = "", above: int = 0
) -> None:
    """Refuse ``value`` unless it is JSON-like data that could have come from a plan file.

    Allowed: None, booleans, integers a file could write, finite floats, strings
    that are Unicode text, and lists, tuples and mappings with string keys, nested
    at most :data:`~planviz.io.limits.MAX_DEPTH` deep, containing no cycle and
    expanding (shared parts counted each time they are used) to at most
    :data:`~planviz.io.limits.MAX_EXPANDED_BYTES` of text. Errors name the
    field path, after ``prefix`` and ``path``. ``above`` is how many lists and
    mappings hold the value in the file it is written to (a step's arguments:
    3), so what passes here is never too deep to read back.

    >>> check_plain({"x": {(1, 2): 3}}, prefix="step 'A'.arguments")
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: step 'A'.arguments.x: keys are strings, got (1, 2)
    """
    cap, max_depth = limits.MAX_EXPANDED_BYTES, limits.MAX_DEPTH - above
    sizes: dict[
        int, int
    ] = {}  # id -> expanded size of a finished list or mapping (it may be shared)

    def fail(message: str, where: tuple[Any, ...]) -> PlanFormatError:
        return PlanFormatError(message, path=_join(prefix, where))

    if not isinstance(value, (Mapping, list, tuple)):
        _leaf(value, path, fail)
        return
    stack = [[value, _items(value), path, 2]]  # [container, its items, path, expanded size so far]
    total = 2
    while stack:
        frame = stack[-1]
        is_map = isinstance(frame[0], Mapping)
        for key, child in frame[1]:
            if is_map:
                if not isinstance(key, str):
                    raise fail(f"keys are strings, got {show_value(key, 60)}", frame[2])
                if not key.isascii():
                    _text(key, frame[2] + (key,), fail)
                frame[3] += len(key) + 2
                total += len(key) + 2
            kind = type(child)
            if kind is str:
                if not child.isascii():
                    _text(child, frame[2] + (key,), fail)
                size = len(child) + 2
            elif kind is dict or kind is list or kind is tuple or isinstance(child, Mapping):
                known = sizes.get(id(child))
                if known is None:
                    where = frame[2] + (key,)
                    if any(f[0] is child for f in stack):
                        what = "mapping" if isinstance(child, Mapping) else "list"
                        raise fail(
                            f"this {what} contains itself: expected plain data (a tree of lists and "
                            "mappings)",
                            where,
                        )
                    if len(stack) >= max_depth:
                        held = (
                            f" (counting the {above} that hold it in a plan file)" if above else ""
                        )
                        raise fail(
                            f"nesting deeper than {limits.MAX_DEPTH} levels{held}: expected plan data, not "
                            f"a deep structure; {limits.raise_hint('MAX_DEPTH')}",
                            where,
                        )
                    stack.append([child, _items(child), where, 2])
                    total += 2
                    break
                size = known
            else:
                size = _leaf(child, frame[2] + (key,), fail)
            frame[3] += size
            total += size
            if total > cap:
                raise fail(
                    f"this data stands for more than {limits.mib(cap)} of text (lists or mappings used "
                    f"many times?): expected plan data; {limits.raise_hint('MAX_EXPANDED_BYTES')}",
                    frame[2] + (key,),
                )
        else:
            stack.pop()
            sizes[id(frame[0])] = frame[3]
            if stack:
                stack[-1][3] += frame[3]


def check_unicode(text: str, where: str | tuple[Any, ...] | None = None) -> str:
    """``text`` itself, after refusing a lone surrogate (text no file or trace can hold as UTF-8).

    ``where`` is the field path (a string, or a tuple of keys and indexes).

    >>> check_unicode("A\\udc00", "steps[0].id")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: steps[0].id: lone surrogate '\\udc00' at character 2 of 'A\\udc00':
    expected Unicode text that can be written as UTF-8
    """
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise PlanFormatError(
                f"lone surrogate {text[exc.start]!r} at character {exc.start + 1} of "
                f"{show_value(text, 40)}: expected Unicode text that can be written as UTF-8",
                path=(where if isinstance(where, str) else join_path(where or ())) or None,
            ) from None
    return text


def check_unicode_data(value: Any) -> None:
    """Refuse parsed JSON holding a lone surrogate in any key or string (:func:`check_unicode`, the path named).

    >>> check_unicode_data({"spans": [{"name": "ok"}, {"name": "x\\ud800"}]})  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: spans[1].name: lone surrogate '\\ud800' at character 2 of 'x\\ud800':
    expected Unicode text that can be written as UTF-8
    """
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            check_unicode(item, where)
        elif isinstance(item, dict):
            for key, inner in item.items():
                check_unicode(key, where + (key,)) if isinstance(key, str) else None
                stack.append((inner, where + (key,)))
        elif isinstance(item, list):
            stack.extend((inner, where + (i,)) for i, inner in enumerate(item))


def copy_plain(value: Any) -> Any:
    """A deep copy of checked plain data, tuples as lists (as a plan file gives them back, so round trips
    compare equal).

    >>> copy_plain({"a": (1, {"b": ()})})
    {'a': [1, {'b': []}]}
    """
    if isinstance(value, Mapping):
        return {k: copy_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [copy_plain(v) for v in value]
    return value


def _items(container: Any) -> Any:
    return iter(container.items()) if isinstance(container, Mapping) else enumerate(container)


def _leaf(value: Any, where: tuple[Any, ...], fail: Any) -> int:
    """The size in characters of a plain scalar as text; anything else is refused."""
    if value is None or isinstance(value, bool):
        return 5
    if isinstance(value, str):
        _text(value, where, fail)
        return len(value) + 2
    if isinstance(value, int):
        digits = int(value.bit_length() * _LOG10_2) + 1
        most = limits.max_digits()
        if digits > most:
            raise fail(
                f"integer of about {digits:,} digits is too large to write: expected at most {most:,} digits",
                where,
            )
        return digits + 1
    if isinstance(value, float):
        if not math.isfinite(value):
            raise fail(f"expected a finite number, got {value!r}", where)
        return 24
    raise fail(
        f"expected plain data (string, number, true/false, null, list or mapping), got "
        f"{type(value).__name__} {show_value(value, 60)}",
        where,
    )


def _text(text: str, where: tuple[Any, ...], fail: Any) -> None:
    try:
        check_unicode(text)
    except PlanFormatError as exc:
        raise fail(exc.message, where) from None


def _join(prefix: str, parts: tuple[Any, ...]) -> str | None:
    tail = join_path(parts)
    if not prefix or not tail:
        return (prefix or tail) or None
    return prefix + tail if tail.startswith("[") else f"{prefix}.{tail}"


def as_duration(value: Any) -> float | None:
    """``value`` as a float when it is a finite number >= 0 (not a bool), else None.

    An int too large for a float (``10**400``) is None too, instead of an OverflowError.
    The one check of durations, shared by steps, loaders and analysis overrides.

    >>> as_duration(5), as_duration(-1), as_duration(float("nan")), as_duration(10**400), as_duration(True)
    (5.0, None, None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


def iso_nanos(text: str) -> int | None:
    """An ISO 8601 time as integer nanoseconds since the epoch (UTC when it names no zone, ``Z`` read as UTC;
    digits past the microsecond kept), or None when it is not one.

    The one reading of ISO times, shared by the trace readers. Exact: a float of 1.7e9 seconds rounds to about
    0.2 us, which made a Langfuse call of 717 ms last 716.999936 ms.

    >>> iso_nanos("1970-01-01T00:00:01.5Z"), iso_nanos("1970-01-01T01:00:00+01:00"), iso_nanos("soon")
    (1500000000, 0, None)
    >>> iso_nanos("2025-08-01T13:56:55.123456789+00:00") % 10**9
    123456789
    """
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    delta = (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)) - _EPOCH
    nanos = ((delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds) * 1_000
    # fromisoformat keeps six digits of the fraction; OTel writes nine
    digits = _FRACTION.search(text)
    return (
        nanos + int(digits.group(1)[6:9].ljust(3, "0"))
        if digits and len(digits.group(1)) > 6
        else nanos
    )


def python_literal(text: str) -> Any:
    """The plain data a Python literal's text holds (what ``repr`` or ``str`` wrote of a dict, list, string,
    number, bool or None; tuples read as lists), or None when the text is no such literal, holds anything else
    (a call, a name, a set), nests deeper than 50 or is longer than :data:`MAX_LITERAL` characters.

    The one reading of Python reprs, for the readers that meet them (T-Eval's ``args``, LangChain's tool
    inputs in OpenInference and Langfuse traces): :func:`ast.literal_eval`, which evaluates nothing (no
    name, call or operator but a sign). The result is not yet checked with :func:`check_plain`.

    >>> python_literal("{'timezone': 'America/New_York', 'n': (1, 2)}")
    {'timezone': 'America/New_York', 'n': [1, 2]}
    >>> python_literal("{'when': datetime.date(2025, 1, 1)}") is None
    True
    """
    if not isinstance(text, str) or len(text) > MAX_LITERAL:
        return None
    try:
        value = literal(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, OverflowError):
        return None
    try:
        return _plain_literal(value, 0)
    except ValueError:
        return None


def _plain_literal(value: Any, depth: int) -> Any:
    """``value`` with tuples as lists, or ValueError when it is not plain data (what JSON could hold)."""
    if depth > 50:
        raise ValueError("too deep")
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain_literal(v, depth + 1) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _plain_literal(v, depth + 1) for k, v in value.items()}
    raise ValueError("not plain")
