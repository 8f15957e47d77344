"""docs/architecture.md says what is true: it names every module, and every file it names exists.

The map is how a maintainer finds the one home of a concept; a module it does not name, or a recipe
("where to add...") pointing at a file that moved, sends them to the wrong place.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _named() -> tuple[set[str], set[str]]:
    """(words in backticks, file paths in backticks) of the page, code blocks left out."""
    text = re.sub(r"```.*?```", "", ARCHITECTURE.read_text(encoding="utf-8"), flags=re.S)
    quoted = re.findall(r"`([^`\n]+)`", text)
    words = {w for q in quoted for w in re.split(r"[^A-Za-z0-9_/.]+", q) if w}
    paths = {q.split(":")[0].split(" ")[0] for q in quoted}
    paths = {
        p for p in paths if re.fullmatch(r"[\w.]+(/[\w.]+)+\.(py|md|js|css|toml|txt|yaml|json)", p)
    }
    return words, paths


def _modules() -> list[Path]:
    return sorted(p for p in (ROOT / "planviz").rglob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT / "planviz")))
def test_every_module_is_on_the_map(path):
    words, _ = _named()
    lesson = re.fullmatch(r"lesson\d\d", path.stem) and "lessonNN" in words
    assert lesson or path.stem in words or path.name in words, (
        f"docs/architecture.md does not name {path.relative_to(ROOT)}: add it to its stage's row (what it owns)"
    )


def test_every_file_the_map_names_exists():
    _, paths = _named()
    missing = sorted(
        p
        for p in paths
        if "NN" not in p and not any((base / p).exists() for base in (ROOT, ROOT / "planviz"))
    )
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"


SECTIONS = ("Parameters\n----------", "Returns\n-------", "Examples\n--------")
DOCUMENTED_BY_NUMPYDOC = sorted(  # every public function
    name
    for name in __import__("planviz").__all__
    if callable(getattr(__import__("planviz"), name))
    and not isinstance(getattr(__import__("planviz"), name), type)
)


@pytest.mark.parametrize("name", DOCUMENTED_BY_NUMPYDOC)
def test_public_functions_have_numpydoc_sections(name):
    import inspect

    import planviz

    doc = inspect.getdoc(getattr(planviz, name)) or ""
    missing = [s.split()[0] for s in SECTIONS if s not in doc]
    if inspect.signature(getattr(planviz, name)).parameters and "Raises\n------" not in doc:
        missing.append("Raises")
    assert not missing, (
        f"planviz.{name}'s docstring lacks the numpydoc sections {missing} (see critical_path)"
    )


def _bench_runner():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmark_table_is_the_one_make_bench_wrote():
    """docs/benchmarks.md's figures are those of a `make bench` run (benchmarks/figures.json), rendered, not typed."""
    run = _bench_runner()
    assert run.PAGE == ROOT / "docs" / "benchmarks.md"
    text = run.PAGE.read_text(encoding="utf-8")
    data = json.loads(run.FIGURES.read_text(encoding="utf-8"))
    assert text.count(run.START) == text.count(run.END) == 1
    assert run.page_text(text, data) == text, (
        "run `python benchmarks/run.py --page out/bench.json` after make bench"
    )
    figures = [f for result in data["results"].values() for f in result["figures"]]
    assert sum(bool(f["goal"]) for f in figures) > 50
    for f in figures:  # each verdict is the one its value and goal give
        if f["goal"]:
            op, bound = (
                f["goal"].split()[0],
                float(re.match(r"-?[\d.]+(?:e-?\d+)?", f["goal"].split()[1])[0]),
            )
            assert f["met"] is (f["value"] <= bound if op == "<=" else f["value"] >= bound), f
        else:
            assert f["met"] is None, f
    assert set(data["results"]) == {
        p.stem.removeprefix("bench_") for p in (ROOT / "benchmarks").glob("bench_*.py")
    }


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but hyphens dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_between_readme_and_docs_land(page):
    """Every relative link of the README and the docs pages names a file that exists, and its #anchor a
    heading of that file: a section moved from the README to docs/ takes its links with it."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(target)
        elif anchor and file.suffix == ".md":
            headings = re.findall(
                r"^#+ (.+)$",
                re.sub(r"```.*?```", "", file.read_text(encoding="utf-8"), flags=re.S),
                re.M,
            )
            if anchor not in {_slug(h) for h in headings}:
                broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)} links to what is not there: {broken}"


@pytest.mark.parametrize(
    "page", [p for p in PAGES if p.parent.name == "docs"], ids=lambda p: p.name
)
def test_docs_pages_are_reachable_from_the_readme(page):
    """A newcomer finds every docs page from the README, directly or through one docs page it links."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = {
        (ROOT / t.split("#")[0]).resolve() for t in re.findall(r"\]\((docs/[^)\s]+)\)", readme)
    }
    second = {
        (p.parent / t.split("#")[0]).resolve()
        for p in linked
        if p.suffix == ".md"
        for t in re.findall(r"\]\(([^)\s:]+)\)", p.read_text(encoding="utf-8"))
    }
    assert page.resolve() in linked | second, (
        f"the README leads to no link to {page.relative_to(ROOT)}"
    )
