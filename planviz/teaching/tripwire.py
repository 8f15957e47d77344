"""The library unplugged: while a build-it check runs the student's function, the graph algorithms trip.

Reading the student's code (:func:`~planviz.teaching.guards.library_calls`)
misses a route it cannot see: ``getattr(nx, "topological_sort")``,
``importlib.import_module(...)``, a reference stored in a dict before the
check, a ``functools.partial``, or ``structure_index(plan).order``. So while
the student's function runs, every function of networkx's DAG, traversal,
shortest-path, cycle and component modules, of :mod:`graphlib`, and of
planviz's structure (all but the graph conversion), analysis, checks, runs
and pictures modules (a simulated run or a layered picture is the order by
another door) has its ``__code__`` swapped for a tripwire: the function object
stays the same, so every route that reaches it, however it was stored,
reaches the tripwire. A tripwire called by the library itself (``to_graph``
building its index, networkx calling its own helpers) runs the original;
called by anything else it fails the check with "this calls the library's
own X". What each exercise names as allowed is left plugged in. Everything is
put back when the check ends, even when it fails.

>>> import networkx as nx
>>> g = nx.DiGraph([("A", "B")])
>>> with unplugged(()):
...     try:
...         list(getattr(nx, "topological_sort")(g))
...     except LibraryUsed as exc:
...         print(exc.name)
networkx.topological_sort
>>> list(nx.topological_sort(g))
['A', 'B']
"""

from __future__ import annotations

import builtins
import functools
import importlib
import os
import pkgutil
import sys
import threading
import types
from contextlib import contextmanager
from typing import Any, Iterator

__all__ = ["LibraryUsed", "unplugged", "library_functions", "NETWORKX_MODULES", "PLANVIZ_PACKAGES"]

#: networkx modules whose every function answers some build-it (a subpackage stands for all its modules).
NETWORKX_MODULES = (
    "networkx.algorithms.dag",
    "networkx.algorithms.traversal",
    "networkx.algorithms.shortest_paths",
    "networkx.algorithms.simple_paths",
    "networkx.algorithms.cycles",
    "networkx.algorithms.components.strongly_connected",
    "networkx.algorithms.hierarchy",
    "networkx.algorithms.tournament",
    "graphlib",
)
#: planviz packages whose every function is the library's own algorithm (their public wrappers are the same objects).
PLANVIZ_PACKAGES = (
    "planviz.structure",
    "planviz.analysis",
    "planviz.checks",
    "planviz.runs",
    "planviz.pictures",
)
#: Modules of those packages a student may use: the plan as a networkx graph.
PLUGGED = ("planviz.structure.graph",)

_HOOK = "__planviz_unplugged_tripwire__"
_LOCK = threading.RLock()
_LIB_DIRS: tuple[str, ...] = ()
_SKIP = (
    "networkx" + os.sep + "utils" + os.sep + "decorators.py",
    "networkx" + os.sep + "utils" + os.sep + "backends.py",
    os.sep + "functools.py",
    os.sep + "contextlib.py",
    "<planviz tripwire>",
    "networkx.utils.decorators.argmap",
)


class LibraryUsed(RuntimeError):
    """Raised inside the student's function when it calls an algorithm the exercise asks to build."""

    def __init__(self, name: str) -> None:
        super().__init__(f"this calls the library's own {name}")
        self.name = name


def _modules(names: tuple[str, ...]) -> Iterator[types.ModuleType]:
    for name in names:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        yield module
        for info in pkgutil.iter_modules(getattr(module, "__path__", []) or []):
            if info.name != "tests" and f"{name}.{info.name}" not in PLUGGED:
                yield from _modules((f"{name}.{info.name}",))


def _public(module: types.ModuleType, name: str) -> str:
    top = module.__name__.split(".")[0]
    package = sys.modules.get(top)
    # planviz's: never a deprecated name, which warns when read
    exported = getattr(package, "__all__", None)
    shown = (
        name in exported if top == "planviz" and exported is not None else hasattr(package, name)
    )
    return f"{top}.{name}" if shown else f"{module.__name__}.{name}"


