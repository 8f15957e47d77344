"""The widget every planviz front end in a notebook is: an ``anywidget.AnyWidget`` running the front-end module.

It holds the synced state the module reads (the run's ``snapshot``, sent in the
pages' own format, :mod:`planviz.frontends.pagedata`; the
``index`` shown, whether the kernel answers requests, the texts it shows) and
adds to its output a static fallback: the offline page of the snapshot in a
sandboxed iframe, for hosts with no widget manager. Displayed in IPython it is two outputs, the widget
view and then the fallback on its own: an export that keeps the widget state (``jupyter nbconvert --execute``)
shows only the widget view of an output, which is blank when the widget manager cannot load (offline, no CDN);
the separate fallback shows there, and hides itself (CSS) wherever the widget view was drawn. :class:`~planviz.Explorer`
(one run, fault injection) and :class:`~planviz.frontends.widget.sidebyside.SideBySide`
(two runs on one stepper) are this widget.
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

from planviz.frontends.jsmodules import module_text
from planviz.frontends.page import STYLE, asset
from planviz.frontends.pagedata import encode_page
from planviz.frontends.panels import event_index
from planviz.frontends.runpage import fallback_html

__all__ = ["FrontEnd"]


def _page_data(snapshot: dict[str, Any], widget: Any) -> dict[str, Any]:
    """What the browser gets of a snapshot: the pages' format (:func:`~planviz.frontends.pagedata.encode_page`),
    which ``explorer.js`` decodes; an empty snapshot (a run with no events) as it is."""
    return encode_page(snapshot) if snapshot else {}


class FrontEnd(anywidget.AnyWidget):
    """The state ``explorer.js`` draws; subclasses fill :attr:`snapshot` and say how many frames it has."""

    # the files of frontends/js joined, as every page has it
    _esm = traitlets.Unicode(module_text()).tag(sync=True)
    _css = traitlets.Unicode(asset(STYLE)).tag(sync=True)
    # travels (and is saved) as page data
    snapshot = traitlets.Dict().tag(sync=True, to_json=_page_data)
    index = traitlets.Any(0).tag(sync=True)
    interactive = traitlets.Bool(False).tag(sync=True)
    mode = traitlets.Unicode("").tag(sync=True)
    fault_status = traitlets.Unicode("").tag(sync=True)
    fault_options = traitlets.Dict().tag(sync=True)
    view_notice = traitlets.Unicode("").tag(sync=True)
    # names the view drawn, so its separate fallback hides
    fallback_key = traitlets.Unicode("").tag(sync=True)

    def _event_count(self) -> int:  # pragma: no cover - the subclass's
        raise NotImplementedError

    @traitlets.validate("index")
    def _valid_index(self, proposal: Any) -> int:
        return event_index(proposal["value"], self._event_count())

    def play(self) -> None:
        """Play from the frame shown (in the browser: one event every 0.9 s); call again to pause."""
        self.send({"kind": "play"})

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget view, plus a static fallback (the offline page in a sandboxed iframe) and plain text."""
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        if data is not None:
            data["text/html"] = fallback_html(self.snapshot, self.mode)
            data["text/plain"] = repr(self)
        return bundle

    def _ipython_display_(self, **kwargs: Any) -> None:
        """Two outputs: the widget view (its own HTML a placeholder), then the static fallback as an output of its
        own, which a host or an export without the widget (offline, no CDN, no widget state) shows, and which
        hides itself wherever this widget's view was drawn (its element carries :attr:`fallback_key`)."""
        from IPython.display import display  # IPython is there whenever this is called

        self.fallback_key = self.model_id
        bundle = self._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        if data is None:  # pragma: no cover - a widget with no view
            return
        data["text/html"] = (
            '<span class="planviz-widget-slot"></span>'  # the fallback comes as the next output
        )
        display(data, metadata=metadata or None, raw=True)  # type: ignore[no-untyped-call]  # IPython leaves display unannotated
        display(
            {
                "text/html": fallback_output(
                    fallback_html(self.snapshot, self.mode), self.fallback_key
                ),  # type: ignore[no-untyped-call]  # IPython's display is unannotated
                "text/plain": "(the explorer's static view, for pages without the widget)",
            },
            raw=True,
        )


def fallback_output(fallback: str, key: str) -> str:
    """``fallback`` as an output of its own, hidden (CSS ``:has``) in a page where the view keyed ``key`` was drawn.

    >>> "planviz-fallback-out" in fallback_output("<p>x</p>", "k1")
    True
    """
    drawn = f'body:has(.planviz-explorer[data-planviz-key="{key}"])'
    mine = f'.planviz-fallback-out[data-planviz-key="{key}"]'
    return (
        f"<style>{drawn} {mine}, {drawn} .jp-OutputArea-child:has({mine}), "
        f"{drawn} .output_area:has({mine}) {{ display: none; }}</style>"
        f'<div class="planviz-fallback-out" data-planviz-key="{key}">{fallback}</div>'
    )
