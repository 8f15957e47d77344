"""The static layer: tools and permissions, placeholders, artifacts, shared resources, risk, completion checks,
far-horizon budgets, forbidden states.

>>> from planviz import Plan, Step
>>> from planviz.checks.context import Context
>>> plan = Plan("g", [Step("A", "a", produces="x"), Step("B", "b", arguments={"q": "{{ A.out }}"}, produces="y")])
>>> [f.code for f in placeholders(Context(plan))]
['bad_placeholder']
"""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from planviz.checks.context import NAMED, Context, finding, known, names, unstated_note
from planviz.checks.predicate import vacuous
from planviz.errors import did_you_mean, show_value
from planviz.plan.importers import unstated_fields
from planviz.plan.model import Contract, Finding, Step, natural_key
from planviz.plan.placeholder import placeholders_in, split_reference
from planviz.plan.toolargs import OTHERS, fits, takes, type_name
from planviz.structure.ancestry import ancestor_queries

__all__ = [
    "tool_checks",
    "argument_checks",
    "effect_checks",
    "placeholders",
    "resource_conflicts",
    "step_static",
    "writes",
    "effect_of",
    "tool_refusal",
    "over_budget",
    "ANCESTRY_STATIC",
    "PAIRWISE_LIMIT",
    "WRITING",
]

ANCESTRY_STATIC = ("tool_precondition", "bad_placeholder", "resource_conflict")
PAIRWISE_LIMIT = 200  # steps sharing one resource checked pair by pair; above it, as a chain


WRITING = frozenset({"write", "destructive"})


_STRICTNESS = {"read": 0, "write": 1, "destructive": 2}


def effect_of(step: Step, contract: Contract | None = None) -> str | None:
    """What ``step`` does to the world, as far as the user certifies it: a tool step's effect is its tool's
    entry in the contract's registry (its ``effect``, else write or read by ``writes``); the step's own
    ``effect`` and ``resources`` can only make it stricter (a declared write or destructive effect counts, a
    declared read certifies nothing). A tool the registry does not list has no certified effect (None) unless
    the step declares a write. A step with no tool (a thought) changes nothing unless it declares an effect
    or holds ``resources``: None.

    >>> from planviz import Contract, ToolSpec
    >>> effect_of(Step("S1", "look up")), effect_of(Step("S3", "patch", resources=["keys.py"]))
    (None, 'write')
    >>> purge = Step("P", "purge", tool="purge_cache", effect="read")
    >>> effect_of(purge), effect_of(purge, Contract(tools={"purge_cache": ToolSpec(effect="write")}))
    (None, 'write')
    """
    own = "write" if step.resources and step.effect in (None, "read") else step.effect
    if step.tool is None:
        return own
    spec = contract.tools.get(step.tool) if contract is not None else None
    certified = None if spec is None else (spec.effect or ("write" if spec.writes else "read"))
    if own in WRITING and (certified is None or _STRICTNESS[own] > _STRICTNESS[certified]):
        return own
    return certified


def writes(step: Step, contract: Contract | None = None) -> bool:
    """Whether ``step`` writes: it holds ``resources``, declares a writing ``effect``, or the contract registers
    its tool as writing.

    >>> writes(Step("S3", "patch", resources=["keys.py"])), writes(Step("S1", "locate"))
    (True, False)
    """
    if step.resources:
        return True
    if step.effect is None and not step.tool:  # the common case: nothing declares an effect
        return False
    return effect_of(step, contract) in WRITING


