"""The widget every planviz front end in a notebook is: an ``anywidget.AnyWidget`` running ``explorer.js``.

It holds the synced state the module reads (the run's ``snapshot``, the
``index`` shown, whether the kernel answers requests, the texts it shows) and
adds to its output a static fallback: the offline page of the snapshot in a
sandboxed iframe, for hosts with no widget manager. :class:`~planviz.Explorer`
(one run, fault injection) and :class:`~planviz.frontends.sidebyside.RunComparison`
(two runs on one stepper) are this widget.
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

from .page import MODULE, STYLE, asset
from .panels import event_index
from .runpage import fallback_html

__all__ = ["FrontEnd"]


class FrontEnd(anywidget.AnyWidget):
    """The state ``explorer.js`` draws; subclasses fill :attr:`snapshot` and say how many frames it has."""

    _esm = traitlets.Unicode(asset(MODULE)).tag(sync=True)
    _css = traitlets.Unicode(asset(STYLE)).tag(sync=True)
    snapshot = traitlets.Dict().tag(sync=True)
    index = traitlets.Any(0).tag(sync=True)
    interactive = traitlets.Bool(False).tag(sync=True)
    mode = traitlets.Unicode("").tag(sync=True)
    fault_status = traitlets.Unicode("").tag(sync=True)
    fault_options = traitlets.Dict().tag(sync=True)
    view_notice = traitlets.Unicode("").tag(sync=True)

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
