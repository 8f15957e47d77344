"""The front end's ES modules (``planviz/frontends/js/*.js``) joined into the one module text every host loads.

The front end is written as small ES modules, each typed with JSDoc under ``// @ts-check`` (``make jscheck``
runs TypeScript's checker on them; nothing is compiled). Two hosts load it, and neither can follow an
``import`` to a sibling file: anywidget takes one module as a string (the widget's ``_esm``), and an offline
page inlines one script that its Content-Security-Policy allows by hash alone (no ``data:`` or ``blob:``
module URLs, which that policy would have to open). So :func:`module_text` joins the modules, in dependency
order, into one module: each file's ``import { a, b } from './x.js';`` lines are dropped (``x.js`` comes
earlier in the text) and ``export`` is taken off its declarations; the entry module (``explorer.js``) comes
last and keeps its ``export default``. The rule is strict, so the joined text means what the modules mean:
an import line must name what it takes from a sibling file that exports it, on one line; no other
``import``/``export`` form is accepted (default, namespace, dynamic, re-exports, ``export { }``), and no two
modules may declare the same top-level name (they share one scope once joined). Anything else is refused
with a :class:`RuntimeError` naming the file and line. ``types.js`` holds the JSDoc type definitions and is
only imported by the checker, in comments, so it is never joined.

>>> text = module_text()
>>> text.count("\\nexport default ") == 1 and "\\nimport " not in text
True
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files

__all__ = ["module_text", "module_order", "join_modules", "FOLDER", "ENTRY"]

# the modules' folder in planviz/frontends, and the module the hosts run
FOLDER, ENTRY = (
    "js",
    "explorer.js",
)

_NAME = r"[A-Za-z_$][\w$]*"
_IMPORT = re.compile(rf"import \{{ ({_NAME}(?:, {_NAME})*) \}} from '\./([a-z][a-z0-9_]*\.js)';")
_EXPORT = re.compile(rf"export (?:function|class|const) ({_NAME})\b")
_TOP = re.compile(rf"(?:export )?(?:async )?(?:function\*?|class|const|let|var) ({_NAME})\b")
# the further names of `const A = 1, B = 2;` (a declaration on one line)
_MORE = re.compile(rf",\s*({_NAME})\s*=")
_MODULE_WORD = re.compile(r"\s*(?:import|export)\b")


def _parse(
    name: str, text: str, entry: bool
) -> tuple[list[tuple[list[str], str]], set[str], set[str], list[str]]:
    """``text``'s imports ([names], file), exported names, top-level names, and its lines as joined."""
    imports, exported, top, kept = [], set(), set(), []
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        where = f"{FOLDER}/{name}, line {number}"
        if not _MODULE_WORD.match(line):
            declared = _TOP.match(line)
            if declared:
                top.add(declared[1])
                if declared[0].split()[-2] in ("const", "let", "var"):
                    top.update(_MORE.findall(line.split(";")[0]))
            kept.append(line)
            continue
        found = _IMPORT.fullmatch(line)
        if found:
            imports.append((found[1].split(", "), found[2]))
            continue
        if (
            entry
            and line.startswith("export default ")
            and not any(x.strip() for x in lines[number:])
        ):
            kept.append(line)
            continue
        found = _EXPORT.match(line)
        if not found:
            raise RuntimeError(
                f"{where}: {line.strip()[:80]!r} is no import or export the joined module can "
                "hold: write `import { a, b } from './x.js';` on one line, `export function|class|"
                "const NAME`, or (in the entry module only, last) `export default ...`"
            )
        exported.add(found[1])
        top.add(found[1])
        if line.startswith("export const "):
            top.update(_MORE.findall(line.split(";")[0]))
            exported.update(_MORE.findall(line.split(";")[0]))
        kept.append(line[len("export ") :])
    return imports, exported, top, kept


def join_modules(sources: dict[str, str], entry: str = ENTRY) -> str:
    """The modules ``sources`` (file name -> text) as one ES module: the modules ``entry`` imports, directly or
    not, each before the modules that import it (in the order they are imported), then ``entry``; import lines
    dropped, ``export`` taken off declarations, ``entry``'s ``export default`` kept. Refuses (RuntimeError) an
    import or export form it cannot join, an import of a file that is not there or of a name that file does not
    export, a circle of imports, and a top-level name declared by two modules.

    >>> sources = {"a.js": "export const A = 1;", "main.js": "import { A } from './a.js';\\nexport default A;"}
    >>> print(join_modules(sources, "main.js"), end="")
    // ---- a.js ----
    const A = 1;
    // ---- main.js ----
    export default A;
    """
    parsed: dict[str, tuple[list[tuple[list[str], str]], set[str], set[str], list[str]]] = {}
    order: list[str] = []
    visiting: list[str] = []

    def visit(name: str) -> None:
        if name in order:
            return
        if name in visiting:
            raise RuntimeError(
                f"{FOLDER}: the imports run in a circle: {' -> '.join(visiting + [name])}"
            )
        if name not in sources:
            raise RuntimeError(
                f"{FOLDER}/{visiting[-1] if visiting else name} imports {name!r}, which is not there"
            )
        # only the modules reached (not types.js)
        parsed[name] = _parse(name, sources[name], name == entry)
        visiting.append(name)
        for names, source in parsed[name][0]:
            visit(source)
            missing = sorted(set(names) - parsed[source][1])
            if missing:
                raise RuntimeError(
                    f"{FOLDER}/{name} imports {missing} from {source}, which does not export them"
                )
        visiting.pop()
        order.append(name)

    visit(entry)
    seen: dict[str, str] = {}
    for name in order:
        for top in sorted(parsed[name][2]):
            if top in seen:
                raise RuntimeError(
                    f"{FOLDER}/{name} and {FOLDER}/{seen[top]} both declare {top!r}: joined into one "
                    "module they share one scope, so give one of them another name"
                )
            seen[top] = name
    return (
        "\n".join(
            f"// ---- {name} ----\n" + "\n".join(parsed[name][3]).strip("\n") for name in order
        )
        + "\n"
    )


def _sources() -> dict[str, str]:
    folder = files("planviz.frontends").joinpath(FOLDER)
    return {
        p.name: p.read_text(encoding="utf-8") for p in folder.iterdir() if p.name.endswith(".js")
    }


def module_order() -> list[str]:
    """The files of ``js/`` in the order :func:`module_text` joins them (the entry module last).

    >>> module_order()[-1]
    'explorer.js'
    """
    return re.findall(r"^// ---- (\S+) ----$", module_text(), re.M)


@cache
def module_text() -> str:
    """The front end as the one ES module the widget (``_esm``) and every offline page load: the files of
    ``planviz/frontends/js`` joined by :func:`join_modules`, entry ``explorer.js``."""
    return join_modules(_sources(), ENTRY)
