"""io/limits.py: the caps on untrusted input, read at each call, raisable by a program or the environment."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import planviz
from planviz.errors import PlanFormatError
from planviz.io import limits

# about 60 kB written out
ALIASES = (
    "goal: &a '"
    + "x" * 1000
    + "'\nsteps:\n"
    + "".join(f"  - {{id: S{i}, action: *a, expected_evidence: *a}}\n" for i in range(30))
)


@pytest.mark.parametrize(
    "cap, value, text, message",
    [
        (
            "MAX_BYTES",
            100,
            "goal: g\nsteps: []\n" + "#" * 200,
            r"larger than the 9\.53674e-05 MiB cap: raise planviz\.io\.limits\.MAX_BYTES",
        ),
        (
            "MAX_EXPANDED_BYTES",
            20_000,
            ALIASES,
            r"more than 0\.0190735 MiB of text .* planviz\.io\.limits\.MAX_EXPANDED_BYTES",
        ),
        (
            "MAX_ALIAS_NODES",
            10,
            ALIASES,
            r"more than 10 nodes .* planviz\.io\.limits\.MAX_ALIAS_NODES",
        ),
        (
            "MAX_DEPTH",
            3,
            "goal: g\nsteps: [[[[[]]]]]\n",
            r"nesting deeper than 3 levels: .*planviz\.io\.limits\.MAX_DEPTH",
        ),
        (
            "MAX_DEPTH",
            3,
            '{"goal": "g", "steps": [[[[[]]]]]}',
            r"nesting deeper than 3 levels: .*MAX_DEPTH",
        ),
        (
            "MAX_DIGITS",
            10,
            '{"goal": "g", "steps": [{"id": "A", "action": "a", "duration": 12345678901}]}',
            r"integer of 11 digits is too large \(the limit is 10\): .*planviz\.io\.limits\.MAX_DIGITS",
        ),
        (
            "MAX_DIGITS",
            10,
            "goal: g\nsteps:\n  - {id: A, action: a, duration: -12345678901}\n",
            r"integer of 11 digits is too large \(the limit is 10\): .*MAX_DIGITS",
        ),
    ],
)
def test_each_cap_is_read_when_input_is_read_and_says_how_to_raise_it(
    monkeypatch, cap, value, text, message
):
    monkeypatch.setattr(limits, cap, value)
    with pytest.raises(PlanFormatError, match=message):
        planviz.parse_plan(text)


def test_raising_a_cap_lets_trusted_input_through(monkeypatch):
    # 60 MB written out
    bomb = (
        "goal: &a '"
        + "x" * 100_000
        + "'\nsteps:\n"
        + "".join(f"  - {{id: S{i}, action: *a, expected_evidence: *a}}\n" for i in range(300))
    )
    with pytest.raises(PlanFormatError, match="MAX_EXPANDED_BYTES"):
        planviz.parse_plan(bomb)
    monkeypatch.setattr(limits, "MAX_EXPANDED_BYTES", 100 * 2**20)
    assert len(planviz.parse_plan(bomb)) == 300


@pytest.mark.parametrize(
    "setting, expected",
    [
        ("1000", "1000"),
        ("1_000", "1000"),
        ("lots", "20971520 warned"),
        ("-5", "20971520 warned"),
        ("", "20971520"),
    ],
)
def test_the_environment_sets_a_cap_for_the_command_line(setting, expected):
    code = (
        "import warnings\nwith warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n    from planviz.io import limits\n"
        "print(limits.MAX_BYTES, 'warned' if w else '')"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PLANVIZ_MAX_BYTES": setting},
    )
    assert out.stdout.strip() == expected, out.stderr


@pytest.mark.parametrize(
    "text, expected",
    [
        ("42", 42),
        ("-7", -7),
        ("+3", 3),
        ("0", 0),
        ("\u00b2", None),
        ("\u0663", None),
        ("--5", None),
        ("1_000", None),
        (" 4", None),
        ("4\n", None),
        ("", None),
        ("9" * 308, int("9" * 308)),
        ("9" * 309, None),
        ("9" * 4300, None),
        ("9" * 4301, None),
        (5, 5),
        (True, None),
        (10**400, None),
        (-(10**308), -(10**308)),
        (2.0, None),
    ],
)
def test_read_int_takes_only_ascii_digits_within_the_number_limit_and_float_range(text, expected):
    assert limits.read_int(text) == expected


def test_the_number_limit_is_read_at_each_call(monkeypatch):
    monkeypatch.setattr(limits, "MAX_DIGITS", 3)
    assert (limits.read_int("999"), limits.read_int("1000")) == (999, None)
