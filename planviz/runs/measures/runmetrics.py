"""How a run went, in numbers, and who is to blame.

Every figure is computed from the run's frames alone, so it works for a
simulated run and for one recorded from a real agent.

>>> from planviz import examples
>>> from planviz import Fault, simulate
>>> m = metrics(simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")]))
>>> m.success, m.duplicate_steps, m.replans, m.recovery_distance, m.critical_path_delay
(True, 2, 1, 1, 16.0)
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, fields
from typing import Any, Callable, Mapping, cast

from planviz.analysis.schedule import Schedule, critical_path
from planviz.checks.validation import refusal
from planviz.errors import StructureError
from planviz.plan.arguments import expect_contract
from planviz.plan.identity import work_keys
from planviz.plan.lineage import revised_roots
from planviz.plan.model import Contract, Plan, Step
from planviz.runs.events import FewChanges, Run, expect_run
from planviz.runs.fault import FAULTS
from planviz.runs.hindsight.retrospect import recorded_makespan
from planviz.runs.measures.outcomes import missing_evidence, outcome_class
from planviz.runs.statuslog import Snapshot
from planviz.runs.usage import Usage, run_usage
from planviz.structure.index import structure_index

__all__ = [
    "metrics",
    "metrics_from",
    "attribution",
    "Attribution",
    "Metrics",
    "ATTRIBUTIONS",
    "METRIC_DOCS",
    "format_value",
]

ATTRIBUTIONS = ("planner", "executor", "environment", "contract")
# failure categories by party: the fault kinds' own (runs/fault.FAULTS), and a direct agent's unmet precondition
_EXECUTOR = frozenset(
    {k.category for k in FAULTS.values() if k.blame == "executor"} | {"unmet_precondition"}
)
_ENVIRONMENT = frozenset(
    k.category for k in FAULTS.values() if k.blame == "environment" and k.category
)

METRIC_DOCS = {
    "success": "goal success: the run completed its plan, no premise was falsified and every step produced the "
    "evidence it declared (planviz.outcome_class)",
    "executability": "planned steps (of the first version) executed as valid steps, / planned: completed, "
    "directly, through a revision or (a far step) through its expansion, or failed on a last "
    "attempt that was a valid step (a step of its plan version, started ready) and was never "
    "retried or voided (a valid step that failed is no invalid step); a step never started, "
    "still running at the stop, voided, or started off-plan or unready is not executed",
    "precondition_errors": "steps started while not ready (a dependency not done or a required fact not held)",
    "duplicate_steps": "work redone after a failure or a replan: starts of steps not in their plan, starts repeating "
    "a step or one of its revisions (a retry, a redo), and starts of a step a revision or an "
    "expansion added that does the same work (action, tool, arguments, requires, produces) as a "
    "step started before; never a step the first plan itself lists twice",
    "replans": "plan revisions",
    "recovery_distance": "how far back execution went after a failure: the hops (dependency edges) from the failed "
    "step up to the nearest re-run point (a voided step none of whose dependencies was voided; "
    "0 when the failed step itself is re-run), the largest over the run's recoveries",
    "work_voided": "completed steps voided by recoveries: verified work execution went back over",
    "critical_path_delay": "finish time minus the first plan's makespan (only for a completed run of a plan with "
    "one); for a recorded run, its makespan minus the critical path of the steps it ran "
    "with the times that happened (plus the model calls that led to each), over the "
    "dependencies it respected: the time no step accounts for (a model call after the "
    "last step, the agent's own overhead, a wait), never negative; None (unknown) when a "
    "model call that led to a step records no duration (shown as unknown)",
    "tool_calls": "step attempts started (planviz.run_usage); 0 for a trace that holds no tool call (its steps "
    "are its model calls); for a LangGraph run, the ToolMessages its node runs wrote",
    "model_calls": "model calls (planviz.run_usage): those a recorded trace holds, each once; else one per plan "
    "proposal, replan and expansion (planner, Recorder runs), one per step (direct: the agent "
    "decides each call), none (workflow: a fixed script); not recorded (None) for another "
    "tool's trace that holds none",
    "time": "clock at the last event (planviz.run_usage)",
    "outcome_class": "goal_success, correct_stop (infeasible, false premise, forbidden state: a result, not a "
    "failure), silent_failure (completed past a false premise or missing evidence) or failure",
}


# the outcome classes of a run that ended plan_complete
_COMPLETED = (
    "goal_success",
    "silent_failure",
)


@dataclass(frozen=True)
class Metrics:
    """The figures of one run; see ``Metrics.describe()`` for each definition."""

    success: bool
    executability: float
    precondition_errors: int
    duplicate_steps: int
    replans: int
    recovery_distance: int
    critical_path_delay: float | None
    tool_calls: int
    model_calls: int | None
    time: float
    outcome_class: str
    work_voided: int

    @staticmethod
    def describe() -> dict[str, str]:
        """Each field and what it counts."""
        return dict(METRIC_DOCS)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def cells(self) -> list[tuple[str, str]]:
        """(name, shown value) pairs in the metrics' order: the one way every table, report and panel shows them."""
        return [
            (
                name,
                f"{value:.2f}"
                if name == "executability"
                else "not recorded"
                if name == "model_calls" and value is None
                else "unknown"  # a completed run's delay not told
                if name == "critical_path_delay"
                and value is None
                and self.outcome_class in _COMPLETED
                else format_value(value),
            )
            for name, value in self.to_dict().items()
        ]

    def to_text(self) -> str:
        cells = self.cells()
        width = max(len(n) for n, _ in cells)
        return "\n".join(f"{n:<{width}}  {v}" for n, v in cells)

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th title='{html.escape(METRIC_DOCS[n], quote=True)}'>{html.escape(n)}</th>"
            f"<td>{html.escape(v)}</td></tr>"
            for n, v in self.cells()
        )
        return f"<table class='planviz-metrics'>{rows}</table>"


