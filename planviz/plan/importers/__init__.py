"""Plans that real planners emit: TaskBench/HuggingGPT, LLMCompiler, ReWOO, NESTFUL, WorFBench and T-Eval;
and AsyncHow's how-to plans with their gold durations.

``planviz.parse_plan`` / ``load_plan`` (and the plural forms) call this package: :func:`detect`
names the format of an input, :func:`import_plans` reads every plan in it.
Each format has its own module (``taskbench`` with ``tasklist``, ``llmcompiler``,
``rewoo``, ``nestful``, ``worfbench``, ``teval``, ``asynchow``; ``_build`` is what they share);
all of them turn references between steps
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
``unknown_field``, ``steps_nodes_mismatch``, ``not_from_start``,
``redundant_start_edge``, ``edge_variant`` (info: WorFBench edges written in another layout, all read),
``missing_finish``, ``implied_order``, and
``no_steps`` (an error: the input, read as the format, holds no step).

Each plan records the format it was read from (``Plan.source_format``) and,
when its record has an id, that id (``Plan.name``). :data:`UNSTATED` says
which step fields a format has no place for: validation then reports a
missing ``expected_evidence`` or ``produces`` once per plan, as an info note
about the format, instead of once per step.

>>> text = "Plan: look it up\\n#E1 = Wikipedia[Colorado orogeny]\\nPlan: read it\\n#E2 = LLM[area? #E1]"
>>> detect(text, None)
'rewoo'
>>> [plan] = import_plans("rewoo", text, None, source="<string>")
>>> plan.step("E2").depends_on
('E1',)
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import Any, Mapping

from planviz.errors import PlanFormatError
from planviz.plan.model import Plan

__all__ = ["FORMATS", "UNSTATED", "detect", "import_plans", "format_title", "unstated_fields"]

FORMATS = ("taskbench", "llmcompiler", "rewoo", "nestful", "worfbench", "teval", "asynchow")

_DETECT_ORDER = ("asynchow", "taskbench", "worfbench", "teval", "nestful", "rewoo", "llmcompiler")
# the others' modules say (TITLE)
_TITLES = {
    "taskbench": "TaskBench",
    "llmcompiler": "LLMCompiler",
    "rewoo": "ReWOO",
    "nestful": "NESTFUL",
    "toolcall": "tool-call",
    "planviz": "planviz",
}
# the others' modules say (UNSTATED)
_UNSTATED = {
    # TaskBench and LLMCompiler steps get a stand-in evidence ("the <tool> result") and their result fact,
    # so only steps that could not be read lack them; NESTFUL has no evidence field either.
    "taskbench": ("expected_evidence", "produces"),
    "llmcompiler": ("expected_evidence",),
    "nestful": ("expected_evidence",),
}


def _module(fmt: str) -> ModuleType:
    """A format's module, imported on first use: plans in planviz's own shapes never load one."""
    return import_module(f".{fmt}", __name__)


def __getattr__(name: str) -> Any:
    # every format's modules loaded only when someone asks for the whole table
    if name == "UNSTATED":
        return {fmt: unstated_fields(fmt) for fmt in FORMATS if unstated_fields(fmt)}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


UNSTATED: Mapping[str, tuple[str, ...]]
"""Format -> the step fields it has no place for (``expected_evidence``, ``produces``)."""


def format_title(fmt: str) -> str:
    """How a format is named in messages: ``format_title("worfbench")`` is ``'WorFBench'``."""
    if fmt in _TITLES or fmt not in FORMATS:
        return _TITLES.get(fmt, fmt or "planviz")
    return str(_module(fmt).TITLE)


def unstated_fields(fmt: str) -> tuple[str, ...]:
    """The step fields format ``fmt`` cannot state (empty for planviz files and unknown formats)."""
    if fmt in _UNSTATED or fmt not in FORMATS:
        return _UNSTATED.get(fmt, ())
    return getattr(_module(fmt), "UNSTATED", ())


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
    if isinstance(data, dict) and ("steps" in data or "goal" in data) and "step_deps" not in data:
        return None  # (an AsyncHow record has steps too, and its step_deps)
    return next((fmt for fmt in _DETECT_ORDER if _module(fmt).looks_like(text, data)), None)


def import_plans(
    fmt: str, text: str, data: object | None, *, source: str = "<string>"
) -> list[Plan]:
    """Every plan in the input, read as format ``fmt`` (one of :data:`FORMATS`).

    Defects of the input are findings in each plan's ``import_findings``;
    only an unknown ``fmt`` raises (:class:`~planviz.errors.PlanFormatError`),
    and text no plan can hold: an escape inside the planner's own JSON that
    makes a lone surrogate (``"\\udc00"``), named by step and field.
    An input with no step of the format gives a plan with the error ``no_steps``
    saying what the input looks like instead.

    >>> [plan] = import_plans("rewoo", "just some prose", None)
    >>> plan.steps, [f.code for f in plan.import_findings], plan.source_format
    ((), ['no_steps'], 'rewoo')
    """
    if fmt not in FORMATS:
        raise PlanFormatError(
            f"unknown planner format {fmt!r}; expected one of {', '.join(map(repr, FORMATS))}",
            source=source,
        )
    data = list(data) if isinstance(data, tuple) else data
    from planviz.plan.importers._build import finding

    text = text if isinstance(text, str) else ""
    try:
        plans = _module(fmt).import_plans(text, data, source=source) or [Plan("")]
    except PlanFormatError as exc:
        raise exc.located(source=source) from None
    out = []
    for i, plan in enumerate(plans):
        findings = plan.import_findings
        # else an error already says why
        if not plan.steps and not any(f.severity == "error" for f in findings):
            which = (
                f"plan {i} of the {len(plans)} read from the input"
                if len(plans) > 1
                else "the input"
            )
            findings += (
                finding(
                    "no_steps",
                    "error",
                    f"read as {format_title(fmt)} (format={fmt!r}), {which} holds no step of that "
                    f"format; {_looks(text, data, fmt)}",
                    where="" if len(plans) == 1 else f"plan {i}",
                ),
            )
        out.append(plan.replace(import_findings=findings, source_format=fmt))
    return out


def _looks(text: str, data: object, fmt: str) -> str:
    """What an input looks like, for a no_steps message: another format it reads as, or how it begins."""
    from planviz.plan.importers._build import short

    other = detect(text, data)
    if other is not None and other != fmt:
        return f"it reads as {format_title(other)}: try format={other!r}"
    if isinstance(data, dict) and ("steps" in data or "goal" in data):
        return "it is a planviz plan (goal and steps): read it without format="
    if isinstance(data, dict):
        keys = ", ".join(
            k if isinstance(k, str) and k.isidentifier() else short(k) for k in list(data)[:8]
        )
        return f"it is a mapping with keys {keys}" if data else "it is an empty mapping"
    if isinstance(data, list):
        return f"it is a list of {len(data)} item(s)"
    stripped = text.strip()
    return f"it begins {short(stripped[:60])}" if stripped else "it is empty"
