"""The Binder check: binder/ alone is enough to run every notebook.

Binder (repo2docker) copies the repository, runs ``pip install -r
binder/requirements.txt`` from its root in a fresh environment and opens the
notebooks with that environment's Jupyter. This test does the same with a
copy of the working tree and a fresh venv (no
--system-site-packages), then executes every notebook with the venv's own
nbclient and python3 kernel and a clean Jupyter configuration, so nothing from the
development environment can leak in. It needs a reachable pip index (it skips,
saying so, when there is none) and takes a few minutes: marked ``binder``, run by
`make binder-check` (CI runs it after `make test`, which leaves this file out).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tests.test_notebooks import NOTEBOOKS as SHIPPED

ROOT = Path(__file__).resolve().parent.parent
# The notebooks the project ships, numbered (one rule, tests/test_notebooks.py): a notebook a user saved in
# notebooks/ is not part of the check.
NOTEBOOKS = [ROOT / "notebooks" / name for name in SHIPPED]

pytestmark = [pytest.mark.binder, pytest.mark.slow]


def _clean_env(tmp: Path, venv: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("JUPYTER", "IPYTHON", "PYTHON", "VIRTUAL_ENV"))
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    for name, sub in (
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("JUPYTER_DATA_DIR", "data"),
        ("IPYTHONDIR", "ipython"),
    ):
        (tmp / sub).mkdir(exist_ok=True)
        env[name] = str(tmp / sub)
    # Keep pip's download cache (it only saves downloads; every package is still installed afresh).
    env.setdefault("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    env["HOME"] = str(tmp)  # no ~/.local kernels or site-packages
    env["PYTHONNOUSERSITE"] = "1"
    return env


def _run(cmd, *, env, cwd, timeout):
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _copy_repo(dest: Path) -> Path:
    """The repository as repo2docker sees it (a copy), so building and running leave the checkout untouched."""
    shutil.copytree(
        ROOT,
        dest,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            "out",
            "build",
            "*.egg-info",
            "__pycache__",
            ".pytest_cache",
            ".hypothesis",
            ".ipynb_checkpoints",
        ),
    )
    return dest


@pytest.fixture(scope="module")
def binder_venv(tmp_path_factory):
    """A fresh venv with only binder/requirements.txt installed, or a skip when no pip index answers.

    Returns (venv, env, tmp, repo): repo is the copy of the repository it was installed from.
    """
    tmp = tmp_path_factory.mktemp("binder")
    repo = _copy_repo(tmp / "repo")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = _clean_env(tmp, venv)
    py = str(venv / "bin" / "python")
    # pygraphviz is the one dependency no local wheel folder stands in for: it shows the index answers.
    probe = _run(
        [
            py,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--dest",
            str(tmp / "probe"),
            "pygraphviz",
        ],
        env=env,
        cwd=tmp,
        timeout=300,
    )
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["pip download failed"])[-1]
        pytest.skip(
            f"no pip index reachable, so the Binder environment cannot be built here ({last})"
        )
    done = _run(
        [py, "-m", "pip", "install", "-q", "-r", "binder/requirements.txt"],
        env=env,
        cwd=repo,
        timeout=900,
    )
    assert done.returncode == 0, (
        f"pip install -r binder/requirements.txt failed:\n{done.stderr[-4000:]}"
    )
    return venv, env, tmp, repo


def test_binder_files_are_minimal():
    lines = [ln.strip() for ln in (ROOT / "binder" / "requirements.txt").read_text().splitlines()]
    reqs = [ln for ln in lines if ln and not ln.startswith("#")]
    assert "." in reqs, "binder must install planviz itself from the repository root"
    assert len(reqs) <= 4, f"keep binder/requirements.txt minimal, got {reqs}"


def test_planviz_comes_from_the_fresh_venv(binder_venv):
    venv, env, tmp, _ = binder_venv
    out = _run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import planviz, sys; print(planviz.__file__); print(sys.prefix)",
        ],
        env=env,
        cwd=tmp,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    where, prefix = out.stdout.split()
    assert where.startswith(str(venv)) and prefix == str(venv)


@pytest.mark.parametrize("name", [p.name for p in NOTEBOOKS], ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_in_the_binder_env(binder_venv, name):
    venv, env, tmp, repo = binder_venv
    path = repo / "notebooks" / name
    copy = tmp / "executed" / name
    copy.parent.mkdir(exist_ok=True)
    # Execute in place (cwd = notebooks/, as Binder opens it) and write the result outside the repo.
    code = (
        "import sys, nbformat\n"
        "from nbclient import NotebookClient\n"
        f"nb = nbformat.read({str(path)!r}, as_version=4)\n"
        "nb.cells.append(nbformat.v4.new_code_cell('import sys, planviz; print(sys.prefix); print(planviz.__file__)'))\n"
        f"NotebookClient(nb, timeout=120, kernel_name='python3', store_widget_state=True,\n"
        f"               resources={{'metadata': {{'path': {str(path.parent)!r}}}}}).execute()\n"
        f"nbformat.write(nb, {str(copy)!r})\n"
    )
    done = _run([str(venv / "bin" / "python"), "-c", code], env=env, cwd=path.parent, timeout=600)
    assert done.returncode == 0, f"{path.name} failed in the Binder env:\n{done.stderr[-4000:]}"
    nb = nbformat.read(copy, as_version=4)
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"
    ]
    assert errors == []
    printed = "".join(
        o.text for o in nb.cells[-1].outputs if o.output_type == "stream" and o.name == "stdout"
    )
    prefix, where = printed.split()
    assert prefix == str(venv), f"the python3 kernel ran in {prefix}, not in the Binder venv"
    assert where.startswith(str(venv)), (
        f"planviz was imported from {where}, not from the Binder venv"
    )
