"""The offline HTML report: self-contained, CSP-locked, every frame recoverable from the delta table,
hostile text inert."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest
from hypothesis import HealthCheck, given, settings

from planviz import (
    Fault,
    Observation,
    Plan,
    Recorder,
    Run,
    Step,
    render,
    report_html,
    save_trace,
    simulate,
)
from planviz.errors import PlanvizError
from planviz.frontends.cli.commands import main
from planviz.frontends.page import script_json
from planviz.pictures.escape import dom_id

from ..runs.test_frames import plans_and_faults
from .pagedata import packed_text, page_data, shown_lines

HOSTILE = "</script><script>alert(1)</script><img src=x onerror=alert(1)>\u2028&amp;"
SVG, XLINK = "{http://www.w3.org/2000/svg}", "{http://www.w3.org/1999/xlink}"
SHAPES = (f"{SVG}path", f"{SVG}polygon", f"{SVG}ellipse")
FLAGS = ("voided", "kept", "conflict", "not_run")  # as explorer.js lists them


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
    return page_data(text)


class Stepper:
    """What the page's script does, in Python: the pictures of each plan version restyled from the delta table.

    A reference for the tests: it reads only the page's snapshot (pictures, deltas) and mirrors explorer.js.
    """

    def __init__(self, text: str) -> None:
        self.data = data = _data(text)
        self.roots = [ET.fromstring(v["svg"]) for v in data["versions"]]
        self.nodes = []
        for root, spec in zip(self.roots, data["versions"]):
            groups = {g.get("id"): g for g in root.iter(f"{SVG}g")}
            self.nodes.append(
                [self._prepare(groups[name], cut) for name, cut in zip(spec["nodes"], spec["cuts"])]
            )
        self.version, v = [], 0
        for e in data["events"]:
            v = e.get("v", v)
            self.version.append(v)
        self.at = len(data["events"]) - 1
        self.facts, self.ready = set(data["last_facts"]), set(data["last_ready"])

    @staticmethod
    def _prepare(g: ET.Element, cut: int) -> dict:
        links = list(g.iter(f"{SVG}a"))
        title = links[0].get(f"{XLINK}title", "").encode("utf-16-le") if links else b""
        return {
            "g": g,
            "shapes": [el for el in g.iter() if el.tag in SHAPES],
            "text": list(g.iter(f"{SVG}text"))[-1],
            "links": links,
            "tip": title[: len(title) - 2 * cut].decode("utf-16-le"),
        }

    def _paint(self, node: dict, look: int) -> None:
        named = self.data["looks"][look]  # the page data's named fields
        status, flags, fill, stroke, width, dash, ostroke, owidth, odash, word, end = (
            named[k]
            for k in (
                "status",
                "flags",
                "fill",
                "stroke",
                "width",
                "dash",
                "outer_stroke",
                "outer_width",
                "outer_dash",
                "word",
                "tip",
            )
        )
        kept = [
            c
            for c in node["g"].get("class").split()
            if not c.startswith("status-") and c not in FLAGS
        ]
        node["g"].set(
            "class",
            " ".join(kept + [status] + [f for b, f in enumerate(FLAGS) if flags & (1 << b)]),
        )
        first, *outer = node["shapes"]
        first.attrib.update(
            {"fill": fill, "stroke": stroke, "stroke-width": width, "stroke-dasharray": dash}
        )
        if outer:
            outer[0].attrib.update(
                {"stroke": ostroke, "stroke-width": owidth, "stroke-dasharray": odash}
            )
        node["text"].text = word
        for a in node["links"]:
            a.set(f"{XLINK}title", node["tip"] + ("\n" + end if end else ""))

    def _apply(self, i: int, forward: bool) -> None:
        e, nodes = self.data["events"][i], self.nodes[self.version[i]]
        d = e.get("d", [])
        for k in range(0, len(d), 3):
            self._paint(nodes[d[k]], d[k + (2 if forward else 1)])
        for key, items, way in (
            ("l", self.facts, not forward),
            ("g", self.facts, forward),
            ("ro", self.ready, not forward),
            ("ri", self.ready, forward),
        ):
            for x in e.get(key, []):
                (items.add if way else items.discard)(x)

    def seek(self, i: int) -> ET.Element:
        """Frame ``i``: the picture of its version (as restyled), with facts and ready set updated."""
        while self.at < i:
            self.at += 1
            self._apply(self.at, True)
        while self.at > i:
            self._apply(self.at, False)
            self.at -= 1
        root, said = self.roots[self.version[i]], shown_lines(self.data, i)
        for k, line in enumerate(
            el for el in root.iter(f"{SVG}text") if el.get("class") == "event-line"
        ):
            line.text = said[k] if k < len(said) else " "
        return root


def node_state(root: ET.Element, sid: str) -> dict:
    """What a frame shows on one node: class tokens, outline and fill, status word, tooltip."""
    g = next(g for g in root.iter(f"{SVG}g") if g.get("id") == f"node-{dom_id(sid)}")
    shapes = [el for el in g.iter() if el.tag in SHAPES]
    paint = [
        {
            k: el.get(k, "none" if k == "stroke-dasharray" else None)
            for k in ("fill", "stroke", "stroke-width", "stroke-dasharray")
        }
        for el in shapes[:2]
    ]
    paint[1:] = [{k: v for k, v in p.items() if k != "fill"} for p in paint[1:]]
    return {
        "class": set(g.get("class").split()),
        "paint": paint,
        "word": list(g.iter(f"{SVG}text"))[-1].text,
        "tips": [a.get(f"{XLINK}title") for a in g.iter(f"{SVG}a")],
    }


def _drawn(root: ET.Element, sid: str) -> bool:
    return any(g.get("id") == f"node-{dom_id(sid)}" for g in root.iter(f"{SVG}g"))


def _texts(root: ET.Element) -> list[str]:
    """Every text the picture shows (caption, labels, status words, group counts), in order."""
    return [el.text or "" for el in root.iter(f"{SVG}text")]


def assert_every_frame_is_render(run, text: str) -> None:
    """Stepping backward from the last frame to the first, then forward again, shows render's frame every time."""
    stepper = Stepper(text)
    data = stepper.data
    n = len(run.events)
    assert len(data["events"]) == n
    expected = {}
    for i in [*range(n - 1, -1, -1), *range(n)]:
        root = stepper.seek(i)
        plan = run.plan_at(i)
        if i not in expected:
            drawn = ET.fromstring(render(plan, run=run, at=i, legend=False).svg)
            expected[i] = (
                {sid: node_state(drawn, sid) for sid in plan.ids if _drawn(drawn, sid)},
                _texts(drawn),
            )
        assert (
            {sid: node_state(root, sid) for sid in plan.ids if _drawn(root, sid)},
            _texts(root),
        ) == expected[i], i
        frame = run.frame(i)
        assert {data["facts"][f] for f in stepper.facts} == set(frame.facts), i
        assert {data["steps"][s] for s in stepper.ready} == set(frame.ready), i


