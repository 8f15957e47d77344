"""the planviz command: how it behaves around its commands (exit codes, output plumbing)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from planviz import examples

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("argv", [
    ["schema"],
    ["validate", "--json", str(examples.path("delete_failing_test"))],
])
def test_a_reader_that_leaves_early_gets_no_error_message(argv):
    read_end, write_end = os.pipe()
    os.close(read_end)  # like `planviz schema | head` once head has quit: every write fails with EPIPE
    try:
        out = subprocess.run([sys.executable, "-m", "planviz", *argv], stdout=write_end,
                             stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120)
    finally:
        os.close(write_end)
    assert out.stderr == ""
    assert out.returncode == 141


@pytest.mark.parametrize("name, stdin, code, stdout, stderr", [
    ("cache_isolation", None, 0, r"ok: no findings", r"^$"),
    ("delete_failing_test", None, 1, r"forbidden_step", r"^$"),
    (None, b"goal: g\nsteps:\n  - id: A\n    duration: soon\n", 2, r"^$",
     r"^planviz: error: <stdin>:4:15: steps\[0\]\.duration: expected a finite number"),
])
def test_validate_reads_standard_input_as_dash(name, stdin, code, stdout, stderr):
    data = examples.path(name).read_bytes() if name else stdin
    out = subprocess.run([sys.executable, "-m", "planviz", "validate", "-"], input=data,
                         capture_output=True, cwd=ROOT, timeout=120)
    assert out.returncode == code
    assert re.search(stdout, out.stdout.decode(), re.M)
    assert re.search(stderr, out.stderr.decode())


def _steps_drawn(svg: Path) -> set[str]:
    import xml.etree.ElementTree as ET

    return {g.find("{http://www.w3.org/2000/svg}title").text
            for g in ET.fromstring(svg.read_text()).iter("{http://www.w3.org/2000/svg}g")
            if (g.get("id") or "").startswith("node-")}


@pytest.mark.parametrize("args, drawn, note", [
    ([], {"S0", "S1", "S2", "S3", "S4"}, r"^$"),
    (["--focus", "S3", "--hops", "1"], {"S1", "S2", "S3", "S4"}, r"^planviz: note: Showing the 1-hop neighbourhood"),
    (["--max-steps", "2"], {"S0", "S1"}, r"^planviz: note: Showing the first 2 steps of the critical path"),
    (["--max-steps", "2", "--full"], {"S0", "S1", "S2", "S3", "S4"}, r"^$"),
    (["--collapse", "chains", "--group-by", "kind"], {"S0", "S1", "S2"},  # S3 -> S4 is a chain
     r"^planviz: note: Showing all 5 steps; 2 steps in 1 chain are drawn one node per chain\.$"),
])
def test_render_view_options(cli, tmp_path, args, drawn, note):
    out = tmp_path / "plan.svg"
    done = cli("render", str(examples.path("cache_isolation")), "-o", str(out), *args)
    assert done.returncode == 0, done.stderr
    assert _steps_drawn(out) == drawn
    assert re.search(note, done.stderr), done.stderr


def test_render_focus_on_an_unknown_step_is_a_one_line_error(cli, tmp_path):
    done = cli("render", str(examples.path("cache_isolation")), "-o", str(tmp_path / "x.svg"), "--focus", "S9")
    assert done.returncode == 2
    assert re.fullmatch(r"planviz: error: render\(focus='S9'\): no step 'S9' in this plan; its steps are .*\n",
                        done.stderr)


# --------------------------------------------------------------------------- inputs that hold no plan or many


@pytest.mark.parametrize("fmt", ["toolcall", "planviz"])
def test_validate_a_list_without_steps_as_a_plan_format_is_unreadable(cli, tmp_path, fmt):
    path = tmp_path / "items.json"
    path.write_text('[{"a": 1}, {"b": 2}]')
    out = cli("validate", "--format", fmt, str(path))
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == f"planviz: error: {path}: not a {fmt} plan: expected a mapping with goal and steps, " \
                         "got a list of 2 items\n"


@pytest.mark.parametrize("fmt", ["llmcompiler", "rewoo", "worfbench", "teval"])
def test_forcing_a_format_on_text_without_its_steps_is_no_steps(cli, tmp_path, fmt):
    path = tmp_path / "prose.txt"
    path.write_text("I would look it up and then answer.\n")
    out = cli("validate", "--format", fmt, str(path))
    assert out.returncode == 1
    assert re.match(r"error  no_steps  -  read as ", out.stdout)
    assert out.stdout.rstrip().endswith("not ok: 1 error")
    simulated = cli("simulate", "--format", fmt, str(path))
    assert simulated.returncode == 1 and simulated.stdout.startswith("outcome: refused")


def test_an_empty_planviz_plan_is_no_steps(cli, tmp_path):
    path = tmp_path / "empty.yaml"
    path.write_text("goal: g\nsteps: []\n")
    out = cli("validate", str(path))
    assert out.returncode == 1 and out.stdout.startswith("error  no_steps  -  the plan has no steps")


def test_validate_many_plans_names_the_records_that_failed(cli, tmp_path):
    good = {"task": "A", "arguments": ["x"]}
    records = [{"id": f"r{i}", "user_request": "q",
                "task_nodes": [good, {"task": "B", "arguments": [f"<node-{k}>"]}]} for i, k in enumerate([0, 1, 0, 9])]
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = cli("validate", str(path))
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert lines[0] == "4 plans, 2 with errors"
    assert lines[lines.index("failed (record index, id: error codes):") + 1:] == [
        "  1  r1: self_reference, unmet_requirement", "  3  r3: dangling_reference, unmet_requirement"]
    data = json.loads(cli("validate", "--json", str(path)).stdout)
    assert data["failed"] == [{"index": 1, "id": "r1", "errors": ["self_reference", "unmet_requirement"]},
                              {"index": 3, "id": "r3", "errors": ["dangling_reference", "unmet_requirement"]}]


def test_simulate_says_why_a_plan_is_refused(capsys):
    from planviz.frontends.cli import main

    code = main(["simulate", str(examples.path("release_no_credentials"))])
    out = capsys.readouterr().out.splitlines()
    assert code == 1 and out[0] == "outcome: refused"
    assert out[1].startswith("reason: the plan is refused before step 1: infeasible_fact (D1): fact "
                             "'deploy_credentials'")
    assert main(["simulate", str(examples.path("release_no_credentials")), "--json"]) == 1
    data = __import__("json").loads(capsys.readouterr().out)
    assert data["refused_by"] == "infeasible_fact" and "deploy_credentials" in data["reason"]


def test_simulate_takes_a_new_goal_and_contract_for_a_goal_change(tmp_path, capsys):
    from planviz import load_trace
    from planviz.frontends.cli import main

    contract = tmp_path / "new.yaml"
    contract.write_text("required: [reproduce]\nobtainable_facts: [leak_reproduced, patch_applied, isolation_verified,"
                        " hit_rate_ok, key_builder_located, isolation_test_written]\n")
    trace = tmp_path / "run.jsonl"
    code = main(["simulate", str(examples.path("cache_isolation")), "--fault", "S3:goal_change", "--new-goal",
                 "isolate sessions too", "--new-contract", str(contract), "--trace", str(trace)])
    assert code == 0 and "outcome: plan_complete" in capsys.readouterr().out
    run = load_trace(trace)
    assert run.plan.goal == "isolate sessions too" and run.faults[0].goal == "isolate sessions too"
    assert [e.step for e in run.events if e.kind == "recheck"] == ["S0", "S1", "S2"]
    assert main(["simulate", str(examples.path("cache_isolation")), "--fault", "S3:goal_change"]) == 1
    assert "reason: the goal changed at 'S3' and no new goal was given" in capsys.readouterr().out
    assert main(["simulate", str(examples.path("cache_isolation")), "--new-goal", "x"]) == 2
    assert "go with a goal_change fault" in capsys.readouterr().err


def test_simulate_approval_time(tmp_path, capsys):
    from planviz.frontends.cli import main

    plan = tmp_path / "deploy.yaml"
    plan.write_text("goal: g\nsteps:\n  - {id: D, action: deploy, expected_evidence: e, produces: d, approval: CHG-1}\n")
    assert main(["simulate", str(plan), "--approval-time", "3", "--json"]) == 0
    assert __import__("json").loads(capsys.readouterr().out)["metrics"]["time"] == 4.0
    assert main(["simulate", str(plan), "--fault", "D:approval_denied"]) == 1
    assert "reason: 'D' may not run without the approval of 'CHG-1'" in capsys.readouterr().out


# --------------------------------------------------------------------------- align and diff (real runs)

PLAN_FOR_TRACE = """\
goal: year to file
steps:
  - {id: now, action: get the time, tool: get_current_time, arguments: {timezone: America/New_York},
     expected_evidence: a datetime, produces: [year]}
  - {id: save, action: write the year, tool: write_file, arguments: {text: "{{now.year}}"},
     expected_evidence: written, depends_on: [now], requires: [year], produces: [saved]}
  - {id: check, action: read it back, tool: read_file, expected_evidence: same, depends_on: [save], requires: [saved]}
