"""planviz.render: structure of the SVG, frames of a run, hostile text, exports, big plans."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import networkx as nx
import pygraphviz as pgv
import pytest
from hypothesis import given, settings, strategies as st

from planviz import (
    Event,
    ExecutionState,
    Fault,
    Finding,
    Plan,
    Report,
    Run,
    Step,
    critical_path,
    examples,
    render,
    simulate,
    to_graph,
)
from planviz.errors import PlanvizTypeError, RenderError
from planviz.frontends.cli.commands import main
from planviz.pictures import budget, drawing as render_module
from planviz.pictures.escape import ALLOWED_ATTRIBUTES, check_svg, dom_id, escape_label
from planviz.pictures.style import LOOKS

SVG = "{http://www.w3.org/2000/svg}"
XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def groups(svg: str, prefix: str) -> dict[str, ET.Element]:
    """SVG groups whose id starts with prefix, keyed by the rest of the id."""
    root = ET.fromstring(svg)
    return {
        g.get("id")[len(prefix) :]: g
        for g in root.iter(f"{SVG}g")
        if (g.get("id") or "").startswith(prefix)
    }


def classes(group: ET.Element) -> set[str]:
    return set(group.get("class", "").split())


def outline(group: ET.Element) -> ET.Element:
    return next(el for el in group.iter() if el.tag in (f"{SVG}path", f"{SVG}polygon"))


def texts(group: ET.Element) -> list[str]:
    return [t.text or "" for t in group.iter(f"{SVG}text")]


def tooltip(group: ET.Element) -> str:
    return next(group.iter(f"{SVG}a")).get(XLINK_TITLE)


# --- structure ----------------------------------------------------------------------------------------------


def test_worked_example_has_one_group_per_step_and_per_dependency(cache_plan):
    svg = render(cache_plan).svg
    nodes, edges = groups(svg, "node-"), groups(svg, "edge-")
    assert sorted(nodes) == sorted(cache_plan.ids)
    assert {n: g.find(f"{SVG}title").text for n, g in nodes.items()} == {
        sid: sid for sid in cache_plan.ids
    }
    expected = {f"{u}->{v}" for s in cache_plan.steps for u in s.depends_on for v in [s.id]}
    assert set(edges) == expected
    assert {e: g.find(f"{SVG}title").text for e, g in edges.items()} == {e: e for e in expected}


def test_labels_show_id_kind_duration_action_and_facts(cache_plan):
    svg = render(cache_plan).svg
    s3 = texts(groups(svg, "node-")["S3"])
    assert s3[0] == "S3 · patch · 6 min"
    assert " ".join(s3[1:]) == cache_plan.step("S3").action
    assert texts(groups(svg, "edge-")["S1->S3"]) == ["key_builder_located"]
    assert texts(groups(svg, "node-")["S2"])[-1] == "slack 5 min"  # SPEC 5: S2 has 5 of slack


def test_critical_path_comes_from_analysis(cache_plan):
    svg = render(cache_plan).svg
    schedule = critical_path(cache_plan)
    nodes, edges = groups(svg, "node-"), groups(svg, "edge-")
    assert (
        {sid for sid, g in nodes.items() if "critical" in classes(g)}
        == set(schedule.critical)
        == {"S0", "S1", "S3", "S4"}
    )
    path_edges = {f"{u}->{v}" for u, v in zip(schedule.path, schedule.path[1:])}
    assert {e for e, g in edges.items() if "critical" in classes(g)} == path_edges
    assert all(
        float(outline(edges[e]).get("stroke-width"))
        > float(outline(edges["S0->S2"]).get("stroke-width"))
        for e in path_edges
    )
    plain = render(cache_plan, highlight=()).svg
    assert not [g for g in groups(plain, "node-").values() if "critical" in classes(g)]


@st.composite
def dags(draw):
    n = draw(st.integers(1, 9))
    ids = [f"T{i}" for i in range(n)]
    steps = []
    for i, sid in enumerate(ids):
        deps = draw(st.lists(st.sampled_from(ids[:i]), unique=True, max_size=3)) if i else []
        steps.append(
            Step(
                sid,
                f"do {sid}",
                expected_evidence="e",
                depends_on=deps,
                duration=draw(st.integers(0, 5)),
            )
        )
    order = draw(st.permutations(steps))
    return Plan("random", order)


@settings(max_examples=30, deadline=None)
@given(dags())
def test_random_dags_draw_every_step_and_edge(plan):
    svg = render(plan).svg
    g = to_graph(plan)
    assert set(groups(svg, "node-")) == set(g.nodes)
    assert set(groups(svg, "edge-")) == {f"{u}->{v}" for u, v in g.edges}
    crit = {sid for sid, grp in groups(svg, "node-").items() if "critical" in classes(grp)}
    assert crit == set(critical_path(plan).critical)
    oracle = nx.DiGraph([(u, s.id) for s in plan.steps for u in s.depends_on])
    assert set(groups(svg, "edge-")) == {f"{u}->{v}" for u, v in oracle.edges}


# --- frames of a run ------------------------------------------------------------------------------------------


@pytest.fixture
def side_effect_run(cache_plan):
    return simulate(cache_plan, faults=[Fault.parse("S4:side_effect")])


def test_every_frame_carries_each_steps_status_as_a_class(cache_plan, side_effect_run):
    for i in range(len(side_effect_run.events)):
        event = side_effect_run.frame(i)
        nodes = groups(render(cache_plan, run=side_effect_run, at=i).svg, "node-")
        assert set(nodes) == set(event.statuses), i
        for sid, status in event.statuses.items():
            assert f"status-{status}" in classes(nodes[sid]), (i, sid)
            assert texts(nodes[sid])[-1] == _status_word(nodes[sid], status)


def _status_word(group: ET.Element, status: str) -> str:
    cls = classes(group)
    if status == "failed":
        return LOOKS["failed"].text if "voided" not in cls else "FAILED · voided"
    if "voided" in cls or status == "invalidated":
        return LOOKS["invalidated"].text
    if "kept" in cls and status == "done":
        return LOOKS["kept"].text
    return LOOKS[status].text


def test_side_effect_frame_shows_voided_and_kept(cache_plan, side_effect_run):
    index = next(e.index for e in side_effect_run.events if e.kind == "invalidate")
    d = render(cache_plan, run=side_effect_run, at=index)
    nodes = groups(d.svg, "node-")
    assert {s for s, g in nodes.items() if "voided" in classes(g)} == {"S3", "S4"}
    assert {s for s, g in nodes.items() if "kept" in classes(g)} == {"S0", "S1", "S2"}
    voided = outline(nodes["S3"])
    assert voided.get("stroke-dasharray") and voided.get("fill") == LOOKS["invalidated"].fill
    assert voided.get("stroke") == LOOKS["invalidated"].stroke
    kept_shapes = [el for el in nodes["S0"].iter() if el.tag == f"{SVG}path"]
    assert [el.get("stroke") for el in kept_shapes] == [LOOKS["kept"].stroke] * 2  # double outline
    pending_shapes = [
        el
        for el in groups(render(cache_plan, run=side_effect_run, at=0).svg, "node-")["S1"].iter()
        if el.tag == f"{SVG}path"
    ]
    assert pending_shapes[1].get("stroke") == "none"
    assert "event" in d.svg and "invalidate S4" in d.svg


def test_last_frame_draws_the_runs_latest_plan_version(cache_plan, side_effect_run):
    d = render(cache_plan, run=side_effect_run)
    assert set(groups(d.svg, "node-")) == set(side_effect_run.plans[-1].ids)
    assert d.at == len(side_effect_run.events) - 1


def test_frames_reuse_one_layout_per_plan_version(cache_plan, side_effect_run, monkeypatch):
    calls = []
    real = render_module.lay_out
    monkeypatch.setattr(render_module, "lay_out", lambda *a, **k: calls.append(1) or real(*a, **k))
    render_module._base.cache_clear()
    frames = [
        render(cache_plan, run=side_effect_run, at=i) for i in range(len(side_effect_run.events))
    ]
    assert len(calls) == len({e.plan_version for e in side_effect_run.events})
    v1 = [f for f, e in zip(frames, side_effect_run.events) if e.plan_version == 1]
    shapes = [[outline(g).get("d") for _, g in sorted(groups(f.svg, "node-").items())] for f in v1]
    assert all(s == shapes[0] for s in shapes)


def test_conflict_and_far_horizon_marks():
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", produces=["x"]),
            Step("B", "b", expected_evidence="e", depends_on="A", horizon="far"),
        ],
    )
    event = Event(
        index=0,
        time=1.0,
        kind="conflict",
        step="A",
        message="x contradicts not x",
        plan_version=1,
        changes={"A": "done", "B": "pending"},
    )
    run = Run((event,), None, ExecutionState(), (plan,))
    nodes = groups(render(plan, run=run, at=0).svg, "node-")
    assert {"status-done", "conflict"} <= classes(nodes["A"])
    assert outline(nodes["A"]).get("stroke") == LOOKS["conflict"].stroke
    assert "far" in classes(nodes["B"]) and outline(nodes["B"]).get("stroke-dasharray")
    assert "far" in classes(groups(render(plan).svg, "edge-")["A->B"])


def test_findings_outline_steps_and_colour_cycle_edges():
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", depends_on="B"),
            Step("B", "b", expected_evidence="e", depends_on="A"),
            Step("C", "c", expected_evidence=""),
        ],
    )
    report = Report(
        findings=(
            Finding(
                "cycle",
                "structure",
                "error",
                "A and B depend on each other; remove one edge",
                ("A", "B"),
                (("A", "B"), ("B", "A")),
            ),
            Finding(
                "no_evidence", "structure", "warning", "step 'C' has no expected evidence", ("C",)
            ),
        )
    )
    svg = render(plan, report=report).svg
    nodes, edges = groups(svg, "node-"), groups(svg, "edge-")
    assert {"finding", "finding-error"} <= classes(nodes["A"])
    assert outline(nodes["A"]).get("stroke") == LOOKS["error"].stroke
    assert outline(nodes["C"]).get("stroke") == LOOKS["warning"].stroke
    assert "remove one edge" in tooltip(nodes["B"])
    assert (
        texts(nodes["A"])[-1] == "error: cycle" and texts(nodes["C"])[-1] == "warning: no_evidence"
    )
    assert all(
        "cycle" in classes(edges[e]) and outline(edges[e]).get("stroke") == LOOKS["error"].stroke
        for e in ("A->B", "B->A")
    )
    assert "no critical path" in svg


def test_real_validation_report_marks_the_cycle():
    from planviz import validate

    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", depends_on="B"),
            Step("B", "b", expected_evidence="e", depends_on="A"),
        ],
    )
    edges = groups(render(plan, report=validate(plan)).svg, "edge-")
    assert all("finding" in classes(g) for g in edges.values())


# --- bad arguments ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"at": 3}, "needs a run"),
        ({"highlight": ("waves",)}, "unknown highlight 'waves'"),
    ],
)
def test_bad_arguments(cache_plan, kwargs, message):
    with pytest.raises(RenderError, match=message):
        render(cache_plan, **kwargs)


@pytest.mark.parametrize("at", [18, -19])
def test_at_outside_the_run(cache_plan, side_effect_run, at):
    with pytest.raises(RenderError, match=r"choose 0\.\.17"):
        render(cache_plan, run=side_effect_run, at=at)


def test_at_of_the_wrong_type(cache_plan, side_effect_run):
    with pytest.raises(
        PlanvizTypeError,
        match=r"render\(at=\.\.\.\) expects an event index \(an int\) or None, got str '3'",
    ):
        render(cache_plan, run=side_effect_run, at="3")


def test_not_a_plan():
    with pytest.raises(PlanvizTypeError, match=r"render\(plan=...\) expects a planviz Plan"):
        render({"goal": "g"})


# --- exports -------------------------------------------------------------------------------------------------------


def test_save_svg_png_dot(cache_plan, side_effect_run, tmp_path):
    d = render(cache_plan, run=side_effect_run, at=11)
    assert d.save(tmp_path / "f.svg").read_text(encoding="utf-8") == d.svg
    assert (d.save(tmp_path / "f.PNG")).read_bytes()[:8] == PNG_MAGIC
    back = pgv.AGraph(string=d.save(tmp_path / "f.dot").read_text(encoding="utf-8"))
    names = {n for n in back.nodes() if not n.startswith("~legend")}
    assert names == {dom_id(s) for s in cache_plan.ids}
    assert set(back.get_node("S3").attr["class"].split()) == {
        "status-invalidated",
        "voided",
        "critical",
    }
    assert "VOIDED" in back.get_node("S3").attr["label"]
    with pytest.raises(
        RenderError, match=r"unknown suffix '\.jpg'; use one of \.svg, \.png, \.dot"
    ):
        d.save(tmp_path / "f.jpg")


def test_notebook_bundle_has_inline_svg_and_image(cache_plan):
    bundle = render(cache_plan)._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/svg+xml"}
    assert "<svg" in bundle["text/html"] and "<?xml" not in bundle["text/html"]
    assert 'id="node-S0"' in bundle["text/html"]
    ET.fromstring(bundle["image/svg+xml"])


@pytest.mark.parametrize("name", examples.names())
def test_every_bundled_example_renders(name):
    plan = examples.load(name)
    svg = render(plan).svg
    assert set(groups(svg, "node-")) == {dom_id(s) for s in plan.ids}


def test_cli_render_plan_and_trace_frame(tmp_path):
    from planviz import save_trace

    source = examples.path("cache_isolation")
    assert main(["render", str(source), "-o", str(tmp_path / "plan.svg")]) == 0
    assert set(groups((tmp_path / "plan.svg").read_text(encoding="utf-8"), "node-")) >= {"S0", "S4"}
    run = simulate(examples.load("cache_isolation"), faults=[Fault.parse("S4:side_effect")])
    save_trace(run, tmp_path / "run.jsonl")
    assert (
        main(
            [
                "render",
                str(source),
                "--trace",
                str(tmp_path / "run.jsonl"),
                "--at",
                "11",
                "-o",
                str(tmp_path / "frame.png"),
            ]
        )
        == 0
    )
    assert (tmp_path / "frame.png").read_bytes()[:8] == PNG_MAGIC
    assert main(["render", str(source), "-o", str(tmp_path / "plan.gif")]) == 2


# --- untrusted text ------------------------------------------------------------------------------------------------

HOSTILE = [
    '"',
    'a"b"c',
    "\\N",
    "\\G",
    "\\E \\T \\H \\L \\l \\n \\r",
    "<b>x</b>",
    "<<table>>",
    "</svg><script>alert(1)</script>",
    "javascript:alert(1)",
    "]]>",
    "&amp;",
    "&#0;",
    "&lt;script&gt;",
    "".join(chr(i) for i in range(32)),
    "\x7f\x85",
    "\u202eevil\u202c \u200b\u200d",
    "🚀 ✓ 漢字",
    "x" * 10_000,
    "URL",
    "id",
    "class",
    "href",
    "<img src=x onerror=alert(1)>",
    "--",
    "a -> b",
]


def hostile_plan(text: str) -> Plan:
    return Plan(
        text,
        [
            Step(
                text,
                text,
                expected_evidence=text,
                produces=[text],
                kind=text,
                tool=text,
                arguments={
                    "URL": "javascript:alert(1)",
                    "href": text,
                    "image": "/etc/passwd",
                    "id": text,
                    "class": text,
                    "stylesheet": text,
                },
            ),
            Step(
                "B",
                text,
                expected_evidence=text,
                depends_on=[text],
                requires=[text],
                check=text,
                rollback=text,
            ),
        ],
        time_unit=text,
    )


FORBIDDEN = {"script", "foreignObject", "image", "iframe", "use", "style"}


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_renders_safely(text):
    plan = hostile_plan(text)
    event = Event(
        index=0,
        time=0,
        kind="fail",
        step=text,
        message=text,
        plan_version=1,
        changes={text: text, "B": "failed"},
    )
    for d in (render(plan), render(plan, run=Run((event,), text, ExecutionState(), ()))):
        root = ET.fromstring(d.svg)
        for el in root.iter():
            assert el.tag.split("}")[-1] not in FORBIDDEN
            assert not [
                k for k in el.attrib if k.split("}")[-1].lower().startswith("on") or "href" in k
            ]
        nodes = groups(d.svg, "node-")
        assert set(nodes) == {dom_id(text), "B"}
        assert "<script" not in d._repr_mimebundle_()["text/html"]
        if d.at is not None:
            assert "status-unknown" in classes(nodes[dom_id(text)]) and "status-failed" in classes(
                nodes["B"]
            )
        assert nodes[dom_id(text)].find(f"{SVG}title").text == dom_id(text)
        assert len(d.svg) < 200_000
        back = pgv.AGraph(string=d.dot)
        for item in list(back.nodes()) + list(back.edges()):
            assert set(item.attr.to_dict()) - ALLOWED_ATTRIBUTES <= {"lwidth", "lheight", "xlp"}, (
                item
            )
        assert set(back.graph_attr.keys()) <= ALLOWED_ATTRIBUTES | {"lwidth", "lheight", "lp", "bb"}
        assert {n for n in back.nodes() if not n.startswith("~legend")} == {dom_id(text), "B"}
        assert "URL" not in {k for n in back.nodes() for k in n.attr.to_dict()}


@pytest.mark.parametrize(
    "text, shown",
    [
        ("\\N", "\\N"),
        ("\\G x", "\\G x"),
        ("<b>x</b>", "<b>x</b>"),
        ("&amp;", "&amp;"),
        ("&#0;", "&#0;"),
        ("a\x00b", "a␀b"),
        ('say "hi"', 'say "hi"'),
        ("</svg><script>", "</svg><script>"),
    ],
)
def test_hostile_labels_are_shown_literally(text, shown):
    plan = Plan("g", [Step("S", text, expected_evidence="e")])
    label = texts(groups(render(plan).svg, "node-")["S"])
    assert label[1].lstrip("\u200b") == shown


@pytest.mark.parametrize(
    "text, kwargs, expected",
    [
        ("\\N", {}, "\\\\N"),
        ("<b>x</b>", {}, "\u200b<b>x</b>"),
        ("a & b", {}, "a &amp; b"),
        ("tab\tand\nnewline", {}, "tab and newline"),
        ("\x00\x1f\x7f", {"target": "text"}, "␀␟␡"),
        ("\u202ex", {"target": "text"}, "<U+202E>x"),
        ("abcdef", {"limit": 4, "target": "text"}, "abc…"),
        ("one two three", {"width": 7}, "one two\\nthree"),
        ("one two", {"align": "left"}, "one two\\l"),
    ],
)
def test_escape_label_table(text, kwargs, expected):
    assert escape_label(text, **kwargs) == expected


@pytest.mark.parametrize(
    "svg, message",
    [
        ('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "<script>"),
        ('<svg xmlns="http://www.w3.org/2000/svg"><foreignObject/></svg>', "<foreignobject>"),
        ('<svg xmlns="http://www.w3.org/2000/svg"><image href="x.png"/></svg>', "<image>"),
        (
            '<svg xmlns="http://www.w3.org/2000/svg"><g onload="alert(1)"/></svg>',
            "event handler onload",
        ),
        (
            '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
            '<a xlink:href="javascript:alert(1)"/></svg>',
            "link href",
        ),
        (
            '<svg xmlns="http://www.w3.org/2000/svg"><g style="fill:url(javascript:x)"/></svg>',
            "active style",
        ),
        ("<svg><g></svg>", "does not parse as XML"),
    ],
)
def test_check_svg_refuses_active_content(svg, message):
    with pytest.raises(RenderError, match=message):
        check_svg(svg)


def test_dom_id_is_injective_on_tricky_ids():
    ids = ["a~3c~", "a<", "a b", "a_b", "a-b", "~", "~7e~", "S3.v2", "", "é", "e\u0301"]
    assert len({dom_id(i) for i in ids}) == len(ids)
    assert all(
        set(dom_id(i)) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-~")
        for i in ids
    )


# --- big plans ------------------------------------------------------------------------------------------------------


def chain(n: int) -> Plan:
    return Plan(
        "long",
        [
            Step(f"C{i}", f"c{i}", expected_evidence="e", depends_on=[f"C{i - 1}"] if i else [])
            for i in range(n)
        ],
    )


def test_layout_estimated_slow_runs_in_a_child_process(monkeypatch):
    children = []
    real = render_module.lay_out
    monkeypatch.setattr(
        render_module, "lay_out", lambda *a, **k: children.append(k) or real(*a, **k)
    )
    monkeypatch.setattr(budget, "IN_PROCESS_SECONDS", 0.0)
    render_module._base.cache_clear()
    d = render(chain(12))
    assert not d.summarized and len(groups(d.svg, "node-")) == 12
    assert [(k["in_child"], k["timeout"], k["memory"]) for k in children] == [
        (True, 10.0, 2 * 2**30)
    ]


def test_layout_over_budget_is_not_tried_and_a_summary_says_how_long_it_would_take(monkeypatch):
    calls = []
    monkeypatch.setattr(render_module, "lay_out", lambda *a, **k: calls.append(1))
    monkeypatch.setattr(budget, "QUICK_SECONDS", 0.0)
    render_module._base.cache_clear()
    d = render(chain(101), budget=1e-9)
    assert d.summarized and d.view is None and not calls
    assert re.match(
        r"Laying out all 101 steps would take under a second \(estimated from its size\), "
        r"more than the budget of 1e-09 s allows\. "
        r"Showing one node per group of ready waves instead\.",
        d.notice,
    )
    waves = groups(d.svg, "wave-")
    counts = [int(texts(g)[1].split()[0]) for g in waves.values()]
    assert sum(counts) == 101 and len(waves) <= 40
    assert d.png()[:8] == PNG_MAGIC


def test_layout_time_limit_falls_back_and_is_remembered(monkeypatch):
    children = []
    real = render_module.lay_out

    def too_slow(graph, **k):
        children.append(k)
        return real(graph, **{**k, "in_child": True, "timeout": 0.001})

    monkeypatch.setattr(render_module, "lay_out", too_slow)
    render_module._base.cache_clear()
    plan = chain(40)
    tried = []
    for _ in range(3):
        d = render(plan, max_steps=30)
        assert d.summarized and "time limit" in d.notice
        assert sum(int(texts(g)[1].split()[0]) for g in groups(d.svg, "wave-").values()) == 40
        tried.append(len(children))
    # views of 30 and 15 steps tried once; remembered: later frames do not wait again
    assert tried == [
        2,
        2,
        2,
    ]


def test_a_picture_too_big_to_show_inline_says_to_save_it(monkeypatch):
    from planviz.pictures import diagram

    d = render(chain(3))
    assert "<svg" in d._repr_mimebundle_()["text/html"]
    monkeypatch.setattr(diagram, "MAX_INLINE", 100)
    bundle = d._repr_mimebundle_()
    assert "<svg" not in bundle["text/html"] and "image/svg+xml" not in bundle
    assert (
        "too big to show here" in bundle["text/plain"]
        and ".save('plan.svg')" in bundle["text/plain"]
    )
    assert repr(render(chain(12), max_steps=5)).startswith(
        "<planviz.Diagram (plan, 5 of 12 steps drawn one by one)"
    )


def test_the_picture_keeps_the_plans_unknowns_in_view(cache_plan):
    root = ET.fromstring(render(cache_plan).svg)
    caption = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "Unknowns: whether other services share the cache key scheme" in caption
    plain = cache_plan.replace(unknowns=())
    assert "Unknowns" not in " ".join(
        t.text or "" for t in ET.fromstring(render(plain).svg).iter(f"{SVG}text")
    )


def test_a_far_step_shows_its_budget():
    far = examples.load("far_horizon")
    nodes = groups(render(far).svg, "node-")
    assert "(far-horizon goal, budget 3 steps, 40 h)" in " ".join(texts(nodes["F1"]))


def test_an_expanded_version_draws_the_concrete_steps():
    run = simulate(examples.load("far_horizon"))
    at = next(e.index for e in run.events if e.kind == "expand")
    nodes = groups(render(run.plans[0], run=run, at=at).svg, "node-")
    assert {"F1.a", "F1.b"} <= set(nodes) and "F1" not in nodes
    assert "status-ready" in classes(nodes["F1.a"])
