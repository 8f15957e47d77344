"""The picture's caption lines of most events are composed by the page's script from the event's log row, not kept
in the page data (issue 43: 200k caption strings were a fifth of a 100k-span page); the data keeps ``c`` for the
events whose lines the script's rule would get wrong, and only for those.

The truth is :func:`planviz.pictures.captions.event_lines`, the lines the picture of each frame says; the script's
rule is the tests' own copy of ``runview.js``'s ``eventLines`` (tests/frontends/pagedata.py ``composed_lines``,
which counts in UTF-16 code units as a browser does). Every event of every run here must show exactly its
``event_lines``, and keep ``c`` exactly when the rule does not give them or its text is not one the rule is meant
for (plain, within one line or cut in two at a space; the last event keeps its lines always: its caption may add
the outcome).
"""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planviz import Fault, examples, load_trace, report_html, simulate
from planviz.errors import PlanvizError
from planviz.frontends.snapshot import run_snapshot
from planviz.pictures import captions
from planviz.runs.fault import FAULT_KINDS

from .pagedata import composed_lines, page_data, shown_lines

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
JS = Path(captions.__file__).resolve().parents[1] / "frontends" / "js" / "runview.js"


def _simple(text: str, width: int) -> bool:
    """Whether the rule is meant for ``text``: plain (printable ASCII and middle dots, no two spaces running, none at
    an end), within one line, or two lines cut at the last space that leaves the first within ``width``."""
    plain = (
        bool(re.fullmatch("[ -~\u00b7]*", text)) and "  " not in text and text == text.strip(" ")
    )
    cut = text.rfind(" ", 0, width + 1)
    return plain and (
        len(text) <= width or (len(text) <= 2 * width and 0 < cut >= len(text) - width - 1)
    )


def check_captions(snap: dict, run) -> int:
    """Each event's shown lines are its picture's; ``c`` is kept exactly where the script's rule would differ or
    the text is not one the rule is meant for (its lines then come from Python's escaping or wrapping, whatever
    the rule would say: a long word wrapped may come out as the rule cuts it). Returns how
    many events keep their lines."""
    width = snap["event_lines"]["width"]
    events, last = run.events, len(run.events) - 1
    assert len(snap["events"]) == len(snap["log"]) == len(events)
    kept = 0
    for i, e in enumerate(events):
        truth = list(captions.event_lines(e, i, run, run.plan_at(i)))
        assert shown_lines(snap, i) == truth, (i, shown_lines(snap, i), truth)
        has = "c" in snap["events"][i]
        composed = composed_lines(snap, i)
        text = composed[0] + (" " + composed[1] if composed[1] != " " else "")
        assert has == (i == last or not _simple(text, width) or composed != truth), (i, truth)
        kept += has
    return kept


def test_the_rule_is_read_from_captions_width_and_lines():
    run = simulate(examples.load("cache_isolation"))
    rule = run_snapshot(run, legend=False)["event_lines"]
    assert rule == {"width": captions.EVENT_WIDTH, "lines": captions.EVENT_LINES}
    # the script reads both from the data: no width or line count of its own
    body = re.search(r"export function eventLines\(.*?\n}\n", JS.read_text(encoding="utf-8"), re.S)
    assert body is not None
    assert "rule.width" in body[0] and "rule.lines" in body[0]
    assert not re.search(r"\b(80|81|160|2)\b", body[0]), body[0]


def _seeded(seed: int):
    rng = random.Random(seed)
    for _ in range(20):
        plan = examples.load(rng.choice(examples.names()))
        try:
            return simulate(
                plan,
                faults=[Fault(rng.choice(plan.ids), rng.choice(FAULT_KINDS)) for _ in range(2)],
                strategy=rng.choice(["planner", "workflow", "direct"]),
            )
        except Exception:  # a fault that does not fit this plan: draw again
            continue
    raise AssertionError(seed)


@pytest.mark.parametrize("seed", range(12))
def test_simulated_runs_with_faults_show_their_pictures_captions(seed):
    run = _seeded(seed)
    assert check_captions(run_snapshot(run, legend=False), run) >= 1


def _traces(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in (".json", ".jsonl", ".db", ".sqlite"))


def test_real_and_corpus_traces_show_their_pictures_captions(corpus):
    checked = composed = 0
    for path in _traces(REAL) + _traces(corpus):
        try:
            loaded = load_trace(path)
        except (PlanvizError, ValueError):  # no trace planviz reads (a plan, a refused format)
            continue
        for run in loaded if isinstance(loaded, (list, tuple)) else [loaded]:
            if not run.events:
                continue
            snap = run_snapshot(run, legend=False)
            kept = check_captions(snap, run)
            checked, composed = checked + 1, composed + len(run.events) - kept
    assert checked >= 60 and composed >= 500, (checked, composed)


def test_the_page_of_a_run_shows_its_pictures_captions(tmp_path):
    run = _seeded(3)
    page = report_html(run, tmp_path / "r.html").read_text(encoding="utf-8")
    check_captions(page_data(page), run)


# texts the rule must leave to the data: control characters, runs of spaces, spaces at an end, non-ASCII (in the
# BMP and beyond it, where a browser's length is not Python's), the joining "|", long words, lengths around one
# and two lines and the 160-character cut
_PIECE = st.sampled_from(
    [*"ab .:'·|", "|", " |", "| ", "  ", "\t", "\x00", "\u00e9", "e\u0301", "\u202e", "\U0001f600"]
    + ["x" * 30, "y" * 79, "word " * 8, "z" * 90]
)
_TEXT = st.lists(_PIECE, max_size=10).map("".join)
_PLAIN = st.lists(st.sampled_from(["ab", "c·d", "e:f", "x" * 30, "y" * 60]), max_size=6).map(
    " ".join
)
# times a run's snapshot draws (its timeline needs finite ones; inf and nan: tests/pictures/test_event_lines.py)
_TIME = st.sampled_from([0, 0.0, -0.0, 2, 2.5, 12345.678, 1e-7, 3e9])
_BASE = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(_PLAIN | _TEXT, _TIME), min_size=len(_BASE.events), max_size=len(_BASE.events)
    ),
    st.sampled_from(["min", "", "s", "h ", "é"]),
)
def test_generated_texts_times_and_units_show_their_pictures_captions(changes, unit):
    """Messages and times of every kind on a run of two plan versions, in any unit (its frames as before)."""
    plans = tuple(dataclasses.replace(p, time_unit=unit) for p in _BASE.plans)
    events = tuple(
        dataclasses.replace(e, message=message, time=time)
        for e, (message, time) in zip(_BASE.events, changes)
    )
    run = dataclasses.replace(_BASE, events=events, plans=plans)
    check_captions(run_snapshot(run, legend=False), run)


def test_a_version_in_another_unit_keeps_all_its_lines():
    plans = (_BASE.plans[0], dataclasses.replace(_BASE.plans[1], time_unit="hours"))
    run = dataclasses.replace(_BASE, plans=plans)
    snap = run_snapshot(run, legend=False)
    check_captions(snap, run)
    second = [i for i, e in enumerate(run.events) if e.plan_version == plans[1].version]
    assert second and all("c" in snap["events"][i] for i in second)
    assert not all("c" in snap["events"][i] for i in range(len(run.events)))
