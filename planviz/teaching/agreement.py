"""Build it, then check it: a student's function against planviz on a few hundred random plans.

The plans are small (1 to 8 steps, ids ``A``..``H``) and grow with the case
number, so the first disagreement found is on a plan small enough to read.
File order is shuffled, so a function that trusts the order of the file is
caught; facts are drawn from a pool of five, so some are required but never
produced, and some steps wait on each other's facts. The plans are seeded;
each check call then asks them under fresh names (:func:`fresh_names`: step
ids and facts drawn from ``os.urandom``, in their natural order), so a table
of the library's answers made before the check cannot look them up; and
:data:`FRESH` more plans of shapes drawn for the call are asked after them, so
neither can a table keyed on their shape (the rank of each id, which the
renaming keeps). A
function that reads the plan gets the same verdict every time; the verdict
shows the names it was asked with.

>>> plans = random_plans(300)
>>> len(plans), len(plans[0].steps), max(len(p.steps) for p in plans)
(300, 1, 8)
>>> first_disagreement([(1, 2), (3, 4)], lambda a, b: a + b, lambda a, b: a * b if a > 1 else a + b)
((3, 4), 12, 7)
"""

from __future__ import annotations

import os
import random
import re
import string
from dataclasses import fields, is_dataclass, replace
from typing import Any, Callable, Iterable, Sequence

import networkx as nx

from planviz.pictures.drawing import render
from planviz.plan.model import Contract, Plan, Step, natural_key
from planviz.structure.graph import to_graph
from planviz.teaching.answers import Unreadable, ids, short
from planviz.teaching.feedback import Feedback, is_blank, right, unanswered, wrong
from planviz.teaching.guards import (
    ALLOWED,
    FORBIDDEN,
    LibraryUsed,
    forbidden,
    library_calls,
    used_message,
)

__all__ = [
    "random_plans",
    "ancestor_cases",
    "reach_cases",
    "first_disagreement",
    "plan_text",
    "fresh_names",
    "Renaming",
    "IDS",
    "FACTS",
    "FRESH",
]

IDS = tuple("ABCDEFGH")
#: How many cases of fresh shapes (on a seed drawn for the call) a check asks after its fixed ones.
FRESH = 40
FACTS = ("p", "q", "r", "s", "t")


