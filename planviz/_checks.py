"""Private helper of :mod:`planviz.validate`: the checks, one function per layer.

Each check takes an :class:`~planviz._ancestry.Index` (built once per plan) and
returns findings; ancestry questions go through ``ancestor_queries`` in one
batch per check. Every loop is linear in the plan's size; the per-step work
is kept to set operations where possible, since validation of a 10k-step plan
is meant to cost about as much as a couple of topological sorts.

>>> from planviz.model import Step, Plan
>>> plan = Plan("g", [Step("A", "a", expected_evidence="e", produces="x"),
...                   Step("B", "b", expected_evidence="e"),
...                   Step("C", "c", expected_evidence="e", depends_on="B", requires="x")])
>>> [f.message for f in unmet_requirements(Index(plan), set())]
["step 'C' requires 'x', which no dependency ancestor produces: 'A' produces it but is not an ancestor of 'C'; add 'A' to C.depends_on"]
"""

from __future__ import annotations

import re
from collections import defaultdict
from itertools import chain
from operator import attrgetter
from typing import Any, Iterable, Iterator, Mapping, Sequence

import networkx as nx

from ._ancestry import Index, ancestor_queries
from .model import Contract, Finding, Plan

ANCESTRY_SEMANTICS = ("order_violation", "unmet_requirement")
ANCESTRY_STATIC = ("tool_precondition", "bad_placeholder", "resource_conflict")
NAMED = 8  # a finding names (and lists in .steps) at most this many other steps
PAIRWISE_LIMIT = 200  # steps sharing one resource checked pair by pair; above it, as a chain
_requires = attrgetter("requires")
_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.S)


def _f(code: str, layer: str, message: str, steps: Iterable[str] = (), *, severity: str = "error",
       edges: Iterable[tuple[str, str]] = (), where: str = "") -> Finding:
    return Finding(code, layer, severity, message, tuple(steps), tuple(edges), where)


def _known(ix: Index, name: str) -> str:
    """' (did you mean 'S3'?)' when a close id exists (and the hint budget is not spent)."""
    close = ix.close_id(name)
    return f" (did you mean {close!r}?)" if close else ""


# -- structure ---------------------------------------------------------------

def structure(ix: Index) -> list[Finding]:
    """duplicate_id, unknown_dependency, self_dependency, empty_action, no_evidence, cycle."""
    out: list[Finding] = []
    plan = ix.plan
    if ix.duplicated:
        counts: dict[str, int] = defaultdict(int)
        for s in plan.steps:
            counts[s.id] += 1
        for sid, n in counts.items():
            if n > 1:
                out.append(_f("duplicate_id", "structure",
                              f"{n} steps share the id {sid!r}; ids must be unique: rename all but one "
                              f"(only the first is used for dependencies)", [sid], where=f"{sid}.id"))
    if ix.unknown or ix.self_deps:
        steps = ix.steps
        for s in plan.steps:
            sid = s.id
            for d in dict.fromkeys(s.depends_on):
                if d == sid:
                    out.append(_f("self_dependency", "structure",
                                  f"step {sid!r} depends on itself; remove {sid!r} from {sid}.depends_on",
                                  [sid], where=f"{sid}.depends_on"))
                elif d not in steps:
                    out.append(_f("unknown_dependency", "structure",
                                  f"step {sid!r} depends on {d!r}, which is not a step of this plan"
                                  f"{_known(ix, d)}; fix the id or remove it from {sid}.depends_on",
                                  [sid], where=f"{sid}.depends_on"))
    for s in plan.steps:
        a, e = s.action, s.expected_evidence
        if not a or a.isspace():
            out.append(_f("empty_action", "structure",
                          f"step {s.id!r} has an empty action; say in one sentence what the step does",
                          [s.id], where=f"{s.id}.action"))
        if not e or e.isspace():
            out.append(_f("no_evidence", "structure",
                          f"step {s.id!r} has no expected_evidence; say what the trace must show when it "
                          f"worked, so its success can be checked", [s.id], where=f"{s.id}.expected_evidence"))
    if ix.cyclic_nodes:
        out.extend(cycles(ix))
    return out


