"""Every teaching notebook runs top to bottom in a fresh python3 kernel, as a teacher would run it.

Each notebook is executed once per test session (nbclient, cwd = notebooks/,
widget state stored); the tests then read the executed copies. A notebook with
exercises then runs its solutions in the same kernel, as a student would
(``%run -i solutions/NAME.py`` at the end), and the solutions test reads those
verdicts: one kernel per notebook per session. A notebook passes when no cell
produced an error output; stderr streams are allowed, because pygraphviz's
bundled fontconfig prints a harmless warning there.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
# A shipped notebook's name starts with its number (01_, 02b_, ...). Others may sit beside them: `make lab` opens
# notebooks/, where "New notebook" saves (Untitled.ipynb), and the suite never runs those.
SHIPPED = re.compile(r"\d\d[a-z]?_[a-z0-9_]+\.ipynb")
NOTEBOOKS = tuple(sorted(p.name for p in NOTEBOOK_DIR.glob("*.ipynb") if SHIPPED.fullmatch(p.name)))
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
FEEDBACK_MIME = "application/vnd.planviz.feedback+json"
SVG_NS = "http://www.w3.org/2000/svg"
SOLUTIONS = NOTEBOOK_DIR / "solutions"

pytestmark = pytest.mark.notebooks


def _solution_cells(name: str) -> list[nbformat.NotebookNode]:
    """What a student adds at the end of a notebook to run its solutions, then the verdicts printed as JSON."""
    return [
        nbformat.v4.new_code_cell(f"%run -i solutions/{Path(name).stem}.py"),
        nbformat.v4.new_code_cell(
            "import json\nprint('VERDICTS', json.dumps({k: [v.exercise, v.passed, str(v)] "
            "for k, v in CHECKED.items()}))"
        ),
    ]


@dataclass(frozen=True)
class Ran:
    """One notebook's run: the notebook as executed (or the error that stopped it), then, in the same kernel,
    its solutions (the two cells appended, executed; or the error that stopped them; None without exercises)."""

    notebook: nbformat.NotebookNode | None
    error: BaseException | None
    solved: nbformat.NotebookNode | BaseException | None


def execute_notebook(
    path: Path, *, solutions: bool = False, kernel_name: str = "python3", timeout: int = 120
) -> Ran:
    """Run one notebook in a new kernel with cwd = its folder; with ``solutions``, then run its solutions in that
    kernel. The notebook returned is a copy taken before the solutions ran: what a teacher sees."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=kernel_name,
        store_widget_state=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    # one kernel for the notebook and its solutions, shut down on leaving
    with client.setup_kernel():
        try:
            client.execute(cleanup_kc=False)
        except Exception as error:  # noqa: BLE001 - kept for every test of this notebook to report
            return Ran(None, error, None)
        ran = copy.deepcopy(nb)
        if not solutions:
            return Ran(ran, None, None)
        try:
            for cell in _solution_cells(path.name):
                nb.cells.append(cell)
                client.execute_cell(
                    cell, len(nb.cells) - 1, execution_count=client.code_cells_executed + 1
                )
        except Exception as error:  # noqa: BLE001
            return Ran(ran, None, error)
        return Ran(ran, None, nb)


def outputs(nb: nbformat.NotebookNode):
    for cell in nb.cells:
        if cell.cell_type == "code":
            yield from cell.get("outputs", [])


def text_of(nb: nbformat.NotebookNode) -> str:
    """Everything the notebook printed or displayed as text (stdout and text/plain results)."""
    parts = []
    for out in outputs(nb):
        if out.output_type == "stream" and out.name == "stdout":
            parts.append(out.text)
        elif out.output_type in ("execute_result", "display_data"):
            parts.append(str(out.get("data", {}).get("text/plain", "")))
            parts.append(str(out.get("data", {}).get("text/html", "")))
    return "\n".join(parts)


def mimetypes(nb: nbformat.NotebookNode) -> set[str]:
    return {mime for out in outputs(nb) for mime in out.get("data", {})}


@pytest.fixture(scope="session")
def ran():
    """name -> Ran, each notebook run (with its solutions) at most once per session; checks the runs left no file
    in notebooks/."""
    before = sorted(p.name for p in NOTEBOOK_DIR.iterdir())
    runs: dict[str, Ran] = {}

    def run(name: str) -> Ran:
        if name not in runs:
            runs[name] = execute_notebook(NOTEBOOK_DIR / name, solutions=name in WITH_EXERCISES)
        return runs[name]

    yield run
    after = sorted(p.name for p in NOTEBOOK_DIR.iterdir())
    assert after == before, "a notebook wrote into notebooks/; write under ../out/ or a temp dir"


