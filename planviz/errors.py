"""The exceptions planviz raises.

Every error is a :class:`PlanvizError`; each subclass also inherits the builtin
it resembles, so ``except ValueError`` keeps working for callers who do not
know planviz.

>>> issubclass(PlanFormatError, ValueError) and issubclass(PlanFormatError, PlanvizError)
True
>>> str(PlanFormatError("expected a number, got 'soon'", source="plan.yaml", line=4, column=15,
...                     path="steps[1].duration"))
"plan.yaml:4:15: steps[1].duration: expected a number, got 'soon'"
"""

from __future__ import annotations

import math
import reprlib
from typing import Any, Iterable

__all__ = [
    "PlanvizError",
    "PlanvizTypeError",
    "PlanFormatError",
    "TraceFormatError",
    "SchemaError",
    "SemanticError",
    "UnknownStepError",
    "RenderError",
    "LayoutTimeout",
    "AnalysisError",
    "StructureError",
    "SimulationError",
    "FrameIndexError",
    "expect_type",
    "expect_names",
    "show_value",
    "did_you_mean",
]


class PlanvizError(Exception):
    """Base class of every error planviz raises on purpose."""


class PlanvizTypeError(PlanvizError, TypeError):
    """A public function got an argument of the wrong Python type.

    The one rule for argument types: whatever the function, a value of the
    wrong type raises this, naming the function, the argument, the type
    expected and what was given (a wrong *value* of the right type is the
    function's own error: :class:`PlanFormatError`, :class:`AnalysisError`...).

    >>> expect_type("plan.yaml", (int,), "validate", "plan", "a planviz Plan",
    ...             "load it with planviz.load_plan(path)")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    planviz.errors.PlanvizTypeError: validate(plan=...) expects a planviz Plan, got str 'plan.yaml';
    load it with planviz.load_plan(path)
    """


def expect_type(
    value: Any,
    types: type | tuple[type, ...],
    function: str,
    argument: str,
    expected: str,
    fix: str = "",
) -> Any:
    """``value`` when it is an instance of ``types``, else :class:`PlanvizTypeError` (see there)."""
    if isinstance(value, types) and not (isinstance(value, bool) and bool not in _as_tuple(types)):
        return value
    raise PlanvizTypeError(
        f"{function}({argument}=...) expects {expected}, got {type(value).__name__} "
        f"{show_value(value)}" + (f"; {fix}" if fix else "")
    )


