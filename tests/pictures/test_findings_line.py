"""The picture says its findings in one line (how many, their codes), not one line per whole-plan finding: on the
any-agent OpenAI trace the importer's five warnings took five caption lines of each picture in notebook 09's
comparison, two thirds of it; the list is in the explorer's details."""

from __future__ import annotations

import re
from html import unescape

import planviz


def _caption(svg: str) -> list[str]:
    return [
        unescape(t) for t in re.findall(r'<text[^>]*text-anchor="start"[^>]*>([^<]*)</text>', svg)
    ]


def test_the_import_findings_are_one_line_of_the_picture():
    run = planviz.load_trace(planviz.examples.trace("any-agent_OPENAI_trace"))
    found = run.plan.import_findings
    assert len(found) == 5 and {f.severity for f in found} == {"warning"}
    caption = _caption(planviz.render(run.plan, run=run).svg)
    about = [line for line in caption if any(f.code in line for f in found)]
    assert about == [
        "0 errors, 5 warnings (deviating_attribute ×3, inferred_dependency, no_call_ids), listed in "
        "the details"
    ]
    # no message in the picture
    assert not [line for line in caption if any(f.message[:30] in line for f in found)]


def test_the_caption_names_the_plans_critical_path_not_a_makespan():
    caption = _caption(planviz.render(planviz.examples.load("cache_isolation")).svg)
    assert (
        "plan v1 · 5 steps · critical path (plan) 29 min: S0 → S1 → S3 → S4 (serial 32 min)"
        in caption
    )
    assert not [line for line in caption if "makespan" in line]


def test_the_explorer_lists_the_findings_and_says_plan_and_run_times_apart():
    run = planviz.load_trace(planviz.examples.trace("any-agent_OPENAI_trace"))
    ex = planviz.explore(run)
    assert ex.snapshot["findings"] == [
        [f.severity, f.code, f.message, ", ".join(f.steps)] for f in run.plan.import_findings
    ]
    sim = planviz.explore(planviz.examples.load("cache_isolation"))
    assert sim.mode == "simulated run · no faults · critical path (plan) 29 min · ran 29 min"
    assert "makespan" not in ex.mode and ex.mode.endswith(
        f" · ran {float(run.events[-1].time):g} s"
    )
