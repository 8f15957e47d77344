"""plan_from_dict / contract_from_dict: both plan shapes, every defect named by its field path."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planviz import Contract, Plan, Step, ToolSpec
from planviz.errors import PlanFormatError
from planviz.plan.fields import CONTRACT_FIELDS, STEP_FIELDS, plan_shape
from planviz.plan.records import contract_from_dict, contract_to_dict, plan_from_dict, plan_to_dict


def planviz(*steps, **top):
    return {"goal": "g", "steps": list(steps), **top}


def toolcall(*steps, **top):
    return {"steps": list(steps), **top}


# --------------------------------------------------------------------------- planviz shape


@pytest.mark.parametrize(
    "step, field, expected",
    [
        ({"id": "A", "action": "a"}, "depends_on", ()),
        ({"id": "A", "action": "a", "depends_on": "B"}, "depends_on", ("B",)),
        ({"id": "A", "action": "a", "depends_on": ["B", "C"]}, "depends_on", ("B", "C")),
        ({"id": "A", "action": "a", "requires": "x"}, "requires", ("x",)),
        ({"id": "A", "action": "a", "produces": ["x", "y"]}, "produces", ("x", "y")),
        ({"id": "A", "action": "a", "resources": "db"}, "resources", ("db",)),
        ({"id": "A", "action": "a"}, "duration", 1.0),
        ({"id": "A", "action": "a", "duration": 0}, "duration", 0.0),
        ({"id": "A", "action": "a", "duration": 2.5}, "duration", 2.5),
        ({"id": "A", "action": "a", "rollback": None}, "rollback", ""),
        ({"id": "A", "action": "a", "risk": "high"}, "risk", "high"),
        ({"id": "A", "action": "a", "horizon": "far"}, "horizon", "far"),
        (
            {"id": "A", "action": "a", "tool": "grep", "arguments": {"q": "x"}},
            "arguments",
            {"q": "x"},
        ),
        ({"id": "A", "action": "a", "kind": "patch"}, "kind", "patch"),
        ({"id": "A"}, "action", ""),  # reported by validate (empty_action), not refused here
        ({"id": "A", "action": "a", "expected_evidence": "e"}, "expected_evidence", "e"),
        ({"id": "A", "action": "a", "approval": "CHG-1", "revises": "A0"}, "approval", "CHG-1"),
    ],
)
def test_planviz_step_fields(step, field, expected):
    plan = plan_from_dict(planviz(step))
    assert getattr(plan.steps[0], field) == expected


def test_planviz_plan_fields():
    plan = plan_from_dict(
        planviz(
            {"id": "A", "action": "a"},
            time_unit="min",
            premises="p",
            unknowns=["u1", "u2"],
            version=3,
            trigger="S4 failed",
            invalidated=["S3"],
            contract={"required": ["verify"]},
        )
    )
    assert (
        plan.time_unit,
        plan.premises,
        plan.unknowns,
        plan.version,
        plan.trigger,
        plan.invalidated,
    ) == ("min", ("p",), ("u1", "u2"), 3, "S4 failed", ("S3",))
    assert plan.contract == Contract(required=("verify",))


def test_schema_key_is_accepted_and_ignored():
    assert plan_from_dict(
        planviz({"id": "A", "action": "a"}, **{"$schema": "plan.schema.json"})
    ).ids == ("A",)


def test_from_dict_equals_plan_from_dict():
    data = planviz({"id": "A", "action": "a", "expected_evidence": "e"})
    assert Plan.from_dict(data) == plan_from_dict(data)


def test_arguments_are_copied_not_shared():
    args = {"q": ["x"]}
    plan = plan_from_dict(planviz({"id": "A", "action": "a", "arguments": args}))
    args["q"].append("y")
    assert plan.steps[0].arguments == {"q": ["x"]}


# --------------------------------------------------------------------------- tool-call shape

PAST_DUE = toolcall(
    {
        "n": 1,
        "tool": "lookup_account",
        "arguments": {"customer_id": "C-17"},
        "why": "balance shown",
    },
    {
        "n": 2,
        "tool": "offer_plan",
        "arguments": {"amount": "{{step_1.balance}}", "months": 6},
        "why": "offer sent",
        "dependsOn": [1],
    },
    {
        "n": 3,
        "tool": "log",
        "arguments": {"ref": ["{{ step_2.offer_id }}", {"deep": "{{step_1.balance}}"}]},
        "why": "logged",
        "dependsOn": "step_2",
    },
    premises=["account C-17 is past due"],
    unknowns="can the customer pay?",
)


@pytest.mark.parametrize(
    "step_id, field, expected",
    [
        ("step_1", "action", "lookup_account(customer_id='C-17')"),
        ("step_2", "action", "offer_plan(amount='{{step_1.balance}}', months=6)"),
        ("step_1", "expected_evidence", "balance shown"),
        ("step_1", "tool", "lookup_account"),
        ("step_2", "arguments", {"amount": "{{step_1.balance}}", "months": 6}),
        ("step_1", "depends_on", ()),
        ("step_2", "depends_on", ("step_1",)),
        ("step_3", "depends_on", ("step_2",)),
        ("step_1", "produces", ("step_1.balance",)),
        ("step_2", "requires", ("step_1.balance",)),
        ("step_2", "produces", ("step_2.offer_id",)),
        ("step_3", "requires", ("step_2.offer_id", "step_1.balance")),
        ("step_3", "produces", ()),
    ],
)
def test_toolcall_step_mapping(step_id, field, expected):
    assert getattr(plan_from_dict(PAST_DUE).step(step_id), field) == expected


def test_toolcall_plan_fields():
    plan = plan_from_dict(PAST_DUE)
    assert plan.ids == ("step_1", "step_2", "step_3")
    assert plan.premises == ("account C-17 is past due",)
    assert plan.unknowns == ("can the customer pay?",)
    assert plan.goal == ""


def test_toolcall_missing_dependency_is_not_repaired():
    """A placeholder names step_1 but dependsOn omits it: requires/produces recorded, no edge added."""
    plan = plan_from_dict(
        toolcall(
            {"n": 1, "tool": "a", "why": "w"},
            {"n": 2, "tool": "b", "arguments": {"x": "{{step_1.out}}"}, "why": "w"},
        )
    )
    assert plan.step("step_2").depends_on == ()
    assert plan.step("step_2").requires == ("step_1.out",)
    assert plan.step("step_1").produces == ("step_1.out",)


@pytest.mark.parametrize(
    "depends, expected",
    [
        (2, ("step_2",)),
        ([2, 3], ("step_2", "step_3")),
        (["step_2", 3], ("step_2", "step_3")),
        ("4", ("step_4",)),
        (["step_9"], ("step_9",)),  # unknown: kept for validate to report
        ([], ()),
    ],
)
def test_toolcall_depends_on_forms(depends, expected):
    plan = plan_from_dict(toolcall({"n": 5, "tool": "t", "why": "w", "dependsOn": depends}))
    assert plan.step("step_5").depends_on == expected


def test_toolcall_placeholder_to_missing_step_only_requires():
    plan = plan_from_dict(
        toolcall({"n": 1, "tool": "t", "arguments": {"x": "{{step_7.v}}"}, "why": "w"})
    )
    assert plan.step("step_1").requires == ("step_7.v",)
    assert all(s.produces == () for s in plan.steps)


def test_toolcall_extra_planviz_fields():
    plan = plan_from_dict(
        toolcall(
            {
                "n": 1,
                "tool": "t",
                "why": "w",
                "produces": "done",
                "risk": "high",
                "rollback": "undo",
                "duration": 3,
            }
        )
    )
    step = plan.step("step_1")
    assert (step.produces, step.risk, step.rollback, step.duration) == (
        ("done",),
        "high",
        "undo",
        3.0,
    )


@pytest.mark.parametrize(
    "data, shape",
    [
        (planviz({"id": "A", "action": "a"}), "planviz"),
        (planviz({"action": "a"}), "planviz"),
        (toolcall({"n": 1, "tool": "t"}), "toolcall"),
        (toolcall({"tool": "t", "why": "w"}), "toolcall"),
        ({"goal": "g", "steps": []}, "planviz"),
        ({"steps": ["a", "b"]}, None),
        ({"steps": "x"}, None),
        ([{"steps": []}], None),
        ("steps", None),
    ],
)
def test_plan_shape(data, shape):
    assert plan_shape(data) == shape


# --------------------------------------------------------------------------- defects


@pytest.mark.parametrize(
    "data, path, match",
    [
        ([], None, "expected a plan: a mapping with goal and steps, got a list"),
        ("goal: g", None, "expected a plan"),
        ({"steps": []}, None, "missing required key 'goal'"),
        ({"goal": "g"}, None, "missing required key 'steps'"),
        ({"goal": "g", "steps": None}, None, "'steps' is empty"),
        ({"goal": 2024, "steps": []}, "goal", "expected a string, got 2024 \\(quote it"),
        (
            {"goal": "g", "steps": "S1"},
            "steps",
            "expected a list of step mappings, got a string 'S1'",
        ),
        (
            {"goal": "g", "steps": {"id": "A"}},
            "steps",
            "expected a list of step mappings, got a mapping",
        ),
        (planviz("S1"), "steps[0]", "expected a step mapping, got a string 'S1'"),
        (planviz({"action": "a"}), "steps[0]", "missing required key 'id'"),
        (
            planviz({"id": 3, "action": "a"}),
            "steps[0].id",
            'step ids are strings, got the number 3: quote it \\("3"\\)',
        ),
        (planviz({"id": 1.5, "action": "a"}), "steps[0].id", "step ids are strings.*quote it"),
        (
            planviz({"id": 10**5000, "action": "a"}),
            "steps[0].id",
            "step ids are strings, got the number <an integer of about 5,001 digits>: quote it as written",
        ),
        (planviz({"id": "", "action": "a"}), "steps[0].id", "expected a non-empty string id"),
        (
            planviz({"id": True, "action": "a"}),
            "steps[0].id",
            "expected a non-empty string id, got True",
        ),
        (planviz({"id": "A", "action": ["a"]}), "steps[0].action", "expected a string"),
        (
            planviz({"id": "A", "action": "a"}, {"id": "B", "depends_on": 3}),
            "steps[1].depends_on",
            "expected a string or a list of strings, got 3",
        ),
        (
            planviz({"id": "A", "depends_on": ["B", 4]}),
            "steps[0].depends_on[1]",
            "expected a string, got 4",
        ),
        (
            planviz({"id": "A", "depends_on": {"B": 1}}),
            "steps[0].depends_on",
            "expected a string or a list",
        ),
        (
            planviz({"id": "A", "duration": "soon"}),
            "steps[0].duration",
            "finite number >= 0.*got 'soon'",
        ),
        (planviz({"id": "A", "duration": "1:20"}), "steps[0].duration", "got '1:20'"),
        (planviz({"id": "A", "duration": -1}), "steps[0].duration", "finite number >= 0.*got -1"),
        (
            planviz({"id": "A", "duration": math.nan}),
            "steps[0].duration",
            "finite number >= 0.*got nan",
        ),
        (
            planviz({"id": "A", "duration": math.inf}),
            "steps[0].duration",
            "finite number >= 0.*got inf",
        ),
        (
            planviz({"id": "A", "duration": True}),
            "steps[0].duration",
            "finite number >= 0.*got True",
        ),
        (
            planviz({"id": "A", "risk": "medium"}),
            "steps[0].risk",
            "expected one of 'low', 'high', got 'medium'",
        ),
        (
            planviz({"id": "A", "horizon": "later"}),
            "steps[0].horizon",
            "expected one of 'near', 'far'",
        ),
        (
            planviz({"id": "A", "arguments": ["x"]}),
            "steps[0].arguments",
            "expected a mapping of argument name",
        ),
        (
            planviz({"id": "A", "arguments": {"x": math.nan}}),
            "steps[0].arguments.x",
            "expected a finite number",
        ),
        (
            planviz({"id": "A", "arguments": {"x": [object()]}}),
            "steps[0].arguments.x[0]",
            "expected plain data",
        ),
        (planviz({"id": "A", "arguments": {1: "x"}}), "steps[0].arguments", "keys are strings"),
        (planviz({"id": "A", "tool": 7}), "steps[0].tool", "expected a string, got 7"),
        (
            planviz({"id": "A", "dependson": ["B"]}),
            "steps[0].dependson",
            "did you mean 'depends_on'",
        ),
        (planviz({"id": "A", "n": 1}), "steps[0].n", "unknown key 'n'.*valid keys: id, action"),
        ({"goal": "g", "steps": [], "premise": ["p"]}, "premise", "did you mean 'premises'"),
        ({"goal": "g", "steps": [], "version": 0}, "version", "expected an integer >= 1, got 0"),
        (
            {"goal": "g", "steps": [], "version": "2"},
            "version",
            "expected an integer >= 1, got '2'",
        ),
        ({"goal": "g", "steps": [], "premises": [1]}, "premises[0]", "expected a string, got 1"),
        (toolcall({"tool": "t"}), "steps[0]", "missing required key 'n'"),
        (toolcall({"n": 1, "why": "w"}), "steps[0]", "missing required key 'tool'"),
        (
            toolcall({"n": "1", "tool": "t"}),
            "steps[0].n",
            "expected the step number, an integer >= 0, got '1'",
        ),
        (toolcall({"n": -1, "tool": "t"}), "steps[0].n", "integer >= 0, got -1"),
        (
            toolcall({"n": 1, "tool": "t", "dependsOn": [True]}),
            "steps[0].dependsOn[0]",
            "step number or a 'step_k'",
        ),
        (
            toolcall({"n": 1, "tool": "t", "dependsOn": 1.5}),
            "steps[0].dependsOn",
            "step number or a 'step_k'",
        ),
        (
            toolcall({"n": 1, "tool": "t", "depends_on": [2]}),
            "steps[0].depends_on",
            "did you mean 'dependsOn'",
        ),
        (
            toolcall({"n": 1, "tool": "t", "arguments": "x=1"}),
            "steps[0].arguments",
            "expected a mapping",
        ),
        (
            planviz({"id": "A"}, contract={"intent": "delete"}),
            "contract.intent",
            "expected one of 'read', 'write'",
        ),
        (planviz({"id": "A"}, contract=["verify"]), "contract", "expected a contract mapping"),
    ],
)
def test_defects_name_the_field_path(data, path, match):
    with pytest.raises(PlanFormatError, match=match) as info:
        plan_from_dict(data, source="plan.yaml")
    assert info.value.path == path
    assert info.value.source == "plan.yaml"
    assert str(info.value).startswith("plan.yaml: " + (f"{path}: " if path else ""))


def test_unknown_key_lists_valid_keys():
    with pytest.raises(PlanFormatError) as info:
        plan_from_dict(planviz({"id": "A", "zzz": 1}))
    assert "did you mean" not in str(info.value)
    for key in STEP_FIELDS:
        assert key in str(info.value)


# --------------------------------------------------------------------------- contracts


@pytest.mark.parametrize(
    "data, expected",
    [
        ({}, Contract()),
        ({"required": "verify"}, Contract(required=("verify",))),
        (
            {"required": ["reproduce", "verify"], "forbidden": ["delete_tests"]},
            Contract(required=("reproduce", "verify"), forbidden=("delete_tests",)),
        ),
        (
            {"must_precede": [["reproduce", "patch"]]},
            Contract(must_precede=(("reproduce", "patch"),)),
        ),
        (
            {"given_facts": "a", "obtainable_facts": ["b"], "forbidden_states": ["c"]},
            Contract(given_facts=("a",), obtainable_facts=("b",), forbidden_states=("c",)),
        ),
        (
            {
                "tools": {
                    "db": {"writes": True, "permitted": False, "preconditions": "auth"},
                    "grep": None,
                }
            },
            Contract(
                tools={
                    "db": ToolSpec(permitted=False, writes=True, preconditions=("auth",)),
                    "grep": ToolSpec(),
                }
            ),
        ),
        (
            {"intent": "read", "max_retries": 0, "max_replans": 5},
            Contract(intent="read", max_retries=0, max_replans=5),
        ),
        ({"final": "verify"}, Contract(final="verify")),
    ],
)
def test_contract_from_dict(data, expected):
    assert contract_from_dict(data) == expected


@pytest.mark.parametrize(
    "data, path, match",
    [
        ([], None, "expected a contract mapping"),
        ({"requried": ["x"]}, "requried", "did you mean 'required'"),
        (
            {"must_precede": [["a", "b", "c"]]},
            "must_precede[0]",
            "expected a \\[first, second\\] pair",
        ),
        ({"must_precede": ["ab"]}, "must_precede[0]", "pair"),
        ({"must_precede": "a"}, "must_precede", "expected a list of \\[first, second\\] pairs"),
        ({"tools": ["db"]}, "tools", "expected a mapping of tool name"),
        (
            {"tools": {"db": "write"}},
            "tools.db",
            "expected a mapping with permitted, writes, preconditions",
        ),
        (
            {"tools": {"db.v2": {"writes": "yes"}}},
            "tools['db.v2'].writes",
            "expected true or false, got 'yes'",
        ),
        ({"tools": {"db": {"write": True}}}, "tools.db.write", "did you mean 'writes'"),
        ({"max_retries": -1}, "max_retries", "integer >= 0"),
        ({"max_replans": 1.0}, "max_replans", "integer >= 0"),
        ({"final": ["verify"]}, "final", "expected a string"),
    ],
)
def test_contract_defects(data, path, match):
    with pytest.raises(PlanFormatError, match=match) as info:
        contract_from_dict(data)
    assert info.value.path == path


# --------------------------------------------------------------------------- writing and round trip


def test_plan_to_dict_omits_defaults_and_orders_keys():
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e"),
            Step(
                "B",
                "b",
                expected_evidence="e",
                depends_on="A",
                duration=2.5,
                risk="high",
                rollback="undo",
                arguments={"x": 1},
            ),
        ],
        time_unit="min",
        contract=Contract(required=["verify"]),
    )
    data = plan_to_dict(plan)
    assert list(data) == ["goal", "time_unit", "steps", "contract"]
    assert data["steps"][0] == {"id": "A", "action": "a", "expected_evidence": "e"}
    assert list(data["steps"][1]) == [
        "id",
        "action",
        "depends_on",
        "expected_evidence",
        "rollback",
        "duration",
        "arguments",
        "risk",
    ]
    assert data["contract"] == {"required": ["verify"]}


def test_contract_to_dict_lists_only_what_differs():
    assert contract_to_dict(Contract()) == {}
    c = Contract(tools={"db": ToolSpec(writes=True)}, intent="read", max_retries=0)
    assert contract_to_dict(c) == {
        "tools": {"db": {"writes": True}},
        "intent": "read",
        "max_retries": 0,
    }
    assert set(contract_to_dict(c)) <= set(CONTRACT_FIELDS)


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_tricky = st.sampled_from(
    [
        "012",
        "no",
        "yes",
        "on",
        "off",
        "1e3",
        "1:20",
        "null",
        "~",
        "true",
        "0x1F",
        "2026-11-29",
        "1_000",
        ".inf",
        "-",
        "<<",
        "{{S1.x}}",
        "a: b",
        "#c",
        "é✓",
    ]
)
_name = st.one_of(
    _tricky, st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8)
)
_names = st.lists(_name, max_size=3).map(tuple)
_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_name, children, max_size=3),
    max_leaves=8,
)


@st.composite
def steps(draw):
    return Step(
        draw(_name),
        draw(_text),
        expected_evidence=draw(_text),
        depends_on=draw(_names),
        requires=draw(_names),
        produces=draw(_names),
        check=draw(_text),
        rollback=draw(_text),
        duration=draw(
            st.one_of(
                st.integers(0, 10**6), st.floats(0, 1e9, allow_nan=False, allow_infinity=False)
            )
        ),
        tool=draw(st.none() | _name),
        arguments=draw(st.dictionaries(_name, _json, max_size=3)),
        resources=draw(_names),
        kind=draw(st.none() | _name),
        risk=draw(st.sampled_from(["low", "high"])),
        approval=draw(st.none() | _text),
        horizon=draw(st.sampled_from(["near", "far"])),
        revises=draw(st.none() | _name),
    )


contracts = st.builds(
    Contract,
    required=_names,
    forbidden=_names,
    must_precede=st.lists(st.tuples(_name, _name), max_size=2),
    given_facts=_names,
    obtainable_facts=_names,
    forbidden_states=_names,
    tools=st.dictionaries(
        _name, st.builds(ToolSpec, st.booleans(), st.booleans(), _names), max_size=2
    ),
    intent=st.sampled_from(["read", "write"]),
    max_retries=st.integers(0, 5),
    max_replans=st.integers(0, 5),
    final=st.none() | _name,
)

plans = st.builds(
    Plan,
    _text,
    st.lists(steps(), max_size=4),
    premises=_names,
    unknowns=_names,
    version=st.integers(1, 9),
    trigger=_text,
    invalidated=_names,
    time_unit=_text,
    contract=st.none() | contracts,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans)
def test_dict_round_trip(plan):
    assert plan_from_dict(plan_to_dict(plan)) == plan


def test_an_integer_id_too_long_to_print_is_a_located_error():
    with pytest.raises(
        PlanFormatError,
        match=r"^steps\[0\]\.id: step ids are strings, got the number <an integer "
        r"of about 5,001 digits>: quote it as written in the file$",
    ):
        plan_from_dict(planviz({"id": 10**5000}))
