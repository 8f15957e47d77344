"""Build-it guards: a "build it" exercise is passed by building it, not by calling the library's answer.

Two looks, because either alone can be fooled. :func:`library_calls` reads
the student's function's code (and the code of the functions of the
notebook it calls, and the ones it defines inside) for names bound to a
ready-made algorithm of planviz or networkx: ``nx.ancestors``,
``planviz.reachable``, ``from planviz import invalidated``... And
:func:`forbidden` patches those algorithms to raise while the student's
function runs, which catches a call through a helper the first look missed.
Both are deterministic and say which function was called, kindly.

>>> import networkx as nx
>>> def cheat(plan, sid):
...     return nx.ancestors(plan, sid)
>>> library_calls(cheat, FORBIDDEN["ancestors"])
('networkx.ancestors',)
>>> library_calls(lambda plan, sid: set(plan.step(sid).depends_on), FORBIDDEN["ancestors"])
()
"""

from __future__ import annotations

import dis
import importlib
import types
from contextlib import contextmanager
from typing import Any, Iterator

from planviz.teaching.tripwire import LibraryUsed, unplugged

__all__ = ["FORBIDDEN", "ALLOWED", "library_calls", "forbidden", "LibraryUsed", "used_message"]

#: For each build-it, the ready-made algorithms that answer it: "module.name" of networkx and planviz.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "ancestors": (
        "networkx.ancestors",
        "networkx.descendants",
        "networkx.transitive_closure",
        "networkx.transitive_closure_dag",
        "networkx.dfs_preorder_nodes",
        "networkx.dfs_postorder_nodes",
        "networkx.bfs_tree",
        "networkx.dfs_tree",
        "networkx.has_path",
        "networkx.shortest_path",
        "networkx.descendants_at_distance",
        "networkx.bfs_edges",
        "networkx.dfs_edges",
        "networkx.edge_bfs",
        "networkx.edge_dfs",
        "networkx.all_simple_paths",
        "networkx.shortest_path_length",
        "networkx.single_source_shortest_path",
        "networkx.single_source_shortest_path_length",
        "networkx.bfs_predecessors",
        "networkx.bfs_successors",
        "networkx.dfs_predecessors",
        "networkx.dfs_successors",
        "networkx.bfs_layers",
        "planviz.failure_scope",
        "planviz.why_blocked",
    ),
    "reachable": (
        "planviz.reachable",
        "planviz.invalidated",
        "planviz.failure_scope",
        "planviz.why_blocked",
        "planviz.analysis.reach.reachable",
        "planviz.analysis.reach.invalidated",
    ),
    "topological_order": (
        "networkx.topological_sort",
        "networkx.lexicographical_topological_sort",
        "networkx.all_topological_sorts",
        "networkx.topological_generations",
        "networkx.is_directed_acyclic_graph",
        "networkx.find_cycle",
        "networkx.simple_cycles",
        "networkx.recursive_simple_cycles",
        "networkx.dag_longest_path",
        "networkx.strongly_connected_components",
        "planviz.ready_waves",
        "planviz.ready_timeline",
        "planviz.critical_path",
        "planviz.validate",
        "planviz.prepare",
        "graphlib.TopologicalSorter",
    ),
    # a topological order is an ingredient of the waves (built in 01, allowed in 03's passes too), not the answer
    "ready_waves": (
        "planviz.ready_waves",
        "planviz.ready_timeline",
        "planviz.critical_path",
        "networkx.topological_generations",
        "networkx.dag_longest_path_length",
    ),
    "critical_path": (
        "planviz.critical_path",
        "planviz.ready_timeline",
        "networkx.dag_longest_path",
        "networkx.dag_longest_path_length",
    ),
    "failure_scope": (
        "planviz.failure_scope",
        "planviz.invalidated",
        "planviz.reachable",
        "planviz.simulate",
        "networkx.ancestors",
    ),
    "grade": ("planviz.grade", "planviz.grade_many", "planviz.validate", "planviz.prepare"),
    "replanner": ("planviz.reissue",),
    "invariants": (
        "planviz.runs.engine.revision.changed_invariants",
        "planviz.simulate",
        "planviz.prepare",
        "planviz.validate",
    ),
}

#: What a build-it's text lets the student use although it is a graph algorithm of the library: 03's passes
#: and waves may take a topological order (built in 01); 04's scope may take "everything downstream".
ALLOWED: dict[str, tuple[str, ...]] = {
    "critical_path": ("networkx.topological_sort", "networkx.lexicographical_topological_sort"),
    "ready_waves": ("networkx.topological_sort", "networkx.lexicographical_topological_sort"),
    "failure_scope": ("networkx.descendants",),
}


def _resolve(dotted: str) -> tuple[Any, str, Any] | None:
    module_name, _, attr = dotted.rpartition(".")
    try:
        module = importlib.import_module(module_name)
        return module, attr, getattr(module, attr)
    except (ImportError, AttributeError):
        return None


