"""The house style: ``ruff check`` and ``ruff format --check`` pass (``make lint`` runs this file).

The rules are in ``[tool.ruff]`` of pyproject.toml. Until the one-time ``make format`` run (sorted
imports, then ``ruff format``) lands, its ``ignore`` list holds three PENDING rules (E501, E702,
I001) and the format check skips; deleting those three lines in the commit of that run turns both
on.

That run, measured on 2026-12-07: delete the three lines, ``make format`` (396 files), then fix by
hand what the formatter cannot wrap (79 lines over 120: strings, docstrings, 2 comments) and the
``# type: ignore`` comments it moves off the line mypy reports (plan/arguments.py twice,
runs/events.py once: put each back after the call's opening parenthesis).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ["planviz", "tests", "benchmarks"]
# what only the formatter's run can fix (the 26 E702 are semicolons in one table it splits)
PENDING = {"E501", "E702", "I001"}

if importlib.util.find_spec("ruff") is None:
    # CI installs the test extras: a missing ruff is a broken install there
    if os.environ.get("CI") == "true":
        raise RuntimeError(
            "ruff is in the test extras (pip install -e '.[test]') and CI must run it"
        )
    pytestmark = pytest.mark.skip(reason="ruff is in the test extras (pip install -e '.[test]')")


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *CHECKED],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def _pending() -> set[str]:
    # Python 3.11+; on 3.10 the format check waits for a newer one
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return PENDING & set(config["tool"]["ruff"]["lint"]["ignore"])


def test_ruff_check_passes():
    done = _ruff("check", "--no-cache", "--output-format", "concise")
    assert done.returncode == 0, (
        "ruff check (fix what it says; `ruff check --fix` does the safe ones):\n"
        + (done.stdout + done.stderr)[-4000:]
    )


def test_ruff_format_leaves_the_code_as_it_is():
    pending = _pending()
    if pending:
        pytest.skip(
            "the code is not formatted yet: `make format` runs once at the end of issue 45, in a "
            f"commit that deletes {sorted(pending)} from [tool.ruff.lint] ignore in pyproject.toml"
        )
    done = _ruff("format", "--check", "--no-cache")
    assert done.returncode == 0, (
        "run `make format` (files ruff would reformat):\n" + (done.stdout + done.stderr)[-4000:]
    )


def test_the_pending_rules_go_together():
    # E501 before the format run flags 258 lines (179 of them the formatter wraps), E702 26
    # semicolons it splits; the format check without I001 would pass unsorted imports: the three
    # lines leave pyproject.toml in one commit
    assert _pending() in (set(), PENDING), (
        f"pending in pyproject.toml: {sorted(_pending())}; all three or none"
    )