def random_plans(count: int, *, seed: int = 2024, facts: bool = False) -> list[Plan]:
    """``count`` random acyclic plans, smallest first; with ``facts``, steps also require and produce facts."""
    rng = random.Random(seed)
    out = []
    for k in range(count):
        n = min(len(IDS), 1 + k * len(IDS) // max(count // 2, 1))
        order = rng.sample(IDS, n)  # a random topological order
        steps = []
        for i, sid in enumerate(order):
            deps = sorted(d for d in order[:i] if rng.random() < 0.4)
            made = sorted(rng.sample(FACTS, rng.randint(0, 2))) if facts else []
            needed = sorted(set(rng.sample(FACTS, rng.randint(0, 2))) - set(made)) if facts else []
            steps.append(Step(sid, f"step {sid}", depends_on=deps, requires=needed, produces=made))
        rng.shuffle(steps)  # the file order says nothing about the dependencies
        out.append(Plan(f"random plan {k}", steps))
    return out


def ancestor_cases(count: int = 300, seed: int = 2024) -> list[tuple[Plan, str]]:
    """(plan, step id) for every step of ``count`` random plans."""
    return [(plan, sid) for plan in random_plans(count, seed=seed) for sid in sorted(plan.ids)]


def reach_cases(
    count: int = 300, seed: int = 2024
) -> list[tuple[Plan, frozenset[str], frozenset[str]]]:
    """(plan, completed, facts held) for ``count`` random plans: a run stopped part-way, often after a
    fact was withdrawn (a completed step's fact no longer held) or with a fact given from the start."""
    rng = random.Random(seed + 1)
    cases = []
    for plan in random_plans(count, seed=seed, facts=True):
        order = list(nx.lexicographical_topological_sort(to_graph(plan)))
        # a prefix: every dependency done first
        completed = frozenset(order[: rng.randint(0, len(order))])
        held = {f for sid in completed for f in plan.step(sid).produces}
        if held and rng.random() < 0.6:
            # withdrawn: a completed step's fact no longer holds
            held.discard(rng.choice(sorted(held)))
        if rng.random() < 0.3:
            held.add(rng.choice(FACTS))  # given from the start
        cases.append((plan, completed, frozenset(held)))
    return cases


def first_disagreement(
    cases: Iterable[Sequence[Any]],
    student: Callable[..., Any],
    oracle: Callable[..., Any],
    judge: Callable[[Sequence[Any], Any, Any], bool] | None = None,
) -> tuple[Sequence[Any], Any, Any] | None:
    """The first case where ``student(*case)`` differs from ``oracle(*case)``: (case, expected, got), or None.

    ``got`` is the exception when the student's function raised one. ``judge(case, expected, got)`` says whether an
    answer to ``case`` is right when equality is not the test (a topological order: any valid one).
    """
    for case in cases:
        expected = oracle(*case)
        try:
            got = student(*case)
        except Exception as exc:  # the student's code: any exception is an answer to show
            return case, expected, exc
        if not (judge(case, expected, got) if judge is not None else got == expected):
            return case, expected, got
    return None


def plan_text(plan: Plan) -> str:
    """One line per step, in file order: ``B  after A, C · needs p · makes q``."""
    lines = []
    for s in plan.steps:
        parts = [f"after {', '.join(s.depends_on)}" if s.depends_on else "after nothing"]
        if s.requires:
            parts.append(f"needs {', '.join(s.requires)}")
        if s.produces:
            parts.append(f"makes {', '.join(s.produces)}")
        lines.append(f"  {s.id}  " + " · ".join(parts))
    return "\n".join(lines)


def agreement(
    exercise: str,
    student: Any,
    oracle: Callable[..., Any],
    cases: Sequence[Sequence[Any]],
    *,
    name: str,
    question: Callable[..., str],
    hint: Callable[..., str],
    build: str | None = None,
    read: Callable[[Any], Any] | None = None,
    judge: Callable[[Sequence[Any], Any, Any], bool] | None = None,
    say: Callable[[Sequence[Any], Any, Any], str] | None = None,
    returns: str = "a set of step ids",
    fresh: Callable[[int, int], Sequence[Sequence[Any]]] | None = None,
) -> Feedback:
    """Compare ``student`` with ``oracle`` on every case and say so: a :class:`Feedback`.

    ``build`` names the build-it (a key of :data:`~planviz.teaching.guards.FORBIDDEN`): an answer that
    calls the library's own algorithm for it fails, kindly, before any case is asked (read from its code)
    or when it runs (the algorithms raise while it runs). ``read`` turns what the student returned into an
    answer (default: a set of step ids; Step objects and other types are a "not yet" with a hint, never a
    crash); ``judge(case, expected, answer)`` says whether it is right (default: equal); ``say(case, expected,
    answer)`` words a wrong answer. On the first disagreement the feedback shows the plan (as text and as a picture),
    the question asked (``question(*case)``), what planviz answers and what the student's function
    answered, and ``hint(case, expected, got)``.

    ``fresh(count, seed)`` makes more cases like ``cases`` (the maker of ``cases`` itself): :data:`FRESH` of
    them, on a seed drawn for this call, are asked after ``cases``, so a table keyed on anything the fixed cases
    show (their text, their ids, or their shape: the rank of each id, which renaming keeps) meets plans it
    does not hold.
    """
    if fresh is not None:
        cases = [*cases, *fresh(FRESH, random.Random(os.urandom(16)).randrange(1 << 30))]
    # asked under names drawn for this call: no table made beforehand knows them
    cases = fresh_names(cases)
    if is_blank(student):
        return unanswered(
            exercise,
            f"define your function {name}(...) in the cell above and pass it here",
            "write it, run the cell, then run this check again",
        )
    if not callable(student):
        return wrong(
            exercise,
            f"expected a function, got {type(student).__name__} {short(student)}",
            f"pass the function itself, not what it returns: check_{name}({name})",
        )
    names = FORBIDDEN.get(build or "", ())
    called = library_calls(student, names) if names else ()
    if called:
        return wrong(exercise, *used_message(name, called))
    reader = read or _id_set

    allowed = ALLOWED.get(build or "", ())
    answers: list[Any] = []

    # the student's function on every case, the library unplugged once for them all
    def run_all() -> None:
        for case in cases:
            # the oracle's cached structure (its topological order) is not the student's to read
            for item in case:
                if isinstance(item, Plan):
                    item.__dict__.pop("_planviz_index", None)
            try:
                answers.append(student(*case))
            except Exception as exc:  # the student's code: any exception is an answer to show
                answers.append(exc)
                return

    try:
        if build:
            with forbidden(names, allowed):
                run_all()
        else:
            run_all()
    except LibraryUsed as exc:
        return wrong(exercise, *used_message(name, exc.name))
    replies = iter(answers)

    def ask(*case: Any) -> Any:
        got = next(replies)
        if isinstance(got, Exception):
            raise got
        return reader(got)

    found = first_disagreement(list(cases)[: len(answers)], ask, oracle, judge)
    plans = len({id(case[0]) for case in cases})
    if found is None:
        return right(
            exercise,
            f"your {name} agrees with planviz on all {len(cases)} questions about "
            f"{plans} random plans of 1 to {len(IDS)} steps.",
        )
    case, expected, got = found
    if isinstance(got, LibraryUsed):
        return wrong(exercise, *used_message(name, got.name))
    number = next(i for i, c in enumerate(cases) if c is case) + 1
    if isinstance(got, Exception):
        said = f"your function raised {type(got).__name__}: {got}"
    elif isinstance(got, Unreadable):
        said = f"your function returned {got.why}"
    elif got is None:
        said = f"your function returned None; did it reach a return statement with {returns}?"
    elif say is not None:
        said = say(case, expected, got)
    else:
        said = (
            f"planviz says {_ids(expected)}; yours says {_ids(got)}"
            + (f" (missing {_ids(expected - got)})" if expected - got else "")
            + (f" (extra {_ids(got - expected)})" if got - expected else "")
        )
    message = (
        f"the first disagreement is question {number} of {len(cases)}, on this plan (file order):\n"
        f"{plan_text(case[0])}\n{question(*case)}: {said}"
    )
    try:
        tip = hint(case, expected, got)
    except Exception:  # a hint must never turn a verdict into a crash
        tip = ""
    return wrong(exercise, message, tip, picture=_picture(case[0]))


def _id_set(value: Any) -> Any:
    """The student's returned collection of ids as a frozenset, or an Unreadable saying what it was instead."""
    if value is None:
        return None
    if isinstance(value, str):
        return Unreadable(f"str {short(value)}; return a set of step ids, even for one step")
    out = ids(value)
    if isinstance(out, Unreadable):
        return Unreadable(f"{type(value).__name__} {short(value)}: {out.why}")
    return out


def _picture(plan: Plan) -> Any:
    try:
        return render(plan, highlight=())
    except Exception:  # a plan with a cycle has no layered picture everywhere: the text says it all
        return None


def _ids(items: Iterable[Any]) -> str:
    shown = sorted(str(x) for x in items)
    return "{" + ", ".join(shown) + "}" if shown else "nothing"


_VERSIONED = re.compile(r"(.+)\.v\d+")


class Renaming:
    """Fresh names for one check call: step ids (their natural order kept, so tie-breaks by id still hold), facts
    (their order kept) and the number in a goal, drawn from ``os.urandom``; a student cannot know them beforehand.

    ``rename(value)`` renames a plan (its steps, links, texts and contract), a contract, a step id or fact, a
    text naming them, or a collection of these; anything else is kept. The same object is renamed once.

    >>> names = Renaming(["A", "B", "C"], ["p", "q"], seed=1)
    >>> new = [names.rename(x) for x in "ABC"]
    >>> new == sorted(new), len(set(new)), names.rename("step A after B") == f"step {new[0]} after {new[1]}"
    (True, 3, True)
    """

    def __init__(self, ids: Iterable[str], facts: Iterable[str] = (), *, seed: Any = None) -> None:
        rng = random.Random(os.urandom(16) if seed is None else seed)
        # X.v2 follows X
        ids = {i for i in ids if not ((m := _VERSIONED.fullmatch(i)) and m[1] in ids)}
        self.names = {
            **_ordered(sorted(set(facts), key=natural_key), string.ascii_lowercase, rng),
            **_ordered(sorted(set(ids), key=natural_key), string.ascii_uppercase, rng),
        }
        self._rng = rng
        self._goals: dict[str, str] = {}  # a goal's number -> a fresh one, drawn, unrelated to it
        self._pattern = (
            re.compile(
                r"(?<![\w.])("
                + "|".join(map(re.escape, sorted(self.names, key=len, reverse=True)))
                + r")(?!\w)"
            )
            if self.names
            else None
        )
        self._done: dict[int, Any] = {}

    def text(self, value: str) -> str:
        """``value`` with every whole id or fact in it renamed."""
        if value in self.names:
            return self.names[value]
        return self._pattern.sub(lambda m: self.names[m[1]], value) if self._pattern else value

    def _goal_number(self, number: str) -> str:
        """A fresh number for a goal's ``number``: drawn, distinct per number, so it tells nothing of which plan
        (the ``k`` of ``random plan k``) was asked."""
        if number not in self._goals:
            taken = set(self._goals.values())
            while (drawn := str(self._rng.randrange(10**5, 10**6))) in taken:
                pass
            self._goals[number] = drawn
        return self._goals[number]

    def rename(self, value: Any) -> Any:
        """``value`` under the fresh names (see the class)."""
        key = id(value)
        if key in self._done:
            return self._done[key][1]
        out = self._rename(value)
        self._done[key] = (value, out)  # the original is kept alive so its id is not reused
        return out

    def _rename(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, (frozenset, set, tuple, list)):
            return type(value)(self.rename(x) for x in value)
        if isinstance(value, Plan):
            goal = re.sub(r"\d+$", lambda m: self._goal_number(m[0]), value.goal)
            return value.replace(
                goal=goal,
                steps=tuple(self.rename(s) for s in value.steps),
                invalidated=self.rename(value.invalidated),
                contract=self.rename(value.contract),
                parent=self.rename(value.parent),
            )
        if isinstance(value, Step):
            return replace(
                value,
                id=self.text(value.id),
                action=self.text(value.action),
                expected_evidence=self.text(value.expected_evidence),
                check=self.text(value.check),
                depends_on=self.rename(value.depends_on),
                requires=self.rename(value.requires),
                produces=self.rename(value.produces),
                expands_to=self.rename(value.expands_to),
                revises=self.rename(value.revises),
            )
        if isinstance(value, Contract):
            return replace(
                value,
                required=self.rename(value.required),
                forbidden=self.rename(value.forbidden),
                must_precede=self.rename(value.must_precede),
            )
        # a question's record: rename what it holds
        if is_dataclass(value) and not isinstance(value, type):
            return replace(
                value,
                **{f.name: self.rename(getattr(value, f.name)) for f in fields(value) if f.init},
            )
        return value


def _ordered(names: list[str], alphabet: str, rng: random.Random) -> dict[str, str]:
    """An order-keeping map of ``names`` to fresh ones: single letters of ``alphabet`` when they all are
    single letters of it, else one random letter and increasing two-digit numbers (``S0, S1`` -> ``K14, K52``)."""
    if not names:
        return {}
    if all(len(n) == 1 and n in alphabet for n in names) and len(names) <= len(alphabet):
        return dict(zip(names, sorted(rng.sample(alphabet, len(names)))))
    letter = rng.choice(alphabet.upper())
    numbers = sorted(rng.sample(range(10, 100), len(names)))
    return {n: f"{letter}{k}" for n, k in zip(names, numbers)}


def fresh_names(cases: Sequence[Sequence[Any]], *, seed: Any = None) -> list[tuple[Any, ...]]:
    """``cases`` with their plans' step ids (and ``A``..``H``, which contracts may name), facts and goals
    renamed by one :class:`Renaming` drawn for this call; the oracle, the student and the verdict all read them.

    >>> old = random_plans(1)[0]
    >>> [(plan, sid)] = fresh_names([(old, old.ids[0])], seed=3)
    >>> plan.ids == (sid,), plan.ids != old.ids, plan.goal != old.goal
    (True, True, True)
    """
    plans = [item for case in cases for item in case if isinstance(item, Plan)]
    ids = {s.id for p in plans for s in p.steps} | (
        set(IDS) if all(len(s.id) == 1 for p in plans for s in p.steps) else set()
    )
    facts = {f for p in plans for s in p.steps for f in (*s.requires, *s.produces)}
    names = Renaming(ids, facts if all(len(f) == 1 for f in facts) else (), seed=seed)
    return [tuple(names.rename(item) for item in case) for case in cases]