def format_value(value: Any) -> str:
    """A metric as people read it: yes/no, a whole number plainly, others to two decimals (below 1, three
    significant digits: a recorded 0.00554 s is never shown as 0.01 s, nor 0.0004 s as 0.00 s), '-' for none.

    >>> format_value(1652.601457), format_value(0.005544), format_value(0.25), format_value(29.0)
    ('1652.60', '0.00554', '0.25', '29')
    """
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if not math.isfinite(value) or value == int(value):
            return f"{value:g}"
        return f"{value:.2f}" if abs(value) >= 1 else f"{value:.3g}"
    return str(value)


def metrics(run: Run) -> Metrics:
    """The figures of ``run``: the seed's eight metrics and a few more (see :data:`METRIC_DOCS`).

    Parameters
    ----------
    run : Run
        A simulated or recorded run; usage figures come from :func:`planviz.run_usage`.

    Returns
    -------
    Metrics
        ``success``, ``executability``, ``precondition_errors``, ``duplicate_steps``, ``replans``,
        ``recovery_distance``, ``critical_path_delay``, ``tool_calls``, ``model_calls``, ``time``...

    Raises
    ------
    PlanvizTypeError
        When ``run`` is not a Run (load a trace first with :func:`planviz.load_trace`).

    Examples
    --------
    >>> from planviz import examples, simulate
    >>> m = metrics(simulate(examples.load("cache_isolation")))
    >>> m.success, m.time, m.tool_calls
    (True, 29.0, 5)
    """
    run = expect_run(run, "metrics")
    return metrics_from(run, critical_path, run_usage)


