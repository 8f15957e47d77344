"""Plan files: loading from every kind of source, format detection, defensive parsing, dumping, schema."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from planviz import (
    Contract,
    Plan,
    PlanFormatError,
    PlanvizTypeError,
    Step,
    dump_plan,
    examples,
    load_contract,
    load_plan,
    load_plans,
    parse_contract,
    parse_plan,
    parse_plans,
    plan_schema,
)
from planviz.io import limits
from planviz.io.limits import MAX_ALIAS_NODES, MAX_DEPTH
from planviz.io.text import text_of
from planviz.plan.document import parse_document
from planviz.plan.fields import PLAN_FIELDS, STEP_FIELDS, TOOLCALL_STEP_FIELDS
from planviz.plan.files import FORMATS

from .test_records import plans

ROOT = Path(__file__).resolve().parents[2]
PLAN_YAML = """\
goal: ship it
time_unit: min
steps:
  - id: S0
    action: build
    expected_evidence: artifact exists
    produces: [built]
  - id: S1
    action: deploy
    depends_on: S0
    requires: built
    expected_evidence: service answers
    duration: 3
"""
PLAN_JSON = json.dumps(
    {"goal": "ship it", "steps": [{"id": "S0", "action": "build", "expected_evidence": "e"}]}
)
TOOLCALL_JSON = json.dumps(
    {
        "premises": ["p"],
        "steps": [
            {"n": 1, "tool": "lookup", "arguments": {"id": "C-17"}, "why": "record shown"},
            {
                "n": 2,
                "tool": "offer",
                "arguments": {"amount": "{{step_1.balance}}"},
                "why": "offer sent",
                "dependsOn": [1],
            },
        ],
    }
)


def yaml_plan(step_lines: str, top: str = "") -> str:
    return f"goal: g\n{top}steps:\n  - id: A\n    action: a\n{step_lines}"


# --------------------------------------------------------------------------- sources


def test_sources_give_the_same_plan(tmp_path):
    path = tmp_path / "plan.yaml"
    path.write_text(PLAN_YAML, encoding="utf-8")
    expected = parse_plan(PLAN_YAML)
    assert expected.ids == ("S0", "S1") and expected.step("S1").depends_on == ("S0",)
    assert parse_plan(PLAN_YAML.encode()) == expected
    for src in (
        str(path),
        path,
        io.StringIO(PLAN_YAML),
        io.BytesIO(PLAN_YAML.encode()),
        parse_document(PLAN_YAML).data,
    ):
        assert load_plan(src) == expected
    assert load_plan(expected) is expected


@pytest.mark.parametrize("text", ["goal: g", b"goal: g", "\ufeffgoal: g", b"\xef\xbb\xbfgoal: g"])
def test_text_of_strings_and_bytes(text):
    assert text_of(text) == "goal: g"


@pytest.mark.parametrize(
    "text", [".", "..", "/etc/hostname", "/dev/zero", "plan.yaml", "~", "README.md"]
)
def test_text_is_never_a_path(text, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError(f"parse_plan opened a file: {args!r}")

    monkeypatch.setattr("builtins.open", refuse)
    monkeypatch.setattr(io, "open", refuse)
    with pytest.raises(PlanFormatError, match="not a plan in any known format|expected"):
        parse_plan(text)


def test_missing_file_is_a_plan_format_error(tmp_path):
    missing = tmp_path / "nope.yaml"
    with pytest.raises(PlanFormatError, match="cannot read the file: No such file") as info:
        load_plan(str(missing))
    assert info.value.source == str(missing)
    with pytest.raises(PlanFormatError, match="this is a directory, not a regular file"):
        load_plan(tmp_path)


@pytest.mark.parametrize("text", [PLAN_YAML, PLAN_JSON, "goal: g\nsteps: []"])
def test_plan_text_given_to_load_plan_says_to_use_parse_plan(text):
    with pytest.raises(PlanFormatError, match=r"load_plan reads a path.*planviz\.parse_plan"):
        load_plan(text)


def test_size_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_BYTES", 100)
    big = "goal: " + "x" * 200
    with pytest.raises(PlanFormatError, match="larger than the .* cap"):
        parse_plan(big)
    path = tmp_path / "big.yaml"
    path.write_text(big)
    with pytest.raises(PlanFormatError, match="file is larger than the .* cap") as info:
        load_plan(path)
    assert info.value.source == str(path)
    with pytest.raises(PlanFormatError, match="cap"):
        parse_plan(big.encode())


@pytest.mark.parametrize("bad", [42, None, 3.5, object(), b"goal: g"])
def test_unusable_source_type(bad):
    with pytest.raises(
        PlanvizTypeError,
        match=r"load_plan\(source=...\) expects a path, an open file or parsed data",
    ):
        load_plan(bad)


@pytest.mark.parametrize("bad", [42, None, {"goal": "g"}, ["x"]])
def test_parse_plan_takes_only_text(bad):
    with pytest.raises(
        PlanvizTypeError, match=r"parse_plan\(text=...\) expects the text of a plan"
    ):
        parse_plan(bad)


# --------------------------------------------------------------------------- encodings


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_byte_order_marks(encoding):
    data = PLAN_YAML.replace("build", "bâtir ✓").encode(encoding)
    if encoding in ("utf-16-le", "utf-16-be"):
        data = "\ufeff".encode(encoding) + data
    assert parse_plan(data).step("S0").action == "bâtir ✓"


def test_bom_in_text_and_file(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + PLAN_JSON.encode())
    assert load_plan(path).goal == "ship it"
    assert parse_plan("\ufeff" + PLAN_JSON).goal == "ship it"


@pytest.mark.parametrize(
    "data, offset, line, column",
    [
        (b"goal: caf\xe9\nsteps: []\n", 9, 1, 10),
        (b"goal: g\nsteps:\n  - id: \xc3\x28\n", 23, 3, 9),
        (b"\xff\x00\x10binary", 0, 1, 1),
    ],
)
def test_invalid_utf8_names_byte_offset_and_line(data, offset, line, column):
    with pytest.raises(PlanFormatError, match=f"invalid UTF-8 at byte offset {offset} ") as info:
        parse_plan(data)
    assert (info.value.line, info.value.column) == (line, column)


def test_utf16_without_bom_is_called_binary():
    with pytest.raises(PlanFormatError, match="NUL character.*UTF-16 without a byte-order mark"):
        parse_plan(PLAN_YAML.encode("utf-16-le"))


def test_bad_utf16_after_its_bom():
    with pytest.raises(PlanFormatError, match="invalid UTF-16"):
        parse_plan(b"\xff\xfe" + b"\x00\xdc")  # a lone low surrogate


# --------------------------------------------------------------------------- YAML 1.1 gotchas


@pytest.mark.parametrize(
    "written, expected",
    [
        ("012", "012"),
        ("no", "no"),
        ("yes", "yes"),
        ("on", "on"),
        ("off", "off"),
        ("y", "y"),
        ("True", "True"),
        ("1:20", "1:20"),
        ("0x1F", "0x1F"),
        ("0o17", "0o17"),
        ("1_000", "1_000"),
        ("2026-11-29", "2026-11-29"),
        ("2026-11-29 10:00:00", "2026-11-29 10:00:00"),
        (".inf", ".inf"),
        (".nan", ".nan"),
        ("NaN", "NaN"),
        ("'012'", "012"),
        ("!!str 42", "42"),
        ("! 42", "42"),
        ('"1e3"', "1e3"),
        ("=", "="),
    ],
)
def test_yaml_ids_and_facts_stay_strings(written, expected):
    plan = parse_plan(
        f"goal: g\nsteps:\n  - id: {written}\n    action: a\n    produces: [{written}]\n"
    )
    assert plan.ids == (expected,)
    assert plan.steps[0].produces == (expected,)


@pytest.mark.parametrize("written", ["1e3", "12", "-4", "0", "3.5"])
def test_numeric_yaml_ids_are_refused_with_a_quote_hint(written):
    with pytest.raises(
        PlanFormatError, match="step ids are strings, got the number .*: quote it"
    ) as info:
        parse_plan(f"goal: g\nsteps:\n  - id: {written}\n    action: a\n")
    assert (info.value.line, info.value.column, info.value.path) == (3, 9, "steps[0].id")


@pytest.mark.parametrize(
    "written, expected",
    [
        ("5", 5.0),
        ("2.5", 2.5),
        ("1e1", 10.0),
        ("0", 0.0),
        ("+3", 3.0),
    ],
)
def test_yaml_numbers_resolve_like_json(written, expected):
    assert parse_plan(yaml_plan(f"    duration: {written}\n")).steps[0].duration == expected


@pytest.mark.parametrize(
    "written", ["1:20", ".inf", ".nan", "five", "'5'", "-1", "true", "null", "9" * 400]
)
def test_bad_durations(written):
    text = yaml_plan(f"    duration: {written}\n")
    if written == "null":  # null means "not given": the default
        assert parse_plan(text).steps[0].duration == 1.0
        return
    with pytest.raises(PlanFormatError, match="expected a finite number >= 0") as info:
        parse_plan(text)
    assert (info.value.line, info.value.column, info.value.path) == (5, 15, "steps[0].duration")


@pytest.mark.parametrize("written", ["1e999", "-1e999"])
def test_overflowing_yaml_numbers_are_refused(written):
    with pytest.raises(PlanFormatError, match="out of range: expected a finite number") as info:
        parse_plan(yaml_plan(f"    duration: {written}\n"))
    assert info.value.line == 5


@pytest.mark.parametrize("digits", [310, 400])
def test_json_integers_too_large_for_a_float_are_refused(digits):
    text = '{"goal": "g", "steps": [{"id": "A", "action": "a",\n  "duration": %s}]}' % (
        "9" * digits
    )
    with pytest.raises(PlanFormatError, match="expected a finite number >= 0") as info:
        parse_plan(text)
    assert (info.value.line, info.value.column, info.value.path) == (2, 15, "steps[0].duration")


@pytest.mark.parametrize(
    "text, line, column",
    [
        (
            '{"goal": "g", "steps": [{"id": "A", "action": "a",\n  "duration": %s}]}'
            % ("9" * 5000),
            2,
            15,
        ),
        (
            '{"goal": "g", "steps": [{"id": "A", "action": "a",\n  "duration": -%s}]}'
            % ("9" * 5000),
            2,
            15,
        ),
        ("goal: g\nsteps:\n  - id: A\n    action: a\n    duration: -%s\n" % ("9" * 5000), 5, 15),
    ],
)
def test_integers_with_too_many_digits_name_their_place(text, line, column):
    with pytest.raises(
        PlanFormatError,
        match=r"integer of 5,000 digits is too large \(the limit is 4,300\): quote it",
    ) as info:
        parse_plan(text)
    assert (info.value.line, info.value.column) == (line, column)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_json_numbers_are_refused(constant):
    text = '{"goal": "g", "steps": [{"id": "A", "action": "a",\n  "duration": %s}]}' % constant
    with pytest.raises(PlanFormatError, match=f"non-finite number {constant}") as info:
        parse_plan(text)
    assert (info.value.line, info.value.column) == (2, 15)


def test_yaml_booleans_are_lowercase_only():
    plan = parse_plan(
        "goal: g\nsteps: []\ncontract:\n  tools:\n    db: {writes: true, permitted: false}\n"
    )
    assert plan.contract.tools["db"].writes is True and plan.contract.tools["db"].permitted is False
    with pytest.raises(PlanFormatError, match="expected true or false, got 'yes'"):
        parse_contract("tools:\n  db: {writes: yes}\n")
    with pytest.raises(PlanFormatError, match="expected true or false, got 'True'"):
        parse_contract("tools:\n  db: {writes: True}\n")


def test_yaml_keys_stay_strings():
    plan = parse_plan(yaml_plan("    arguments: {1: a, on: b, null: c, 2.5: d}\n"))
    assert plan.steps[0].arguments == {"1": "a", "on": "b", "null": "c", "2.5": "d"}


# --------------------------------------------------------------------------- hostile YAML


def test_duplicate_keys_name_both_lines():
    with pytest.raises(
        PlanFormatError, match=r"duplicate key 'action' \(first at line 4\)"
    ) as info:
        parse_plan("goal: g\nsteps:\n  - id: A\n    action: a\n    action: b\n")
    assert (info.value.line, info.value.column, info.value.path) == (5, 5, "steps[0].action")
    with pytest.raises(PlanFormatError, match="duplicate key 'goal'"):
        parse_plan("goal: g\ngoal: h\nsteps: []\n")
    with pytest.raises(PlanFormatError, match="duplicate key 'id'"):
        parse_plan('{"goal": "g", "steps": [{"id": "A", "id": "B"}]}'.replace('"steps"', '"steps"'))


@pytest.mark.parametrize(
    "tagged",
    [
        "!!python/object/apply:os.system ['echo pwned']",
        "!!python/object:builtins.dict {}",
        "!!python/name:os.system",
        "!!python/tuple [1, 2]",
        "!!binary aGVsbG8=",
        "!!timestamp 2026-11-29",
        "!!set {a, b}",
        "!!omap [a: 1]",
        "!!int '3'",
        "!local thing",
        "!<tag:example.com,2026:x> y",
    ],
)
def test_tags_that_construct_objects_are_refused(tagged):
    with pytest.raises(
        PlanFormatError, match="YAML tag .* is not allowed: plan files hold plain data only"
    ) as info:
        parse_plan(
            f"goal: g\nsteps:\n  - id: A\n    action: a\n    arguments:\n      x: {tagged}\n"
        )
    assert info.value.line == 6
    assert info.value.path == "steps[0].arguments.x"


def test_small_aliases_expand():
    plan = parse_plan(
        "goal: g\nsteps:\n  - id: A\n    action: a\n    produces: &facts [x, y]\n"
        "  - id: B\n    action: b\n    requires: *facts\n"
    )
    assert plan.step("B").requires == ("x", "y")


def test_alias_bomb_is_refused_quickly():
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    with pytest.raises(
        PlanFormatError, match=f"aliases expand to more than {MAX_ALIAS_NODES:,} nodes"
    ) as info:
        parse_plan("\n".join(lines) + "\n")
    assert info.value.line is not None and info.value.line <= 10


@pytest.mark.parametrize(
    "text, match",
    [
        ("a: &a [*a]\n", "refers to the node that contains it"),
        ("a: *nowhere\n", "has no anchor &nowhere before it"),
        ("base: &b {x: 1}\ngoal: g\nsteps:\n  - <<: *b\n", "merge keys"),
        ("? [a, b]\n: c\n", "is an alias, list or mapping: expected a plain string key"),
        ("k: &a x\n*a : 1\n", "is an alias, list or mapping"),
        ("goal: g\nsteps:\n\t- id: A\n", "not tabs"),
        ("goal: [g\n", "invalid YAML"),
        ("goal: 'unterminated\n", "invalid YAML"),
        ("goal: g\n  steps: []\n", "invalid YAML"),
    ],
)
def test_malformed_yaml(text, match):
    with pytest.raises(PlanFormatError, match=match) as info:
        parse_plan(text)
    assert info.value.line is not None and info.value.source == "<string>"


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"a": ' * 100_000 + "1" + "}" * 100_000,
        "a: " + "[" * 100_000 + "]" * 100_000,
        "a: " + "{b: " * 100_000 + "c" + "}" * 100_000,
        "".join("  " * i + "-\n" for i in range(1_000)),
    ],
)
def test_deep_nesting_is_refused_before_it_is_built(text):
    with pytest.raises(PlanFormatError, match="nesting deeper than|maximum nesting depth") as info:
        parse_plan(text)
    assert info.value.line is not None


def test_nesting_at_the_cap_loads():
    nested = "[" * (MAX_DEPTH - 4) + "]" * (MAX_DEPTH - 4)
    plan = parse_plan(
        '{"goal": "g", "steps": [{"id": "A", "action": "a", "arguments": {"x": %s}}]}' % nested
    )
    depth, value = 0, plan.steps[0].arguments["x"]
    while value:
        value, depth = value[0], depth + 1
    assert depth == MAX_DEPTH - 5


# --------------------------------------------------------------------------- formats and detection


@pytest.mark.parametrize(
    "text, ids",
    [
        (PLAN_YAML, ("S0", "S1")),
        (PLAN_JSON, ("S0",)),
        (TOOLCALL_JSON, ("step_1", "step_2")),
        ("goal: g\nsteps:\n  - n: 1\n    tool: t\n    why: w\n", ("step_1",)),
        ('{"goal": "g", "steps": [{"id": "A"}]}', ("A",)),
        ("{goal: g, steps: [{id: A, action: a}]}", ("A",)),  # flow YAML that is not JSON
    ],
)
def test_detects_planviz_and_toolcall(text, ids):
    assert parse_plan(text).ids == ids


def test_toolcall_detected_and_mapped():
    plan = parse_plan(TOOLCALL_JSON)
    assert plan.step("step_2").requires == ("step_1.balance",)
    assert plan.step("step_1").produces == ("step_1.balance",)
    assert parse_plan(TOOLCALL_JSON, format="toolcall") == plan


def test_explicit_format_is_used():
    with pytest.raises(PlanFormatError, match="unknown key 'id'.*valid keys: n, tool"):
        parse_plan(PLAN_JSON, format="toolcall")


def test_unknown_format_lists_the_valid_ones():
    with pytest.raises(
        PlanFormatError, match="unknown format 'yaml': expected one of 'planviz', 'toolcall'"
    ):
        parse_plan(PLAN_YAML, format="yaml")
    assert set(FORMATS) == {
        "planviz",
        "toolcall",
        "taskbench",
        "llmcompiler",
        "rewoo",
        "nestful",
        "worfbench",
        "teval",
        "asynchow",
    }


def test_planner_text_goes_to_the_importers():
    text = (
        "Plan: look it up\n#E1 = Wikipedia[Colorado orogeny]\nPlan: read it\n#E2 = LLM[area? #E1]\n"
    )
    plan = parse_plan(text)
    assert plan.step("E2").depends_on == ("E1",)
    assert parse_plan(text, format="rewoo") == plan


@pytest.mark.parametrize(
    "text, match, line",
    [
        ("- a\n- b\n", "not a plan in any known format .*got a list of 2 items", 1),
        ("just some words", "not a plan in any known format .*got the text 'just some words'", 1),
        ("x: 1\n", "not a plan in any known format .*got a mapping with keys x", 1),
        ("", "empty document", 1),
        (" \n\t\n", "empty document", 1),
        ("# only a comment\n", "empty document", 1),
        ('{"goal": "g", "steps": [}', "invalid JSON: Expecting value", 1),
    ],
)
def test_not_a_plan(text, match, line):
    with pytest.raises(PlanFormatError, match=match) as info:
        parse_plan(text)
    assert info.value.line == line


# text that is not a plan is text: the message describes it, it never wonders about files
@pytest.mark.parametrize(
    "text", ["plans/fix", "just some words", "[]", "{}", '"hello"', "---", "- a", "x: 1"]
)
def test_text_that_is_not_a_plan_is_described(text):
    with pytest.raises(PlanFormatError, match="not a plan in any known format") as info:
        parse_plan(text)
    assert "file" not in str(info.value)


def test_json_lines():
    text = PLAN_JSON + "\n\n" + TOOLCALL_JSON + "\n"
    assert [p.ids for p in parse_plans(text)] == [("S0",), ("step_1", "step_2")]
    with pytest.raises(PlanFormatError, match="holds 2 plans, expected one: use parse_plans"):
        parse_plan(text)


def test_json_lines_bad_line_names_its_number():
    text = PLAN_JSON + "\n\n" + '{"goal": "h", "steps": [' + "\n"
    with pytest.raises(PlanFormatError, match="JSON Lines record on line 3") as info:
        parse_plans(text)
    assert info.value.line == 3


def test_json_lines_bad_record_names_line_and_path():
    bad = json.dumps({"goal": "g", "steps": [{"id": "A", "duration": "x"}]})
    with pytest.raises(PlanFormatError, match="finite number") as info:
        parse_plans(PLAN_JSON + "\n" + bad + "\n")
    assert (info.value.line, info.value.path) == (2, "steps[0].duration")
    assert info.value.column == bad.index('"x"') + 1


def test_list_of_plans_and_yaml_documents():
    many = "[" + PLAN_JSON + ", " + PLAN_JSON.replace("ship it", "again") + "]"
    assert [p.goal for p in parse_plans(many)] == ["ship it", "again"]
    docs = PLAN_YAML + "---\n" + PLAN_YAML.replace("ship it", "again")
    assert [p.goal for p in parse_plans(docs)] == ["ship it", "again"]
    bad = PLAN_YAML + "---\n" + PLAN_YAML.replace("duration: 3", "duration: x")
    with pytest.raises(PlanFormatError, match="finite number") as info:
        parse_plans(bad)
    assert (info.value.line, info.value.path) == (
        PLAN_YAML.count("\n") * 2 + 1,
        "steps[1].duration",
    )
    with pytest.raises(PlanFormatError, match="finite") as info:
        parse_plans("[" + PLAN_JSON + ",\n" + PLAN_JSON.replace('"e"', '"e", "duration": -2') + "]")
    assert (info.value.line, info.value.path) == (2, "[1].steps[0].duration")


def test_already_parsed_data():
    data = json.loads(TOOLCALL_JSON)
    assert load_plan(data) == parse_plan(TOOLCALL_JSON)
    assert len(load_plans([json.loads(PLAN_JSON)] * 3)) == 3
    with pytest.raises(PlanFormatError, match="steps\\[0\\].duration"):
        load_plan({"goal": "g", "steps": [{"id": "A", "duration": "x"}]})


# --------------------------------------------------------------------------- locations


@pytest.mark.parametrize(
    "text, line, column, path",
    [
        (yaml_plan("    duration: soon\n"), 5, 15, "steps[0].duration"),
        (yaml_plan("    depends_on: {a: 1}\n"), 5, 17, "steps[0].depends_on"),
        (yaml_plan("    depends_on: [B, 4]\n"), 5, 21, "steps[0].depends_on[1]"),
        (yaml_plan("    tpyo: 1\n"), 5, 11, "steps[0].tpyo"),
        (yaml_plan("    risk: medium\n"), 5, 11, "steps[0].risk"),
        ("goal: g\nsteps:\n  - id: A\n  - 7\n", 4, 5, "steps[1]"),
        ("goal: g\nsteps:\n  - action: a\n", 3, 5, "steps[0]"),
        ("goal: 12\nsteps: []\n", 1, 7, "goal"),
        ('{"goal": "g",\n "steps": [{"id": "A"},\n   {"id": 5}]}', 3, 11, "steps[1].id"),
        (
            '{"goal": "g", "steps": [{"id": "A", "arguments": {"k": [1, {"x": 2}]}, "zz": 1}]}',
            1,
            78,
            "steps[0].zz",
        ),
        (
            "goal: g\nsteps: []\ncontract:\n  tools:\n    db.write: {writes: 1}\n",
            5,
            24,
            "contract.tools['db.write'].writes",
        ),
    ],
)
def test_errors_carry_line_column_and_path(text, line, column, path):
    with pytest.raises(PlanFormatError) as info:
        parse_plan(text)
    err = info.value
    assert (err.line, err.column, err.path) == (line, column, path)
    assert str(err).startswith(f"<string>:{line}:{column}: {path}: ")


def test_file_errors_name_the_file(tmp_path):
    path = tmp_path / "plan.yaml"
    path.write_text(yaml_plan("    duration: soon\n"))
    with pytest.raises(PlanFormatError, match=f"^{path}:5:15: steps\\[0\\].duration: "):
        load_plan(path)


# --------------------------------------------------------------------------- contracts


@pytest.mark.parametrize(
    "text",
    [
        "required: [verify]\nintent: read\n",
        "contract:\n  required: [verify]\n  intent: read\n",
        "goal: g\nsteps: []\ncontract:\n  required: [verify]\n  intent: read\n",
        '{"required": ["verify"], "intent": "read"}',
    ],
)
def test_load_contract_shapes(text):
    assert parse_contract(text) == Contract(required=("verify",), intent="read")


def test_load_contract_from_examples_and_objects():
    plan = examples.load("cache_isolation")
    assert load_contract(examples.path("cache_isolation")) == plan.contract
    assert load_contract(plan) is plan.contract
    assert load_contract(plan.contract) is plan.contract
    assert load_contract({"forbidden": ["x"]}) == Contract(forbidden=("x",))


@pytest.mark.parametrize(
    "text, match, line, path",
    [
        ("goal: g\nsteps: []\n", "this plan file has no 'contract' mapping", 1, None),
        ("contract:\n  intent: delete\n", "expected one of 'read', 'write'", 2, "contract.intent"),
        ("requird: [x]\n", "did you mean 'required'", 1, "requird"),
        ("- a\n", "expected a contract mapping", 1, None),
        ("a: 1\n---\nb: 2\n", "holds 2 documents, expected one contract", None, None),
    ],
)
def test_load_contract_defects(text, match, line, path):
    with pytest.raises(PlanFormatError, match=match) as info:
        parse_contract(text)
    assert (info.value.line, info.value.path) == (line, path)


# --------------------------------------------------------------------------- dumping and round trips


@pytest.mark.parametrize("name", examples.names())
@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_examples_round_trip(name, fmt, tmp_path):
    plan = examples.load(name)
    assert parse_plan(dump_plan(plan, format=fmt)) == plan
    path = tmp_path / f"out.{fmt}"
    text = dump_plan(plan, path)
    assert path.read_text(encoding="utf-8") == text
    assert load_plan(path) == plan
    assert text.lstrip().startswith("{") == (fmt == "json")


def test_dump_is_stable_and_readable():
    plan = parse_plan(PLAN_YAML + "contract:\n  required: [deploy]\n")
    text = dump_plan(plan)
    assert text == dump_plan(parse_plan(text))
    assert (
        text.index("goal:")
        < text.index("time_unit:")
        < text.index("steps:")
        < text.index("contract:")
    )
    assert "risk:" not in text and "horizon:" not in text and "duration: 3\n" in text
    assert json.loads(dump_plan(plan, format="json"))["steps"][1] == {
        "id": "S1",
        "action": "deploy",
        "depends_on": ["S0"],
        "requires": ["built"],
        "expected_evidence": "service answers",
        "duration": 3,
    }


@pytest.mark.parametrize(
    "value",
    [
        "012",
        "1e3",
        "1E+3",
        ".5",
        "no",
        "on",
        "null",
        "~",
        "true",
        "",
        " x",
        "1:20",
        "-",
        "<<",
        "a: b",
        "#",
        "{{step_1.x}}",
        "é\u2028x",
        "\x85",
        "\ufeffx",
    ],
)
def test_dump_quotes_what_would_not_come_back_as_text(value):
    plan = Plan(value, [Step(value or "x", value, expected_evidence=value, produces=[value])])
    assert parse_plan(dump_plan(plan)) == plan
    assert parse_plan(dump_plan(plan, format="json")) == plan


def test_dump_rejects_unknown_format():
    with pytest.raises(PlanFormatError, match="unknown dump format 'xml'"):
        dump_plan(examples.load("cache_isolation"), format="xml")


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans)
def test_text_round_trip(plan):
    assert parse_plan(dump_plan(plan)) == plan
    assert parse_plan(dump_plan(plan, format="json")) == plan


@pytest.mark.slow
def test_hundred_thousand_steps_load():
    n = 100_000
    steps = [
        {
            "id": f"S{i}",
            "action": f"step {i}",
            "expected_evidence": "ok",
            "depends_on": [f"S{i - 1}"] if i else [],
            "produces": [f"f{i}"],
        }
        for i in range(n)
    ]
    plan = parse_plan(json.dumps({"goal": "big", "steps": steps}))
    assert len(plan) == n
    assert plan.step(f"S{n - 1}").depends_on == (f"S{n - 2}",)


@pytest.mark.slow
def test_ten_thousand_step_yaml_round_trip():
    plan = Plan(
        "big",
        [
            Step(
                f"S{i}", f"step {i}", expected_evidence="ok", depends_on=[f"S{i - 1}"] if i else []
            )
            for i in range(10_000)
        ],
    )
    assert parse_plan(dump_plan(plan)) == plan


# --------------------------------------------------------------------------- schema


def test_schema_is_valid_and_accepts_every_example():
    jsonschema = pytest.importorskip("jsonschema")
    schema = plan_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for name in examples.names():
        data = parse_document(examples.path(name).read_text(encoding="utf-8")).data
        assert not list(validator.iter_errors(data)), name
    assert not list(validator.iter_errors(json.loads(TOOLCALL_JSON)))


@pytest.mark.parametrize(
    "data",
    [
        {"goal": "g", "steps": [{"id": "A", "acton": "a"}]},
        {"goal": "g", "steps": [{"id": 3}]},
        {"goal": "g", "steps": [{"id": "A", "duration": -1}]},
        {"goal": "g", "steps": [{"id": "A", "risk": "medium"}]},
        {"goal": "g", "steps": "A"},
        {"steps": [{"n": "1", "tool": "t"}]},
        {"goal": "g", "steps": [], "contract": {"intent": "delete"}},
        {"goal": "g", "steps": [], "contract": {"tools": {"db": {"writes": "yes"}}}},
    ],
)
def test_schema_rejects_what_the_loader_rejects(data):
    jsonschema = pytest.importorskip("jsonschema")
    assert list(jsonschema.Draft202012Validator(plan_schema()).iter_errors(data))
    with pytest.raises(PlanFormatError):
        load_plan(data)


def test_cli_schema_prints_the_schema(cli):
    out = cli("schema")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == plan_schema()


# --------------------------------------------------------------------------- fuzzing: only PlanFormatError escapes

_pieces = st.sampled_from(
    list("{}[]:,\"'-#&*!|>?%@` \n\t0123456789.e+<>$\\")
    + [
        "goal",
        "steps",
        "id: ",
        "n: ",
        "tool: ",
        "- ",
        "  ",
        "{{step_1.x}}",
        "\ufeff",
        "é",
        "&a ",
        "*a",
        "!!str ",
        "!!python/object ",
        "---\n",
        "NaN",
        "1e999",
        "true",
        "null",
    ]
)
_leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4)
_value = st.recursive(
    _leaf,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3),
    max_leaves=6,
)
_step = st.one_of(
    st.dictionaries(st.sampled_from(list(STEP_FIELDS)), _value, max_size=5),
    st.dictionaries(st.sampled_from(list(TOOLCALL_STEP_FIELDS)), _value, max_size=5),
    _value,
)
_plan_data = st.fixed_dictionaries(
    {"steps": st.lists(_step, max_size=3) | _value},
    optional={k: _value for k in PLAN_FIELDS if k != "steps"},
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.lists(_pieces, max_size=40).map("".join), st.binary(max_size=60)))
def test_random_text_gives_a_plan_or_a_plan_format_error(text):
    try:
        parse_plans(text)
    except PlanFormatError as exc:
        assert exc.source == "<string>"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_plan_data, st.sampled_from(["json", "yaml"]))
def test_random_plan_shaped_data_gives_a_plan_or_a_located_error(data, fmt):
    text = json.dumps(data) if fmt == "json" else yaml.safe_dump(data)
    try:
        parse_plans(text)
    except PlanFormatError as exc:
        assert exc.line is not None, str(exc)
    try:
        parse_contract(text)
    except PlanFormatError:
        pass


def test_parsed_data_is_read_as_it_is_never_written_out_as_text_first(monkeypatch):
    """load_plan(mapping) builds the plan from the data itself: no JSON or YAML text is made or parsed."""
    from planviz.plan import files

    def refuse(*args, **kwargs):
        raise AssertionError("load_plan(data) turned the data into text")

    for owner, name in [
        (json, "dumps"),
        (json, "dump"),
        (json.JSONEncoder, "encode"),
        (json, "loads"),
        (yaml, "dump"),
        (yaml, "safe_dump"),
        (files, "parse_document"),
    ]:
        monkeypatch.setattr(owner, name, refuse)
    step = {"id": "A", "action": "a", "expected_evidence": "e", "arguments": {"pair": (1, 2)}}
    assert load_plan({"goal": "g", "steps": [step]}).step("A").arguments == {"pair": [1, 2]}
    assert [
        p.goal for p in load_plans([{"goal": "g", "steps": [step]}, {"goal": "h", "steps": []}])
    ] == ["g", "h"]


@pytest.mark.parametrize(
    "data, name",
    [
        (
            {
                "environment": "swe_main",
                "trajectory": [{"action": "ls"}],
                "history": [],
                "info": {},
            },
            "SWE-agent trajectory",
        ),
        (
            {"win": True, "tree": {}, "forward_args": {}, "answer_generation": {}},
            "ToolBench (DFSDT) answer tree",
        ),
        ([{"api_list": [], "query": "q", "query_id": 1}], "ToolBench query file"),
        ({"task": "t1", "domain": "blocksworld", "instances": []}, "PlanBench results file"),
        (
            [{"idx": 1, "query": "a trip", "plan": [{"days": 1, "current_city": "from A to B"}]}],
            "TravelPlanner itinerary file",
        ),
    ],
)
def test_files_that_are_no_plan_are_named_not_described_by_their_keys(data, name):
    for read in (lambda: load_plans(data), lambda: parse_plans(json.dumps(data))):
        with pytest.raises(
            PlanFormatError,
            match=rf"not a plan format planviz reads: this is an? {re.escape(name)}",
        ):
            read()