def cycles(ix: Index) -> list[Finding]:
    """One ``cycle`` finding per strongly connected component: its steps, and its shortest cycle
    through its smallest id (so the picture marks a real loop, the same whatever the file order)."""
    rest = sorted(ix.cyclic_nodes)
    inside = set(rest)
    edges = sorted((p, v) for v in rest for p in ix.parents[v] if p in inside)
    g = nx.DiGraph()
    g.add_nodes_from(rest)
    g.add_edges_from(edges)
    sccs = sorted(sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1)
    comp = {sid: i for i, scc in enumerate(sccs) for sid in scc}
    inner: list[list[tuple[str, str]]] = [[] for _ in sccs]
    for u, v in edges:
        i = comp.get(u)
        if i is not None and comp.get(v) == i:
            inner[i].append((u, v))
    out = []
    for scc, scc_edges in zip(sccs, inner):
        h = nx.DiGraph(scc_edges)
        start = scc[0]
        dist = nx.single_source_shortest_path_length(h, start)
        back = min(h.predecessors(start), key=lambda u: (dist[u], u))
        nodes = nx.shortest_path(h, start, back)
        cyc = list(zip(nodes, nodes[1:] + nodes[:1]))
        shown = nodes + nodes[:1]
        route = " -> ".join(map(repr, shown)) if len(shown) <= 12 else (
            " -> ".join(map(repr, shown[:5])) + f" -> ... ({len(nodes) - 9} more) -> " + " -> ".join(map(repr, shown[-5:])))
        u, v = cyc[-1]
        more = f" ({len(scc)} steps are caught in it)" if len(scc) > len(nodes) else ""
        out.append(_f("cycle", "structure",
                      f"steps depend on each other in a cycle: {route}, each waiting for the one before{more}; "
                      f"break it by removing a dependency, e.g. {u!r} from {v}.depends_on",
                      scc, edges=cyc, where=f"{v}.depends_on"))
    return out


# -- feasibility ---------------------------------------------------------------

def given_facts(plan: Plan, contract: Contract | None) -> set[str]:
    return set(plan.premises) | (set(contract.given_facts) if contract else set())


def infeasible_facts(plan: Plan, contract: Contract) -> dict[str, list[str]]:
    """Fact -> the steps requiring it, for facts neither given nor obtainable, sorted."""
    known = given_facts(plan, contract).union(contract.obtainable_facts)
    bad = set(chain.from_iterable(map(_requires, plan.steps))).difference(known)
    if not bad:
        return {}
    needers: dict[str, set[str]] = defaultdict(set)
    for s in plan.steps:
        for f in bad.intersection(s.requires):
            needers[f].add(s.id)
    return {f: sorted(needers[f]) for f in sorted(needers)}


def feasibility(ix: Index, contract: Contract) -> list[Finding]:
    """infeasible_fact: a fact some step requires that the world can neither give nor yield."""
    out = []
    for fact, who in infeasible_facts(ix.plan, contract).items():
        makers = ix.producers(fact)
        if makers:  # the plan claims a step establishes it: the contract says the world cannot
            fix = (f"{_names(sorted(makers))} produces it, but contract.obtainable_facts does not list it: add it "
                   f"there if a permitted step may establish it, or find a route that does not need it")
        else:
            fix = ("obtain it outside the plan and list it in contract.given_facts, or find a route that does "
                   "not need it")
        out.append(_f("infeasible_fact", "feasibility",
                      f"fact {fact!r}, required by {_names(who)}, is neither given nor obtainable under the "
                      f"contract, so no route can establish it: the plan is refused; {fix}",
                      who, where=f"{who[0]}.requires"))
    return out


def _names(ids: Sequence[str], total: int | None = None) -> str:
    """Up to NAMED ids, quoted, and how many more of ``total`` there are."""
    shown = ", ".join(map(repr, ids[:NAMED]))
    extra = (len(ids) if total is None else total) - min(len(ids), NAMED)
    return f"{shown} and {extra} more" if extra > 0 else shown


# -- semantics ---------------------------------------------------------------

def matches(ix: Index, name: str, by_kind: Mapping[str, list[str]]) -> list[str]:
    """The steps a contract entry names: the step with that id and every step of that kind, sorted."""
    found = set(by_kind.get(name, ()))
    if name in ix.steps:
        found.add(name)
    return sorted(found)


def contract_semantics(ix: Index, contract: Contract) -> list[Finding]:
    """missing_required and forbidden_step (no ancestry needed)."""
    by_kind = ix.by_kind()
    out = []
    for name in dict.fromkeys(contract.required):
        if not matches(ix, name, by_kind):
            out.append(_f("missing_required", "semantics",
                          f"the contract requires a step with id or kind {name!r}, and the plan has none; "
                          f"add a step with kind: {name}", [], where="contract.required"))
    for name in dict.fromkeys(contract.forbidden):
        for sid in matches(ix, name, by_kind):
            how = "is forbidden by the contract" if sid == name else f"has kind {name!r}, which the contract forbids"
            out.append(_f("forbidden_step", "semantics",
                          f"step {sid!r} {how}; remove it and reach the goal another way",
                          [sid], where=f"{sid}.kind" if sid != name else f"{sid}.id"))
    return out


