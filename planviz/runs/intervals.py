"""Spreads of campaign figures: a 95% Wilson interval for a success rate, a normal interval for a mean.

>>> [round(x, 3) for x in wilson(8, 10)]
[0.49, 0.943]
>>> Estimate.of([1.0, 2.0, 3.0]).mean
2.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

__all__ = ["wilson", "Estimate", "Z95"]

Z95 = 1.959963984540054  # the two-sided 95% quantile of the normal distribution


def wilson(successes: int, runs: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a success rate ``successes / runs``.

    Unlike the normal interval it stays inside [0, 1] and is not empty at 0 or
    ``runs`` successes; with no runs it is the whole of [0, 1].

    Parameters
    ----------
    successes : int
        Successful runs.
    runs : int
        All runs (``successes <= runs``).
    z : float
        The normal quantile (1.96 for 95%).

    Returns
    -------
    tuple of float
        ``(low, high)``.

    Examples
    --------
    >>> [round(x, 3) for x in wilson(0, 20)]
    [0.0, 0.161]
    >>> wilson(0, 0)
    (0.0, 1.0)
    """
    if runs <= 0:
        return (0.0, 1.0)
    p = successes / runs
    z2 = z * z
    centre = (p + z2 / (2 * runs)) / (1 + z2 / runs)
    half = z * math.sqrt(p * (1 - p) / runs + z2 / (4 * runs * runs)) / (1 + z2 / runs)
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Estimate:
    """The mean of a figure over ``n`` runs and its 95% interval (normal: mean +- 1.96 standard errors).

    ``low``/``high`` are None with fewer than two values (no spread to show);
    ``mean`` is None with none (e.g. ``critical_path_delay`` when no run
    succeeded: it is defined only for completed runs).

    >>> e = Estimate.of([2, 4, 4, 6])
    >>> e.mean, e.n, round(e.low, 3), round(e.high, 3)
    (4.0, 4, 2.4, 5.6)
    >>> Estimate.of([]).mean is None
    True
    """

    mean: float | None
    low: float | None
    high: float | None
    n: int

    @classmethod
    def of(cls, values: Iterable[float]) -> Estimate:
        """The estimate of ``values`` (summed in the order given, so a fixed order gives identical floats)."""
        n, total, squares = 0, 0.0, 0.0
        for v in values:
            n += 1
            total += v
            squares += v * v
        return cls.from_sums(n, float(total), float(squares))

    @classmethod
    def from_sums(cls, n: int, total: float, squares: float) -> Estimate:
        """The estimate from the count, sum and sum of squares of the values."""
        if n == 0:
            return cls(None, None, None, 0)
        mean = total / n
        if n < 2:
            return cls(mean, None, None, n)
        var = max(0.0, (squares - n * mean * mean) / (n - 1))
        half = Z95 * math.sqrt(var / n)
        return cls(mean, mean - half, mean + half, n)

    def to_dict(self) -> dict[str, float | int | None]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "n": self.n}
