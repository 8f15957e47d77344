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
