"""the planviz command: how it behaves around its commands (exit codes, output plumbing)."""

from __future__ import annotations

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
