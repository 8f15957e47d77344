"""The one home of planviz's offline page shell: script-safe data, a locked CSP, the module, a no-script view.

The one-run report, the two-run report, ``animate``'s HTML flipbook and the
explorer's static fallback are offline HTML files: no network, no external
file, and a Content-Security-Policy that lets only the page's own inline
script run (by its sha256 hash), inline styles and ``data:`` images.
:func:`module_page` writes the page around the front-end module
(the widget's own ES module, :func:`~planviz.frontends.jsmodules.module_text`, inlined) with a small local
stand-in for the widget's model holding the precomputed snapshot; without
script the page shows its no-script view instead.

>>> script_json({"a": "</script><b>&\\u2028"})
'{"a": "\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u0026\\\\u2028"}'
>>> content_security_policy("x").startswith("default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-")
True
"""

from __future__ import annotations

import base64
import copy
import functools
import gzip
import hashlib
import json
import re
import struct
import zlib
from importlib.resources import files
from itertools import filterfalse
from typing import Any, Callable

from planviz.frontends.jsmodules import ENTRY, module_text
from planviz.frontends.pagedata import encode_page
from planviz.pictures.escape import SHOWN_IN_PAGES, escape_html

__all__ = [
    "script_json",
    "content_security_policy",
    "asset",
    "module_page",
    "page_script",
    "shared_slot",
    "STYLE",
]

STYLE = "explorer.css"  # the front end's stylesheet (its module: jsmodules.module_text, the files of js/ joined)
#: The page data's gzip level: the knee of size against time. A 100k-span report's 54 MB of JSON is 5.9 MB in
#: 0.65 s at level 6, 6.1 MB in 0.23 s at 4, 6.7 MB in 0.13 s at 1 (the page is a fifth of its trace at any).
GZIP_LEVEL = 4


_SHOWN = re.compile("[" + "".join(re.escape(chr(code)) for code in sorted(SHOWN_IN_PAGES)) + "]")


def script_json(data: Any) -> str:
    """JSON safe inside an HTML ``<script>`` block: no ``<``, ``>``, ``&``, U+2028, U+2029 or lone surrogate
    left raw; bidi controls shown as their code points (``<U+202E>``, as the pictures show them); no NaN."""
    text = _json_text(data)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def script_bytes(data: Any) -> bytes:
    """``script_json(data).encode("utf-8")``, its last escapes made on the UTF-8 bytes (a byte ``<``, ``>`` or
    ``&`` is only ever that character there), which takes a third of the time on a page of many MBs."""
    raw = _json_text(data).encode("utf-8")
    return raw.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026")


def _gzip_header() -> bytes | None:
    """The gzip header :func:`gzip.compress` writes at :data:`GZIP_LEVEL` with ``mtime=0``, when its
    output is that header, the raw deflate stream and the CRC-32 and length trailer (what :func:`gzip_script`
    writes); None when this Python's gzip writes otherwise (then the page is compressed in one go)."""
    sample = b"<planviz>" * 3
    whole = gzip.compress(sample, compresslevel=GZIP_LEVEL, mtime=0)
    header = gzip.compress(b"", compresslevel=GZIP_LEVEL, mtime=0)[:10]
    trailer = struct.pack("<LL", zlib.crc32(sample), len(sample))
    deflate = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -15)
    body = deflate.compress(sample) + deflate.flush()
    return header if whole == header + body + trailer else None


_GZIP_HEADER = _gzip_header()
_CHUNK = 1 << 20  # characters of the page's text escaped, encoded and compressed at a time


class _Packer:
    """The sink :func:`_pieces` appends the page's text to: each megabyte (or bigger piece, a megabyte at a time)
    escaped, encoded and compressed as it comes, so no more of the text is held than that."""

    def __init__(self) -> None:
        self.deflate = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -15)
        self.out: list[bytes] = [_GZIP_HEADER or b""]
        self.crc = self.size = self.held = 0
        self.batch: list[str] = []

    def append(self, piece: str) -> None:
        if len(piece) < _CHUNK:
            self.batch.append(piece)
            self.held += len(piece)
            if self.held >= _CHUNK:
                self.flush()
            return
        self.flush()
        for start in range(0, len(piece), _CHUNK):
            self.feed(piece[start : start + _CHUNK])

    def flush(self) -> None:
        if self.batch:
            self.feed("".join(self.batch))
            self.batch, self.held = [], 0

    def feed(self, text: str) -> None:
        raw = text.encode("utf-8")
        raw = raw.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026")
        self.crc = zlib.crc32(raw, self.crc)
        self.size += len(raw)
        self.out.append(self.deflate.compress(raw))

    def close(self) -> bytes:
        self.flush()
        self.out.append(self.deflate.flush())
        self.out.append(struct.pack("<LL", self.crc, self.size & 0xFFFFFFFF))
        return b"".join(self.out)


