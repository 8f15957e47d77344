"""How much untrusted input planviz reads before refusing it: every cap on plan input, in one place.

Plans and planner outputs are often written by a model, so reading them is
bounded: a file larger than :data:`MAX_BYTES` is refused before it is parsed,
nesting deeper than :data:`MAX_DEPTH` before it is built, and YAML aliases (or
shared lists and mappings in Python data) that would expand past
:data:`MAX_EXPANDED_BYTES` of text or :data:`MAX_ALIAS_NODES` added nodes
before they are expanded. Each refusal is a one-line
:class:`~planviz.errors.PlanFormatError` that names the cap and how to raise it.

A program that trusts its input raises a cap by setting it here; readers read
it at each call. The command line takes each one from an environment variable
of the same name with a ``PLANVIZ_`` prefix (``PLANVIZ_MAX_BYTES=100000000
planviz validate big.json``).

>>> from planviz.plan import limits
>>> limits.MAX_BYTES == 20 * 2**20 or "PLANVIZ_MAX_BYTES" in __import__("os").environ
True
>>> limits.raise_hint("MAX_BYTES")
'raise planviz.plan.limits.MAX_BYTES (environment: PLANVIZ_MAX_BYTES) if you trust this input'
"""

from __future__ import annotations

import os
import warnings

__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_DIGITS", "MAX_EXPANDED_BYTES", "MAX_ALIAS_NODES", "MAX_TRACE_BYTES",
           "raise_hint", "mib"]


def _setting(name: str, default: int) -> int:
    text = os.environ.get(f"PLANVIZ_{name}", "").strip().replace("_", "")
    if not text:
        return default
    if text.isdigit() and int(text) > 0:
        return int(text)
    warnings.warn(f"PLANVIZ_{name}={text!r} is not a positive whole number; using {default}", stacklevel=2)
    return default


MAX_BYTES = _setting("MAX_BYTES", 20 * 2**20)
"""Largest plan file (or plan text, in characters) read: 20 MiB."""
MAX_DEPTH = _setting("MAX_DEPTH", 100)
"""Deepest nesting of lists and mappings accepted (a plan needs about 6), in plans and traces alike."""
MAX_DIGITS = _setting("MAX_DIGITS", 4300)
"""Longest integer read, in digits (Python's own default limit on converting text to int): a longer one
in a plan or a trace is refused where it stands, never converted."""
MAX_EXPANDED_BYTES = _setting("MAX_EXPANDED_BYTES", 40 * 2**20)
"""Largest size, in characters of text, a document may reach with its YAML aliases (or the shared
lists and mappings of Python data) written out: 40 MiB. A small file of nested aliases can stand
for gigabytes of text, which every later stage (validation, pictures, traces) would then read."""
MAX_ALIAS_NODES = _setting("MAX_ALIAS_NODES", 100_000)
"""Most lists, mappings and values YAML aliases may add to a document when expanded."""
MAX_TRACE_BYTES = _setting("MAX_TRACE_BYTES", 256 * 2**20)
"""Largest planviz trace read (line by line), in bytes: 256 MiB; ``load_trace(..., max_bytes=)`` also raises it."""


def raise_hint(name: str) -> str:
    """How to raise the cap ``name``, for the end of a refusal message."""
    return f"raise planviz.plan.limits.{name} (environment: PLANVIZ_{name}) if you trust this input"


def mib(n: int) -> str:
    """``n`` bytes in MiB, for messages.

    >>> mib(20 * 2**20)
    '20 MiB'
    """
    return f"{n / 2**20:g} MiB"
