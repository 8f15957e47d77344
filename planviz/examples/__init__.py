"""Example plans shipped with planviz, each showing one idea.

>>> from planviz import examples
>>> "cache_isolation" in examples.names()
True
>>> examples.load("cache_isolation").goal.startswith("Tenants")
True
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from ..errors import PlanvizError

__all__ = ["names", "load", "path"]

_SUFFIXES = (".yaml", ".json")


def names() -> list[str]:
    """The names of the bundled examples, sorted."""
    return sorted(p.stem for p in _folder().iterdir() if p.suffix in _SUFFIXES)


def path(name: str) -> Path:
    """The file of one bundled example."""
    for suffix in _SUFFIXES:
        candidate = _folder() / f"{name}{suffix}"
        if candidate.is_file():
            return candidate
    raise PlanvizError(f"no example named {name!r}; choose one of {', '.join(names())}")


def load(name: str):
    """Load a bundled example as a :class:`planviz.Plan` (its contract, if any, is ``plan.contract``)."""
    from ..io import load_plan

    return load_plan(path(name))


def _folder() -> Path:
    return Path(str(resources.files(__name__)))
