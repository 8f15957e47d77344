"""Random plans and faults for the property tests: one generator, with switches for what a test needs to vary."""

from __future__ import annotations

from hypothesis import strategies as st

from planviz import Fault, Plan, Step

FAULT_KINDS = [
    "transient",
    "tool_error",
    "side_effect",
    "missing_evidence",
    "goal_change",
    "premise_false",
    "extra_fact",
]


@st.composite
def plans(
    draw,
    *,
    min_steps: int = 1,
    max_steps: int = 8,
    max_deps: int = 3,
    durations=st.integers(0, 9),
    requires: str = "some",
    strays: bool = False,
    kinds: bool = False,
    approvals: bool = False,
    resources=None,
    rollbacks: bool = False,
    goal: str = "random goal",
    premises=("p",),
) -> Plan:
    """A plan of steps S0..Sn-1 with up to ``max_deps`` earlier dependencies each, in a shuffled file order.

    Step ``Si`` produces ``fi`` and requires the facts of ``"some"``, ``"all"`` or ``"none"`` of its dependencies.
    ``strays`` adds now and then a dependency on a step that does not exist (``GONE``) and a required fact
    from anywhere (another step's, the premise ``p``, or ``x`` that nothing produces). ``resources`` is a
    strategy for each step's resource list.
    """
    n = draw(st.integers(min_steps, max_steps))
    steps = []
    for i in range(n):
        deps = sorted(draw(st.sets(st.integers(0, i - 1), max_size=max_deps))) if i else []
        depends_on = [f"S{j}" for j in deps] + (
            ["GONE"] if strays and draw(st.integers(0, 12)) == 0 else []
        )
        needs = [
            f"f{j}" for j in deps if requires == "all" or requires == "some" and draw(st.booleans())
        ]
        if strays:
            needs += draw(
                st.lists(
                    st.sampled_from([f"f{j}" for j in range(n) if j != i] + ["p", "x"]), max_size=1
                )
            )
        fields = {}
        if kinds:
            fields["kind"] = draw(st.sampled_from([None, "patch", "verify"]))
        if approvals:
            fields["approval"] = draw(st.sampled_from([None, None, None, "lead"]))
        if resources is not None:
            fields["resources"] = draw(resources)
        if rollbacks:
            fields["rollback"] = draw(st.sampled_from(["", "undo"]))
        steps.append(
            Step(
                f"S{i}",
                f"step {i}",
                expected_evidence=f"f{i} observed",
                depends_on=depends_on,
                requires=needs,
                produces=[f"f{i}"],
                duration=draw(durations),
                **fields,
            )
        )
    order = draw(st.permutations(range(n)))
    return Plan(goal, [steps[i] for i in order], premises=list(premises))


@st.composite
def plans_and_faults(
    draw,
    plans=plans(),
    *,
    max_faults: int = 3,
    extra_facts=("noise", "not f0", "not p"),
    goals: bool = False,
) -> tuple[Plan, list[Fault]]:
    """A plan from ``plans`` and up to ``max_faults`` faults on its steps, of every kind the step allows."""
    plan = draw(plans)
    ids = sorted(plan.ids)
    faults = []
    for _ in range(draw(st.integers(0, max_faults))):
        step = plan.step(draw(st.sampled_from(ids)))
        kinds = (
            FAULT_KINDS
            + (["withdraw"] if step.requires else [])
            + (["approval_denied"] if step.approval else [])
        )
        kind = draw(st.sampled_from(kinds))
        fact = draw(st.sampled_from(list(extra_facts))) if kind == "extra_fact" else None
        goal = (
            draw(st.sampled_from([None, "a new goal"])) if goals and kind == "goal_change" else None
        )
        faults.append(Fault(step.id, kind, fact, draw(st.integers(1, 3)), goal=goal))
    return plan, faults