def gzip_script(data: Any) -> bytes:
    """``gzip.compress(script_bytes(data), compresslevel=GZIP_LEVEL, mtime=0)``, the same bytes, without the whole
    text or its bytes ever made: the text's pieces (:func:`_pieces`) are escaped, encoded and compressed a
    megabyte at a time as they are written, into one deflate stream (deflate writes the same stream however its
    input is cut). A 100k-span page is 54 MB of JSON: its text, its bytes and their escaped copies were a quarter
    of a GB of memory, each fresh (the system's time to hand over its pages included).

    >>> gzip.decompress(gzip_script({"a": "<b>"})) == script_bytes({"a": "<b>"})
    True
    """
    if _GZIP_HEADER is None:
        return gzip.compress(script_bytes(data), compresslevel=GZIP_LEVEL, mtime=0)
    packer = _Packer()
    _pieces(data, packer, _DEPTH, tables=True)
    return packer.close()


_TEXT = json.encoder.encode_basestring  # a string as json.dumps(ensure_ascii=False) writes it
_SLICE = 20_000  # strings of a list of them written at a time
_DEPTH = 8  # how deep _pieces goes into dicts before json.dumps takes the rest (a cycle: its error, not recursion)


def _shown(text: str) -> str:
    """``text`` (JSON) with bidi controls, U+2028, U+2029 and lone surrogates shown: only non-ASCII text has any,
    and then few (the search is the cost)."""
    if text.isascii() or _SHOWN.search(text) is None:
        return text
    # str.translate's result, 10x faster on MBs
    return _SHOWN.sub(lambda m: SHOWN_IN_PAGES[ord(m.group())], text)


def _pieces(value: Any, out: list[str] | _Packer, depth: int, tables: bool = False) -> None:
    """The text of ``json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False)`` with
    :func:`_shown`, appended to ``out`` in pieces: a dict of text keys key by key (sorted, as json.dumps sorts
    them), a list of plain integers as its repr (the same text, faster), anything else by json.dumps; so the
    search for characters to show skips the (ASCII) columns of numbers. ``tables``: ``value`` is the page data
    (:func:`~planviz.frontends.pagedata.encode_page`), whose tables' lists of integers are written without a look
    at each item (:func:`_column_pieces`)."""
    kind = type(value)
    if kind is dict and depth and value and set(map(type, value)) == {str}:
        # a table of the page data (pagedata.py): its columns are known
        writer = _table_writer if tables and "@table" in value else _no_writer
        _keyed_pieces(value, out, writer, depth - 1, tables)
    elif kind is list and set(map(type, value)) == {int}:
        out.append(repr(value))
    elif tables and depth and kind is list and value and dict in set(map(type, value)):
        # the runs of a two-run page (pagedata.py ``pair``): each written as the page data it is
        sep = "["
        for item in value:
            out.append(sep)
            _pieces(item, out, depth - 1, tables)
            sep = ", "
        out.append("]")
    elif kind is list and set(map(type, value)) == {str}:
        # the string table: its non-ASCII strings searched; written a slice at a time (json.dumps joins its
        # items with ", "), so a big one is never one text of tens of MB
        shown = _SHOWN.search("".join(filterfalse(str.isascii, value))) is not None
        sep = "["
        for start in range(0, len(value), _SLICE):
            text = json.dumps(value[start : start + _SLICE], ensure_ascii=False)
            out.append(sep)
            out.append(_shown(text[1:-1]) if shown else text[1:-1])
            sep = ", "
        out.append("]")
    else:
        out.append(_shown(json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False)))


#: The lists of integers a column of the page data holds (pagedata.py ``_column``: deltas, counts, absent rows,
#: indices into the string table), each made of plain integers by the encoder; ``str``: indices into the string
#: table too, and None for a row whose value is None.
_INT_LISTS = frozenset({"int", "ints", "n", "absent", "strs", "str"})


def _table_writer(key: str, item: Any) -> Callable[[Any, list[str] | _Packer], None] | None:
    """How a table's item is written: its column (``col``, ``keys``) or columns (``cols``) by their writers."""
    if type(item) is not dict:
        return None
    if key == "col" or key == "keys":
        return _column_pieces
    return _columns_pieces if key == "cols" and item else None