def order_violations(ix: Index, contract: Contract) -> tuple[list[Finding], list[tuple[str, str]]]:
    """order_violation: for (a, b), every step matching b needs a step matching a among its ancestors."""
    by_kind = ix.by_kind()
    queries, meta = [], []
    for pair in dict.fromkeys(contract.must_precede):
        a, b = pair
        ranked = matches(ix, a, by_kind)
        firsts = frozenset(ranked)
        for sid in matches(ix, b, by_kind):
            queries.append((firsts, sid))
            meta.append((pair, ranked, sid))
    out, violated = [], []
    failed = [(pair, [f for f in ranked[:NAMED + 1] if f != sid][:NAMED], sid, len(ranked) - (sid in ranked))
              for ok, (pair, ranked, sid) in zip(ancestor_queries(ix, queries), meta) if not ok]
    later = iter(ancestor_queries(ix, [(frozenset((sid,)), firsts[0]) for _, firsts, sid, _ in failed if firsts]))
    for pair, firsts, sid, total in failed:
        a, b = pair
        if pair not in violated:
            violated.append(pair)
        if not firsts:
            out.append(_f("order_violation", "semantics",
                          f"step {sid!r} ({b!r}) must come after a {a!r} step, and the plan has no other; "
                          f"add a step with kind: {a} and list it in {sid}.depends_on", [sid],
                          where=f"{sid}.depends_on"))
        else:
            out.append(_f("order_violation", "semantics",
                          f"the contract says {a!r} must precede {b!r}, but {_names(firsts, total)} is not an ancestor "
                          f"of step {sid!r}; " + (f"{firsts[0]!r} runs after {sid!r}, so reorder them" if next(later)
                          else f"add {firsts[0]!r} to {sid}.depends_on (directly or through a chain)"),
                          [sid, *firsts[:NAMED]], where=f"{sid}.depends_on"))
    return out, violated


def unmet_requirements(ix: Index, given: set[str]) -> list[Finding]:
    """unmet_requirement: the ancestor rule, with the producer that is not an ancestor named."""
    parents = ix.parents
    producer = ix.producer_of.get
    pending: list[tuple[str, str, frozenset[str]]] = []
    failing: set[tuple[str, str]] = set()
    out = []
    for sid, s in ix.steps.items():
        req = s.requires
        if not req:
            continue
        ps = parents[sid]
        for fact in req:
            one = producer(fact)
            if one in ps or fact in given:
                continue
            if one is not None:  # two hops, the next commonest case
                for p in ps:
                    if one in parents[p]:
                        break
                else:
                    one = None
                if one is not None:
                    continue
            if (sid, fact) in failing:  # listed twice: one finding
                continue
            failing.add((sid, fact))
            group = ix.producer_group(fact)
            if not group:
                out.append(_f("unmet_requirement", "semantics",
                              f"step {sid!r} requires {fact!r}, which no step produces and which is not given; "
                              f"add a step producing it to {sid}.depends_on, or list it in premises "
                              f"(or contract.given_facts) if it already holds", [sid], where=f"{sid}.requires"))
            else:
                pending.append((sid, fact, group))
    answers = ancestor_queries(ix, [(group, sid) for sid, _, group in pending])
    ranked: dict[frozenset[str], list[str]] = {}
    failed = []
    for ok, (sid, fact, group) in zip(answers, pending):
        if not ok:
            if group not in ranked:
                ranked[group] = sorted(group)[:NAMED + 1]
            others = [p for p in ranked[group] if p != sid][:NAMED]
            failed.append((sid, fact, others, len(group) - (sid in group)))
    # Which named producers come after the consumer (an edge to them would close a cycle)?
    after_q = [(frozenset((sid,)), p) for sid, _, prods, _ in failed for p in prods]
    after = iter(ancestor_queries(ix, after_q))
    for sid, fact, prods, total in failed:
        later = [p for p in prods if next(after)]
        if not prods:  # only the consumer itself produces it
            out.append(_f("unmet_requirement", "semantics",
                          f"step {sid!r} requires {fact!r}, which only {sid!r} itself produces; a step cannot "
                          f"need its own result: add an earlier step producing it to {sid}.depends_on, "
                          f"or list it in premises", [sid], where=f"{sid}.requires"))
            continue
        usable = [p for p in prods if p not in later]
        if usable:
            fix = f"add {usable[0]!r} to {sid}.depends_on"
        else:
            fix = (f"the producer runs after {sid!r} (it depends on it), so reorder: produce {fact!r} "
                   f"before {sid!r}")
        out.append(_f("unmet_requirement", "semantics",
                      f"step {sid!r} requires {fact!r}, which no dependency ancestor produces: "
                      f"{_names(prods, total)} produces it but is not an ancestor of {sid!r}; {fix}", [sid, *prods],
                      where=f"{sid}.requires"))
    return out


