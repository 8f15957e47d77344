"""The feasibility and semantics layers: facts the world can give, premises the plan leans on, the contract's
milestones and order, and the ancestor rule for required facts.

A premise is an assumption, not a fact: a plan cannot vouch for its own
facts. Under a contract that lists facts, a premise a step relies on must be
in ``given_facts`` or ``obtainable_facts`` (else ``unsupported_premise``, an
error: ``prepare`` refuses); without one, each step relying on a premise
gets the warning ``assumed_fact``. A step relies on a premise it requires
when no dependency ancestor produces that fact.

>>> from planviz import Plan, Step
>>> from planviz.checks.context import Context
>>> plan = Plan("g", [Step("A", "a", expected_evidence="e", produces="x"),
...                   Step("B", "b", expected_evidence="e"),
...                   Step("C", "c", expected_evidence="e", depends_on="B", requires="x")])
>>> [message] = [f.message for f in unmet_requirements(Context(plan), set())]
>>> print(message)  # doctest: +NORMALIZE_WHITESPACE
step 'C' requires 'x', which no dependency ancestor produces: 'A' produces it but is not an ancestor
of 'C'; add 'A' to C.depends_on
"""

from __future__ import annotations

from collections import defaultdict
from itertools import chain
from operator import attrgetter

from planviz.checks.context import NAMED, Context, finding, given_facts, matches, names
from planviz.plan.model import Contract, Finding, Plan, natural_key
from planviz.structure.ancestry import ancestor_pairs, ancestor_queries

__all__ = [
    "infeasible_facts",
    "feasibility",
    "vouched_facts",
    "self_vouched",
    "premise_reliance",
    "unsupported_premises",
    "premise_support",
    "contract_semantics",
    "order_violations",
    "unmet_requirements",
    "ANCESTRY_SEMANTICS",
    "HOP_TRIAL",
]

ANCESTRY_SEMANTICS = ("order_violation", "unmet_requirement")
HOP_TRIAL = 512
"""Requirements looked up two dependencies up before the ancestor rule decides whether that lookup pays: when
fewer than one in eight is found there (facts from far up), the rest go straight to the batched sweep."""
_requires = attrgetter("requires")


def infeasible_facts(plan: Plan, contract: Contract) -> dict[str, list[str]]:
    """Fact -> the steps requiring it, for facts neither given nor obtainable, sorted."""
    known = given_facts(plan, contract).union(contract.obtainable_facts)
    # the common case, without a set of them
    if known.issuperset(chain.from_iterable(map(_requires, plan.steps))):
        return {}
    bad = set(chain.from_iterable(map(_requires, plan.steps))).difference(known)
    needers: dict[str, set[str]] = defaultdict(set)
    for s in plan.steps:
        for f in bad.intersection(s.requires):
            needers[f].add(s.id)
    return {f: sorted(needers[f], key=natural_key) for f in sorted(needers)}


def feasibility(cx: Context, contract: Contract) -> list[Finding]:
    """infeasible_fact: a fact some step requires that the world can neither give nor yield."""
    out = []
    for fact, who in infeasible_facts(cx.plan, contract).items():
        makers = cx.producers(fact)
        if makers:  # the plan claims a step establishes it: the contract says the world cannot
            fix = (
                f"{names(sorted(makers, key=natural_key))} produces it, but "
                "contract.obtainable_facts does not list it: add it "
                f"there if a permitted step may establish it, or find a route that does not need it"
            )
        else:
            fix = (
                "obtain it outside the plan and list it in contract.given_facts, or find a route that does "
                "not need it"
            )
        out.append(
            finding(
                "infeasible_fact",
                "feasibility",
                f"fact {fact!r}, required by {names(who)}, is neither given nor obtainable under the "
                f"contract, so no route can establish it: the plan is refused; {fix}",
                who,
                where=f"{who[0]}.requires",
            )
        )
    return out


def vouched_facts(cx: Context, contract: Contract | None) -> set[str]:
    """Premises and contract given facts that a step of the plan produces (each one a ``self_vouched_fact``)."""
    made = cx.producer_of
    return {f for f in given_facts(cx.plan, contract) if f in made}


