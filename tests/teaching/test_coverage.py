"""Random cases that cover the rule: the generated questions of each build-it reach every line of its reference
solution (notebooks/solutions), instruction by instruction, and the wrong answers that passed the random
cases before (a re-issue that hard-codes ".v2" or drops a field, a grader matching must_precede by kind only
or dividing by zero when
nothing is required, a guard that ignores one field of the contract) are now refused."""

from __future__ import annotations

import dis
import sys
import types
from dataclasses import fields, replace

import pytest

from planviz import Contract
from planviz.teaching.agreement import ancestor_cases, reach_cases
from planviz.teaching.cases import grade_cases, order_plans, patch_cases, reissue_cases, timed_plans
from planviz.teaching.lesson02b import check_grade
from planviz.teaching.lesson05 import _revisions, check_invariants
from planviz.teaching.lesson07 import check_reissue

from .test_unplugged import solution

BUILD_ITS = {
    "ancestors": ("01_checklist_to_plan.py", "ancestors", ancestor_cases),
    "order": ("01_checklist_to_plan.py", "order", lambda: [(p,) for p in order_plans()]),
    "grade_it": ("02b_planner_outputs_and_grading.py", "grade_it", grade_cases),
    "passes": ("03_critical_path.py", "passes", lambda: [(p,) for p in timed_plans()]),
    "waves": ("03_critical_path.py", "waves", lambda: [(p,) for p in timed_plans(seed=2035)]),
    "voided": ("04_simulated_run.py", "voided", patch_cases),
    "refuse": (
        "05_replanning_rules.py",
        "refuse",
        lambda: [(q.old, q.new, q.goal_changed) for q in _revisions()],
    ),
    "reachable": ("06_debugging_a_failed_run.py", "reachable", reach_cases),
    "reissue": ("07_is_planning_worth_it.py", "reissue", reissue_cases),
}


