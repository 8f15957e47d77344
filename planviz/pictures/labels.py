"""Label text that reads well: wrapped and cut only between words, never inside one.

Imported plans name tools like ``AirbnbSearch.get_property_checkout_price`` or
``create_a_new_link_for_url_link_shortener``. :func:`wrap` breaks a line
only at a space, after punctuation (``. _ / - , : ; = ( [ { & | +``) or
between a lower-case letter and an upper-case one (``camelCase``); a piece
with no such boundary stays whole, even when it is wider than the line.
:func:`clip` shortens text to a limit at the last such boundary (when one
is near), with an ellipsis. :func:`planviz.pictures.escape.escape_label`
wraps and clips through them.

>>> wrap("AirbnbSearch.search_property_by_place(place=Berlin)", 20)
['AirbnbSearch.search_', 'property_by_place(', 'place=Berlin)']
>>> wrap("getPropertyCheckoutPrice now", 12)
['getProperty', 'Checkout', 'Price now']
>>> wrap("one two three four", 8, max_lines=2)
['one two', 'three…']
>>> clip("call create_a_new_link_for_url_link_shortener now", 30)
'call create_a_new_link_for_…'
"""

from __future__ import annotations

import functools
import re

__all__ = ["wrap", "clip", "pieces"]

_PUNCT = r"._/\-,:;=(\[{&|+"
_BOUNDARY = re.compile(rf"(?<=[{_PUNCT}])(?=[^{_PUNCT}])|(?<=[a-z])(?=[A-Z])")
_ELLIPSIS = "\u2026"


def pieces(word: str) -> list[str]:
    """A word split at its break points (after punctuation, at a camelCase hump); joined, they give the word.

    >>> pieces("create_a_new_link"), pieces("Supercalifragilistic")
    (['create_', 'a_', 'new_', 'link'], ['Supercalifragilistic'])
    """
    return [p for p in _BOUNDARY.split(word) if p]


@functools.cache
def _lines(width: int) -> re.Pattern[str]:
    """The lines of words one space apart, none longer than ``width`` (>= 1): each match is the longest run of
    whole words that fits (the most characters up to ``width`` followed by a space or the end)."""
    return re.compile(rf"(\S.{{0,{width - 1}}})(?: |$)")


def wrap(text: str, width: int, max_lines: int | None = None) -> list[str]:
    """Lines of at most ``width`` characters where possible, broken only between words or pieces of words.

    A word longer than ``width`` is broken at its :func:`pieces`; a piece longer
    than ``width`` is kept whole on its own line. With ``max_lines``, the last
    line kept ends with ``…`` when text was left out.
    """
    if len(text) <= width:  # one line: the words as the loop below joins them
        return [" ".join(text.split())]
    words = text.split()
    if words and max(map(len, words)) <= width:  # no word broken: the same lines, by lengths alone
        # each line the longest run of words that fits (one regular-expression match a line: no loop per word)
        lines = _lines(width).findall(" ".join(words))
        if max_lines and len(lines) > max_lines:
            lines = lines[:max_lines]
            lines[-1] = lines[-1].rstrip("._/-,:;=([{&|+ ") + _ELLIPSIS
        return lines
    lines = []
    current = ""
    for word in words:
        parts = pieces(word) if len(word) > width else [word]
        for k, part in enumerate(parts):
            joined = part if (k or not current) else " " + part
            if current and len(current) + len(joined) > width:
                lines.append(current)
                current = part
            else:
                current += joined
    lines.append(current)
    if max_lines and len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1].rstrip("._/-,:;=([{&|+ ") + _ELLIPSIS
    return lines


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending with ``…``, at a word or piece boundary when one
    lies in the last third of the limit (else exactly at the limit)."""
    if len(text) <= limit:
        return text
    keep = max(limit - 1, 0)
    head = text[:keep]
    cuts = [m.start() for m in re.finditer(r"\s", head)] + [
        m.end() for m in _BOUNDARY.finditer(head)
    ]
    cut = max((c for c in cuts if c >= keep * 2 // 3), default=keep)
    return head[:cut].rstrip() + _ELLIPSIS
