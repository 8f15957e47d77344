"""The one rule for argument types: every public function refuses a value of the wrong type with PlanvizTypeError.

The usual mistake is a path where a loaded value is expected; the message names the function and the
argument, shows what was given, and says what to call instead. Every public function of ``planviz`` is in
the table below or in ``TAKES_TEXT_OR_PATHS`` (the readers, whose first argument *is* text or a path), so a
new public function that forgets the rule fails here.
"""

from __future__ import annotations

import inspect
import os
import typing

import pytest

import planviz
from planviz import Fault, PlanvizTypeError

PLAN = planviz.examples.load("cache_isolation")
RUN = planviz.simulate(PLAN)

# name -> (call with a path where a value belongs, the argument the message must name, the fix it must offer)
CALLS = {
    "validate": (
        lambda: planviz.validate("plan.yaml"),
        "validate(plan=",
        "planviz.load_plan(path)",
    ),
    "prepare": (
        lambda: planviz.prepare(PLAN, "contract.yaml"),
        "prepare(contract=",
        "planviz.load_contract(path)",
    ),
    "refusal": (
        lambda: planviz.refusal("plan.yaml", None),
        "refusal(plan=",
        "planviz.load_plan(path)",
    ),
    "grade": (lambda: planviz.grade("plan.yaml"), "grade(plan=", "planviz.load_plan(path)"),
    "critical_path": (
        lambda: planviz.critical_path("plan.yaml"),
        "critical_path(plan=",
        "planviz.load_plan(path)",
    ),
    "ready_waves": (
        lambda: planviz.ready_waves("plan.yaml"),
        "ready_waves(plan=",
        "planviz.load_plan(path)",
    ),
    "ready_timeline": (
        lambda: planviz.ready_timeline("plan.yaml"),
        "ready_timeline(plan=",
        "load_plan(path)",
    ),
    "reachable": (
        lambda: planviz.reachable("plan.yaml", (), ()),
        "reachable(plan=",
        "planviz.load_plan(path)",
    ),
    "invalidated": (
        lambda: planviz.invalidated("plan.yaml", RUN.state),
        "invalidated(plan=",
        "load_plan(path)",
    ),
    "failure_scope": (
        lambda: planviz.failure_scope("plan.yaml", "S4", "side_effect"),
        "failure_scope(plan=",
        "planviz.load_plan(path)",
    ),
    "why_blocked": (
        lambda: planviz.why_blocked("plan.yaml", RUN.state, "S4"),
        "why_blocked(plan=",
        "load_plan",
    ),
    "to_graph": (
        lambda: planviz.to_graph("plan.yaml"),
        "to_graph(plan=",
        "planviz.load_plan(path)",
    ),
    "from_graph": (
        lambda: planviz.from_graph("plan.yaml"),
        "from_graph(g=",
        "planviz.to_graph(plan)",
    ),
    "dump_plan": (
        lambda: planviz.dump_plan("plan.yaml"),
        "dump_plan(plan=",
        "planviz.load_plan(path)",
    ),
    "simulate": (
        lambda: planviz.simulate("plan.yaml"),
        "simulate(plan=",
        "planviz.load_plan(path)",
    ),
    "compare_strategies": (
        lambda: planviz.compare_strategies("plan.yaml"),
        "compare_strategies(plan=",
        "planviz.load_plan(path)",
    ),
    "metrics": (lambda: planviz.metrics("run.jsonl"), "metrics(run=", "planviz.load_trace(path)"),
    "attribution": (
        lambda: planviz.attribution("run.jsonl"),
        "attribution(run=",
        "planviz.load_trace(path)",
    ),
    "outcome_class": (
        lambda: planviz.outcome_class("run.jsonl"),
        "outcome_class(run=",
        "planviz.load_trace(path)",
    ),
    "frozen_plan_test": (
        lambda: planviz.frozen_plan_test("plan.yaml"),
        "frozen_plan_test(plan=",
        "planviz.load_plan(path)",
    ),
    "run_usage": (
        lambda: planviz.run_usage("run.jsonl"),
        "run_usage(run=",
        "planviz.load_trace(path)",
    ),
    "hindsight": (
        lambda: planviz.hindsight("run.jsonl"),
        "hindsight(run=",
        "planviz.load_trace(path)",
    ),
    "run_summary": (
        lambda: planviz.run_summary("run.jsonl"),
        "run_summary(run=",
        "planviz.load_trace(path)",
    ),
    "what_if": (lambda: planviz.what_if("run.jsonl"), "what_if(run=", "planviz.load_trace(path)"),
    "render_what_if": (
        lambda: planviz.render_what_if("run.jsonl"),
        "render_what_if(what_if=",
        "planviz.what_if(",
    ),
    "diff_runs": (
        lambda: planviz.diff_runs(RUN, "run.jsonl"),
        "diff_runs(b=",
        "planviz.load_trace(path)",
    ),
    "align": (lambda: planviz.align(PLAN, "run.jsonl"), "align(run=", "planviz.load_trace(path)"),
    "save_trace": (
        lambda: planviz.save_trace("run.jsonl", "out.jsonl"),
        "save_trace(run=",
        "load_trace(path)",
    ),
    "redundant_work": (
        lambda: planviz.redundant_work(RUN.state, "plan.yaml"),
        "redundant_work(revised=",
        "planviz.load_plan(path)",
    ),
    "changed_completed": (
        lambda: planviz.changed_completed(PLAN, "plan.yaml", set()),
        "changed_completed(new=",
        "planviz.load_plan(path)",
    ),
    "reissue": (
        lambda: planviz.reissue("plan.yaml", ("S4",), "why"),
        "reissue(plan=",
        "planviz.load_plan(path)",
    ),
    "summarize": (
        lambda: planviz.summarize(["report.json"]),
        "summarize(reports=",
        "planviz.validate(plan)",
    ),
    "grade_many": (lambda: planviz.grade_many(5), "grade_many(cases=", ""),
    "confirmation_sheet": (
        lambda: planviz.confirmation_sheet("plan.yaml"),
        "confirmation_sheet(plan=",
        "planviz.load_plan(path)",
    ),
    "render": (lambda: planviz.render("plan.yaml"), "render(plan=", "planviz.load_plan(path)"),
    "render_alignment": (
        lambda: planviz.render_alignment("plan.yaml"),
        "render_alignment(alignment=",
        "planviz.align(",
    ),
    "animate": (lambda: planviz.animate("run.jsonl", "out.gif"), "animate(run=", "load_trace"),
    "report_html": (
        lambda: planviz.report_html("run.jsonl", "out.html"),
        "report_html(run=",
        "load_trace(path)",
    ),
    "explore": (lambda: planviz.explore("plan.yaml"), "explore(plan=", "planviz.load_plan(path)"),
    "replay": (lambda: planviz.replay(42), "replay(trace=", ""),
    "side_by_side": (
        lambda: planviz.side_by_side(RUN, "run.jsonl"),
        "side_by_side(b=",
        "load_trace",
    ),
    "receive": (lambda: planviz.receive("4318"), "receive(port=", "0 picks a free one"),
    "campaign": (
        lambda: planviz.campaign("plans.yaml"),
        "campaign(plans=",
        "planviz.load_plans(path)",
    ),
    "ablation": (
        lambda: planviz.ablation(["plan.yaml"]),
        "ablation(plans=",
        "planviz.load_plan(path)",
    ),
    "render_campaign": (
        lambda: planviz.render_campaign("campaign.json"),
        "render_campaign(campaign=",
        "planviz.campaign(",
    ),
}

