"""Spreads of campaign figures: a 95% Wilson interval for a success rate, a Student-t interval for a mean.

>>> [round(x, 3) for x in wilson(8, 10)]
[0.49, 0.943]
>>> Estimate.of([1.0, 2.0, 3.0]).mean
2.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

__all__ = ["wilson", "Estimate", "Z95", "t95", "welford", "merge"]

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


# the two-sided 95% quantiles of Student's t for 1..30 degrees of freedom
_T975 = (
    12.706204736174698,
    4.302652729749464,
    3.182446305284263,
    2.7764451051977934,
    2.570581835636314,
    2.4469118511449692,
    2.3646242515927844,
    2.306004135204166,
    2.2621571628540993,
    2.2281388519649385,
    2.200985160082949,
    2.1788128296634177,
    2.1603686564610127,
    2.1447866879169273,
    2.131449545559323,
    2.1199052992210112,
    2.1098155778331806,
    2.100922040241036,
    2.093024054408263,
    2.0859634472658364,
    2.079613844727662,
    2.0738730679040147,
    2.0686576104190406,
    2.0638985616280205,
    2.059538552753294,
    2.055529438642871,
    2.0518305164802833,
    2.048407141795244,
    2.045229642132703,
    2.0422724563012373,
)


def t95(df: int) -> float:
    """The two-sided 95% quantile of Student's t with ``df`` degrees of freedom (a table to 30, then the
    Cornish-Fisher expansion around the normal quantile, within 1e-6 of the exact value).

    >>> round(t95(1), 3), round(t95(10), 3), round(t95(100), 4), round(t95(10**9), 4)
    (12.706, 2.228, 1.984, 1.96)
    """
    if df < 1:
        raise ValueError(f"t95 needs df >= 1, got {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def merge(a: tuple[int, float, float], b: tuple[int, float, float]) -> tuple[int, float, float]:
    """Two (count, mean, M2) summaries as one (Chan et al.'s parallel form of Welford's update: no sum of
    squares, so no cancellation for values near 1e9).

    >>> merge((2, 1.5, 0.5), (1, 3.0, 0.0))
    (3, 2.0, 2.0)
    """
    n1, m1, s1 = a
    n2, m2, s2 = b
    if n2 == 0:
        return a
    if n1 == 0:
        return b
    n = n1 + n2
    delta = m2 - m1
    return n, m1 + delta * n2 / n, s1 + s2 + delta * delta * n1 * n2 / n


def welford(moments: tuple[int, float, float], value: float) -> tuple[int, float, float]:
    """``moments`` (count, mean, M2) with one value more (Welford's update).

    >>> welford(welford((0, 0.0, 0.0), 1.0), 2.0)
    (2, 1.5, 0.5)
    """
    n, mean, m2 = moments
    n += 1
    delta = value - mean
    mean += delta / n
    return n, mean, m2 + delta * (value - mean)


@dataclass(frozen=True)
class Estimate:
    """The mean of a figure over ``n`` runs and its 95% Student-t interval (mean +- t(n-1) s / sqrt(n)).

    ``low``/``high`` are None with fewer than two values (no spread to show);
    ``mean`` is None with none (e.g. ``critical_path_delay`` when no run
    completed: it is defined only for completed runs). ``low`` never goes below
    ``floor`` (0 for counts, times and delays: a count below zero is no count).

    >>> e = Estimate.of([2, 4, 4, 6])
    >>> e.mean, e.n, round(e.low, 3), round(e.high, 3)
    (4.0, 4, 1.402, 6.598)
    >>> Estimate.of([0, 0, 0, 3]).low
    0.0
    >>> Estimate.of([]).mean is None
    True
    """

    mean: float | None
    low: float | None
    high: float | None
    n: int

    @classmethod
    def of(cls, values: Iterable[float], floor: float | None = 0.0) -> Estimate:
        """The estimate of ``values`` (in the order given, so a fixed order gives identical floats)."""
        moments = (0, 0.0, 0.0)
        for v in values:
            moments = welford(moments, float(v))
        return cls.from_moments(*moments, floor=floor)

    @classmethod
    def from_moments(cls, n: int, mean: float, m2: float, floor: float | None = 0.0) -> Estimate:
        """The estimate from the count, mean and M2 (sum of squared deviations) of the values."""
        if n == 0:
            return cls(None, None, None, 0)
        if n < 2:
            return cls(mean, None, None, n)
        half = t95(n - 1) * math.sqrt(max(0.0, m2) / (n - 1) / n)
        low = mean - half
        return cls(mean, low if floor is None else max(floor, low), mean + half, n)

    def to_dict(self) -> dict[str, float | int | None]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "n": self.n}
