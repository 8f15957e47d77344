"""A teacher's answer bank: for every check of every lesson, answers with the verdict each must get.

One module per notebook (``lesson01`` ... ``lesson09``, ``lesson02b``) exposes ``BANK``: the check's name
(``"lesson01.check_ancestors"``) -> a list of :class:`Answer`. An answer's family says what it is and so
the verdict it must get, written down by the teacher, never asked of the check:

- ``right``: the answer the solutions give; ``form``: a right answer in another form (numbers as text,
  another order where order does not matter, a set for a list, a build-it written differently) -> passes;
- ``wrong``: off by one, a missing or extra element, the wrong kind, a crash -> fails;
- ``cheat:<kind>`` -> fails: ``import``, ``getattr``, ``importlib``, ``stored`` (the library's own
  algorithm by that route), ``hardcoded`` (the visible example's answer), ``identity`` (the same work
  renamed, an object equal to anything), ``lookup`` (a table of the library's answers to the check's fixed
  random cases, made before the check runs and keyed on the plan's text, ids or edges, on the rank of its ids
  (its shape, which a renaming that keeps the order of names leaves), or handed out by the order of the
  calls), ``vacuous`` (a check that names nothing), ``budget`` (a gamed budget), ``everything`` (every choice at once).

tests/teaching/test_bank.py counts the bank (at least 25 answers per check, every family) and runs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

FAMILIES = ("right", "form", "wrong")
CHEATS = (
    "import",
    "getattr",
    "importlib",
    "stored",
    "hardcoded",
    "lookup",
    "identity",
    "vacuous",
    "budget",
    "everything",
)


@dataclass(frozen=True)
class Answer:
    """One answer: its family, why it has that verdict, and the arguments the check is called with."""

    family: str
    why: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    later: Any = (
        None  # for arguments costly to build: a function giving (args, kwargs) when the answer runs
    )

    def call(self) -> tuple[tuple, dict]:
        """The arguments the check is called with."""
        return self.later() if self.later is not None else (self.args, self.kwargs)

    def __post_init__(self) -> None:
        kind = self.family.partition(":")[2]
        assert self.family in FAMILIES or (self.family.startswith("cheat:") and kind in CHEATS), (
            self.family
        )

    @property
    def passed(self) -> bool:
        """The verdict this answer must get: right answers in any form pass, wrong answers and cheats fail."""
        return self.family in ("right", "form")


def a(family: str, why: str, *args: Any, **kwargs: Any) -> Answer:
    """An answer of ``family`` (see the module's docstring), the check called with ``args`` and ``kwargs``."""
    return Answer(family, why, args, kwargs)


class Anything:
    """An identity cheat: equal to every value, hashed like none (a check comparing with == is fooled)."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return 0

    def __contains__(self, item: object) -> bool:
        return True

    def __repr__(self) -> str:
        return "Anything()"


class EqualStr(str):
    """An identity cheat that is a str: equal to every string."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = str.__hash__

    def strip(self, *a: Any) -> EqualStr:
        return EqualStr(str.strip(self, *a))

    def lower(self) -> EqualStr:
        return EqualStr(str.lower(self))


def later(family: str, why: str, make: Any) -> Answer:
    """An answer whose arguments ``make() -> (args, kwargs)`` builds when it runs (an ablation, say)."""
    return Answer(family, why, later=make)


def value_cheats(put: Any, choices: list | None = None) -> list[Answer]:
    """Cheats a value answer must refuse, each given through ``put(value) -> (args, kwargs)``: objects equal
    to everything; every choice at once."""
    values = [
        ("cheat:identity", "an object equal to every value", Anything()),
        ("cheat:identity", "a str equal to every string", EqualStr("S0")),
    ]
    if choices is not None:
        values.append(("cheat:everything", "every choice at once", list(choices)))
    return [Answer(family, why, *put(value)) for family, why, value in values]


#: test_unplugged's routes -> the cheat family each is an instance of
_ROUTE_FAMILY = {
    "direct": "import",
    "getattr": "getattr",
    "importlib": "importlib",
    "stored in a dict": "stored",
    "functools.partial": "stored",
    "lambda wrapper": "stored",
    "public wrapper": "import",
    "caught": "import",
}


def library_cheats(build: str) -> list[Answer]:
    """The build-it ``build`` answered by the library's own function, by every route test_unplugged knows."""
    from tests.teaching.test_unplugged import CHEATS as UNPLUGGED, routes

    make = UNPLUGGED[build][2]
    return [
        *(
            Answer(
                f"cheat:{_ROUTE_FAMILY[route]}",
                f"the library's own {UNPLUGGED[build][1]} by {route}",
                (make(reach),),
            )
            for route, reach in routes(build)
        ),
        Answer(
            "cheat:stored",
            "the check's expected answer read from its own frame",
            (_from_the_checks_frame,),
        ),
        Answer("cheat:stored", "the check's oracle read from its own frame", (_the_checks_oracle,)),
    ]


def _checks_local(name: str) -> Any:
    import sys

    frame = sys._getframe(2)
    while frame is not None:
        if name in frame.f_locals:
            return frame.f_locals[name]
        frame = frame.f_back
    raise LookupError(name)


def _from_the_checks_frame(*case: Any) -> Any:
    return _checks_local("expected")


def _the_checks_oracle(*case: Any) -> Any:
    return _checks_local("oracle")(*case)


def build_it(build: str, file: str, name: str) -> Answer:
    """The reference solution of a build-it, read from notebooks/solutions."""
    from tests.teaching.test_unplugged import solution

    return Answer("right", f"notebooks/solutions/{file}: {name}", (solution(file, name),))


def harvest(test: Any, family: str, put: Any) -> list[Answer]:
    """The answers an existing parametrized test already runs, registered here rather than copied: each row
    of ``test``'s parametrize mark given to ``put(**row) -> (args, kwargs)``, of ``family``. Rows holding a
    generator (read once, by the test itself) are left to the test."""
    import types

    from _pytest.mark.structures import ParameterSet

    (mark,) = [m for m in getattr(test, "pytestmark", []) if m.name == "parametrize"]
    names, rows = mark.args[0], mark.args[1]
    names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    out = []
    for row in rows:
        values = (
            row.values if isinstance(row, ParameterSet) else (row if len(names) > 1 else (row,))
        )
        if any(isinstance(v, types.GeneratorType) for v in values):
            continue
        args, kwargs = put(**dict(zip(names, values)))
        out.append(
            Answer(
                family,
                f"{test.__module__.rpartition('.')[2]}.{test.__name__}: {values!r:.80}",
                args,
                kwargs,
            )
        )
    return out


def _edges(plan: Any) -> Any:
    """A plan by its ids and edges (and what each step needs, makes, is and lasts, and the plan's goal, version
    and contract): a key a lookup cheat may use."""
    return tuple(
        sorted(
            (
                s.id,
                tuple(sorted(s.depends_on)),
                tuple(s.requires),
                tuple(s.produces),
                s.kind,
                s.duration,
            )
            for s in plan.steps
        )
    ) + ((plan.goal, plan.version, repr(plan.contract)),)


def _key(by: Any, case: tuple) -> tuple:
    from planviz import Plan

    return tuple(
        by(x)
        if isinstance(x, Plan)
        else tuple(sorted(x))
        if isinstance(x, (set, frozenset))
        else repr(x)
        for x in case
    )


def lookups(cases: Any, answer: Any) -> list[Answer]:
    """``cheat:lookup`` answers: the library's ``answer(*case)`` to each of the check's fixed random ``cases``
    (importable, e.g. ``ancestor_cases()``), computed before the check runs and kept in a table keyed on the
    plan's text (``dump_plan``) or on its ids and edges; while the check runs nothing of the library is called
    (the tripwire sees nothing), so only cases the table does not know can catch it."""
    from planviz import dump_plan

    def make(by: Any) -> Any:
        def cheat() -> tuple:
            table = {_key(by, tuple(case)): answer(*case) for case in cases()}
            return (lambda *case: table[_key(by, case)],), {}

        return cheat

    return [
        Answer(
            "cheat:lookup",
            "the library's answers to the check's cases, looked up by the plan's text",
            later=make(dump_plan),
        ),
        Answer(
            "cheat:lookup",
            "the library's answers to the check's cases, looked up by the plan's ids and edges",
            later=make(_edges),
        ),
        rank_lookup(cases, answer),
        goal_lookup(cases, answer),
        order_lookup(cases, answer),
    ]


def _rank_names(case: tuple) -> dict[str, str]:
    """The case's step ids and facts by rank (natural order): what a renaming that keeps the order cannot hide."""
    from planviz import Plan
    from planviz.plan.model import natural_key

    plans = [x for x in case if isinstance(x, Plan)]
    ids = sorted({s.id for p in plans for s in p.steps}, key=natural_key)
    facts = sorted(
        {f for p in plans for s in p.steps for f in (*s.requires, *s.produces)}, key=natural_key
    )
    return {
        **{f: f"fact{i}" for i, f in enumerate(facts)},
        **{x: f"ID{i}" for i, x in enumerate(ids)},
    }


def _renamer(names: dict[str, str]) -> Any:
    import re

    from planviz import Plan
    from planviz.teaching.agreement import Renaming

    class Names(Renaming):
        def _rename(self, value: Any) -> Any:
            if isinstance(value, dict):
                return {self.rename(k): self.rename(v) for k, v in value.items()}
            if isinstance(value, Plan):  # the goal as it was: only names change
                return super()._rename(value).replace(goal=value.goal)
            return super()._rename(value)

    out = Names((), seed=0)
    out.names = dict(names)
    out._pattern = (
        re.compile(
            r"(?<![\w.])("
            + "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
            + r")(?!\w)"
        )
        if names
        else None
    )
    return out


def _shape(plan: Any) -> Any:
    """A plan by its shape: ids and edges as :func:`_edges` has them, without the goal (its number is fresh)."""
    return _edges(plan)[:-1] + ((plan.version, repr(plan.contract)),)


def rank_lookup(cases: Any, answer: Any) -> Answer:
    """A ``cheat:lookup`` keyed on the shape of the case: its ids and facts replaced by their rank (the order a
    renaming that keeps the natural order of names leaves as it was), the library's answer stored in rank
    names and renamed back to the names asked."""
    from planviz import Plan

    def cheat() -> tuple:
        table = {}
        for case in cases():
            to_rank = _renamer(_rank_names(tuple(case)))
            ranked = tuple(to_rank.rename(x) for x in case)
            table[_key(_shape, ranked)] = to_rank.rename(answer(*case))

        def student(*case: Any) -> Any:
            ranks = _rank_names(case)
            ranked = tuple(_renamer(ranks).rename(x) for x in case)
            got = _renamer({v: k for k, v in ranks.items()}).rename(table[_key(_shape, ranked)])
            plan = next(x for x in case if isinstance(x, Plan))
            return got.replace(goal=plan.goal) if isinstance(got, Plan) else got

        return (student,), {}

    return Answer(
        "cheat:lookup",
        "the library's answers to the check's cases, looked up by the rank of their ids and facts",
        later=cheat,
    )


def order_lookup(cases: Any, answer: Any) -> Answer:
    """A ``cheat:lookup`` keyed on nothing the case holds: the library's answers to the check's cases in the
    order the check asks them, the n-th call given the n-th answer renamed by the rank of the names asked."""
    from planviz import Plan

    def cheat() -> tuple:
        stored = []
        for case in cases():
            to_rank = _renamer(_rank_names(tuple(case)))
            stored.append(to_rank.rename(answer(*case)))
        calls = iter(stored)

        def student(*case: Any) -> Any:
            ranks = _rank_names(case)
            got = _renamer({v: k for k, v in ranks.items()}).rename(next(calls))
            plan = next(x for x in case if isinstance(x, Plan))
            return got.replace(goal=plan.goal) if isinstance(got, Plan) else got

        return (student,), {}

    return Answer(
        "cheat:lookup",
        "the library's answers to the check's cases, given back in the order the check asks",
        later=cheat,
    )


def _reshaped(value: Any, how: str) -> Any:
    """``value`` (a build-it's return) in another container of the same content, by ``how``."""
    if isinstance(value, (set, frozenset)):
        return {
            "list": lambda v: sorted(v, reverse=True),
            "tuple": lambda v: tuple(sorted(v)),
            "other": lambda v: dict.fromkeys(sorted(v)).keys(),
        }[how](value)
    if isinstance(value, list):
        inner = [_reshaped(x, how) if isinstance(x, (set, frozenset)) else x for x in value]
        return tuple(inner) if how == "tuple" else inner
    if isinstance(value, tuple) and how == "list" and not hasattr(value, "_fields"):
        return list(value)
    if isinstance(value, dict):
        return {
            k: list(v) if isinstance(v, tuple) and how == "list" else v for k, v in value.items()
        }
    return value


def build_it_forms(build: str, file: str, name: str) -> list[Answer]:
    """``form`` answers generated from the reference solution: its answer returned in other containers (a set as
    a list in reverse order, a sorted tuple, a dict's keys; a list as a tuple, its sets reshaped; a pair as a
    list). Each holds the same answer, so each must pass."""
    from tests.teaching.test_unplugged import solution

    def make(how: str) -> Any:
        def cheat() -> tuple:
            solve = solution(file, name)
            return (lambda *case: _reshaped(solve(*case), how),), {}

        return cheat

    return [
        Answer("form", f"notebooks/solutions/{file}: {name}, its answer as {how}", later=make(how))
        for how in ("list", "tuple", "other")
    ]


def goal_lookup(cases: Any, answer: Any) -> Answer:
    """A ``cheat:lookup`` keyed on the number in the plans' goals: a renaming that wrote a seeded plan's ``k`` as
    ``k * 1000 + n`` let ``// 1000`` say which seeded plan was asked; with the ranks of the names asked (and of
    anything else the case holds), the stored answer is renamed back."""
    import re

    from planviz import Plan

    def index(case: tuple, asked: bool) -> tuple:
        out = []
        for x in case:
            if isinstance(x, Plan):
                found = re.search(r"\d+$", x.goal)
                k = x.goal if found is None else int(found[0]) // 1000 if asked else int(found[0])
                out.append((k, x.version))
        return tuple(out)

    def cheat() -> tuple:
        table = {}
        for case in cases():
            to_rank = _renamer(_rank_names(tuple(case)))
            ranked = tuple(to_rank.rename(x) for x in case)
            rest = _key(repr, tuple(x for x in ranked if not isinstance(x, Plan)))
            table[index(tuple(case), False), rest] = to_rank.rename(answer(*case))

        def student(*case: Any) -> Any:
            ranks = _rank_names(case)
            ranked = tuple(_renamer(ranks).rename(x) for x in case)
            rest = _key(repr, tuple(x for x in ranked if not isinstance(x, Plan)))
            got = _renamer({v: k for k, v in ranks.items()}).rename(table[index(case, True), rest])
            plan = next(x for x in case if isinstance(x, Plan))
            return got.replace(goal=plan.goal) if isinstance(got, Plan) else got

        return (student,), {}

    return Answer(
        "cheat:lookup",
        "the library's answers to the check's cases, looked up by the number in the plan's goal",
        later=cheat,
    )
