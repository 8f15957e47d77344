"""Big plans in bulk: the fast path of reading steps, and the garbage collector's pause.

:func:`planviz.plan.records.plan_from_dict` checks every field of every step
and names the first defect by its field path (the careful path). A plan of
100,000 well-formed steps should not pay for that machinery step by step, so
:func:`planviz_steps` first builds each step directly from a mapping whose
keys and values are exactly what the careful path accepts without a word
(plain ``str`` Unicode text, lists of it, finite durations, known choices,
plain-data arguments). Anything else, a step at a time, goes to the careful
path, which then either builds the same step or raises the same error it
always raised: the fast path only skips work it can prove would find nothing.
Checks it defers (the items of lists) run before any careful call, so the
first error reported is always the first in the file.

>>> from planviz.plan.records import plan_from_dict
>>> steps = [{"id": "A", "action": "a", "produces": ["x"]}, {"id": "B", "depends_on": "A", "requires": ["x"]}]
>>> plan = plan_from_dict({"goal": "g", "steps": steps})
>>> plan.step("B").depends_on, plan.step("A").duration
(('A',), 1.0)
"""

from __future__ import annotations

import gc
import math
from contextlib import contextmanager
from dataclasses import MISSING, fields
from functools import reduce
from itertools import chain, filterfalse
from operator import add
from typing import Any, Callable, Iterator, Sequence, TypeVar, cast

from planviz.errors import PlanFormatError
from planviz.io import limits
from planviz.io.plaindata import ARGUMENTS_DEPTH, as_duration, check_plain, copy_plain
from planviz.plan.fields import CHOICES, STEP_FIELDS
from planviz.plan.model import MAX_TOTAL_DURATION, Plan, Step

__all__ = [
    "planviz_steps",
    "built_steps",
    "schedule_rows",
    "schedule_plan",
    "ROW_FIELDS",
    "paused_gc",
    "all_text",
]

T = TypeVar("T")

_TEMPLATE = {f.name: f.default for f in fields(Step)}  # every field at its default, in field order
# a required id; arguments get a fresh dict each
_TEMPLATE.update(id=None, action="", arguments=None)
_KINDS = dict(STEP_FIELDS)
_LOG10_2 = math.log10(2)
_SMALL_INT = (
    2**60
)  # an integer below it in size has at most 19 digits: any digit limit in force allows it


def slot_filler(
    cls: type[T], *, from_mapping: bool = False, only: tuple[str, ...] | None = None
) -> Callable[..., T]:
    """A fast constructor of ``cls``, a frozen slotted dataclass, generated once from its fields.

    It takes the arguments of the dataclass's own ``__init__`` (field order, the same defaults; a field with a
    ``default_factory`` also takes None for a fresh default), or with ``from_mapping`` one dict holding every
    field by name, or with ``only`` those fields by position, every other at its default (a factory's called),
    and stores each as it is: no ``__post_init__``, so only for values already checked. The
    instance is filled in as a twin class with the same slots (plain slot stores: the frozen dataclass's way,
    one ``object.__setattr__`` per field, costs several times as much) that the last store turns into ``cls``.
    Written from ``dataclasses.fields``, it covers every field: a new field needs only its declaration.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True, slots=True)
    ... class Point:
    ...     x: int
    ...     y: int = 0
    >>> slot_filler(Point)(3), slot_filler(Point, from_mapping=True)({"x": 1, "y": 2})
    (Point(x=3, y=0), Point(x=1, y=2))
    >>> slot_filler(Point, only=("y", "x"))(2, 1)
    Point(x=1, y=2)
    """
    dataclass_: Any = cls
    names = [f.name for f in fields(dataclass_)]
    if tuple(names) != tuple(getattr(cls, "__slots__", ())):
        raise TypeError(
            f"slot_filler needs a slotted dataclass whose slots are its fields, got {cls.__name__}"
        )
    scope: dict[str, Any] = {"_cls": cls}
    params, body = [], []
    for f in fields(dataclass_):
        if f.kw_only and "*" not in params:
            params.append("*")
        if f.default is not MISSING:
            scope[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
        elif f.default_factory is not MISSING:
            scope[f"_f_{f.name}"] = f.default_factory
            params.append(f"{f.name}=None")
            body.append(f"if {f.name} is None: {f.name} = _f_{f.name}()")
        else:
            params.append(f.name)
    if from_mapping:
        params, body = ["d"], [f"self.{name} = d[{name!r}]" for name in names]
    elif only is not None:
        kept = [
            n for n in names if n not in only and f"_d_{n}" not in scope and f"_f_{n}" not in scope
        ]
        if kept or not set(only) <= set(names) or len(set(only)) != len(only):
            raise TypeError(
                f"slot_filler's only must name distinct fields of {cls.__name__} and every field without a "
                f"default: {only!r}"
            )
        params = list(only)
        body = [
            f"self.{n} = {n}"
            if n in only
            else f"self.{n} = _d_{n}"
            if f"_d_{n}" in scope
            else f"self.{n} = _f_{n}()"
            for n in names
        ]
    else:
        body += [f"self.{name} = {name}" for name in names]
    body.append("self.__class__ = _cls")
    code = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body)
    exec(code, scope)  # noqa: S102 (names are a dataclass's field names: identifiers)
    filling = type(
        f"_{cls.__name__}Filling",
        (),
        {
            "__slots__": dataclass_.__slots__,
            "__init__": scope["__init__"],
            "__module__": cls.__module__,
        },
    )
    return cast("Callable[..., T]", filling)


