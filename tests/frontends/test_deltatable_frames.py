"""The report's per-event changes, read back from the page, against every frame recomputed whole.

The report stores one picture per plan version (its last frame) and, per event, the looks that changed
(``d``: node, look before, look after), the facts and ready steps that came and went, the event's caption
lines. Here the page is decoded by the tests' own decoder (tests/frontends/pagedata.py) and stepped back from
each version's last frame, undoing one event at a time; at every event the looks reached must be what that
frame, built whole (:meth:`planviz.Run.frame`, every node's mark and every group's member counts worked out
afresh, no delta), gives. The runs: seeded simulated runs with faults, a 400-step plan and the ReAct trace
drawn with group nodes, the synthetic ReAct trace and two real OpenTelemetry traces.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from planviz import Fault, Plan, Step, examples, load_trace, report_html, simulate
from planviz.frontends.panels import plan_of, version_options
from planviz.pictures.captions import critical_marks, event_lines, schedule_of
from planviz.pictures.drawing import render
from planviz.pictures.grouping import counts_text, group_mark, group_traits, member_key
from planviz.pictures.style import node_marks, slot_value, tip
from planviz.runs.fault import FAULT_KINDS

from ..runs.otlp import react_trace
from .pagedata import NAMES, page_data, shown_lines

REAL = Path(__file__).resolve().parents[1] / "data" / "real" / "otel"
SLOTS = (
    "fill",
    "stroke",
    "stroke-width",
    "stroke-dasharray",
    "outer-stroke",
    "outer-stroke-width",
    "outer-stroke-dasharray",
    "status",
)
FLAGS = ("voided", "kept", "conflict", "not_run")


def _look(m) -> dict:
    """A mark as the page's look table writes it (status class, flag bits, the slots, the tooltip's end),
    named by the schema's fields."""
    status = next((c for c in m.classes if c.startswith("status-")), "status-pending")
    row = [
        status,
        sum(1 << k for k, f in enumerate(FLAGS) if f in m.classes),
        *(slot_value(kind, m, "") for kind in SLOTS),
        tip(m.extra, "text") if m.extra else "",
    ]
    return dict(zip(NAMES["looks"], row, strict=True))


def _seeded(seed: int):
    rng = random.Random(seed)
    for _ in range(20):
        plan = examples.load(rng.choice(examples.names()))
        try:
            return simulate(
                plan,
                faults=[Fault(rng.choice(plan.ids), rng.choice(FAULT_KINDS))],
                strategy=rng.choice(["planner", "workflow", "direct"]),
            )
        # a fault that does not fit this plan (an approval where none is asked): draw again
        except Exception:
            continue
    raise AssertionError(seed)


def _layered():
    plan = Plan(
        "g",
        [
            Step(
                f"S{i}",
                f"do {i}",
                expected_evidence="ok",
                duration=1 + i % 5,
                depends_on=[f"S{i - 10}"] if i >= 10 else [],
            )
            for i in range(400)
        ],
    )
    return simulate(plan, faults=[Fault("S175", "side_effect")])


def _react(tmp_path: Path):
    (tmp_path / "react.json").write_text(json.dumps(react_trace(801)), encoding="utf-8")
    return load_trace(tmp_path / "react.json")


RUNS = {
    **{f"seed {s}": (lambda _, s=s: _seeded(s)) for s in range(4)},
    "400 steps, groups": lambda _: _layered(),
    "ReAct 801 spans": _react,
    **{
        name: (lambda _, name=name: load_trace(REAL / name))
        for name in ("any-agent_GOOGLE_trace.json", "any-agent-tinyagent-d6dda390-unended.json")
    },
}


