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

from planviz.errors import PlanvizError
from planviz.plan.files import load_plan
from planviz.plan.model import Plan

__all__ = ["names", "load", "path", "traces", "trace", "planner_outputs"]

_SUFFIXES = (".yaml", ".json")


def names() -> list[str]:
    """The names of the bundled examples, sorted.

    >>> {"cache_isolation", "past_due_account"} <= set(names())
    True
    """
    return sorted(p.stem for p in _folder().iterdir() if p.suffix in _SUFFIXES)


def path(name: str) -> Path:
    """The file of one bundled example.

    >>> path("past_due_account").name
    'past_due_account.json'
    >>> path("cache")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    planviz.errors.PlanvizError: no example named 'cache'; choose one of cache_isolation, delete_failing_test, ...
    """
    for suffix in _SUFFIXES:
        candidate = _folder() / f"{name}{suffix}"
        if candidate.is_file():
            return candidate
    raise PlanvizError(f"no example named {name!r}; choose one of {', '.join(names())}")


def load(name: str) -> Plan:
    """Load a bundled example as a :class:`planviz.Plan` (its contract, if any, is ``plan.contract``).

    >>> plan = load("release_no_credentials")
    >>> plan.ids, plan.contract.given_facts
    (('B1', 'T1', 'N1', 'D1'), ('the main branch is green',))
    """
    return load_plan(path(name))


def traces() -> list[str]:
    """The names of the bundled sample traces of real agents (see ``traces/README.md`` for their source and licence).

    >>> traces()
    ['any-agent_LANGCHAIN_trace', 'any-agent_OPENAI_trace', 'langgraph_docs_get_state_history_example']
    """
    return sorted(p.stem for p in (_folder() / "traces").glob("*/*.json"))


def trace(name: str) -> Path:
    """The file of one bundled sample trace, for :func:`planviz.load_trace`.

    >>> trace("any-agent_OPENAI_trace").parent.name
    'otel'
    """
    found = sorted((_folder() / "traces").glob(f"*/{name}.json"))
    if not found:
        raise PlanvizError(f"no sample trace named {name!r}; choose one of {', '.join(traces())}")
    return found[0]


def planner_outputs() -> Path:
    """The bundled sample of real LLM planner outputs: 48 TaskBench records (HuggingGPT format) written by
    CodeLlama-13B and Mistral-7B, unchanged, for :func:`planviz.load_plans` (see ``planner_outputs/README.md``
    for their source and licence).

    >>> from planviz import load_plans
    >>> plans = load_plans(planner_outputs())
    >>> len(plans), plans[0].source_format
    (48, 'taskbench')
    """
    return _folder() / "planner_outputs" / "taskbench_sample.jsonl"


def _folder() -> Path:
    return Path(str(resources.files(__name__)))
