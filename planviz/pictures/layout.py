"""Graphviz layout, in-process or in a child process with a time limit.

Graphviz runs inside the Python process (pygraphviz links its library) and
cannot be interrupted, so a big graph is laid out by a child Python process
that :func:`lay_out` kills when the time limit passes. A layout is a
positioned DOT text plus the SVG Graphviz draws from it. Frames of a run are
drawn from these without laying out again: :func:`frame_template` turns the
SVG into a template whose slots (class, colours, status, tooltip of each node
and edge) a frame fills by string substitution, and the positioned DOT is
drawn with ``nop2`` (positions kept) for PNG.

>>> import pygraphviz as pgv
>>> g = pgv.AGraph(directed=True)
>>> g.add_edge("a", "b")
>>> result = lay_out(g)
>>> "pos=" in result.dot and result.svg.lstrip().startswith("<?xml")
True
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import pygraphviz as pgv

from planviz.errors import LayoutTimeout, RenderError
from planviz.pictures.escape import SVG_NS, XLINK_NS, dom_id


def _init_fontconfig_quietly() -> None:
    """Initialise the fontconfig bundled in pygraphviz's wheel with stderr silenced.

    That fontconfig is older than many systems' configuration and warns about
    elements it does not know ("reset-dirs") when it first loads, which shows
    as a red stderr box in every notebook. It loads once per process, so only
    this one call is silenced; Graphviz's own messages are untouched.
    """
    libs = Path(pgv.__file__).resolve().parent.parent / "pygraphviz.libs"
    for lib in sorted(libs.glob("libfontconfig*.so*")):
        try:
            fontconfig = ctypes.CDLL(str(lib))
        except OSError:
            return
        sys.stderr.flush()
        saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, 2)
            fontconfig.FcInit()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            os.close(devnull)


_init_fontconfig_quietly()

__all__ = ["Layout", "lay_out", "draw_positioned", "frame_template", "serialise_svg", "SLOT"]

# The child limits its own address space (memory beyond what it holds once pygraphviz is loaded) and
# reports the CPU time and peak memory of the layout, which benchmarks/fit_layout_cost.py records.
_CHILD = """
import json, sys, time
import pygraphviz as pgv
def status(key):
    try:
        with open("/proc/self/status") as f:
            return next((int(line.split()[1]) * 1024 for line in f if line.startswith(key)), 0)
    except OSError:
        return 0
limit = int(sys.argv[1])
if limit > 0:
    try:
        import resource
        total = status("VmSize:") + limit
        resource.setrlimit(resource.RLIMIT_AS, (total, total))
    except (ImportError, ValueError, OSError):
        pass
