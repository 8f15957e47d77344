"""The JSON text written straight from columns (planviz/frontends/jsontext.py) is the text json.dumps writes of the
records it stands for: json.dumps of the old structures is the oracle, on hostile values (quotes, backslashes,
control characters, non-ASCII, lone surrogates, </script>, floats, None, bools, big ints, nested values); and the
page written from it (encode_page(text=True)) is the same bytes as the page written from the records."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings, strategies as st

from planviz.frontends.jsontext import JsonText, records_text, value_texts

TEXTS = st.one_of(
    st.text(),
    st.text(alphabet=st.sampled_from('"\\</>&\x00\x1f\x7f\u2028\u202e\ud800\udfffé😀{}, :')),
    st.sampled_from(["</script>", '", "', "{}", "{0}", "null", ""]),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**300), max_value=10**300),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXTS,
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXTS, inner, max_size=3)),
    max_leaves=6,
)


def _dumps(value):
    return json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.lists(TEXTS),
        st.lists(st.one_of(st.none(), TEXTS)),
        st.lists(
            st.one_of(
                st.none(),
                st.booleans(),
                st.integers(),
                st.floats(allow_nan=False, allow_infinity=False),
            )
        ),
        st.lists(VALUES),
    )
)
def test_each_value_is_written_as_json_dumps_writes_it(values):
    assert value_texts(values) == [_dumps(v) for v in values]
    assert value_texts(tuple(values)) == [_dumps(v) for v in values]


NAMES = st.lists(TEXTS, min_size=0, max_size=6, unique=True)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_records_are_written_as_json_dumps_writes_their_dicts(data):
    names = tuple(data.draw(NAMES))
    row = st.lists(VALUES, min_size=len(names), max_size=len(names))
    lists = data.draw(st.lists(st.lists(st.one_of(row, row.map(tuple)), max_size=4), max_size=5))
    oracle = _dumps([[dict(zip(names, r)) for r in rows] for rows in lists])
    assert records_text(names, lists) == oracle
    assert json.loads(oracle) is not None  # the text is JSON


def test_the_model_calls_and_arguments_of_a_step_are_written_as_their_records():
    names = (
        "model",
        "start",
        "duration",
        "input_tokens",
        "output_tokens",
        "cost",
        "ok",
        "input",
        "output",
    )
    calls = [
        [["gpt-4o", 0.5, 1.25, 12, 7, None, True, "</script>\u2028\ud800", None]],
        [],
        [
            ["m", 1e300, -0.0, 10**40, 0, 0.001, False, '{"a": ", "}', "é😀"],
            ["m", 2.0, None, None, None, None, True, None, "x"],
        ],
    ]
    assert records_text(names, calls) == _dumps(
        [[dict(zip(names, r)) for r in rows] for rows in calls]
    )
    assert records_text(("name", "value"), [[], []]) == "[[], []]"
    assert records_text(("name", "value"), []) == "[]"


def test_a_value_json_refuses_is_refused_here_too():
    with pytest.raises(ValueError):
        records_text(("a",), [[[math.nan]]])
    with pytest.raises(ValueError):
        value_texts([1.0, math.inf])
    with pytest.raises(TypeError):
        value_texts([object()])
    with pytest.raises(ValueError, match="distinct texts"):
        records_text(("a", "a"), [[[1, 2]]])
    with pytest.raises(ValueError, match="must hold 2 items"):
        records_text(("a", "b"), [[[1]]])
    with pytest.raises(TypeError):
        json.dumps(JsonText("[]"))


def _details(rows):
    """StepDetails of steps S0.. whose calls and arguments are ``rows`` (call rows, argument rows) per step."""
    from planviz.frontends.pagedata import StepDetails

    columns = {
        "action": [f"act </script> {k}" for k in range(len(rows))],
        "arguments": [args for _, args in rows],
        "calls": [calls for calls, _ in rows],
        "ended": [k if k % 2 else None for k in range(len(rows))],
    }
    records = {f"S{k}": {key: col[k] for key, col in columns.items()} for k in range(len(rows))}
    return StepDetails(records, columns)


CALL = st.lists(SCALARS, min_size=9, max_size=9)
ARGUMENT = st.lists(TEXTS, min_size=2, max_size=2)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(CALL, max_size=3), st.lists(ARGUMENT, max_size=3)), max_size=6))
def test_the_page_written_from_the_columns_text_is_the_page_written_from_the_records(rows):
    """encode_page(text=True) gives the details' calls and arguments as their text; gzip_script writes the same
    bytes as from the records, for one run and for two (pair pages write their runs a piece at a time)."""
    from planviz.frontends.page import gzip_script, script_bytes
    from planviz.frontends.pagedata import encode_page

    snap = {"details": _details(rows), "facts": ["é", "\u202e"], "log": [], "steps": ["S0"]}
    pair = {
        "pair": [snap, {**snap, "details": _details(rows[::-1])}],
        "labels": ["a", "b"],
        "ticks": [[0, 0]],
    }
    for page in (snap, pair):
        try:
            plain = encode_page(page)
            expected = gzip_script(plain)
        except (
            ValueError
        ):  # a value JSON refuses (a float out of range): refused from the text as well
            with pytest.raises(ValueError):
                gzip_script(encode_page(page, text=True))
            continue
        written = encode_page(page, text=True)
        assert gzip_script(written) == expected
        assert script_bytes(written) == script_bytes(plain)


def _oracle(page):
    """The page's script text as json.dumps writes it, then shown and escaped as the page does (str.translate)."""
    from planviz.pictures.escape import SHOWN_IN_PAGES

    text = json.dumps(page, ensure_ascii=False, sort_keys=True, allow_nan=False).translate(
        SHOWN_IN_PAGES
    )
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