@pytest.fixture(scope="session")
def executed(ran):
    """name -> the executed notebook (raises the error that stopped it, on every test that reads it)."""

    def notebook(name: str) -> nbformat.NotebookNode:
        done = ran(name)
        if done.error is not None:
            raise done.error
        return done.notebook

    return notebook


def test_the_notebooks_are_there():
    """The shipped notebooks are numbered from 01 with no gap (a letter adds one between two: 02b), so a notebook
    lost from notebooks/ shows; the suite runs those, never whatever else the folder holds."""
    numbers = sorted({int(name[:2]) for name in NOTEBOOKS})
    assert len(NOTEBOOKS) >= 9 and numbers == list(range(1, len(numbers) + 1)), (
        f"shipped notebooks (NN_name.ipynb) missing from notebooks/: {NOTEBOOKS}"
    )


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_clean(name):
    """Committed with the python3 kernelspec (no kernel dialog), no outputs, a title and an exercise."""
    nb = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    nbformat.validate(nb)
    assert dict(nb.metadata["kernelspec"]) == KERNELSPEC
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, f"{name} has no code"
    assert all(c.outputs == [] and c.execution_count is None for c in code), (
        f"{name} is committed with outputs"
    )
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    tail = "\n".join(c.source for c in nb.cells[-3:])
    assert "Exercise" in tail, f"{name} does not end with an exercise"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_runs_top_to_bottom(executed, name):
    nb = executed(name)
    errors = [out for out in outputs(nb) if out.output_type == "error"]
    assert errors == [], f"{name}: {[e.ename + ': ' + e.evalue for e in errors]}"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code)


def test_checklist_notebook_finds_what_a_checklist_lacks_and_draws_the_plan(executed):
    nb = executed("01_checklist_to_plan.ipynb")
    text = text_of(nb)
    assert len(re.findall(r"structure\s+no_evidence", text)) == 4
    assert "S2 -> S3   carries ['isolation_test_written']" in text
    assert "<svg" in json.dumps([o.get("data", {}) for o in outputs(nb)])


def test_validation_notebook_shows_each_layer_and_the_refusal(executed):
    text = text_of(executed("02_validation.ipynb"))
    for layer, code in [
        ("structure", "cycle"),
        ("feasibility", "infeasible_fact"),
        ("semantics", "unmet_requirement"),
        ("semantics", "forbidden_step"),
        ("static", "resource_conflict"),
        ("static", "high_risk_unguarded"),
    ]:
        assert re.search(rf"^{layer}\s+{code}\s", text, re.M), f"{layer}/{code} not shown"
    assert "'S2' produces it but is not an ancestor of 'S3'" in text
    assert "refused: True | unsatisfiable: ('deploy_credentials',)" in text
    assert re.search(
        r"^feasibility\s+unsupported_premise\s+'D1' relies on the premise 'deploy_credentials'",
        text,
        re.M,
    )
    assert "ok: no findings" in text  # the fixed plan
    # refused before step 1: no start event, the stop names the finding; the direct agent meets it at R4
    assert "refused: the plan is refused before step 1: outside_intent (R4)" in text
    assert "refused by: outside_intent" in text
    assert "'R4' failed (outside_intent): the tool call was refused" in text
    # which layers stop prepare: any error, and how it refuses
    for name, gate, why in [
        ("cycle", "SchemaError", "structure cycle"),
        ("release", "PlanningFailure", "feasibility infeasible_fact"),
        ("forgot S2 -> S3", "SemanticError", "semantics unmet_requirement"),
        ("resource clash", "SemanticError", "static high_risk_unguarded"),
        ("fixed", "runs", "(warnings at most)"),
    ]:
        assert re.search(rf"^{re.escape(name)}\s+{gate}\s+{re.escape(why)}$", text, re.M), name
    # a check that says "ran": an error on the patch (it writes), a warning on S1 (it reads), also the action restated
    assert re.search(r"^S3 check='ran'\s+error\s+refused: True$", text, re.M)
    assert re.search(
        r"^S3 check='Patch the key builder to include the tenant id'\s+error\s+refused: True$",
        text,
        re.M,
    )
    assert re.search(r"^S1 check='done'\s+warning\s+refused: False$", text, re.M)
    # ... and the action restated in part; a word one could observe keeps a check a predicate
    assert re.search(r"^S3 check='Patch applied.'\s+error\s+refused: True$", text, re.M)
    assert re.search(
        r"^S3 check='done: patch the key builder'\s+error\s+refused: True$", text, re.M
    )
    assert re.search(
        r"^S3 check='the patched key builder compiles'\s+no finding\s+refused: False$", text, re.M
    )
    # the write plan: its argument and its tool's precondition checked before step 1; approvals come per step
    for code in ("bad_placeholder", "tool_precondition", "vacuous_check"):
        assert re.search(rf"^static\s+{code}\s+.*'R4'", text, re.M), code
    # ... and, with the tool's arguments registered, their names and types (a placeholder fits any type)
    assert (
        "step 'R4' passes 'pair' to 'purge_cache', which does not take it (did you mean 'pairs'?)"
        in text
    )
    assert "step 'R4' calls 'purge_cache' without 'pairs', which it requires" in text
    assert (
        "step 'R4' passes snapshot=42 (an integer) to 'purge_cache', which takes snapshot: string"
        in text
    )
    assert "approval_denied: 'S3' may not run without the approval of 'team lead'" in text
    assert "tool calls before the no: 3" in text
    # ... while the write plan confirmed as a whole is refused before any tool call, from the sheet
    assert (
        "confirm the write plan for: Purge the cache entries one tenant read from another\n2 of 5 steps write"
        in text
    )
    assert re.search(
        r"^      tool: purge_cache  arguments: .*\{\{R5\.snapshot_id\}\}.*  effect: destructive$",
        text,
        re.M,
    )
    assert "tool calls before the no, confirmed as a whole: 0" in text
    assert (
        "approval_denied: the write plan may not run: it was not confirmed (writing steps: S1, S2, S3)"
        in text
    )
    # the node contract's five fields, shown on the patch before exercise 5 asks what each missing one costs
    assert re.search(r"^expected_evidence\s+'a diff of the key builder'$", text, re.M)
    # the prose's "S2 now has 21 minutes of slack" is printed
    assert "S2's slack now: 21 min (it was 5)" in text