@functools.lru_cache(maxsize=32)
def library_functions(extra: tuple[str, ...] = (), base: bool = True) -> dict[int, tuple[Any, str]]:
    """id -> (function object, its public name): every function that trips, plus the dotted ``extra`` ones.

    Functions defined in the modules of :data:`NETWORKX_MODULES` and :data:`PLANVIZ_PACKAGES`, their
    classes' methods and property getters, and networkx's dispatchers' original functions (only the
    ``extra`` ones when not ``base``)."""
    out: dict[int, tuple[Any, str]] = {}

    def add(f: Any, label: str) -> None:
        f = getattr(f, "orig_func", f)
        if isinstance(f, types.FunctionType) and id(f) not in out:
            out[id(f)] = (f, label)

    for module in _modules(NETWORKX_MODULES + PLANVIZ_PACKAGES if base else ()):
        if module.__name__ in PLUGGED:
            continue
        for name, value in sorted(vars(module).items()):
            owner = getattr(getattr(value, "orig_func", value), "__module__", None)
            if owner != module.__name__:
                continue
            if isinstance(value, type):
                for attr, member in vars(value).items():
                    member = getattr(member, "fget", getattr(member, "__func__", member))
                    add(member, f"{_public(module, name)}.{attr}")
            else:
                add(value, _public(module, name))
    for dotted in extra:
        module_name, _, attr = dotted.rpartition(".")
        try:
            add(getattr(importlib.import_module(module_name), attr), dotted)
        except (ImportError, AttributeError):
            continue
    return out


@functools.lru_cache(maxsize=4096)
def _trip_code(code: types.CodeType, label: str) -> types.CodeType:
    """A code object that hands the call to the hook, with as many free variables as ``code`` (so it fits)."""
    free = [f"f{i}" for i in range(len(code.co_freevars))]
    body = (
        f"        {', '.join(free)}\n" if free else ""
    ) + f"        return {_HOOK}({label!r}, args, kwargs)\n"
    src = (
        "def outer():\n"
        + "".join(f"    {v} = None\n" for v in free)
        + "    def trip(*args, **kwargs):\n"
        + body
        + "    return trip\n"
    )
    space: dict[str, Any] = {}
    exec(compile(src, "<planviz tripwire>", "exec"), space)  # noqa: S102 - our own fixed text
    trip: types.CodeType = space["outer"]().__code__.replace(co_name=code.co_name)
    if sys.version_info >= (3, 11):  # co_qualname is new in 3.11
        trip = trip.replace(co_qualname=code.co_qualname)
    return trip


def _library_dirs() -> tuple[str, ...]:
    global _LIB_DIRS
    if not _LIB_DIRS:
        import networkx

        # planviz/, this file's grandparent
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        _LIB_DIRS = (os.path.dirname(str(networkx.__file__)) + os.sep, package + os.sep)
    return _LIB_DIRS


def _called_by_library(frame: types.FrameType | None) -> bool:
    """Whether the first frame that is not call machinery (networkx's dispatch, functools) is the library's own
    code (networkx or planviz, not the teaching checks a student might call)."""
    dirs = _library_dirs()
    while frame is not None and any(s in frame.f_code.co_filename for s in _SKIP):
        frame = frame.f_back
    if frame is None:
        return False
    name = frame.f_code.co_filename
    return name.startswith(dirs) and (os.sep + "teaching" + os.sep) not in name


class _Session:
    def __init__(self, originals: dict[str, Any]) -> None:
        self.originals = originals
        self.tripped: list[str] = []

    def __call__(self, label: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if _called_by_library(sys._getframe(2)):
            return self.originals[label](*args, **kwargs)
        self.tripped.append(label)
        raise LibraryUsed(label)


@contextmanager
def unplugged(
    extra: tuple[str, ...] = (), allowed: tuple[str, ...] = (), base: bool = True
) -> Iterator[_Session]:
    """While inside, the library's graph algorithms (and the dotted ``extra`` ones) trip unless ``allowed``.

    Yields the session; its ``tripped`` lists what the student's code reached, even when the student's code
    caught the :class:`LibraryUsed` it raised.
    """
    keep = set()
    for dotted in allowed:
        module_name, _, attr = dotted.rpartition(".")
        try:
            f = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError):
            continue
        keep.add(id(getattr(f, "orig_func", f)))
    targets = [
        (f, label)
        for key, (f, label) in library_functions(tuple(extra), base).items()
        if key not in keep
    ]
    with _LOCK:
        originals, swapped = {}, []
        for f, label in targets:
            if label in originals:
                label = f"{label} ({f.__module__})"
            clone = types.FunctionType(
                f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__
            )
            clone.__kwdefaults__ = f.__kwdefaults__
            originals[label] = clone
            swapped.append((f, f.__code__, label))
        session = _Session(originals)
        previous = getattr(builtins, _HOOK, None)
        setattr(builtins, _HOOK, session)
        try:
            for f, code, label in swapped:
                f.__code__ = _trip_code(code, label)
            yield session
        finally:
            for f, code, _ in swapped:
                f.__code__ = code
            if previous is None:
                delattr(builtins, _HOOK)
            else:
                setattr(builtins, _HOOK, previous)
