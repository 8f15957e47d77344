"""Faults to inject into a simulated run: what goes wrong, at which step, how many times.

>>> Fault.parse("S1:transientx3")
Fault(step='S1', kind='transient', fact=None, times=3)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import SimulationError

__all__ = ["Fault", "FAULT_KINDS"]

FAULT_KINDS = ("transient", "tool_error", "withdraw", "side_effect", "missing_evidence", "goal_change",
               "premise_false", "extra_fact")


@dataclass(frozen=True)
class Fault:
    """A fault to inject: ``kind`` at ``step``, affecting ``times`` attempts of it (and of its revisions).

    ``fact`` is the fact concerned: for ``withdraw`` the precondition found
    false (default: the step's first required fact), for ``premise_false``
    the premise (default: the plan's first), for ``extra_fact`` the unexpected
    fact (required), for ``missing_evidence`` the produced fact not observed
    (default: all of them).

    >>> Fault.parse("S1:transientx3")
    Fault(step='S1', kind='transient', fact=None, times=3)
    >>> str(Fault.parse("S3:withdraw:key_builder_located"))
    'S3:withdraw:key_builder_located'
    """

    step: str
    kind: str
    fact: str | None = None
    times: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.step, str) or not self.step:
            raise SimulationError(f"a fault needs a step id, got {self.step!r}")
        if self.kind not in FAULT_KINDS:
            raise SimulationError(f"unknown fault kind {self.kind!r} at {self.step!r}; "
                                  f"choose one of {', '.join(FAULT_KINDS)}")
        if self.fact is not None and (not isinstance(self.fact, str) or not self.fact):
            raise SimulationError(f"fault {self.step}:{self.kind}: fact must be a non-empty string, got {self.fact!r}")
        if isinstance(self.times, bool) or not isinstance(self.times, int) or self.times < 1:
            raise SimulationError(f"fault {self.step}:{self.kind}: times must be an integer >= 1, got {self.times!r}")
        if self.kind == "extra_fact" and self.fact is None:
            raise SimulationError(f"fault {self.step}:extra_fact needs the fact observed: "
                                  f"write {self.step}:extra_fact:FACT")

    @classmethod
    def parse(cls, text: str) -> Fault:
        """Read ``STEP:KIND[:FACT]``, with an optional ``xN`` repeat on the kind (``S1:transientx3``)
        or as a last segment (``S3:withdraw:fact:x2``). A fact is taken verbatim (it may hold colons).

        >>> Fault.parse("S3:withdraw:fact:x2").times
        2
        >>> Fault.parse("S4:explode")
        Traceback (most recent call last):
        ...
        planviz.errors.SimulationError: unknown fault kind 'explode' in 'S4:explode'; choose one of transient, tool_error, withdraw, side_effect, missing_evidence, goal_change, premise_false, extra_fact
        """
        if not isinstance(text, str) or ":" not in text:
            raise SimulationError(f"expected a fault as STEP:KIND[:FACT][xN] (e.g. 'S4:side_effect'), got {text!r}")
        step, _, rest = text.strip().partition(":")
        kind, _, fact = rest.partition(":")
        step, kind = step.strip(), kind.strip()
        times = 1
        m = re.fullmatch(r"(.*?)x(\d+)", kind)
        if kind not in FAULT_KINDS and m and m.group(1) in FAULT_KINDS:
            kind, times = m.group(1), _count(m.group(2), text)
        last = re.fullmatch(r"(?:(.*):)?x(\d+)", fact)
        if last:
            fact, times = last.group(1) or "", _count(last.group(2), text)
        if kind not in FAULT_KINDS:
            raise SimulationError(f"unknown fault kind {kind!r} in {text!r}; choose one of {', '.join(FAULT_KINDS)}")
        return cls(step, kind, fact or None, times)

    def __str__(self) -> str:
        text = f"{self.step}:{self.kind}" + (f":{self.fact}" if self.fact else "")
        if self.times != 1 or (self.fact and re.fullmatch(r"(?:.*:)?x\d+", self.fact)):  # "a:x2" needs ":x1"
            text += f":x{self.times}" if self.fact else f"x{self.times}"
        return text


_MAX_COUNT_DIGITS = 6


def _count(digits: str, text: str) -> int:
    """The repeat count ``xN`` of a fault: a few digits (an attempt is retried at most a few times anyway)."""
    if len(digits) > _MAX_COUNT_DIGITS:
        raise SimulationError(f"repeat count x{digits[:12]}{'...' if len(digits) > 12 else ''} in "
                              f"{text[:60]!r}{'...' if len(text) > 60 else ''} has {len(digits):,} digits: expected "
                              f"a count such as x3 (at most {10**_MAX_COUNT_DIGITS - 1:,})")
    return int(digits)
