"""The front end's modules joined into one module text (planviz/frontends/jsmodules.py): the strict rule, the files
it joins, and that the widget and every page ship exactly that text."""

from __future__ import annotations

import fnmatch
import re
from importlib.resources import files
from pathlib import Path

import pytest
import tomllib

from planviz.frontends.jsmodules import ENTRY, join_modules, module_order, module_text

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "planviz" / "frontends" / "js"


def test_imports_dropped_exports_unmarked_and_dependencies_first():
    text = join_modules(
        {
            "main.js": "import { b } from './b.js';\nimport { a } from './a.js';\nexport default { run: () => a + b };",
            "b.js": "import { a } from './a.js';\nexport const b = a + 1, c = 2;\nexport function f() { return c; }",
            "a.js": "// @ts-check\nexport const a = 1;\nconst hidden = 3;",
            "unused.js": "export default 'never joined';",
        },
        "main.js",
    )
    assert re.findall(r"^// ---- (\S+) ----$", text, re.M) == ["a.js", "b.js", "main.js"]
    assert "import" not in text and "unused" not in text
    assert "\nconst b = a + 1, c = 2;\nfunction f() { return c; }\n" in text
    assert text.endswith("export default { run: () => a + b };\n")


@pytest.mark.parametrize(
    "line",
    [
        "import a from './a.js';",  # a default import
        "import * as a from './a.js';",  # a namespace
        "import {a} from './a.js';",  # not the one spelling
        'import { a } from "./a.js";',
        "import { a } from '../a.js';",  # not a sibling file
        "import { a,",  # over several lines
        "  import('./a.js');",  # a dynamic import
        "export { a };",  # an export list
        "export * from './a.js';",
        "export let a = 1;",  # a binding that may change
        "export default 1;",  # a default export outside the entry module
    ],
)
def test_every_other_import_or_export_form_is_refused(line):
    with pytest.raises(RuntimeError, match=r"js/b\.js, line 2"):
        join_modules(
            {
                "a.js": "export const a = 1;",
                "b.js": "// b\n" + line,
                "main.js": "import { x } from './b.js';\nexport default 1;",
            },
            "main.js",
        )


def test_the_entrys_default_export_must_come_last():
    with pytest.raises(RuntimeError, match="main.js, line 1"):
        join_modules({"main.js": "export default 1;\nconst later = 2;"}, "main.js")


def test_a_missing_file_a_missing_export_a_circle_and_a_name_declared_twice_are_refused():
    entry = "import { a } from './a.js';\nexport default a;"
    with pytest.raises(RuntimeError, match="'a.js', which is not there"):
        join_modules({"main.js": entry}, "main.js")
    with pytest.raises(
        RuntimeError, match=r"imports \['a'\] from a.js, which does not export them"
    ):
        join_modules({"main.js": entry, "a.js": "const a = 1;"}, "main.js")
    with pytest.raises(RuntimeError, match="circle: main.js -> a.js -> main.js"):
        join_modules(
            {"main.js": entry, "a.js": "import { m } from './main.js';\nexport const a = 1;"},
            "main.js",
        )
    for second in (
        "const h = 2;",
        "function h() {}",
        "class h {}",
        "export const other = 1, h = 2;",
    ):
        with pytest.raises(RuntimeError, match="both declare 'h'"):
            join_modules(
                {
                    "main.js": "import { a } from './a.js';\nimport { b } from './b.js';\nexport default a;",
                    "a.js": "export const a = 1;\nfunction h() {}",
                    "b.js": "export const b = 1;\n" + second,
                },
                "main.js",
            )


def test_every_module_file_is_joined_or_is_the_type_definitions():
    names = {p.name for p in FOLDER.glob("*.js")}
    assert set(module_order()) == names - {"types.js"} and module_order()[-1] == ENTRY
    for path in sorted(FOLDER.glob("*.js")):
        # the checker reads it
        assert path.read_text(encoding="utf-8").startswith("// @ts-check\n"), path.name


def test_the_package_ships_every_module_file():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = data["tool"]["setuptools"]["package-data"]["planviz.frontends"]
    for path in sorted(FOLDER.glob("*.js")) + [
        FOLDER.parent / "explorer.css",
        FOLDER.parent / "pagedata.schema.json",
    ]:
        inside = path.relative_to(FOLDER.parent).as_posix()
        assert any(
            fnmatch.fnmatchcase(inside, g) and inside.count("/") == g.count("/") for g in globs
        ), inside


def test_the_widget_and_every_page_ship_the_joined_text(tmp_path):
    from planviz import examples, explore, report_html, simulate
    from planviz.frontends.page import page_script

    sources = {
        p.name: p.read_text(encoding="utf-8")
        for p in (files("planviz.frontends") / "js").iterdir()
        if p.name.endswith(".js")
    }
    text = join_modules(sources)
    assert module_text() == text
    assert explore(examples.load("cache_isolation"))._esm == text
    assert page_script().startswith(
        text.split("\nexport default ")[0] + "\nconst planvizModule = { render };"
    )
    page = report_html(simulate(examples.load("cache_isolation")), tmp_path / "r.html").read_text(
        encoding="utf-8"
    )
    assert re.findall(r'<script type="module">(.*?)</script>', page, re.S) == [page_script()]
