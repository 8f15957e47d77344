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