_filled_step = cast("Callable[[dict[str, Any]], Step]", slot_filler(Step, from_mapping=True))


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a pass allocates many acyclic objects.

    A 100k-step plan is hundreds of thousands of small containers (parsed
    data, steps, index entries); allocating them triggers full collections
    over the whole heap, and none of them form cycles. The collector's
    previous state is restored.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            if not gc.get_freeze_count():
                # What the pass kept goes to the oldest generation as it is (two list splices), not through a
                # young collection that would walk every object it made first (issue 28). Skipped when the
                # program froze objects itself (before a fork): unfreeze would hand them back.
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def planviz_steps(
    raw_steps: Sequence[Any],
    careful: Callable[[Any, tuple[Any, ...]], Step],
    path: tuple[Any, ...] = ("steps",),
) -> tuple[Step, ...]:
    """Planviz-shape steps (at field path ``path``): built directly when provably fine, else by ``careful``.

    ``careful(raw, path)`` is the field-by-field reader, which raises the located error.
    """
    steps = _fast(raw_steps, careful, path)
    # a deferred check failed: let the careful path find and name the first defect
    if steps is None:
        steps = [careful(raw, path + (i,)) for i, raw in enumerate(raw_steps)]
    return tuple(steps)


def _keywords(raw: dict[str, Any], path: tuple[Any, ...]) -> Step:
    return Step(**raw)


def built_steps(raw_steps: Sequence[dict[str, Any]]) -> tuple[Step, ...]:
    """Steps made by planviz itself from the fields of each (``Step(**fields)``), the fast way when provably the
    same: what an analysis builds by the thousand (the ideal schedule of a 100k-span run is 59k steps).

    >>> built_steps([{"id": "a", "action": "a", "depends_on": [], "duration": 2}]) == (Step("a", "a", duration=2),)
    True
    """
    return planviz_steps(raw_steps, _keywords)


#: The fields of a row of :func:`schedule_rows`, in order.
ROW_FIELDS = (
    "id",
    "action",
    "expected_evidence",
    "duration",
    "depends_on",
    "requires",
    "produces",
    "tool",
    "arguments",
)


_row_step = slot_filler(Step, only=ROW_FIELDS)  # the other fields at their defaults


def schedule_rows(rows: Sequence[tuple[Any, ...]]) -> tuple[Step, ...]:
    """The ideal schedule's steps, given as rows, each the values of :data:`ROW_FIELDS` in that order (no
    mapping per step): the steps :func:`built_steps` makes of the rows as mappings (it makes them when any value
    is not of the one shape: arguments nested or not plain, an empty id, text that is not Unicode), at a
    fraction of the cost.

    >>> row = ("a", "a", "ran", 2.0, [], [], "a.result", None, {"q": 1})
    >>> schedule_rows([row]) == built_steps([dict(zip(ROW_FIELDS, row))])
    True
    """
    return (
        _made(rows)
        if _plain_rows(rows)
        else built_steps([dict(zip(ROW_FIELDS, row)) for row in rows])
    )


