"""Fuzzing every reader with generated documents: only the documented errors ever come out.

Four families, 10,000 documents per run in all (``FUZZ_EXAMPLES``):

- plan text: real documents of every format (the bundled examples, planner
  outputs) mutated by insertions, deletions, truncation and long repetitions
  of the characters the parsers and their regular expressions care about;
- arbitrary Python data given to ``load_plans`` (tuple keys, sets, bytes,
  huge integers, floats that are not finite, lone surrogates, lists that
  contain themselves, lists shared thousands of times), with and without a
  forced ``format=``, so every importer path meets it;
- plan- and planner-shaped Python data (the keys the readers look for) with
  the same hostile values;
- run traces: real traces mutated line by line and byte by byte.

A reader may return plans (which then validate and write out and read back
equal) or raise ``PlanFormatError`` (``TraceFormatError`` for traces); any other
exception fails. Repetitions reach tens of thousands of characters, enough for
a super-linear regular expression to turn this suite from seconds into hours;
the time bounds themselves are asserted in tests/test_bad_input.py.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import planviz
from planviz import examples
from planviz.errors import PlanFormatError, PlanvizTypeError, TraceFormatError
from planviz.plan.files import FORMATS
from planviz.traces.own.tracefile import run_to_lines

FUZZ_EXAMPLES = {"text": 4000, "python_data": 2000, "shaped_data": 3000, "traces": 1000}


def fuzz(family: str):
    """Under CI the generated documents are the same every run (a red CI names a real bug, not a draw);
    elsewhere each run draws new ones, to keep finding what the last draw missed."""
    return settings(
        max_examples=FUZZ_EXAMPLES[family],
        deadline=None,
        database=None,
        derandomize=bool(os.environ.get("CI")),
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
    )


def test_ten_thousand_documents_per_run():
    assert sum(FUZZ_EXAMPLES.values()) >= 10_000


# --------------------------------------------------------------------------- plan text

LLMC = (
    'Question: ratio?\nThought: look both up\n1. search("Everest")\n2. search("K2", ["$1"])\n'
    '3. math("$1 / ${2}")\n4. join()<END_OF_PLAN>\n'
)
REWOO = (
    "Question: how high?\nPlan: look it up\n#E1 = Wikipedia[Colorado orogeny]\n"
    "Plan: ask. #E2 = LLM[height? #E1]\n"
)
HGPT = (
    '[{"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": "e1.jpg"}}, '
    '{"task": "text-to-speech", "id": 1, "dep": [0], "args": {"text": "<GENERATED>-0"}}]'
)
TASKBENCH = json.dumps(
    {
        "user_request": "r",
        "task_nodes": [{"task": "A", "arguments": ["x"]}, {"task": "B", "arguments": ["<node-0>"]}],
        "task_links": [{"source": "A", "target": "B"}],
    }
)
NESTFUL = json.dumps(
    {
        "input": "q",
        "output": [
            {"name": "f", "arguments": {"a": 1}, "label": "var1"},
            {"name": "g", "arguments": {"x": "$var1.y$"}, "label": "var2"},
        ],
    }
)
TOOLCALL = json.dumps(
    {
        "goal": "g",
        "steps": [
            {"n": 1, "tool": "lookup", "arguments": {"id": "C-17"}, "why": "w"},
            {
                "n": 2,
                "tool": "offer",
                "arguments": {"x": "{{step_1.b}}"},
                "why": "w",
                "dependsOn": [1],
            },
        ],
    }
)
SEEDS = [examples.path(name).read_text(encoding="utf-8") for name in examples.names()] + [
    LLMC,
    REWOO,
    HGPT,
    TASKBENCH + "\n" + TASKBENCH + "\n",
    NESTFUL,
    TOOLCALL,
    "{{" * 50,
    "\n\n\n",
]

# what the parsers and the importers' regular expressions look for
PIECES = list("{}[]\":,'-#&*!|>?%@` \n\t\r\\$.()=<>0123456789eE+_") + [
    "{{",
    "}}",
    "{{step_1.x}}",
    "#E",
    "#E1",
    " = ",
    "$1",
    "${1}",
    "$var1.x$",
    "<node-0>",
    "<GENERATED>-0",
    "1. ",
    "f(",
    "join()",
    "<END_OF_PLAN>",
    "Question:",
    "Plan:",
    "Thought:",
    "###",
    "- ",
    "  ",
    "---\n",
    "&a ",
    "*a",
    "!!str ",
    "!!python/object ",
    "<<: ",
    "\\u",
    "\\udc00",
    "\\ud83d\\ude80",
    "\ufeff",
    "é",
    "\x00",
    "\u2028",
    "NaN",
    "Infinity",
    "1e999",
    "1.7e308",
    "9" * 400,
    "true",
    "null",
    '"task": ',
    '"dep": [',
    "goal",
    "steps",
    "id: ",
    "n: ",
    "tool: ",
    "duration: ",
    "depends_on: ",
    "arguments: ",
    "\ud800",
]


@st.composite
def mutated_text(draw) -> str:
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "repeat", "truncate"]))
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 40)))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "truncate":
            text = text[:i]
        elif op == "repeat":  # long runs are what super-linear backtracking feeds on
            unit = text[i : min(j, i + 3)] or draw(st.sampled_from(PIECES))
            text = text[:i] + unit * draw(st.sampled_from([2, 3, 50, 1000, 20_000])) + text[i:]
        else:
            text = text[:i] + draw(st.sampled_from(PIECES)) + text[j if op == "replace" else i :]
    return text


def plans_hold_up(plans: list) -> None:
    """What every plan a reader returns must survive: validation, and writing out and reading back."""
    for plan in plans:
        assert isinstance(plan, planviz.Plan)
        planviz.validate(plan)
        # a plan file holds neither what an importer found nor where the plan came from
        assert planviz.parse_plan(planviz.dump_plan(plan)) == plan.replace(
            import_findings=(), source_format="", name=""
        )


@fuzz("text")
@given(
    st.one_of(
        mutated_text(),
        mutated_text().map(lambda t: t.encode("utf-8", "surrogatepass")),
        st.binary(max_size=200),
    ),
    st.sampled_from([None, *FORMATS]),
)
def test_mutated_plan_text_gives_plans_or_a_plan_format_error(text, fmt):
    try:
        plans = planviz.parse_plans(text, format=fmt)
    except PlanFormatError as exc:
        assert exc.source == "<string>" and "\n" not in str(exc)
        return
    plans_hold_up(plans)


# --------------------------------------------------------------------------- Python data


class Opaque:
    def __repr__(self) -> str:
        raise RuntimeError("a repr that fails")


_HOSTILE = [
    lambda: 10**5000,
    lambda: -(10**4400),
    lambda: float("nan"),
    lambda: float("inf"),
    lambda: -0.0,
    lambda: 1.7e308,
    lambda: "A\udc00",
    lambda: "\ud800",
    lambda: "{{" * 2000,
    lambda: "\n" * 3000,
    lambda: "[" * 3000,
    lambda: "#E1 = f[#E1]\n" * 200,
    lambda: "1. f($1)\n" * 200,
    lambda: b"bytes",
    lambda: bytearray(b"x"),
    lambda: {1, 2},
    lambda: frozenset(),
    Opaque,
    object,
    lambda: "",
    lambda: "\x00",
    lambda: "<script>",
]
# built when drawn, so the strategy's own repr never meets a value whose repr fails
HOSTILE_LEAVES = st.integers(0, len(_HOSTILE) - 1).map(lambda i: _HOSTILE[i]())
LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=12)
    | st.sampled_from(["x", "1", "-1", "$1", "#E1", "{{step_1.x}}", "<node-0>", "$var1.a$", "S0"])
    | HOSTILE_LEAVES
)
KEYS = (
    st.text(max_size=8)
    | st.tuples(st.integers(), st.integers())
    | st.integers()
    | st.none()
    | st.frozensets(st.integers(), max_size=2)
    | st.sampled_from(["k\udc00", "\ud800"])
    | st.just(0).map(lambda _: 10**5000)
)


def twisted(data):
    """Make a drawn structure hostile after the fact: a list or mapping that contains itself, or shared many times."""

    @st.composite
    def go(draw):
        value = draw(data)
        containers, stack = [], [value]
        while stack:
            v = stack.pop()
            if isinstance(v, (list, dict)) and all(v is not c for c in containers):
                containers.append(v)
                stack.extend(v.values() if isinstance(v, dict) else v)
        lists = [c for c in containers if isinstance(c, list)]
        how = draw(st.sampled_from(["none", "none", "cycle", "share"]))
        if how != "none" and lists:
            target = draw(st.sampled_from(lists))
            if how == "cycle":
                target.append(draw(st.sampled_from(containers)) if draw(st.booleans()) else target)
            else:
                bomb = target[:] or ["x" * 100]
                for _ in range(draw(st.integers(1, 9))):
                    bomb = [bomb] * 20
                target.append(bomb)
        return value

    return go()


PYTHON_DATA = twisted(
    st.recursive(
        LEAVES,
        lambda kids: (
            st.lists(kids, max_size=4)
            | st.tuples(kids, kids)
            | st.dictionaries(KEYS, kids, max_size=4)
        ),
        max_leaves=12,
    ).filter(lambda v: isinstance(v, (dict, list, tuple)))
)

# plain values a planner might emit, right-typed or not, and now and then a hostile one
PLAIN = (
    st.none()
    | st.booleans()
    | st.integers(-3, 12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10)
    | st.sampled_from(
        [
            "x",
            "1",
            "-1",
            "$1",
            "${2}",
            "#E1",
            "{{step_1.x}}",
            "<node-0>",
            "<GENERATED>-1",
            "$var1.a$",
            "$var_result$",
            "S0",
            "-",
            "user",
            "assistant",
            "A",
            "B",
            "join",
            "FinishAction",
        ]
    )
)
VALUE = st.one_of(
    PLAIN,
    st.lists(PLAIN, max_size=3),
    st.dictionaries(st.text(max_size=6), PLAIN, max_size=3),
    st.sampled_from([LLMC, REWOO, HGPT]),
    HOSTILE_LEAVES | PLAIN,
)
MAYBE_LIST = VALUE | st.lists(VALUE, max_size=3)


def records(required: dict, optional: dict | None = None):
    """Mappings with the ``required`` keys and some ``optional`` ones (each a strategy), now and then an odd key."""
    more = st.dictionaries(st.sampled_from(["x", "type", "n", "why"]) | KEYS, VALUE, max_size=1)
    return st.builds(
        lambda a, b: {**b, **a},
        st.fixed_dictionaries(required, optional=optional or {}),
        st.sampled_from([{}, {}, {}]) | more,
    )


STEP = records(
    {"id": VALUE, "action": VALUE},
    {
        "expected_evidence": VALUE,
        "depends_on": MAYBE_LIST,
        "requires": MAYBE_LIST,
        "produces": MAYBE_LIST,
        "duration": VALUE,
        "arguments": VALUE,
        "kind": VALUE,
        "revises": VALUE,
    },
)
TOOLCALL_STEP = records(
    {"n": VALUE, "tool": VALUE}, {"arguments": VALUE, "why": VALUE, "dependsOn": MAYBE_LIST}
)
TASK = records(
    {"task": VALUE}, {"id": VALUE, "dep": MAYBE_LIST, "args": VALUE, "arguments": MAYBE_LIST}
)
CALL = records({"name": VALUE}, {"arguments": VALUE, "label": VALUE})
SHAPED_DATA = twisted(
    st.one_of(
        records(
            {"goal": VALUE, "steps": st.lists(STEP, max_size=4) | VALUE},
            {
                "premises": MAYBE_LIST,
                "contract": records(
                    {},
                    {"required": MAYBE_LIST, "tools": st.dictionaries(st.text(max_size=4), VALUE)},
                ),
            },
        ),
        records({"steps": st.lists(TOOLCALL_STEP, max_size=4)}, {"goal": VALUE}),
        records(
            {"task_nodes": st.lists(TASK, max_size=4) | VALUE},
            {
                "user_request": VALUE,
                "task_links": st.lists(records({"source": VALUE, "target": VALUE}), max_size=3)
                | VALUE,
            },
        ),
        st.lists(TASK, min_size=1, max_size=4),
        st.lists(
            records(
                {
                    "role": st.sampled_from(["user", "assistant", "system"]) | VALUE,
                    "content": VALUE | st.lists(TASK, max_size=3),
                }
            ),
            min_size=1,
            max_size=4,
        ),
        records({"input": VALUE, "output": st.lists(CALL, max_size=4) | VALUE}),
        st.dictionaries(st.text(max_size=6), mutated_text(), min_size=1, max_size=2),
        st.lists(st.fixed_dictionaries({"output": mutated_text()}), min_size=1, max_size=2),
    )
)


def load_or_refuse(data, fmt) -> None:
    try:
        plans = planviz.load_plans(data, format=fmt)
    except PlanFormatError as exc:
        assert "\n" not in str(exc)
        return
    except PlanvizTypeError:
        assert not isinstance(data, (dict, list, tuple)), (
            "parsed data was refused as the wrong type"
        )
        return
    plans_hold_up(plans)


@fuzz("python_data")
@given(PYTHON_DATA, st.sampled_from([None, *FORMATS]))
def test_any_python_data_gives_plans_or_a_plan_format_error(data, fmt):
    load_or_refuse(data, fmt)


@fuzz("shaped_data")
@given(SHAPED_DATA, st.sampled_from([None, None, None, *FORMATS]))
def test_plan_and_planner_shaped_data_gives_plans_or_a_plan_format_error(data, fmt):
    load_or_refuse(data, fmt)


# --------------------------------------------------------------------------- traces


def _traces() -> list[bytes]:
    out = []
    for name, faults in (
        ("cache_isolation", ["S1:transient", "S3:side_effect"]),
        ("parser_fix", []),
        ("past_due_account", ["step_1:tool_error"]),
    ):
        plan = examples.load(name)
        faults = [planviz.Fault.parse(f) for f in faults if f.split(":")[0] in plan.ids]
        run = planviz.simulate(plan, faults=faults)
        out.append("".join(run_to_lines(run)).encode("utf-8"))
    return out


TRACES = _traces()
TRACE_PIECES = [
    b'"',
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\n",
    b"null",
    b"1e999",
    b"NaN",
    b"-1",
    b"9" * 400,
    b'"x"',
    b"[]",
    b"{}",
    b"true",
    b'"\\udc00"',
    b"\xff",
    b"\x00",
    b'"type": "event"',
    b'"index": ',
    b'"time": ',
    b'"step": ',
    b'"statuses": {',
    b'"plan_version": 2',
    b'"kind": "fail"',
]


@st.composite
def mutated_trace(draw) -> bytes:
    lines = draw(st.sampled_from(TRACES)).split(b"\n")
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["bytes", "drop", "swap", "duplicate", "truncate"]))
        k = draw(st.integers(0, len(lines) - 1))
        if op == "drop":
            del lines[k]
        elif op == "swap":
            m = draw(st.integers(0, len(lines) - 1))
            lines[k], lines[m] = lines[m], lines[k]
        elif op == "duplicate":
            lines.insert(k, lines[k])
        elif op == "truncate":
            lines = lines[: k + 1]
            lines[-1] = lines[-1][: draw(st.integers(0, len(lines[-1])))]
        else:
            line = lines[k]
            i = draw(st.integers(0, len(line)))
            j = draw(st.integers(i, min(len(line), i + 12)))
            lines[k] = (
                line[:i]
                + draw(st.sampled_from(TRACE_PIECES)) * draw(st.sampled_from([1, 1, 3]))
                + line[j:]
            )
        if not lines:
            break
    return b"\n".join(lines)


@fuzz("traces")
@given(mutated_trace())
def test_mutated_traces_load_or_raise_a_trace_format_error(raw):
    try:
        run = planviz.parse_trace(raw)
    except TraceFormatError as exc:
        assert "\n" not in str(exc)
        return
    assert isinstance(run, planviz.Run)
    for i in range(len(run.events)):
        run.frame(i)


@pytest.mark.parametrize("raw", TRACES, ids=["cache_isolation", "parser_fix", "past_due_account"])
def test_the_seed_traces_load(raw):
    assert planviz.parse_trace(raw).events