def metrics_from(
    run: Run, schedule: Callable[[Plan], Schedule], usage: Callable[[Run], Usage]
) -> Metrics:
    """:func:`metrics` of a checked ``run`` with the critical path of a plan and the usage of the run asked of
    ``schedule`` and ``usage`` (the run summary's, so a view computes each once:
    :class:`~planviz.runs.summary.runsummary.RunSummary`)."""
    roots = revised_roots(run.plans)  # read with .get(sid, sid)
    planned = set(run.plans[0].ids) if run.plans else set()
    done_roots = {roots.get(s, s) for s in run.state.completed}
    # a far step is done when all its concrete steps are (nested first)
    expansions = [i for i, e in enumerate(run.events) if e.kind == "expand" and e.step is not None]
    for i in reversed(expansions):
        new = run.plan_at(i)
        if (
            new is not None
            and new.parent is not None
            and set(new.ids) - set(new.parent.ids) <= done_roots
        ):
            done_roots.add(cast(str, run.events[i].step))
    precondition_errors = voided_work = replans = repeats = distance = 0
    # steps whose last attempt was a valid step that failed (not retried, not voided)
    failed_valid: set[str] = set()
    # step -> whether its last start was a valid step of its plan version
    valid_start: dict[str, bool] = {}
    group: tuple[Plan | None, str | None, set[str]] | None = (
        None  # the recovery under way: plan, failed, voided
    )
    first_ids = planned
    started_roots: set[str] = set()
    started_work: set[str] = set()
    keys: dict[
        int, dict[str, str]
    ] = {}  # plan version -> the content of its started steps (plan/identity)
    unread: list[
        tuple[Plan | None, str]
    ] = []  # steps started whose content is not in started_work yet
    # one pass over the events, the state just before each read as it goes (not a frame per event): the steps
    # of the event's plan version (one frame per version), each step's status changes since, the facts held
    events = run.events
    version_start = -1  # the first event of the plan version under way (the run's frames' own rule)
    statuses_at_start: Any = None  # that event's statuses (a frame's view), read when first needed
    changed: dict[
        str, str
    ] = {}  # statuses the version's later events changed, as of the event before
    held: set[str] = (
        set()
    )  # the facts held after the event before held_to (read up to an event when asked)
    held_to = 0

    def held_before(i: int) -> set[str]:
        """The facts held after event ``i - 1``: the events' gains and losses since the last asking, in order."""
        nonlocal held_to
        for k in range(held_to, i):
            e = events[k]
            if e.gained:
                held.update(e.gained)
            if e.lost:
                held.difference_update(e.lost)
        held_to = i
        return held

    plan_of: dict[
        int, tuple[Plan | None, Mapping[str, Step]]
    ] = {}  # run.plan_at and its steps, per version

    logged = False  # the version's statuses are a log's (runs/statuslog): read from its frames

    def status_before(i: int, sid: str) -> str | None:
        """The status of ``sid`` in frame ``i - 1``."""
        if i - 1 < version_start or logged:  # the frame before belongs to the version before
            return run.frame(i - 1).statuses.get(sid)
        if sid in changed:
            return changed[sid]
        if statuses_at_start is None:
            return run.frame(i - 1).statuses.get(sid)
        return cast(str | None, statuses_at_start.get(sid))

    previous_version: Any = None
    current: tuple[Plan | None, Mapping[str, Step]] | None = None
    for i, e in enumerate(events):
        if not i or e.plan_version != previous_version:
            version_start, statuses_at_start = i, None
            changed, logged = {}, type(e.changes) is Snapshot
            previous_version = e.plan_version
            current = (
                None  # the version's plan and its steps (plan_of's), read at its first valid start
            )
        kind, sid = e.kind, e.step
        if kind == "start" and sid is not None:
            if failed_valid:
                failed_valid.discard(sid)  # retried: the new attempt decides
            valid = (
                False  # whether this start is a valid step (valid_start's entry, stored once below)
            )
            if statuses_at_start is None:
                # the version's first event lists every step of it with its status (a frame's snapshot, which the
                # store indexes from it): read as that mapping, without a view's call per look-up (and without the
                # run's frames; a logged version's statuses are its frame's)
                statuses_at_start = (
                    run.frame(version_start).statuses if logged else events[version_start].changes
                )
            if sid not in statuses_at_start:  # not a step of its plan version: invalid
                repeats += 1
            else:
                root = roots.get(sid, sid) if roots else sid
                if current is None:
                    version = e.plan_version
                    if version in plan_of:
                        current = plan_of[version]
                    else:
                        plan = run.plan_at(i)
                        current = plan_of[version] = plan, plan.by_id if plan is not None else {}
                at, by_id = current
                # the same step again (retry, redo), or work a revision re-issued under a new id; a step the
                # first plan lists twice (a second, legitimate "go to toilet") is no duplicate. The content of the
                # steps started is read only when a step the first plan does not list starts (a run of one plan:
                # never)
                if root in started_roots:
                    repeats += 1
                elif root not in first_ids:
                    for earlier in unread:
                        work = _work_of(keys, *earlier)
                        if work is not None:
                            started_work.add(work)
                    unread.clear()
                    repeats += _work_of(keys, at, sid) in started_work
                started_roots.add(root)
                unread.append((at, sid))
                step = by_id.get(sid) if i > 0 else None
                if step is not None:
                    if i - 1 < version_start or logged:
                        unmet = any(status_before(i, d) != "done" for d in step.depends_on)
                    else:  # the common case, inline: changed since the version began, else as it began
                        unmet = False
                        for d in step.depends_on:
                            if (changed[d] if d in changed else statuses_at_start.get(d)) != "done":
                                unmet = True
                                break
                    # (the facts held are read only for a step that requires some: most steps require none)
                    if unmet or (step.requires and not held_before(i).issuperset(step.requires)):
                        precondition_errors += 1
                    else:
                        valid = True
            valid_start[sid] = valid
        elif kind == "fail" and sid is not None:
            if valid_start.get(sid):  # a valid step that failed: executed, no invalid step
                failed_valid.add(sid)
        elif kind in ("invalidate", "recheck") and i > 0:
            failed_valid.difference_update(e.voided)  # voided work no longer counts
            voided_work += sum(1 for s in e.voided if status_before(i, s) == "done")
            # a recovery: its rechecks (a goal change) void more of the same scope
            if kind == "invalidate":
                if group is not None:
                    distance = max(distance, _hops_back(*group))
                group = (run.plan_at(i - 1), sid, set(e.voided))
            elif group is not None:
                group[2].update(e.voided)
        if kind == "replan":
            replans += 1
        # the state after this event, for the next
        if i != version_start:
            changes = e.changes
            # an event's one or two changes (most events) read without the Mapping protocol's calls (FewChanges
            # ._pairs, inline: no tuple per event)
            if type(changes) is FewChanges:
                k0 = changes._k0
                if k0 is not None:
                    changed[k0] = changes._v0  # type: ignore[assignment]
                    k1 = changes._k1
                    if k1 is not None:
                        changed[k1] = changes._v1  # type: ignore[assignment]
            else:
                changed.update(changes)
    if group is not None:
        distance = max(distance, _hops_back(*group))
    executed = done_roots | {roots.get(s, s) for s in failed_valid}
    executability = len(executed & planned) / len(planned) if planned else 0.0
    verdict = outcome_class(run)
    # the critical path delay is defined for a completed run
    completed = run.outcome == "plan_complete"
    delay = None
    # what happened, not the plan's estimates
    if completed and run.plans and run.strategy == "recorded":
        # steps a model call of unknown duration led to: the delay is unknown
        unknown: set[str] = set()
        ideal = recorded_makespan(run, unknown)
        delay = (
            None if ideal is None or unknown else max(0.0, (run.time - run.events[0].time) - ideal)
        )
    elif completed and run.plans:
        try:
            delay = run.time - schedule(run.plans[0]).makespan
        except StructureError:  # a recorded plan with a cycle or a missing step has no makespan
            delay = None
    used = usage(run)  # the one count of calls and time, shared with diff_runs and the viewers
    return Metrics(
        verdict == "goal_success",
        executability,
        precondition_errors,
        repeats,  # invalid + repeats
        replans,
        distance,
        delay,
        used.tool_calls,
        used.model_calls,
        used.time,
        verdict,
        voided_work,
    )


