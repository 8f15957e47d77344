"""The package layout keeps its promises (docs/architecture.md).

- the stages flow one way: no module imports a later stage, not even inside a function;
- inside a stage, its subpackages flow one way too: ``traces/`` and ``runs/comparisons/`` read the
  simulation modules of ``runs/``, which never read them, and they never read each other;
- no module grows past about 320 statements (a warning, not a failure: split it by concept);
- no module shares its name with a public function, so ``import planviz.X`` never shadows ``planviz.X``;
- every planviz class a public function takes or returns is exported from ``planviz`` and lives in a public module;
- validate, render, simulate and the HTML report work with ipywidgets unavailable.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import typing
import warnings
from pathlib import Path

import pytest

import planviz

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "planviz"

# stage of each top-level part of the package; a module may import its own stage or an earlier one
STAGES = {
    "errors": 0,
    "io": 1,
    "plan": 2,
    "examples": 2,
    "structure": 3,
    "checks": 4,
    "analysis": 4,
    "runs": 5,
    "traces": 6,
    "pictures": 7,
    "frontends": 8,
    "teaching": 8,
    "__init__": 9,
    "__main__": 9,
}
# same stage, but neither reads the other
SIBLINGS = {
    ("checks", "analysis"),
    ("analysis", "checks"),
}
# statements per module (every ast.stmt, nested ones included: a docstring is one, a comment or a wrapped line
# none, so the formatter cannot move it); 320 is about the largest today (runs/engine/machine.py 313,
# traces/otel/otelspans.py 298, traces/langgraph/history.py 297: 413 to 420 lines before `ruff format`)
MAX_STATEMENTS = 320
# inside a stage: the order of its subpackages ("" = the modules directly in the stage's folder)
SUBSTAGES = {
    "runs": {
        "": 0,
        "engine": 1,
        "hindsight": 2,
        "measures": 3,
        "comparisons": 4,
        "evaluation": 5,
        "summary": 6,
    },
    "traces": {"": 0, "otel": 1, "langgraph": 1, "langfuse": 2, "own": 3},
    "frontends": {"": 0, "pages": 1, "widget": 2, "cli": 3},
}
# same place in the order, and neither reads the other
SUB_SIBLINGS = {("traces", "otel", "langgraph"), ("traces", "langgraph", "otel")}


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def part_of(module: str) -> str:
    """``planviz.runs.engine.machine`` -> ``runs``; ``planviz.errors`` -> ``errors``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def dotted(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def imported(path: Path) -> list[tuple[int, str]]:
    """Every planviz module ``path`` imports, anywhere in the file (functions included), with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = dotted(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "planviz"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "planviz":
                continue
            if target == "planviz":
                out += [(node.lineno, f"planviz.{a.name}") for a in node.names]
            else:
                out.append((node.lineno, target))
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
        ):
            first = node.args[0] if node.args else None
            if (
                isinstance(first, ast.Constant)
                and isinstance(first.value, str)
                and first.value.startswith("planviz")
            ):
                out.append((node.lineno, first.value))
    return out


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_flow_one_way(path):
    mine = part_of(dotted(path))
    for line, target in imported(path):
        theirs = part_of(target)
        if theirs not in STAGES:  # a public name imported lazily by planviz/__init__
            continue
        assert STAGES[theirs] <= STAGES[mine] and (mine, theirs) not in SIBLINGS, (
            f"{path.relative_to(ROOT)}:{line} ({mine}, stage {STAGES[mine]}) imports {target} "
            f"({theirs}, stage {STAGES[theirs]}): a stage reads only itself and earlier stages, "
            "and checks and analysis never read each other"
        )


def sub_part(module: str) -> str:
    """``planviz.traces.otel.genai`` -> ``traces``; ``planviz.runs.events`` -> ``""``."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[2] in SUBSTAGES.get(parts[1], {}) else ""


@pytest.mark.parametrize(
    "path",
    [p for p in modules() if part_of(dotted(p)) in SUBSTAGES],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_subpackages_flow_one_way(path):
    stage = part_of(dotted(path))
    order = SUBSTAGES[stage]
    mine = sub_part(dotted(path))
    for line, target in imported(path):
        if part_of(target) != stage or target == f"planviz.{stage}":
            continue
        theirs = sub_part(target)
        assert order[theirs] <= order[mine] and (stage, mine, theirs) not in SUB_SIBLINGS, (
            f"{path.relative_to(ROOT)}:{line} ({stage}/{mine or '.'}) imports {target} ({stage}/{theirs or '.'}): "
            f"inside {stage}/ the subpackages {sorted(k for k in order if k)} read the modules beside them "
            "and never each other, and those never read the subpackages"
        )


def test_every_subpackage_has_an_order():
    for stage, order in SUBSTAGES.items():
        folders = {p.name for p in (PACKAGE / stage).iterdir() if (p / "__init__.py").exists()}
        assert folders == set(order) - {""}, (
            f"subpackages of {stage}/ without a place in SUBSTAGES (and docs/architecture.md): "
            f"{folders ^ (set(order) - {''})}"
        )


def test_every_part_has_a_stage():
    parts = {part_of(dotted(p)) for p in modules()}
    assert parts <= set(STAGES), (
        f"parts without a stage in STAGES (and docs/architecture.md): {parts - set(STAGES)}"
    )


class ModuleSizeWarning(UserWarning):
    """A module past MAX_STATEMENTS: time to split it by concept (a warning, so a fix is never blocked by it)."""


def statements(source: str) -> int:
    """Statements in ``source``, nested ones included (``def f():`` with two in its body counts 3)."""
    return sum(isinstance(node, ast.stmt) for node in ast.walk(ast.parse(source)))


def test_statements_are_counted_whatever_the_layout():
    one_line = "import os\nif os.sep:\n    x = [1, 2]; y = 3\n"
    wrapped = '"""Doc."""\nimport os\n\n# a comment\nif os.sep:\n    x = [\n        1,\n        2,\n    ]\n    y = 3\n'
    assert statements(one_line) == 4 and statements(wrapped) == 5  # the docstring is one statement


def test_modules_stay_small():
    sizes = {path: statements(path.read_text(encoding="utf-8")) for path in modules()}
    assert max(sizes.values()) > 100, sizes  # the count reads the real modules
    for path, count in sorted(sizes.items()):
        if count > MAX_STATEMENTS:
            warnings.warn(
                f"{path.relative_to(ROOT)} has {count} statements (more than {MAX_STATEMENTS}): split it "
                "by concept",
                ModuleSizeWarning,
                stacklevel=1,
            )


def test_no_module_is_named_like_a_public_function():
    functions = {
        name
        for name in planviz.__all__
        if callable(getattr(planviz, name)) and not isinstance(getattr(planviz, name), type)
    }
    clashes = sorted(f"{dotted(p)}" for p in modules() if p.stem in functions)
    assert not clashes, f"modules named like public functions (name modules for nouns): {clashes}"


def _planviz_classes(annotation: object) -> set[type]:
    found: set[type] = set()
    stack = [annotation]
    while stack:
        a = stack.pop()
        if (
            isinstance(a, type)
            and a.__module__.startswith("planviz")
            and not getattr(a, "_is_protocol", False)
        ):
            found.add(a)
        stack.extend(typing.get_args(a))
    return found


PUBLIC_FUNCTIONS = sorted(
    name
    for name in planviz.__all__
    if callable(getattr(planviz, name)) and not isinstance(getattr(planviz, name), type)
)


def test_the_type_check_sees_the_types():
    seen = set().union(
        *(
            _planviz_classes(h)
            for n in PUBLIC_FUNCTIONS
            for h in typing.get_type_hints(getattr(planviz, n)).values()
        )
    )
    assert {
        planviz.Run,
        planviz.Schedule,
        planviz.TimelinePoint,
        planviz.Explorer,
        planviz.Report,
    } <= seen


@pytest.mark.parametrize("name", PUBLIC_FUNCTIONS)
def test_types_a_public_function_takes_or_returns_are_exported(name):
    hints = typing.get_type_hints(getattr(planviz, name))
    for cls in set().union(*map(_planviz_classes, hints.values())):
        assert getattr(planviz, cls.__name__, None) is cls, (
            f"{name} uses {cls.__qualname__}, not exported from planviz"
        )


@pytest.mark.parametrize(
    "name", sorted(n for n in planviz.__all__ if isinstance(getattr(planviz, n), type))
)
def test_public_types_live_in_public_modules(name):
    cls = getattr(planviz, name)
    assert not any(part.startswith("_") for part in cls.__module__.split(".")), (
        f"{name} is defined in {cls.__module__}; public types live in public modules"
    )


NO_WIDGETS = """
import sys, tempfile, pathlib
sys.modules["ipywidgets"] = None
import planviz
plan = planviz.examples.load("cache_isolation")
assert planviz.validate(plan).ok
planviz.render(plan).svg
run = planviz.simulate(plan, faults=[planviz.Fault("S4", "side_effect")])
out = pathlib.Path(tempfile.mkdtemp())
planviz.report_html(run, out / "run.html")
planviz.save_trace(run, out / "run.jsonl")
from planviz.frontends.cli.commands import main
assert main(["report", str(out / "run.jsonl"), "-o", str(out / "again.html")]) == 0
assert "ipywidgets" not in {m.split(".")[0] for m in sys.modules if sys.modules[m] is not None}
print("ok")
"""


def test_everything_but_the_explorer_works_without_ipywidgets():
    done = subprocess.run(
        [sys.executable, "-c", NO_WIDGETS], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]