def schedule_plan(goal: str, rows: Sequence[tuple[Any, ...]], *, time_unit: str = "") -> Plan:
    """``Plan(goal, schedule_rows(rows), time_unit=time_unit)``, its steps made when first read when every row is
    of the one shape :func:`schedule_rows` builds directly (each row is checked now, so a defect is raised here
    as ``schedule_rows`` raises it): a schedule whose makespan and path are read from the rows (hindsight's)
    makes no step nobody reads. The plan is stored as a version grown from an empty one (``plan/grown.py``'s
    form, which :class:`Plan` makes whole on first reading its steps) and reads the same as one made whole.

    >>> row = ("a", "a", "ran", 2.0, [], [], "a.result", None, {"q": 1})
    >>> plan = schedule_plan("g", [row])
    >>> len(plan), "steps" in vars(plan), plan == Plan("g", schedule_rows([row])), "steps" in vars(plan)
    (1, False, True, True)
    """
    if not _plain_rows(rows):
        return Plan(
            goal, built_steps([dict(zip(ROW_FIELDS, row)) for row in rows]), time_unit=time_unit
        )
    bound = reduce(add, [row[3] for row in rows], 0.0)  # Plan's own sum, in its order
    if bound > MAX_TOTAL_DURATION:  # Plan names the step past the limit
        return Plan(goal, _made(rows), time_unit=time_unit)
    plan = Plan(goal, (), time_unit=time_unit)
    d = plan.__dict__
    del d["steps"], d["_by_id"]
    d["_grown"] = (Plan(goal, ()), 0, _LaterSteps(rows), {})
    d["_length"], d["_bound"] = len(rows), bound
    return plan


class _LaterSteps:
    """The steps of checked rows, made when first read (as a grown plan's tail: sliced, measured)."""

    __slots__ = ("_rows", "_steps")

    def __init__(self, rows: Sequence[tuple[Any, ...]]) -> None:
        self._rows: Sequence[tuple[Any, ...]] | None = rows
        self._steps: tuple[Step, ...] | None = None

    def _steps_made(self) -> tuple[Step, ...]:
        if self._steps is None:
            self._steps = _made(cast("Sequence[tuple[Any, ...]]", self._rows))
            self._rows = None
        return self._steps

    def __len__(self) -> int:
        return len(self._rows) if self._rows is not None else len(self._steps_made())

    def __getitem__(self, at: Any) -> Any:
        return self._steps_made()[at]

    def __iter__(self) -> Iterator[Step]:
        return iter(self._steps_made())


def _plain_rows(rows: Sequence[tuple[Any, ...]]) -> bool:
    """Whether every row is of the one shape :func:`_made` builds directly (what :func:`built_steps` would build
    the same, without a word); False says nothing: :func:`built_steps` decides."""
    if limits.max_digits() < 20:  # a digit limit below what _flat_plain's small integers may need
        return False
    texts: list[str] = []
    lists: list[list[Any]] = []
    flat, inf = _flat_plain, math.inf
    for row in rows:
        sid, action, evidence, duration, depends_on, requires, produces, tool, arguments = row
        if (
            type(sid) is not str
            or not sid
            or type(action) is not str
            or type(evidence) is not str
            or type(produces) is not str
            or not (tool is None or type(tool) is str)
            or type(duration) is not float
            or not (0.0 <= duration < inf)
            or type(arguments) is not dict
            or (arguments and not flat(arguments, texts))
            or type(depends_on) is not list
            or type(requires) is not list
        ):
            return False
        texts += (sid, action, evidence, produces)
        if tool is not None:
            texts.append(tool)
        if depends_on:
            lists.append(depends_on)
        if requires:
            lists.append(requires)
    return all_text(texts, cast("list[tuple[Any, ...]]", lists))


def _made(rows: Sequence[tuple[Any, ...]]) -> tuple[Step, ...]:
    """The steps of rows :func:`_plain_rows` accepted, built directly (arguments copied, lists as tuples)."""
    new = _row_step
    return tuple(
        [
            new(
                sid,
                action,
                evidence,
                duration,
                tuple(depends_on),
                tuple(requires),
                (produces,),
                tool,
                dict(arguments),
            )
            for sid, action, evidence, duration, depends_on, requires, produces, tool, arguments in rows
        ]
    )


