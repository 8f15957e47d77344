"""Recording a real agent run as it happens, framed by the same state machine as a simulation.

>>> from planviz import Plan, Step
>>> plan = Plan("fix", [Step("A", "reproduce", expected_evidence="failing test", produces="seen")])
>>> rec = Recorder(clock=iter(range(100)).__next__)
>>> _ = rec.propose(plan); _ = rec.start("A"); _ = rec.complete("A"); _ = rec.stop("plan_complete")
>>> rec.run.outcome, [e.kind for e in rec.run.events]
('plan_complete', ['propose', 'start', 'complete', 'stop'])
"""

from __future__ import annotations

import math
import os
import time as _time
from typing import Any, Callable, Iterable

from planviz.errors import SimulationError
from planviz.plan.model import Contract, Plan, Step
from planviz.runs.engine.machine import Machine
from planviz.runs.engine.revision import complete_revision
from planviz.runs.events import OUTCOMES, Event, Observation, Run
from planviz.traces.own.tracefile import (
    event_record,
    header_record,
    json_line,
    plan_record,
    save_trace,
)

__all__ = ["Recorder"]


class Recorder:
    """Record a real agent run as it happens, framed by the same state machine as :func:`planviz.simulate`.

    The agent's own code calls :meth:`propose`, :meth:`approve`, :meth:`start`,
    :meth:`observe` (or :meth:`complete` / :meth:`fail`), :meth:`replan`,
    :meth:`expand` and :meth:`stop`;
    :attr:`run` is the :class:`~planviz.runtime.Run` so far. With ``path``,
    every plan and event is appended to that trace file and flushed at once.
    ``clock`` gives the time of each event (default: seconds since the
    recorder was made).
    """

    def __init__(
        self,
        contract: Contract | None = None,
        *,
        path: str | os.PathLike[str] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._m = Machine(contract)
        self._contract = contract
        t0 = _time.monotonic()
        self._clock = clock or (lambda: _time.monotonic() - t0)
        self._path = path
        self._written: list[Plan] = []
        self._events_written = 0
        if path is not None:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(json_line(header_record("recorded", (), contract)))

    def _tick(self) -> None:
        raw = self._clock()
        try:
            now = float(raw)
        except (TypeError, ValueError, OverflowError):
            now = math.nan
        if not math.isfinite(now):
            raise SimulationError(f"the clock gave {raw!r}; event times must be finite numbers")
        self._m.time = now

    def _flush(self) -> None:
        if self._path is None:
            return
        out = []
        for plan in self._m.plans[len(self._written) :]:
            out.append(json_line({"type": "plan", "plan": plan_record(plan, self._written)}))
            self._written.append(plan)
        for e in self._m.events[self._events_written :]:
            out.append(json_line({"type": "event", "event": event_record(e)}))
        self._events_written = len(self._m.events)
        with open(self._path, "a", encoding="utf-8") as fh:
            fh.writelines(out)
            fh.flush()

    def _done(self, events: list[Event]) -> tuple[Event, ...]:
        self._flush()
        return tuple(events)

    def _step(self, step_id: str) -> Step:
        plan = self._m.plan
        if plan is None:
            raise SimulationError(f"record a plan with propose() before step {step_id!r}")
        return plan.step(step_id)

    def propose(self, plan: Plan) -> Event:
        """The agent proposed ``plan`` (later proposals are recorded as replans)."""
        if self._m.plan is not None:
            return self.replan(plan, plan.trigger or "a new plan was proposed")
        self._tick()
        return self._done([self._m.propose(plan)])[0]

    def approve(self, step_id: str, granted: bool = True, message: str = "") -> Event:
        """The approval ``step_id`` waited for arrived: ``granted``, or denied (then record the stop)."""
        self._tick()
        verdict = "approved" if granted else "denied"
        return self._done([self._m.approve(step_id, granted, message or f"{step_id!r} {verdict}")])[
            0
        ]

    def expand(self, far_id: str, new_plan: Plan, message: str = "") -> Event:
        """The agent replaced far-horizon step ``far_id`` with concrete steps: ``new_plan`` is the new version."""
        self._tick()
        old = self._m.plan
        if old is None:
            raise SimulationError("record a plan with propose() before an expansion")
        new = complete_revision(old, new_plan, message or f"expansion of {far_id!r}", ())
        return self._done(
            [self._m.expand(new, far_id, message or f"{far_id!r} expanded: plan v{new.version}")]
        )[0]

    def start(self, step_id: str) -> Event:
        """The agent started ``step_id`` (an id not in the plan is recorded as an invalid step)."""
        self._tick()
        return self._done([self._m.start(step_id)])[0]

    def observe(self, step_id: str, observation: Observation) -> tuple[Event, ...]:
        """What ``step_id`` reported: completes it when it establishes all it produces, else fails it.
        Withdrawn facts leave the state and steps no longer reachable are invalidated."""
        self._tick()
        m = self._m
        events = m.finish(step_id, observation)
        voided = m.void_unreachable(step_id) if observation.withdrawn else None
        return self._done(events + [voided] if voided else events)

    def complete(
        self, step_id: str, facts: Iterable[str] | None = None, **data: Any
    ) -> tuple[Event, ...]:
        """Shortcut: ``step_id`` succeeded and established ``facts`` (default: what it produces)."""
        if facts is None:
            facts = (
                self._step(step_id).produces
                if self._m.plan is not None and step_id in self._m.plan
                else ()
            )
        return self.observe(step_id, Observation(True, frozenset(facts), data=data))

    def fail(self, step_id: str, message: str, category: str = "tool_error") -> Event:
        """``step_id`` failed; ``category`` is ``transient``, ``tool_error``, ``precondition``, ``side_effect``..."""
        self._tick()
        return self._done([self._m.fail(step_id, message, category)])[0]

    def retry(self, step_id: str, message: str = "") -> Event:
        """The agent will try ``step_id`` again."""
        self._tick()
        return self._done([self._m.retry(step_id, message or f"retry {step_id!r}")])[0]

    def invalidate(
        self, step_ids: Iterable[str], message: str, step_id: str | None = None
    ) -> Event:
        """The agent voided ``step_ids`` (their facts leave the state unless another step established them)."""
        self._tick()
        m = self._m
        voided = set(step_ids)
        kept = m.completed.intersection(m.plan.ids if m.plan else ()) - voided
        return self._done([m.invalidate(step_id, voided, kept, message)])[0]

    def replan(self, new_plan: Plan, trigger: str) -> Event:
        """The agent revised its plan because of ``trigger``; version, parent and invalidated are filled in."""
        self._tick()
        m = self._m
        old = m.plan
        if old is None:
            raise SimulationError("record a plan with propose() before a replan")
        dropped = set(old.ids) - set(new_plan.ids) - m.completed
        new = complete_revision(old, new_plan, trigger, dropped)
        return self._done([m.replan(new, f"plan v{new.version} after {trigger}")])[0]

    def stop(self, outcome: str, message: str = "") -> Event:
        """The run ended with ``outcome`` (one of the SPEC outcomes)."""
        if outcome not in OUTCOMES:
            raise SimulationError(
                f"unknown outcome {outcome!r}; choose one of {', '.join(OUTCOMES)}"
            )
        self._tick()
        return self._done([self._m.stop(outcome, message or "recorded")])[0]

    @property
    def run(self) -> Run:
        """The run recorded so far."""
        return self._m.run("recorded", ())

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the run recorded so far as a trace."""
        save_trace(self.run, path)
