"""Running a solution file (``%run -i solutions/NAME.py``) never overwrites a name the notebook defined, except
the answer slots the notebook leaves for the student: a name assigned ``...`` or a function whose body is only
``...`` (a build-it). Issue 41: 08's solutions overwrote the notebook's ``hold`` fault, so a cell failed when
re-run; 01 and 03 reloaded ``plan``, 04 overwrote the run's ``voiding`` event and the loop's ``step``.
Every notebook with a solution file is checked."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
NAMES = sorted(p.stem for p in (NOTEBOOKS / "solutions").glob("*.py"))


def _tree(source: str) -> ast.Module:
    return ast.parse(
        "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    )


def _is_slot(node: ast.AST) -> bool:
    if isinstance(node, ast.Assign):
        return isinstance(node.value, ast.Constant) and node.value.value is Ellipsis
    if isinstance(node, ast.FunctionDef):
        body = [
            s
            for s in node.body
            if not (
                isinstance(s, ast.Expr)
                and isinstance(s.value, ast.Constant)
                and isinstance(s.value.value, str)
            )
        ]
        return all(
            isinstance(s, ast.Expr)
            and isinstance(s.value, ast.Constant)
            and s.value.value is Ellipsis
            for s in body
        )
    return False


def _defined(tree: ast.Module) -> dict[str, bool]:
    """{top-level name: whether every definition of it is an answer slot}."""
    out: dict[str, bool] = {}
    for node in tree.body:
        names: list[str] = []
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        for name in names:
            out[name] = out.get(name, True) and _is_slot(node)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_a_solution_overwrites_only_answer_slots(name):
    cells = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]
    notebook: dict[str, bool] = {}
    for cell in cells:
        if cell["cell_type"] == "code":
            for n, slot in _defined(_tree("".join(cell["source"]))).items():
                notebook[n] = notebook.get(n, True) and slot
    solution = _defined(_tree((NOTEBOOKS / "solutions" / f"{name}.py").read_text(encoding="utf-8")))
    overwritten = sorted(n for n in solution if n in notebook and not notebook[n])
    assert overwritten == [], f"solutions/{name}.py overwrites the notebook's {overwritten}"