# -- static ------------------------------------------------------------------

def tool_checks(ix: Index, contract: Contract, *, ancestry: bool) -> list[Finding]:
    """unknown_tool, not_permitted, outside_intent and (with ancestry) tool_precondition."""
    tools = contract.tools
    out = []
    users: dict[str, list[str]] = defaultdict(list)
    for sid, s in ix.steps.items():
        if s.tool is not None:
            users[s.tool].append(sid)
    queries, meta = [], []
    groups: dict[str, frozenset[str]] = {}
    ranked: dict[str, list[str]] = {}
    choices = ", ".join(map(repr, sorted(tools)))
    for tool, sids in users.items():
        spec = tools.get(tool)
        for sid in sids:
            if spec is None:
                out.append(_f("unknown_tool", "static",
                              f"step {sid!r} calls tool {tool!r}, which the contract's tool registry does not "
                              f"list; use one of {choices} or register it", [sid], where=f"{sid}.tool"))
                continue
            if not spec.permitted:
                out.append(_f("not_permitted", "static",
                              f"step {sid!r} calls tool {tool!r}, which the contract does not permit; "
                              f"remove the call or use a permitted tool", [sid], where=f"{sid}.tool"))
            if spec.writes and contract.intent == "read":
                out.append(_f("outside_intent", "static",
                              f"step {sid!r} calls {tool!r}, which writes, but the contract's intent is read-only; "
                              f"use a read-only tool or drop the step", [sid], where=f"{sid}.tool"))
            if ancestry:
                for pre in dict.fromkeys(spec.preconditions):
                    if pre not in groups:
                        groups[pre] = frozenset(users.get(pre, ()))
                        ranked[pre] = sorted(groups[pre])
                    queries.append((groups[pre], sid))
                    meta.append((sid, tool, pre, ranked[pre]))
    for ok, (sid, tool, pre, group) in zip(ancestor_queries(ix, queries), meta):
        if ok:
            continue
        others = [g for g in group[:NAMED + 1] if g != sid][:NAMED]
        if others:
            fix = (f"{_names(others, len(groups[pre]) - (sid in groups[pre]))} calls {pre!r} but is not an "
                   f"ancestor of {sid!r}; add {others[0]!r} to {sid}.depends_on")
        else:
            fix = f"no earlier step calls {pre!r}; add one and list it in {sid}.depends_on"
        out.append(_f("tool_precondition", "static",
                      f"step {sid!r} calls {tool!r}, which needs {pre!r} to have run first; {fix}",
                      [sid, *others], where=f"{sid}.depends_on"))
    return out