def _flat_plain(arguments: dict[str, Any], texts: list[str]) -> bool:
    """Whether ``arguments`` is flat plain data that :func:`check_plain` accepts for sure once its keys and
    strings, added to ``texts``, are Unicode text (string keys, values that are strings, None, booleans, small
    integers or finite floats, within the size cap), so ``dict(arguments)`` is its :func:`copy_plain`. False says
    nothing: the full check decides."""
    total = (
        2  # check_plain's count of characters written out: {} and each key, quoted, and each value
    )
    # the keys and strings go to texts as they are read (on False the caller drops texts: the full check decides)
    append = texts.append
    for key, v in arguments.items():
        if type(key) is not str:
            return False
        append(key)
        kind = type(v)
        if kind is str:  # the common case first: both lengths in one addition
            total += len(key) + len(v) + 4
            append(v)
            continue
        total += len(key) + 2
        if v is None or kind is bool:
            total += 5
        elif kind is int and -_SMALL_INT < v < _SMALL_INT:
            total += int(v.bit_length() * _LOG10_2) + 2
        elif kind is float and math.isfinite(v):
            total += 24
        else:
            return False
    return total <= limits.MAX_EXPANDED_BYTES


def _fast(
    raw_steps: Sequence[Any], careful: Callable[[Any, tuple[Any, ...]], Step], path: tuple[Any, ...]
) -> list[Step] | None:
    texts: list[str] = []  # strings and lists of strings whose types and text are checked in bulk
    lists: list[tuple[Any, ...]] = []
    out = []
    for i, raw in enumerate(raw_steps):
        fields_ = _step_fields(raw, texts, lists) if type(raw) is dict else None
        if fields_ is not None:
            step = _filled_step(fields_)
        else:  # the careful path builds it or names its defect; every step before it must be clean first
            if not all_text(texts, lists):
                return None
            texts.clear()
            lists.clear()
            step = careful(raw, path + (i,))
        out.append(step)
    return out if all_text(texts, lists) else None


def all_text(texts: list[str], lists: list[tuple[Any, ...]]) -> bool:
    """Every item is a ``str`` that is Unicode text (no lone surrogate), as the careful path demands: each of
    ``texts`` (its items' type checked by the caller) and each item of ``lists``.

    >>> all_text(["a", "é"], [("b",)]), all_text([chr(0xD800)], []), all_text([], [("b", 1)])
    (True, False, False)
    """
    if not set(map(type, chain.from_iterable(lists))) <= {str}:
        return False
    for values in (texts, chain.from_iterable(lists)):
        for text in filterfalse(str.isascii, values):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return False
    return True


def _step_fields(
    raw: dict[str, Any], texts: list[str], lists: list[tuple[Any, ...]]
) -> dict[str, Any] | None:
    """A step's fields by name, in field order, when the careful path would accept ``raw`` as it is, else None."""
    out = _TEMPLATE.copy()
    kinds = _KINDS
    for key, value in raw.items():
        kind = kinds.get(key)
        if kind is None:  # an unknown key (or not a string)
            return None
        if value is None:
            continue
        if kind == "strings":
            cls = type(value)
            if cls is list or cls is tuple:
                value = tuple(value)
                lists.append(value)
            elif cls is str:
                texts.append(value)
                value = (value,)
            else:
                return None
        elif kind == "text" or kind == "name":
            if type(value) is not str:
                return None
            texts.append(value)
        elif kind == "id":
            if type(value) is not str or not value:
                return None
            texts.append(value)
        elif kind == "duration":
            value = as_duration(value)
            if value is None:
                return None
        elif kind == "choice":
            if type(value) is not str or value not in CHOICES[key]:
                return None
        elif kind == "arguments":
            if type(value) is not dict:
                return None
            if value:
                try:
                    check_plain(value, above=ARGUMENTS_DEPTH)
                except PlanFormatError:  # the careful path names it, in its turn
                    return None
            value = copy_plain(value)
        else:  # a kind of field this path does not know (a far step's budget, its steps): the careful path
            return None
        out[key] = value
    if out["id"] is None:
        return None
    if out["arguments"] is None:
        out["arguments"] = {}
    return out
