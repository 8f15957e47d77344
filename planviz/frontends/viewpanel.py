"""The explorer's view controls: which part of a big plan the diagram shows (ipywidgets; explorer only).

A search box takes a step id (with suggestions), a hops box the radius, and
three buttons choose the view: **Focus** (the neighbourhood of the step
found), **Auto** (what :func:`planviz.render` shows by default: the whole plan
when it is small, else the failure or the critical path) and **Whole plan**
(every step, if the layout fits the time budget). A line under them says what
the diagram shows. Errors (an unknown id) are shown there, never raised
into the front end; the explorer's scripting API raises them.

>>> panel = ViewPanel(["S1", "S2", "S10"], on_change=lambda: None)
>>> panel.options()
{'focus': None, 'hops': 2, 'max_steps': 300}
>>> panel.find.value = "S2"
>>> panel.focus_button.click()
>>> panel.options(), panel.mode
({'focus': 'S2', 'hops': 2, 'max_steps': 300}, 'focus')
>>> panel.find.value = "S7"
>>> panel.focus_button.click()
>>> "no step 'S7'" in panel.status.value and panel.options()["focus"] == "S2"
True
"""

from __future__ import annotations

from html import escape
from typing import Any, Callable, Sequence

import ipywidgets as w

from ..errors import did_you_mean, show_value
from ..errors import PlanvizTypeError, RenderError, UnknownStepError

__all__ = ["ViewPanel", "ViewHooks", "MAX_SUGGESTIONS"]

MAX_SUGGESTIONS = 2000  # ids offered in the search box's list (any id can be typed)


class ViewPanel(w.VBox):
    """The find box, hops, Focus / Auto / Whole plan buttons and a status line; ``on_change`` redraws."""

    def __init__(self, ids: Sequence[str], on_change: Callable[[], None], *, max_steps: int = 300) -> None:
        self._ids = list(ids)
        self._known = set(self._ids)
        self._on_change = on_change
        self._max_steps = max_steps
        self.focus: str | None = None
        self.mode, self.hops_used = "auto", 2
        small = w.Layout(width="auto")
        self.find = w.Combobox(options=self._ids[:MAX_SUGGESTIONS], placeholder="find a step id", description="Find",
                               ensure_option=False, continuous_update=False, style={"description_width": "34px"},
                               layout=w.Layout(width="220px"))
        self.hops = w.BoundedIntText(value=2, min=0, max=20, description="Hops", style={"description_width": "36px"},
                                     layout=w.Layout(width="110px"))
        self.focus_button = w.Button(description="Focus", icon="crosshairs", layout=small,
                                     tooltip="Show the steps within Hops of the step found")
        self.auto_button = w.Button(description="Auto", icon="magic", layout=small,
                                    tooltip="The default view: whole if small, else the failure or the critical path")
        self.whole_button = w.Button(description="Whole plan", icon="expand", layout=small,
                                     tooltip="Every step (falls back to a smaller view if the layout would be too slow)")
        self.status = w.HTML()
        for widget, name in ((self.find, "find"), (self.hops, "hops"), (self.focus_button, "focus"),
                             (self.auto_button, "auto"), (self.whole_button, "whole"), (self.status, "view-status")):
            widget.add_class(f"planviz-{name}")
        self.find.observe(lambda change: self._focus_from_ui(), names="value")
        self.focus_button.on_click(lambda _: self._focus_from_ui())
        self.auto_button.on_click(lambda _: self.set_view("auto"))
        self.whole_button.on_click(lambda _: self.set_view("whole"))
        super().__init__([w.HBox([self.find, self.hops, self.focus_button, self.auto_button, self.whole_button],
                                 layout=w.Layout(align_items="center", flex_flow="row wrap")), self.status])

    def options(self) -> dict:
        """The :func:`planviz.render` options of the current view."""
        return {"focus": self.focus, "hops": self.hops_used,
                "max_steps": None if self.mode == "whole" else self._max_steps}

    def set_view(self, mode: str, focus: str | None = None, hops: int | None = None) -> None:
        """Switch to ``"auto"``, ``"whole"`` or ``"focus"`` (on ``focus`` with ``hops``); raises on a bad step id."""
        if mode not in ("auto", "whole", "focus"):
            raise RenderError(f"unknown view {mode!r}; choose 'auto', 'whole' or 'focus'")
        if mode == "focus":
            if not isinstance(focus, str):
                raise PlanvizTypeError(f"focus_on(step=...) expects a step id (a string), got {show_value(focus, 80)}")
            if focus not in self._known:
                raise UnknownStepError(f"no step {focus!r} in this plan{self._suggest(focus)}")
            hops = self.hops.value if hops is None else hops
            if isinstance(hops, bool) or not isinstance(hops, int) or hops < 0:
                raise RenderError(f"hops={hops!r}: expected a whole number >= 0")
        self.mode, self.focus = mode, focus if mode == "focus" else None
        if hops is not None:
            self.hops_used = hops
        self._on_change()

    def show(self, notice: str) -> None:
        """Say what the diagram shows (the diagram's notice, or the view mode)."""
        text = notice or {"auto": "Showing the whole plan.", "whole": "Showing every step.",
                          "focus": f"Showing the steps within {self.hops_used} hops of {self.focus!r}."}[self.mode]
        self.status.value = f'<span class="pv-scope">{escape(text)}</span>'

    def _focus_from_ui(self) -> None:
        sid = self.find.value.strip()
        if not sid:
            return
        try:
            self.set_view("focus", sid, self.hops.value)
        except (UnknownStepError, RenderError, PlanvizTypeError) as exc:
            self.status.value = f'<span class="pv-error">{escape(str(exc), quote=False)}</span>'

    def _suggest(self, sid: str) -> str:
        return did_you_mean(sid, self._ids, n=3)


class ViewHooks:
    """The explorer's scripting API for the view (mixed into :class:`~planviz.Explorer`).

    Expects ``view_panel`` (a :class:`ViewPanel` whose ``on_change`` is :meth:`_set_view`), ``index``,
    ``_frame(index)`` returning the diagram, ``_frames`` (the frames drawn) and ``_show(index)``.
    """

    view_panel: ViewPanel
    index: int

    _frames: dict

    def _frame(self, index: int) -> Any:  # pragma: no cover - the explorer's
        raise NotImplementedError

    def _show(self, index: int) -> None:  # pragma: no cover - the explorer's
        raise NotImplementedError

    def _set_view(self) -> None:
        """The view changed: forget the frames drawn and draw the current one again."""
        self._frames = {}
        self._show(self.index)

    @property
    def view(self) -> Any:
        """The :class:`planviz.View` of the diagram shown now (None for a summary of ready waves)."""
        return self._frame(self.index).view

    @property
    def notice(self) -> str:
        """Why the diagram is not the whole plan, if it is not (the diagram's notice)."""
        return self._frame(self.index).notice

    def focus_on(self, step: str, hops: int | None = None) -> Any:
        """Show the steps within ``hops`` (default: the Hops box) of ``step``; returns the new :attr:`view`."""
        self.view_panel.set_view("focus", step, hops)
        return self.view

    def auto_view(self) -> Any:
        """Back to render's default view (whole when small, else the failure or the critical path)."""
        self.view_panel.set_view("auto")
        return self.view

    def whole_plan(self) -> Any:
        """Show every step (a smaller view, with a notice, when the layout would exceed the time budget)."""
        self.view_panel.set_view("whole")
        return self.view
