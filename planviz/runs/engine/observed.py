"""What one observation establishes, weighed against the facts held: its facts in order (sorted cheaply when
they are exactly what the step produces), those it may add and the conflicts it raises (a fact whose negation
is held, unless the observation withdraws it), and what the step produces that it left out.

>>> from planviz.runs.events import Observation
>>> obs = Observation(True, {"not x", "y"})
>>> order, _ = sorted_facts(obs.facts, None)
>>> accepted, conflicts = weigh("B", obs, order, {"x": {"A"}}, 0)
>>> accepted, [(c.fact, c.contradicts) for c in conflicts], missing_facts(("y", "z"), accepted)
(['y'], [('not x', 'x')], ['z'])
"""

from __future__ import annotations

from itertools import islice
from operator import eq
from typing import Any, Mapping, Sequence

from planviz.runs.events import DERIVED, Conflict, Observation, negation

__all__ = ["sorted_facts", "weigh", "missing_facts", "completion_message", "failure_reason"]


def sorted_facts(facts: frozenset[str], step: Any) -> tuple[list[str], bool]:
    """``sorted(facts)``, sorted from the step's ``produces`` when those are exactly the facts (no repeats),
    and whether they were.

    The same strings in the order they were made sort in about one pass over
    memory; the set, in hash order, jumps around it for every comparison, and
    at 100,000 facts that costs several times more per fact than at 10,000
    (issue 28).
    """
    produced: tuple[str, ...] = step.produces if step is not None else ()
    if len(produced) == len(facts):
        if len(facts) > 1:
            order = sorted(produced)
            if facts.issuperset(order) and not any(map(eq, order, islice(order, 1, None))):
                return order, True
        # none, or the one fact it produces: nothing to sort
        elif not facts or produced[0] in facts:
            return list(produced), True
    return sorted(facts), False


def weigh(
    sid: str,
    obs: Observation,
    order: list[str],
    sources: Mapping[str, Sequence[str]],
    negated: int,
) -> tuple[list[str], list[Conflict]]:
    """The facts of ``obs`` (in ``order``) that ``sid`` may add, and the conflicts the others raise: a fact whose
    negation ``sources`` holds, unless ``obs`` withdraws it. ``negated``: whether any held fact is a negation
    (when none is and none of ``order`` is, nothing can conflict and no fact is looked up)."""
    if not negated:
        for f in order:
            if f.startswith("not "):
                negated = 1
                break
    if not negated:
        return order, []
    accepted: list[str] = []
    conflicts: list[Conflict] = []
    for f in order:
        contrary = negation(f)
        held = sources.get(contrary)
        if held and contrary not in obs.withdrawn:
            conflicts.append(Conflict(f, sid, contrary, ", ".join(sorted(held))))
        else:
            accepted.append(f)
    return accepted, conflicts


def missing_facts(produced: Sequence[str], accepted: Sequence[str]) -> list[str]:
    """What a step produces that its observation did not establish, in the step's order."""
    accepted_set = set(accepted)
    return [f for f in produced if f not in accepted_set]


def completion_message(
    sid: str,
    obs: Observation,
    accepted: Sequence[str],
    produced: Sequence[str],
    replaced: Sequence[str],
    exact: bool,
) -> str:
    """A complete event's message: the facts the step was to produce, those it also observed and the
    earlier values it replaces; ``DERIVED`` (made from the event when read) when it established one fact
    or none, exactly the observation's.

    >>> completion_message("A", Observation(True, {"x", "y"}), ["x", "y"], ["x"], ["x0"], False)
    "'A' complete: x; also observed y; replaces 'x0'"
    """
    if exact:
        main, extra = list(accepted), []
    else:
        produced_set = set(produced)
        main = [f for f in accepted if f in produced_set]
        extra = [f for f in accepted if f not in produced_set]
    note = f"; also observed {', '.join(extra)}" if extra else ""
    note += f"; replaces {', '.join(map(repr, replaced))}" if replaced else ""
    if exact and not note and len(main) <= 1 and len(obs.facts) == len(main):
        return DERIVED
    return f"{sid!r} complete: {', '.join(main) or 'no facts'}{note}"


def failure_reason(obs: Observation, missing: Sequence[str]) -> tuple[str, str]:
    """A fail event's category and reason: the facts a successful observation left out (``evidence``),
    else the observation's own kind and message.

    >>> failure_reason(Observation(True, {"x"}), ["y"])
    ('evidence', "its observation does not establish 'y'")
    """
    if obs.ok:
        return "evidence", f"its observation does not establish {', '.join(map(repr, missing))}"
    return obs.kind, str(obs.data.get("message", obs.kind))
