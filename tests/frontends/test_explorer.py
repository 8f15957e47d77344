"""The explorer, driven headless through its public controls, and the timeline chart."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html import unescape

import anywidget
import ipywidgets
import pytest

from planviz import (
    Explorer,
    Fault,
    FrameIndexError,
    Plan,
    Step,
    critical_path,
    examples,
    explore,
    render,
    replay,
    save_trace,
    simulate,
)
from planviz.errors import PlanvizError
from planviz.frontends.jsmodules import module_text
from planviz.pictures.gantt import bars, gantt_svg

from .pagedata import decode_page, named

HOSTILE = "<img src=x onerror=alert(1)>"
SVG = "{http://www.w3.org/2000/svg}"


def node_classes(svg: str) -> dict[str, set[str]]:
    """{step id: classes} of the diagram's node groups."""
    out = {}
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        classes = set((g.get("class") or "").split())
        if "node" in classes and "legend" not in classes:
            title = g.find(f"{SVG}title")
            out[g.get("data-step") or (title.text if title is not None else g.get("id"))] = classes
    return out


def status(svg: str, step: str) -> str:
    (s,) = [c for c in node_classes(svg)[step] if c.startswith("status-")]
    return s.removeprefix("status-")


def text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", html))


def items(html: str) -> list[str]:
    return [unescape(x) for x in re.findall(r"<li[^>]*>(.*?)</li>", html)]


@pytest.fixture
def ex(cache_plan):
    return explore(cache_plan)


def ask(ex, **request):
    """What the front end (explorer.js) does to ask the kernel: a custom message."""
    ex._on_message(ex, request, [])


def test_explorer_is_an_anywidget_showing_the_first_event(ex, cache_plan):
    assert (
        isinstance(ex, Explorer)
        and isinstance(ex, anywidget.AnyWidget)
        and isinstance(ex, ipywidgets.DOMWidget)
    )
    assert ex.index == 0 and ex.run.outcome == "plan_complete"
    assert set(node_classes(ex.svg)) == set(cache_plan.ids)
    assert ex.caption.startswith("Event 0 of")
    assert len(ex.snapshot["events"]) == len(ex.snapshot["log"]) == len(ex.run.events)
    assert ex._esm == module_text() and "\nexport default { render };" in ex._esm
    bundle, _ = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert (
        bundle["text/plain"]
        == repr(ex)
        == (
            f"<planviz Explorer: event 0 of {len(ex.run.events) - 1}, no faults, outcome plan_complete>"
        )
    )
    fallback = bundle["text/html"]  # the offline page, sandboxed, for hosts with no widget manager
    assert (
        fallback.startswith('<iframe class="planviz-fallback"')
        and 'sandbox="allow-scripts"' in fallback
    )
    page = unescape(re.search(r"srcdoc='(.*?)'", fallback, re.S)[1])
    assert (
        "Content-Security-Policy" in page
        and "https://" not in page
        and "const planvizModule = " in page
    )


def test_the_browser_moves_the_index_and_the_kernel_follows(ex):
    ex.set_state({"index": 2})  # what the front end's stepper sends
    assert ex.index == 2 and ex.caption.startswith("Event 2 of")
    ex.index = -1
    assert ex.index == len(ex.run.events) - 1


def test_each_frame_shows_that_events_statuses(ex):
    for i in range(len(ex.run.events)):
        ex.index = i
        event = ex.run.frame(i)
        for step, st in event.statuses.items():
            assert status(ex.svg, step) == st, (i, step)
        assert ex.caption.startswith(f"Event {i} of") and ex.run.events[i].kind in ex.caption


def test_done_steps_appear_as_the_run_progresses(ex):
    ex.index = 0
    assert status(ex.svg, "S4") != "done"
    ex.index = -1
    assert all(status(ex.svg, s) == "done" for s in ("S0", "S1", "S2", "S3", "S4"))


@pytest.mark.parametrize("value", [10_000, -10_000, 1.5, "2", True])
def test_index_out_of_range_or_not_an_int_raises(ex, value):
    with pytest.raises(FrameIndexError, match="event index"):
        ex.index = value
    assert ex.index == 0


def test_negative_index_counts_from_the_end(ex):
    ex.index = -1
    assert ex.index == len(ex.run.events) - 1


def test_fault_request_injects_and_shows_what_is_voided_and_kept(ex):
    ask(ex, kind="inject", step="S4", fault="side_effect", fact="", times=1)
    assert [(f.step, f.kind) for f in ex.faults] == [("S4", "side_effect")]
    event = ex.run.events[ex.index]
    assert set(event.voided) >= {"S3", "S4"}  # the view jumped to where the fault voids work
    for s in ("S3", "S4"):
        assert status(ex.svg, s) == "invalidated"
    for s in ("S0", "S1", "S2"):
        assert status(ex.svg, s) == "done"
    assert "S4:side_effect" in ex.fault_status
    assert "voided: S3, S4" in ex.fault_status and "kept: S0, S1, S2" in ex.fault_status
    assert "voided: S3, S4" in ex.caption
    assert "side_effect" in ex.mode
    assert len(ex.snapshot["events"]) == len(ex.run.events) and ex.snapshot["start"] == ex.index


