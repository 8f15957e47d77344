"""What a page's script reads as its snapshot, in Python: the packed data decoded, then the no-script view's shared
strings.

The decoder here is the tests' own reading of the page format (planviz/frontends/pagedata.schema.json), written
from the schema, not from the encoder: it imports nothing of planviz, so a page the encoder writes wrongly does
not read back right.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path

_SCHEMA = json.loads(
    (
        Path(__file__).resolve().parents[2] / "planviz" / "frontends" / "pagedata.schema.json"
    ).read_text(encoding="utf-8")
)
NAMES = {
    key: list(
        _SCHEMA["$defs"][ref["$ref"].removeprefix("#/$defs/")]["properties"]["cols"]["properties"]
    )
    for key, ref in _SCHEMA["$defs"]["run"]["properties"].items()
    if ref.get("$ref", "").endswith("Records")
}
"""The named fields of the rows the snapshot holds as lists, as the schema lists them (in the lists' order)."""
DETAIL_NAMES = {
    "calls": list(_SCHEMA["$defs"]["call"]["properties"]),
    "arguments": list(_SCHEMA["$defs"]["argument"]["properties"]),
}
"""The same for the lists inside each step's details."""

_PACKED = re.compile(
    r'<script type="application/octet-stream" id="planviz-data" data-encoding="gzip\+base64">'
    r"([A-Za-z0-9+/=]*)</script>"
)
# a picture or timeline: no div inside
_SLOT = re.compile(r'data-planviz-slot="([^"]+)">(.*?)</div>', re.S)


def packed_text(page: str) -> str:
    """The page's data as its JSON text (gzip in base64 on the page)."""
    return gzip.decompress(base64.b64decode(_PACKED.search(page)[1])).decode("utf-8")


def _running(deltas: list) -> list:
    out, at = [], 0
    for d in deltas:
        at += d
        out.append(at)
    return out


def decode_column(c: dict, strings: list[str]) -> list:
    """The values of a column, one per row where its key is present."""
    (kind,) = [
        k for k in ("str", "text", "int", "num", "strs", "texts", "ints", "table", "json") if k in c
    ]
    if kind == "str":
        return [None if k is None else strings[k] for k in c["str"]]
    if kind == "int":
        return _running(c["int"])
    if kind == "num":
        out, at = [], 0
        for d in c["num"]:
            if d is not None:
                at += d
            out.append(None if d is None else at / c["scale"])
        return out
    if kind in ("json", "text"):
        return list(c[kind])
    if kind == "table":  # lists of records: the table's rows, n per value
        flat, out, k = decode_table(c["table"], strings), [], 0
        assert c["table"]["@table"] == "records" and len(flat) == sum(c["n"]), c["n"]
        for n in c["n"]:
            out.append(flat[k : k + n])
            k += n
        return out
    flat, out, k = c[kind], [], 0
    for n in c["n"]:
        row, k = flat[k : k + n], k + n
        if kind == "strs":
            out.append([strings[x] for x in row])
        else:
            out.append(row if kind == "texts" else _running(row))
    return out


def _records(t: dict, strings: list[str]) -> list[dict]:
    rows: list[dict] = [{} for _ in range(t["rows"])]
    for key, c in t["cols"].items():
        skip = set(_running(c.get("absent", [])))
        present = [row for i, row in enumerate(rows) if i not in skip]
        values = decode_column(c, strings)
        assert len(values) == len(present), (key, len(values), len(present))
        for row, value in zip(present, values):
            row[key] = value
    return rows


def decode_table(t, strings: list[str]):
    """A table back to its list or object; any other value as it is."""
    if not isinstance(t, dict) or "@table" not in t:
        return t
    kind = t["@table"]
    if kind == "values":
        return decode_column(t["col"], strings)
    if kind == "tuples":
        cols = [decode_column(c, strings) for c in t["cols"]]
        assert all(len(col) == t["rows"] for col in cols)
        return [[col[i] for col in cols] for i in range(t["rows"])]
    rows = _records(t, strings)
    if kind == "records":
        return rows
    assert kind == "mapping", kind
    return dict(zip(decode_column(t["keys"], strings), rows))


def decode_page(data: dict) -> dict:
    """Page data (format ``planviz-page``, version 2, or version 1, whose columns are a part of 2's) back to the
    snapshot it stores."""
    assert data["format"] == "planviz-page" and data["version"] in (1, 2), (
        data.get("format"),
        data.get("version"),
    )
    strings = data["strings"]

    def run(r: dict) -> dict:
        return {k: decode_table(v, strings) for k, v in r.items()}

    page = run(data["page"])
    if "pair" in page:
        page["pair"] = [run(r) for r in data["page"]["pair"]]
    return page


def _fields(names: list[str], row: list) -> dict:
    assert len(row) == len(names), (names, row)
    return dict(zip(names, row))


def named(snapshot: dict) -> dict:
    """A snapshot (a run's, or several runs' with ``pair``) as the page data names it: its log rows and looks as
    records with the schema's field names (the lists' items in order)."""
    out = dict(snapshot)
    if "pair" in out:
        out["pair"] = [named(run) for run in out["pair"]]
    for key, names in NAMES.items():
        if key in out:
            assert all(len(row) == len(names) for row in out[key]), key
            out[key] = [dict(zip(names, row)) for row in out[key]]
    if isinstance(out.get("details"), dict):
        out["details"] = {
            sid: {
                k: [_fields(DETAIL_NAMES[k], row) for row in v] if k in DETAIL_NAMES else v
                for k, v in d.items()
            }
            for sid, d in out["details"].items()
        }
    return out


def page_data(page: str) -> dict:
    """The snapshot the page's script draws: its data decoded, with each slot's string taken from the no-script
    view."""
    data = decode_page(json.loads(packed_text(page)))
    for path, inner in _SLOT.findall(page):
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        node = data
        for key in keys[:-1]:
            node = node[key]
        assert node[keys[-1]] == "", path  # left out of the data: the view holds the one copy
        node[keys[-1]] = inner
    return data


def composed_lines(snap: dict, i: int) -> list[str]:
    """The caption lines the page's script composes for event ``i`` of a run's snapshot (decoded, or as
    run_snapshot made it) from its log row, where the data keeps no ``c``: runview.js's ``eventLines``, copied
    here from the script, not from Python's captions (a string's length and index in UTF-16 code units, as a
    browser counts them)."""
    row = snap["log"][i]
    time, kind, step, message = (
        (row["time"], row["kind"], row["step"], row["message"])
        if isinstance(row, dict)
        else row[:4]
    )
    unit = snap.get("unit")
    text = (
        f"event {i} of {len(snap['events']) - 1} \u00b7 t = {time}{' ' + unit if unit else ''} \u00b7 "
        f"{kind}{' ' + step if step else ''}: {message}"
    )
    width, count = snap["event_lines"]["width"], snap["event_lines"]["lines"]
    units = text.encode("utf-16-le", "surrogatepass")
    length = len(units) // 2

    def js(start: int, end: int) -> str:  # String.prototype.slice on code units
        return units[2 * start : 2 * end].decode("utf-16-le", "surrogatepass")

    lines = [text]
    if length > width:
        # lastIndexOf(' ', width): the last space at a code unit index <= width, else -1
        cut = next(
            (
                k
                for k in range(min(width, length - 1), -1, -1)
                if units[2 * k : 2 * k + 2] == b" \x00"
            ),
            -1,
        )
        lines = [js(0, cut if cut >= 0 else length - 1), js(cut + 1, length)]
    return lines + [" "] * (count - len(lines))


def shown_lines(snap: dict, i: int) -> list[str]:
    """The picture's caption lines the page's script shows at event ``i``: those the data keeps (``c``), else
    :func:`composed_lines`."""
    kept = snap["events"][i].get("c")
    return list(kept) if kept is not None else composed_lines(snap, i)
