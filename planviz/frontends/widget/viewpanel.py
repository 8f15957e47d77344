"""Which part of a big plan the explorer draws: the view choice behind its find box and view buttons.

The explorer's front end (``explorer.js``) has a find box, a hops box and
**auto view** / **whole plan** buttons. Finding a step that the picture does
not show asks the kernel for a new view: **focus** (the neighbourhood of the
step, within hops), **auto** (what :func:`planviz.render` shows by default:
the whole plan when it is small, else the failure or the critical path) or
**whole** (every step, if the layout fits the time budget). This module holds
that choice and checks it; a line under the buttons says what the diagram
shows. Errors (an unknown id) are shown there, never raised into the front
end; the explorer's scripting API raises them.

>>> choice = ViewChoice(["S1", "S2", "S10"])
>>> choice.options()
{'focus': None, 'hops': 2, 'max_steps': 300}
>>> choice.set_view("focus", "S2", 1)
>>> choice.options(), choice.mode
({'focus': 'S2', 'hops': 1, 'max_steps': 300}, 'focus')
>>> choice.set_view("focus", "S11")
Traceback (most recent call last):
...
planviz.errors.UnknownStepError: no step 'S11' in this plan (did you mean 'S1' or 'S10'?)
"""

from __future__ import annotations

from typing import Any, Sequence

from planviz.errors import PlanvizTypeError, RenderError, UnknownStepError, did_you_mean, show_value

__all__ = ["ViewChoice", "ViewHooks"]


class ViewChoice:
    """The view the explorer draws: ``mode`` (``auto``, ``whole`` or ``focus``), ``focus`` and ``hops_used``."""

    def __init__(self, ids: Sequence[str], *, max_steps: int = 300, hops: int = 2) -> None:
        self._ids = list(ids)
        self._known = set(self._ids)
        self._max_steps = max_steps
        self.mode, self.focus, self.hops_used = "auto", None, hops

    def grow(self, ids: Sequence[str]) -> None:
        """Know the steps of a plan that grew (a live run): the view chosen stays."""
        self._ids = list(ids)
        self._known = set(self._ids)

    def options(self) -> dict[str, Any]:
        """The :func:`planviz.render` options of the current view."""
        return {
            "focus": self.focus,
            "hops": self.hops_used,
            "max_steps": None if self.mode == "whole" else self._max_steps,
        }

    def set_view(self, mode: str, focus: Any = None, hops: Any = None) -> None:
        """Switch to ``"auto"``, ``"whole"`` or ``"focus"`` (on ``focus`` with ``hops``); raises on a bad request."""
        if mode not in ("auto", "whole", "focus"):
            raise RenderError(
                f"unknown view {show_value(mode, 40)}; choose 'auto', 'whole' or 'focus'"
            )
        if mode == "focus":
            if not isinstance(focus, str):
                raise PlanvizTypeError(
                    f"focus_on(step=...) expects a step id (a string), got {show_value(focus, 80)}"
                )
            if focus not in self._known:
                raise UnknownStepError(
                    f"no step {show_value(focus, 80)} in this plan{self._suggest(focus)}"
                )
            hops = self.hops_used if hops is None else hops
            if isinstance(hops, bool) or not isinstance(hops, int):
                raise PlanvizTypeError(
                    f"focus_on(hops=...) expects a whole number >= 0, got {show_value(hops, 40)}"
                )
            if hops < 0:
                raise RenderError(f"hops={show_value(hops, 40)}: expected a whole number >= 0")
        self.mode, self.focus = mode, focus if mode == "focus" else None
        if hops is not None:
            self.hops_used = hops

    def describe(self, notice: str) -> str:
        """What the diagram shows: the diagram's notice, or the view mode."""
        return (
            notice
            or {
                "auto": "Showing the whole plan.",
                "whole": "Showing every step.",
                "focus": f"Showing the steps within {self.hops_used} hops of {self.focus!r}.",
            }[self.mode]
        )

    def _suggest(self, sid: str) -> str:
        return did_you_mean(sid, self._ids, n=3)


class ViewHooks:
    """The explorer's scripting API for the view (mixed into :class:`~planviz.Explorer`).

    Expects ``view_choice`` (a :class:`ViewChoice`), ``index``, ``_frame(index)`` returning the diagram and
    ``_show(index)`` (draw the new view).
    """

    view_choice: ViewChoice
    index: Any

    def _frame(self, index: int) -> Any:  # pragma: no cover - the explorer's
        raise NotImplementedError

    def _show(self, index: int) -> None:  # pragma: no cover - the explorer's
        raise NotImplementedError

    @property
    def view(self) -> Any:
        """The :class:`planviz.View` of the diagram shown now (None for a summary of ready waves)."""
        return self._frame(self.index).view

    @property
    def notice(self) -> str:
        """Why the diagram is not the whole plan, if it is not (the diagram's notice)."""
        notice: str = self._frame(self.index).notice
        return notice

    def focus_on(self, step: str, hops: int | None = None) -> Any:
        """Show the steps within ``hops`` (default: the last hops used, 2 at first) of ``step``; returns the new
        :attr:`view`."""
        self.view_choice.set_view("focus", step, hops)
        self._show(self.index)
        return self.view

    def auto_view(self) -> Any:
        """Back to render's default view (whole when small, else the failure or the critical path)."""
        self.view_choice.set_view("auto")
        self._show(self.index)
        return self.view

    def whole_plan(self) -> Any:
        """Show every step (a smaller view, with a notice, when the layout would exceed the time budget)."""
        self.view_choice.set_view("whole")
        self._show(self.index)
        return self.view
