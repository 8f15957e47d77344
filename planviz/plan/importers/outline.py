"""Plain-text outlines: numbered steps with sub-steps, as UltraTool and many planner prompts write them.

An outline is not a plan format planviz reads (it states no dependencies and no
tool calls to check), so it is refused, but with an answer that says what it is
and which formats are close, instead of the YAML parser's complaint about a
colon:

>>> print(refusal("1. Gather materials\\n   1.1 Find a hammer\\n2. Build the shelf\\n").split(" (")[1][:28])
2 numbered steps, 1 sub-step
>>> refusal("goal: g\\nsteps: []") is None
True
"""

from __future__ import annotations

import re

__all__ = ["refusal"]

# at the line's start, unindented
_STEP = re.compile(r"(?:step\s{0,3})?\d{1,3}\s{0,3}[.):]\s*\S", re.IGNORECASE)
_SUB = re.compile(
    r"\s*\d{1,3}(?:\.\d{1,3}){1,4}\.?\s+\S|\s+(?:[-*\u2022+]|\d{1,3}[.)]|[a-z][.)])\s+\S"
)
_MAX_LINES = 2000  # an outline is read from its beginning; the share is judged on these lines


def refusal(text: str) -> str | None:
    """Why the text is refused, when it is a numbered outline (at least two numbered steps, and most lines
    steps or sub-steps); None for anything else."""
    lines = [line for line in text.split("\n", _MAX_LINES)[:_MAX_LINES] if line.strip()]
    steps = sum(1 for line in lines if _STEP.match(line) and not _SUB.match(line))
    subs = sum(1 for line in lines if _SUB.match(line))
    if steps < 2 or steps + subs < 0.6 * len(lines):
        return None
    return (
        f"not a plan format planviz reads: a plain-text outline ({steps} numbered steps, {subs} "
        f"sub-step{'s' if subs != 1 else ''}, as UltraTool and many planner prompts write) states no "
        "dependencies or tool calls to check. Close formats: a planviz plan (YAML or JSON: goal, then steps "
        "with id, action "
        "and depends_on), WorFBench (`Node:` numbered subtasks, then `Edge: (START,1) (1,2) (2,END)`), "
        "LLMCompiler (`1. tool(args)` with `$1` for a result) or ReWOO (`Plan: ...` then "
        "`#E1 = Tool[input]`); rewrite it in one of them"
    )
