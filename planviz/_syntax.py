"""JSON and YAML syntax for untrusted plan text: capped, safe parsing, and field paths back to line and column.

The private half of :mod:`planviz.source`: YAML is built from the event
stream (nothing is ever constructed but dicts, lists, strings, numbers,
booleans and None), with nesting, alias expansion, tags and duplicate keys
checked as events arrive; JSON is pre-scanned for depth before
``json.loads``. :func:`locate` walks the same events again, only when an
error needs a line and column.

>>> locate(json_events('{"steps": [{"id": "A"},\\n {"id": 5}]}'), ("steps", 1, "id"))
(2, 9)
"""

from __future__ import annotations

import ast
import json
import math
import re
from itertools import accumulate
from typing import Any, Iterable, Iterator

import yaml

from .errors import PlanFormatError

__all__ = [
    "MAX_DEPTH",
    "MAX_ALIAS_NODES",
    "FLOAT_PATTERN",
    "resolve_scalar",
    "split_path",
    "split_exact",
    "join_path",
    "line_col",
    "parse_json",
    "parse_json_lines",
    "parse_yaml",
    "json_events",
    "yaml_events",
    "locate",
]

MAX_DEPTH = 100
"""Deepest nesting of lists and mappings accepted."""
MAX_ALIAS_NODES = 100_000
"""Most nodes that YAML aliases may add to a document when expanded."""

