"""Shared fixtures: the bundled worked example and the shared corpus (skipped when absent)."""

from __future__ import annotations

import contextlib
import io
import os
import signal
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

# Under CI every property test draws the same examples each run, so a red CI names a real bug, not an
# unlucky draw; elsewhere each run draws new examples and keeps finding what the last ones missed.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


@pytest.fixture
def cache_plan():
    """The cache-isolation fix of SPEC section 5 (durations in minutes)."""
    from planviz import examples

    return examples.load("cache_isolation")


@pytest.fixture
def corpus() -> Path:
    """../shared/corpus, or a skip saying why it is not there."""
    if not CORPUS.is_dir():
        pytest.skip(
            f"the shared corpus is not beside this clone ({CORPUS} missing); "
            "corpus tests run only in the project's workspace"
        )
    return CORPUS


@dataclass(frozen=True)
class CliResult:
    """What a run of the ``planviz`` command gave: exit code, standard output and standard error."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str) -> CliResult:
    """Run the ``planviz`` command in this process (as ``planviz ARGS`` would run) and capture its output.

    A subprocess proves nothing more for a command's exit code and output; tests about pipes, standard
    input or time bounds start a real process instead.
    """
    from planviz.frontends.cli.commands import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return CliResult(code, out.getvalue(), err.getvalue())


def sigint_stops() -> None:
    """``preexec_fn`` of a child a test interrupts with SIGINT: Ctrl-C's default action, whatever the parent's.

    A child inherits an ignored SIGINT (``nohup make test &``: a shell ignores it in background jobs), and
    Python then installs no KeyboardInterrupt handler, so the signal would do nothing; the test sets it here.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def cli():
    """``cli("validate", "plan.yaml")`` -> CliResult(returncode, stdout, stderr), in process."""
    return run_cli


@pytest.fixture(autouse=True)
def idle_machine(monkeypatch):
    """Render chooses its view as on an idle machine: the load average of a shared test machine would move
    what it tries within its time budget (tests/pictures/test_budget.py tests that scaling itself)."""
    from planviz.pictures import budget

    monkeypatch.setattr(budget, "slowdown", lambda: 1.0)
