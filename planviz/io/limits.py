"""How much untrusted input planviz reads before refusing it: every cap on plan input, in one place.

Plans and planner outputs are often written by a model, so reading them is
bounded: a file larger than :data:`MAX_BYTES` is refused before it is parsed,
nesting deeper than :data:`MAX_DEPTH` before it is built, an integer longer than
:data:`MAX_DIGITS` digits before it is converted, and YAML aliases (or
shared lists and mappings in Python data) that would expand past
:data:`MAX_EXPANDED_BYTES` of text or :data:`MAX_ALIAS_NODES` added nodes
before they are expanded. Each refusal is a one-line
:class:`~planviz.errors.PlanFormatError` that names the cap and how to raise it.

A program that trusts its input raises a cap by setting it here; readers read
it at each call. The command line takes each one from an environment variable
of the same name with a ``PLANVIZ_`` prefix (``PLANVIZ_MAX_BYTES=100000000
planviz validate big.json``).

>>> from planviz.io import limits
>>> limits.MAX_BYTES == 20 * 2**20 or "PLANVIZ_MAX_BYTES" in __import__("os").environ
True
>>> limits.raise_hint("MAX_BYTES")
'raise planviz.io.limits.MAX_BYTES (environment: PLANVIZ_MAX_BYTES) if you trust this input'
"""

from __future__ import annotations

import math
import os
import re
import sys
import warnings

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_DIGITS",
    "MAX_EXPANDED_BYTES",
    "MAX_ALIAS_NODES",
    "MAX_TRACE_BYTES",
    "MAX_TRACE_RECORD",
    "MAX_OTLP_BYTES",
    "raise_hint",
    "mib",
    "read_int",
    "read_float",
    "max_digits",
    "too_many_digits",
]


def _setting(name: str, default: int) -> int:
    text = os.environ.get(f"PLANVIZ_{name}", "").strip().replace("_", "")
    if not text:
        return default
    if text.isascii() and text.isdigit() and int(text) > 0:
        return int(text)
    warnings.warn(
        f"PLANVIZ_{name}={text!r} is not a positive whole number; using {default}", stacklevel=2
    )
    return default


MAX_BYTES = _setting("MAX_BYTES", 20 * 2**20)
"""Largest plan file (or plan text, in characters) read: 20 MiB."""
MAX_DEPTH = _setting("MAX_DEPTH", 100)
"""Deepest nesting of lists and mappings accepted (a plan needs about 6): the one nesting limit of every
reader (plans, importers, traces), checked before anything recursive (``json.loads``, a walk) sees the data."""
MAX_DIGITS = _setting("MAX_DIGITS", 4300)
"""Longest integer accepted, in decimal digits: 4,300, Python's own limit for converting between int and
text (a larger figure could not be written back). The one number limit of every reader: JSON numbers,
digit strings in trace attributes, counts in planner outputs. Raising it past Python's
``sys.get_int_max_str_digits()`` has no effect."""
MAX_EXPANDED_BYTES = _setting("MAX_EXPANDED_BYTES", 40 * 2**20)
"""Largest size, in characters of text, a document may reach with its YAML aliases (or the shared
lists and mappings of Python data) written out: 40 MiB. A small file of nested aliases can stand
for gigabytes of text, which every later stage (validation, pictures, traces) would then read."""
MAX_ALIAS_NODES = _setting("MAX_ALIAS_NODES", 100_000)
"""Most lists, mappings and values YAML aliases may add to a document when expanded."""
MAX_TRACE_BYTES = _setting("MAX_TRACE_BYTES", 256 * 2**20)
"""Largest planviz trace read (line by line), in bytes: 256 MiB; ``load_trace(..., max_bytes=)`` also raises it."""
MAX_TRACE_RECORD = _setting("MAX_TRACE_RECORD", 16 * 2**20)
"""Longest record of a trace: one line of a planviz trace in bytes, one record (a span) of an OpenTelemetry
file in characters: 16 MiB. planviz writes longer plan records over several lines, so it reads back what it
writes."""
MAX_OTLP_BYTES = _setting("MAX_OTLP_BYTES", 16 * 2**20)
"""Largest OTLP/HTTP request body the receiver (``planviz.receive``) accepts, in bytes, gzipped or inflated:
16 MiB (an exporter's batch of 512 spans is well under 1 MiB). A larger body is answered 413, a gzip body is
inflated no further than this."""


# ASCII digits only: str.isdigit() also accepts "²" and int() "٣"
_WHOLE = re.compile(r"[+-]?[0-9]+\Z")


def read_int(value: object) -> int | None:
    """``value`` (an int, never a bool, or text of ASCII digits with an optional sign, at most
    :data:`MAX_DIGITS` digits) as an integer within float range, else None: the one conversion of untrusted
    integers (token counts, OTLP ``intValue``, counts in traces), so a 400-digit integer is refused as
    :func:`read_float` refuses ``1e999``, and every integer read can be added to a time, a cost or a mean.

    ``int()`` alone accepts other scripts' digits and underscores, refuses "²" that ``isdigit()``
    accepts, and raises ValueError on more digits than Python converts.

    >>> read_int("42"), read_int("-7"), read_int("²"), read_int("--5"), read_int("1_000"), read_int("9" * 5000)
    (42, -7, None, None, None, None)
    >>> read_int(7), read_int(10 ** 308) == 10 ** 308, read_int(10 ** 400), read_int("9" * 400), read_int(True)
    (7, True, None, None, None)
    """
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif not isinstance(value, str) or len(value) > MAX_DIGITS + 1 or not _WHOLE.match(value):
        return None
    elif len(value.lstrip("+-")) > max_digits():
        return None
    else:
        number = int(value)
    return number if -_FLOAT_MAX <= number <= _FLOAT_MAX else None


# the largest integer a float holds: past it, float() overflows
_FLOAT_MAX = int(sys.float_info.max)


def read_float(value: object) -> float | None:
    """``value`` (an int, a float or ASCII number text; never a bool) as a finite float, else None: the one
    conversion of untrusted numbers, so a 310-digit integer or ``1e999`` is refused, never an OverflowError.

    >>> read_float(2), read_float("2.5"), read_float(10 ** 400), read_float("1e999"), read_float(True)
    (2.0, 2.5, None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    if isinstance(value, str) and (len(value) > MAX_DIGITS + 8 or not value.strip().isascii()):
        return None
    try:
        number = float(value)
    except (OverflowError, ValueError):
        return None
    return number if math.isfinite(number) else None


def max_digits() -> int:
    """The integer limit in force: :data:`MAX_DIGITS`, or Python's own limit when that is lower.

    >>> max_digits() <= MAX_DIGITS
    True
    """
    python = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    return min(MAX_DIGITS, python) if python else MAX_DIGITS


def too_many_digits(digits: int) -> str:
    """The refusal of an integer of ``digits`` digits, the same from every reader.

    >>> too_many_digits(5000)[:68]
    'integer of 5,000 digits is too large (the limit is 4,300): quote it '
    """
    return (
        f"integer of {digits:,} digits is too large (the limit is {max_digits():,}): quote it to keep it as "
        f"text; {raise_hint('MAX_DIGITS')}"
    )


def raise_hint(name: str) -> str:
    """How to raise the cap ``name``, for the end of a refusal message."""
    return f"raise planviz.io.limits.{name} (environment: PLANVIZ_{name}) if you trust this input"


def mib(n: int) -> str:
    """``n`` bytes in MiB, for messages.

    >>> mib(20 * 2**20)
    '20 MiB'
    """
    return f"{n / 2**20:g} MiB"