def tool_refusal(step: Step, contract: Contract | None) -> tuple[str, str] | None:
    """Why the contract's tool registry refuses ``step``'s tool call, as (finding code, reason), or None:
    what the environment answers when the call is made (an unknown tool, one not permitted, a write
    under read intent, or under read intent a tool the registry does not certify as reading).

    >>> from planviz import Contract, ToolSpec
    >>> tool_refusal(Step("S1", "push", tool="git_push"), Contract(tools={"git_push": ToolSpec(permitted=False)}))
    ('not_permitted', "the contract does not permit 'git_push'")
    """
    if contract is None:
        return None
    spec = contract.tools.get(step.tool) if contract.tools and step.tool is not None else None
    if contract.tools and step.tool is not None:
        if spec is None:
            return "unknown_tool", f"{step.tool!r} is not in the contract's tool registry"
        if not spec.permitted:
            return "not_permitted", f"the contract does not permit {step.tool!r}"
    effect = effect_of(step, contract) if contract.intent == "read" else None
    if contract.intent == "read" and step.tool is not None and effect is None:
        return (
            "unverified_effect",
            f"the contract's registry does not say that {step.tool!r} only reads, and the "
            "contract's intent is read-only",
        )
    if effect in WRITING:
        if spec is not None and spec.writes:
            return "outside_intent", f"{step.tool!r} writes, but the contract's intent is read-only"
        return (
            "outside_intent",
            f"{step.id!r} writes (effect {effect_of(step, contract)!r}), but the contract's "
            "intent is read-only",
        )
    return None


def effect_checks(cx: Context, contract: Contract) -> list[Finding]:
    """effect_conflict (a step's effect and its tool's registry entry disagree) and, under intent ``read``,
    outside_intent for a declared write the registry does not already report, and unverified_effect for a tool
    step whose tool no registry entry certifies (its own ``effect="read"`` certifies nothing); a step with no
    tool changes nothing unless it declares a write."""
    out = []
    tools, read_only = contract.tools, contract.intent == "read"
    for sid, s in cx.steps.items():
        spec = tools.get(s.tool) if s.tool is not None else None
        if spec is not None and s.effect is not None:
            says = spec.effect or ("read" if not spec.writes else None)
            if (says is not None and says != s.effect) or (says is None and s.effect == "read"):
                out.append(
                    finding(
                        "effect_conflict",
                        "static",
                        f"step {sid!r} declares effect {s.effect!r}, but the contract's registry says "
                        f"{s.tool!r} {'writes' if spec.writes else 'reads'} (effect {says or 'write'!r}); "
                        f"make {sid}.effect and contract.tools.{s.tool} say the same thing",
                        [sid],
                        where=f"{sid}.effect",
                    )
                )
        if not read_only or s.horizon == "far" or s.kind == "finish":
            continue
        effect = effect_of(s, contract)
        if effect in WRITING and not (spec is not None and spec.writes):
            what = (
                f"declares effect {effect!r}"
                if s.effect
                else f"holds {', '.join(map(repr, s.resources))}"
            )
            out.append(
                finding(
                    "outside_intent",
                    "static",
                    f"step {sid!r} {what}, so it writes, but the contract's intent is read-only; "
                    f"use a step that only reads or drop it",
                    [sid],
                    where=f"{sid}.effect",
                )
            )
        # with a registry: unknown_tool already
        elif effect is None and s.tool is not None and not tools:
            said = (
                f" (its own effect {s.effect!r} certifies nothing: only the user's registry can)"
                if s.effect
                else ""
            )
            out.append(
                finding(
                    "unverified_effect",
                    "static",
                    f"step {sid!r} calls {s.tool!r}, and the contract's registry does not say whether it "
                    f"only reads{said}: under a read-only contract only the registry certifies a tool's "
                    f"effect, so the plan is refused; register {s.tool!r} in contract.tools with effect: "
                    f"read if it only reads (write or destructive steps do not belong in a read-only "
                    f"plan)",
                    [sid],
                    where=f"{sid}.tool",
                )
            )
    return out


def _a(word: str) -> str:
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