_YAML_EVENTS = getattr(yaml, "CBaseLoader", yaml.BaseLoader)
_STR_TAG = "tag:yaml.org,2002:str"
_ALLOWED_TAGS = {
    "scalar": (None, "!", _STR_TAG),
    "map": (None, "!", "tag:yaml.org,2002:map"),
    "seq": (None, "!", "tag:yaml.org,2002:seq"),
}
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
FLOAT_PATTERN = re.compile(r"[-+]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
"""Plain scalars matching this (and not an integer) load as floats; the dumper quotes such strings."""
_JSON_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|([{}\[\],:])|([^\s{}\[\],:"]+))', re.S)
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_NOT_STRUCTURE = re.compile(r'[^\[\]{}"\\]+')
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_PATH_TOKEN = re.compile(r"""\.?([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\]""")
_PLAIN_KEY = re.compile(r"[A-Za-z_$][\w$-]*")

# --------------------------------------------------------------------------- paths


def split_path(path: str | Iterable[str | int]) -> tuple[str | int, ...]:
    """A field path as a tuple of keys and indexes (the inverse of :func:`join_path`).

    >>> split_path("steps[3].depends_on")
    ('steps', 3, 'depends_on')
    >>> split_path("contract.tools['db.write'].writes")
    ('contract', 'tools', 'db.write', 'writes')
    """
    if not isinstance(path, str):
        return tuple(path)
    out: list[str | int] = []
    pos = 0
    while pos < len(path):
        m = _PATH_TOKEN.match(path, pos)
        if m is None:
            break
        name, index, quoted = m.groups()
        out.append(name if name is not None else int(index) if index is not None else ast.literal_eval(quoted))
        pos = m.end()
    return tuple(out)


def split_exact(path: str) -> tuple[str | int, ...] | None:
    """Like split_path, or None when the text is not a field path (then it is kept as it is)."""
    parts = split_path(path)
    return parts if join_path(parts) == path or not path else None


def join_path(parts: Iterable[str | int]) -> str:
    """A readable field path: ``steps[3].depends_on``; odd keys are quoted (``tools['db.write']``).

    >>> join_path(("steps", 3, "depends_on"))
    'steps[3].depends_on'
    >>> join_path((2, "goal"))
    '[2].goal'
    """
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(part):
            out += f".{part}" if out else part
        else:
            out += f"[{part!r}]"
    return out


def line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _show(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


# --------------------------------------------------------------------------- JSON


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
    try:
        return int(token)
    except ValueError:  # more digits than int() converts
        raise _TooLong(token) from None


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _NonFinite(token)
    return value


def parse_json(text: str, name: str, line_offset: int = 0) -> Any:
    _check_json_depth(text, name, line_offset)
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                          parse_int=_bounded_int, object_pairs_hook=_unique_pairs)
    except _Duplicate:
        key, first, (line, column), path = _find_json_duplicate(text)
        raise PlanFormatError(f"duplicate key {key!r} (first at line {first[0] + line_offset}): each key may appear once",
                              source=name, line=line + line_offset, column=column, path=join_path(path)) from None
    except (_NonFinite, _TooLong) as exc:
        token = exc.args[0]
        line, column = _find_bare_token(text, token)
        problem = (f"integer of {len(token.lstrip('-'))} digits is too large: quote it to keep it as text"
                   if isinstance(exc, _TooLong) else f"non-finite number {token}: expected a finite number")
        raise PlanFormatError(problem, source=name, line=line + line_offset, column=column) from None
    except json.JSONDecodeError as exc:
        raise PlanFormatError(f"invalid JSON: {exc.msg}", source=name,
                              line=exc.lineno + line_offset, column=exc.colno) from None
    except (ValueError, RecursionError) as exc:
        raise PlanFormatError(f"invalid JSON: {exc}", source=name, line=1 + line_offset) from None


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
            raise PlanFormatError(f"JSON Lines record on line {number}: {exc.message}", source=name,
                                  line=exc.line, column=exc.column) from None
        lines.append(number)
    return tuple(values), tuple(lines)


def _check_json_depth(text: str, name: str, line_offset: int = 0) -> None:
    """Refuse nesting deeper than MAX_DEPTH before json.loads builds (or recurses into) it."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    skeleton = _JSON_STRING.sub("", _NOT_STRUCTURE.sub("", text))  # brackets outside strings
    if max(accumulate(map(_DEPTH_STEP.__getitem__, _NOT_BRACKET.sub("", skeleton))), default=0) <= MAX_DEPTH:
        return
    depth = 0
    for m in _JSON_TOKEN.finditer(text):
        punct = m.group(2)
        if punct in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                line, column = line_col(text, m.start(2))
                raise PlanFormatError(f"nesting deeper than {MAX_DEPTH} levels: expected a plan, not a deep structure",
                                      source=name, line=line + line_offset, column=column)
        elif punct in ("]", "}"):
            depth -= 1


def _json_tokens(text: str) -> Iterator[tuple[str, str, int]]:
    pos = 0
    while True:
        m = _JSON_TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            return
        pos = m.end()
        for kind, group in (("string", 1), ("punct", 2), ("bare", 3)):
            if m.group(group) is not None:
                yield kind, m.group(group), m.start(group)


def _find_bare_token(text: str, token: str) -> tuple[int, int]:
    for kind, value, offset in _json_tokens(text):
        if kind == "bare" and value == token:
            return line_col(text, offset)
    return 1, 1


def json_events(text: str) -> Iterator[tuple[str, Any, tuple[int, int]]]:
    for kind, value, offset in _json_tokens(text):
        if kind == "punct":
            if value in "{[":
                yield ("map" if value == "{" else "seq"), None, line_col(text, offset)
            elif value in "}]":
                yield "end", None, (0, 0)
        else:
            yield "scalar", json.loads(value) if kind == "string" else value, line_col(text, offset)


def _find_json_duplicate(text: str) -> tuple[str, tuple[int, int], tuple[int, int], tuple]:
    stack: list[list] = []  # [is_map, key_or_index, expecting_key, seen keys -> position]
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


def locate(events: Iterable[tuple[str, Any, tuple[int, int]]], target: tuple) -> tuple[int, int] | None:
    """Walk events of one document; the position of ``target`` or of its deepest existing prefix."""
    stack: list[list] = []  # [is_map, key_or_index, expecting_key, on_path]
    best, best_len = None, -1

    def advance() -> None:
        if stack:
            top = stack[-1]
            if top[0]:
                top[2] = True
            else:
                top[1] += 1

    for kind, value, pos in events:
        if kind == "end":
            stack.pop()
            advance()
            continue
        if stack and stack[-1][0] and stack[-1][2]:
            top = stack[-1]
            top[1], top[2] = value, False
            if top[3] and len(stack) <= len(target) and target[len(stack) - 1] == value and len(stack) > best_len:
                best, best_len = pos, len(stack)  # the key, until its value is seen
            if kind != "scalar":
                return best
            continue
        depth = len(stack)
        on_path = depth <= len(target) and (not stack or (stack[-1][3] and stack[-1][1] == target[depth - 1]))
        if on_path and depth >= best_len:
            best, best_len = pos, depth
            if depth == len(target):
                return pos
        if kind == "scalar":
            advance()
        else:
            stack.append([kind == "map", None if kind == "map" else 0, True, on_path])
    return best


# --------------------------------------------------------------------------- YAML


def resolve_scalar(text: str) -> Any:
    """The value of a plain YAML scalar, resolved like JSON: everything but null/true/false/numbers stays text.

    >>> [resolve_scalar(t) for t in ["012", "no", "on", "1:20", "1e3", "-4", "2.50", "true", "True", "", "null"]]
    ['012', 'no', 'on', '1:20', 1000.0, -4, 2.5, True, 'True', None, None]
    """
    if text in ("", "~", "null"):
        return None
    if text == "true":
        return True
    if text == "false":
        return False
    if text[0] in "+-.0123456789":
        if _INT.fullmatch(text):
            try:
                return int(text)
            except ValueError:  # more digits than int() converts
                digits = len(text.lstrip("+-"))
                raise ValueError(f"integer of {digits} digits is too large: quote it to keep it as text") from None
        if FLOAT_PATTERN.fullmatch(text):
            value = float(text)
            if not math.isfinite(value):
                raise ValueError(f"number {text} is out of range: expected a finite number")
            return value
    return text


def parse_yaml(text: str, name: str) -> tuple[tuple[Any, ...], tuple[int, ...]]:
    """Build plain data from the YAML event stream, checking depth, tags, aliases and duplicate keys as it goes."""
    docs: list[Any] = []
    stack: list[list] = []  # [container, is_map, anchor, size (expanded), pending key, seen keys -> line]
    anchors: dict[str, tuple[Any, int]] = {}
    open_anchors: set[str] = set()
    alias_nodes = 0
    mark = None

    def fail(message: str, at: Any = None, extra: tuple = (), *, with_path: bool = True) -> PlanFormatError:
        at = at or mark
        path = [f[4] if f[1] else len(f[0]) for f in stack if f[4] is not _NO_KEY or not f[1]] + list(extra)
        path = path if with_path else []
        return PlanFormatError(message, source=name, line=at.line + 1 if at else None,
                               column=at.column + 1 if at else None, path=join_path(path) or None)

    def add(value: Any, size: int, is_key_ok: bool, plain: bool = False) -> None:
        if not stack:
            docs.append(value)
            return
        top = stack[-1]
        top[3] += size
        if not top[1]:
            top[0].append(value)
        elif top[4] is _NO_KEY:
            if not is_key_ok:
                raise fail(f"mapping key {_show(value)} is an alias, list or mapping: expected a plain string key")
            if value == "<<" and plain:
                raise fail("YAML merge keys (<<) are not supported: write the fields out", extra=(value,))
            first = top[5].get(value)
            if first is not None:
                raise fail(f"duplicate key {value!r} (first at line {first}): each key may appear once",
                           extra=(value,))
            top[4] = value
            top[5][value] = mark.line + 1
        else:
            top[0][top[4]] = value
            top[4] = _NO_KEY

    def check_tag(tag: str | None, kind: str) -> None:
        if tag not in _ALLOWED_TAGS[kind]:
            raise fail(f"YAML tag {tag!r} is not allowed: plan files hold plain data only "
                       "(mappings, lists, strings, numbers, true/false/null)")

    try:
        for event in yaml.parse(text, Loader=_YAML_EVENTS):
            mark = event.start_mark
            if isinstance(event, yaml.ScalarEvent):
                check_tag(event.tag, "scalar")
                is_key = bool(stack) and stack[-1][1] and stack[-1][4] is _NO_KEY
                value = event.value
                if event.tag is None and event.implicit[0] and not is_key:
                    try:
                        value = resolve_scalar(value)
                    except ValueError as exc:
                        raise fail(str(exc)) from None
                if event.anchor:
                    anchors[event.anchor] = (value, 1)
                add(value, 1, True, event.tag is None and event.implicit[0])
            elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                is_map = isinstance(event, yaml.MappingStartEvent)
                check_tag(event.tag, "map" if is_map else "seq")
                if len(stack) >= MAX_DEPTH:
                    raise fail(f"nesting deeper than {MAX_DEPTH} levels: expected a plan, not a deep structure",
                               with_path=False)
                if event.anchor:
                    open_anchors.add(event.anchor)
                stack.append([{} if is_map else [], is_map, event.anchor, 1, _NO_KEY, {}])
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                container, _, anchor, size, *_ = stack.pop()
                if anchor:
                    anchors[anchor] = (container, size)
                    open_anchors.discard(anchor)
                add(container, size, False)
            elif isinstance(event, yaml.AliasEvent):
                if event.anchor not in anchors:
                    why = ("refers to the node that contains it (recursive data is not allowed)"
                           if event.anchor in open_anchors else "has no anchor &" + event.anchor + " before it")
                    raise fail(f"alias *{event.anchor} {why}")
                value, size = anchors[event.anchor]
                alias_nodes += size
                if alias_nodes > MAX_ALIAS_NODES:
                    raise fail(f"aliases expand to more than {MAX_ALIAS_NODES:,} nodes "
                               "(an alias bomb?): expected plain data")
                add(value, size, False)
            elif isinstance(event, yaml.DocumentStartEvent):
                anchors.clear()
                open_anchors.clear()
    except PlanFormatError:
        raise
    except yaml.MarkedYAMLError as exc:
        at = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if (at is not None and text[at.index:at.index + 1] == "\t") or "'\\t'" in problem:
            problem += " (YAML indents with spaces, not tabs)"
        context = f" ({exc.context} at line {exc.context_mark.line + 1})" if exc.context and exc.context_mark else ""
        raise PlanFormatError(f"invalid YAML: {problem}{context}", source=name,
                              line=at.line + 1 if at else None, column=at.column + 1 if at else None) from None
    except yaml.YAMLError as exc:
        position = getattr(exc, "position", None)
        line, column = line_col(text, position) if isinstance(position, int) else (None, None)
        message = getattr(exc, "reason", None) or str(exc)
        raise PlanFormatError(f"invalid YAML: {message}", source=name, line=line, column=column) from None
    indexes = tuple(i for i, d in enumerate(docs) if d is not None or len(docs) == 1)
    return tuple(docs[i] for i in indexes), indexes


class _NoKey:
    def __repr__(self) -> str:
        return "<no key>"


_NO_KEY = _NoKey()


def yaml_events(text: str, record: int) -> Iterator[tuple[str, Any, tuple[int, int]]]:
    """The events of YAML document number ``record`` as (kind, scalar value, (line, column)) for :func:`locate`."""
    index = -1
    for event in yaml.parse(text, Loader=_YAML_EVENTS):
        if isinstance(event, yaml.DocumentStartEvent):
            index += 1
            continue
        if index != record or isinstance(event, (yaml.DocumentEndEvent, yaml.StreamEndEvent)):
            if index > record:
                return
            continue
        pos = (event.start_mark.line + 1, event.start_mark.column + 1)
        if isinstance(event, yaml.MappingStartEvent):
            yield "map", None, pos
        elif isinstance(event, yaml.SequenceStartEvent):
            yield "seq", None, pos
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            yield "end", None, pos
        elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
            yield "scalar", getattr(event, "value", None), pos
