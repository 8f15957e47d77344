"""LLMCompiler arguments are Python: ``None``, ``True``, single quotes and implicit concatenation, read as Python.

The truth is the raw planner text read by Python's own literal reader (``ast.literal_eval`` on each
call's argument list), in the test; planviz must give the same values. The real file is TinyAgent's
planner in-context examples (tests/data/real/llmcompiler/, see SOURCES.md), which hold ``None`` and
``"Meeting Postponed," ""`` (two adjacent string literals: one string, ``'Meeting Postponed,'``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from planviz import load_plans, parse_plan

TINYAGENT = (
    Path(__file__).parent.parent
    / "data"
    / "real"
    / "llmcompiler"
    / "tinyagent_planner_examples.txt"
)
_CALL = re.compile(r"^(\d+)\. (\w+)\((.*)\)(?:<END_OF_PLAN>)?$")


def _truth(text: str) -> list[list[tuple[str, str, list]]]:
    """Per question block: (task number, tool, arguments as Python reads them) of every call line."""
    blocks: list[list[tuple[str, str, list]]] = []
    for block in text.split("###"):
        calls = []
        for line in block.splitlines():
            m = _CALL.match(line.strip())
            if m:
                calls.append(
                    (m.group(1), m.group(2), list(ast.literal_eval("[" + m.group(3) + "]")))
                )
        if calls:
            blocks.append(calls)
    return blocks


def test_tinyagent_planner_examples_arguments_are_what_python_reads():
    text = TINYAGENT.read_text(encoding="utf-8")
    truth = _truth(text)
    plans = load_plans(TINYAGENT)
    assert len(plans) == len(truth) == 4
    for plan, calls in zip(plans, truth):
        assert [(s.id, s.tool) for s in plan.steps] == [(n, t) for n, t, _ in calls]
        for step, (_, tool, args) in zip(plan.steps, calls):
            if tool == "join":
                continue
            assert step.arguments == {str(i): v for i, v in enumerate(args)}, step.id
    # the two values of the issue, as Python reads them
    calendar = plans[1].step("3").arguments
    assert calendar["6"] is None
    assert plans[3].step("2").arguments["2"] == "Meeting Postponed,"
    assert plans[1].step("3").depends_on == ("2",)  # "$2" is still a reference


@pytest.mark.parametrize(
    "args, expected",
    [
        ("None, True, False", [None, True, False]),
        ("'single', \"double\"", ["single", "double"]),
        ('"a," "b"', ["a,b"]),
        ("(1, 2)", [[1, 2]]),
        ("Austin Powers, d", ["Austin Powers", "d"]),  # not literals: as written
        ("[john@doe.com], []", [["john@doe.com"], []]),  # an unquoted list: split on its commas
        ("os.system('x')", ["os.system('x')"]),  # a call is never evaluated: kept as text
    ],
)
def test_argument_literals(args, expected):
    plan = parse_plan(
        f"Question: q\n1. tool({args})\n2. join()<END_OF_PLAN>\n", format="llmcompiler"
    )
    assert plan.step("1").arguments == {str(i): v for i, v in enumerate(expected)}


# what CPython warns about while compiling a literal: a number run into a keyword, a bad escape
_NOISY = [
    f"{digits}{word} 2"
    for digits in ("1", "0x1", "0o7", "1e3")
    for word in ("and", "or", "in", "if")
]
_NOISY += [r'"\d"', r"'\w+'", r'["\q", 1and 2]']


@pytest.mark.parametrize("arg", _NOISY)
def test_arguments_python_would_warn_about_are_read_without_a_warning(arg, recwarn):
    import warnings

    warnings.simplefilter("always")
    plan = parse_plan(
        f"Question: q\n1. tool({arg})\n2. join()<END_OF_PLAN>\n", format="llmcompiler"
    )
    assert plan.step("1").arguments  # read, as a literal or as written
    assert [str(w.message) for w in recwarn] == []
