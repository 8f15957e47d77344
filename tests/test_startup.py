"""Start-up stays small: a small job imports only what it uses (each case runs in a fresh interpreter).

NetworkX is imported only where a graph is really built (``to_graph``, naming a cycle),
PyYAML only for YAML text, the planner-format readers only when an input is detected as
one, pictures and runs never for validation. Time itself is measured in
``benchmarks/bench_startup.py``, never asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SMALL = {
    "goal": "g",
    "steps": [
        {"id": "A", "action": "a", "expected_evidence": "e", "produces": ["x"]},
        {
            "id": "B",
            "action": "b",
            "expected_evidence": "e",
            "depends_on": ["A"],
            "requires": ["x"],
            "produces": ["y"],
        },
    ],
}
# secrets and shutil (argparse's terminal width: bz2, lzma) cost a tenth of a start
HEAVY = (
    "networkx",
    "pygraphviz",
    "ipywidgets",
    "yaml",
    "planviz.pictures",
    "planviz.runs",
    "planviz.analysis",
    "planviz.frontends.widget.explorer",
    "planviz.plan.importers.taskbench",
    "planviz.plan.importers.rewoo",
    "secrets",
    "shutil",
    "planviz.frontends.receiver",
    "planviz.frontends.otlpbody",
    "google.protobuf",
    "http.server",
)


def imported_after(code: str, tmp_path) -> set[str]:
    """The top-level packages and planviz modules in sys.modules after ``code`` runs in a fresh interpreter."""
    (tmp_path / "small.json").write_text(json.dumps(SMALL))
    (tmp_path / "small.yaml").write_text(
        "goal: g\nsteps:\n  - {id: A, action: a, expected_evidence: e, produces: x}\n"
    )
    script = f"import sys\n{code}\nprint('\\n'.join(sorted(m for m in sys.modules if sys.modules[m] is not None)))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    names = set(done.stdout.split())
    return names | {n.split(".")[0] for n in names}


@pytest.mark.parametrize(
    "code, allowed",
    [
        ("import planviz\nassert planviz.validate(planviz.load_plan('small.json')).ok", ()),
        (f"import planviz\nassert planviz.validate(planviz.Plan.from_dict({SMALL!r})).ok", ()),
        ("import planviz\nassert planviz.validate(planviz.load_plan('small.yaml')).ok", ("yaml",)),
        (
            "from planviz.frontends.cli.commands import main\nassert main(['validate', 'small.json']) == 0",
            (),
        ),
        (
            "from planviz.frontends.cli.commands import main\nassert main(['validate', 'small.yaml']) == 0",
            ("yaml",),
        ),
        (
            "import planviz\nplan = planviz.load_plan('small.json')\n"
            "planviz.critical_path(plan)\nplanviz.ready_waves(plan)",
            ("planviz.analysis",),
        ),
    ],
)
def test_a_small_job_imports_only_what_it_uses(code, allowed, tmp_path):
    loaded = imported_after(code, tmp_path)
    assert "planviz.plan.model" in loaded
    assert sorted(set(HEAVY) & loaded - set(allowed)) == []


@pytest.mark.parametrize(
    "code, needed",
    [
        ("import planviz\nplanviz.to_graph(planviz.load_plan('small.json'))", "networkx"),
        (
            "import planviz\nassert not planviz.validate(planviz.Plan('g', [planviz.Step('A', 'a', depends_on='B'), "
            "planviz.Step('B', 'b', depends_on='A')])).ok",
            "networkx",
        ),
        (
            "import planviz\nplanviz.load_plan({'user_request': 'r', 'task_nodes': [{'task': 't', 'arguments': []}]})",
            "planviz.plan.importers.taskbench",
        ),
    ],
)
def test_what_is_really_needed_is_still_imported(code, needed, tmp_path):
    assert needed in imported_after(code, tmp_path)
