"""Plans, steps and contracts as immutable values.

A :class:`Plan` is a hypothesis about how to reach a goal: steps with the facts they need and the facts
their success must establish. A :class:`Contract` is what the goal demands, whatever the route. Both are
frozen dataclasses built from tuples, so they can be hashed, compared and shared between frames of a run.

>>> s0 = Step("S0", "reproduce the bug", expected_evidence="a failing test", produces=["bug_reproduced"])
>>> s1 = Step("S1", "patch", expected_evidence="diff applied", depends_on="S0", requires=["bug_reproduced"])
>>> plan = Plan("fix the bug", [s0, s1])
>>> plan.ids
('S0', 'S1')
>>> plan.step("S1").depends_on
('S0',)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import KW_ONLY, FrozenInstanceError, dataclass, field, fields, replace
from functools import reduce
from operator import add, attrgetter
from sys import intern
from typing import TYPE_CHECKING, Any, Union

from planviz.errors import PlanFormatError, UnknownStepError, show_value
from planviz.io.plaindata import (
    ARGUMENTS_DEPTH,
    as_duration,
    check_plain,
    check_unicode,
    copy_plain,
)
from planviz.plan.fields import CONFIRMS, EFFECTS, HORIZONS, INTENTS, RISKS
from planviz.plan.horizon import Budget, far_fields
from planviz.plan.toolargs import argument_table

__all__ = [
    "Step",
    "Plan",
    "Contract",
    "ToolSpec",
    "Finding",
    "STATUSES",
    "RISKS",
    "HORIZONS",
    "INTENTS",
    "EFFECTS",
    "SEVERITIES",
    "LAYERS",
    "natural_key",
]

Names = Union[str, Iterable[str]]  # noqa: UP007 (a runtime alias) what a field of names accepts: a string or any iterable of strings

STATUSES = ("pending", "ready", "running", "waiting", "done", "failed", "invalidated", "blocked")
SEVERITIES = ("error", "warning", "info")
LAYERS = ("import", "structure", "feasibility", "semantics", "static")
MAX_TOTAL_DURATION = (
    1e300  # far beyond any real plan, far enough inside the float range (about 1.8e308)
)


def _strings(value: Any, where: str) -> tuple[str, ...]:
    """Normalise a string or an iterable of strings to a tuple of strings (a set is sorted, so order is stable)."""
    if value is None or isinstance(value, str):
        return () if value is None else (value,)
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise PlanFormatError(f"expected a string or a list of strings, got {value!r}", path=where)
    value = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
    if type(value) in (tuple, list) and set(map(type, value)) == {str}:
        try:  # checked in C: strings, none holding a lone surrogate (a fork's version retires half a history)
            "".join(value).encode("utf-8")
        except UnicodeEncodeError:
            pass  # the loop below names the item
        else:
            return tuple(value)
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise PlanFormatError(
                f"expected a string, got {show_value(item)}", path=f"{where}[{i}]"
            )
        out.append(check_unicode(item, f"{where}[{i}]"))
    return tuple(out)


def _text(value: Any, where: str, *, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise PlanFormatError(f"expected a string, got {show_value(value)}", path=where)
    return check_unicode(value, where)


_RUNS = re.compile(r"[0-9]+|[^0-9]+")  # an id's runs of ASCII digits and of anything else, in order


def natural_key(text: str) -> tuple[Any, ...]:
    """Orders the ASCII numbers inside ids by value, never by ``int`` (``S1²`` sorts): ``step_9``, ``step_10``.

    The key is one flat tuple, four items per run of the id (digits: ``0``, the length without leading zeros, the
    digits without them, the run; else ``1, 0``, the run twice): every run gives the same types at the same
    places, so it orders as the runs' tuples would, and a sort compares it faster.

    >>> sorted(["step_10", "step_9", "S2", "S10", "S1.v2", "S1²"], key=natural_key)
    ['S1.v2', 'S1²', 'S2', 'S10', 'step_9', 'step_10']
    >>> natural_key("S010")
    (1, 0, 'S', 'S', 0, 2, '10', '010')
    """
    key: list[Any] = []
    for p in _RUNS.findall(text):
        key += (0, len(n := p.lstrip("0")), n, p) if "0" <= p[0] <= "9" else (1, 0, p, p)
    return tuple(key)


def _choice(value: Any, choices: tuple[str, ...], where: str) -> str:
    if value not in choices:
        raise PlanFormatError(
            f"expected one of {', '.join(map(repr, choices))}, got {value!r}", path=where
        )
    return str(value)


@dataclass(frozen=True, slots=True)
class Step:
    """One node of a plan: what to do, what it needs, what its success establishes.

    ``depends_on``, ``requires``, ``produces`` and ``resources`` accept a string or any iterable of strings and
    are stored as tuples. A far-horizon step (``horizon="far"``) is a placeholder: it may carry a ``budget`` (a
    :class:`~planviz.Budget` or a mapping) and its concrete steps, ``expands_to`` (:mod:`planviz.plan.horizon`).

    >>> Step("S2", "write the contract test", expected_evidence="test fails before the patch",
    ...      duration=3, kind="diagnose").duration
    3.0
    >>> Step("S3", "patch", duration="soon")
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: step 'S3'.duration: expected a finite number >= 0, got 'soon'

    An empty ``action`` or ``expected_evidence`` is allowed here and reported by ``validate`` (``empty_action``,
    ``no_evidence``), so a loaded plan shows all its defects at once. Steps are slotted (no ``__dict__``: a big
    plan's passes read one small object per step); copy one changed with ``dataclasses.replace``.
    """

    id: str
    action: str
    _: KW_ONLY
    expected_evidence: str = ""
    depends_on: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    produces: tuple[str, ...] = ()
    check: str = ""
    rollback: str = ""
    duration: float = 1.0
    tool: str | None = None
    arguments: Mapping[str, Any] = field(default_factory=dict, hash=False)
    resources: tuple[str, ...] = ()
    kind: str | None = None
    risk: str = "low"
    effect: str | None = None
    approval: str | None = None
    horizon: str = "near"
    budget: Budget | None = None
    expands_to: tuple[Step, ...] = ()
    revises: str | None = None

    if TYPE_CHECKING:  # what callers may pass (the generated __init__ normalises it); tests/test_typing.py checks it

        def __init__(
            self,
            id: str,
            action: str,
            *,
            expected_evidence: str = "",
            depends_on: Names = (),
            requires: Names = (),
            produces: Names = (),
            check: str = "",
            rollback: str = "",
            duration: float | str = 1.0,
            tool: str | None = None,
            arguments: Mapping[str, Any] = ...,
            resources: Names = (),
            kind: str | None = None,
            risk: str = "low",
            approval: str | None = None,
            horizon: str = "near",
            budget: Budget | Mapping[str, Any] | None = None,
            expands_to: Iterable[Any] = (),
            revises: str | None = None,
            effect: str | None = None,
        ) -> None: ...

    def __post_init__(self) -> None:
        where = f"step {self.id!r}"
        if not isinstance(self.id, str) or not self.id:
            raise PlanFormatError(
                f"expected a non-empty string id, got {show_value(self.id)}", path="id"
            )
        check_unicode(self.id, "id")
        _text(self.action, f"{where}.action")
        set_ = object.__setattr__
        for name in ("depends_on", "requires", "produces", "resources"):
            set_(self, name, _strings(getattr(self, name), f"{where}.{name}"))
        # one string for steps that say the same (issue 43)
        for name in (
            "expected_evidence",
            "check",
            "rollback",
        ):
            text = _text(getattr(self, name), f"{where}.{name}")
            set_(self, name, intern(text) if type(text) is str else text)
        for name in ("tool", "kind", "approval", "revises"):
            _text(getattr(self, name), f"{where}.{name}", optional=True)
        d = as_duration(self.duration)
        if d is None:
            raise PlanFormatError(
                f"expected a finite number >= 0, got {show_value(self.duration, 60)}",
                path=f"{where}.duration",
            )
        set_(self, "duration", d)
        if not isinstance(self.arguments, Mapping):
            raise PlanFormatError(
                f"expected a mapping, got {show_value(self.arguments)}", path=f"{where}.arguments"
            )
        if self.arguments:
            # in a plan file the arguments sit three levels down (document, steps, step): the limit agrees
            check_plain(self.arguments, prefix=f"{where}.arguments", above=ARGUMENTS_DEPTH)
        set_(self, "arguments", copy_plain(self.arguments))
        _choice(self.risk, RISKS, f"{where}.risk")
        if self.effect is not None:
            _choice(self.effect, EFFECTS, f"{where}.effect")
        _choice(self.horizon, HORIZONS, f"{where}.horizon")
        if self.budget is not None or not isinstance(self.expands_to, tuple) or self.expands_to:
            budget, expansion = far_fields(self, where)
            set_(self, "budget", budget)
            set_(self, "expands_to", expansion)


def _immutable(
    step: Step, name: str, *_: Any
) -> None:  # slots=True's own test names the old class (3.10, 3.11)
    raise FrozenInstanceError(
        f"cannot assign to field {name!r}: a Step is immutable; use dataclasses.replace"
    )


Step.__setattr__ = Step.__delattr__ = _immutable  # type: ignore[method-assign, assignment]


@dataclass(frozen=True)
class Finding:
    """One defect found in a plan: what, where, and how to fix it.

    ``layer`` is ``import``, ``structure``, ``feasibility``, ``semantics`` or
    ``static``; ``severity`` is ``error`` (the plan cannot run as written),
    ``warning`` (it can, but something is likely wrong) or ``info`` (a note:
    what the source format has no field for, text an importer skipped);
    ``steps`` the ids involved; ``edges`` the (u, v) pairs involved
    (a cycle's edges); ``where`` an optional place in the source (line, record).
    """

    code: str
    layer: str
    severity: str
    message: str
    steps: tuple[str, ...] = ()
    edges: tuple[tuple[str, str], ...] = ()
    where: str = ""

    def __post_init__(self) -> None:
        _choice(self.severity, SEVERITIES, "Finding.severity")
        _choice(self.layer, LAYERS, "Finding.layer")
        object.__setattr__(self, "steps", tuple(self.steps))
        object.__setattr__(self, "edges", tuple(tuple(e) for e in self.edges))


@dataclass(frozen=True)
class Plan:
    """A goal and the steps meant to reach it, plus what the planner assumed.

    ``premises`` are facts the plan assumes true (a falsified premise stops a
    run); ``unknowns`` what the planner says it cannot determine. A revision is
    a new Plan with ``version`` + 1, its ``parent``, the ``trigger`` evidence
    and the ids it ``invalidated``. ``contract`` is the contract shipped in the
    same file, if any; ``import_findings`` what an importer could not map.
    ``source_format`` names the planner format an importer read it from
    (``"worfbench"``, ``"teval"``, ...; empty for planviz files and plans built
    in code) and ``name`` the record it came from (its id, when the record has
    one), so a list of many plans can say which one failed.
    """

    goal: str
    steps: tuple[Step, ...] = ()
    _: KW_ONLY
    premises: tuple[str, ...] = ()
    unknowns: tuple[str, ...] = ()
    version: int = 1
    parent: Plan | None = field(default=None, repr=False)
    trigger: str = ""
    invalidated: tuple[str, ...] = ()
    time_unit: str = ""
    contract: Contract | None = field(default=None, repr=False)
    import_findings: tuple[Finding, ...] = ()
    source_format: str = ""
    name: str = ""

    if TYPE_CHECKING:

        def __init__(
            self,
            goal: str,
            steps: Iterable[Step] = (),
            *,
            premises: Names = (),
            unknowns: Names = (),
            version: int = 1,
            parent: Plan | None = None,
            trigger: str = "",
            invalidated: Names = (),
            time_unit: str = "",
            contract: Contract | None = None,
            import_findings: Iterable[Finding] = (),
            source_format: str = "",
            name: str = "",
        ) -> None: ...

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        _text(self.goal, "goal")
        _text(self.source_format, "source_format")
        _text(self.name, "name")
        steps = tuple(self.steps)
        # in bulk when all are Steps whose sum (as below) fits
        durations = map(attrgetter("duration"), steps)
        if not set(map(type, steps)) <= {Step} or reduce(add, durations, 0.0) > MAX_TOTAL_DURATION:
            total = 0.0
            for i, s in enumerate(steps):
                if not isinstance(s, Step):
                    raise PlanFormatError(
                        f"expected a Step, got {show_value(s)}", path=f"steps[{i}]"
                    )
                total += s.duration
                if total > MAX_TOTAL_DURATION:
                    raise PlanFormatError(
                        f"step {s.id!r} brings the plan's total duration to {total:.3g}: expected "
                        f"durations that add up to at most {MAX_TOTAL_DURATION:g} (in the plan's "
                        "time_unit), so schedules and runs can add them",
                        path=f"steps[{i}].duration",
                    )
        set_(self, "steps", steps)
        for name in ("premises", "unknowns", "invalidated"):
            set_(self, name, _strings(getattr(self, name), name))
        if isinstance(self.version, bool) or not isinstance(self.version, int) or self.version < 1:
            raise PlanFormatError(f"expected an integer >= 1, got {self.version!r}", path="version")
        set_(self, "import_findings", tuple(self.import_findings))
        # First occurrence wins; duplicates are reported by validate().
        # a repeated id's key sits where it came first
        by_id = dict(zip(map(attrgetter("id"), steps), steps))
        if len(by_id) != len(steps):
            first = dict(zip(reversed([s.id for s in steps]), reversed(steps)))
            by_id = {sid: first[sid] for sid in by_id}
        set_(self, "_by_id", by_id)

    @property
    def ids(self) -> tuple[str, ...]:
        """Step ids in file order."""
        # no Python call per step: read once per plan version
        return tuple(map(attrgetter("id"), self.steps))

    @property
    def by_id(self) -> Mapping[str, Step]:
        """The first step of each id, in file order: the one map from id to step that everything uses.

        A duplicate id keeps its first step (``validate`` reports ``duplicate_id``). Read-only.

        >>> Plan("g", [Step("A", "first"), Step("A", "second")]).by_id["A"].action
        'first'
        """
        by_id: Mapping[str, Step] = self._by_id
        return by_id

    def step(self, step_id: str) -> Step:
        """The step with this id; raises :class:`UnknownStepError` naming the valid ids."""
        try:
            step: Step = self._by_id[step_id]
            return step
        except KeyError:
            shown = ", ".join(map(repr, sorted(self._by_id, key=natural_key)[:20]))
            raise UnknownStepError(
                f"no step {show_value(step_id)} in this plan; its steps are {shown}"
            ) from None

    def __contains__(self, step_id: object) -> bool:
        return step_id in self._by_id

    def __len__(self) -> int:
        d = self.__dict__
        return d["_length"] if "steps" not in d else len(d["steps"])

    def __getattr__(self, name: str) -> Any:
        # a version grown from another (grown_plan) makes its steps and their table when first read
        if name in ("steps", "_by_id") and "_grown" in self.__dict__:
            _materialise(self)
            return self.__dict__[name]
        raise AttributeError(f"'Plan' object has no attribute {name!r}")

    def __getstate__(self) -> dict[str, Any]:
        """Pickled whole: a grown version's steps made, its chain of earlier versions left behind."""
        self.steps  # noqa: B018 (made when grown)
        return {k: v for k, v in self.__dict__.items() if k not in ("_grown", "_length", "_bound")}

    def replace(self, **changes: Any) -> Plan:
        """A copy with some fields changed (``dataclasses.replace``)."""
        return replace(self, **changes)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None) -> Plan:
        """Build a plan from plain data, in the planviz shape or the numbered tool-call shape.

        >>> Plan.from_dict({"goal": "g", "steps": [{"id": "A", "action": "a", "expected_evidence": "e"}]}).ids
        ('A',)
        >>> Plan.from_dict({"goal": "g", "steps": [{"n": 1, "tool": "lookup", "arguments": {}, "why": "w"}]}).ids
        ('step_1',)
        """
        from planviz.plan.records import plan_from_dict

        return plan_from_dict(data, source=source)


del Plan.steps  # the dataclass's default lives in its __init__: a grown version (plan/grown.py) reads __getattr__


def _materialise(plan: Plan) -> None:
    """Make a grown plan's steps (walking down its chain of bases to one that has them) and their table."""
    chain, p, limit = [], plan, len(plan)
    while "steps" not in p.__dict__:
        chain.append((p, limit))
        base, k, _, _ = p.__dict__["_grown"]
        p, limit = base, min(limit, k)
    steps = list(p.__dict__["steps"][:limit])
    for q, limit in reversed(chain):
        _, k, tail, patches = q.__dict__["_grown"]
        for i, s in patches.items():
            if i < len(steps):
                steps[i] = s
        if limit > k:
            steps.extend(tail[: limit - k])
    made = tuple(steps)
    by_id = dict(zip(map(attrgetter("id"), made), made))
    if len(by_id) != len(made):
        first = dict(zip(reversed([s.id for s in made]), reversed(made)))
        by_id = {sid: first[sid] for sid in by_id}
    plan.__dict__["steps"], plan.__dict__["_by_id"] = made, by_id


@dataclass(frozen=True)
class ToolSpec:
    """What the contract says about one tool: may it be used, does it write (``effect``: read, write or destructive,
    OpenTelemetry's ``gen_ai.agent.tool.tier``; ``writes=True`` with ``effect="read"`` is refused), which tools must
    come first, which arguments it takes (``arguments``: name -> type or a JSON Schema object, and ``required``).

    >>> ToolSpec(arguments={"path": "string", "limit": "integer"}, required="path", preconditions="ls").required
    ('path',)
    """

    permitted: bool = True
    writes: bool = False
    preconditions: tuple[str, ...] = ()
    effect: str | None = None
    arguments: Mapping[str, str] | None = field(default=None, hash=False)
    required: tuple[str, ...] = ()

    if TYPE_CHECKING:

        def __init__(
            self,
            permitted: bool = True,
            writes: bool = False,
            preconditions: Names = (),
            effect: str | None = None,
            arguments: Mapping[str, Any] | None = None,
            required: Names = (),
        ) -> None: ...

    def __post_init__(self) -> None:
        for name in ("permitted", "writes"):
            if not isinstance(getattr(self, name), bool):
                raise PlanFormatError(
                    f"expected True or False, got {getattr(self, name)!r}", path=f"ToolSpec.{name}"
                )
        object.__setattr__(
            self, "preconditions", _strings(self.preconditions, "ToolSpec.preconditions")
        )
        if (
            self.effect is not None
            and _choice(self.effect, EFFECTS, "ToolSpec.effect") == "read"
            and self.writes
        ):
            raise PlanFormatError(
                "writes is true but effect is 'read': say one thing", path="ToolSpec.effect"
            )
        object.__setattr__(self, "writes", self.writes or self.effect in ("write", "destructive"))
        table = argument_table(
            self.arguments, _strings(self.required, "ToolSpec.required"), "ToolSpec.arguments"
        )
        object.__setattr__(self, "arguments", table[0])
        object.__setattr__(self, "required", table[1])


@dataclass(frozen=True)
class Contract:
    """What the goal demands, independent of any route.

    ``required``/``forbidden`` name step ids or step kinds; ``must_precede``
    holds (first, second) pairs of ids or kinds; facts are plain strings.
    ``final`` names the milestone (an id or a kind) that ends the plan: those
    steps are its terminals, so every other step must lead to one of them
    (``dead_end``) and the critical path ends there. ``confirm="plan"``: a run
    asks one approval of the whole write plan before step 1 (seed 003).

    >>> c = Contract(required=["reproduce", "verify"], must_precede=[("reproduce", "patch")])
    >>> c.must_precede
    (('reproduce', 'patch'),)
    """

    required: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    must_precede: tuple[tuple[str, str], ...] = ()
    given_facts: tuple[str, ...] = ()
    obtainable_facts: tuple[str, ...] = ()
    forbidden_states: tuple[str, ...] = ()
    tools: Mapping[str, ToolSpec] = field(default_factory=dict, hash=False)
    intent: str = "write"
    max_retries: int = 2
    max_replans: int = 2
    final: str | None = None
    confirm: str | None = None

    if TYPE_CHECKING:

        def __init__(
            self,
            required: Names = (),
            forbidden: Names = (),
            must_precede: Iterable[Iterable[str]] = (),
            given_facts: Names = (),
            obtainable_facts: Names = (),
            forbidden_states: Names = (),
            tools: Mapping[str, ToolSpec] = ...,
            intent: str = "write",
            max_retries: int = 2,
            max_replans: int = 2,
            final: str | None = None,
            confirm: str | None = None,
        ) -> None: ...

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        _text(self.final, "contract.final", optional=True)
        if self.confirm is not None:
            _choice(self.confirm, CONFIRMS, "contract.confirm")
        for f in fields(self):
            if f.name in (
                "required",
                "forbidden",
                "given_facts",
                "obtainable_facts",
                "forbidden_states",
            ):
                set_(self, f.name, _strings(getattr(self, f.name), f"contract.{f.name}"))
        pairs = []
        for i, raw_pair in enumerate(self.must_precede):
            pair = _strings(raw_pair, f"contract.must_precede[{i}]")
            if len(pair) != 2:
                raise PlanFormatError(
                    f"expected a [first, second] pair, got {list(pair)!r}",
                    path=f"contract.must_precede[{i}]",
                )
            pairs.append(pair)
        set_(self, "must_precede", tuple(pairs))
        if not isinstance(self.tools, Mapping):
            raise PlanFormatError(
                f"expected a mapping of tool name to spec, got {self.tools!r}",
                path="contract.tools",
            )
        for name, spec in self.tools.items():
            if not isinstance(name, str):
                raise PlanFormatError(
                    f"tool names are strings, got {show_value(name)}", path="contract.tools"
                )
            check_unicode(name, "contract.tools")
            if not isinstance(spec, ToolSpec):
                raise PlanFormatError(
                    f"expected a ToolSpec, got {spec!r}", path=f"contract.tools.{name}"
                )
        set_(self, "tools", dict(self.tools))
        _choice(self.intent, INTENTS, "contract.intent")
        for name in ("max_retries", "max_replans"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise PlanFormatError(
                    f"expected an integer >= 0, got {v!r}", path=f"contract.{name}"
                )