@pytest.fixture
def failed_run(cache_plan):
    return simulate(cache_plan, faults=[Fault("S4", "side_effect")])


@pytest.fixture
def hostile_plan():
    steps = [
        Step("A", HOSTILE, expected_evidence=HOSTILE, produces=[f"fact {HOSTILE}"], duration=2),
        Step(
            "B</script>",
            "finish <b>bold</b>",
            expected_evidence="done",
            depends_on=["A"],
            requires=[f"fact {HOSTILE}"],
            produces=["finished"],
            duration=1,
        ),
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
    (csp,) = [
        a["content"]
        for t, a in tags.tags
        if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"
    ]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["img-src"] == "data:"
    assert (
        "unsafe-inline" not in directives["script-src"]
        and "unsafe-eval" not in directives["script-src"]
    )
    (code,) = [body for attrs, body in tags.scripts if attrs.get("type") == "module"]
    digest = base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode()
    assert directives["script-src"] == f"'sha256-{digest}'"
    # the policy comes before anything it governs
    assert text.index("Content-Security-Policy") < text.index("<style") < text.index("<script")


@pytest.mark.parametrize(
    "faults, strategy",
    [
        (["S4:side_effect"], "planner"),
        (["S3:withdraw"], "planner"),
        (["S1:transientx2"], "planner"),
        (["S3:extra_fact:not key_builder_located"], "workflow"),
        (["S2:goal_change"], "planner"),
        ([], "direct"),
    ],
)
def test_every_frame_equals_render(cache_plan, tmp_path, faults, strategy):
    run = simulate(cache_plan, faults=[Fault.parse(f) for f in faults], strategy=strategy)
    assert_every_frame_is_render(
        run, report_html(run, tmp_path / "run.html").read_text(encoding="utf-8")
    )


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(plans_and_faults())
def test_every_frame_of_random_runs_equals_render(tmp_path, pf):
    plan, faults = pf
    run = simulate(plan, faults=faults, strategy="workflow")
    assert_every_frame_is_render(
        run, report_html(run, tmp_path / "random.html").read_text(encoding="utf-8")
    )


def test_the_page_holds_one_picture_per_plan_version_and_only_what_changed(failed_run, tmp_path):
    text = report_html(failed_run, tmp_path / "run.html").read_text(encoding="utf-8")
    data = _data(text)
    # the no-script view: the last picture and the timeline; the rest is data
    assert text.count("<svg") == 2
    assert all(v["svg"].startswith("<svg") for v in data["versions"])
    assert [v["version"] for v in data["versions"]] == [1, 2]
    # a triple per node whose look changed, for nodes the event touched
    for i, e in enumerate(data["events"]):
        d = e.get("d", [])
        assert len(d) % 3 == 0 and len(d) // 3 <= len(failed_run.delta(i).steps)
        assert all(d[k + 1] != d[k + 2] for k in range(0, len(d), 3))


def test_without_script_the_page_shows_the_last_frame(failed_run, tmp_path):
    text = report_html(failed_run, tmp_path / "run.html").read_text(encoding="utf-8")
    shown = re.search(
        r'<div class="planviz-diagram pv-fit"[^>]*>(<svg.*?</svg>)</div>', text, re.S
    ).group(1)
    expected = ET.fromstring(
        render(failed_run.plan, run=failed_run, at=len(failed_run) - 1, legend=False).svg
    )
    for sid in failed_run.plan.ids:
        assert node_state(ET.fromstring(shown), sid) == node_state(expected, sid)
    last = failed_run.frame(-1)
    facts = re.search(r'<ul class="pv-list pv-facts">(.*?)</ul>', text, re.S).group(1)
    assert re.findall(r"<li>(.*?)</li>", facts) == sorted(last.facts)
    assert f"Event {len(failed_run) - 1} of {len(failed_run) - 1}: stop" in text
    assert re.search(r'<tr class="pv-kind-stop pv-current"><td>(\d+)</td>', text).group(1) == str(
        len(failed_run) - 1
    )
    assert (
        '<html lang="en" class="no-js">' in text
        and "Without script this page shows the run's last frame" in text
    )


def _points(d: str) -> list[float]:
    """A path's points, absolute, read as SVG reads them: a move, then cubic curves, absolute (C) or relative (c)."""
    tokens = re.findall(r"[MCc]|-?(?:\d+\.?\d*|\.\d+)", d)
    assert tokens[0] == "M" and tokens[3] in "Cc", d
    x, y = float(tokens[1]), float(tokens[2])
    points, numbers = [(x, y)], [float(t) for t in tokens[4:]]
    for k in range(0, len(numbers), 6):
        curve = [(numbers[k + j], numbers[k + j + 1]) for j in (0, 2, 4)]
        if tokens[3] == "c":
            curve = [(x + dx, y + dy) for dx, dy in curve]
        points += curve
        x, y = curve[-1]
    return [v for point in points for v in point]


def test_the_page_draws_every_path_of_render_point_for_point(failed_run, tmp_path):
    text = report_html(failed_run, tmp_path / "run.html").read_text(encoding="utf-8")
    shown = re.search(
        r'<div class="planviz-diagram pv-fit"[^>]*>(<svg.*?</svg>)</div>', text, re.S
    ).group(1)
    drawn = render(failed_run.plan, run=failed_run, at=len(failed_run) - 1, legend=False).svg
    ours, theirs = re.findall(r' d="([^"]*)"', shown), re.findall(r' d="([^"]*)"', drawn)
    assert len(ours) == len(theirs) > 10
    for mine, render_s in zip(ours, theirs):
        # to a tenth
        assert _points(mine) == pytest.approx(_points(render_s), abs=0.051), (
            mine,
            render_s,
        )
    assert len("".join(ours)) < 0.8 * len("".join(theirs))  # relative curves: shorter numbers


def test_hostile_plan_text_cannot_break_out(hostile_plan, tmp_path):
    run = simulate(hostile_plan)
    text = report_html(run, tmp_path / "hostile.html").read_text(encoding="utf-8")
    tags = _parse(text)
    assert [t for t, _ in tags.tags].count("script") == 2
    # the caption's
    assert "img" not in {t for t, _ in tags.tags} and [t for t, _ in tags.tags].count("b") == 1
    assert "finish &lt;b&gt;bold&lt;/b&gt;" in text
    assert "<img" not in text and "</script><script>" not in text
    (payload,) = [
        body for attrs, body in tags.scripts if attrs.get("type") == "application/octet-stream"
    ]
    # base64: nothing in the page's text can close the script
    assert re.fullmatch(r"[A-Za-z0-9+/=]+", payload)
    # and unpacked, still script-safe JSON
    assert not set("<>&\u2028\u2029") & set(packed_text(text))
    assert "&lt;img src=x onerror=alert(1)&gt;" in text  # shown, escaped, in the log and title
    data = _data(text)
    assert f"fact {HOSTILE}" in data["facts"] and "B</script>" in data["steps"]
    assert_every_frame_is_render(run, text)


def test_report_of_an_empty_run_says_why(tmp_path, cache_plan):
    run = simulate(cache_plan)
    empty = Run((), "plan_complete", run.state, run.plans)
    with pytest.raises(PlanvizError, match="no events"):
        report_html(empty, tmp_path / "x.html")


def test_report_of_a_plan_with_a_cycle_still_steps(tmp_path):
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", depends_on=["B"]),
            Step("B", "b", expected_evidence="e", depends_on=["A"]),
        ],
    )
    run = simulate(plan)
    text = report_html(run, tmp_path / "cycle.html").read_text(encoding="utf-8")
    assert "no timeline: the plan has a cycle" in text
    assert len(_data(text)["events"]) == len(run.events)


