"""Plan revisions: re-issue voided work under new ids, and check what a revision changes.

A revision is a new :class:`planviz.Plan` version: ``version`` + 1, its
``parent``, the ``trigger`` (the evidence that caused it) and the ids it
``invalidated``. Completed ids keep their meaning, so redone work gets new ids
(``S3`` becomes ``S3.v2``) whose ``revises`` field names the step they replace.
The default replanner, :func:`reissue`, does exactly that for a voided subgraph.

>>> from planviz import Plan, Step
>>> a = Step("A", "reproduce", expected_evidence="failing test", produces="seen")
>>> b = Step("B", "patch", expected_evidence="diff", depends_on="A", requires="seen", produces="patched")
>>> v2 = reissue(Plan("fix", [a, b]), {"B"}, "the patch broke the build")
>>> v2.ids, v2.version, v2.invalidated, v2.step("B.v2").revises
(('A', 'B.v2'), 2, ('B',), 'B')
>>> changed_completed(Plan("fix", [a, b]), v2, {"A"})
()
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import AbstractSet, Iterable, Mapping, Protocol

from planviz.checks.validation import refusal
from planviz.errors import PlanvizTypeError, expect_names, show_value
from planviz.plan.arguments import expect_plan
from planviz.plan.identity import work_keys
from planviz.plan.lineage import all_ids, lineage_roots, versions
from planviz.plan.model import Contract, Plan
from planviz.plan.placeholder import rename_placeholders

__all__ = [
    "reissue",
    "redundant_work",
    "changed_completed",
    "complete_revision",
    "changed_invariants",
    "held_as_given",
    "broken_invariant",
]


class _HasFacts(Protocol):
    @property
    def completed(self) -> AbstractSet[str]: ...

    @property
    def facts(self) -> AbstractSet[str]: ...


def reissue(plan: Plan, voided: Iterable[str], trigger: str, drop: Iterable[str] = ()) -> Plan:
    """The default replanner: the same route with every voided step re-issued under a new id (except the
    voided steps in ``drop``, left out: work a new contract does not need).

    A voided step ``X`` becomes ``<root>.v<version>`` (``root`` being the
    original id it revises) with ``revises=X``; dependencies and ``{{X.field}}``
    placeholders that named a voided step are renamed with it (whatever the
    spacing inside the braces, see :mod:`planviz.plan.placeholder`). Every other step
    is kept as it is, so completed ids keep their meaning.

    Parameters
    ----------
    plan : Plan
        The version that failed.
    voided : iterable of str
        The ids the failure voided.
    trigger : str
        The evidence that caused the revision (kept as ``trigger``).

    Returns
    -------
    Plan
        Version + 1, its ``parent`` the old plan, ``invalidated`` the voided ids.

    Raises
    ------
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).

    Examples
    --------
    >>> from planviz import examples
    >>> new = reissue(examples.load("cache_isolation"), {"S3", "S4"}, "hit rate fell to zero")
    >>> new.version, new.ids, new.step("S3.v2").revises
    (2, ('S0', 'S1', 'S2', 'S3.v2', 'S4.v2'), 'S3')
    """
    plan = expect_plan(plan, "reissue")
    voided = set(expect_names(voided, "reissue", "voided"))
    dropped = voided.intersection(expect_names(drop, "reissue", "drop"))
    version = plan.version + 1
    taken = all_ids(plan)
    roots = lineage_roots(versions(plan))
    rename: dict[str, str] = {}
    for step in plan.steps:
        if step.id in voided and step.id not in rename and step.id not in dropped:
            base = f"{roots.get(step.id, step.id)}.v{version}"
            new, k = base, 2
            while new in taken:
                new, k = f"{base}.{k}", k + 1
            taken.add(new)
            rename[step.id] = new
    steps = []
    for step in plan.steps:
        if step.id in dropped:
            continue
        deps = tuple(rename.get(d, d) for d in step.depends_on if d not in dropped)
        args = rename_placeholders(step.arguments, rename, plan.by_id)
        if step.id in rename:
            steps.append(
                replace(step, id=rename[step.id], revises=step.id, depends_on=deps, arguments=args)
            )
        elif deps != step.depends_on or args != step.arguments:
            steps.append(replace(step, depends_on=deps, arguments=args))
        else:
            steps.append(step)
    return plan.replace(
        steps=tuple(steps),
        version=version,
        parent=plan,
        trigger=trigger,
        invalidated=tuple(sorted(voided & set(plan.ids))),
    )


def complete_revision(old: Plan, new: Plan, trigger: str, voided: Iterable[str]) -> Plan:
    """``new`` as a proper revision of ``old``: version, parent, trigger and invalidated filled in when missing.

    A user's replanner may return a bare plan; the controller records the
    lineage for it. A plan that already names ``old`` as its parent is kept.
    """
    if new.parent is old and new.version == old.version + 1:
        return new
    return new.replace(
        version=old.version + 1,
        parent=old,
        trigger=new.trigger if new.trigger and new.trigger != old.trigger else trigger,
        invalidated=new.invalidated
        if new.invalidated != old.invalidated and new.invalidated
        else tuple(sorted(set(voided) & set(old.ids))),
    )


def redundant_work(state: _HasFacts, revised: Plan, before: Plan | None = None) -> tuple[str, ...]:
    """Remaining steps of ``revised`` whose every produced fact is already held, or that are the same work
    (:mod:`planviz.plan.identity`: action, tool, arguments, requires, produces) as a completed step under
    another id: work that would be redone for nothing. ``before`` is the plan the completed ids belong to
    (default: ``revised``).

    Parameters
    ----------
    state : ExecutionState
        Anything with ``.completed`` and ``.facts``.
    revised : Plan
        The revision.

    Returns
    -------
    tuple of str
        The remaining steps whose every produced fact is already held.

    Raises
    ------
    PlanvizTypeError
        When ``revised`` is not a Plan.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from planviz import Plan, Step
    >>> p = Plan("g", [Step("A", "a", expected_evidence="e", produces="x"),
    ...                Step("B", "b", expected_evidence="e", produces="y")])
    >>> redundant_work(SimpleNamespace(completed=frozenset(), facts=frozenset({"x"})), p)
    ('A',)
    """
    revised = expect_plan(revised, "redundant_work", "revised")
    before = None if before is None else expect_plan(before, "redundant_work", "before")
    if not (hasattr(state, "facts") and hasattr(state, "completed")):
        raise PlanvizTypeError(
            f"redundant_work(state=...) expects an ExecutionState (run.state, or anything with "
            f".facts and .completed), got {type(state).__name__} {show_value(state)}"
        )
    held = frozenset(state.facts)
    done = [i for i in state.completed if i in (before or revised)]
    done_work = set(work_keys(before or revised, done).values())
    remaining = [s.id for s in revised.steps if s.id not in state.completed]
    same = work_keys(revised, remaining) if done_work else {}
    return tuple(
        sid
        for sid in remaining
        if (revised.step(sid).produces and held.issuperset(revised.step(sid).produces))
        or same.get(sid) in done_work
    )


def changed_completed(old: Plan, new: Plan, completed: AbstractSet[str]) -> tuple[str, ...]:
    """Completed steps that ``new`` tries to redefine (same id, different work: action, tool, arguments,
    requires or produces, see :mod:`planviz.plan.identity`): such a revision is refused.

    Parameters
    ----------
    old : Plan
        The version that ran.
    new : Plan
        The proposed revision.
    completed : set of str
        Ids completed so far.

    Returns
    -------
    tuple of str
        The completed ids ``new`` redefines, in ``old``'s order.

    Raises
    ------
    PlanvizTypeError
        When ``old`` or ``new`` is not a Plan.

    Examples
    --------
    >>> from planviz import Plan, Step
    >>> a = Step("A", "reproduce", expected_evidence="e")
    >>> changed_completed(Plan("g", [a]), Plan("g", [replace(a, action="guess")]), {"A"})
    ('A',)
    """
    old = expect_plan(old, "changed_completed", "old")
    new = expect_plan(new, "changed_completed", "new")
    completed = frozenset(expect_names(completed, "changed_completed", "completed"))
    both = [s.id for s in new.steps if s.id in completed and s.id in old and old.step(s.id) != s]
    if not both:
        return ()
    was, now = work_keys(old, both), work_keys(new, both)
    return tuple(sid for sid in both if was[sid] != now[sid])


def changed_invariants(old: Plan, new: Plan, contract: Contract | None) -> str | None:
    """What revision ``new`` changes that only a goal change may change, or None: the goal, or the contract
    it carries (its milestones, forbidden steps and states, intent...). A revision that says anything is
    refused (``goal_changed_by_replan``).

    >>> from planviz import Step
    >>> changed_invariants(Plan("fix", [Step("A", "a")]), Plan("ship", [Step("A", "a")]), None)
    "the goal 'fix' became 'ship'"
    """
    if new.goal != old.goal:
        return f"the goal {old.goal!r} became {new.goal!r}"
    if new.contract is not None and new.contract != contract and new.contract != old.contract:
        was = contract if contract is not None else old.contract
        if was is None:
            return "it brings a contract of its own where the run had none"
        what = [
            f.name
            for f in fields(Contract)
            if getattr(new.contract, f.name) != getattr(was, f.name)
        ]
        return f"it changes the contract's {', '.join(what)}"
    return None


def held_as_given(contract: Contract | None, plan: Plan, held: Iterable[str]) -> Contract | None:
    """``contract`` for judging a revision mid-run: facts observations established are no longer in question
    (held facts a step of ``plan`` produces are obtainable, the others given), so work kept by a re-check
    is not refused for an input a new contract no longer lists. A contract listing no facts is kept as it is.
    """
    if contract is None or not (contract.given_facts or contract.obtainable_facts):
        return contract
    made = {f for s in plan.steps for f in s.produces}
    held = set(held)
    return replace(
        contract,
        given_facts=tuple(dict.fromkeys((*contract.given_facts, *sorted(held - made)))),
        obtainable_facts=tuple(dict.fromkeys((*contract.obtainable_facts, *sorted(held & made)))),
    )


def broken_invariant(
    old: Plan,
    new: Plan,
    contract: Contract | None,
    *,
    ran: Mapping[str, str],
    completed: AbstractSet[str],
    held: AbstractSet[str],
    goal_change: bool = False,
) -> tuple[str, str] | None:
    """The first rule revision ``new`` of ``old`` breaks, as (code, why), or None; the controller asks it of
    every revision, whoever proposed it, and refuses a revision that breaks one (the run stops with the code).

    The rules, stated once:

    - ``goal_changed_by_replan``: the goal, the contract and its safety invariants stay (unless ``goal_change``);
    - ``completed_removed``: a completed step is never removed (``completed``: the ids completed now): it
      is kept, or redone as the same work under a new id whose ``revises`` names it (counted as redone);
    - ``completed_redefined``: a completed id keeps its content, and an id that ever completed never names
      other work (``ran``: id -> its content, :mod:`planviz.plan.identity`, when it completed), whichever
      version dropped it in between;
    - ``premise_dropped``: a premise goes only with the observation that falsified it (it is no longer in
      ``held``, the facts held now);
    - and the revision validates (:func:`planviz.checks.validation.refusal`, the held facts as given).

    Examples
    --------
    >>> from planviz import Step
    >>> a, b = Step("A", "look", expected_evidence="e", produces="x"), Step("B", "use", requires="x",
    ...                                                                     expected_evidence="e", depends_on="A")
    >>> old = Plan("g", [a, b], premises=["p"])
    >>> broken_invariant(old, old.replace(steps=(b,)), None, ran={}, completed={"A"}, held={"p", "x"})[0]
    'completed_removed'
    >>> broken_invariant(old, old.replace(premises=()), None, ran={}, completed=set(), held={"p"})[0]
    'premise_dropped'
    >>> broken_invariant(old, old.replace(premises=()), None, ran={}, completed=set(), held=set()) is None
    True
    """
    swapped = None if goal_change else changed_invariants(old, new, contract)
    if swapped is not None:
        return "goal_changed_by_replan", (
            f"{swapped}; goal, contract and safety invariants stay fixed unless the goal changed"
        )
    gone = [sid for sid in old.ids if sid in completed and sid not in new]
    if gone:  # a completed step may only be redone as the same work under a new id that revises it
        redoing = [s.id for s in new.steps if s.revises in gone]
        now_keys = work_keys(new, redoing) if redoing else {}
        redone = {
            new.step(r).revises
            for r in redoing
            if now_keys.get(r) == ran.get(new.step(r).revises or "")
        }
        removed = [sid for sid in gone if sid not in redone]
    else:
        removed = []
    if removed:
        return "completed_removed", (
            f"it removes the completed step{'s' if len(removed) > 1 else ''} "
            f"{', '.join(map(repr, removed))}; completed work stays in every later version (or is redone "
            f"as the same work under a new id that revises it)"
        )
    named = [sid for sid in new.ids if sid in ran]
    now = work_keys(new, named) if named else {}
    other = [sid for sid in named if now.get(sid) != ran[sid]]
    if other:
        return "completed_redefined", (
            f"it redefines completed steps {', '.join(other)}: a completed id names "
            f"the work that completed under it, never other work; give new work a new id"
        )
    if not goal_change:
        dropped = [p for p in old.premises if p not in new.premises and p in held]
        if dropped:
            return "premise_dropped", (
                f"it drops the premise {dropped[0]!r}, which no observation falsified; a "
                f"premise goes only with the observation that falsified it"
            )
    why = refusal(new, held_as_given(contract, new, held))
    if why is not None:
        return why.code, why.message
    return None