def argument_checks(cx: Context, contract: Contract) -> list[Finding]:
    """bad_arguments: a call that leaves out an argument its tool requires, passes one it does not take, or a
    literal of the wrong type, against the registry's ``arguments`` (a placeholder is no literal: it fits)."""
    out = []
    for sid, s in cx.steps.items():
        spec = contract.tools.get(s.tool) if s.tool is not None else None
        if spec is None or spec.arguments is None:
            continue
        table, needed = spec.arguments, spec.required
        takes_ = f"{s.tool!r} takes {takes(table, needed)}"
        for name in needed:
            if name not in s.arguments:
                out.append(
                    finding(
                        "bad_arguments",
                        "static",
                        f"step {sid!r} calls {s.tool!r} without {name!r}, which it requires; {takes_}; "
                        f"add {sid}.arguments.{name}",
                        [sid],
                        where=f"{sid}.arguments",
                    )
                )
        for name, value in s.arguments.items():
            kind = table.get(name, table.get(OTHERS))
            if kind is None:
                listed = [n for n in table if n != OTHERS]
                out.append(
                    finding(
                        "bad_arguments",
                        "static",
                        f"step {sid!r} passes {name!r} to {s.tool!r}, which does not take it"
                        f"{did_you_mean(name, listed)}; {takes_}; rename or drop "
                        f"{sid}.arguments.{name}",
                        [sid],
                        where=f"{sid}.arguments.{name}",
                    )
                )
            elif not fits(value, kind):
                out.append(
                    finding(
                        "bad_arguments",
                        "static",
                        f"step {sid!r} passes {name}={show_value(value, 60)} ({_a(type_name(value))}) to "
                        f"{s.tool!r}, which takes {name}: {kind}; give {sid}.arguments.{name} "
                        f"{_a(kind.replace('|', ' or '))} (or a "
                        f"placeholder such as '{{{{S1.field}}}}' filled from an earlier step)",
                        [sid],
                        where=f"{sid}.arguments.{name}",
                    )
                )
    return out


def tool_checks(cx: Context, contract: Contract, *, ancestry: bool) -> list[Finding]:
    """unknown_tool, not_permitted, outside_intent and (with ancestry) tool_precondition."""
    tools = contract.tools
    out = []
    users: dict[str, list[str]] = defaultdict(list)
    for sid, s in cx.steps.items():
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
                out.append(
                    finding(
                        "unknown_tool",
                        "static",
                        f"step {sid!r} calls tool {tool!r}, which the contract's tool registry does not "
                        f"list; use one of {choices} or register it",
                        [sid],
                        where=f"{sid}.tool",
                    )
                )
                continue
            if not spec.permitted:
                out.append(
                    finding(
                        "not_permitted",
                        "static",
                        f"step {sid!r} calls tool {tool!r}, which the contract does not permit; "
                        f"remove the call or use a permitted tool",
                        [sid],
                        where=f"{sid}.tool",
                    )
                )
            if spec.writes and contract.intent == "read":
                out.append(
                    finding(
                        "outside_intent",
                        "static",
                        f"step {sid!r} calls {tool!r}, which writes, but the contract's intent is read-only; "
                        f"use a read-only tool or drop the step",
                        [sid],
                        where=f"{sid}.tool",
                    )
                )
            if ancestry:
                for pre in dict.fromkeys(spec.preconditions):
                    if pre not in groups:
                        groups[pre] = frozenset(users.get(pre, ()))
                        ranked[pre] = sorted(groups[pre], key=natural_key)
                    queries.append((groups[pre], sid))
                    meta.append((sid, tool, pre, ranked[pre]))
    for ok, (sid, tool, pre, group) in zip(ancestor_queries(cx.ix, queries), meta):
        if ok:
            continue
        others = [g for g in group[: NAMED + 1] if g != sid][:NAMED]
        if others:
            fix = (
                f"{names(others, len(groups[pre]) - (sid in groups[pre]))} calls {pre!r} but is not an "
                f"ancestor of {sid!r}; add {others[0]!r} to {sid}.depends_on"
            )
        else:
            fix = f"no earlier step calls {pre!r}; add one and list it in {sid}.depends_on"
        out.append(
            finding(
                "tool_precondition",
                "static",
                f"step {sid!r} calls {tool!r}, which needs {pre!r} to have run first; {fix}",
                [sid, *others],
                where=f"{sid}.depends_on",
            )
        )
    return out


