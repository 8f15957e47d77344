"""Token counts of a model call, by kind, in every name a trace gives them: input, output, reasoning, cached, total.

The one home of usage names, read by every span reader (:mod:`~planviz.traces.otel.otelspans` for GenAI,
OpenInference and, through it, the AI SDK's attributes; :mod:`~planviz.traces.langfuse.export` for
``usageDetails``). Each kind is read as the trace states it, never derived: a reasoning (thinking) count
is kept beside the output count (OpenAI counts reasoning inside ``output``; Gemini's thinking tokens may
not be), and the stated ``total`` is kept even when it is more than input plus output, so no token the
trace counted is dropped. A kind the trace does not state is None.

>>> tokens_of({"input": 6, "output": 2055, "completion_details.reasoning": 1104, "total": 2061}, USAGE_DETAILS)
Tokens(input=6, output=2055, reasoning=1104, cached=None, total=2061)
>>> tokens_of({"llm.token_count.prompt": "621", "llm.token_count.total": "660"}, ATTRIBUTES).total
660
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple

from planviz.io.limits import read_int

__all__ = ["Tokens", "tokens_of", "ATTRIBUTES", "USAGE_DETAILS", "KINDS"]

KINDS = ("input", "output", "reasoning", "cached", "total")


class Tokens(NamedTuple):
    """A call's tokens by kind (None: not stated)."""

    input: int | None = None
    output: int | None = None
    reasoning: int | None = None
    cached: int | None = None
    total: int | None = None


# Span attributes, by kind: GenAI (documented first), its older names, OpenInference, the AI SDK's.
ATTRIBUTES: Mapping[str, tuple[str, ...]] = {
    "input": (
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.prompt_tokens",
        "llm.token_count.prompt",
        "ai.usage.inputTokens",
        "ai.usage.promptTokens",
    ),
    "output": (
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.completion_tokens",
        "llm.token_count.completion",
        "ai.usage.outputTokens",
        "ai.usage.completionTokens",
    ),
    "reasoning": (
        "gen_ai.usage.reasoning.output_tokens",
        "gen_ai.usage.reasoning_tokens",
        "gen_ai.usage.output_tokens_details.reasoning_tokens",
        "llm.token_count.completion_details.reasoning",
        "ai.usage.reasoningTokens",
        "gen_ai.usage.thoughts_token_count",
    ),
    "cached": (
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_read_input_tokens",
        "gen_ai.usage.input_tokens_details.cached_tokens",
        "llm.token_count.prompt_details.cache_read",
        "ai.usage.cachedInputTokens",
    ),
    "total": (
        "gen_ai.usage.total_tokens",
        "llm.token_count.total",
        "llm.usage.total_tokens",  # OpenLLMetry
        "ai.usage.totalTokens",
        "ai.usage.tokens",
    ),
}
# Langfuse's usageDetails (and its legacy usage object), by kind.
USAGE_DETAILS: Mapping[str, tuple[str, ...]] = {
    "input": ("input", "promptTokens", "prompt_tokens", "input_tokens"),
    "output": ("output", "completionTokens", "completion_tokens", "output_tokens"),
    "reasoning": (
        "output_reasoning",
        "completion_details.reasoning",
        "output_reasoning_tokens",
        "reasoning",
        "reasoning_tokens",
        "output_thinking",
        "thoughts",
    ),
    "cached": (
        "input_cache_read",
        "prompt_details.cache_read",
        "input_cached_tokens",
        "cache_read_input_tokens",
        "input_cached",
        "cached_tokens",
    ),
    "total": ("total", "totalTokens", "total_tokens"),
}


def tokens_of(
    found: Mapping[str, Any],
    names: Mapping[str, tuple[str, ...]] = ATTRIBUTES,
    bad: Callable[[str, str], Exception] | None = None,
) -> Tokens:
    """The :class:`Tokens` a mapping states, each kind under the first of its ``names`` present. An input or
    output count that is no whole number >= 0 is refused through ``bad(name, why)`` (a ValueError without it);
    a bad reasoning, cached or total count (figures the readers never read before) is read as not stated. A
    count past float range (a 400-digit integer, as JSON or as text) is refused whatever its kind, as every
    number out of float range is (:func:`~planviz.io.limits.read_int`).

    >>> tokens_of({"total": 10 ** 400}, USAGE_DETAILS)
    Traceback (most recent call last):
    ...
    ValueError: total: expected a token count within float range, got an integer of 401 digits
    """
    every = _EVERY.get(id(names))
    if every is not None and found.keys().isdisjoint(every):
        return (
            _UNSTATED  # no name of any kind (nor a kind itself): every span that is no model call
        )
    out = []
    for kind in KINDS:
        key = kind
        for name in names[kind]:  # the first name present (a plain loop: a span is read per record)
            if found.get(name) is not None:
                key = name
                break
        try:
            out.append(_count(found.get(key), key, bad))
        except _OutOfRange as exc:
            raise ValueError(str(exc)) if bad is None else bad(key, exc.why) from None
        except ValueError:
            if kind in ("input", "output"):
                raise
            out.append(None)
    return Tokens(*out)


# every key tokens_of reads in each of the two tables: the names of each kind, and the kind itself when none is there
_EVERY = {
    id(table): frozenset(KINDS).union(*table.values()) for table in (ATTRIBUTES, USAGE_DETAILS)
}
_UNSTATED = Tokens()


class _OutOfRange(Exception):
    def __init__(self, key: str, why: str) -> None:
        super().__init__(f"{key}: {why}")
        self.why = why


def _count(value: Any, key: str, bad: Callable[[str, str], Exception] | None) -> int | None:
    if value is None:
        return None
    if type(value) is int and 0 <= value < 1 << 63:
        return value  # most counts (OTLP intValue, SDK integers): within range, no further test
    if isinstance(value, float) and value.is_integer() and value >= 0:
        value = int(value)
    if (
        isinstance(value, (int, str))
        and not isinstance(value, bool)
        and read_int(value) is None
        and _whole(value)
    ):
        raise _OutOfRange(key, f"expected a token count within float range, got {_digits(value)}")
    if isinstance(value, str) and read_int(value) is not None:
        value = read_int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        why = f"expected a token count (an integer >= 0), got {str(value)[:60]!r}"
        raise ValueError(f"{key}: {why}") if bad is None else bad(key, why)
    return value


def _digits(value: int | str) -> str:
    """How long a whole number out of range is, for the message (never ``str`` of a huge int: Python refuses)."""
    if isinstance(value, str):
        return f"an integer of {len(value.lstrip('+-')):,} digits"
    return (
        f"an integer of {len(str(value).lstrip('-')):,} digits"
        if value.bit_length() < 14_000
        else f"an integer of about {int(value.bit_length() * 0.30103):,} digits"
    )


def _whole(value: int | str) -> bool:
    """An integer, or text of ASCII digits (an optional sign): a whole number, whatever its size."""
    return isinstance(value, int) or (
        value[:1] in "+-0123456789"
        and value.lstrip("+-").isascii()
        and value.lstrip("+-").isdigit()
    )