def _no_writer(key: str, item: Any) -> None:
    return None


def _columns_pieces(cols: dict[str, Any], out: list[str] | _Packer) -> None:
    """:func:`_pieces` of a table's columns by name (a records or mapping table's ``cols``)."""
    _keyed_pieces(cols, out, lambda key, item: _column_pieces if type(item) is dict else None)


def _column_pieces(column: dict[str, Any], out: list[str] | _Packer) -> None:
    """:func:`_pieces` of one column of the page data: its lists of integers written as their repr at once (no
    look at each item's type: the encoder made them of integers, and of None in a ``str`` column, whose repr
    ``None`` is JSON's ``null``), the rest as :func:`_pieces` writes it."""
    _keyed_pieces(column, out, _column_writer)


def _column_writer(key: str, item: Any) -> Callable[[Any, list[str] | _Packer], None] | None:
    """How a column's item is written: its lists of integers by :func:`_ints`, a table of records (lists of
    records: ``table``) as a table."""
    if key in _INT_LISTS and type(item) is list:
        return _ints
    return _records_pieces if key == "table" and type(item) is dict else None


def _records_pieces(table: dict[str, Any], out: list[str] | _Packer) -> None:
    """:func:`_pieces` of a table inside a column (lists of records, pagedata.py): its columns by their writers."""
    _keyed_pieces(table, out, _table_writer, _DEPTH, True)


def _ints(item: list[Any], out: list[str] | _Packer) -> None:
    text = repr(item)
    out.append(text if "N" not in text else text.replace("None", "null"))


def _keyed_pieces(
    value: dict[str, Any],
    out: list[str] | _Packer,
    writer: Callable[[str, Any], Callable[[Any, list[str] | _Packer], None] | None],
    depth: int = 1,
    tables: bool = False,
) -> None:
    """:func:`_pieces` of a dict of text keys (its keys sorted, as json.dumps sorts them), each item written by
    ``writer(key, item)`` when that names a writer, any other by :func:`_pieces` (``depth`` and ``tables`` as
    it takes them)."""
    if set(map(type, value)) != {str}:  # an empty dict too: _pieces writes it
        _pieces(value, out, 1)
        return
    sep = "{"
    for key in sorted(value):
        out.append(sep)
        out.append(_shown(_TEXT(key)))
        out.append(": ")
        item = value[key]
        write = writer(key, item)
        if write is not None:
            write(item, out)
        else:
            _pieces(item, out, depth, tables)
        sep = ", "
    out.append("}")


def _json_text(data: Any) -> str:
    """``json.dumps(data, ensure_ascii=False, sort_keys=True, allow_nan=False)`` with :func:`_shown` (page data
    read as such: its tables by their writers)."""
    out: list[str] = []
    _pieces(data, out, _DEPTH, tables=True)
    return "".join(out)