def placeholders(cx: Context) -> list[Finding]:
    """bad_placeholder: ``{{S.field}}`` in a string argument whose step S is unknown or not an ancestor."""
    out, queries, meta = [], [], []
    for sid, s in cx.steps.items():
        if not s.arguments:
            continue
        seen = set()
        for path, p in placeholders_in(s.arguments, f"{sid}.arguments"):
            if (path, p.text) in seen:  # the same placeholder twice in one string: one finding
                continue
            seen.add((path, p.text))
            ref = split_reference(p.inner, cx.steps)
            if ref is None:
                head = p.inner.split(".")[0]
                out.append(
                    finding(
                        "bad_placeholder",
                        "static",
                        f"{path} uses {p.text!r}, but there is no step {head!r}{known(cx, head)}; "
                        f"name an earlier step of this plan",
                        [sid],
                        where=path,
                    )
                )
            else:
                queries.append((frozenset((ref[0],)), sid))
                meta.append((sid, path, p.text, ref[0]))
    for ok, (sid, path, shown, named) in zip(ancestor_queries(cx.ix, queries), meta):
        if not ok:
            fix = (
                "a step cannot use its own result"
                if named == sid
                else f"add {named!r} to {sid}.depends_on so its result exists when {sid!r} runs"
            )
            out.append(
                finding(
                    "bad_placeholder",
                    "static",
                    f"{path} uses {shown!r}, but step {named!r} is not an ancestor of {sid!r}; {fix}",
                    [sid] if named == sid else [sid, named],
                    where=path,
                )
            )
    return out


def resource_conflicts(cx: Context) -> list[Finding]:
    """resource_conflict (a warning): two steps that may run in parallel (neither an ancestor of the other)
    share a resource. Runs schedule exclusive resources, so it does not refuse the plan.

    Steps sharing a resource must form a chain. Up to ``PAIRWISE_LIMIT``
    sharers every pair is checked; beyond it, consecutive sharers in a
    canonical topological order (a chain is fine iff every consecutive pair is).
    """
    pos = cx.pos
    chains: list[tuple[str, list[str]]] = []
    for (
        res,
        held,
    ) in cx.ix.holders().items():  # resources held by two or more steps, shared with analysis
        if len(held) <= PAIRWISE_LIMIT:
            sids = sorted(held, key=pos.__getitem__)
        else:
            lv = cx.levels()
            sids = sorted(held, key=lambda x: (lv[x], x))
        chains.append((res, sids))
    # Consecutive sharers first: when each is an ancestor of the next, the sharers form a chain.
    parents = cx.parents
    links = [(a, b) for _, sids in chains for a, b in zip(sids, sids[1:]) if a not in parents[b]]
    far = dict(zip(links, ancestor_queries(cx.ix, [(frozenset((a,)), b) for a, b in links])))
    linked = iter(
        [a in parents[b] or far[a, b] for _, sids in chains for a, b in zip(sids, sids[1:])]
    )
    pairs: list[tuple[str, str, str]] = []
    for res, sids in chains:
        broken = not all([next(linked) for _ in range(len(sids) - 1)])
        if not broken:
            continue
        if len(sids) <= PAIRWISE_LIMIT:
            pairs.extend((res, a, b) for i, a in enumerate(sids) for b in sids[i + 1 :])
        else:
            pairs.extend((res, a, b) for a, b in zip(sids, sids[1:]))
    answers = ancestor_queries(cx.ix, [(frozenset((a,)), b) for _, a, b in pairs])
    out = []
    for ok, (res, a, b) in zip(answers, pairs):
        if not ok:
            a, b = sorted((a, b), key=natural_key)
            out.append(
                finding(
                    "resource_conflict",
                    "static",
                    f"steps {a!r} and {b!r} both hold {res!r} and could run in parallel (neither depends on "
                    f"the other); a run never lets them overlap (the lower id goes first), which can "
                    f"stretch the schedule; to choose the order, add {a!r} to {b}.depends_on",
                    [a, b],
                    severity="warning",
                    where=f"{b}.resources",
                )
            )
    return out