"""


@pytest.mark.corpus
def test_align_prints_fates_and_draws_them(cli, corpus, tmp_path):
    (tmp_path / "plan.yaml").write_text(PLAN_FOR_TRACE)
    trace = str(corpus / "otel" / "any-agent_OPENAI_trace.json")
    result = cli("align", str(tmp_path / "plan.yaml"), trace, "-o", str(tmp_path / "fates.svg"))
    assert result.returncode == 1  # check never ran
    assert "check  not run" in result.stdout and (tmp_path / "fates.svg").read_text().count("fate-as_planned") == 2
    as_json = cli("align", str(tmp_path / "plan.yaml"), trace, "--json")
    import json

    assert json.loads(as_json.stdout)["counts"] == {"as_planned": 2, "other_arguments": 0, "failed": 0,
                                                    "voided": 0, "unfinished": 0, "not_run": 1, "unplanned": 0}


@pytest.mark.corpus
def test_diff_compares_two_traces_of_the_same_task(cli, corpus):
    a, b = (str(corpus / "otel" / f"any-agent_{x}_trace.json") for x in ("OPENAI", "LANGCHAIN"))
    result = cli("diff", a, b)
    assert result.returncode == 0 and "first divergence: none" in result.stdout  # same steps; only cost differs
    assert "model calls: a 3, b 4 (+1)" in result.stdout
    assert cli("diff", a, a).returncode == 0


def test_diff_of_an_unreadable_trace_is_a_located_error(cli, tmp_path):
    (tmp_path / "bad.json").write_text('{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": 5}]}]}]}')
    result = cli("diff", str(tmp_path / "bad.json"), str(tmp_path / "bad.json"))
    assert result.returncode == 2 and "spans[0].startTimeUnixNano" in result.stderr


@pytest.mark.parametrize("command", [[], ["validate"], ["render"], ["simulate"], ["report"], ["diff"]])
def test_help_is_plain_text(command, capsys):
    from planviz.frontends.cli import main

    assert main([*command, "--help"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: planviz") and "``" not in text and ":func:" not in text


def test_simulate_frozen_is_the_executor_test(capsys):
    from planviz.frontends.cli import main

    cache = str(examples.path("cache_isolation"))
    assert main(["simulate", cache, "--frozen", "--fault", "S4:side_effect", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "replan_limit" and data["evidence_rate"] == 0.8 and data["attribution"] == "executor"
    assert data["steps"]["S4"] == {"performed": True, "evidence": False, "attempts": 1} and data["out_of_plan"] == []
    assert main(["simulate", cache, "--frozen"]) == 0
    out = capsys.readouterr().out
    assert "evidence rate: 1.00" in out and "attribution: -" in out
    assert main(["simulate", str(examples.path("release_no_credentials")), "--frozen"]) == 2
    assert "admissible" in capsys.readouterr().err
