"""Argument validation at plan time: a tool's registry entry says which arguments it takes (a name -> type
table with ``required``, or a JSON Schema object), and ``validate`` reports ``bad_arguments`` for a call that
leaves out a required one, passes one the tool does not take, or a literal of the wrong type."""

from __future__ import annotations

import json

import pytest

from planviz import (
    Contract,
    Plan,
    PlanFormatError,
    SemanticError,
    Step,
    ToolSpec,
    load_contract,
    parse_contract,
    prepare,
    refusal,
    validate,
)

READ_FILE = ToolSpec(
    effect="read",
    arguments={
        "path": "string",
        "limit": "integer",
        "tags": "array",
        "ratio": "number",
        "strict": "boolean",
        "note": "string|null",
    },
    required=["path"],
)
SCHEMA = {
    "type": "object",
    "properties": {"q": {"type": "string"}, "n": {"type": ["integer", "null"]}},
    "required": ["q"],
    "additionalProperties": False,
}


def contract(**tools: ToolSpec) -> Contract:
    return Contract(
        tools={
            "read_file": READ_FILE,
            "search": ToolSpec(effect="read", arguments=SCHEMA),
            "open": ToolSpec(effect="read"),
            **tools,
        }
    )


def plan(arguments: dict, tool: str = "read_file") -> Plan:
    return Plan(
        "g",
        [
            Step("S0", "find it", tool="open", expected_evidence="e", produces="found"),
            Step(
                "S1",
                "read it",
                tool=tool,
                arguments=arguments,
                depends_on="S0",
                requires="found",
                expected_evidence="e",
                produces="read",
            ),
        ],
    )


def bad(report) -> list[str]:
    return [f.message for f in report.findings if f.code == "bad_arguments"]


@pytest.mark.parametrize(
    "arguments, tool",
    [
        ({"path": "a.txt"}, "read_file"),
        (
            {
                "path": "a.txt",
                "limit": 10,
                "tags": ["x"],
                "ratio": 0.5,
                "strict": True,
                "note": None,
            },
            "read_file",
        ),
        ({"path": "a.txt", "ratio": 2}, "read_file"),  # an integer is a number
        # placeholders are no literals
        (
            {"path": "{{S0.path}}", "limit": "{{S0.count}}"},
            "read_file",
        ),
        ({"path": "{{ S0.path }}", "strict": "{{S0.strict}}"}, "read_file"),
        ({"q": "cache", "n": None}, "search"),  # the JSON Schema form
        ({"q": "{{S0.query}}", "n": 3}, "search"),
        ({"anything": 1}, "open"),  # no arguments described: not checked
    ],
)
def test_a_call_that_fits_its_tool_has_no_finding(arguments, tool):
    assert bad(validate(plan(arguments, tool), contract())) == []


@pytest.mark.parametrize(
    "arguments, tool, says",
    [
        (
            {},
            "read_file",
            "step 'S1' calls 'read_file' without 'path', which it requires; 'read_file' takes path: "
            "string (required), limit: integer",
        ),
        (
            {"path": "a", "pth": "a"},
            "read_file",
            "passes 'pth' to 'read_file', which does not take it (did you mean 'path'?)",
        ),
        (
            {"path": "a", "limit": "ten"},
            "read_file",
            "passes limit='ten' (a string) to 'read_file', which takes limit: "
            "integer; give S1.arguments.limit an integer",
        ),
        (
            {"path": 3},
            "read_file",
            "passes path=3 (an integer) to 'read_file', which takes path: string",
        ),
        ({"path": "a", "limit": 2.5}, "read_file", "limit=2.5 (a number)"),
        # a bool is no integer
        (
            {"path": "a", "limit": True},
            "read_file",
            "limit=True (a boolean)",
        ),
        ({"path": "a", "tags": "x"}, "read_file", "tags='x' (a string)"),
        (
            {"path": "a", "note": 5},
            "read_file",
            "which takes note: string|null; give S1.arguments.note a string or null",
        ),
        # a list holding a placeholder is a list
        (
            {"path": "a", "limit": ["{{S0.n}}"]},
            "read_file",
            "(an array)",
        ),
        ({"n": 3}, "search", "calls 'search' without 'q'"),  # the JSON Schema form
        ({"q": "x", "page": 2}, "search", "passes 'page' to 'search', which does not take it"),
        ({"q": 7}, "search", "q=7 (an integer)"),
    ],
)
def test_bad_arguments_name_the_step_the_argument_what_it_got_and_what_the_tool_takes(
    arguments, tool, says
):
    report = validate(plan(arguments, tool), contract())
    messages = bad(report)
    assert messages and any(says in m for m in messages), messages
    assert all(
        f.severity == "error" and f.steps == ("S1",)
        for f in report.findings
        if f.code == "bad_arguments"
    )
    assert refusal(plan(arguments, tool), contract()).code == "bad_arguments"
    with pytest.raises(SemanticError, match=r"step 'S1' (calls|passes) "):
        prepare(plan(arguments, tool), contract())