def show_value(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters, for messages; never fails (huge or deep values included).

    >>> show_value(10**5000)
    '<an integer of about 5,001 digits>'
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        return f"<an integer of about {int(value.bit_length() * math.log10(2)) + 1:,} digits>"
    try:
        text = (
            reprlib.repr(value)
            if isinstance(value, (list, tuple, dict, set, frozenset))
            else repr(value)
        )
    except Exception:  # a repr that raises (deep nesting, odd objects) must not hide the real error
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."


def expect_names(value: Any, function: str, argument: str) -> tuple[str, ...]:
    """``value`` (a list, set or other iterable of str) as a tuple, else :class:`PlanvizTypeError`; one str is
    refused too, since it would be read letter by letter.

    >>> expect_names("S4", "reissue", "voided")
    Traceback (most recent call last):
    ...
    planviz.errors.PlanvizTypeError: reissue(voided=...) expects a list of str, got str 'S4'; write voided=['S4']
    """
    if isinstance(value, str):
        raise PlanvizTypeError(
            f"{function}({argument}=...) expects a list of str, got str {show_value(value)}; "
            f"write {argument}=[{show_value(value)}]"
        )
    try:
        names = tuple(value)
    except TypeError:
        raise PlanvizTypeError(
            f"{function}({argument}=...) expects a list of str, got {type(value).__name__} "
            f"{show_value(value)}"
        ) from None
    for i, name in enumerate(names):
        expect_type(name, str, function, f"{argument}[{i}]", "a str")
    return names


def did_you_mean(name: str, choices: Iterable[str], *, n: int = 1, limit: int = 20_000) -> str:
    """' (did you mean 'x'?)' naming the choices most like ``name`` (at most ``n``), or '' when none is close.

    The one home of the hint every "unknown name" message gives. At most ``limit`` choices are compared, so a
    hint never makes a message quadratic on a huge plan.

    >>> did_you_mean("acton", ["action", "kind"])
    " (did you mean 'action'?)"
    >>> did_you_mean("step_10", ["step_1", "step_2", "end"], n=2)
    " (did you mean 'step_1' or 'step_2'?)"
    """
    from difflib import get_close_matches  # only a misspelt name pays for it

    pool = [c for _, c in zip(range(limit), choices)]
    close = get_close_matches(name, pool, n=n) if isinstance(name, str) else []
    if not close:
        return ""
    shown = list(map(repr, close))
    return f" (did you mean {', '.join(shown[:-1]) + ' or ' if len(shown) > 1 else ''}{shown[-1]}?)"


def _as_tuple(types: type | tuple[type, ...]) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


class PlanFormatError(PlanvizError, ValueError):
    """A plan, contract or trace could not be read.

    Carries where: ``source`` (file name or ``<string>``), ``line`` and
    ``column`` (1-based, when known) and ``path``, the field path inside the
    document (``steps[3].depends_on``). The message says what was expected.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        column: int | None = None,
        path: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        self.path = path
        super().__init__(self._format())

    def _format(self) -> str:
        place = ""
        # a file name, shown short when it is absurdly long (the message must stay readable)
        if self.source:
            place = self.source if len(self.source) <= 400 else self.source[:400] + "..."
            if self.line is not None:
                place += f":{self.line}"
                if self.column is not None:
                    place += f":{self.column}"
            place += ": "
        if self.path:
            place += f"{self.path}: "
        return place + self.message

    def located(self, **where: Any) -> PlanFormatError:
        """A copy of this error with the missing location fields filled in."""
        fields = {k: getattr(self, k) for k in ("source", "line", "column", "path")}
        for key, value in where.items():
            if fields.get(key) is None:
                fields[key] = value
        return type(self)(self.message, **fields)

    def __reduce__(self) -> tuple[Any, ...]:  # keep location through pickling (child processes)
        return (
            _rebuild,
            (type(self), self.message, self.source, self.line, self.column, self.path),
        )


def _rebuild(
    cls: type[PlanFormatError],
    message: str,
    source: str | None,
    line: int | None,
    column: int | None,
    path: str | None,
) -> PlanFormatError:
    return cls(message, source=source, line=line, column=column, path=path)


class TraceFormatError(PlanFormatError):
    """A run trace (JSON Lines) could not be read; ``line`` names the bad line."""


class _ReportError(PlanvizError, ValueError):
    def __init__(self, message: str, report: Any) -> None:
        super().__init__(message)
        self.report = report


class SchemaError(_ReportError):
    """The plan's structure is broken (cycle, unknown or duplicate ids); ``.report`` has the findings."""


class SemanticError(_ReportError):
    """The plan does not satisfy its contract (milestones, order, tools, permissions, risk, forbidden states);
    ``.report`` has the findings."""


class UnknownStepError(PlanvizError, KeyError):
    """A step id that the plan does not have."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class RenderError(PlanvizError, RuntimeError):
    """A picture could not be made (unknown format, layout failed)."""


class LayoutTimeout(RenderError, TimeoutError):
    """Graphviz did not lay the plan out within its time or memory limit."""


class AnalysisError(PlanvizError, ValueError):
    """An analysis was asked something it cannot answer (bad durations, unknown failure category...)."""


class StructureError(AnalysisError):
    """The plan is not a DAG over known ids (a cycle or an unknown dependency).

    ``steps`` names the steps involved; ``edges`` the cycle's edges, if any.
    Run :func:`planviz.validate` to see every structural finding.
    """

    def __init__(
        self, message: str, steps: Iterable[str] = (), edges: Iterable[tuple[str, str]] = ()
    ) -> None:
        super().__init__(message)
        self.steps = tuple(steps)
        self.edges = tuple(edges)


class SimulationError(PlanvizError, ValueError):
    """A run was asked for something it cannot do (unknown strategy, malformed fault, bad outcome...)."""


class FrameIndexError(PlanvizError, IndexError):
    """An event index outside the run."""
