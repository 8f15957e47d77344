"""The public API as users' type checkers see it: real types behind the lazy names, and mypy on a user script.

``planviz/__init__.py`` imports its names lazily (``__getattr__``) so ``import planviz`` stays fast; its
``TYPE_CHECKING`` block tells mypy and editors what each name really is, and is the one list the lazy names are
read from at run time. These tests check that every name in it is the real object and that a wrong annotation in
a user's script is caught.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import textwrap
import typing
from pathlib import Path

import pytest

import planviz

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mypy") is None,
    reason="mypy is in the test extras (pip install -e '.[test]')",
)

ROOT = Path(planviz.__file__).resolve().parent.parent


def _type_checking_names() -> dict[str, str]:
    """Name -> module, as the ``if TYPE_CHECKING:`` block of planviz/__init__.py imports them."""
    tree = ast.parse((ROOT / "planviz" / "__init__.py").read_text())
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    )
    names = {}
    for node in block.body:
        assert (
            isinstance(node, ast.ImportFrom)
            and not node.level
            and node.module.startswith("planviz.")
        ), ast.dump(node)
        for alias in node.names:
            assert alias.asname == alias.name, (
                f"re-export {alias.name} as itself ('X as X') so mypy exports it"
            )
            names[alias.name] = node.module.removeprefix("planviz.")
    return names


def test_the_type_checking_block_is_the_one_list_of_public_names():
    """The block is read at run time too: every name it imports is what ``planviz.<name>`` gives, ``__all__`` is
    exactly its names (and the two subpackages), and there is no second list to keep equal to it."""
    seen = _type_checking_names()
    assert sorted(planviz.__all__) == sorted([*seen, "examples", "teaching"])
    assert planviz._WHERE == seen
    for name, module in seen.items():
        assert getattr(planviz, name) is getattr(
            importlib.import_module(f"planviz.{module}"), name
        ), name
    source = (ROOT / "planviz" / "__init__.py").read_text()
    assert "_EXPORTS" not in source and source.count("validate as validate,") == 1


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory) -> Path:
    """One mypy cache for the user scripts' checks: the first fills it with planviz's and the standard
    library's types, the next reads them instead of analysing them again (the script itself changes, so
    mypy always checks it afresh). The package's own check keeps no cache: it proves a cold run is clean."""
    return tmp_path_factory.mktemp("mypy-cache")


def _mypy(tmp_path: Path, script: str, cache: Path) -> tuple[str, int]:
    user = tmp_path / "user_script.py"
    user.write_text(textwrap.dedent(script))
    # in a child process: mypy raises the recursion limit of the process it runs in
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            str(user),
            "--follow-imports=silent",
            "--no-error-summary",
            "--cache-dir",
            str(cache),
            "--python-version",
            "3.10",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    return done.stdout + done.stderr, done.returncode


def test_a_users_wrong_annotations_are_caught(tmp_path, mypy_cache):
    out, status = _mypy(
        tmp_path,
        """
        import planviz
        plan = planviz.examples.load("cache_isolation")
        report: int = planviz.validate(plan)
        makespan: str = planviz.critical_path(plan).makespan
        step = planviz.Step("S1", 3)
    """,
        mypy_cache,
    )
    assert status == 1, out
    assert (
        'user_script.py:4: error: Incompatible types in assignment (expression has type "Report"'
        in out
    )
    assert (
        'user_script.py:5: error: Incompatible types in assignment (expression has type "float"'
        in out
    )
    assert 'user_script.py:6: error: Argument 2 to "Step" has incompatible type "int"' in out


def test_the_documented_ways_of_building_values_type_check(tmp_path, mypy_cache):
    out, status = _mypy(
        tmp_path,
        """
        import planviz
        job = planviz.Plan("report the leaks", [planviz.Step("R1", "purge the leaked entries", tool="purge",
                                                             produces="purged", depends_on=["R0"])],
                           premises={"leak_found"})
        contract = planviz.Contract(required=["R1"], must_precede=[("R0", "R1")],
                                    tools={"purge": planviz.ToolSpec(writes=True, preconditions="backup")})
        report: planviz.Report = planviz.validate(job, contract)
        ok: bool = report.ok
    """,
        mypy_cache,
    )
    assert status == 0, out


def test_the_typed_constructors_take_every_field():
    """The TYPE_CHECKING __init__ of each value type names exactly its dataclass fields, so a new field is typed."""
    import dataclasses

    tree = ast.parse((ROOT / "planviz" / "plan" / "model.py").read_text())
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        stubs = [
            f
            for block in cls.body
            if isinstance(block, ast.If) and getattr(block.test, "id", "") == "TYPE_CHECKING"
            for f in block.body
            if isinstance(f, ast.FunctionDef) and f.name == "__init__"
        ]
        if not stubs:
            continue
        args = stubs[0].args
        named = {a.arg for a in args.args[1:] + args.kwonlyargs}
        fields = {f.name for f in dataclasses.fields(getattr(planviz, cls.name))}
        assert named == fields, (
            f"{cls.name}'s typed __init__ differs from its fields: {sorted(named ^ fields)}"
        )


def test_the_package_type_checks():
    """mypy with the committed configuration (pyproject.toml [tool.mypy]) finds nothing in planviz."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", "/dev/null"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def _mentions_any(annotation: object) -> bool:
    stack = [annotation]
    while stack:
        a = stack.pop()
        if a is typing.Any:
            return True
        stack.extend(typing.get_args(a))
    return False


def test_no_public_function_takes_any():
    """Each argument of a public function says what it accepts (a union or a protocol), never ``Any``."""
    import inspect

    loose = sorted(
        f"{name}({argument})"
        for name in planviz.__all__
        if inspect.isfunction(getattr(planviz, name)) or inspect.ismethod(getattr(planviz, name))
        for argument, hint in typing.get_type_hints(getattr(planviz, name)).items()
        if argument != "return" and _mentions_any(hint)
    )
    assert not loose, f"public functions taking Any: {loose}"
