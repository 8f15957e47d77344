"""Escaping: untrusted text in, safe picture out.

Plan text is written by an LLM, so every label goes through one function,
:func:`escape_label`, before it reaches Graphviz or the SVG; only the
attributes in :data:`ALLOWED_ATTRIBUTES` are ever set (:func:`checked_attrs`),
and the finished SVG is parsed and checked (:func:`check_svg`) so that no
script, event handler, ``javascript:`` link, ``foreignObject`` or image can
appear in it.

>>> escape_label('say "hi" \\\\N <b>x</b>')
'say "hi" \\\\\\\\N <b>x</b>'
>>> escape_label("<b>x</b>").startswith("<")
False
>>> escape_label("a\\x00b\\x07", target="text")
'a␀b␇'
>>> escape_label("x" * 50, limit=10, target="text")
'xxxxxxxxx…'
>>> dom_id("S3.v2"), dom_id("<b>")
('S3.v2', '~3c~b~3e~')
"""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata
import xml.etree.ElementTree as ET
from typing import Mapping

from planviz.errors import RenderError
from planviz.pictures.labels import clip, wrap

__all__ = [
    "escape_label",
    "escape_html",
    "SHOWN_IN_PAGES",
    "dom_id",
    "checked_attrs",
    "check_svg",
    "ALLOWED_ATTRIBUTES",
    "SVG_NS",
]

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"

#: The only Graphviz attributes planviz sets (graph, node, edge and cluster).
#: URL, href, image, stylesheet, imagepath, fontpath... are never among them.
ALLOWED_ATTRIBUTES = frozenset(
    {
        "label",
        "tooltip",
        "id",
        "class",
        "shape",
        "style",
        "fillcolor",
        "color",
        "fontcolor",
        "fontname",
        "fontsize",
        "penwidth",
        "peripheries",
        "width",
        "height",
        "fixedsize",
        "margin",
        "pos",
        "lp",
        "bb",
        "rankdir",
        "ranksep",
        "nodesep",
        "labelloc",
        "labeljust",
        "bgcolor",
        "pad",
        "arrowsize",
        "arrowhead",
        "splines",
        "rank",
        "newrank",
        "xlabel",
        "charset",
        "outputorder",
        "dir",
        "weight",
        "constraint",
        "minlen",
        "dpi",
    }
)

_MAX_DOM_ID = 1000  # characters of an encoded step id (Graphviz refuses names of 16,384 or more)
# a run of whitespace that is not one plain space (each such run becomes one space; a lone space is left as it
# is, so a sentence costs no substitution per word)
_WHITESPACE = re.compile(r"[ \t\n\r\u2028\u2029\x85]{2,}|[\t\n\r\u2028\u2029\x85]")
# Bidi embeddings, overrides and isolates reorder what is shown ("Trojan source"); they are shown as codes.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# every character _visible changes: text without one is shown as it is, without a call per character
_CHANGED = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff" + "".join(sorted(_BIDI)) + "]")


SHOWN_IN_PAGES = {
    **{ord(ch): f"<U+{ord(ch):04X}>" for ch in _BIDI},
    0x2028: "\\u2028",
    0x2029: "\\u2029",
    **{code: f"\\u{code:04x}" for code in range(0xD800, 0xE000)},
}
"""``str.translate`` table for text going into an HTML page or its JSON data: bidi controls shown as their
code points (as the pictures show them), U+2028/U+2029 and lone surrogates as JSON escapes."""


def escape_html(text: object, quote: bool = True) -> str:
    """Untrusted text for HTML, the one escaping of the pages: ``html.escape``, with bidi embeddings,
    overrides and isolates shown as their code points, as in the pictures (they would reorder what is read).

    >>> escape_html("<b>a\u202eb</b>")
    '&lt;b&gt;a&lt;U+202E&gt;b&lt;/b&gt;'
    """
    shown = str(text)
    if not shown.isascii():
        shown = "".join(f"<U+{ord(ch):04X}>" if ch in _BIDI else ch for ch in shown)
    return html.escape(shown, quote=quote)


def _visible(ch: str) -> str:
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control pictures": NUL -> ␀
    if code == 0x7F:
        return "\u2421"  # ␡
    if 0x80 <= code < 0xA0 or 0xD800 <= code < 0xE000 or code in (0xFFFE, 0xFFFF):
        return "\ufffd"  # C1 controls, lone surrogates, non-characters: not valid XML
    if ch in _BIDI:
        return f"<U+{code:04X}>"
    return ch


