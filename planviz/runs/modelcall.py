"""One call of a model in a recorded run: :class:`ModelCall`, what the trace says of it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ModelCall", "FIGURES"]

#: What a model call measured, in the order views show it: its tokens and its cost (each None when not recorded).
FIGURES = (
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "cached_tokens",
    "total_tokens",
    "cost",
)


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One call of a model in a recorded run, as the trace recorded it.

    ``model`` names the model (or the span, when the trace names none);
    ``start`` is on the run's clock (the time of its events) and
    ``duration`` how long the call took (None when the trace does not say:
    a span that never ended, a LangGraph checkpoint);
    ``input_tokens``, ``output_tokens`` and ``cost`` are None when not
    recorded; ``ok`` is False for a call that failed. ``step`` is the step
    (tool call) the call led to, None when it led to none (the final answer
    after the last tool call, or a run without tool calls); ``id`` is the
    call's id in the trace (span or observation id).
    ``reasoning_tokens``, ``cached_tokens`` and ``total_tokens`` (the total
    the trace states) are None when not recorded; ``duration_inferred``: the
    trace did not measure the duration. ``input``: the last user or tool
    message the model was given; ``output``: its reply or the tool call it
    asked for (None when not recorded).

    >>> call = ModelCall("gpt-4o", 0.5, 1.25, input_tokens=300, output_tokens=20, step="search")
    >>> call.tokens
    320
    """

    model: str
    start: float
    duration: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    ok: bool = True
    step: str | None = None
    id: str = ""
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None
    total_tokens: int | None = None
    duration_inferred: bool = False
    input: str | None = None
    output: str | None = None

    @property
    def tokens(self) -> int | None:
        """The total the trace states, else input plus output tokens; None when none is recorded."""
        if self.total_tokens is not None:
            return self.total_tokens
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)