@pytest.mark.parametrize("name", list(RUNS))
def test_each_event_steps_to_the_frame_built_whole(name, tmp_path):
    run = RUNS[name](tmp_path)
    snap = page_data(report_html(run, tmp_path / "r.html").read_text(encoding="utf-8"))
    events, looks, last = snap["events"], snap["looks"], len(run.events) - 1
    assert len(events) == len(run.events)
    starts = [i for i, e in enumerate(events) if "v" in e] + [len(events)]
    assert starts[0] == 0 and len(starts) - 1 == len(snap["versions"])
    stepped = 0
    for k, version in enumerate(snap["versions"]):
        first, end = starts[k], starts[k + 1] - 1
        plan = plan_of(run, first)
        assert version["version"] == plan.version
        diagram = render(plan, run=run, at=end, **version_options(plan, {}))
        groups = () if diagram.summarized or diagram.view is None else tuple(diagram.view.groups)
        steps = [sid for sid in version["ids"][: len(version["ids"]) - len(groups)]]
        critical = critical_marks(plan, schedule_of(plan)[0])[0]
        findings = tuple(dict.fromkeys(plan.import_findings))
        members = sorted({m for g in groups for m in g.members if m in plan.by_id})
        traits = [
            group_traits(
                g, node_marks(plan, None, critical, findings, ids=members) if members else {}
            )
            for g in groups
        ]
        current = list(version["looks"])
        for i in range(end, first - 1, -1):
            frame = run.frame(i)
            marks = node_marks(plan, frame, critical, findings, ids=steps)
            whole = [_look(marks[sid]) for sid in steps]
            for g, t in zip(groups, traits):
                counts = Counter(
                    member_key(sid, frame.statuses, frame.voided, frame.kept, frame.not_run)
                    for sid in g.members
                )
                whole.append(_look(group_mark(g, counts_text(counts), t)))
            assert [looks[n] for n in current] == whole, (name, i)
            stepped += 1
            triples = events[i].get("d", [])
            assert i > first or not triples
            for j in range(len(triples) - 3, -1, -3):  # undo event i: back to frame i - 1
                node, before, after = triples[j : j + 3]
                assert current[node] == after and before != after, (name, i)
                current[node] = before
            # kept, or composed from the log row as the page's script does
            assert shown_lines(snap, i) == list(event_lines(run.events[i], i, run, plan)), (name, i)
            assert shown_lines(snap, i)[0].startswith(f"event {i} of {last}")
    assert stepped == len(run.events)
    # the facts and ready steps that came and went, from whole frames
    for i, out in enumerate(events):
        now, before = run.frame(i), (run.frame(i - 1) if i else None)
        for key, attr, names in (("g", "facts", "facts"), ("ri", "ready", "steps")):
            had = set(getattr(before, attr)) if before is not None else set()
            has = set(getattr(now, attr))
            assert {snap[names][n] for n in out.get(key, [])} == has - had, (name, i, key)
            lost = "l" if key == "g" else "ro"
            assert {snap[names][n] for n in out.get(lost, [])} == had - has, (name, i, lost)
        assert {snap["steps"][n] for n in out.get("ke", [])} == set(run.events[i].kept), (name, i)


def _react_groups(tmp_path: Path):
    (tmp_path / "react.json").write_text(json.dumps(react_trace(4001)), encoding="utf-8")
    return load_trace(tmp_path / "react.json")


@pytest.mark.parametrize(
    "make", [_react_groups, lambda _: _layered()], ids=["ReAct 4001", "400 steps"]
)
def test_the_delta_table_reads_a_frame_only_where_the_changes_do_not_say_it(
    make, tmp_path, monkeypatch
):
    """A long run's group restyles come from what each event changed, not from a frame per event: besides the
    frames render reads, the table reads a frame per plan version, where an event restyles a node drawn on its
    own and where an event voids, keeps or stops."""
    from planviz.frontends import deltatable
    from planviz.runs.events import Run
    from planviz.runs.frames import MARKING_KINDS

    run = make(tmp_path)
    read = []
    frame = Run.frame
    monkeypatch.setattr(Run, "frame", lambda self, i: read.append(i) or frame(self, i))
    drawing = deltatable.render
    monkeypatch.setattr(
        deltatable, "render", lambda *a, **k: (read.append("render"), drawing(*a, **k))[1]
    )
    _, pictures = deltatable.delta_table(run)
    monkeypatch.undo()
    deltas = run.deltas()
    restyled = 0  # events that restyle a node drawn on its own
    for p in pictures:
        drawn = set(p.ids[: sum(n.startswith("node-") for n in p.nodes)])
        restyled += sum(1 for i in range(p.first + 1, p.last + 1) if drawn & deltas[i].steps)
    marking = sum(e.kind in MARKING_KINDS for e in run.events)
    grouped = sum(len(p.ids) > sum(n.startswith("node-") for n in p.nodes) for p in pictures)
    assert grouped and len(run.events) > 4 * (restyled + marking) + 100
    # render's own frames are a handful per layout; the table's: a version's first ones and its last
    assert len(read) <= read.count("render") * 12 + 3 * len(pictures) + restyled + 2 * marking + 1