def escape_label(
    text: object,
    *,
    limit: int = 160,
    width: int | None = None,
    max_lines: int | None = None,
    target: str = "dot",
    align: str = "center",
) -> str:
    """Make untrusted text safe to show: the one escaping function of planviz pictures.

    Whitespace runs (including newlines) become one space; other control
    characters are shown as visible symbols (``\\x00`` -> ``␀``); bidi
    overrides are shown as their code point; text longer than ``limit``
    characters ends with ``…``. With ``width`` the text is wrapped into lines
    (at most ``max_lines``, the last ending with ``…`` when cut). Wrapping and
    cutting happen between words or at punctuation inside a long name, never
    in the middle of a word (:mod:`planviz.pictures.labels`).

    ``target="dot"`` (the default) escapes for a Graphviz label: every
    backslash doubled, so ``\\N``, ``\\G``, ``\\l``... stay literal; ``&``
    written as ``&amp;`` (Graphviz would decode entities such as ``&#0;``); a
    leading ``<`` preceded by a zero-width space, so the text is never read
    as an HTML-like label; lines joined by Graphviz's ``\\n`` (with
    ``align="left"``, each line ended by ``\\l``, left-justified).
    ``target="text"`` returns the visible plain text (lines joined by a
    newline), for XML text nodes written through ElementTree.

    >>> escape_label("a long action that needs wrapping", width=12)
    'a long\\\\naction that\\\\nneeds\\\\nwrapping'
    >>> escape_label("one two three four", width=8, max_lines=2, target="text")
    'one two\\nthree…'
    """
    if target not in ("dot", "text") or align not in ("center", "left"):
        raise RenderError(
            f"escape_label needs target 'dot' or 'text' and align 'center' or 'left', "
            f"got target={target!r}, align={align!r}"
        )
    s = str(text)
    # printable text (no control, format, surrogate or separator character but the plain space) holds nothing
    # _WHITESPACE or _CHANGED would find but runs of spaces: the usual caption or name skips both searches
    if s.isprintable() and "  " not in s:
        s = s.strip()
    else:
        s = _WHITESPACE.sub(" ", s).strip()
        if _CHANGED.search(s) is not None:
            s = "".join(map(_visible, s))
    s = unicodedata.normalize("NFC", s)
    s = clip(s, limit)
    lines = wrap(s, width, max_lines) if width else [s]
    if target == "text":
        return "\n".join(lines)
    out = []
    for line in lines:
        line = line.replace("\\", "\\\\").replace("&", "&amp;")
        if line.startswith("<"):
            line = "\u200b" + line
        out.append(line)
    if align == "left":
        return "".join(line + "\\l" for line in out)
    return "\\n".join(out)


def dom_id(step_id: str) -> str:
    """An injective, selector-friendly encoding of a step id for SVG ``id`` attributes and Graphviz names.

    Letters, digits, ``_``, ``.`` and ``-`` stay; every other character is
    written ``~<hex code point>~``. Two different ids never share an encoding.
    An encoding longer than 1,000 characters keeps its first 960 and ends with
    ``~h<SHA-256 of the id>~`` (no short encoding holds ``~h``): Graphviz
    cannot read back a name of 16,384 characters or more.

    >>> len(dom_id("L" * 20_000)), dom_id("L" * 20_000)[958:962], dom_id("L" * 20_000) == dom_id("L" * 20_001)
    (1000, 'LL~h', False)
    """
    out = "".join(
        ch if (ch.isascii() and (ch.isalnum() or ch in "_.-")) else f"~{ord(ch):x}~"
        for ch in str(step_id)
    )
    if len(out) <= _MAX_DOM_ID:
        return out
    digest = hashlib.sha256(str(step_id).encode("utf-8", "surrogatepass")).hexdigest()[
        : _MAX_DOM_ID - 963
    ]
    return f"{out[:960]}~h{digest}~"


def checked_attrs(attrs: Mapping[str, object]) -> dict[str, str]:
    """The attributes as strings, after checking every name is in :data:`ALLOWED_ATTRIBUTES`."""
    bad = sorted(k for k in attrs if k not in ALLOWED_ATTRIBUTES)
    if bad:
        raise RenderError(
            f"refusing to set Graphviz attribute(s) {', '.join(map(repr, bad))}: "
            f"not in the allowlist {sorted(ALLOWED_ATTRIBUTES)}"
        )
    return {k: str(v) for k, v in attrs.items()}


_FORBIDDEN_ELEMENTS = frozenset(
    {
        "script",
        "foreignobject",
        "image",
        "iframe",
        "object",
        "embed",
        "use",
        "animate",
        "set",
        "handler",
        "listener",
        "style",
    }
)
_LINK_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "from", "to", "values"})


def _local(name: str) -> str:
    return name.rsplit("}", 1)[-1].lower()


def check_svg(svg: str) -> ET.Element:
    """Parse the SVG and refuse it if it could run code or load anything.

    Raises :class:`~planviz.errors.RenderError` when the SVG is not XML, or
    when it holds a ``script``, ``foreignObject``, ``image``, ``use`` or
    ``style`` element, an ``on*`` event handler, or any link (``href``,
    ``xlink:href``, ``src``). Returns the parsed root element.
    """
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as exc:
        raise RenderError(
            f"Graphviz produced SVG that does not parse as XML ({exc}); "
            "please report the plan that caused it"
        ) from None
    tags: set[str] = set()
    names: set[str] = set()
    for el in root.iter():  # one pass collecting names; the checks below run on the (small) sets
        tags.add(el.tag)
        names.update(el.attrib)
    for tag in sorted(tags):
        if _local(str(tag)) in _FORBIDDEN_ELEMENTS:
            raise RenderError(
                f"refusing SVG with a <{_local(str(tag))}> element: pictures must not run code "
                "or load files"
            )
    for name in sorted(names):
        attr = _local(name)
        if attr.startswith("on") or attr in _LINK_ATTRIBUTES or attr == "style":
            value = next(el.get(name) for el in root.iter() if name in el.attrib)
            if attr.startswith("on"):
                raise RenderError(f"refusing SVG with an event handler {attr}={value!r}")
            if attr in _LINK_ATTRIBUTES:
                raise RenderError(
                    f"refusing SVG with a link {attr}={value!r}: planviz sets no links"
                )
            for el in root.iter():
                squeezed = "".join(el.get(name, "").lower().split())
                if any(bad in squeezed for bad in ("url(", "javascript:", "expression(")):
                    raise RenderError(f"refusing SVG with an active style {el.get(name)!r}")
    return root