def _codes(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


#: bookkeeping instructions that are not a branch of the rule
_NOT_A_BRANCH = (
    "CACHE",
    "RESUME",
    "NOP",
    "EXTENDED_ARG",
    "COPY_FREE_VARS",
    "MAKE_CELL",
    "RETURN_GENERATOR",
    "POP_TOP",
)


def _instructions(code: types.CodeType) -> dict[tuple[str, int], int]:
    """(function, offset) -> line, for every instruction of the reference and its nested functions: branch
    coverage at the finest grain, so the two arms of ``a if c else b`` on one line count apart."""
    out = {}
    for c in _codes(code):
        start = (
            None  # an instruction with a long argument is traced at its first EXTENDED_ARG's offset
        )
        for ins in dis.get_instructions(c):
            if ins.opname == "EXTENDED_ARG":
                start = ins.offset if start is None else start
                continue
            if ins.opname not in _NOT_A_BRANCH:
                out[(c.co_qualname, ins.offset if start is None else start)] = ins.positions.lineno
            start = None
    return out


def _reached(fn, cases) -> set[tuple[str, int]]:
    filename = fn.__code__.co_filename
    seen: set[tuple[str, int]] = set()

    def trace(frame, event, arg):
        if frame.f_code.co_filename != filename:
            return None
        frame.f_trace_opcodes = True
        if event == "opcode":
            seen.add((frame.f_code.co_qualname, frame.f_lasti))
        return trace

    sys.settrace(trace)
    try:
        for case in cases:
            try:
                fn(*case)
            # a reference may refuse a question by raising: that is a branch reached too
            except Exception:
                pass
    finally:
        sys.settrace(None)
    return seen


@pytest.mark.parametrize("name", sorted(BUILD_ITS))
def test_the_generated_cases_reach_every_branch_of_the_reference(name):
    file, fn_name, cases = BUILD_ITS[name]
    fn = solution(file, fn_name)
    reached = _reached(fn, cases())
    missed = sorted(
        {line for key, line in _instructions(fn.__code__).items() if key not in reached}
    )
    assert not missed, (
        f"{file}:{fn_name}: parts of lines {missed} are never reached by the generated cases"
    )


def test_the_cases_have_what_the_rule_speaks_of():
    reissues = reissue_cases()
    assert {p.version for p, _ in reissues} >= {1, 2, 3} and any(not v for _, v in reissues)
    assert any(
        s.requires and s.produces and s.expected_evidence for p, _ in reissues for s in p.steps
    )
    grades = grade_cases()
    assert any(not c.required for _, c in grades)
    assert any(a in p.ids and b in p.ids for p, c in grades for a, b in c.must_precede)
    assert any(p.step(b).kind != b for p, c in grades for a, b in c.must_precede if b in p.ids)
    changed = {
        f.name
        for q in _revisions()
        if q.new.contract is not None and q.old.contract is not None
        for f in fields(Contract)
        if getattr(q.new.contract, f.name) != getattr(q.old.contract, f.name)
    }
    assert changed == {f.name for f in fields(Contract)}


# -- the wrong answers that passed before, generated from the reference ------------------------------------


def _reissue(version_of=lambda old: old.version + 1, blank=()):
    def reissue(old, voided):
        version = version_of(old)
        new_id = {s.id: f"{s.id}.v{version}" for s in old.steps if s.id in voided}
        steps = []
        for s in old.steps:
            depends_on = tuple(new_id.get(d, d) for d in s.depends_on)
            if s.id in new_id:
                lost = {name: type(getattr(s, name))() for name in blank}
                steps.append(
                    replace(s, id=new_id[s.id], revises=s.id, depends_on=depends_on, **lost)
                )
            else:
                steps.append(replace(s, depends_on=depends_on))
        return old.replace(
            steps=steps, version=version, parent=old, invalidated=tuple(sorted(voided))
        )

    return reissue


def test_the_reference_reissue_is_right():
    assert check_reissue(_reissue())


@pytest.mark.parametrize(
    "wrong",
    [_reissue(lambda old: 2)]
    + [_reissue(blank=(name,)) for name in ("requires", "produces", "expected_evidence", "check")],
    ids=["hard-coded .v2", "drops requires", "drops produces", "drops evidence", "drops check"],
)
def test_a_reissue_that_loses_something_is_refused(wrong):
    feedback = check_reissue(wrong)
    assert not feedback and "first disagreement" in feedback.message, feedback.message


def _grade(by_kind_only=False, zero_safe=True):
    reference = solution("02b_planner_outputs_and_grading.py", "grade_it")

    def grade_it(plan, contract):
        steps = {s.id: s for s in plan.steps}
        required = list(contract.required)
        if not zero_safe:
            recall = sum(
                1 for r in required if any(s.kind == r or sid == r for sid, s in steps.items())
            ) / len(required)
        else:
            recall = reference(plan, contract)[0]
        if by_kind_only:  # must_precede entries read as kinds only: an id pair is never violated
            kinds = Contract(
                required=(),
                must_precede=tuple(
                    (a, b) for a, b in contract.must_precede if a not in steps and b not in steps
                ),
            )
            return recall, reference(plan.replace(steps=[replace(s) for s in plan.steps]), kinds)[1]
        return recall, reference(plan, contract)[1]

    return grade_it


def test_the_reference_grade_is_right():
    assert check_grade(_grade())


@pytest.mark.parametrize(
    "wrong",
    [_grade(by_kind_only=True), _grade(zero_safe=False)],
    ids=["must_precede by kind only", "divides by zero when nothing is required"],
)
def test_a_grader_that_misses_part_of_the_rule_is_refused(wrong):
    assert not check_grade(wrong)


def _guard(ignoring):
    def refuse(old, new, goal_changed):
        if goal_changed:
            return None
        if new.goal != old.goal:
            return "goal"
        if new.contract is not None and any(
            getattr(new.contract, f.name) != getattr(old.contract, f.name, None)
            for f in fields(Contract)
            if f.name != ignoring
        ):
            return "contract"
        if new.contract is not None and old.contract is None:
            return "contract"
        return None

    return refuse


def test_a_guard_comparing_every_field_is_right():
    assert check_invariants(_guard(None))


@pytest.mark.parametrize("field", [f.name for f in fields(Contract)])
def test_a_guard_that_ignores_one_field_is_refused(field):
    assert not check_invariants(_guard(field))


def test_the_placeholder_cases_reach_every_branch_of_the_rule():
    """02b's exercise 3 asks what validate says of R4's arguments: its cases reach every instruction of the rule
    they exercise (``bad_placeholder``: an unknown step, the step itself, a step that is not an ancestor, the
    same placeholder twice in one string, a step without arguments)."""
    from planviz.checks import static
    from planviz.teaching.lesson02b import PLACEHOLDER_CASES, _argument_finding

    reached: set[tuple[str, int]] = set()
    filename = static.placeholders.__code__.co_filename

    def trace(frame, event, arg):
        if frame.f_code.co_filename != filename:
            return None
        frame.f_trace_opcodes = True
        if event == "opcode":
            reached.add((frame.f_code.co_qualname, frame.f_lasti))
        return trace

    sys.settrace(trace)
    try:
        for arguments in PLACEHOLDER_CASES.values():
            _argument_finding(arguments)
    finally:
        sys.settrace(None)
    missed = sorted(
        {
            line
            for key, line in _instructions(static.placeholders.__code__).items()
            if key not in reached
        }
    )
    assert not missed, (
        f"planviz/checks/static.py: parts of lines {missed} of placeholders() are never reached"
    )
