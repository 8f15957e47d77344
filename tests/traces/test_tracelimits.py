"""Malformed spans are refused with a TraceFormatError naming the place, within the one number limit and the
one nesting limit of planviz.io.limits: never a traceback (issue 29's reproductions, written as tests)."""

from __future__ import annotations

import json

import pytest

from planviz import TraceFormatError, load_trace, parse_trace


def _sdk(**over):
    span = {
        "name": "execute_tool t",
        "context": {"span_id": "0x1", "trace_id": "0x2"},
        "start_time": 1000,
        "end_time": 2000,
        "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t"},
    }
    span.update(over)
    return span


def _otlp(**over):
    span = {
        "traceId": "02",
        "spanId": "01",
        "name": "execute_tool t",
        "startTimeUnixNano": "1000",
        "endTimeUnixNano": "2000",
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}],
    }
    span.update(over)
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}


CASES = [
    (
        "sdk status a list",
        json.dumps([_sdk(status={"status_code": ["ERROR"]})]),
        r"\[0\]\.status\.status_code",
    ),
    (
        "sdk status an object",
        json.dumps([_sdk(status={"status_code": {"a": 1}})]),
        r"status\.status_code",
    ),
    ("otlp status a list", json.dumps(_otlp(status={"code": [2]})), r"spans\[0\]\.status\.code"),
    (
        "sdk start superscript",
        json.dumps([_sdk(start_time="²")]),
        r"\[0\]\.start_time: expected nanoseconds",
    ),
    (
        "otlp start superscript",
        json.dumps(_otlp(startTimeUnixNano="²")),
        r"startTimeUnixNano: expected",
    ),
    (
        "tokens superscript",
        json.dumps(
            [_sdk(attributes={"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": "³"})]
        ),
        "token count",
    ),
    (
        "intValue dashes",
        json.dumps(_otlp(attributes=[{"key": "k", "value": {"intValue": "--5"}}])),
        r"attributes\[0\]\.value: intValue holds '--5'",
    ),
    (
        "intValue 5000 digits",
        json.dumps(_otlp(attributes=[{"key": "k", "value": {"intValue": "9" * 5000}}])),
        r"attributes\[0\]\.value: intValue holds",
    ),
    (
        "a JSON integer of 5000 digits",
        json.dumps([_sdk()])[:-2] + ', "x": ' + "7" * 5000 + "}]",
        r":1: integer of 5,000 digits is too large \(the limit is 4,300\)",
    ),
    (
        "nesting 5000 deep",
        json.dumps([_sdk()])[:-2] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}]",
        r":1: nesting deeper than 100 levels",
    ),
    (
        "nesting 150 deep",
        json.dumps([_sdk()])[:-2] + ', "x": ' + "[" * 150 + "]" * 150 + "}]",
        r"nesting deeper than 100 levels",
    ),
]


@pytest.mark.parametrize("name, text, match", CASES, ids=[c[0] for c in CASES])
def test_a_malformed_span_is_refused_where_it_stands(tmp_path, name, text, match):
    path = tmp_path / "t.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TraceFormatError, match=match):
        load_trace(path)
    with pytest.raises(TraceFormatError, match=match):
        parse_trace(text)


def test_nesting_inside_strings_does_not_count():
    run = parse_trace(
        json.dumps(
            [
                _sdk(
                    attributes={
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": "t",
                        "gen_ai.tool.call.arguments": "[" * 500,
                    }
                )
            ]
        )
    )
    assert run.plan.ids == ("t",)


def _cycle():
    a: list = []
    a.append(a)
    return a


@pytest.mark.parametrize(
    "data, match",
    [
        (_cycle(), "contains itself"),
        ({1: 2}, "keys are strings"),
        ({"spans": [{"n": 10**5000}]}, "digits"),
        ({"spans": [{"s": {1, 2}}]}, "set"),
    ],
)
def test_python_data_a_file_could_not_hold_is_refused(data, match):
    with pytest.raises(TraceFormatError, match=match):
        load_trace(data)


@pytest.mark.parametrize(
    "path, match", [("a\x00b.json", "NUL"), ("a\udc80.json", "cannot read the trace")]
)
def test_an_impossible_path_is_refused(path, match):
    with pytest.raises(TraceFormatError, match=match):
        load_trace(path)
