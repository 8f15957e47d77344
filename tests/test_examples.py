"""The bundled examples: each one's verdict, and `planviz validate` / `planviz grade` exit codes."""

from __future__ import annotations

import json

import pytest

from planviz import PlanningFailure, dump_plan, examples, grade, prepare, validate
from planviz.errors import SemanticError

from .conftest import run_cli

# name -> (validates ok?, the finding codes it must produce, with the file's own contract)
VERDICTS = {
    "cache_isolation": (True, set()),
    "parser_fix": (True, set()),
    "far_horizon": (True, set()),
    "past_due_account": (True, set()),
    "release_no_credentials": (False, {"infeasible_fact", "unmet_requirement"}),
    "delete_failing_test": (
        False,
        {"forbidden_step", "missing_required", "forbidden_state", "no_check"},
    ),
}


def test_every_example_has_a_verdict():
    assert set(examples.names()) == set(VERDICTS)


@pytest.mark.parametrize("name", sorted(VERDICTS))
def test_example_verdict(name):
    ok, codes = VERDICTS[name]
    plan = examples.load(name)
    report = validate(plan, plan.contract)
    assert report.ok is ok
    assert report.codes == codes, report.to_text()
    assert validate(plan) == report  # the file's own contract is the default


def test_release_is_refused_not_retried():
    plan = examples.load("release_no_credentials")
    out = prepare(plan, plan.contract)
    assert isinstance(out, PlanningFailure)
    assert out.unsatisfiable == ("deploy_credentials",)
    [f] = validate(plan, plan.contract).by_code()["infeasible_fact"]
    assert f.steps == ("D1",)


def test_deleting_the_failing_test_is_rejected():
    plan = examples.load("delete_failing_test")
    report = validate(plan, plan.contract)
    assert [f.steps for f in report.by_code()["forbidden_step"]] == [("S2",)]
    assert [f.steps for f in report.by_code()["forbidden_state"]] == [("S2",)]
    assert "'verify'" in report.by_code()["missing_required"][0].message
    with pytest.raises(SemanticError, match="delete_test"):
        prepare(plan, plan.contract)
    g = grade(plan)
    assert (g.admissible, g.required_recall, g.forbidden_present) == (False, 0.5, ("S2",))


def test_far_horizon_goals_are_coarse_and_still_valid():
    plan = examples.load("far_horizon")
    assert [s.id for s in plan.steps if s.horizon == "far"] == ["F1", "F2"]
    assert prepare(plan, plan.contract) is plan


@pytest.mark.parametrize("name", ["cache_isolation", "parser_fix", "far_horizon"])
def test_clean_examples_pass_prepare_and_grade(name):
    plan = examples.load(name)
    assert prepare(plan, plan.contract) is plan
    g = grade(plan)
    assert (g.admissible, g.required_recall, g.forbidden_present, g.order_violations) == (
        True,
        1.0,
        (),
        (),
    )


def planviz(*args: str):
    return run_cli(*args)


@pytest.mark.parametrize("name", sorted(VERDICTS))
def test_cli_validate_exit_code(name):
    ok, codes = VERDICTS[name]
    out = planviz("validate", str(examples.path(name)))
    assert out.returncode == (0 if ok else 1), out.stderr
    assert out.stderr == ""
    lines = out.stdout.splitlines()
    assert lines[-1].startswith("ok" if ok else "not ok")
    assert {line.split()[1] for line in lines if line.startswith(("error ", "warning "))} == codes


def test_cli_validate_json():
    path = examples.path("delete_failing_test")
    out = planviz("validate", str(path), "--json")
    assert out.returncode == 1
    plan = examples.load("delete_failing_test")
    assert json.loads(out.stdout) == validate(plan, plan.contract).to_dict()


def test_cli_validate_with_a_separate_contract(tmp_path):
    contract = tmp_path / "contract.yaml"
    contract.write_text("required: [reproduce, deploy]\n")
    out = planviz("validate", str(examples.path("parser_fix")), "--contract", str(contract))
    assert out.returncode == 1
    assert "missing_required" in out.stdout and "'deploy'" in out.stdout
    contract.write_text("required: [reproduce, verify]\n")
    assert (
        planviz(
            "validate", str(examples.path("parser_fix")), "--contract", str(contract)
        ).returncode
        == 0
    )