TAKES_TEXT_OR_PATHS = {
    "parse_plan",
    "parse_plans",
    "parse_contract",
    "parse_trace",  # text
    "load_plan",
    "load_plans",
    "load_contract",
    "load_trace",
    "load_traces",  # a path, an open file or data
    "plan_schema",  # no arguments
}


# every other argument a public function types as a planviz value: (function, argument) -> a call passing a str there
OTHER_ARGUMENTS = {
    ("validate", "contract"): lambda: planviz.validate(PLAN, "contract.yaml"),
    ("prepare", "plan"): lambda: planviz.prepare("plan.yaml"),
    ("refusal", "contract"): lambda: planviz.refusal(PLAN, "contract.yaml"),
    ("grade", "contract"): lambda: planviz.grade(PLAN, "contract.yaml"),
    ("critical_path", "contract"): lambda: planviz.critical_path(PLAN, contract="contract.yaml"),
    ("simulate", "contract"): lambda: planviz.simulate(PLAN, "contract.yaml"),
    ("simulate", "faults"): lambda: planviz.simulate(PLAN, faults="S4:side_effect"),
    ("simulate", "propose"): lambda: planviz.simulate(PLAN, propose="planner.py"),
    ("compare_strategies", "faults"): lambda: planviz.compare_strategies(
        PLAN, faults="S4:side_effect"
    ),
    ("compare_strategies", "contract"): lambda: planviz.compare_strategies(
        PLAN, contract="contract.yaml"
    ),
    ("frozen_plan_test", "contract"): lambda: planviz.frozen_plan_test(PLAN, "contract.yaml"),
    ("frozen_plan_test", "faults"): lambda: planviz.frozen_plan_test(PLAN, faults="S4:side_effect"),
    ("frozen_plan_test", "trace"): lambda: planviz.frozen_plan_test(PLAN, trace="run.jsonl"),
    ("attribution", "contract"): lambda: planviz.attribution(RUN, "contract.yaml"),
    ("diff_runs", "a"): lambda: planviz.diff_runs("run.jsonl", RUN),
    ("side_by_side", "a"): lambda: planviz.side_by_side("run.jsonl", RUN),
    ("align", "plan"): lambda: planviz.align("plan.yaml", RUN),
    ("redundant_work", "state"): lambda: planviz.redundant_work("run.jsonl", PLAN),
    ("redundant_work", "before"): lambda: planviz.redundant_work(RUN.state, PLAN, "plan.yaml"),
    ("changed_completed", "old"): lambda: planviz.changed_completed("plan.yaml", PLAN, set()),
    ("render", "run"): lambda: planviz.render(PLAN, "run.jsonl"),
    ("confirmation_sheet", "contract"): lambda: planviz.confirmation_sheet(PLAN, "contract.yaml"),
    ("campaign", "faults"): lambda: planviz.campaign([PLAN], faults="S4:side_effect"),
    ("ablation", "faults"): lambda: planviz.ablation([PLAN], faults="S4:side_effect"),
    ("what_if", "faults"): lambda: planviz.what_if(RUN, faults="S4:side_effect"),
    ("campaign", "executor"): lambda: planviz.campaign(
        [PLAN], samples=1, executor="dask-scheduler:8786"
    ),
    ("ablation", "executor"): lambda: planviz.ablation(
        [PLAN], samples=1, executor="dask-scheduler:8786"
    ),
    ("explore", "contract"): lambda: planviz.explore(PLAN, contract="contract.yaml"),
    ("render", "report"): lambda: planviz.render(PLAN, report="report.json"),
    ("replay", "plan"): lambda: planviz.replay(RUN, plan="plan.yaml"),
}


