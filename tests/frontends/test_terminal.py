"""Long commands: progress on a terminal only, and Ctrl-C stops them cleanly (exit 130, no traceback, no output)."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest

from planviz import Plan, Step, save_trace, simulate
from planviz.frontends.cli.terminal import Progress
from tests.conftest import sigint_stops


def chains(n: int, width: int = 40) -> Plan:
    steps = [
        Step(
            f"S{i:05d}",
            f"step {i}",
            expected_evidence="e",
            depends_on=[f"S{i - width:05d}"] if i >= width else [],
            produces=[f"f{i}"],
            duration=1 + i % 3,
        )
        for i in range(n)
    ]
    return Plan("many steps", steps)


def test_simulate_reports_progress_as_it_goes():
    seen = []
    run = simulate(
        chains(5000), progress=lambda what, done, total: seen.append((what, done, total))
    )
    assert len(seen) == len(run.events) // 1024 + 1
    assert all(what == "simulating: steps done" and total == 5000 for what, _, total in seen)
    assert [done for _, done, _ in seen] == sorted(done for _, done, _ in seen) and seen[-1][1] > 0


def test_progress_is_silent_off_a_terminal(tmp_path):
    with open(tmp_path / "err", "w") as fh:
        with Progress(fh, interval=0.0) as progress:
            progress("simulating", 1, 2)
    assert (tmp_path / "err").read_text() == ""


def _read_until(fd: int, text: bytes, timeout: float) -> bytes:
    """What the child wrote on the terminal until ``text`` appeared (or the child closed it)."""
    seen, deadline = b"", time.monotonic() + timeout
    while text not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            seen += chunk
    return seen


@pytest.mark.slow
def test_ctrl_c_stops_a_long_report_cleanly(tmp_path):
    trace = tmp_path / "long.jsonl"
    save_trace(simulate(chains(2000)), trace)
    out = tmp_path / "long.html"
    leader, follower = pty.openpty()  # stderr is a terminal: progress shows
    # Ctrl-C stops it even when this process ignores SIGINT
    child = subprocess.Popen(
        [sys.executable, "-m", "planviz", "report", str(trace), "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=follower,
        stdin=subprocess.DEVNULL,
        preexec_fn=sigint_stops,
    )
    os.close(follower)
    try:
        shown = _read_until(leader, b"planviz: report", 120)
        assert b"planviz: report: laying out plan v1" in shown, shown
        child.send_signal(signal.SIGINT)
        child.wait(timeout=240)
        shown += _read_until(leader, b"interrupted", 10)
    finally:
        if child.poll() is None:
            child.kill()
        os.close(leader)
    assert child.returncode == 130
    assert b"planviz: interrupted" in shown and b"Traceback" not in shown
    # nothing half-written
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["long.jsonl"]


def test_without_a_terminal_the_command_writes_no_progress(tmp_path):
    trace = tmp_path / "run.jsonl"
    save_trace(simulate(chains(200)), trace)
    done = subprocess.run(
        [sys.executable, "-m", "planviz", "report", str(trace), "-o", str(tmp_path / "r.html")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "planviz:" not in done.stderr and (tmp_path / "r.html").exists()
