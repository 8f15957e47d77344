"""YAML for untrusted plan text: built from the event stream, so nothing is constructed but plain data.

Nesting, alias expansion (in nodes and in characters of text), tags, duplicate
keys and escapes that make no Unicode text are checked as events arrive, against
the caps of :mod:`planviz.io.limits`; scalars resolve like JSON (see
:func:`planviz.io.syntax.resolve_scalar`).

>>> parse_yaml("goal: g\\nsteps: []\\n", "<string>")[0]
({'goal': 'g', 'steps': []},)
"""

from __future__ import annotations

from typing import Any, Iterator

import yaml

from planviz.errors import PlanFormatError
from planviz.io import limits
from planviz.io.syntax import join_path, line_col, resolve_scalar, show_value

__all__ = ["parse_yaml", "yaml_events"]

_YAML_EVENTS = getattr(yaml, "CBaseLoader", yaml.BaseLoader)
_STR_TAG = "tag:yaml.org,2002:str"
_ALLOWED_TAGS = {
    "scalar": (None, "!", _STR_TAG),
    "map": (None, "!", "tag:yaml.org,2002:map"),
    "seq": (None, "!", "tag:yaml.org,2002:seq"),
}


def parse_yaml(text: str, name: str) -> tuple[tuple[Any, ...], tuple[int, ...]]:
    """Build plain data from the YAML event stream, checking depth, tags, aliases and duplicate keys as it goes."""
    docs: list[Any] = []
    # [container, is_map, anchor, nodes (expanded), pending key, seen keys -> line, characters (expanded)]
    stack: list[list[Any]] = []
    anchors: dict[str, tuple[Any, int, int]] = {}
    open_anchors: set[str] = set()
    alias_nodes = alias_chars = 0
    mark: Any = None

    def fail(
        message: str, at: Any = None, extra: tuple[Any, ...] = (), *, with_path: bool = True
    ) -> PlanFormatError:
        at = at or mark
        path = [
            f[4] if f[1] else len(f[0]) for f in stack if f[4] is not _NO_KEY or not f[1]
        ] + list(extra)
        path = path if with_path else []
        return PlanFormatError(
            message,
            source=name,
            line=at.line + 1 if at else None,
            column=at.column + 1 if at else None,
            path=join_path(path) or None,
        )

    def add(value: Any, size: int, chars: int, is_key_ok: bool, plain: bool = False) -> None:
        if not stack:
            docs.append(value)
            return
        top = stack[-1]
        top[3] += size
        top[6] += chars
        if not top[1]:
            top[0].append(value)
        elif top[4] is _NO_KEY:
            if not is_key_ok:
                raise fail(
                    f"mapping key {show_value(value)} is an alias, list or mapping: expected a plain string key"
                )
            if value == "<<" and plain:
                raise fail(
                    "YAML merge keys (<<) are not supported: write the fields out", extra=(value,)
                )
            first = top[5].get(value)
            if first is not None:
                raise fail(
                    f"duplicate key {value!r} (first at line {first}): each key may appear once",
                    extra=(value,),
                )
            top[4] = value
            top[5][value] = mark.line + 1
        else:
            top[0][top[4]] = value
            top[4] = _NO_KEY

    def check_unicode(value: str) -> None:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise fail(
                f"escape makes a lone surrogate {value[exc.start]!r} (at character {exc.start + 1} of "
                "the string): expected Unicode text that can be written as UTF-8"
            ) from None

    def check_tag(tag: str | None, kind: str) -> None:
        if tag not in _ALLOWED_TAGS[kind]:
            raise fail(
                f"YAML tag {tag!r} is not allowed: plan files hold plain data only "
                "(mappings, lists, strings, numbers, true/false/null)"
            )

    try:
        for event in yaml.parse(text, Loader=_YAML_EVENTS):
            mark = event.start_mark
            if isinstance(event, yaml.ScalarEvent):
                check_tag(event.tag, "scalar")
                is_key = bool(stack) and stack[-1][1] and stack[-1][4] is _NO_KEY
                value = event.value
                if event.style == '"' and not value.isascii():
                    check_unicode(value)
                if event.tag is None and event.implicit[0] and not is_key:
                    try:
                        value = resolve_scalar(value)
                    except ValueError as exc:
                        raise fail(str(exc)) from None
                if event.anchor:
                    anchors[event.anchor] = (value, 1, len(event.value) + 1)
                add(value, 1, len(event.value) + 1, True, event.tag is None and event.implicit[0])
            elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                is_map = isinstance(event, yaml.MappingStartEvent)
                check_tag(event.tag, "map" if is_map else "seq")
                if len(stack) >= limits.MAX_DEPTH:
                    raise fail(
                        f"nesting deeper than {limits.MAX_DEPTH} levels: expected a plan, not a deep "
                        f"structure; {limits.raise_hint('MAX_DEPTH')}",
                        with_path=False,
                    )
                if event.anchor:
                    open_anchors.add(event.anchor)
                stack.append([{} if is_map else [], is_map, event.anchor, 1, _NO_KEY, {}, 2])
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                container, _, anchor, size, _, _, chars = stack.pop()
                if anchor:
                    anchors[anchor] = (container, size, chars)
                    open_anchors.discard(anchor)
                add(container, size, chars, False)
            elif isinstance(event, yaml.AliasEvent):
                if event.anchor not in anchors:
                    why = (
                        "refers to the node that contains it (recursive data is not allowed)"
                        if event.anchor in open_anchors
                        else f"has no anchor &{event.anchor} before it"
                    )
                    raise fail(f"alias *{event.anchor} {why}")
                value, size, chars = anchors[event.anchor]
                alias_nodes += size
                alias_chars += chars
                if alias_nodes > limits.MAX_ALIAS_NODES:
                    raise fail(
                        f"aliases expand to more than {limits.MAX_ALIAS_NODES:,} nodes (an alias bomb?): "
                        f"write the repeated values out, or {limits.raise_hint('MAX_ALIAS_NODES')}"
                    )
                if len(text) + alias_chars > limits.MAX_EXPANDED_BYTES:
                    raise fail(
                        f"aliases expand this YAML to more than {limits.mib(limits.MAX_EXPANDED_BYTES)} of "
                        "text (an alias bomb?): write the repeated values out, or "
                        f"{limits.raise_hint('MAX_EXPANDED_BYTES')}"
                    )
                add(value, size, chars, False)
            elif isinstance(event, yaml.DocumentStartEvent):
                anchors.clear()
                open_anchors.clear()
    except PlanFormatError:
        raise
    except yaml.MarkedYAMLError as exc:
        at = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if (at is not None and text[at.index : at.index + 1] == "\t") or "'\\t'" in problem:
            problem += " (YAML indents with spaces, not tabs)"
        context = (
            f" ({exc.context} at line {exc.context_mark.line + 1})"
            if exc.context and exc.context_mark
            else ""
        )
        raise PlanFormatError(
            f"invalid YAML: {problem}{context}",
            source=name,
            line=at.line + 1 if at else None,
            column=at.column + 1 if at else None,
        ) from None
    except yaml.YAMLError as exc:
        position = getattr(exc, "position", None)
        line, column = line_col(text, position) if isinstance(position, int) else (None, None)
        message = getattr(exc, "reason", None) or str(exc)
        raise PlanFormatError(
            f"invalid YAML: {message}", source=name, line=line, column=column
        ) from None
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
        start: Any = event.start_mark
        pos = (start.line + 1, start.column + 1)
        if isinstance(event, yaml.MappingStartEvent):
            yield "map", None, pos
        elif isinstance(event, yaml.SequenceStartEvent):
            yield "seq", None, pos
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            yield "end", None, pos
        elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
            yield "scalar", getattr(event, "value", None), pos