def _targets(names: tuple[str, ...]) -> dict[int, str]:
    """id(function object) -> its public name, for every forbidden algorithm that exists."""
    out = {}
    for dotted in names:
        found = _resolve(dotted)
        if found is not None:
            out[id(found[2])] = dotted.replace("planviz.analysis.reach.", "planviz.")
    return out


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def library_calls(fn: Any, names: tuple[str, ...], depth: int = 3) -> tuple[str, ...]:
    """The forbidden algorithms (of ``names``) that ``fn`` refers to, directly or through functions it calls.

    Reads the names in ``fn``'s code and nested code, looks each up in its
    globals and closure: a forbidden function itself, or a module (``nx``,
    ``planviz``) with a forbidden attribute named in the same code.
    Functions of the same namespace that ``fn`` refers to are read too, up to
    ``depth`` calls deep. Sorted; empty when nothing was found.
    """
    targets = _targets(names)
    found: set[str] = set()
    seen: set[int] = set()

    def visit(f: Any, level: int) -> None:
        f = getattr(f, "__func__", f)
        code = getattr(f, "__code__", None)
        if code is None or id(f) in seen or level > depth:
            return
        seen.add(id(f))
        scope = dict(getattr(f, "__globals__", {}) or {})
        for cell_name, cell in zip(code.co_freevars, getattr(f, "__closure__", None) or ()):
            try:
                scope[cell_name] = cell.cell_contents
            except ValueError:
                continue
        codes = list(_code_objects(code))
        names_used = {n for c in codes for n in c.co_names + c.co_freevars}
        for c in codes:
            for dotted_value in _attribute_chains(c, scope):
                if id(dotted_value) in targets:
                    found.add(targets[id(dotted_value)])
                elif _checking(dotted_value):
                    found.add(f"{dotted_value.__module__}.{dotted_value.__name__}")
        for name in sorted(names_used):
            value = scope.get(name)
            if value is None:
                continue
            if id(value) in targets:
                found.add(targets[id(value)])
            elif _checking(value):
                found.add(f"{value.__module__}.{value.__name__}")
            elif isinstance(value, (types.FunctionType, types.MethodType)) and not _library(value):
                visit(value, level + 1)

    visit(fn, 0)
    return tuple(sorted(found))


def _attribute_chains(code: types.CodeType, scope: dict[str, Any]) -> Iterator[Any]:
    """The values of ``module.name`` (and ``module.sub.name``) the code reads, for the modules in ``scope``:
    only attributes read from a module, so ``run.plan.invalidated`` is never taken for ``planviz.invalidated``."""
    current: Any = None
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_FAST", "LOAD_CLOSURE"):
            value = scope.get(str(ins.argval)) if ins.opname != "LOAD_FAST" else None
            current = value if isinstance(value, types.ModuleType) else None
        elif ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and current is not None:
            value = getattr(current, str(ins.argval), None)
            yield value
            current = value if isinstance(value, types.ModuleType) else None
        elif ins.opname not in ("CACHE", "EXTENDED_ARG", "PRECALL", "PUSH_NULL"):
            current = None


def _checking(f: Any) -> bool:
    """A function of the checks themselves (their oracles answer every build-it): never part of an answer."""
    return isinstance(f, types.FunctionType) and (getattr(f, "__module__", "") or "").startswith(
        "planviz.teaching"
    )


def _library(f: Any) -> bool:
    module = getattr(f, "__module__", "") or ""
    return module.split(".")[0] in ("networkx", "planviz")


@contextmanager
def forbidden(
    names: tuple[str, ...], allowed: tuple[str, ...] = (), *, base: bool = True
) -> Iterator[None]:
    """While inside, the library is unplugged (:func:`~planviz.teaching.tripwire.unplugged`): the graph
    algorithms (with ``base``) and ``names`` trip with :class:`LibraryUsed` when the code run inside calls them,
    by whatever route, except ``allowed``. A trip the code caught still fails: it is raised on the way out."""
    with unplugged(names, allowed, base=base) as session:
        yield
    if session.tripped:
        raise LibraryUsed(session.tripped[0])


def used_message(exercise_name: str, called: tuple[str, ...] | str) -> tuple[str, str]:
    """(message, hint) for a build-it answer that calls the library's own answer."""
    called = (called,) if isinstance(called, str) else called
    if all(name.startswith("planviz.teaching.") for name in called):
        message = (
            f"your {exercise_name} calls {', '.join(called)}, the check's own answer to this exercise; "
            "the point is to build it yourself."
        )
    else:
        shown = ", ".join(called)
        message = (
            f"your {exercise_name} calls {shown}: this calls the library's own {shown}, its answer to this "
            "exercise. That is the right tool in real work; here the point is to build it yourself."
        )
    return message, (
        "write it with loops over plan.steps and their depends_on (and facts); planviz.to_graph and "
        "plan.step(id) are fine to use"
    )