g = pgv.AGraph(string=sys.stdin.buffer.read().decode("utf-8"))
base = status("VmRSS:")
start = time.process_time()
g.layout(prog="dot")
cpu = time.process_time() - start
svg = g.draw(format="svg").decode("utf-8")
sys.stdout.write(json.dumps({"dot": g.string(), "svg": svg, "cpu": cpu, "peak": max(status("VmHWM:") - base, 0)}))
"""


@dataclass(frozen=True)
class Layout:
    """A graph laid out once: ``dot`` holds the positions (``pos``, ``bb``), ``svg`` the picture drawn from it.

    A layout made in a child process also says how much CPU time (``seconds``)
    and memory (``peak`` bytes above the child's start) it took; 0 when unknown.
    """

    dot: str
    svg: str
    seconds: float = 0.0
    peak: int = 0


def lay_out(
    graph: pgv.AGraph,
    *,
    in_child: bool = False,
    timeout: float | None = 60.0,
    memory: int | None = None,
) -> Layout:
    """Lay ``graph`` out with ``dot``; with ``in_child``, in a child process with a time and memory limit.

    The child is killed after ``timeout`` seconds (None: no limit) and may
    use ``memory`` bytes more than it holds when it starts (None: no limit).
    Raises :class:`~planviz.errors.LayoutTimeout` when the child runs out of
    time or memory and :class:`~planviz.errors.RenderError` when Graphviz fails.
    """
    if not in_child:
        g = graph.copy() if graph.has_layout else graph
        try:
            g.layout(prog="dot")
            svg = g.draw(format="svg").decode("utf-8")
        except (ValueError, OSError) as exc:
            raise RenderError(f"Graphviz could not lay the plan out: {exc}") from None
        return Layout(g.string(), svg)
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-c", _CHILD, str(int(memory or 0))],
            input=graph.string().encode("utf-8"),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise LayoutTimeout(
            f"Graphviz did not lay out {graph.number_of_nodes()} nodes within the time "
            f"limit of {timeout:g} s; the layout process was stopped"
        ) from None
    if done.returncode != 0:
        err = [
            ln
            for ln in done.stderr.decode("utf-8", "replace").splitlines()
            if "Fontconfig" not in ln
        ]
        text = " ".join(err[-3:])
        if memory and (done.returncode < 0 or "memory" in text.lower() or "alloc" in text.lower()):
            raise LayoutTimeout(
                f"Graphviz ran out of its memory limit of {memory / 2**20:,.0f} MiB laying out "
                f"{graph.number_of_nodes()} nodes; the layout process was stopped"
            )
        raise RenderError(
            f"the Graphviz layout process failed (exit {done.returncode}): {text or 'no message'}"
        )
    out = json.loads(done.stdout.decode("utf-8"))
    return Layout(out["dot"], out["svg"], float(out["cpu"]), int(out["peak"]))


def draw_positioned(graph: pgv.AGraph, fmt: str) -> bytes:
    """Draw a graph whose nodes and edges already carry positions (Graphviz ``nop2``: no layout)."""
    try:
        drawn: bytes = graph.draw(format=fmt, prog="nop2")
        return drawn
    except (ValueError, OSError) as exc:
        raise RenderError(f"Graphviz could not draw the {fmt} picture: {exc}") from None


def _q(tag: str) -> str:
    return f"{{{SVG_NS}}}{tag}"


SHAPES = (_q("path"), _q("polygon"), _q("ellipse"))
SLOT = re.compile("\x01([0-9]+)\x01")


def frame_template(
    svg: str,
    run_mode: bool,
    sids: Iterable[str],
    edges: Iterable[tuple[str, str]],
    event_lines: int = 2,
    extra: Iterable[tuple[str, Any]] = (),
) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """The laid-out SVG with a numbered slot wherever a frame changes something: class, colours, status, tooltip.

    In a run's picture the status line of each node and the last
    ``event_lines`` lines of the caption are slots too. Slots are written
    ``\\x01<n>\\x01``: a control character that no label can hold
    (:func:`~planviz.pictures.escape.escape_label` shows control characters as symbols).
    ``extra`` pairs the SVG id of each node standing for several steps with
    the key its slots carry; they are restyled like step nodes.
    """
    if "\x01" in svg:
        raise RenderError(
            "the Graphviz SVG holds a control character; please report the plan that caused it"
        )
    root = ET.fromstring(svg)
    groups = {g.get("id"): g for g in root.iter(_q("g")) if g.get("id")}
    title = f"{{{XLINK_NS}}}title"
    slots: list[tuple[str, Any]] = []

    def slot(kind: str, key: Any) -> str:
        slots.append((kind, key))
        return f"\x01{len(slots) - 1}\x01"

    nodes = [(f"node-{dom_id(sid)}", sid) for sid in sids] + list(extra)
    for svg_id, sid in nodes:
        g = groups.get(svg_id)
        if g is None:
            continue
        g.set("class", slot("class", sid))
        shapes = [el for el in g.iter() if el.tag in SHAPES]
        for el, prefix in zip(shapes, ("", "outer-")):
            if not prefix:
                el.set("fill", slot("fill", sid))
            for attr in ("stroke", "stroke-width", "stroke-dasharray"):
                el.set(attr, slot(prefix + attr, sid))
        texts = list(g.iter(_q("text")))
        if run_mode and texts:
            texts[-1].text = slot("status", sid)
        for a in g.iter(_q("a")):
            a.set(title, slot("tooltip", sid))
    for u, v in edges:
        g = groups.get(f"edge-{dom_id(u)}->{dom_id(v)}")
        if g is None:
            continue
        g.set("class", slot("edge-class", (u, v)))
        for el in g.iter():
            if el.tag in (_q("path"), _q("polygon")):
                for attr in ("stroke", "stroke-width") + (
                    ("stroke-dasharray",) if el.tag == _q("path") else ()
                ):
                    el.set(attr, slot(f"edge-{attr}", (u, v)))
                if el.tag == _q("polygon"):
                    el.set("fill", slot("edge-stroke", (u, v)))
        for a in g.iter(_q("a")):
            a.set(title, slot("edge-tooltip", (u, v)))
    if run_mode:
        graph = root.find(_q("g"))
        caption = [el for el in (graph if graph is not None else []) if el.tag == _q("text")]
        for k, el in enumerate(caption[-event_lines:]):
            el.text = slot("event", k)
            el.set("class", "event-line")  # a page stepping through frames rewrites these lines
    return serialise_svg(root), tuple(slots)


_PREFIX = {SVG_NS: "", XLINK_NS: "xlink:"}


def serialise_svg(root: ET.Element) -> str:
    """The SVG text with the plain ``svg`` and ``xlink`` prefixes (ElementTree would invent ``ns0:``)."""
    for el in root.iter():
        uri, _, local = el.tag[1:].partition("}")
        if uri != SVG_NS:
            raise RenderError(f"unexpected element {el.tag!r} in the Graphviz SVG")
        el.tag = local
        for key in [k for k in el.attrib if k.startswith(f"{{{XLINK_NS}}}")]:
            el.attrib["xlink:" + key.partition("}")[2]] = el.attrib.pop(key)
    root.set("xmlns", SVG_NS)
    root.set("xmlns:xlink", XLINK_NS)
    return '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + ET.tostring(
        root, encoding="unicode"
    )