def _planviz_types(annotation: object) -> bool:
    stack = [annotation]
    while stack:
        a = stack.pop()
        if isinstance(a, type) and a.__module__.startswith("planviz"):
            return True
        stack.extend(typing.get_args(a))
    return False


def _takes_text(annotation: object) -> bool:
    stack = [annotation]
    while stack:
        a = stack.pop()
        if isinstance(a, type) and issubclass(a, (str, os.PathLike)):
            return True
        stack.extend(typing.get_args(a))
    return False


TYPED_ARGUMENTS = sorted(
    (name, argument)
    for name in planviz.__all__
    if inspect.isfunction(getattr(planviz, name))
    for argument, hint in typing.get_type_hints(getattr(planviz, name)).items()
    if argument != "return" and _planviz_types(hint) and not _takes_text(hint)
)


def test_every_argument_typed_as_a_planviz_value_is_in_a_table():
    named = {(name, where.split("(")[1].rstrip("=")) for name, (_, where, _) in CALLS.items()}
    missing = sorted(set(TYPED_ARGUMENTS) - named - set(OTHER_ARGUMENTS))
    assert not missing, (
        f"add each to OTHER_ARGUMENTS in tests/test_arguments.py (and make it refuse a str): {missing}"
    )


@pytest.mark.parametrize("name, argument", sorted(OTHER_ARGUMENTS))
def test_a_str_for_any_typed_argument_is_refused_naming_it(name, argument, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        PlanvizTypeError, match=rf"{name}\({argument}=\.\.\.\) expects .*, got str '"
    ):
        OTHER_ARGUMENTS[name, argument]()
    assert not list(tmp_path.iterdir()), "nothing is written when an argument is refused"