def over_budget(step: Step, expansion: Sequence[Step]) -> Finding | None:
    """over_budget (a warning): the concrete steps of far step ``step`` exceed its budget (more steps, or
    durations adding up to more), or None.

    >>> far = Step("F", "migrate", horizon="far", budget={"steps": 1})
    >>> print(over_budget(far, [Step("F1", "a"), Step("F2", "b")]).message)  # doctest: +NORMALIZE_WHITESPACE
    the expansion of 'F' has 2 steps, over its budget of 1; the plan has grown past what was estimated:
    re-estimate, or split the goal
    """
    budget = step.budget
    if budget is None:
        return None
    over = []
    if budget.steps is not None and len(expansion) > budget.steps:
        over.append(f"{len(expansion)} steps, over its budget of {budget.steps}")
    total = sum(s.duration for s in expansion)
    if budget.duration is not None and total > budget.duration:
        over.append(f"durations adding up to {total:g}, over its budget of {budget.duration:g}")
    if not over:
        return None
    return finding(
        "over_budget",
        "static",
        f"the expansion of {step.id!r} has {' and '.join(over)}; the plan has grown past what was "
        f"estimated: re-estimate, or split the goal",
        [step.id, *(s.id for s in expansion)],
        severity="warning",
        where=f"{step.id}.budget",
    )


def step_static(cx: Context, contract: Contract | None) -> list[Finding]:
    """no_artifact, high_risk_unguarded, no_check, over_budget and (with a contract) forbidden_state."""
    out = []
    silent = "produces" in unstated_fields(cx.plan.source_format)
    unproductive: list[str] = []
    for sid, s in cx.steps.items():
        check = s.check
        # the same as bool(check.strip()), without the copy
        stated = bool(check) and not check.isspace()
        if stated and vacuous(check, s.action, step_id=sid, tool=s.tool):
            changes = writes(s, contract)
            out.append(
                finding(
                    "vacuous_check",
                    "static",
                    f"step {sid!r} has the check {s.check!r}, which only says the step ran: a check is a "
                    f"predicate about the world after it (what now holds, e.g. 'the isolation test "
                    f"passes'); rewrite {sid}.check"
                    + (" (it changes the world, so this refuses it)" if changes else ""),
                    [sid],
                    severity="error" if changes else "warning",
                    where=f"{sid}.check",
                )
            )
        elif not stated and writes(s, contract):
            out.append(
                finding(
                    "no_check",
                    "static",
                    f"step {sid!r} writes ({', '.join(s.resources) or s.tool}) but has no check: nothing "
                    f"says how to tell its change worked; state the completion predicate about the world "
                    f"in {sid}.check",
                    [sid],
                    severity="warning",
                    where=f"{sid}.check",
                )
            )
        if s.expands_to:
            overrun = over_budget(s, s.expands_to)
            if overrun is not None:
                out.append(overrun)
        if not s.produces and silent:
            unproductive.append(sid)
        elif not s.produces:
            out.append(
                finding(
                    "no_artifact",
                    "static",
                    f"step {sid!r} produces no fact, so no observation can show it succeeded and it "
                    f"cannot be accepted; list what its success establishes in {sid}.produces",
                    [sid],
                    severity="warning",
                    where=f"{sid}.produces",
                )
            )
        if s.risk == "high":
            missing = [
                n
                for n, v in (("rollback", s.rollback), ("approval", s.approval or ""))
                if not v.strip()
            ]
            if missing:
                out.append(
                    finding(
                        "high_risk_unguarded",
                        "static",
                        f"step {sid!r} is high risk but has no {' and no '.join(missing)}; give it "
                        f"{' and '.join(f'{sid}.{m}' for m in missing)} before it may run",
                        [sid],
                        where=f"{sid}.{missing[0]}",
                    )
                )
    if unproductive:
        out.append(
            unstated_note(
                "no_artifact",
                "static",
                cx.plan.source_format,
                "the facts a step produces",
                unproductive,
                "no observation can show that they succeeded",
                "a warning",
            )
        )
    forbidden = set(contract.forbidden_states) if contract else set()
    if forbidden:
        for sid, s in cx.steps.items():
            for fact in forbidden.intersection(s.produces):
                out.append(
                    finding(
                        "forbidden_state",
                        "static",
                        f"step {sid!r} produces {fact!r}, a state the contract forbids; remove the step or "
                        f"change it so {fact!r} never holds",
                        [sid],
                        where=f"{sid}.produces",
                    )
                )
    return out