def test_an_unfinished_run_is_reported_where_it_stopped(tmp_path, cache_plan):
    rec = Recorder(path=tmp_path / "crashed.jsonl", clock=iter(range(100)).__next__)
    rec.propose(cache_plan)
    rec.start("S0")
    rec.observe("S0", Observation(True, {"leak_reproduced"}))
    rec.start("S1")
    with open(tmp_path / "crashed.jsonl", "a", encoding="utf-8") as fh:  # the agent died mid-line
        fh.write('{"type":"event","ev')
    out = tmp_path / "crashed.html"
    assert main(["report", str(tmp_path / "crashed.jsonl"), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert (
        '<span class="pv-badge pv-open">unfinished</span>' in text and "<b>unfinished</b>" in text
    )
    assert "Event 3 of 3: start S1" in text
    run = rec.run
    assert run.outcome is None
    assert_every_frame_is_render(run, text)


def test_a_time_that_is_not_a_number_never_reaches_the_script(tmp_path, cache_plan):
    from planviz import Event, ExecutionState, Run

    run = simulate(cache_plan)
    events = run.events[:-1] + (
        Event(len(run) - 1, float("nan"), "stop", None, "m", 1, outcome="plan_complete"),
    )
    odd = Run(events, "plan_complete", ExecutionState(), run.plans)
    data = _data(report_html(odd, tmp_path / "nan.html").read_text(encoding="utf-8"))
    assert data["events"][-1]["t"] is None
    with pytest.raises(ValueError):
        script_json({"t": float("nan")})


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


@pytest.mark.parametrize(
    "value, forbidden",
    [
        ("</script>", "</script>"),
        ("<!--", "<!--"),
        ("a & b", "&"),
        ("x>y", ">"),
        ("\u2028\u2029", "\u2028"),
        ("\u2029", "\u2029"),
    ],
)
def test_script_json_escapes(value, forbidden):
    text = script_json({"k": [value]})
    assert forbidden not in text
    assert json.loads(text) == {"k": [value]}


def test_event_rows_list_ready_steps_naturally(tmp_path):
    from planviz.frontends.panels import event_row

    run = simulate(
        Plan(
            "g", [Step(f"S{i}", "s", expected_evidence="e", produces=[f"f{i}"]) for i in (10, 9, 1)]
        )
    )
    assert event_row(run, 0)["ready"] == ["S1", "S9", "S10"]
    data = _data(report_html(run, tmp_path / "natural.html").read_text(encoding="utf-8"))
    assert data["steps"] == ["S1", "S9", "S10"]  # the page lists ready steps in this order too


def test_fit_width_knows_how_narrow_each_plan_version_may_get(failed_run, tmp_path):
    """Each plan version's picture carries the width at which its smallest text shows at 9 pixels: the static
    picture's box as its min-width, every version in the data for the script."""
    from planviz.frontends.deltatable import delta_table
    from planviz.frontends.panels import legible_width

    text = report_html(failed_run, tmp_path / "run.html").read_text(encoding="utf-8")
    _, pictures = delta_table(failed_run, legend=False)
    widths = [legible_width(p.svg) for p in pictures]
    assert (
        [v["legible"] for v in _data(text)["versions"]] == widths
        and len(widths) == 2
        and min(widths) > 0
    )


def test_a_focused_big_plan_steps_its_group_nodes_and_caption(tmp_path):
    """Over 300 steps render draws a focused view with chains as group nodes that count statuses per frame:
    the page's group nodes and caption say the frame on screen, not the last one (every text of the picture)."""
    steps = [Step("S0", "start", expected_evidence="ok", produces=["f0"])]
    for c in range(3):
        for k in range(1, 110):
            prev = f"C{c}_{k - 1}" if k > 1 else "S0"
            steps.append(
                Step(
                    f"C{c}_{k}",
                    f"chain {c} step {k}",
                    expected_evidence="ok",
                    depends_on=[prev],
                    requires=[f"f{c}_{k - 1}" if k > 1 else "f0"],
                    produces=[f"f{c}_{k}"],
                )
            )
    run = simulate(Plan("a big plan", steps), faults=[Fault("C1_60", "side_effect")])
    text = report_html(run, tmp_path / "big.html").read_text(encoding="utf-8")
    data = _data(text)
    assert any(name.startswith("group-") for v in data["versions"] for name in v["nodes"])
    stepper, n = Stepper(text), len(run.events)
    for i in [*range(n - 1, -1, -37), *range(0, n, 41)]:
        root = stepper.seek(i)
        assert _texts(root) == _texts(
            ET.fromstring(render(run.plan_at(i), run=run, at=i, legend=False).svg)
        ), i


def _pages(tmp_path, cache_plan):
    """Every page that runs the front end: the report, the two-run report, animate's flipbook, the explorer's static
    fallback."""
    from html import unescape

    from planviz import animate, explore

    a, b = simulate(cache_plan), simulate(cache_plan, faults=[Fault("S4", "side_effect")])
    fallback = explore(cache_plan)._repr_mimebundle_()[0]["text/html"]
    return {
        "report": report_html(a, tmp_path / "r.html").read_text(encoding="utf-8"),
        "pair report": report_html([a, b], tmp_path / "p.html").read_text(encoding="utf-8"),
        "flipbook": animate(b, tmp_path / "f.html", frames=range(0, 3)).path.read_text(
            encoding="utf-8"
        ),
        "fallback": unescape(re.search(r"srcdoc='(.*?)'", fallback, re.S)[1]),
    }


def test_report_and_explorer_load_the_same_module_file(tmp_path, cache_plan):
    from importlib.resources import files

    from planviz import explore
    from planviz.frontends.jsmodules import join_modules
    from planviz.frontends.page import page_script

    # the front end's modules, joined here by the tests' own reading
    folder = files("planviz.frontends") / "js"
    module = join_modules(
        {p.name: p.read_text(encoding="utf-8") for p in folder.iterdir() if p.name.endswith(".js")}
    )
    style = (files("planviz.frontends") / "explorer.css").read_text(encoding="utf-8")
    ex = explore(cache_plan)
    # the widget's front end is the files themselves, joined
    assert ex._esm == module and ex._css == style
    script = page_script()
    assert (
        script.startswith(module.split("\nexport default ")[0])
        and "const planvizModule = { render };" in script
    )
    for name, page in _pages(tmp_path, cache_plan).items():
        scripts = re.findall(r'<script type="module">(.*?)</script>', page, re.S)
        # each page inlines that one file (its default export bound to a name)
        assert scripts == [script], name
        assert style in page, name


def test_the_report_of_a_300_step_run_stays_under_a_megabyte(tmp_path):
    """docs/benchmarks.md's goal for the report's size (a 300-step layered run, each step on 1-3 of the
    three waves before: about 0.86 MB): the picture and timeline travel once, as the no-script view, the
    rest gzipped."""
    rnd = random.Random(7)
    steps = []
    for i in range(300):
        pool = [s.id for s in steps[max(0, (i // 10 - 3) * 10) : i // 10 * 10]]
        deps = rnd.sample(pool, min(len(pool), rnd.randint(1, 3))) if pool else []
        steps.append(
            Step(
                f"S{i}",
                f"step {i}: do the thing number {i} carefully",
                expected_evidence="ok",
                depends_on=deps,
                requires=[f"f{d[1:]}" for d in deps],
                produces=[f"f{i}"],
                duration=rnd.randint(1, 9),
            )
        )
    run = simulate(Plan("three hundred steps", steps, time_unit="min"))
    text = report_html(run, tmp_path / "big.html").read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) < 1_000_000
    # one copy of each picture
    assert text.count("<svg") == 2 and len(page_data(text)["events"]) == len(run.events)


def test_without_script_a_long_list_of_facts_shows_its_first_500_and_how_many_more(tmp_path):
    """Issue 43: the no-script view listed every fact held (50,000 <li> for a 100k-span run: 1.3 MB the browser
    parsed before the script could start, then threw away); now the first 500, then a line saying how many more."""
    steps = [
        Step(f"S{i}", f"do {i}", expected_evidence="ok", produces=[f"fact{i:04d}"])
        for i in range(620)
    ]
    run = simulate(Plan("many facts", steps))
    held = sorted(run.frame(-1).facts)
    assert len(held) == 620
    text = report_html(run, tmp_path / "many.html").read_text(encoding="utf-8")
    listed = re.search(r'<ul class="pv-list pv-facts">(.*?)</ul>', text, re.S).group(1)
    assert re.findall(r"<li>(.*?)</li>", listed) == held[:500]
    assert re.findall(r'<li class="pv-empty">(.*?)</li>', listed) == [
        "\u2026 and 120 more; allow scripts to see every one"
    ]
    assert len(page_data(text)["facts"]) == 620  # the script still has every one