def test_grading_notebook_grades_reads_real_outputs_and_their_placeholders(executed):
    text = text_of(executed("02b_planner_outputs_and_grading.ipynb"))
    # recall 1.0 with three order violations against 0.5 with none
    assert (
        "required recall: 1.00\nforbidden steps present: (none)\norder violations: reproduce < patch, "
        "diagnose < patch, patch < verify" in text
    )
    assert (
        "required recall: 0.50 (missing: patch, verify)\nforbidden steps present: (none)\n"
        "order violations: (none)" in text
    )
    # the real outputs ship with the package: the cells run in a clone and on Binder
    assert (
        "48 plans from taskbench_sample.jsonl, 10 with errors" in text
        and "corpus is not here" not in text
    )
    # a real planner's placeholder (<node-0>) is a dependency and a required fact; the fixed purge validates
    assert re.search(
        r"arguments=\{.*'<node-\d+>'.*\}  after=\['node-\d+'\]  requires=\['node-\d+\.output'\]",
        text,
    )
    # ... and the prose says what that plan does: it transcribes first, then turns the text back into speech
    assert re.search(r"node-0  Automatic Speech Recognition .*\n  node-1  Text-to-Speech ", text)


def test_critical_path_notebook_prints_29_of_32(executed):
    text = text_of(executed("03_critical_path.ipynb"))
    assert re.search(r"serial time .*:\s+32 min", text) and re.search(
        r"makespan .*:\s+29 min", text
    )
    assert "critical path: S0 -> S1 -> S3 -> S4" in text
    assert re.search(r"^S2\s+5\s+8\s+10\s+13\s+5$", text, re.M), "S2's slack of 5 not shown"
    assert "1 worker(s): finished at 32 min" in text and "2 worker(s): finished at 29 min" in text