def self_vouched(cx: Context, contract: Contract | None) -> list[Finding]:
    """self_vouched_fact: a premise (or a contract given fact) names a fact a step of the same plan produces.

    A given fact is held before any step runs, so the steps needing it would start before its producer
    establishes it: the ancestor rule's back door. One finding per fact, naming the producers and the
    steps that need it.
    """
    vouched = vouched_facts(cx, contract)
    if not vouched:
        return []
    needers: dict[str, list[str]] = defaultdict(list)
    for sid, s in cx.steps.items():
        for f in vouched.intersection(s.requires):
            needers[f].append(sid)
    places = [("premises", "the premise", cx.plan.premises)]
    if contract is not None:
        places.append(("contract.given_facts", "the contract's given fact", contract.given_facts))
    out = []
    for where, what, facts in places:
        for fact in dict.fromkeys(facts):
            if fact not in vouched:
                continue
            makers = sorted(cx.producers(fact), key=natural_key)
            need = sorted((n for n in needers[fact] if n not in makers), key=natural_key)
            one = len(makers) == 1
            fix = f"remove {fact!r} from {where}" + (
                " (list it in contract.obtainable_facts)" if where != "premises" else ""
            )
            if need:
                fix += f" and add {makers[0]!r} to {need[0]}.depends_on"
            out.append(
                finding(
                    "self_vouched_fact",
                    "semantics",
                    f"{what} {fact!r} is a fact {'step' if one else 'steps'} {names(makers)} of this plan "
                    f"produce{'s' if one else ''}: a plan cannot vouch for its own facts (a given fact "
                    f"is held before any step runs, so {names(need) if need else 'a step needing it'} "
                    f"would start before it is established); {fix}",
                    [*need[:NAMED], *makers[:NAMED]],
                    where=where,
                )
            )
    return out


def premise_reliance(cx: Context, ancestry: bool = True) -> dict[str, list[str]]:
    """Premise -> the steps relying on it (requiring it with no dependency ancestor producing it), sorted.

    Without ``ancestry`` (a cycle or unknown ids), a step relies on a premise no step produces.
    """
    # one a step produces: self_vouched_fact
    premises = set(cx.plan.premises).difference(cx.producer_of)
    if not premises:
        return {}
    asks = [
        (sid, f) for sid, s in cx.steps.items() for f in dict.fromkeys(s.requires) if f in premises
    ]
    groups = [cx.producer_group(f) for _, f in asks]
    if ancestry:
        produced = iter(
            ancestor_queries(cx.ix, [(g, sid) for (sid, _), g in zip(asks, groups) if g])
        )
        found = [bool(g) and next(produced) for g in groups]
    else:
        found = [bool(g) for g in groups]
    out: dict[str, list[str]] = defaultdict(list)
    for (sid, fact), made in zip(asks, found):
        if not made:
            out[fact].append(sid)
    return {f: sorted(out[f]) for f in sorted(out)}


def _lists_facts(contract: Contract | None) -> bool:
    return contract is not None and bool(contract.given_facts or contract.obtainable_facts)


def unsupported_premises(
    cx: Context, contract: Contract | None, ancestry: bool = True
) -> dict[str, list[str]]:
    """Premise -> relying steps, for premises a contract listing facts neither gives nor lets a step obtain."""
    if contract is None or not _lists_facts(contract):
        return {}
    known = set(contract.given_facts).union(contract.obtainable_facts)
    return {f: who for f, who in premise_reliance(cx, ancestry).items() if f not in known}


