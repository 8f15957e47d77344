"""Reading what a student answers, and what a run says about how it ended: shared by the lessons' checks.

>>> number("29"), number("soon"), number(float("nan"))
(29.0, None, None)
>>> from planviz import examples, simulate
>>> stop_reason(simulate(examples.load("release_no_credentials")))[:33]
'refused: the plan is refused befo'
"""

from __future__ import annotations

import math
from typing import Any

from ..runs.events import Run

__all__ = ["number", "stop_reason"]


def number(value: Any) -> float | None:
    """A finite number from a student's answer (a number or its text), else None."""
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def stop_reason(run: Run) -> str:
    """The run's outcome and why, as its stop event says it (``outcome: message``)."""
    message = run.events[-1].message if run.events else ""
    return message if message.startswith(str(run.outcome)) else f"{run.outcome}: {message}"
