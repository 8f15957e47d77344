"""Plan shapes for the picture benchmarks and the layout cost fit (not a benchmark itself: no ``main``).

Each function returns a :class:`planviz.Plan`; all are deterministic (seeded).
The shapes span what makes Graphviz ``dot`` slow or fast: long chains (cheap),
wide fans (cheap), layered plans like real agent plans (each step reading
facts of 1-3 steps up to three layers back), dependencies reaching far back
(many long edges), dense plans (each step depends on every earlier one: the
worst case), and "skips" (a chain plus steps whose edges span it: many
virtual nodes at little crossing cost, to measure memory).
"""

from __future__ import annotations

import random

from planviz import Plan, Step

ACTION = "step {i}: do the thing number {i} carefully"


def layered(
    n: int,
    width: int = 10,
    *,
    facts: bool = True,
    back: int = 3,
    fan_in: tuple[int, int] = (1, 3),
    action: str = ACTION,
    seed: int = 7,
) -> Plan:
    """Layers of ``width`` steps; each depends on ``fan_in`` steps of the ``back`` layers before."""
    rnd = random.Random(seed)
    steps: list[Step] = []
    for i in range(n):
        layer = i // width
        pool = [s.id for s in steps[max(0, (layer - back) * width) : layer * width]]
        deps = rnd.sample(pool, min(len(pool), rnd.randint(*fan_in))) if pool else []
        steps.append(
            Step(
                f"S{i}",
                action.format(i=i),
                expected_evidence="ok",
                depends_on=deps,
                requires=[f"f{d[1:]}" for d in deps] if facts else [],
                produces=[f"f{i}"] if facts else [],
                duration=rnd.randint(1, 9),
            )
        )
    return Plan("benchmark plan", steps, time_unit="min")


def far_back(n: int, fan_in: int, *, facts: bool = True, seed: int = 3) -> Plan:
    """Each step depends on ``fan_in`` steps chosen anywhere before it: many long edges."""
    rnd = random.Random(seed)
    steps = []
    for i in range(n):
        deps = [f"S{j}" for j in rnd.sample(range(i), min(i, fan_in))]
        steps.append(
            Step(
                f"S{i}",
                f"step {i}",
                expected_evidence="ok",
                depends_on=deps,
                requires=[f"f{d[1:]}" for d in deps] if facts else [],
                produces=[f"f{i}"] if facts else [],
            )
        )
    return Plan("benchmark plan", steps)


def chain(n: int) -> Plan:
    """A single chain of ``n`` steps."""
    return Plan(
        "benchmark plan",
        [
            Step(
                f"S{i}", f"step {i}", expected_evidence="ok", depends_on=[f"S{i - 1}"] if i else []
            )
            for i in range(n)
        ],
    )


def fan(n: int) -> Plan:
    """One step, ``n`` steps after it in parallel, one step joining them."""
    return Plan(
        "benchmark plan",
        [Step("A", "start", expected_evidence="ok")]
        + [Step(f"S{i}", f"step {i}", expected_evidence="ok", depends_on="A") for i in range(n)]
        + [Step("Z", "join", expected_evidence="ok", depends_on=[f"S{i}" for i in range(n)])],
    )


def dense(n: int, *, facts: bool = False) -> Plan:
    """Each of ``n`` steps depends on every earlier one (issue 13's plan: 60 steps made ``dot`` run for minutes)."""
    return Plan(
        "dense plan",
        [
            Step(
                f"S{i}",
                f"step {i}",
                expected_evidence="ok",
                depends_on=[f"S{j}" for j in range(i)],
                produces=[f"f{i}"] if facts else [],
                requires=[f"f{j}" for j in range(i)] if facts else [],
            )
            for i in range(n)
        ],
    )


def skips(length: int, spans: int) -> Plan:
    """A chain of ``length`` steps and ``spans`` steps each joining its first step to its last."""
    steps = [
        Step(f"S{i}", f"step {i}", expected_evidence="ok", depends_on=[f"S{i - 1}"] if i else [])
        for i in range(length - 1)
    ]
    steps += [
        Step(f"K{k}", f"skip {k}", expected_evidence="ok", depends_on="S0") for k in range(spans)
    ]
    steps.append(
        Step(
            "END",
            "end",
            expected_evidence="ok",
            depends_on=[f"S{length - 2}"] + [f"K{k}" for k in range(spans)],
        )
    )
    return Plan("benchmark plan", steps)
