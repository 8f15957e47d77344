"""planviz.cli: how the command behaves around its commands (exit codes, output plumbing)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from planviz import examples

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("argv", [
    ["schema"],
    ["validate", "--json", str(examples.path("delete_failing_test"))],
])
def test_a_reader_that_leaves_early_gets_no_error_message(argv):
    read_end, write_end = os.pipe()
    os.close(read_end)  # like `planviz schema | head` once head has quit: every write fails with EPIPE
    try:
        out = subprocess.run([sys.executable, "-m", "planviz.cli", *argv], stdout=write_end,
                             stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120)
    finally:
        os.close(write_end)
    assert out.stderr == ""
    assert out.returncode == 141