def _work_of(keys: dict[int, dict[str, str]], at: Plan | None, sid: str) -> str | None:
    """The content key (plan/identity) of step ``sid`` of plan version ``at``, once per version and step; None
    when ``at`` has no such step."""
    if at is None or sid not in at.by_id:
        return None
    known = keys.setdefault(at.version, {})
    if sid not in known:
        known.update(work_keys(at, [sid]))
    return known.get(sid)


def _hops_back(plan: Plan | None, failed: str | None, voided: set[str]) -> int:
    """Hops from ``failed`` up its dependencies to the nearest re-run point: a voided step none of whose
    dependencies was voided (0 when ``failed`` is one). A re-run point off ``failed``'s ancestry (a goal change
    voids every branch) counts by its distance ignoring direction."""
    if plan is None or failed is None or failed not in plan.by_id or not voided:
        return 0
    index = structure_index(plan)
    points = [s for s in voided if s in index.parents and not set(index.parents[s]) & voided]
    if not points or failed in points:
        return 0
    up = index.ancestor_distances(failed)
    near = [up[s] for s in points if s in up]
    if near:
        return min(near)
    around = index.undirected_distances(failed)
    return min((around[s] for s in points if s in around), default=0)


@dataclass(frozen=True)
class Attribution:
    """Who a run's outcome is down to (``party``: ``planner``, ``executor``, ``environment``, ``contract``
    or None: nothing to blame) and why, in one sentence (``reason``)."""

    party: str | None
    reason: str