def test_explorer_notebook_shows_a_live_widget_and_the_scopes(executed):
    nb = executed("04_simulated_run.ipynb")
    assert WIDGET_MIME in mimetypes(nb)
    assert nb.metadata.get("widgets"), "widget state was not stored"
    text = text_of(nb)
    assert re.search(
        r"side_effect\s+S4\s+invalidate_subgraph\s+S3\s+\['S3', 'S4'\]\s+\['S0', 'S1', 'S2'\]", text
    )
    # the prose's "16 of the 32 minutes"
    assert "side effect at S4: 16 of 32 min of work redone" in text
    for category, action in [
        ("transient", "retry"),
        ("precondition", "return_to_source"),
        ("goal_change", "replan"),
    ]:
        assert re.search(rf"^{category}\s+S\d\s+{action}\s", text, re.M)
    assert re.search(r"^S1:transient\s+-> plan_complete\s", text, re.M)
    # the run as frames, for slides (the strategies side by side wait for notebook 07, which defines them)
    assert "image/gif" in mimetypes(nb)
    assert (ROOT / "out" / "04_simulated_run" / "side_effect_flipbook.html").is_file()
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "strategy" not in code and "animate({" not in code


def test_replanning_notebook_shows_each_rule_a_revision_obeys(executed):
    nb = executed("05_replanning_rules.ipynb")
    text = text_of(nb)
    assert "version 2: ['S0', 'S1', 'S2', 'S3.v2', 'S4.v2']" in text
    # the identity rule, redundant work and a replan that changes nothing
    assert (
        "refused: revision v2 is refused: completed_redefined: it redefines completed steps S1"
        in text
    )
    assert "redundant (facts already held): S1.v2, S2.v2" in text
    assert re.search(r"^reissue\s+2\s+7\s+45$", text, re.M) and re.search(
        r"^cautious\s+4\s+9\s+53$", text, re.M
    )
    assert re.search(r"^no_new_route \|", text, re.M)
    # identity is content: the copies under fresh ids meet the same fault and count as the same repeated work
    assert re.search(
        r"^copycat\s+replan_limit\s+S3,S4 -> P2,V2 -> P3,V3\s+S4,V2,V3\s+4\s+9$", text, re.M
    )
    assert re.search(
        r"^reissue\s+replan_limit\s+S3,S4 -> S3\.v2,S4\.v2 -> S3\.v3,S4\.v3\s+S4,S4\.v2,S4\.v3\s+4\s+9$",
        text,
        re.M,
    )
    # goal and safety invariants: a revision that lowers the bar or swaps the goal is refused
    assert "lower_the_bar -> refused (goal_changed_by_replan)" in text
    assert "easier_goal   -> refused (goal_changed_by_replan)" in text
    assert "goal_changed_by_replan: it changes the contract's required" in text
    # rollback before retrying a write
    assert "with rollback:    plan_complete" in text and re.search(
        r"^without rollback: step_failed", text, re.M
    )
    # the rules every run obeys: serialized writers, a global goal change
    assert (
        "t= 13 min  start    S2" in text
        and "finished at 32 min; critical path (no resources): 29 min" in text
    )
    assert "goal_changed: the goal changed at 'S3' and no new goal was given" in text
    assert re.search(r"recheck\s+'S0' re-checked against the new goal: kept", text)
    assert re.search(r"recheck\s+'S1' re-checked against the new goal: voided", text)
    # the receding horizon (seed 004's planning idea, moved here from notebook 06): expansion, awaiting_expansion,
    # an approval wait
    assert re.search(r"v2 expand\s+'F1' expanded into F1\.a, F1\.b: plan v2", text)
    assert "awaiting_expansion: the far-horizon step 'F2' is ready" in text
    assert re.search(
        r"t=46 v3 approval\s+'change board ticket CB-311' approved 'F2\.a' after a wait of 4", text
    )
    assert "warning over_budget" in text and "-> approval_denied" in text
    # the goal-change picture is the new version: the new goal in its header, never the old one
    svg = next(svg for svg in _svgs(nb) if "M1" in _statuses(svg))
    drawn = ET.tostring(svg, encoding="unicode")
    assert "Every tenant gets its own cache" in drawn and "Tenants never see" not in drawn
    assert _statuses(svg) == {"S0": "done", "M1": "ready", "M2": "pending"}