def test_clear_restores_the_fault_free_run(ex):
    plain = [e.kind for e in ex.run.events]
    ex.inject(Fault("S4", "side_effect"))
    assert [e.kind for e in ex.run.events] != plain
    ask(ex, kind="clear")
    assert ex.faults == () and [e.kind for e in ex.run.events] == plain
    assert len(ex.snapshot["events"]) == len(plain) and ex.index == 0
    assert "no fault" in ex.fault_status


def test_inject_accepts_the_cli_spelling(ex):
    run = ex.inject("S4:side_effect")
    assert run is ex.run and ex.faults[0].kind == "side_effect"


def test_bad_fault_from_the_front_end_is_shown_not_raised(ex):
    # extra_fact needs the fact observed
    ask(ex, kind="inject", step="S1", fault="extra_fact", fact="  ", times=1)
    assert ex.faults == ()
    assert "could not inject" in ex.fault_status and "extra_fact" in ex.fault_status
    assert ex.index == 0
    ask(ex, kind="inject", step="S1", fault="extra_fact", fact="cache is shared", times=1)
    assert [str(f) for f in ex.faults] == ["S1:extra_fact:cache is shared"]
    assert "could not inject" not in ex.fault_status
    ask(ex, kind="inject", step="nope", fault="side_effect", times="x")
    assert "could not inject" in ex.fault_status and len(ex.faults) == 1


def test_play_asks_the_front_end(ex, monkeypatch):
    sent = []
    monkeypatch.setattr(type(ex), "send", lambda self, content, buffers=None: sent.append(content))
    ex.play()
    assert sent == [{"kind": "play"}]


@pytest.mark.parametrize("fault", [Fault("S4", "side_effect"), "S4:side_effect"])
def test_explore_with_faults_opens_on_the_failure(cache_plan, fault):
    ex = explore(cache_plan, faults=[fault])
    assert ex.faults == (Fault("S4", "side_effect"),)
    assert set(ex.run.events[ex.index].voided) == {"S3", "S4"}
    assert all(e.voided == frozenset() for e in ex.run.events[: ex.index])


def test_hostile_plan_text_is_data_or_escaped(tmp_path):
    steps = [
        Step("A", HOSTILE, expected_evidence=HOSTILE, produces=[f"fact {HOSTILE}"]),
        Step(
            "B",
            "then <b>bold</b>",
            expected_evidence="ok",
            depends_on=["A"],
            requires=[f"fact {HOSTILE}"],
            produces=["done"],
        ),
    ]
    ex = explore(Plan(f"goal {HOSTILE}", steps, premises=[HOSTILE]))
    ex.inject(Fault("B", "side_effect"))
    snap = ex.snapshot
    # text, set as text by the module
    assert snap["goal"] == f"goal {HOSTILE}" and f"fact {HOSTILE}" in snap["facts"]
    for v in snap["versions"]:
        # markup the module inserts: escaped
        assert "<img" not in v["svg"] and "<b>bold" not in v["svg"]
    assert "<img" not in snap["gantt"] and "<b>bold" not in snap["gantt"]
    page = unescape(re.search(r"srcdoc='(.*?)'", ex._repr_mimebundle_()[0]["text/html"], re.S)[1])
    assert "<img" not in page and "<b>bold" not in page


def test_stepping_sends_only_the_index(ex, monkeypatch):
    sent: list[tuple] = []
    original = ipywidgets.Widget.send_state

    def spy(self, key=None):
        sent.append(tuple([key] if isinstance(key, str) else key or ()))
        return original(self, key)

    monkeypatch.setattr(ipywidgets.Widget, "send_state", spy)
    ex.index = 1
    ex.index = 2
    assert sent == [("index",), ("index",)]  # the browser has the frames: a step is one number


def test_the_saved_state_grows_with_the_plan_not_with_frames(cache_plan):
    """A widget's saved state is its snapshot: one picture per plan version plus each event's changes, never a
    picture per frame (a 300-step plan's state stays a few times its pictures)."""
    plan = Plan(
        "wide",
        [
            Step(
                f"S{i}", f"step {i}", expected_evidence="ok", depends_on=[f"S{i - 1}"] if i else []
            )
            for i in range(300)
        ],
    )
    ex = explore(plan)
    state = json.dumps(ex.get_state(), default=str)
    pictures = sum(len(v["svg"]) for v in ex.snapshot["versions"]) + len(ex.snapshot["gantt"])
    assert len(ex.snapshot["versions"]) == 1 and len(ex.run.events) > 600
    # not 600 pictures
    assert len(state) < 2 * pictures + 300 * len(ex.run.events), (
        len(state),
        pictures,
    )


