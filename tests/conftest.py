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


# `make test` runs the suite on every core with pytest-xdist, `-n logical --dist loadfile`: its scheduler hands a
# worker one whole unit at a time. A unit is one test file (so a module-scoped fixture is built once), all of
# tests/browser/ (its conftest's session fixtures, Chromium and the Jupyter servers, start once) and all the
# doctests of one package folder (hundreds of doctests that take milliseconds each: sent one file at a time, a
# worker would wait for the next file more than it works). The notebooks' session fixture lives in one file, so
# each notebook runs once per session. The longest units start first (measured: `make test` with
# `PYTEST_ARGS=--durations=50`), so no worker is left running one of them alone at the end.
LONGEST_FIRST = (  # seconds per unit in a -n 2 run at load 7: about 190, 170, 160, 140, 120, then 30 to 60
    "tests/test_notebooks.py",
    "tests/frontends/test_demo.py",
    "tests/browser",
    "tests/test_fuzz_corpus.py",
    "tests/test_fuzzing.py",
    "tests/checks/test_validation.py",
    "tests/analysis/test_timeline.py",
    "tests/traces/test_tracenumbers.py",
    "tests/test_typing.py",
    "tests/test_bad_input.py",
    "tests/test_bad_traces.py",
    "tests/test_layout.py",
)


def _unit_of(nodeid: str) -> str:
    """The unit a test belongs to: its file, all of tests/browser, or its package folder for a doctest."""
    path = nodeid.split("::", 1)[0]
    if path.startswith("tests/browser/"):
        return "tests/browser"
    if path.startswith("planviz/"):
        return path.rsplit("/", 1)[0]
    return path


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` with the units of :func:`_unit_of`, the longest first; other modes as xdist has them."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class ByUnit(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _unit_of(nodeid)

        def _assign_work_unit(self, node) -> None:
            for unit in LONGEST_FIRST:
                if unit in self.workqueue:
                    self.workqueue.move_to_end(unit, last=False)
                    break
            super()._assign_work_unit(node)

    return ByUnit(config, log)