def test_every_public_function_is_in_the_table():
    functions = {
        name
        for name in planviz.__all__
        if inspect.isfunction(getattr(planviz, name)) or inspect.ismethod(getattr(planviz, name))
    }
    missing = sorted(functions - set(CALLS) - TAKES_TEXT_OR_PATHS)
    assert not missing, (
        f"add each to CALLS in tests/test_arguments.py (and make it refuse a str): {missing}"
    )


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_path_where_a_value_belongs_is_refused_with_the_fix(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    call, where, fix = CALLS[name]
    with pytest.raises(PlanvizTypeError, match="expects") as caught:
        call()
    message = str(caught.value)
    assert where in message and fix in message, message
    assert not list(tmp_path.iterdir()), "nothing is written when an argument is refused"


@pytest.mark.parametrize(
    "huge", [10**5000, "x" * 100_000, [[[]]] * 10_000], ids=["int", "str", "list"]
)
def test_a_huge_value_is_shown_short(huge):
    with pytest.raises(PlanvizTypeError) as caught:
        planviz.critical_path(huge)
    assert len(str(caught.value)) < 300


def test_the_fault_type_is_still_accepted_as_text():
    """A fault's command-line spelling stays a value, not a mistake (explore takes "S4:side_effect")."""
    assert isinstance(Fault("S4", "side_effect"), Fault)


# --- a huge value anywhere is shown short ------------------------------------------------------------------------
# Every argument of every public function, given an integer of 5,001 digits or a string of a million characters, is
# either taken or refused with a planviz error (or, for an output path, the OSError of a name no file can have) whose
# message stays short: the value reaches it through errors.show_value, never a bare repr or str (which raises
# ValueError for such an integer, or makes a megabyte of message).

HUGE = {"int": 10**5000, "str": "x" * 10**6}
# they read their first argument: the bad-input suites cover them
READERS = {name for name in TAKES_TEXT_OR_PATHS}
# a huge count of simulations is work, not an error
RUNS_FOREVER = {
    ("campaign", "samples"),
    ("ablation", "samples"),
}


def _required() -> dict[str, object]:
    return {
        "plan": PLAN,
        "run": RUN,
        "a": RUN,
        "b": RUN,
        "revised": PLAN,
        "old": PLAN,
        "new": PLAN,
        "state": RUN.state,
        "alignment": planviz.align(PLAN, RUN),
        "plans": [PLAN],
        "reports": [planviz.validate(PLAN)],
        "cases": [PLAN],
        "path": "out.html",
        "step": "S4",
        "category": "side_effect",
        "voided": ("S4",),
        "trigger": "why",
        "completed": set(),
        "facts": set(),
        "g": planviz.to_graph(PLAN),
        "trace": RUN,
        "contract": None,
        "campaign": planviz.campaign([PLAN], samples=1),
        "what_if": planviz.what_if(RUN),
    }


EVERY_ARGUMENT = sorted(
    (name, argument)
    for name in planviz.__all__
    if inspect.isfunction(getattr(planviz, name)) and name not in READERS
    for argument, p in inspect.signature(getattr(planviz, name)).parameters.items()
    if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and (name, argument) not in RUNS_FOREVER
)


@pytest.mark.parametrize("kind", sorted(HUGE))
@pytest.mark.parametrize("name, argument", EVERY_ARGUMENT)
def test_a_huge_value_anywhere_is_shown_short(name, argument, kind, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    function = getattr(planviz, name)
    values = _required()
    params = inspect.signature(function).parameters
    args = {
        q: values[q]
        for q, p in params.items()
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }
    args[argument] = HUGE[kind]
    try:
        function(**args)
    except (planviz.PlanvizError, OSError) as exc:
        assert len(str(exc)) < 600, (
            f"{name}({argument}=<huge {kind}>) says {len(str(exc))} characters"
        )
