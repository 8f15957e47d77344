"""JSON and JSON Lines for untrusted plan text: depth capped before parsing, finite numbers, unique keys.

>>> parse_json('{"a": [1, 2.5]}', "<string>")
{'a': [1, 2.5]}
>>> parse_json('{"a": 1, "a": 2}', "p.json")
Traceback (most recent call last):
...
planviz.errors.PlanFormatError: p.json:1:10: a: duplicate key 'a' (first at line 1): each key may appear once
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any, Iterator

from planviz.errors import PlanFormatError
from planviz.io import limits
from planviz.io.plaindata import check_plain
from planviz.io.syntax import join_path, line_col, locate, split_path

__all__ = [
    "parse_json",
    "parse_json_lines",
    "json_events",
    "loads_within_limits",
    "check_json_depth",
    "check_inner_depth",
    "check_inner_plain",
    "DuplicateKey",
    "unique_keys",
]

# Every non-space character starts a token and an unterminated string runs to the end, so no match ever
# fails after scanning ahead: tokenizing stays linear on hostile text (no backtracking over whitespace runs).
_JSON_TOKEN = re.compile(r'("[^"\\]*(?:\\.[^"\\]*)*"?)|([{}\[\],:])|([^\s{}\[\],:"]+)', re.S)
_QUOTED = re.compile(r'"[^"]*"?')  # a string once its escaped quotes and backslashes are gone
_TOKEN_KINDS = ("", "string", "punct", "bare")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_NOT_STRUCTURE = re.compile(r'[^\[\]{}"]+')
_KEEP_BRACKETS_AND_QUOTES = bytes(b for b in range(256) if chr(b) not in '[]{}"')
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class _NonFinite(ValueError):
    pass


class _TooLong(ValueError):
    pass


class _Duplicate(ValueError):
    pass


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        raise _Duplicate()
    return value


def _reject_constant(token: str) -> Any:
    raise _NonFinite(token)


def _bounded_int(token: str) -> int:
    if len(token) > limits.max_digits() and len(token.lstrip("-")) > limits.max_digits():
        raise _TooLong(token)
    return int(token)


def loads_within_limits(text: str) -> Any:
    """``json.loads`` for JSON inside a planner output (a chat message, an argument string): invalid JSON
    raises ``json.JSONDecodeError`` as usual (an importer reads past it), but nesting deeper than
    :data:`~planviz.io.limits.MAX_DEPTH`, an integer longer than
    :data:`~planviz.io.limits.MAX_DIGITS` or a lone surrogate raises :class:`PlanFormatError`, which the
    importer lets through: the input is refused, as the same JSON in a file would be.

    >>> loads_within_limits('{"a": [1, "x"]}')
    {'a': [1, 'x']}
    >>> loads_within_limits('"\\\\udfff"')  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: JSON text inside the input: lone surrogate '\\udfff' at character 1 of
    '\\udfff': expected Unicode text that can be written as UTF-8
    """
    check_inner_depth(text)
    try:
        data = json.loads(text, parse_int=_bounded_int)
    except _TooLong as exc:
        raise _inner(limits.too_many_digits(len(exc.args[0].lstrip("-")))) from None
    if "\\u" in text and _SURROGATE_ESCAPE.search(text):
        check_inner_plain(data)
    return data


def check_inner_depth(text: str) -> None:
    """:func:`check_json_depth` for text inside the input (its own lines and columns would mislead)."""
    try:
        check_json_depth(text)
    except PlanFormatError as exc:
        raise _inner(exc.message) from None


def check_inner_plain(data: Any) -> None:
    """:func:`~planviz.io.plaindata.check_plain` for data decoded from text inside the input."""
    try:
        check_plain(data)
    except PlanFormatError as exc:
        raise _inner(f"{exc.path}: {exc.message}" if exc.path else exc.message) from None


def _inner(message: str) -> PlanFormatError:
    return PlanFormatError(f"JSON text inside the input: {message}")


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _NonFinite(token)
    return value


def parse_json(text: str, name: str, line_offset: int = 0) -> Any:
    shallow = _provably_shallow(text)
    if not shallow:
        check_json_depth(text, name, line_offset)
    try:
        data = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
            object_pairs_hook=_unique_pairs,
        )
        if "\\u" in text and _SURROGATE_ESCAPE.search(text):
            check_plain(data)  # finds an escaped lone surrogate ("A\udc00"); pairs are fine
        return data
    except (ValueError, RecursionError) as exc:
        if shallow:  # the proof holds for valid JSON only: a nesting error still comes first
            check_json_depth(text, name, line_offset)
        raise _json_error(exc, text, name, line_offset) from None


def _json_error(exc: Exception, text: str, name: str, line_offset: int) -> PlanFormatError:
    """The located error for what json.loads (or the surrogate check after it) raised."""
    if isinstance(exc, PlanFormatError):
        line, column = locate(json_events(text), split_path(exc.path or "")) or (1, 1)
        return PlanFormatError(
            exc.message, source=name, line=line + line_offset, column=column, path=exc.path
        )
    if isinstance(exc, _Duplicate):
        key, first, (line, column), path = _find_json_duplicate(text)
        return PlanFormatError(
            f"duplicate key {key!r} (first at line {first[0] + line_offset}): each key may appear "
            "once",
            source=name,
            line=line + line_offset,
            column=column,
            path=join_path(path),
        )
    if isinstance(exc, (_NonFinite, _TooLong)):
        token = exc.args[0]
        line, column = _find_bare_token(text, token)
        problem = (
            limits.too_many_digits(len(token.lstrip("-")))
            if isinstance(exc, _TooLong)
            else f"non-finite number {token}: expected a finite number"
        )
        return PlanFormatError(problem, source=name, line=line + line_offset, column=column)
    if isinstance(exc, json.JSONDecodeError):
        return PlanFormatError(
            f"invalid JSON: {exc.msg}", source=name, line=exc.lineno + line_offset, column=exc.colno
        )
    return PlanFormatError(f"invalid JSON: {exc}", source=name, line=1 + line_offset)


def parse_json_lines(text: str, name: str) -> tuple[tuple[Any, ...], tuple[int, ...]] | None:
    """JSON Lines as (records, their line numbers), or None when even the first line is not JSON."""
    values, lines = [], []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            values.append(parse_json(line, name, number - 1))
        except PlanFormatError as exc:
            if not values and exc.message.startswith("invalid JSON"):
                return None
            raise PlanFormatError(
                f"JSON Lines record on line {number}: {exc.message}",
                source=name,
                line=exc.line,
                column=exc.column,
            ) from None
        lines.append(number)
    return tuple(values), tuple(lines)


def _provably_shallow(text: str) -> bool:
    """True only when ``text``, if it is valid JSON, nests at most the cap deep (cheap: C-speed passes).

    Escaped backslashes and quotes removed, every quote left delimits a string;
    when each string's quotes are adjacent among the brackets and quotes, no
    string holds a bracket, so the brackets left are the structure. Each
    ``replace`` of innermost ``[]`` (or ``{}``) pairs takes at most one level off
    every nesting: empty after at most the cap's number of such rounds means
    shallow. Anything else: False, and the exact check decides.
    """
    if "\\" in text:
        text = text.replace("\\\\", "").replace('\\"', "")
    try:
        skeleton = (
            text.encode("utf-8").translate(None, _KEEP_BRACKETS_AND_QUOTES).replace(b'""', b"")
        )
    except UnicodeError:
        return False
    if b'"' in skeleton:
        return False
    levels, idle, pair, cap = 0, 0, b"[]", limits.MAX_DEPTH
    while skeleton:
        inner = skeleton.replace(pair, b"")
        pair = b"{}" if pair == b"[]" else b"[]"
        if len(inner) == len(skeleton):
            idle += 1
            if idle == 2:  # neither kind of pair is innermost anywhere: unbalanced
                return False
            continue
        idle, levels, skeleton = 0, levels + 1, inner
        if levels > cap:
            return False
    return True


def check_json_depth(text: str, name: str = "<text>", line_offset: int = 0) -> None:
    """Refuse text whose brackets nest deeper than :data:`~planviz.io.limits.MAX_DEPTH` (JSON or not:
    brackets inside strings do not count), before json.loads builds (or recurses into) it."""
    if text.count("[") + text.count("{") <= limits.MAX_DEPTH:
        return
    # without the escapes that could hide a string's end
    plain = text.replace("\\\\", "").replace('\\"', "")
    skeleton = _QUOTED.sub("", _NOT_STRUCTURE.sub("", plain))  # brackets outside strings
    if (
        max(accumulate(map(_DEPTH_STEP.__getitem__, _NOT_BRACKET.sub("", skeleton))), default=0)
        <= limits.MAX_DEPTH
    ):
        return
    depth = 0
    for m in _JSON_TOKEN.finditer(text):
        punct = m.group(2)
        if punct in ("[", "{"):
            depth += 1
            if depth > limits.MAX_DEPTH:
                line, column = line_col(text, m.start())
                raise PlanFormatError(
                    f"nesting deeper than {limits.MAX_DEPTH} levels: expected a plan, not a deep "
                    f"structure; {limits.raise_hint('MAX_DEPTH')}",
                    source=name,
                    line=line + line_offset,
                    column=column,
                )
        elif punct in ("]", "}"):
            depth -= 1


def _json_tokens(text: str) -> Iterator[tuple[str, str, int]]:
    for m in _JSON_TOKEN.finditer(text):
        yield _TOKEN_KINDS[m.lastindex or 0], m.group(), m.start()


def _find_bare_token(text: str, token: str) -> tuple[int, int]:
    for kind, value, offset in _json_tokens(text):
        if kind == "bare" and value == token:
            return line_col(text, offset)
    return 1, 1


def json_events(text: str) -> Iterator[tuple[str, Any, tuple[int, int]]]:
    """(kind, scalar value, (line, column)) of each JSON token, for :func:`~planviz.io.syntax.locate`;
    positions are counted as the tokens go (linear in the text); stops at a string that is not JSON."""
    line, line_start, seen = 1, 0, 0

    def place(offset: int) -> tuple[int, int]:
        nonlocal line, line_start, seen
        line += text.count("\n", seen, offset)
        line_start = max(line_start, text.rfind("\n", seen, offset) + 1)
        seen = offset
        return line, offset - line_start + 1

    for kind, value, offset in _json_tokens(text):
        if kind == "punct":
            if value in "{[":
                yield ("map" if value == "{" else "seq"), None, place(offset)
            elif value in "}]":
                yield "end", None, (0, 0)
        elif kind == "string":
            try:
                scalar = json.loads(value)
            except ValueError:  # unterminated or a bad escape: the text ends being JSON here
                return
            yield "scalar", scalar, place(offset)
        else:
            yield "scalar", value, place(offset)


def _find_json_duplicate(
    text: str,
) -> tuple[str, tuple[int, int], tuple[int, int], tuple[Any, ...]]:
    stack: list[list[Any]] = []  # [is_map, key_or_index, expecting_key, seen keys -> position]
    for kind, value, pos in json_events(text):
        if kind == "end":
            stack.pop()
        elif stack and stack[-1][0] and stack[-1][2]:
            top = stack[-1]
            if value in top[3]:
                return value, top[3][value], pos, tuple(f[1] for f in stack[:-1]) + (value,)
            top[1], top[2], top[3][value] = value, False, pos
            continue
        elif kind != "scalar":
            stack.append([kind == "map", None if kind == "map" else 0, True, {}])
            continue
        if stack:
            if stack[-1][0]:
                stack[-1][2] = True
            else:
                stack[-1][1] += 1
    return "?", (1, 1), (1, 1), ()  # pragma: no cover - json.loads saw a duplicate


class DuplicateKey(ValueError):
    """A JSON object names one key twice: refused wherever planviz reads JSON (plan files and trace lines)."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``' ``object_pairs_hook`` for untrusted JSON: the object, or :class:`DuplicateKey`.

    JSON lets the last of two equal keys win silently; an attacker (or a buggy writer) can then show one
    value to a reader that keeps the first and another to planviz. Plan files refuse it with the key's
    line and column (:func:`parse_json`); a trace line uses this hook.

    >>> import json
    >>> json.loads('{"a": 1, "a": 2}', object_pairs_hook=unique_keys)
    Traceback (most recent call last):
    ...
    planviz.io.jsonsyntax.DuplicateKey: duplicate key 'a': each key may appear once
    """
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise DuplicateKey(f"duplicate key {key!r}: each key may appear once")
    return out
