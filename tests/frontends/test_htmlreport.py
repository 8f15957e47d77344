"""The offline HTML report: self-contained, CSP-locked, every frame recoverable, hostile text inert."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planviz import Fault, Plan, Step, render, report_html, save_trace, simulate
from planviz.errors import PlanvizError
from planviz.frontends.cli import main
from planviz.frontends.htmlreport import pack_frames, script_json, unpack_frames

HOSTILE = "</script><script>alert(1)</script><img src=x onerror=alert(1)>\u2028&amp;"


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text of each <script>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[tuple[dict, str]] = []
        self._in_script: dict | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = dict(attrs)
            self.scripts.append((self._in_script, ""))

    def handle_data(self, data):
        if self._in_script is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = None


def _parse(text: str) -> _Tags:
    parser = _Tags()
    parser.feed(text)
    parser.close()
    return parser


def _data(text: str) -> dict:
    (payload,) = [body for attrs, body in _parse(text).scripts if attrs.get("type") == "application/json"]
    return json.loads(payload)


@pytest.fixture
def failed_run(cache_plan):
    return simulate(cache_plan, faults=[Fault("S4", "side_effect")])


@pytest.fixture
def hostile_plan():
    steps = [
        Step("A", HOSTILE, expected_evidence=HOSTILE, produces=[f"fact {HOSTILE}"], duration=2),
        Step("B</script>", "finish <b>bold</b>", expected_evidence="done", depends_on=["A"],
             requires=[f"fact {HOSTILE}"], produces=["finished"], duration=1),
    ]
    return Plan(f"goal {HOSTILE}", steps, time_unit="min")


def test_report_is_one_self_contained_file(failed_run, tmp_path):
    out = report_html(failed_run, tmp_path / "run.html")
    assert out == tmp_path / "run.html"
    text = out.read_text(encoding="utf-8")
    tags = _parse(text).tags
    names = {t for t, _ in tags}
    assert "link" not in names and "iframe" not in names and "img" not in names
    for tag, attrs in tags:
        for key in ("src", "href", "xlink:href", "action"):
            value = attrs.get(key) or ""
            assert not re.match(r"\s*(https?:|//|javascript:)", value, re.I), (tag, key, value)
        if tag == "script":
            assert "src" not in attrs
    assert "@import" not in text and "url(http" not in text


def test_csp_allows_only_the_inline_script_by_hash(failed_run, tmp_path):
    text = report_html(failed_run, tmp_path / "run.html").read_text(encoding="utf-8")
    tags = _parse(text)
    (csp,) = [a["content"] for t, a in tags.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["img-src"] == "data:"
    assert "unsafe-inline" not in directives["script-src"] and "unsafe-eval" not in directives["script-src"]
    (code,) = [body for attrs, body in tags.scripts if "type" not in attrs]
    digest = base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode()
    assert directives["script-src"] == f"'sha256-{digest}'"
    # the policy comes before anything it governs
    assert text.index("Content-Security-Policy") < text.index("<style") < text.index("<script")


def test_every_frame_is_recoverable_and_equals_render(failed_run, tmp_path):
    data = _data(report_html(failed_run, tmp_path / "run.html").read_text(encoding="utf-8"))
    frames = unpack_frames(data["chunks"], data["frames"])
    assert len(frames) == len(failed_run.events) == len(data["events"])
    plans = {p.version: p for p in failed_run.plans}
    for i in (0, len(frames) // 2, len(frames) - 1):
        expected = render(plans[failed_run.events[i].plan_version], run=failed_run, at=i).svg
        assert frames[i] == expected[expected.index("<svg"):]
    assert [e["kind"] for e in data["events"]] == [e.kind for e in failed_run.events]
    voided = {s for e in data["events"] for s in e["voided"]}
    assert {"S3", "S4"} <= voided


def test_frames_are_stored_compactly(failed_run, tmp_path):
    data = _data(report_html(failed_run, tmp_path / "run.html").read_text(encoding="utf-8"))
    full = sum(len(f) for f in unpack_frames(data["chunks"], data["frames"]))
    stored = sum(map(len, data["chunks"]))
    assert stored < full / 3
    assert any(isinstance(f, dict) for f in data["frames"])


def test_hostile_plan_text_cannot_break_out(hostile_plan, tmp_path):
    run = simulate(hostile_plan)
    text = report_html(run, tmp_path / "hostile.html").read_text(encoding="utf-8")
    tags = _parse(text)
    assert [t for t, _ in tags.tags].count("script") == 2
    assert "img" not in {t for t, _ in tags.tags} and "b" not in {t for t, _ in tags.tags}
    assert "<img" not in text and "</script><script>" not in text
    (payload,) = [body for attrs, body in tags.scripts if attrs.get("type") == "application/json"]
    assert not set("<>&\u2028\u2029") & set(payload)
    assert "&lt;img src=x onerror=alert(1)&gt;" in text  # shown, escaped, in the log and title
    data = _data(text)
    assert any(HOSTILE in e["message"] or any(HOSTILE in f for f in e["facts"]) for e in data["events"])
    assert data["events"][-1]["facts"] == sorted(run.frame(-1).facts)


def test_report_of_an_empty_run_says_why(tmp_path, cache_plan):
    run = simulate(cache_plan)
    empty = type("EmptyRun", (), {"events": (), "plans": run.plans, "outcome": "plan_complete"})()
    with pytest.raises(PlanvizError, match="no events"):
        report_html(empty, tmp_path / "x.html")


def test_report_of_a_plan_with_a_cycle_still_steps(tmp_path):
    plan = Plan("g", [Step("A", "a", expected_evidence="e", depends_on=["B"]),
                      Step("B", "b", expected_evidence="e", depends_on=["A"])])
    run = simulate(plan)
    text = report_html(run, tmp_path / "cycle.html").read_text(encoding="utf-8")
    assert "no timeline: the plan has a cycle" in text
    assert len(_data(text)["events"]) == len(run.events)


def test_cli_report_writes_the_page(failed_run, tmp_path, capsys):
    trace = tmp_path / "run.jsonl"
    save_trace(failed_run, trace)
    out = tmp_path / "run.html"
    assert main(["report", str(trace), "-o", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert len(_data(out.read_text(encoding="utf-8"))["events"]) == len(failed_run.events)


def test_cli_report_on_a_missing_trace_exits_2(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "x.html")]) == 2
    assert "nope.jsonl" in capsys.readouterr().err


@pytest.mark.parametrize("value, forbidden", [
    ("</script>", "</script>"), ("<!--", "<!--"), ("a & b", "&"), ("x>y", ">"),
    ("\u2028\u2029", "\u2028"), ("\u2029", "\u2029"),
])
def test_script_json_escapes(value, forbidden):
    text = script_json({"k": [value]})
    assert forbidden not in text
    assert json.loads(text) == {"k": [value]}


_chunk = st.text(alphabet="ab<>/g x", max_size=6).map(lambda s: "<g>" + s + "</g>")
_svg = st.lists(_chunk, max_size=6).map(lambda parts: "<svg>" + "".join(parts) + "</svg>")


@settings(max_examples=80, deadline=None)
@given(st.lists(_svg, min_size=1, max_size=6))
def test_pack_unpack_round_trip(svgs):
    chunks, frames = pack_frames(svgs)
    assert unpack_frames(chunks, frames) == svgs
    assert len(set(chunks)) == len(chunks)