ROW = st.dictionaries(
    st.sampled_from(["a", "b", "c", "</d>"]),
    st.one_of(st.none(), TEXTS, st.integers(-5, 5), st.floats(-3, 3), st.lists(TEXTS, max_size=2)),
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(ROW, max_size=6),
    st.lists(st.one_of(st.none(), TEXTS), max_size=6),
    st.lists(st.tuples(st.lists(CALL, max_size=2), st.lists(ARGUMENT, max_size=2)), max_size=4),
)
def test_the_page_text_is_json_dumps_of_the_page_data(events, facts, rows):
    """The page's writer (page.script_json, which gzip_script compresses) writes what json.dumps writes of the page
    data, for columns of every kind (text with None: its ids and null), and the same for the data with the
    details' calls and arguments given as text (encode_page(text=True))."""
    from planviz.frontends.page import script_json
    from planviz.frontends.pagedata import encode_page

    snap = {"events": events, "facts": facts, "details": _details(rows), "goal": "</script>"}
    try:
        expected = _oracle(encode_page(snap))
    except ValueError:  # JSON refuses a value: so does the writer
        with pytest.raises(ValueError):
            script_json(encode_page(snap, text=True))
        return
    assert script_json(encode_page(snap)) == expected
    assert script_json(encode_page(snap, text=True)) == expected


FLAT = st.dictionaries(
    st.one_of(TEXTS, st.sampled_from(["},\n  {", "a\nb", "}"])),
    st.one_of(
        SCALARS,
        st.floats(),  # NaN and infinities: value_text writes them as json.dumps does by default
        st.sampled_from(["},\n  {", "}", "{", "\n", "x" * 20_001]),
    ),
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.none(),
            FLAT,
            FLAT.filter(bool),
            FLAT.filter(bool),
            st.integers(max_value=10**5000),
            st.lists(SCALARS, max_size=2),
        ),
        max_size=8,
    )
)
def test_the_results_of_the_steps_are_written_as_value_text_writes_each(values):
    """calldetails._value_texts (the steps' results written by one call of the encoder when all are flat mappings)
    gives value_text of each: separators, braces and line breaks inside texts, NaN, long texts cut, an int too long
    to write shown as show_value shows it."""
    from planviz.frontends.calldetails import _value_texts, value_text

    assert _value_texts(values) == [None if v is None else value_text(v) for v in values]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), FLAT.filter(bool)), min_size=1, max_size=8))
def test_results_that_are_all_flat_mappings_are_written_at_once_as_value_text_writes_each(values):
    from planviz.frontends.calldetails import _value_texts, value_text

    assert _value_texts(values) == [None if v is None else value_text(v) for v in values]
