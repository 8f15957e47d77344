"""The content of a step: which work it is, whatever its id.

Two steps are the same work when their action, tool, arguments, required facts
and produced facts agree (seed 000: completed ids belong to completed work;
materially different work needs a new id). The action is compared folded
(:func:`folded_action`): case, spacing, punctuation and the step's own tool
name written into it do not make other work. The id, the dependencies, the
duration and the words around the work (evidence, check, kind) are not part
of it. A placeholder ``{{X.field}}`` in an argument stands for the result of
the work ``X`` is, so renaming ``X`` (or re-issuing it as ``X.v2``) does not
change the content of the steps that use it. The order of ``requires`` and
``produces`` carries no meaning.

The one home of this rule: the identity rule of revisions
(:func:`planviz.changed_completed`), :func:`planviz.redundant_work`,
``metrics(run).duplicate_steps`` and faults that follow the same work across
revisions all ask it.

>>> from planviz import Plan, Step
>>> a = Plan("g", [Step("S1", "look up", produces="x"), Step("S2", "use", arguments={"v": "{{S1.x}}"})])
>>> b = Plan("g", [Step("P", "use", arguments={"v": "{{L.x}}"}), Step("L", "look up", produces="x")])
>>> same_work(a, "S2", b, "P"), same_work(a, "S1", b, "P")
(True, False)
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any

from planviz.plan.model import Plan, Step
from planviz.plan.placeholder import placeholders_in, rename_placeholders, split_reference

__all__ = ["work_keys", "same_work", "work_key", "folded_action"]

_NOT_WORD = re.compile(r"[\W_]+")


def folded_action(action: str, tool: str | None = None) -> str:
    """``action`` as identity compares it: lower case, punctuation and spacing folded to single spaces, and the
    step's ``tool`` name (as written or with spaces for its underscores) left out as a word sequence.

    >>> folded_action("  Patch the KEY builder!! (edit_file)", "edit_file") == folded_action("patch the key builder")
    True
    >>> folded_action("patch the key builder") == folded_action("patch the lock builder")
    False
    """
    words = _NOT_WORD.sub(" ", action.casefold()).split()
    if tool:
        name = _NOT_WORD.sub(" ", tool.casefold()).split()
        n = len(name)
        if n:
            kept, i = [], 0
            while i < len(words):
                if words[i : i + n] == name:
                    i += n
                    continue
                kept.append(words[i])
                i += 1
            words = kept
    return " ".join(words)


def _refs(step: Step, ids: Any) -> list[str]:
    """The steps ``step``'s placeholders name (not itself), sorted."""
    if not step.arguments:
        return []
    found = {
        ref[0]
        for _, p in placeholders_in(step.arguments)
        if (ref := split_reference(p.inner, ids)) is not None and ref[0] != step.id
    }
    return sorted(found)


def _digest(step: Step, arguments: Any) -> str:
    text = json.dumps(
        [
            folded_action(step.action, step.tool),
            step.tool,
            arguments,
            sorted(set(step.requires)),
            sorted(set(step.produces)),
        ],
        sort_keys=True,
        ensure_ascii=False,
        default=repr,
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def work_key(step: Step) -> str:
    """The content of one step taken alone (its placeholders as written): equal keys, the same work.

    >>> work_key(Step("A", "build", produces=["y", "x"])) == work_key(Step("B", "build", produces=["x", "y"]))
    True
    """
    return _digest(step, step.arguments)


def work_keys(plan: Plan, ids: Iterable[str] | None = None) -> dict[str, str]:
    """Step id -> the content key of that step in ``plan`` (of ``ids`` only, when given, and what they name).

    A placeholder naming another step of the plan stands for that step's key, so the keys do not change
    when steps are renamed, reordered or re-issued. A placeholder cycle (an invalid plan) keeps the id
    as written.
    """
    by_id = plan.by_id
    keys: dict[str, str] = {}
    wanted = list(by_id) if ids is None else [i for i in ids if i in by_id]
    for root in wanted:
        if root in keys:
            continue
        stack, open_ = [root], {root}
        # depth first without recursion: a long chain of placeholders must not overflow
        while stack:
            sid = stack[-1]
            step = by_id[sid]
            refs = _refs(step, by_id)
            todo = [r for r in refs if r not in keys and r not in open_]
            if todo:
                stack.append(todo[0])
                open_.add(todo[0])
                continue
            stack.pop()
            open_.discard(sid)
            named = {r: f"#{keys[r]}" for r in refs if r in keys}
            keys[sid] = _digest(
                step, rename_placeholders(step.arguments, named, by_id) if named else step.arguments
            )
    return keys if ids is None else {i: keys[i] for i in wanted}


def same_work(a: Plan, a_id: str, b: Plan, b_id: str) -> bool:
    """Whether step ``a_id`` of plan ``a`` and step ``b_id`` of plan ``b`` are the same work."""
    return work_keys(a, [a_id]).get(a_id) == work_keys(b, [b_id]).get(b_id) is not None