def test_timeline_and_metrics_travel_with_the_snapshot(ex):
    svg = ex.snapshot["gantt"]
    assert svg.startswith("<svg") and svg.count('class="pv-row"') == 5
    names = [k for k, _ in ex.snapshot["metrics"]]
    assert "success" in names and "replans" in names


def test_plan_with_a_cycle_opens_with_its_refusal():
    plan = Plan(
        "g",
        [
            Step("A", "a", expected_evidence="e", depends_on=["B"]),
            Step("B", "b", expected_evidence="e", depends_on=["A"]),
        ],
    )
    ex = explore(plan)
    assert ex.run.outcome == "refused" and ex.snapshot["outcome"] == "refused"
    assert set(node_classes(ex.svg)) == {"A", "B"}
    assert "no timeline" in ex.snapshot["gantt"] and "cycle" in ex.snapshot["gantt"]


def test_replay_a_trace_file_and_what_if(cache_plan, tmp_path):
    recorded = simulate(cache_plan, faults=[Fault("S3", "transient")])
    path = tmp_path / "run.jsonl"
    save_trace(recorded, path)
    ex = replay(path)
    assert [e.kind for e in ex.run.events] == [e.kind for e in recorded.events]
    assert ex.mode.startswith("recorded run")
    ex.inject(Fault("S4", "side_effect"))
    assert ex.mode.startswith("what-if")
    ex.clear_faults()
    assert [e.kind for e in ex.run.events] == [e.kind for e in recorded.events]
    assert replay(recorded).run is recorded


def test_replay_rejects_what_is_not_a_run():
    with pytest.raises(
        PlanvizError, match=r"replay\(trace=...\) expects a trace path or a planviz Run"
    ):
        replay(42)


# -- the timeline chart -------------------------------------------------------------------------


def test_bars_follow_the_run(cache_plan):
    run = simulate(cache_plan)
    got = {b.step: b for b in bars(run)}
    assert set(got) == set(cache_plan.ids)
    assert all(b.result == "done" for b in got.values())
    sched = critical_path(cache_plan)
    for step, b in got.items():
        assert b.end - b.start == pytest.approx(cache_plan.step(step).duration)
        assert b.start >= sched.steps[step].es - 1e-9


def test_bars_of_voided_work_are_marked(cache_plan):
    run = simulate(cache_plan, faults=[Fault("S4", "side_effect")])
    results = {(b.step, b.result) for b in bars(run)}
    voided = {s for e in run.events for s in e.voided}
    assert {s for s, r in results if r == "voided"} == voided - {"S4"} == {"S3"}
    assert ("S4", "failed") in results and ("S0", "done") in results


def test_gantt_marks_critical_steps_and_escapes_ids():
    steps = [
        Step("A<b>", "a", expected_evidence="e", produces=["x"], duration=2),
        Step("B", "b", expected_evidence="e", depends_on=["A<b>"], requires=["x"], duration=3),
        Step("C", "c", expected_evidence="e", duration=1),
    ]
    plan = Plan("g", steps, time_unit="h<")
    svg = gantt_svg(simulate(plan), critical_path(plan), now=2.0, unit=plan.time_unit)
    root = ET.fromstring(svg)  # well-formed
    rows = {g.get("data-step"): g for g in root.iter(f"{SVG}g") if g.get("class") == "pv-row"}
    assert set(rows) == {"A<b>", "B", "C"}
    bold = {k for k, g in rows.items() if g.find(f"{SVG}text").get("font-weight") == "bold"}
    assert bold == {"A<b>", "B"}
    assert "<b>" not in svg and "time (h&lt;)" in svg
    cursor = root.find(f"{SVG}line[@class='planviz-now']")
    x0, scale = float(root.get("data-x0")), float(root.get("data-scale"))
    assert float(cursor.get("x1")) == pytest.approx(x0 + 2.0 * scale, abs=0.01)


