"""The explorer, driven headless through its public controls, and the timeline chart."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import unescape

import ipywidgets
import pytest

from planviz import (Explorer, Fault, FrameIndexError, Plan, Step, critical_path, examples, explore, replay, save_trace,
                     simulate)
from planviz.errors import PlanvizError
from planviz.pictures.gantt import bars, gantt_svg

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


def test_explorer_is_a_widget_showing_the_first_event(ex, cache_plan):
    assert isinstance(ex, Explorer) and isinstance(ex, ipywidgets.VBox)
    assert ex.index == 0 and ex.run.outcome == "plan_complete"
    assert set(node_classes(ex.svg)) == set(cache_plan.ids)
    assert ex.slider.max == len(ex.run.events) - 1 == ex.play.max
    assert ex.back.disabled and not ex.forward.disabled
    assert ex.svg in ex.diagram.value
    assert "Event 0 of" in ex.caption.value
    bundle = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == repr(ex) == (
        f"<planviz Explorer: event 0 of {len(ex.run.events) - 1}, no faults, outcome plan_complete>")


def test_buttons_and_slider_move_through_the_events(ex):
    ex.forward.click()
    ex.forward.click()
    assert ex.index == 2 and "Event 2 of" in ex.caption.value
    ex.back.click()
    assert ex.index == 1
    ex.slider.value = ex.slider.max
    assert ex.index == len(ex.run.events) - 1 and ex.forward.disabled
    ex.forward.click()  # at the end: stays
    assert ex.index == len(ex.run.events) - 1
    ex.play.value = 3  # the Play widget drives the slider
    assert ex.index == 3 and ex.slider.value == 3


def test_each_frame_shows_that_events_statuses_and_panels(ex):
    for i in range(len(ex.run.events)):
        ex.index = i
        event = ex.run.frame(i)
        for step, st in event.statuses.items():
            assert status(ex.svg, step) == st, (i, step)
        assert items(ex.facts_panel.value) == (sorted(event.facts) or ["(none)"])
        assert items(ex.ready_panel.value) == (sorted(event.ready) or ["(none)"])
        current = re.search(r'<tr class="pv-kind-(\w+) pv-current"><td>[^<]*?(\d+)</td>', ex.log_panel.value)
        assert current and int(current.group(2)) == i and current.group(1) == ex.run.events[i].kind


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


def test_fault_panel_injects_and_shows_what_is_voided_and_kept(ex):
    ex.fault_step.value = "S4"
    ex.fault_kind.value = "side_effect"
    ex.inject_button.click()
    assert [(f.step, f.kind) for f in ex.faults] == [("S4", "side_effect")]
    event = ex.run.events[ex.index]
    assert set(event.voided) >= {"S3", "S4"}  # the view jumped to where the fault voids work
    for s in ("S3", "S4"):
        assert status(ex.svg, s) == "invalidated"
    for s in ("S0", "S1", "S2"):
        assert status(ex.svg, s) == "done"
    shown = text(ex.fault_status.value)
    assert "S4:side_effect" in shown
    assert re.search(r"voided: S3, S4", shown) and re.search(r"kept: S0, S1, S2", shown)
    assert "voided: S3, S4" in text(ex.caption.value)
    assert "side_effect" in ex.title.value


def test_clear_restores_the_fault_free_run(ex):
    plain = [e.kind for e in ex.run.events]
    ex.inject(Fault("S4", "side_effect"))
    assert [e.kind for e in ex.run.events] != plain
    ex.clear_button.click()
    assert ex.faults == () and [e.kind for e in ex.run.events] == plain
    assert ex.slider.max == len(plain) - 1 and ex.index == 0
    assert "no fault" in ex.fault_status.value


def test_inject_accepts_the_cli_spelling(ex):
    run = ex.inject("S4:side_effect")
    assert run is ex.run and ex.faults[0].kind == "side_effect"


def test_bad_fault_from_the_ui_is_shown_not_raised(ex):
    ex.fault_step.value = "S1"
    ex.fault_kind.value = "extra_fact"
    ex.fault_fact.value = "  "
    ex.inject_button.click()  # an extra_fact fault needs the fact observed
    assert ex.faults == ()
    assert "could not inject" in ex.fault_status.value and "extra_fact" in ex.fault_status.value
    assert ex.index == 0
    ex.fault_fact.value = "cache is shared"
    ex.inject_button.click()
    assert [str(f) for f in ex.faults] == ["S1:extra_fact:cache is shared"]
    assert "could not inject" not in ex.fault_status.value


@pytest.mark.parametrize("fault", [Fault("S4", "side_effect"), "S4:side_effect"])
def test_explore_with_faults_opens_on_the_failure(cache_plan, fault):
    ex = explore(cache_plan, faults=[fault])
    assert ex.faults == (Fault("S4", "side_effect"),)
    assert set(ex.run.events[ex.index].voided) == {"S3", "S4"}
    assert all(e.voided == frozenset() for e in ex.run.events[:ex.index])


def test_hostile_plan_text_is_escaped_everywhere(tmp_path):
    steps = [Step("A", HOSTILE, expected_evidence=HOSTILE, produces=[f"fact {HOSTILE}"]),
             Step("B", "then <b>bold</b>", expected_evidence="ok", depends_on=["A"],
                  requires=[f"fact {HOSTILE}"], produces=["done"])]
    ex = explore(Plan(f"goal {HOSTILE}", steps, premises=[HOSTILE]))
    ex.inject(Fault("B", "side_effect"))
    ex.tabs.selected_index = 3
    for i in range(len(ex.run.events)):
        ex.index = i
        for widget in (ex.title, ex.caption, ex.facts_panel, ex.ready_panel, ex.log_panel, ex.metrics_panel,
                       ex.fault_status, ex.timeline_panel, ex.diagram):
            assert "<img" not in widget.value and "<b>bold" not in widget.value, widget
    ex.index = -1
    assert "&lt;img src=x onerror=alert(1)&gt;" in ex.title.value + ex.facts_panel.value
    assert HOSTILE in ex.fault_fact.options  # widget options are text, not markup


def test_stepping_resends_only_what_changed(ex, monkeypatch):
    sent: list[tuple[int, tuple]] = []
    original = ipywidgets.Widget.send_state

    def spy(self, key=None):
        sent.append((id(self), tuple([key] if isinstance(key, str) else key or ())))
        return original(self, key)

    monkeypatch.setattr(ipywidgets.Widget, "send_state", spy)
    ex.index = 1
    ex.index = 2
    changed = {wid for wid, _ in sent}
    assert id(ex.diagram) in changed and id(ex.caption) in changed
    for quiet in (ex.metrics_panel, ex.timeline_panel, ex.title, ex.fault_step, ex.fault_kind, ex.fault_fact,
                  ex.fault_status, ex.inject_button, ex.tabs):
        assert id(quiet) not in changed, quiet
    assert {keys for _, keys in sent} <= {("value",), ("disabled",)}


def test_hidden_timeline_is_drawn_when_its_tab_is_shown(ex):
    times = [e.time for e in ex.run.events]
    later = next(i for i, t in enumerate(times) if t > times[3])
    ex.index = 3
    assert ex.timeline_panel.value == ""
    ex.tabs.selected_index = 3
    svg = ex.timeline_panel.value
    assert svg.startswith("<svg") and svg.count('class="pv-row"') == 5
    ex.index = later
    assert ex.timeline_panel.value != svg  # the cursor moved


def test_plan_with_a_cycle_opens_with_its_refusal():
    plan = Plan("g", [Step("A", "a", expected_evidence="e", depends_on=["B"]),
                      Step("B", "b", expected_evidence="e", depends_on=["A"])])
    ex = explore(plan)
    assert ex.run.outcome == "refused" and "refused" in ex.title.value
    assert set(node_classes(ex.svg)) == {"A", "B"}
    ex.tabs.selected_index = 3
    assert "no timeline" in ex.timeline_panel.value and "cycle" in ex.timeline_panel.value


def test_metrics_panel_lists_the_metrics(ex):
    shown = text(ex.metrics_panel.value)
    assert "success" in shown and "replans" in shown


def test_replay_a_trace_file_and_what_if(cache_plan, tmp_path):
    recorded = simulate(cache_plan, faults=[Fault("S3", "transient")])
    path = tmp_path / "run.jsonl"
    save_trace(recorded, path)
    ex = replay(path)
    assert [e.kind for e in ex.run.events] == [e.kind for e in recorded.events]
    assert "recorded run" in ex.title.value
    ex.inject(Fault("S4", "side_effect"))
    assert "what-if" in ex.title.value
    ex.clear_faults()
    assert [e.kind for e in ex.run.events] == [e.kind for e in recorded.events]
    assert replay(recorded).run is recorded


def test_replay_rejects_what_is_not_a_run():
    with pytest.raises(PlanvizError, match=r"replay\(trace=...\) expects a trace path or a planviz Run"):
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
    steps = [Step("A<b>", "a", expected_evidence="e", produces=["x"], duration=2),
             Step("B", "b", expected_evidence="e", depends_on=["A<b>"], requires=["x"], duration=3),
             Step("C", "c", expected_evidence="e", duration=1)]
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

    far = explore(examples.load("far_horizon"), expand={"F2": [
        {"id": "F2.a", "action": "Switch writes", "kind": "deploy", "requires": "reads_migrated", "check": "c",
         "produces": "writes_migrated", "expected_evidence": "e", "approval": "CB-311", "risk": "high",
         "rollback": "switch back"}]}, approval_time=2)
    goal = explore(examples.load("cache_isolation"), faults=[Fault("S3", "goal_change", goal="isolate sessions too",
                                                                   contract=Contract(required=["reproduce"]))])
    for ex, kind in ((far, "expand"), (far, "approval"), (goal, "recheck")):
        at = next(e.index for e in ex.run.events if e.kind == kind)
        ex.index = at
        assert f'<tr class="pv-kind-{kind} pv-current">' in ex.log_panel.value
        assert f"Event {at} of" in ex.caption.value and kind in ex.caption.value
    far.index = next(e.index for e in far.run.events if e.kind == "expand")
    assert 'id="node-F1.a"' in far.svg.replace("&#45;", "-") and 'id="node-F1"' not in far.svg


# --- the legend: beside the picture, only the looks on screen ------------------------------------------------------

def legend_keys_shown(html: str) -> list[str]:
    return re.findall(r'<li class="pv-legend-([a-z_]+)"', html)


def looks_on_screen(svg: str) -> set[str]:
    """The status looks the diagram's step nodes use, read from their classes (voided, kept, conflict win)."""
    out = set()
    for classes in node_classes(svg).values():
        for flag, key in (("conflict", "conflict"), ("status-failed", "failed"), ("voided", "invalidated"),
                          ("status-invalidated", "invalidated"), ("kept", "kept")):
            if flag in classes:
                out.add(key)
                break
        else:
            out.add(next(c for c in classes if c.startswith("status-")).removeprefix("status-"))
    return out