def _strings_in(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every string inside nested mappings and sequences, with its path (iterative: no recursion limit)."""
    stack = [(value, path)]
    while stack:
        v, p = stack.pop()
        if isinstance(v, str):
            yield p, v
        elif isinstance(v, Mapping):
            stack.extend((item, f"{p}.{k}") for k, item in reversed(list(v.items())))
        elif isinstance(v, (list, tuple)):
            stack.extend((item, f"{p}[{i}]") for i, item in reversed(list(enumerate(v))))


def _placeholder_step(ix: Index, inner: str) -> str | None:
    """The step a ``{{S.field}}`` names: the longest dotted prefix that is a step id (ids may hold dots)."""
    text = inner.strip()
    if text in ix.steps:
        return text
    cut = len(text)
    while True:
        cut = text.rfind(".", 0, cut)
        if cut <= 0:
            return None
        if text[:cut] in ix.steps:
            return text[:cut]


def placeholders(ix: Index) -> list[Finding]:
    """bad_placeholder: ``{{S.field}}`` in a string argument whose step S is unknown or not an ancestor."""
    out, queries, meta = [], [], []
    for sid, s in ix.steps.items():
        if not s.arguments:
            continue
        for path, text in _strings_in(s.arguments, f"{sid}.arguments"):
            if "{{" not in text:
                continue
            for shown, inner in dict.fromkeys(m.group(0, 1) for m in _PLACEHOLDER.finditer(text)):  # once each
                ref = _placeholder_step(ix, inner)
                if ref is None:
                    head = inner.strip().split(".")[0]
                    out.append(_f("bad_placeholder", "static",
                                  f"{path} uses {shown!r}, but there is no step {head!r}{_known(ix, head)}; "
                                  f"name an earlier step of this plan", [sid], where=path))
                else:
                    queries.append((frozenset((ref,)), sid))
                    meta.append((sid, path, shown, ref))
    for ok, (sid, path, shown, ref) in zip(ancestor_queries(ix, queries), meta):
        if not ok:
            fix = ("a step cannot use its own result" if ref == sid
                   else f"add {ref!r} to {sid}.depends_on so its result exists when {sid!r} runs")
            out.append(_f("bad_placeholder", "static",
                          f"{path} uses {shown!r}, but step {ref!r} is not an ancestor of {sid!r}; {fix}",
                          [sid] if ref == sid else [sid, ref], where=path))
    return out


def resource_conflicts(ix: Index) -> list[Finding]:
    """resource_conflict: two steps that may run in parallel (neither an ancestor of the other) share a resource.

    Steps sharing a resource must form a chain. Up to ``PAIRWISE_LIMIT``
    sharers every pair is checked; beyond it, consecutive sharers in a
    canonical topological order (a chain is fine iff every consecutive pair is).
    """
    holders: dict[str, list[str]] = defaultdict(list)
    for sid, s in ix.steps.items():
        if s.resources:
            for r in dict.fromkeys(s.resources):
                holders[r].append(sid)
    pos = ix.pos
    chains: list[tuple[str, list[str]]] = []
    for res, sids in holders.items():
        if len(sids) > 1:
            if len(sids) <= PAIRWISE_LIMIT:
                sids.sort(key=pos.__getitem__)
            else:
                lv = ix.levels()
                sids.sort(key=lambda x: (lv[x], x))
            chains.append((res, sids))
    # Consecutive sharers first: when each is an ancestor of the next, the sharers form a chain.
    parents = ix.parents
    links = [(a, b) for _, sids in chains for a, b in zip(sids, sids[1:]) if a not in parents[b]]
    far = dict(zip(links, ancestor_queries(ix, [(frozenset((a,)), b) for a, b in links])))
    linked = iter([a in parents[b] or far[a, b] for _, sids in chains for a, b in zip(sids, sids[1:])])
    pairs: list[tuple[str, str, str]] = []
    for res, sids in chains:
        broken = not all([next(linked) for _ in range(len(sids) - 1)])
        if not broken:
            continue
        if len(sids) <= PAIRWISE_LIMIT:
            pairs.extend((res, a, b) for i, a in enumerate(sids) for b in sids[i + 1:])
        else:
            pairs.extend((res, a, b) for a, b in zip(sids, sids[1:]))
    answers = ancestor_queries(ix, [(frozenset((a,)), b) for _, a, b in pairs])
    out = []
    for ok, (res, a, b) in zip(answers, pairs):
        if not ok:
            a, b = sorted((a, b))
            out.append(_f("resource_conflict", "static",
                          f"steps {a!r} and {b!r} both hold {res!r} and may run in parallel (neither depends on "
                          f"the other); order them, e.g. add {a!r} to {b}.depends_on", [a, b],
                          where=f"{b}.resources"))
    return out


def step_static(ix: Index, contract: Contract | None) -> list[Finding]:
    """no_artifact, high_risk_unguarded and (with a contract) forbidden_state."""
    out = []
    for sid, s in ix.steps.items():
        if not s.produces:
            out.append(_f("no_artifact", "static",
                          f"step {sid!r} produces no fact, so no observation can show it succeeded and it "
                          f"cannot be accepted; list what its success establishes in {sid}.produces",
                          [sid], severity="warning", where=f"{sid}.produces"))
        if s.risk == "high":
            missing = [n for n, v in (("rollback", s.rollback), ("approval", s.approval or "")) if not v.strip()]
            if missing:
                out.append(_f("high_risk_unguarded", "static",
                              f"step {sid!r} is high risk but has no {' and no '.join(missing)}; give it "
                              f"{' and '.join(f'{sid}.{m}' for m in missing)} before it may run",
                              [sid], where=f"{sid}.{missing[0]}"))
    forbidden = set(contract.forbidden_states) if contract else set()
    if forbidden:
        for sid, s in ix.steps.items():
            for fact in forbidden.intersection(s.produces):
                out.append(_f("forbidden_state", "static",
                              f"step {sid!r} produces {fact!r}, a state the contract forbids; remove the step or "
                              f"change it so {fact!r} never holds", [sid], where=f"{sid}.produces"))
    return out
