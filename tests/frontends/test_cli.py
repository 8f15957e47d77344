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


@pytest.mark.parametrize(
    "argv",
    [
        ["schema"],
        ["validate", "--json", str(examples.path("delete_failing_test"))],
    ],
)
def test_a_reader_that_leaves_early_gets_no_error_message(argv):
    read_end, write_end = os.pipe()
    # like `planviz schema | head` once head has quit: every write fails with EPIPE
    os.close(read_end)
    try:
        out = subprocess.run(
            [sys.executable, "-m", "planviz", *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert out.stderr == ""
    assert out.returncode == 141


@pytest.mark.parametrize(
    "name, stdin, code, stdout, stderr",
    [
        ("cache_isolation", None, 0, r"ok: no findings", r"^$"),
        ("delete_failing_test", None, 1, r"forbidden_step", r"^$"),
        (
            None,
            b"goal: g\nsteps:\n  - id: A\n    duration: soon\n",
            2,
            r"^$",
            r"^planviz: error: <stdin>:4:15: steps\[0\]\.duration: expected a finite number",
        ),
    ],
)
def test_validate_reads_standard_input_as_dash(name, stdin, code, stdout, stderr):
    data = examples.path(name).read_bytes() if name else stdin
    out = subprocess.run(
        [sys.executable, "-m", "planviz", "validate", "-"],
        input=data,
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == code
    assert re.search(stdout, out.stdout.decode(), re.M)
    assert re.search(stderr, out.stderr.decode())


def _steps_drawn(svg: Path) -> set[str]:
    import xml.etree.ElementTree as ET

    return {
        g.find("{http://www.w3.org/2000/svg}title").text
        for g in ET.fromstring(svg.read_text()).iter("{http://www.w3.org/2000/svg}g")
        if (g.get("id") or "").startswith("node-")
    }


@pytest.mark.parametrize(
    "args, drawn, note",
    [
        ([], {"S0", "S1", "S2", "S3", "S4"}, r"^$"),
        (
            ["--focus", "S3", "--hops", "1"],
            {"S1", "S2", "S3", "S4"},
            r"^planviz: note: Showing the 1-hop neighbourhood",
        ),
        (
            ["--max-steps", "2"],
            {"S0", "S1"},
            r"^planviz: note: Showing the first 2 steps of the critical path",
        ),
        (["--max-steps", "2", "--full"], {"S0", "S1", "S2", "S3", "S4"}, r"^$"),
        (
            ["--collapse", "chains", "--group-by", "kind"],
            {"S0", "S1", "S2"},  # S3 -> S4 is a chain
            r"^planviz: note: Showing all 5 steps; 2 steps in 1 chain are drawn one node per chain\.$",
        ),
    ],
)
def test_render_view_options(cli, tmp_path, args, drawn, note):
    out = tmp_path / "plan.svg"
    done = cli("render", str(examples.path("cache_isolation")), "-o", str(out), *args)
    assert done.returncode == 0, done.stderr
    assert _steps_drawn(out) == drawn
    assert re.search(note, done.stderr), done.stderr


def test_render_focus_on_an_unknown_step_is_a_one_line_error(cli, tmp_path):
    done = cli(
        "render",
        str(examples.path("cache_isolation")),
        "-o",
        str(tmp_path / "x.svg"),
        "--focus",
        "S9",
    )
    assert done.returncode == 2
    assert re.fullmatch(
        r"planviz: error: render\(focus='S9'\): no step 'S9' in this plan; its steps are .*\n",
        done.stderr,
    )


# --------------------------------------------------------------------------- inputs that hold no plan or many


@pytest.mark.parametrize("fmt", ["toolcall", "planviz"])
def test_validate_a_list_without_steps_as_a_plan_format_is_unreadable(cli, tmp_path, fmt):
    path = tmp_path / "items.json"
    path.write_text('[{"a": 1}, {"b": 2}]')
    out = cli("validate", "--format", fmt, str(path))
    assert (out.returncode, out.stdout) == (2, "")
    assert (
        out.stderr
        == f"planviz: error: {path}: not a {fmt} plan: expected a mapping with goal and steps, "
        "got a list of 2 items\n"
    )


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
    assert out.returncode == 1 and out.stdout.startswith(
        "error  no_steps  -  the plan has no steps"
    )


def test_validate_many_plans_names_the_records_that_failed(cli, tmp_path):
    good = {"task": "A", "arguments": ["x"]}
    records = [
        {
            "id": f"r{i}",
            "user_request": "q",
            "task_nodes": [good, {"task": "B", "arguments": [f"<node-{k}>"]}],
        }
        for i, k in enumerate([0, 1, 0, 9])
    ]
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = cli("validate", str(path))
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert lines[0] == "4 plans, 2 with errors"
    assert lines[lines.index("failed (record index, id: error codes):") + 1 :] == [
        "  1  r1: self_reference, unmet_requirement",
        "  3  r3: dangling_reference, unmet_requirement",
    ]
    data = json.loads(cli("validate", "--json", str(path)).stdout)
    assert data["failed"] == [
        {"index": 1, "id": "r1", "errors": ["self_reference", "unmet_requirement"]},
        {"index": 3, "id": "r3", "errors": ["dangling_reference", "unmet_requirement"]},
    ]


def test_simulate_says_why_a_plan_is_refused(capsys):
    from planviz.frontends.cli.commands import main

    code = main(["simulate", str(examples.path("release_no_credentials"))])
    out = capsys.readouterr().out.splitlines()
    assert code == 1 and out[0] == "outcome: refused"
    assert out[1].startswith(
        "reason: the plan is refused before step 1: infeasible_fact (D1): fact 'deploy_credentials'"
    )
    assert main(["simulate", str(examples.path("release_no_credentials")), "--json"]) == 1
    data = __import__("json").loads(capsys.readouterr().out)
    assert data["refused_by"] == "infeasible_fact" and "deploy_credentials" in data["reason"]


def test_simulate_takes_a_new_goal_and_contract_for_a_goal_change(tmp_path, capsys):
    from planviz import load_trace
    from planviz.frontends.cli.commands import main

    contract = tmp_path / "new.yaml"
    contract.write_text(
        "required: [reproduce]\nobtainable_facts: [leak_reproduced, patch_applied, isolation_verified,"
        " hit_rate_ok, key_builder_located, isolation_test_written]\n"
    )
    trace = tmp_path / "run.jsonl"
    code = main(
        [
            "simulate",
            str(examples.path("cache_isolation")),
            "--fault",
            "S3:goal_change",
            "--new-goal",
            "isolate sessions too",
            "--new-contract",
            str(contract),
            "--trace",
            str(trace),
        ]
    )
    assert code == 0 and "outcome: plan_complete" in capsys.readouterr().out
    run = load_trace(trace)
    assert run.plan.goal == "isolate sessions too" and run.faults[0].goal == "isolate sessions too"
    assert [e.step for e in run.events if e.kind == "recheck"] == ["S0", "S1", "S2"]
    assert (
        main(["simulate", str(examples.path("cache_isolation")), "--fault", "S3:goal_change"]) == 1
    )
    assert "reason: the goal changed at 'S3' and no new goal was given" in capsys.readouterr().out
    assert main(["simulate", str(examples.path("cache_isolation")), "--new-goal", "x"]) == 2
    assert "go with a goal_change fault" in capsys.readouterr().err


def test_simulate_approval_time(tmp_path, capsys):
    from planviz.frontends.cli.commands import main

    plan = tmp_path / "deploy.yaml"
    plan.write_text(
        "goal: g\nsteps:\n  - {id: D, action: deploy, expected_evidence: e, produces: d, approval: CHG-1}\n"
    )
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
    assert (
        "check  not run" in result.stdout
        and (tmp_path / "fates.svg").read_text().count("fate-as_planned") == 2
    )
    as_json = cli("align", str(tmp_path / "plan.yaml"), trace, "--json")
    import json

    assert json.loads(as_json.stdout)["counts"] == {
        "as_planned": 2,
        "other_arguments": 0,
        "failed": 0,
        "voided": 0,
        "unfinished": 0,
        "not_run": 1,
        "unplanned": 0,
    }


@pytest.mark.corpus
def test_diff_compares_two_traces_of_the_same_task(cli, corpus):
    a, b = (str(corpus / "otel" / f"any-agent_{x}_trace.json") for x in ("OPENAI", "LANGCHAIN"))
    result = cli("diff", a, b)
    # same steps, other costs: differ
    assert result.returncode == 1 and "first divergence: none" in result.stdout
    assert "model calls: a 3 calls, b 4 calls (+1 calls)" in result.stdout
    assert re.search(r"^time: a [\d.]+ s, b [\d.]+ s \([+-][\d.e-]+ s\)$", result.stdout, re.M)
    assert re.search(r"^input tokens: a \d+ tokens, b \d+ tokens", result.stdout, re.M)
    same = cli("diff", a, a)
    assert same.returncode == 0 and "(+0 calls)" in same.stdout
    as_json = json.loads(cli("diff", a, b, "--json").stdout)
    assert as_json["units"]["time"] == "s" and (as_json["same"], as_json["same_usage"]) == (
        True,
        False,
    )


def test_diff_exits_1_for_simulated_runs_that_differ_and_0_for_equal_ones(cli, tmp_path):
    plan = str(examples.path("cache_isolation"))
    for name, extra in (("a", []), ("b", []), ("c", ["--fault", "S4:side_effect"])):
        cli("simulate", plan, "--trace", str(tmp_path / f"{name}.jsonl"), *extra)
    equal = cli("diff", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"))
    assert equal.returncode == 0 and "time: a 29 min, b 29 min (+0 min)" in equal.stdout
    differ = cli("diff", str(tmp_path / "a.jsonl"), str(tmp_path / "c.jsonl"))
    assert differ.returncode == 1 and "first divergence: event 10" in differ.stdout


def test_diff_of_an_unreadable_trace_is_a_located_error(cli, tmp_path):
    (tmp_path / "bad.json").write_text(
        '{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": 5}]}]}]}'
    )
    result = cli("diff", str(tmp_path / "bad.json"), str(tmp_path / "bad.json"))
    assert result.returncode == 2 and "spans[0].startTimeUnixNano" in result.stderr


@pytest.mark.parametrize(
    "argv, fix",
    [
        (["report", "{trace}", "-o", "{tmp}/x.svg"], "name it OUT.html or OUT.htm"),
        (["report", "{trace}", "-o", "{tmp}/x"], "a name with no suffix"),
        (["render", "{plan}", "-o", "{tmp}/x.html"], "name it OUT.svg or OUT.png or OUT.dot"),
        (["simulate", "{plan}", "--trace", "{tmp}/x.svg"], "name it OUT.jsonl or OUT.ndjson"),
        (["simulate", "{plan}", "--report", "{tmp}/x.png"], "name it OUT.html or OUT.htm"),
        (["align", "{plan}", "{trace}", "-o", "{tmp}/x.html"], "name it OUT.svg"),
    ],
)
def test_an_output_suffix_that_says_another_format_is_refused_before_any_work(
    cli, tmp_path, argv, fix
):
    plan = str(examples.path("cache_isolation"))
    trace = tmp_path / "run.jsonl"
    assert cli("simulate", plan, "--trace", str(trace)).returncode == 0
    args = [a.format(trace=trace, plan=plan, tmp=tmp_path) for a in argv]
    result = cli(*args)
    out = [a for a in args if a.startswith(str(tmp_path / "x"))][0]
    assert result.returncode == 2 and fix in result.stderr and f"{out}:" in result.stderr
    assert not os.path.exists(out) and len(result.stderr.strip().splitlines()) == 1


def _svg_text(path):
    import xml.etree.ElementTree as ET

    return " ".join(t.text or "" for t in ET.parse(path).iter() if t.tag.endswith("text"))


def test_render_a_trace_draws_its_last_frame_or_the_one_asked(cli, tmp_path):
    plan = str(examples.path("cache_isolation"))
    trace = tmp_path / "run.jsonl"
    cli("simulate", plan, "--fault", "S4:side_effect", "--trace", str(trace))
    from planviz import load_trace

    run = load_trace(trace)
    last = cli("render", str(trace), "-o", str(tmp_path / "last.svg"))
    assert last.returncode == 0, last.stderr
    svg = (tmp_path / "last.svg").read_text()
    done = sorted(s for s, v in run.frame(-1).statuses.items() if v == "done")
    assert svg.count("status-done") >= len(done) > 0 and "status-failed" not in svg
    fail = next(e.index for e in run.events if e.kind == "fail")
    at = cli("render", str(trace), "--at", str(fail), "-o", str(tmp_path / "at.svg"))
    assert at.returncode == 0 and "status-failed" in (tmp_path / "at.svg").read_text()


@pytest.mark.corpus
def test_render_a_foreign_trace_draws_its_calls(cli, corpus, tmp_path):
    trace = corpus / "otel" / "any-agent_OPENAI_trace.json"
    raw = json.loads(trace.read_text())
    tools = {
        s["attributes"]["gen_ai.tool.name"]
        for s in raw["spans"]
        if s.get("attributes", {}).get("gen_ai.operation.name") == "execute_tool"
    }
    result = cli("render", str(trace), "-o", str(tmp_path / "run.svg"))
    assert result.returncode == 0, result.stderr
    text = _svg_text(tmp_path / "run.svg")
    assert tools and all(t in text for t in tools)


def test_render_a_file_that_is_neither_plan_nor_trace_says_both(cli, tmp_path):
    (tmp_path / "x.json").write_text('{"hello": 1}')
    result = cli("render", str(tmp_path / "x.json"), "-o", str(tmp_path / "x.svg"))
    assert (
        result.returncode == 2
        and "not a plan" in result.stderr
        and "nor is it a run trace" in result.stderr
    )


@pytest.mark.corpus
def test_render_plan_with_a_trace_of_other_steps_draws_the_alignment_or_refuses(
    cli, corpus, tmp_path
):
    (tmp_path / "plan.yaml").write_text(PLAN_FOR_TRACE)
    trace = str(corpus / "otel" / "any-agent_OPENAI_trace.json")
    out = tmp_path / "fates.svg"
    aligned = cli("render", str(tmp_path / "plan.yaml"), "--run", trace, "-o", str(out))
    assert aligned.returncode == 0 and "aligned" in aligned.stderr
    assert out.read_text().count("fate-as_planned") == 2  # the plan is drawn, not ignored
    at = cli(
        "render",
        str(tmp_path / "plan.yaml"),
        "--run",
        trace,
        "--at",
        "3",
        "-o",
        str(tmp_path / "at.svg"),
    )
    assert (
        at.returncode == 2 and "is not a run of" in at.stderr and not (tmp_path / "at.svg").exists()
    )
    unrelated = cli(
        "render",
        str(examples.path("cache_isolation")),
        "--run",
        trace,
        "-o",
        str(tmp_path / "u.svg"),
    )
    assert unrelated.returncode == 2 and "ran none of the steps" in unrelated.stderr


def test_render_plan_with_its_own_run_draws_the_frame(cli, tmp_path):
    plan = str(examples.path("cache_isolation"))
    trace = tmp_path / "run.jsonl"
    cli("simulate", plan, "--trace", str(trace))
    result = cli("render", plan, "--run", str(trace), "--at", "2", "-o", str(tmp_path / "f.svg"))
    assert result.returncode == 0 and "aligned" not in result.stderr
    assert "status-ready" in (tmp_path / "f.svg").read_text()


def test_simulate_frozen_is_the_executor_test(capsys):
    from planviz.frontends.cli.commands import main

    cache = str(examples.path("cache_isolation"))
    assert main(["simulate", cache, "--frozen", "--fault", "S4:side_effect", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (
        data["outcome"] == "replan_limit"
        and data["evidence_rate"] == 0.8
        and data["attribution"] == "executor"
    )
    assert (
        data["steps"]["S4"] == {"performed": True, "evidence": False, "attempts": 1}
        and data["out_of_plan"] == []
    )
    assert main(["simulate", cache, "--frozen"]) == 0
    out = capsys.readouterr().out
    assert "evidence rate: 1.00" in out and "attribution: -" in out
    assert main(["simulate", str(examples.path("release_no_credentials")), "--frozen"]) == 2
    assert "admissible" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command",
    [
        "",
        "validate",
        "grade",
        "render",
        "simulate",
        "report",
        "align",
        "diff",
        "hindsight",
        "what-if",
        "schema",
        "campaign",
        "ablation",
    ],
)
def test_help_is_plain_text(command, capsys):
    """``planviz --help`` is read on a terminal: no reST markup from the docstrings it is built from."""
    from planviz.frontends.cli.commands import main

    code = main([command, "--help"] if command else ["--help"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("usage: planviz")
    assert not re.search(r"``|:(func|class|mod|meth|data|attr):`", out), out


# A run trace given where a plan goes: the command names the trace's format and the commands that read it.
_TRACE_TEXTS = {
    "OpenTelemetry": '{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "01", "spanId": "02", "name": '
    '"execute_tool search", "startTimeUnixNano": "1000000000", "endTimeUnixNano": "2000000000", '
    '"attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}, '
    '{"key": "gen_ai.tool.name", "value": {"stringValue": "search"}}]}]}]}]}',
    "Langfuse": '{"trace": {"id": "t1", "name": "x", "timestamp": "2025-01-01T00:00:00Z"}, "observations": [{"id": '
    '"o1", "traceId": "t1", "type": "SPAN", "name": "tool", "startTime": "2025-01-01T00:00:00Z", '
    '"endTime": "2025-01-01T00:00:01Z"}]}',
    "LangGraph": '[{"values": {"messages": []}, "next": [], "config": {"configurable": {"thread_id": "1", '
    '"checkpoint_id": "a"}}, "metadata": {"step": 0}, "created_at": "2025-01-01T00:00:00Z"}]',
}


def _says_trace(stderr: str, path: str, title: str) -> bool:
    return (
        f"{path}: this is a run trace ({title}), not a plan" in stderr
        and f"`planviz report {path} -o OUT.html" in stderr
        and f"`planviz align PLAN {path}" in stderr
        and "not a plan in any known format" not in stderr
    )


@pytest.mark.parametrize(
    "command", [("validate",), ("grade",), ("simulate",), ("campaign",), ("align", "TRACE")]
)
@pytest.mark.parametrize("title", sorted(_TRACE_TEXTS))
def test_a_trace_given_as_a_plan_is_named_with_the_command_that_reads_it(
    cli, tmp_path, command, title
):
    path = str(tmp_path / "run.json")
    Path(path).write_text(_TRACE_TEXTS[title])
    result = cli(*[command[0], path] + [path for _ in command[1:]])
    assert result.returncode == 2 and _says_trace(result.stderr, path, title), result.stderr


def test_a_planviz_trace_given_as_a_plan_is_named(cli, tmp_path):
    from planviz import save_trace, simulate

    path = str(tmp_path / "run.jsonl")
    save_trace(simulate(examples.load("cache_isolation")), path)
    result = cli("grade", path)
    assert result.returncode == 2 and _says_trace(result.stderr, path, "planviz JSON Lines"), (
        result.stderr
    )


@pytest.mark.corpus
@pytest.mark.parametrize(
    "name, title",
    [
        ("otel/any-agent_LANGCHAIN_trace.json", "OpenTelemetry"),
        ("langfuse/agno-2025-06-11.json", "Langfuse"),
        ("openinference/LANGCHAIN_trace_openinference.json", "OpenInference"),
        ("otel-js/all-spans.json", "OpenTelemetry JS"),
        ("langgraph/langgraph_saved_checkpoints_v3.json", "LangGraph"),
        ("langgraph/sqlite/hirokts_checkpoints.db", "LangGraph SqliteSaver database"),
    ],
)
def test_a_corpus_trace_given_as_a_plan_is_named(cli, corpus, name, title):
    import sqlite3

    path = corpus / name
    before = sorted(os.listdir(path.parent))
    result = cli("validate", str(path))
    assert result.returncode == 2 and _says_trace(result.stderr, str(path), title), result.stderr
    # a database is opened read-only: no -wal or -shm left
    assert sorted(os.listdir(path.parent)) == before
    # several threads: the commands name --thread, and the count is the file's
    if path.suffix == ".db":
        con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        threads = con.execute("SELECT COUNT(DISTINCT thread_id) FROM checkpoints").fetchone()[0]
        con.close()
        assert (
            "--thread ID` steps through it" in result.stderr
            and f"it holds {threads} threads" in result.stderr
        )


@pytest.mark.parametrize(
    "name, content", [("x.json", '{"hello": 1}'), ("spans.json", '{"spans": "none"}')]
)
def test_a_file_that_is_neither_plan_nor_trace_keeps_the_plan_message(cli, tmp_path, name, content):
    (tmp_path / name).write_text(content)
    result = cli("validate", str(tmp_path / name))
    assert result.returncode == 2 and "not a plan in any known format" in result.stderr
    assert "run trace" not in result.stderr


def test_a_sqlite_database_without_checkpoints_keeps_the_plan_message(cli, tmp_path):
    import sqlite3

    path = tmp_path / "other.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    result = cli("validate", str(path))
    assert (
        result.returncode == 2 and "run trace" not in result.stderr and str(path) in result.stderr
    )