def premise_support(cx: Context, contract: Contract | None, ancestry: bool = True) -> list[Finding]:
    """unsupported_premise (error, under a contract listing facts) or assumed_fact (warning, otherwise)."""
    if _lists_facts(contract):
        return [
            finding(
                "unsupported_premise",
                "feasibility",
                f"{names(who)} relies on the premise {fact!r}, which the contract neither gives nor lets "
                f"any step obtain: a plan cannot vouch for its own facts, so the plan is refused; list "
                f"it in contract.given_facts if it really holds, or add a step establishing it (and list "
                f"it in contract.obtainable_facts)",
                who,
                where=f"{who[0]}.requires",
            )
            for fact, who in unsupported_premises(cx, contract, ancestry).items()
        ]
    return [
        finding(
            "assumed_fact",
            "feasibility",
            f"step {sid!r} relies on the premise {fact!r}, which nothing gives or checks: it is an "
            f"assumption, re-checked as the run goes; give a contract whose given_facts list it, or a "
            f"step that establishes it",
            [sid],
            severity="warning",
            where=f"{sid}.requires",
        )
        for fact, who in premise_reliance(cx, ancestry).items()
        for sid in who
    ]


def contract_semantics(cx: Context, contract: Contract) -> list[Finding]:
    """missing_required and forbidden_step (no ancestry needed)."""
    by_kind = cx.by_kind()
    out = []
    for name in dict.fromkeys(contract.required):
        if not matches(cx, name, by_kind):
            out.append(
                finding(
                    "missing_required",
                    "semantics",
                    f"the contract requires a step with id or kind {name!r}, and the plan has none; "
                    f"add a step with kind: {name}",
                    [],
                    where="contract.required",
                )
            )
    final = contract.final
    if final and final not in contract.required and not matches(cx, final, by_kind):
        out.append(
            finding(
                "missing_required",
                "semantics",
                f"the contract's final milestone {final!r} names no step of the plan (no id or kind "
                f"{final!r}), so the plan has no end to reach; add a step with kind: {final}",
                [],
                where="contract.final",
            )
        )
    for name in dict.fromkeys(contract.forbidden):
        for sid in matches(cx, name, by_kind):
            how = (
                "is forbidden by the contract"
                if sid == name
                else f"has kind {name!r}, which the contract forbids"
            )
            out.append(
                finding(
                    "forbidden_step",
                    "semantics",
                    f"step {sid!r} {how}; remove it and reach the goal another way",
                    [sid],
                    where=f"{sid}.kind" if sid != name else f"{sid}.id",
                )
            )
    return out


def order_violations(
    cx: Context, contract: Contract
) -> tuple[list[Finding], list[tuple[str, str]]]:
    """order_violation: for (a, b), every step matching b needs a step matching a among its ancestors."""
    by_kind = cx.by_kind()
    queries, meta = [], []
    for pair in dict.fromkeys(contract.must_precede):
        a, b = pair
        ranked = matches(cx, a, by_kind)
        group = frozenset(ranked)
        for sid in matches(cx, b, by_kind):
            queries.append((group, sid))
            meta.append((pair, ranked, sid))
    out, violated = [], []
    failed = [
        (
            pair,
            [f for f in ranked[: NAMED + 1] if f != sid][:NAMED],
            sid,
            len(ranked) - (sid in ranked),
        )
        for ok, (pair, ranked, sid) in zip(ancestor_queries(cx.ix, queries), meta)
        if not ok
    ]
    later = iter(
        ancestor_queries(
            cx.ix, [(frozenset((sid,)), firsts[0]) for _, firsts, sid, _ in failed if firsts]
        )
    )
    for pair, firsts, sid, total in failed:
        a, b = pair
        if pair not in violated:
            violated.append(pair)
        if not firsts:
            out.append(
                finding(
                    "order_violation",
                    "semantics",
                    f"step {sid!r} ({b!r}) must come after a {a!r} step, and the plan has no other; "
                    f"add a step with kind: {a} and list it in {sid}.depends_on",
                    [sid],
                    where=f"{sid}.depends_on",
                )
            )
        else:
            out.append(
                finding(
                    "order_violation",
                    "semantics",
                    f"the contract says {a!r} must precede {b!r}, but {names(firsts, total)} is not an ancestor "
                    f"of step {sid!r}; "
                    + (
                        f"{firsts[0]!r} runs after {sid!r}, so reorder them"
                        if next(later)
                        else f"add {firsts[0]!r} to {sid}.depends_on (directly or through a chain)"
                    ),
                    [sid, *firsts[:NAMED]],
                    where=f"{sid}.depends_on",
                )
            )
    return out, violated


