"""planviz campaign / planviz ablation: the table, JSON that reads back as the Campaign the API gives, workers."""

from __future__ import annotations

import json

import pytest

from planviz import Campaign, FaultModel, ablation, campaign, load_plans

PLANS = ["planviz/examples/cache_isolation.yaml", "planviz/examples/parser_fix.yaml"]
RATES = "transient=0.1,side_effect=0.05,tool_error=0.02"


def api(kind="campaign", samples=30, seed=5, **kw):
    plans = [p for f in PLANS for p in load_plans(f)]
    model = FaultModel({"transient": 0.1, "side_effect": 0.05, "tool_error": 0.02}, seed=seed)
    run = campaign if kind == "campaign" else ablation
    return run(plans, model, samples=samples, **kw)


@pytest.mark.parametrize("kind", ["campaign", "ablation"])
def test_json_reads_back_as_the_campaign_the_api_gives(cli, kind):
    done = cli(kind, *PLANS, "--samples", "30", "--rates", RATES, "--seed", "5", "--json")
    assert done.returncode == 0, done.stderr
    assert Campaign.from_dict(json.loads(done.stdout)) == api(kind)


def test_two_worker_processes_print_the_same_json(cli):
    here = cli(
        "campaign",
        *PLANS,
        "--samples",
        "30",
        "--rates",
        RATES,
        "--seed",
        "5",
        "--json",
        "--per-plan",
    )
    there = cli(
        "campaign",
        *PLANS,
        "--samples",
        "30",
        "--rates",
        RATES,
        "--seed",
        "5",
        "--json",
        "--per-plan",
        "--workers",
        "2",
    )
    assert there.returncode == 0, there.stderr
    assert there.stdout == here.stdout
    assert Campaign.from_dict(json.loads(here.stdout)) == api(per_plan=True)


def test_text_table_strategies_and_chart(cli, tmp_path):
    out = tmp_path / "chart.svg"
    done = cli(
        "campaign",
        PLANS[0],
        "--samples",
        "5",
        "--rates",
        "transient=0.2",
        "--strategies",
        "direct,planner",
        "-o",
        str(out),
        "--cost",
        "time",
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "campaign: 1 plan x 5 samples; faults transient=0.2 (times 1, seed 0)"
    assert [line.split()[0] for line in lines[2:4]] == ["direct", "planner"]
    assert f"wrote {out}" in done.stdout and "mean time per run" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "args, match",
    [
        (["--rates", "transient"], "--rates expects KIND=PROBABILITY"),
        (["--rates", "explode=0.1"], "unknown fault kind 'explode'"),
        (["--rates", "transient=2"], r"probability in \[0, 1\], got 2.0"),
        (["--strategies", "planer"], "unknown strategy 'planer'"),
        (["--samples", "0"], "samples must be >= 1"),
        (["--workers", "0"], "--workers must be >= 1"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(cli, args, match):
    import re

    done = cli("campaign", PLANS[0], *args)
    assert (
        done.returncode == 2
        and re.search(match, done.stderr)
        and len(done.stderr.splitlines()) == 1
    )


def test_the_chart_never_overwrites_a_plan_file(cli, tmp_path):
    plan = tmp_path / "p.yaml"
    plan.write_text(open(PLANS[0], encoding="utf-8").read(), encoding="utf-8")
    before = plan.read_text(encoding="utf-8")
    done = cli("campaign", str(plan), "--samples", "1", "-o", str(plan))
    assert done.returncode == 2 and "is one of the plan files" in done.stderr
    assert plan.read_text(encoding="utf-8") == before


def test_ctrl_c_stops_with_130_and_one_line(cli, monkeypatch):
    from planviz.runs.evaluation import campaigns as evaluation

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluation, "execute", interrupted)
    done = cli("ablation", PLANS[0], "--samples", "2")
    assert done.returncode == 130 and done.stderr == "planviz: interrupted\n" and done.stdout == ""


@pytest.mark.parametrize(
    "folder, files",
    [("asynchow", ("async.jsonl", "para.jsonl", "seq.jsonl")), ("worfbench/full", None)],
)
def test_a_campaign_runs_over_a_real_task_set_named_by_its_folder(cli, corpus, folder, files):
    path = corpus / folder
    names = files or sorted(p.name for p in path.glob("*.json"))
    expected = 0
    for name in names:  # how many plans the raw files hold, counted here
        text = (path / name).read_text()
        expected += len(text.splitlines()) if name.endswith(".jsonl") else len(json.loads(text))
    done = cli(
        "campaign",
        str(path),
        "--samples",
        "1",
        "--rates",
        "transient=0.05",
        "--strategies",
        "direct",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["plans"] == expected and data["rows"][0]["runs"] == expected
    assert data["rows"][0]["success_rate"] > 0.9  # transient faults only: the agent retries them


def test_a_folder_with_no_plan_files_is_refused(cli, tmp_path):
    (tmp_path / "LICENSE.txt").write_text("MIT")
    done = cli("campaign", str(tmp_path), "--samples", "1")
    assert done.returncode != 0 and "no plan files" in done.stderr


def test_ablation_rows_one_at_a_time_and_without_the_ladder(cli):
    done = cli("ablation", PLANS[0], "--samples", "2", "--rates", RATES, "--json", "--no-ladder")
    assert done.returncode == 0, done.stderr
    names = [r["strategy"] for r in json.loads(done.stdout)["rows"]]
    assert (
        names[0] == "planner"
        and "-replanning" in names
        and "replan_cap=3" in names
        and "direct" not in names
    )