def test_every_problem_of_a_call_is_its_own_finding():
    report = validate(plan({"pth": "a", "limit": "ten"}), contract())
    assert sorted(f.where for f in report.findings if f.code == "bad_arguments") == [
        "S1.arguments",
        "S1.arguments.limit",
        "S1.arguments.pth",
    ]


def test_a_json_schema_without_additional_properties_false_takes_other_arguments():
    open_schema = ToolSpec(arguments={"type": "object", "properties": {"q": {"type": "string"}}})
    assert bad(validate(plan({"q": "x", "page": 2}, "s2"), contract(s2=open_schema))) == []
    assert bad(validate(plan({"q": 1}, "s2"), contract(s2=open_schema)))
    star = ToolSpec(arguments={"q": "string", "*": "any"})
    assert bad(validate(plan({"q": "x", "page": 2}, "s3"), contract(s3=star))) == []


@pytest.mark.parametrize(
    "text",
    [
        """tools:
  read_file:
    effect: read
    arguments: {path: string, limit: integer}
    required: [path]
""",
        """{"tools": {"read_file": {"effect": "read", "arguments": {"type": "object", "properties":
       {"path": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["path"],
       "additionalProperties": false}}}}""",
    ],
)
def test_contract_files_describe_arguments_in_either_form(text):
    c = parse_contract(text)
    assert (c.tools["read_file"].arguments, c.tools["read_file"].required) == (
        {"path": "string", "limit": "integer"},
        ("path",),
    )
    assert bad(
        validate(
            plan({"limit": "x"}, "read_file"), c.__class__(tools={**c.tools, "open": ToolSpec()})
        )
    )
    # what a contract file says survives a round trip through plain data
    from planviz.plan.records import contract_to_dict

    assert load_contract(json.loads(json.dumps(contract_to_dict(c)))).tools == c.tools


@pytest.mark.parametrize(
    "text, says",
    [
        (
            "tools: {t: {arguments: {path: strng}}}",
            r"tools\.t\.arguments\.path: expected an argument type",
        ),
        (
            "tools: {t: {arguments: {path: string}, required: [pth]}}",
            r"tools\.t\.arguments: requires 'pth'",
        ),
        (
            "tools: {t: {arguments: [path]}}",
            r"tools\.t\.arguments: expected a mapping of argument name to type",
        ),
        ("tools: {t: {required: [path]}}", r"lists required arguments but no 'arguments'"),
        (
            "tools: {t: {arguments: {type: object, properties: {a: {type: int}}}}}",
            r"properties\.a\.type",
        ),
        ("tools: {t: {arguments: {type: object, oneOf: []}}}", r"takes type, properties, required"),
    ],
)
def test_a_wrong_argument_description_is_a_format_error_naming_its_place(text, says):
    with pytest.raises(PlanFormatError, match=says):
        parse_contract(text)


@pytest.mark.parametrize(
    "kwargs, says",
    [
        (dict(arguments={"a": "str"}), r"ToolSpec\.arguments\.a: expected an argument type"),
        (dict(arguments="path"), r"expected a mapping of argument name to type"),
        (dict(arguments={"a": "string"}, required=["b"]), r"requires 'b'"),
        (
            dict(arguments={"a": "string"}, required=[1]),
            r"ToolSpec\.required\[0\]: expected a string",
        ),
    ],
)
def test_toolspec_refuses_a_wrong_argument_description(kwargs, says):
    with pytest.raises(PlanFormatError, match=says):
        ToolSpec(**kwargs)