def test_the_explorer_shows_each_new_event_kind():
    from planviz import Contract

    far = explore(
        examples.load("far_horizon"),
        expand={
            "F2": [
                {
                    "id": "F2.a",
                    "action": "Switch writes",
                    "kind": "deploy",
                    "requires": "reads_migrated",
                    "check": "c",
                    "produces": "writes_migrated",
                    "expected_evidence": "e",
                    "approval": "CB-311",
                    "risk": "high",
                    "rollback": "switch back",
                }
            ]
        },
        approval_time=2,
    )
    goal = explore(
        examples.load("cache_isolation"),
        faults=[
            Fault(
                "S3",
                "goal_change",
                goal="isolate sessions too",
                contract=Contract(required=["reproduce"]),
            )
        ],
    )
    for ex, kind in ((far, "expand"), (far, "approval"), (goal, "recheck")):
        at = next(e.index for e in ex.run.events if e.kind == kind)
        ex.index = at
        assert ex.snapshot["log"][at][1] == kind
        assert ex.caption.startswith(f"Event {at} of") and kind in ex.caption
    far.index = next(e.index for e in far.run.events if e.kind == "expand")
    assert 'id="node-F1.a"' in far.svg.replace("&#45;", "-") and 'id="node-F1"' not in far.svg


# --- the legend: beside the picture, only the looks on screen ------------------------------------------------------


def test_the_legend_is_beside_the_picture_not_inside_it(ex):
    assert 'id="legend-' not in ex.svg and "cluster_legend" not in ex.svg
    assert all('id="legend-' not in v["svg"] for v in ex.snapshot["versions"])
    keys = [row[0] for row in ex.snapshot["legend"]]
    assert {"pending", "ready", "done", "invalidated", "kept", "critical"} <= set(keys)


@pytest.mark.parametrize("faults", [(), (Fault("S4", "side_effect"),)])
def test_the_legend_data_says_the_looks_render_shows(cache_plan, faults):
    """The module lists the legend keys of the looks on its nodes plus each version's fixed keys: at every frame
    that is render's own legend of the frame."""
    ex = explore(cache_plan, faults=faults)
    snap = ex.snapshot
    version, looks, v = [], [list(spec["looks"]) for spec in snap["versions"]], 0
    for e in snap["events"]:
        v = e.get("v", v)
        version.append(v)
    at = len(snap["events"]) - 1
    for i in [*range(at, -1, -1)]:  # backwards from the last frame, as the module starts
        while at > i:
            d = snap["events"][at].get("d", [])
            for k in range(0, len(d), 3):
                looks[version[at]][d[k]] = d[k + 1]
            at -= 1
        k = version[i]
        shown = set(snap["versions"][k]["legend"]) | {snap["look_legend"][x] for x in looks[k]}
        expected = set(render(ex.run.plan_at(i), run=ex.run, at=i, legend=False).legend)
        assert shown == expected, i


def test_the_fallback_of_a_300_step_run_stays_under_a_megabyte():
    """The static fallback holds the whole run (packed: gzip in base64, unpacked by the browser) and stays small."""
    import base64
    import gzip

    steps = [
        Step(
            f"S{i}",
            f"step {i} of the layered plan",
            expected_evidence="ok",
            produces=[f"f{i}"],
            depends_on=[f"S{j}" for j in (i - 10, i - 11) if j >= 0 and j // 10 == i // 10 - 1],
            requires=[f"f{j}" for j in (i - 10, i - 11) if j >= 0 and j // 10 == i // 10 - 1],
        )
        for i in range(300)
    ]
    ex = explore(Plan("three hundred steps", steps), faults=[Fault("S150", "side_effect")])
    fallback = ex._repr_mimebundle_()[0]["text/html"]
    assert len(fallback.encode("utf-8")) < 1_000_000
    packed = re.search(r'data-encoding="gzip\+base64">([A-Za-z0-9+/=]+)</script>', fallback)[1]
    data = json.loads(gzip.decompress(base64.b64decode(packed)))
    # the page data format, read back whole
    assert decode_page(data) == named(json.loads(json.dumps(ex.snapshot)))


def test_a_second_fault_is_added_or_replaces_the_first(ex):
    ex.inject("S1:transient")
    both = ex.inject("S4:side_effect")
    assert [str(f) for f in both.faults] == ["S1:transient", "S4:side_effect"]  # added: both apply
    only = ex.inject("S3:withdraw", replace=True)
    assert [str(f) for f in only.faults] == ["S3:withdraw"] and "S3:withdraw" in repr(ex)


def test_a_new_reading_of_a_recorded_run_computes_its_hindsight_once(monkeypatch):
    """The picture's notes, the frame shown and the metrics all use the run's hindsight: one computation."""
    from planviz.runs.hindsight import retrospect

    from ..runs.otlp import react_trace

    calls = []
    real = retrospect.ideal_schedule
    monkeypatch.setattr(retrospect, "ideal_schedule", lambda *a: calls.append(1) or real(*a))
    from planviz import load_trace

    explorer = replay(load_trace(react_trace(41)))
    assert len(calls) == 1
    explorer.show_recorded(load_trace(react_trace(41)))  # a live run read again: a new Run
    assert len(calls) == 2