def unmet_requirements(cx: Context, given: set[str]) -> list[Finding]:
    """unmet_requirement: the ancestor rule, with the producer that is not an ancestor named."""
    parents = cx.parents
    producer = cx.producer_of.get
    pending: list[tuple[str, str]] = []
    ones: list[str] = []  # the producer each pending requirement is asked about
    failing: set[tuple[str, str]] = set()
    out = []
    hops, tried, hits = True, 0, 0
    for sid, s in cx.steps.items():
        req = s.requires
        if not req:
            continue
        ps = parents[sid]
        for fact in req:
            one = producer(fact)
            if one in ps or fact in given:
                continue
            if one is not None:
                if hops:  # two hops, the next commonest case, while it answers often enough to pay
                    tried += 1
                    if tried == HOP_TRIAL:
                        hops = hits * 8 >= tried
                    two = False
                    for p in ps:
                        if one in parents[p]:
                            two = True
                            break
                    if two:
                        hits += 1
                        continue
                if len(req) > 1:  # a fact listed twice: asked once
                    if (sid, fact) in failing:
                        continue
                    failing.add((sid, fact))
                pending.append((sid, fact))
                ones.append(one)
                continue
            if len(req) > 1:
                if (sid, fact) in failing:
                    continue
                failing.add((sid, fact))
            out.append(
                finding(
                    "unmet_requirement",
                    "semantics",
                    f"step {sid!r} requires {fact!r}, which no step produces and which is not given; "
                    f"add a step producing it to {sid}.depends_on, or list it in premises "
                    f"(or contract.given_facts) if it already holds",
                    [sid],
                    where=f"{sid}.requires",
                )
            )
    answers: list[bool] = []  # tier 1 (the dependencies and theirs) looked at above
    if pending and cx.one_producer_each:
        answers = ancestor_pairs(cx.ix, ones, [sid for sid, _ in pending])
    elif pending:  # a fact's group is all its producers, not the one above
        answers = ancestor_queries(
            cx.ix, [(cx.producer_group(fact), sid) for sid, fact in pending], near=False
        )
    ranked: dict[frozenset[str], list[str]] = {}
    failed = []
    for ok, (sid, fact) in [] if all(answers) else zip(answers, pending):
        if not ok:
            group = cx.producer_group(fact)
            if group not in ranked:
                ranked[group] = sorted(group, key=natural_key)[: NAMED + 1]
            others = [p for p in ranked[group] if p != sid][:NAMED]
            failed.append((sid, fact, others, len(group) - (sid in group)))
    # Which named producers come after the consumer (an edge to them would close a cycle)?
    after_q = [(frozenset((sid,)), p) for sid, _, prods, _ in failed for p in prods]
    after = iter(ancestor_queries(cx.ix, after_q))
    for sid, fact, prods, total in failed:
        later = [p for p in prods if next(after)]
        if not prods:  # only the consumer itself produces it
            out.append(
                finding(
                    "unmet_requirement",
                    "semantics",
                    f"step {sid!r} requires {fact!r}, which only {sid!r} itself produces; a step cannot "
                    f"need its own result: add an earlier step producing it to {sid}.depends_on, "
                    f"or list it in premises",
                    [sid],
                    where=f"{sid}.requires",
                )
            )
            continue
        usable = [p for p in prods if p not in later]
        if usable:
            fix = f"add {usable[0]!r} to {sid}.depends_on"
        else:
            fix = (
                f"the producer runs after {sid!r} (it depends on it), so reorder: produce {fact!r} "
                f"before {sid!r}"
            )
        out.append(
            finding(
                "unmet_requirement",
                "semantics",
                f"step {sid!r} requires {fact!r}, which no dependency ancestor produces: "
                f"{names(prods, total)} produces it but is not an ancestor of {sid!r}; {fix}",
                [sid, *prods],
                where=f"{sid}.requires",
            )
        )
    return out
