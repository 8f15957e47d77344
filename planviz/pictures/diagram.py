"""A picture of a plan or of one moment of a run: SVG text, positioned DOT, PNG on request.

:func:`planviz.render` makes a :class:`Diagram`; it shows itself inline in a
notebook and saves as ``.svg``, ``.png`` or ``.dot``.

>>> from planviz import examples, render
>>> d = render(examples.load("cache_isolation"))
>>> d.svg.startswith("<?xml"), repr(d).startswith("<planviz.Diagram (plan)")
(True, True)
"""

from __future__ import annotations

import functools
import html
from pathlib import Path
from typing import Any, Callable

import pygraphviz as pgv

from planviz.errors import RenderError
from planviz.io.output import write_output
from planviz.pictures.escape import checked_attrs
from planviz.pictures.layout import draw_positioned
from planviz.pictures.style import num

__all__ = ["Diagram", "FORMATS", "MAX_INLINE"]

FORMATS = (".svg", ".png", ".dot")
#: Pictures with more SVG than this (characters) are not shown inline in a notebook, only saved.
MAX_INLINE = 8_000_000


class Diagram:
    """A picture of a plan or of one moment of a run.

    ``svg`` is the SVG text (it always parses as XML and holds no script,
    handler, link, ``foreignObject`` or image); ``dot`` the positioned
    Graphviz source; :meth:`save` writes ``.svg``, ``.png`` or ``.dot``. In a
    notebook it shows itself inline (``text/html`` with the ``<svg>`` element,
    so the DOM can be inspected, plus ``image/svg+xml``). ``notice`` says why
    the picture is not the whole plan: a focused ``view`` (a :class:`~planviz.View`
    naming exactly the steps drawn and those summed up), or a summary of
    ready waves (``summarized``, ``view`` None). ``legend`` names the looks the
    picture shows (keys of ``planviz.pictures.style.LOOKS``), whether or not
    its own legend is drawn.
    """

    def __init__(
        self,
        svg: str,
        frame: Callable[[], tuple[str, tuple[Any, ...], tuple[Any, ...], str]],
        *,
        notice: str = "",
        summarized: bool = False,
        at: int | None = None,
        view: Any = None,
        legend: tuple[str, ...] = (),
    ) -> None:
        self.svg = svg
        self.legend = legend
        self._frame = frame
        self.notice = notice
        self.summarized = summarized
        self.at = at
        self.view = view

    def _graph(self) -> pgv.AGraph:
        positioned, nodes, edges, caption = self._frame()
        g = pgv.AGraph(string=positioned)
        for name, attrs in nodes:
            g.get_node(name).attr.update(checked_attrs(dict(attrs)))
        for (u, v), attrs in edges:
            g.get_edge(u, v).attr.update(checked_attrs(dict(attrs)))
        if caption:
            g.graph_attr.update(checked_attrs({"label": caption}))
        return g

    @functools.cached_property
    def dot(self) -> str:
        """The Graphviz source of this picture, with positions (``pos``), styles and labels."""
        dot: str = self._graph().string()
        return dot

    def png(self, dpi: float = 96.0) -> bytes:
        """The picture as PNG bytes at ``dpi`` (drawn from the stored positions, without a new layout)."""
        g = self._graph()
        g.graph_attr.update(checked_attrs({"dpi": num(float(dpi))}))
        return draw_positioned(g, "png")

    def save(self, path: str | Path, *, dpi: float = 96.0) -> Path:
        """Write the picture; the suffix (``.svg``, ``.png`` or ``.dot``) chooses the format (``dpi``: PNG only)."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in FORMATS:
            raise RenderError(
                f"cannot save a diagram as {str(path)!r}: unknown suffix {suffix!r}; "
                f"use one of {', '.join(FORMATS)}"
            )
        write_output(
            path, self.png(dpi) if suffix == ".png" else self.svg if suffix == ".svg" else self.dot
        )
        return path

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        note = f'<p style="margin:0 0 4px 0">{html.escape(self.notice)}</p>' if self.notice else ""
        if len(self.svg) > MAX_INLINE:  # a browser tab would choke on it: the picture is for a file
            text = (
                f"This picture is {len(self.svg) / 1e6:.0f} MB of SVG, too big to show here; write it to a file "
                "with .save('plan.svg') and open that."
            )
            return {
                "text/html": f'{note}<p class="planviz-too-big">{html.escape(text)}</p>',
                "text/plain": text,
            }
        inline = self.svg[self.svg.find("<svg") :]
        card = (
            '<div class="planviz-diagram" style="background:#ffffff;color:#000000;display:inline-block;'
            f'max-width:100%;overflow:auto;padding:4px;border-radius:4px">{note}{inline}</div>'
        )
        return {"text/html": card, "image/svg+xml": self.svg}

    def __repr__(self) -> str:
        what = "summary" if self.summarized else "plan" if self.at is None else f"frame {self.at}"
        if self.view is not None and not self.view.whole:
            what += f", {len(self.view.steps)} of {self.view.total} steps drawn one by one"
        return f"<planviz.Diagram ({what}): .svg {len(self.svg)} chars; .save('out.svg'|'out.png'|'out.dot')>"