@pytest.mark.parametrize(
    "content, needle",
    [
        (None, "missing.yaml"),
        ("goal: g\nsteps:\n  - id: S1\n    action: [unclosed\n", "bad.yaml"),
        ("goal: g\nsteps:\n  - id: S1\n    action: a\n    duration: soon\n", "duration"),
    ],
)
def test_cli_validate_unreadable_exits_2(tmp_path, content, needle):
    name = "missing.yaml" if content is None else "bad.yaml"
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    out = planviz("validate", str(path))
    assert out.returncode == 2
    assert out.stdout == "" and "Traceback" not in out.stderr
    assert out.stderr.startswith("planviz: error:") and needle in out.stderr


def test_cli_validate_many_plans_prints_a_summary(tmp_path):
    lines = [
        json.dumps(
            {
                "goal": "g",
                "steps": [{"id": "A", "action": "a", "expected_evidence": "e", "produces": ["x"]}],
            }
        ),
        json.dumps(
            {
                "goal": "h",
                "steps": [
                    {"id": "A", "action": "a", "expected_evidence": "e", "depends_on": ["A"]}
                ],
            }
        ),
    ]
    path = tmp_path / "plans.jsonl"
    path.write_text("\n".join(lines) + "\n")
    out = planviz("validate", str(path))
    assert out.returncode == 1, out.stderr
    assert out.stdout.splitlines()[0] == "2 plans, 1 with errors"
    data = json.loads(planviz("validate", str(path), "--json").stdout)
    assert data == {
        "plans": 2,
        "plans_with_errors": 1,
        "counts": {"no_artifact": 1, "self_dependency": 1},
        "plans_by_code": {"no_artifact": 1, "self_dependency": 1},
        "severities": {"no_artifact": "warning", "self_dependency": "error"},
        "failed": [{"index": 1, "id": "", "errors": ["self_dependency"]}],
    }
    clean = tmp_path / "clean.jsonl"
    clean.write_text(lines[0] + "\n" + lines[0] + "\n")
    assert planviz("validate", str(clean)).returncode == 0


@pytest.mark.parametrize(
    "name, code",
    [("cache_isolation", 0), ("delete_failing_test", 1), ("release_no_credentials", 1)],
)
def test_cli_grade_exit_code(name, code):
    out = planviz("grade", str(examples.path(name)))
    assert out.returncode == code, out.stderr
    assert out.stdout.splitlines()[0] == f"admissible: {'yes' if code == 0 else 'no'}"
    data = json.loads(planviz("grade", str(examples.path(name)), "--json").stdout)
    assert data["admissible"] is (code == 0)


def test_cli_grade_without_a_contract_exits_2(tmp_path):
    path = tmp_path / "plain.yaml"
    plan = examples.load("parser_fix")
    path.write_text(dump_plan(plan.replace(contract=None)))
    out = planviz("grade", str(path))
    assert out.returncode == 2 and "grading needs a contract" in out.stderr


def test_the_planner_output_sample_loads_everywhere_with_its_licence():
    """The real-output sample ships inside the package: 48 records, some defective, with their licence."""
    from planviz import load_plans

    path = examples.planner_outputs()
    plans = load_plans(path)
    assert len(plans) == 48 and {p.source_format for p in plans} == {"taskbench"}
    reports = [validate(p) for p in plans]
    # about a quarter of TaskBench predictions are defective
    assert 5 <= sum(not r.ok for r in reports) <= 20
    assert any(f.layer == "import" and f.severity == "error" for r in reports for f in r.findings)
    licence = (path.parent / "LICENSE.txt").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "WxxShirley/GNN4TaskPlan" in licence


@pytest.mark.corpus
def test_the_planner_output_sample_is_the_corpus_records_unchanged(corpus):
    """Each line is a record of the corpus file its LICENSE.txt names, in order (the first 12 of each)."""
    import re

    lines = examples.planner_outputs().read_text(encoding="utf-8").splitlines(keepends=True)
    licence = (examples.planner_outputs().parent / "LICENSE.txt").read_text(encoding="utf-8")
    spans = re.findall(r"lines +(\d+)-(\d+) +prediction/(\w+)/([\w.-]+)/direct\.json", licence)
    assert len(spans) == 4
    for first, last, domain, model in spans:
        source = corpus / "taskbench-predictions" / f"gnn4tp_pred_{domain}_{model}.jsonl"
        head = source.read_text(encoding="utf-8").splitlines(keepends=True)[
            : int(last) - int(first) + 1
        ]
        assert lines[int(first) - 1 : int(last)] == head
