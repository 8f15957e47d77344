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