def content_security_policy(script: str) -> str:
    """The policy of a page whose only script is ``script``: nothing loads, nothing else runs."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


@functools.cache
def asset(name: str) -> str:
    """A page asset shipped beside this module (``stepper.js``, ``report.js``, ``report.css``...), as text."""
    return files(__package__).joinpath(name).read_text(encoding="utf-8")


_SLOT = re.compile(r'data-planviz-slot="([0-9A-Za-z_.]+)">')


def shared_slot(path: str) -> str:
    """The attribute that makes an element of the no-script view the one copy of a snapshot string: the element
    holds exactly the string at ``path`` (keys and list indices joined by dots, ``versions.0.svg``), and the
    page's data leaves it out; the script takes it back from the element before it draws.

    >>> shared_slot("gantt")
    'data-planviz-slot="gantt"'
    """
    return f'data-planviz-slot="{path}"'


def _share(snapshot: Any, noscript: str) -> Any:
    """``snapshot`` without the strings ``noscript`` already holds in a :func:`shared_slot` element (each an empty
    string in the data): the big pictures travel once, as the no-script view, which the script reads back."""
    for path in _SLOT.findall(noscript):
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        value = functools.reduce(lambda node, key: node[key], keys, snapshot)
        if not isinstance(value, str) or f"{shared_slot(path)}>{value}</" not in noscript:
            raise RuntimeError(
                f"the no-script view's slot {path!r} must hold exactly the snapshot's string there"
            )
        snapshot = copy.copy(snapshot)
        node = snapshot
        for key in keys[:-1]:  # copied along the path only: the caller's snapshot stays whole
            node[key] = copy.copy(node[key])
            node = node[key]
        node[keys[-1]] = ""
    return snapshot


_LOCAL_MODEL = """
async function planvizSnapshot() {  // the page's data: gzip in base64, unpacked here; then its shared strings
  const block = document.getElementById('planviz-data');
  const text = atob(block.textContent.trim()), bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) { bytes[i] = text.charCodeAt(i); }  // 15x Uint8Array.from's callback
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  const snapshot = decodePage(JSON.parse(await new Response(stream).text()));  // the columns back to rows
  performance.mark('planviz-data');  // the page's data decoded (benchmarks/bench_browser.py reads the marks)
  document.querySelectorAll('[data-planviz-slot]').forEach((el) => {  // the no-script view's copy of a picture
    const keys = el.getAttribute('data-planviz-slot').split('.');
    const node = keys.slice(0, -1).reduce((at, key) => at[key], snapshot);
    node[keys[keys.length - 1]] = el.innerHTML;
  });
  return snapshot;
}
planvizSnapshot().then((snapshot) => {
  const state = {snapshot, index: 0, interactive: false,
                 mode: document.getElementById('planviz-app').getAttribute('data-mode') || ''};
  const handlers = {};
  const model = {  // the widget's model, held in the page: the same module runs here without a kernel
    get: (key) => state[key],
    set: (key, value) => { state[key] = value; (handlers['change:' + key] || []).slice().forEach((f) => f()); },
    on: (name, f) => { (handlers[name] = handlers[name] || []).push(f); },
    off: (name, f) => { handlers[name] = (handlers[name] || []).filter((g) => g !== f); },
    save_changes: () => {}, send: () => {},
  };
  const start = parseInt((location.hash.match(/^#(\\d+)$/) || [])[1], 10);
  state.index = isNaN(start) ? (snapshot.start || 0) : start;
  document.documentElement.className = 'js';
  const app = document.getElementById('planviz-app');
  app.hidden = false;
  document.querySelectorAll('.pv-static').forEach((el) => el.remove());  // the no-script view: the module draws now
  planvizModule.render({model, el: app});
  performance.mark('planviz-drawn');
  document.addEventListener('keydown', (ev) => {  // the whole page steps, not only the focused widget
    if (ev.target !== document.body) { return; }
    const copy = new KeyboardEvent('keydown', {key: ev.key, altKey: ev.altKey, ctrlKey: ev.ctrlKey, metaKey: ev.metaKey,
                                               cancelable: true});
    app.dispatchEvent(copy);
    if (copy.defaultPrevented) { ev.preventDefault(); }
  });
});
"""


def page_script() -> str:
    """The page's one script: the front-end module (the widget's ES module, its default export bound to a name)
    and the local model that feeds it the page's snapshot."""
    module = module_text()
    if module.count("\nexport default ") != 1:
        raise RuntimeError(
            f"{ENTRY} must end with one 'export default'; the page binds it to a name"
        )
    return module.replace("\nexport default ", "\nconst planvizModule = ") + _LOCAL_MODEL


def module_page(
    title: str, snapshot: Any, noscript: str, *, mode: str = "", style: str = ""
) -> str:
    """A self-contained page running the front-end module on ``snapshot``; ``noscript`` (HTML) is what a reader
    without script sees, ``style`` (CSS) what it needs besides the front end's. ``mode`` says what the page shows
    (\"recorded run\"...), under the title. The data travels as columns
    (:func:`~planviz.frontends.pagedata.encode_page`) gzipped in base64 (the browser unpacks it natively),
    without the strings the no-script view holds
    (:func:`shared_slot`)."""
    script = page_script()
    packed = gzip_script(encode_page(_share(snapshot, noscript)))
    data = (
        '<script type="application/octet-stream" id="planviz-data" data-encoding="gzip+base64">'
        + base64.b64encode(packed).decode("ascii")
        + "</script>"
    )

    return f"""<!DOCTYPE html>
<html lang="en" class="no-js">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{content_security_policy(script)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape_html(title)}</title>
<style>{asset(STYLE)}
body {{ margin: 0 auto; max-width: 1600px; padding: 12px 16px; }}
.js .pv-static {{ display: none; }}
{style}</style>
</head>
<body>
<div id="planviz-app" data-mode="{escape_html(mode)}" hidden></div>
<div class="pv-static">
{noscript}
</div>
{data}
<script type="module">{script}</script>
</body>
</html>
"""