def attribute(
    run: Run, contract: Contract | None = None, *, goal_met: bool | None = None
) -> str | None:
    """Deprecated (kept one release, docs/words.md): ``attribution(run, contract, goal_met=...).party``.

    ``planviz.attribute`` warns and names the new spelling; :func:`attribution` is the one blame tree, and
    its ``party`` is what this returned.

    Examples
    --------
    >>> from planviz import examples, simulate
    >>> run = simulate(examples.load("cache_isolation"))
    >>> attribute(run) == attribution(run).party
    True
    """
    run = expect_run(run, "attribute")
    contract = expect_contract(contract, "attribute")
    return attribution(run, contract, goal_met=goal_met).party


def attribution(
    run: Run, contract: Contract | None = None, *, goal_met: bool | None = None
) -> Attribution:
    """Seed 000's tree, in order: who the outcome of ``run`` is down to (``party``: ``planner``, ``executor``,
    ``environment``, ``contract``, or None when there is nothing to blame), and why (``reason``).

    1. A successful run (goal success: ``plan_complete`` with every premise true and every declared fact
       produced, unless ``goal_met`` is False) and a correct refusal (the contract
       asks for a fact no route can have, ``infeasible_fact``: infeasibility is a result, not a failure) blame
       no one: party None, the reason kept.
    2. The plan failed the contract (the first plan fails :func:`planviz.validate`, a revision or expansion
       was refused, a far step was left unexpanded): ``planner``.
    3. A step did not produce the evidence it declared (its tool errored, its observation lacked a fact, a
       side effect or a timeout failed it, it started unready or off-plan, it established a forbidden
       state, it completed without its evidence and the run went on: a silent failure): ``executor``.
    4. A fact was withdrawn mid-run (a precondition found false, a premise falsified, a conflicting
       observation; the goal changed or an approval was denied under it): ``environment``.
    5. Otherwise every step that ran produced its evidence and the goal still failed: ``contract`` (too
       weak: it missed a requirement).

    Parameters
    ----------
    run : Run
        A simulated or recorded run.
    contract : Contract, optional
        The contract to judge the first plan by; defaults to the run's own.
    goal_met : bool, optional
        False when a person judged that the user's goal failed although the run completed (``plan_complete``
        is no proof that it holds); then the tree is walked for that run too.

    Returns
    -------
    Attribution
        ``party`` and ``reason``.

    Raises
    ------
    PlanvizTypeError
        When ``run`` is not a Run or ``contract`` not a Contract.

    Examples
    --------
    >>> from planviz import examples, simulate, Fault
    >>> attribution(simulate(examples.load("cache_isolation"))).party is None  # it succeeded: nothing to blame
    True
    >>> attribution(simulate(examples.load("release_no_credentials"))).reason[:60]
    'a correct refusal: infeasibility is a result, not a failure '
    >>> attribution(simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect", times=3)])).party
    'executor'
    """
    run = expect_run(run, "attribution")
    contract = expect_contract(contract, "attribution")
    contract = contract if contract is not None else run.contract
    stop = run.events[-1] if run.events and run.events[-1].kind == "stop" else None
    verdict = outcome_class(run)
    if run.outcome == "plan_complete" and goal_met is not False and verdict == "goal_success":
        return Attribution(
            None,
            "the run completed every step of its plan (plan_complete): nothing to blame; "
            "whether the user's goal holds is for a person to judge",
        )
    first = refusal(run.plans[0], contract) if run.plans else None
    infeasible = first is not None and first.code == "infeasible_fact"
    if run.outcome == "refused" and (
        infeasible or (stop is not None and stop.category == "infeasible_fact")
    ):
        said = (
            first.message
            if infeasible and first is not None
            else stop.message
            if stop is not None
            else ""
        )
        return Attribution(
            None,
            f"a correct refusal: infeasibility is a result, not a failure (infeasible_fact: "
            f"{said})",
        )
    if first is not None:
        if infeasible:
            return Attribution(
                "contract",
                f"the contract asks for a fact no route can have, and the run went on "
                f"anyway: {first.message}",
            )
        return Attribution("planner", f"the plan fails the contract: {first.code}: {first.message}")
    if run.outcome == "refused":
        return Attribution(
            "planner",
            f"a plan the planner proposed was refused: "
            f"{stop.message if stop is not None else 'refused'}",
        )
    if run.outcome == "awaiting_expansion":
        return Attribution("planner", "the planner left a far-horizon step unexpanded")
    m = metrics(run)
    fails = [e for e in run.events if e.kind == "fail"]
    bad = next((e for e in fails if e.category in _EXECUTOR), None)
    offplan = next(
        (
            e
            for i, e in enumerate(run.events)
            if e.kind == "start" and e.step not in run.frame(i).statuses
        ),
        None,
    )
    if bad is not None:
        return Attribution(
            "executor",
            f"step {bad.step!r} did not produce the evidence it declared "
            f"({bad.category}: {bad.message})",
        )
    unchecked = missing_evidence(run) if verdict == "silent_failure" else []
    if unchecked:
        return Attribution(
            "executor",
            f"step {unchecked[0]!r} completed without the evidence it declared, and the "
            "run went on (a silent failure)",
        )
    if offplan is not None or m.precondition_errors:
        what = (
            f"step {offplan.step!r} was not in its plan"
            if offplan is not None
            else f"{m.precondition_errors} step(s) started before they were ready"
        )
        return Attribution("executor", f"the executor left the plan: {what}")
    if run.outcome in ("expected_evidence_missing", "forbidden_state"):
        return Attribution("executor", f"{stop.message if stop is not None else run.outcome}")
    lost = next((e for e in run.events if e.kind in ("withdraw", "conflict")), None)
    if (
        lost is not None
        or {e.category for e in fails} & _ENVIRONMENT
        or run.outcome in ("premise_failed", "approval_denied", "goal_changed")
    ):
        cause = (
            lost.message if lost is not None else stop.message if stop is not None else run.outcome
        )
        return Attribution("environment", f"the world changed under the run: {cause}")
    return Attribution(
        "contract",
        "every step that ran produced the evidence it declared and no fact was "
        "withdrawn, yet the goal failed: the contract is too weak (it missed a "
        "requirement)",
    )
