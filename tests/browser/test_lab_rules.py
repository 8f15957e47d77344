"""The explorer in JupyterLab shows the event kinds of the run rules: expand, approval, recheck."""

from __future__ import annotations

import re

import pytest

from .conftest import write_notebook

pytestmark = pytest.mark.browser

FAR_CELL = """\
import planviz
from planviz import Contract, Fault, Plan, Step
cut_over = [dict(id="F2.a", action="Switch writes to the new cluster", kind="deploy", requires="reads_migrated",
                 produces="writes_migrated", expected_evidence="writes land on the new primary", check="every write lands",
                 approval="change board ticket CB-311", risk="high", rollback="switch back")]
far = planviz.explore(planviz.examples.load("far_horizon"), expand={"F2": cut_over}, approval_time=4)
far.index = next(e.index for e in far.run.events if e.kind == "expand")
far"""

GOAL_CELL = """\
def migrate(goal, contract, state, old):
    split = Step("M1", "Split the cache per tenant", kind="patch", depends_on="S0", requires="leak_reproduced",
                 produces="tenants_migrated", expected_evidence="one cache per tenant")
    return Plan(goal, [old.step("S0"), split], premises=old.premises)

change = Fault("S3", "goal_change", goal="Every tenant gets its own cache",
               contract=Contract(required=["reproduce"], obtainable_facts=["leak_reproduced", "tenants_migrated"]))
goal = planviz.explore(planviz.examples.load("cache_isolation"), faults=[change], propose=migrate)
goal.index = max(e.index for e in goal.run.events if e.kind == "recheck")
goal"""

# {step id: class attribute} of the diagram inside one explorer element
CLASSES_JS = """(el) => {
  const out = {};
  for (const g of el.querySelectorAll('.planviz-diagram svg g.node:not(.legend)')) {
    const title = g.querySelector('title');
    out[title ? title.textContent : g.id] = g.getAttribute('class') || '';
  }
  return out;
}"""


def test_the_explorer_shows_expand_approval_and_recheck(jupyterlab, page, ui):
    write_notebook(jupyterlab.root, "rules.ipynb", FAR_CELL, GOAL_CELL)
    pg = page.page
    pg.goto(f"{jupyterlab.url}/lab/tree/rules.ipynb?reset&token={jupyterlab.token}")
    pg.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=90_000)
    pg.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    pg.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()
    explorers = pg.locator(".planviz-explorer")
    explorers.nth(1).locator(".planviz-diagram svg g.node").first.wait_for(
        state="attached", timeout=120_000
    )
    far, goal = explorers.nth(0), explorers.nth(1)

    # a far step expanded into a new plan version: the concrete steps replace the placeholder
    assert re.search(r"Event \d+ of \d+: expand F1", far.locator(".pv-caption").inner_text())
    assert far.locator("tr.pv-kind-expand.pv-current").count() == 1
    nodes = far.evaluate(CLASSES_JS)
    assert {"F1.a", "F1.b"} <= set(nodes) and "F1" not in nodes and "status-ready" in nodes["F1.a"]

    # step forward, as a person would, to the approval the cut-over waits for
    for _ in range(20):
        if "approval" in far.locator(".pv-caption").inner_text():
            break
        old = far.locator(".pv-caption").inner_text()
        far.locator("button.planviz-forward").click()
        pg.wait_for_function(
            "([el, old]) => el.querySelector('.pv-caption').innerText !== old",
            arg=[far.element_handle(), old],
        )
    caption = far.locator(".pv-caption").inner_text()
    assert re.search(
        r"approval F2\.a .*'change board ticket CB-311' approved 'F2\.a' after a wait of 4", caption
    )
    assert far.locator("tr.pv-kind-approval.pv-current").count() == 1

    # a goal change: completed work re-checked, the reproduction kept, the work that started voided; S4 never
    # started (it waits for S3, where the goal changed), so it is not voided
    assert goal.locator("tr.pv-kind-recheck").count() == 3
    assert goal.locator("tr.pv-kind-recheck.pv-current").count() == 1
    nodes = goal.evaluate(CLASSES_JS)
    assert "kept" in nodes["S0"].split()
    assert all("status-invalidated" in nodes[s] for s in ("S1", "S2", "S3"))
    assert "status-invalidated" not in nodes["S4"] and "status-pending" in nodes["S4"]

    shot = ui.screenshot(pg.locator(".jp-NotebookPanel"), "jupyterlab-run-rules")
    assert shot.stat().st_size > 10_000
    assert not [
        e
        for e in pg.locator(
            ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
        ).all_inner_texts()
        if "Traceback" in e or "Error" in e
    ]
