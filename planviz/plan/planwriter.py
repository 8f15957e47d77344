"""Writing a plan: ``dump_plan`` gives YAML or JSON text that :func:`~planviz.load_plan` reads back equal.

>>> from planviz import Plan, Step, parse_plan
>>> plan = Plan("g", [Step("A", "do it", expected_evidence="done")])
>>> parse_plan(dump_plan(plan)) == plan
True
"""

from __future__ import annotations

import functools
import json
import os

from planviz.errors import PlanFormatError, expect_type, show_value
from planviz.io.syntax import FLOAT_PATTERN
from planviz.plan.arguments import expect_plan
from planviz.plan.model import Plan
from planviz.plan.records import plan_to_dict

__all__ = ["dump_plan"]


def dump_plan(
    plan: Plan, path: str | os.PathLike[str] | None = None, format: str | None = None
) -> str:
    """The plan as YAML (default) or JSON text, written to ``path`` too when given.

    ``format`` is ``"yaml"`` or ``"json"``; when None, a ``path`` ending in
    ``.json`` means JSON. Keys come in a stable, readable order and fields at
    their default are left out; loading the text gives back an equal plan,
    contract included (``parent``, ``import_findings``, ``source_format`` and ``name`` are not written).

    Parameters
    ----------
    plan : Plan
        The plan (any version).
    path : str or os.PathLike, optional
        Also write the text there (whole or not at all; a missing folder is made).
    format : {'yaml', 'json'}, optional
        None: JSON when ``path`` ends in ``.json``, else YAML.

    Returns
    -------
    str
        The plan's text; :func:`load_plan` reads it back to an equal plan.

    Raises
    ------
    PlanFormatError
        When ``format`` is not a choice.
    PlanvizTypeError
        When ``plan`` is not a :class:`Plan` (a path: load it first with :func:`load_plan`).

    Examples
    --------
    >>> from planviz import Step
    >>> print(dump_plan(Plan("g", [Step("012", "ask", expected_evidence="yes")])), end="")
    goal: g
    steps:
    - id: '012'
      action: ask
      expected_evidence: 'yes'
    """
    plan = expect_plan(plan, "dump_plan")
    if path is not None:
        expect_type(
            path,
            (str, os.PathLike),
            "dump_plan",
            "path",
            "a file path (a str or a pathlib.Path) or None",
        )
    if format is not None:
        expect_type(format, str, "dump_plan", "format", "'yaml', 'json' or None")
    if format is None:
        format = "json" if path is not None and str(path).lower().endswith(".json") else "yaml"
    data = plan_to_dict(plan)
    if format == "json":
        text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    elif format == "yaml":
        import yaml

        text = yaml.dump(
            data,
            Dumper=_dumper(),
            sort_keys=False,
            allow_unicode=True,
            default_flow_style=False,
            width=100,
        )
    else:
        raise PlanFormatError(
            f"unknown dump format {show_value(format)}: expected 'yaml' or 'json'"
        )
    if path is not None:
        from planviz.io.output import (
            write_output,  # reading plans never needs the writer (nor its random names)
        )

        write_output(path, text)
    return text


@functools.cache
def _dumper() -> type:
    """The YAML dumper: quotes every string planviz's loader would read as a non-string (``1e3``), besides YAML 1.1's.

    Made on first use, so reading plans (JSON ones above all) never imports PyYAML's writer.
    """
    import yaml

    class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
        pass

    _Dumper.add_implicit_resolver("tag:yaml.org,2002:float", FLOAT_PATTERN, list("-+.0123456789"))
    return _Dumper