@pytest.mark.parametrize(
    "name",
    [
        "02_validation.ipynb",
        "02b_planner_outputs_and_grading.ipynb",
        "04_simulated_run.ipynb",
        "05_replanning_rules.ipynb",
        "07_is_planning_worth_it.ipynb",
    ],
)
def test_user_facing_text_says_voided(name):
    """One word per thing: prose and printed labels say "voided"; `invalidated` appears only as code (the API's
    status, event kind or field), in backquotes or in a code cell."""
    nb = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    prose = "\n".join(
        re.sub(r"`[^`]*`", "", c.source) for c in nb.cells if c.cell_type == "markdown"
    )
    printed = "\n".join(
        re.findall(
            r"print\(f?\"([^\"]*)\"", "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        )
    )
    assert not re.search(r"invalidat", prose + re.sub(r"\{[^}]*\}", "", printed), re.I)


def _svgs(nb: nbformat.NotebookNode) -> list[ET.Element]:
    """Every inline diagram the notebook displayed, parsed."""
    found = []
    for out in outputs(nb):
        html = out.get("data", {}).get("text/html", "")
        if "planviz-diagram" in html and "<svg" in html:
            found.append(ET.fromstring(html[html.index("<svg") : html.rindex("</svg>") + 6]))
    return found


def _statuses(svg: ET.Element) -> dict[str, str]:
    """{step id: status} of a run frame's picture, read from the node groups' classes."""
    out = {}
    for g in svg.iter(f"{{{SVG_NS}}}g"):
        classes = (g.get("class") or "").split()
        if "node" in classes and (g.get("id") or "").startswith("node-"):
            status = next(
                (c.removeprefix("status-") for c in classes if c.startswith("status-")), ""
            )
            out[g.get("id").removeprefix("node-")] = status
    return out


def test_debugging_notebook_finds_the_route_died_and_writes_trace_and_report(executed):
    nb = executed("06_debugging_a_failed_run.ipynb")
    assert WIDGET_MIME in mimetypes(nb)  # the replay viewer
    text = text_of(nb)
    assert "outcome: expected_evidence_missing" in text
    assert "'executor'" in text
    assert "return_to_source -> restart at S1" in text
    assert "report.html" in text and "trace.jsonl" in text
    # an executor's calls outside the plan, read from the recorded run with the route fixed: none for this agent
    assert "evidence rate: 0.8 | out of plan: (none)" in text and re.search(
        r"^S4\s+performed=True\s+evidence=False$", text, re.M
    )
    report = ROOT / "out" / "06_failed_run" / "report.html"
    assert report.is_file() and report.read_text(encoding="utf-8").lstrip().lower().startswith(
        "<!doctype html"
    )


def test_debugging_notebook_observer_reads_the_tools_not_the_plan():
    """The observer derives facts from what each tool reported; it never reads what the plan says a step produces."""
    nb = nbformat.read(NOTEBOOK_DIR / "06_debugging_a_failed_run.ipynb", as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert ".produces" not in code


def test_debugging_notebook_draws_the_culprit_and_the_conflict(executed):
    """The death frame shows S1 as the run believed it (done); the diagnosis frame draws it failed, with S3
    and S4 pending (they never started: nothing of them is voided), S0 and S2 kept, and S2's conflicting
    observation marked."""
    nb = executed("06_debugging_a_failed_run.ipynb")
    frames = [_statuses(svg) for svg in _svgs(nb)]
    believed = next(f for f in frames if f.get("S4") == "failed")
    assert believed["S1"] == "done"
    culprit = next(f for f in frames if f.get("S1") == "failed")
    assert culprit["S3"] == culprit["S4"] == "pending" and culprit["S0"] == culprit["S2"] == "done"
    svg = next(svg for svg in _svgs(nb) if _statuses(svg).get("S1") == "failed")
    classes = {g.get("id"): g.get("class") for g in svg.iter(f"{{{SVG_NS}}}g") if g.get("id")}
    assert "conflict" in classes["node-S2"].split() and "kept" in classes["node-S0"].split()
    text = text_of(nb)
    assert "conflict: 'S2' observed 'not key_builder_located'" in text
    assert "no longer reachable: ['S3', 'S4']" in text
    assert "image/gif" in mimetypes(nb)  # the careful run, animated


def test_comparison_notebook_shows_when_planning_pays_and_when_it_does_not(executed):
    nb = executed("07_is_planning_worth_it.ipynb")
    text = text_of(nb)
    for word in (
        "direct",
        "workflow",
        "planner",
        "tool_calls",
        "model_calls",
        "recovery_distance",
        "work_voided",
    ):
        assert word in text
    # outcome classes: a false premise is a correct stop for the planner, a silent failure for the others
    assert re.search(
        r"^S0:premise_false\s+silent_failure \(5/5\)\s+silent_failure \(5/0\)\s+"
        r"correct_stop \(1/1\)$",
        text,
        re.M,
    )
    # the implicit agent redoes what a withdrawn fact spoiled, like the planner; the workflow cannot
    assert re.search(
        r"^S3:withdraw\s+goal_success \(7/7\)\s+failure \(4/0\)\s+goal_success \(7/2\)$", text, re.M
    )
    # without the graph, the direct agent still sees its inputs: no call on what the failure took away
    assert (
        "precondition_errors=0, duplicate_steps=0, replans=0, recovery_distance=0, critical_path_delay=None, "
        "tool_calls=3, model_calls=3, time=16.0, outcome_class='failure', work_voided=0), attribution='executor'"
        in text
    )
    # the release refusal: a correct stop, a result rather than a failure: no one to blame
    assert re.search(
        r"outcome='refused'.*?outcome_class='correct_stop'.*?attribution=None", text, re.S
    )
    # ... and the two that went on are blamed on the contract, with the reason printed beside the party
    assert re.search(
        r"^direct\s+contract\s+the contract asks for a fact no route can have", text, re.M
    )
    assert re.search(
        r"^workflow\s+contract\s+the contract asks for a fact no route can have", text, re.M
    )
    assert re.search(r"^planner\s+None\s+a correct refusal", text, re.M)
    # structural
    assert "outcome='replan_limit'" in text and "tool_calls=9, model_calls=3, time=61.0" in text
    # direct, workflow and planner side by side on the tool error
    assert "image/gif" in mimetypes(nb)
    assert (
        ROOT / "out" / "07_planning_worth_it" / "side_effect_flipbook.html"
    ).is_file()  # and on the side effect
    # the executor alone (seed 000, section 11): the frozen route blames the executor the planner's replan rescued
    assert re.search(
        r"^S4:side_effect\s+replan_limit\s+0\.80\s+-\s+executor\s+plan_complete\s+7\s+-$",
        text,
        re.M,
    )
    assert re.search(
        r"^S3:withdraw\s+replan_limit\s+0\.75\s+-\s+environment\s+plan_complete\s+7\s+-$",
        text,
        re.M,
    )
    assert re.search(
        r"^S1:transient\s+plan_complete\s+1\.00\s+-\s+-\s+plan_complete\s+6\s+-$", text, re.M
    )
    assert re.search(r"^S4\s+yes\s+no\s+1$", text, re.M) and "evidence rate: 0.80" in text
    # ... and on a real agent's recorded run: the call outside the route read from the trace
    assert re.search(r"^M\s+no\s+no\s+0$", text, re.M) and "out of plan: write_file" in text
    assert "attribution: executor (the executor left the fixed route" in text
    # with a spread: goal success with its interval over 200 sampled faults, the other classes, the ablation's rows
    assert re.search(r"^planner\s+200\s+0\.\d\d \[0\.\d\d, 0\.\d\d\]\s+0\.00\s+0\.00", text, re.M)
    assert re.search(r"^-replanning\s+200\s", text, re.M) and re.search(
        r"^replan_cap=1\s+200\s", text, re.M
    )
    # stops
    assert re.search(
        r"^planner\s+200\s+0\.\d\d \[0\.\d\d, 0\.\d\d\]\s+0\.[1-9]\d\s+0\.00", text, re.M
    )
    if (
        ROOT.parent / "shared" / "corpus" / "asynchow"
    ).is_dir():  # a real task set beside the worked example
        assert "campaign: 400 plans x 20 samples" in text
    assert (ROOT / "out" / "07_planning_worth_it" / "tool_error_flipbook.html").is_file()
    # the chart of the campaign shows what its prose says: direct and planner at one height, apart on model calls
    chart = next(
        str(o.get("data", {}).get("image/svg+xml", ""))
        + str(o.get("data", {}).get("text/html", ""))
        for o in outputs(nb)
        if "goal success rate against" in json.dumps(o.get("data", {}))
    )
    assert "goal success rate against model_calls" in chart
    (dx, dy), _, (px, py) = [
        (float(x), float(y))
        for x, y in re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)"', chart)[:3]
    ]
    assert dy == py and dx - px > 100, "the direct agent and the planner drawn on top of each other"


def test_real_trace_notebook_reads_both_formats_aligns_and_diffs(executed):
    nb = executed("09_debugging_a_real_trace.ipynb")
    text = text_of(nb)
    assert "steps:   ('get_current_time', 'write_file')" in text
    assert "inferred_dependency" in text and "deviating_attribute" in text
    assert re.search(r"^check\s+not run\s+-\s+never called", text, re.M)
    assert "first divergence: event 4" in text
    from planviz import examples

    raw = json.loads(examples.trace("any-agent_OPENAI_trace").read_text())
    llm = sum(1 for s in raw["spans"] if s["attributes"].get("gen_ai.operation.name") == "call_llm")
    assert f"model_calls={llm}," in text  # run_usage: the file's model calls, each once
    assert re.search(r"^[\d.]+ s ran, [\d.]+ s possible", text, re.M)  # hindsight
    assert WIDGET_MIME in mimetypes(nb)  # side_by_side
    assert (ROOT / "out" / "09_real_trace" / "two_runs.html").is_file()
    # the live section: the agent's spans reached the receiver and the explorer grew with them until the root ended
    seen = re.search(
        r"^steps on screen as the spans arrived: \[([\d, ]*)\] then (\d+)$", text, re.M
    )
    assert seen, "the live section printed no growth"
    grew = [int(n) for n in seen.group(1).split(",") if n.strip()] + [int(seen.group(2))]
    assert grew == sorted(grew) and grew[-1] == 3, grew
    assert "live run, final (root span ended)" in text
    assert "steps: ('get_current_time', 'write_file', 'read_file') outcome: plan_complete" in text
    # 200+250+300+350, 4 x 20
    assert "tool_calls=3, model_calls=4, input_tokens=1100, output_tokens=80" in text
    assert (
        "write_file waits for get_current_time: derived: '2025' in '2025-09-16T10:04:51+02:00'"
        in text
    )


def test_capstone_catches_the_permission_before_step_1_and_shows_the_premise_and_the_cap(executed):
    nb = executed("08_capstone_past_due_account.ipynb")
    text = text_of(nb)
    # the permission failure: refused before step 1 by the planner, met at step 4 by the direct agent
    assert "refused: the plan is refused before step 1: outside_intent (step_4)" in text
    assert "'step_4' failed (outside_intent): the tool call was refused" in text
    assert re.search(
        r"^read-only request\s+step_failed 4/4 pe=0\s+step_failed 4/0 pe=0\s+refused 0/1 pe=0$",
        text,
        re.M,
    )
    # the read-only contract holds on the cheats: no registry, a declared write, a renamed tool that says it writes
    assert (
        "no registry:       [('unverified_effect', 'step_1'), ('unverified_effect', 'step_2'), "
        in text
    )
    assert "  simulate: refused" in text
    assert (
        "declared honestly: [('outside_intent', 'step_4'), ('outside_intent', 'step_5'), "
        "('unverified_effect', 'step_1'), ('unverified_effect', 'step_2'), ('unverified_effect', 'step_3')]"
    ) in text
    assert "renamed, registered read-only: no error" in text
    assert (
        "and the step says it writes: [('effect_conflict', 'step_4'), ('outside_intent', 'step_4')]"
        in text
    )
    assert "08 exercise 2: not yet. 'step_4' still sends the offer" in text
    # the premise falsified after step 1: the planner stops; the direct agent (no premises) and the workflow send
    # the offer anyway
    assert "premise_failed: 'step_1' falsified the premise 'account C-17 is past due'" in text
    assert re.search(
        r"^settled yesterday\s+plan_complete 5/5 pe=0\s+plan_complete 5/0 pe=0\s+premise_failed 1/1 pe=0$",
        text,
        re.M,
    )
    # the replan cap
    assert "replan_limit: a revision is needed but the run already made 2 (max_replans=2)" in text
    assert re.search(
        r"^collections hold\s+step_failed 7/7 pe=0\s+step_failed 3/0 pe=0\s+replan_limit 7/3 pe=0$",
        text,
        re.M,
    )
    assert "image/gif" in mimetypes(nb)


# --- exercises: every check is called in its notebook, and every solution passes its check -------------------


def _lesson(name: str):
    """The planviz.teaching module of a notebook (``01_...`` -> ``lesson01``, ``02b_...`` -> ``lesson02b``), or None
    when it has none."""
    try:
        return importlib.import_module(f"planviz.teaching.lesson{name.split('_', 1)[0]}")
    except ModuleNotFoundError:
        return None


def _checks(module) -> dict[str, str]:
    """{check function name: the exercise label its Feedback carries} of a lesson module."""
    number = module.__name__.rsplit(".", 1)[1].removeprefix("lesson")
    return {
        n: f"{number} {n.removeprefix('check_').replace('_', ' ')}"
        for n, f in inspect.getmembers(module, inspect.isfunction)
        if n.startswith("check_") and f.__module__ == module.__name__
    }


WITH_EXERCISES = [n for n in NOTEBOOKS if _lesson(n) is not None]


def test_lessons_have_notebooks_and_solutions():
    import pkgutil

    import planviz.teaching

    lessons = sorted(
        m.name
        for m in pkgutil.iter_modules(planviz.teaching.__path__)
        if m.name.startswith("lesson")
    )
    assert lessons == sorted(f"lesson{n.split('_', 1)[0]}" for n in WITH_EXERCISES)
    assert sorted(p.stem for p in SOLUTIONS.glob("*.py")) == sorted(
        Path(n).stem for n in WITH_EXERCISES
    )


@pytest.mark.parametrize("name", WITH_EXERCISES)
def test_every_exercise_has_a_check_cell(executed, name):
    """Each check of the lesson is run in the notebook (unanswered, it says so instead of passing)."""
    nb = executed(name)
    shown = {
        out["data"][FEEDBACK_MIME]["exercise"]: out["data"][FEEDBACK_MIME]["passed"]
        for out in outputs(nb)
        if FEEDBACK_MIME in out.get("data", {})
    }
    assert set(shown) == set(_checks(_lesson(name)).values())
    assert not any(shown.values()), "a check passed on the notebook's placeholder answer"


@pytest.mark.parametrize("name", WITH_EXERCISES)
def test_solutions_pass_their_checks(executed, ran, name):
    """After the notebook, its solutions run in its kernel as a student would (``%run -i solutions/NAME.py``): every
    check passes."""
    executed(name)  # the notebook itself ran
    solved = ran(name).solved
    if isinstance(solved, BaseException):
        raise solved
    printed = "".join(
        o.text for o in solved.cells[-1].outputs if o.output_type == "stream" and o.name == "stdout"
    )
    verdicts = json.loads(printed.split("VERDICTS", 1)[1])
    expected = _checks(_lesson(name))
    assert set(verdicts) == set(expected), (
        "every check of the lesson needs a solution, and only those"
    )
    for check, (label, passed, text) in verdicts.items():
        assert label == expected[check]
        assert passed, f"the solution of {label} does not pass its check: {text}"


def _figures(text: str) -> set[str]:
    """The decimal figures of prose (``0.39``, ``3.94``), outside code spans."""
    return set(re.findall(r"(?<![\w.])\d+\.\d+(?![\w.])", re.sub(r"`[^`]*`", "", text)))


def _backed(figure: str, printed: str, code: str) -> bool:
    """A figure is backed when a cell prints it, or a number that rounds to it (6.3 for a printed 6.25), or the
    code sets it (an input, not a claim)."""
    from decimal import ROUND_HALF_UP, Decimal

    places = Decimal(1).scaleb(-len(figure.split(".")[1]))
    said = Decimal(figure)
    for shown in re.findall(r"(?<![\w.])\d+\.\d+", printed):
        if Decimal(shown).quantize(places, rounding=ROUND_HALF_UP) == said:
            return True
    return bool(re.search(rf"(?<![\w.]){re.escape(figure)}(?![\d])", code))


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_prose_figures_are_printed_by_the_notebook(executed, name):
    """Claims the outputs back: every decimal figure the prose states is printed by a cell or set by the code."""
    nb = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    figures = {f for c in nb.cells if c.cell_type == "markdown" for f in _figures(c.source)}
    if not figures:
        return
    ran = executed(name)
    printed = text_of(ran)
    code = "\n".join(c.source for c in ran.cells if c.cell_type == "code")
    unbacked = sorted(f for f in figures if not _backed(f, printed, code))
    assert unbacked == [], f"{name}: the prose says {unbacked}, which no cell prints"


def test_the_comparison_notebook_is_in_order():
    """07 reads as questions, runs, exercises, checks, recap: the exercise list after the last run (the ablation
    and the real task set), every check cell after it, the recap last."""
    nb = nbformat.read(NOTEBOOK_DIR / "07_is_planning_worth_it.ipynb", as_version=4)
    cells = nb.cells
    exercises = next(
        i
        for i, c in enumerate(cells)
        if c.cell_type == "markdown" and c.source.startswith("## Exercises")
    )
    checks = [
        i for i, c in enumerate(cells) if c.cell_type == "code" and "check_exercise_" in c.source
    ]
    runs = [
        i
        for i, c in enumerate(cells)
        if c.cell_type == "code" and re.search(r"planviz\.(ablation|campaign)\(", c.source)
    ]
    assert max(runs) < exercises < min(checks)
    assert cells[-1].source.startswith("## Recap") and max(checks) == len(cells) - 2
