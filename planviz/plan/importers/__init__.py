"""Plans that real planners emit: TaskBench/HuggingGPT, LLMCompiler, ReWOO and NESTFUL.

``planviz.io.load_plan`` / ``load_plans`` call this package: :func:`detect`
names the format of an input, :func:`import_plans` reads every plan in it.
Each format has its own module; all of them turn references between steps
(``<node-k>``, ``<GENERATED>-k``, ``$K``, ``#Ek``, ``$varN.field$``) into
``depends_on`` plus one fact per referenced output (``requires`` on the
reader, ``produces`` on the producer), so validation's ancestor rule and the
pictures show the data flow.

Real outputs are often defective. An importer never silently repairs or
drops: what it could not map faithfully travels with the plan as a
:class:`planviz.Finding` in ``plan.import_findings`` (layer
``import``, ``where`` naming the line or the record and field), and the rest
of the plan still loads. Codes: ``dangling_reference``, ``forward_reference``,
``self_reference``, ``nonstandard_reference``, ``implicit_reference``,
``unresolved_placeholder``, ``empty_argument``, ``one_based_references``, ``dangling_link``, ``self_link``,
``ambiguous_link``, ``link_mismatch``, ``duplicate_link``, ``malformed_link``,
``duplicate_label``, ``missing_label``, ``unparsed_line``, ``invalid_json``,
``malformed_record``, ``malformed_node``, ``malformed_arguments``,
``unknown_field``.

>>> text = "Plan: look it up\\n#E1 = Wikipedia[Colorado orogeny]\\nPlan: read it\\n#E2 = LLM[area? #E1]"
>>> detect(text, None)
'rewoo'
>>> [plan] = import_plans("rewoo", text, None, source="<string>")
>>> plan.step("E2").depends_on
('E1',)
"""

from __future__ import annotations

from ...errors import PlanFormatError
from ..model import Plan
from . import llmcompiler, nestful, rewoo, taskbench

__all__ = ["FORMATS", "detect", "import_plans"]

FORMATS = ("taskbench", "llmcompiler", "rewoo", "nestful")

_MODULES = {"taskbench": taskbench, "llmcompiler": llmcompiler, "rewoo": rewoo, "nestful": nestful}


def detect(text: str, data: object | None) -> str | None:
    """The planner format of an input, or None when it is none of :data:`FORMATS`.

    ``text`` is the input as read; ``data`` the parsed JSON/YAML/JSON Lines
    document, or None when it did not parse (planner text, or a HuggingGPT
    demo that is not valid JSON). Plans in planviz's own shapes are None.

    >>> detect('1. search("Everest")\\n2. join()<END_OF_PLAN>', None)
    'llmcompiler'
    >>> detect("", {"input": "q", "output": [{"name": "f", "arguments": {}, "label": "var1"}]})
    'nestful'
    >>> detect("", {"goal": "g", "steps": []}) is None
    True
    """
    if not isinstance(text, str):
        text = ""
    data = list(data) if isinstance(data, tuple) else data
    if isinstance(data, dict) and ("steps" in data or "goal" in data):
        return None
    if taskbench.looks_like(text, data):
        return "taskbench"
    if nestful.looks_like(text, data):
        return "nestful"
    if rewoo.looks_like(text, data):
        return "rewoo"
    if llmcompiler.looks_like(text, data):
        return "llmcompiler"
    return None


def import_plans(fmt: str, text: str, data: object | None, *, source: str = "<string>") -> list[Plan]:
    """Every plan in the input, read as format ``fmt`` (one of :data:`FORMATS`).

    Defects of the input are findings in each plan's ``import_findings``;
    only an unknown ``fmt`` raises (:class:`~planviz.errors.PlanFormatError`),
    and text no plan can hold: an escape inside the planner's own JSON that
    makes a lone surrogate (``"\\udc00"``), named by step and field.
    """
    module = _MODULES.get(fmt)
    if module is None:
        raise PlanFormatError(f"unknown planner format {fmt!r}; expected one of {', '.join(map(repr, FORMATS))}",
                              source=source)
    data = list(data) if isinstance(data, tuple) else data
    try:
        return module.import_plans(text if isinstance(text, str) else "", data, source=source)
    except PlanFormatError as exc:
        raise exc.located(source=source) from None