def test_the_legend_sits_beside_the_picture_and_not_inside_it(ex):
    assert ex.legend in ex.children[5].children and ex.diagram in ex.children[5].children  # one row: picture, legend
    assert 'id="legend-' not in ex.svg and "cluster_legend" not in ex.svg


@pytest.mark.parametrize("faults", [(), (Fault("S4", "side_effect"),)])
def test_the_legend_lists_only_the_looks_on_screen_at_every_frame(cache_plan, faults):
    ex = explore(cache_plan, faults=faults)
    seen_keys = set()
    for i in range(len(ex.run.events)):
        ex.index = i
        shown = legend_keys_shown(ex.legend.value)
        statuses = [k for k in shown if k not in ("critical", "far", "error", "warning", "info", "inferred")]
        assert set(statuses) == looks_on_screen(ex.svg), i
        assert ("critical" in shown) == ('class="edge critical' in ex.svg)
        seen_keys.update(shown)
    assert ("invalidated" in seen_keys) == bool(faults)  # "voided by a failure" appears only when a step is voided
    if faults:
        ex.index = next(e.index for e in ex.run.events if e.kind == "invalidate")
        assert "voided by a failure" in ex.legend.value and "kept: verified, survives" in ex.legend.value


def test_a_second_fault_is_added_or_replaces_the_first(ex):
    ex.inject("S1:transient")
    both = ex.inject("S4:side_effect")
    assert [str(f) for f in both.faults] == ["S1:transient", "S4:side_effect"]  # added: both apply
    only = ex.inject("S3:withdraw", replace=True)
    assert [str(f) for f in only.faults] == ["S3:withdraw"] and "S3:withdraw" in repr(ex)
