"""Revision lineage: which original step a re-issued step stands for.

A revision re-issues voided work under new ids (``S3`` becomes ``S3.v2``,
then ``S3.v3``), each naming the step it replaces in ``revises``. The
replanner names new ids by their root, the simulator matches faults to a
step's revisions, and the metrics count a redone step once: all of them ask
"what is the root of this id?", answered here.

>>> from planviz.plan.model import Plan, Step
>>> v1 = Plan("g", [Step("S3", "patch")])
>>> v2 = Plan("g", [Step("S3.v2", "patch", revises="S3")], version=2, parent=v1)
>>> v3 = Plan("g", [Step("S3.v3", "patch", revises="S3.v2")], version=3, parent=v2)
>>> lineage_root(v3, "S3.v3"), lineage_roots([v1, v2, v3])["S3.v3"]
('S3', 'S3')
"""

from __future__ import annotations

from collections.abc import Iterable

from planviz.plan.model import Plan

__all__ = ["lineage_root", "lineage_roots", "revised_roots", "versions", "all_ids"]


def versions(plan: Plan) -> list[Plan]:
    """``plan`` and its ancestors through ``parent``, newest first."""
    out, seen = [], set()
    p: Plan | None = plan
    while p is not None and id(p) not in seen:
        seen.add(id(p))
        out.append(p)
        p = p.parent
    return out


def lineage_roots(plans: Iterable[Plan]) -> dict[str, str]:
    """Every step id of ``plans`` mapped to the original id it revises (itself when it revises nothing).

    A ``revises`` chain that loops stops where it would repeat an id.
    """
    plans = list(plans)
    roots = revised_roots(plans)
    return {sid: roots.get(sid, sid) for p in plans for sid in p.ids}


def revised_roots(plans: Iterable[Plan]) -> dict[str, str]:
    """:func:`lineage_roots` without the ids that revise nothing (read it with ``.get(sid, sid)``): one pass over
    the steps, and a table only as big as the revisions (a simulation asks it for every fault and expansion).

    >>> from planviz.plan.model import Step
    >>> v1 = Plan("g", [Step("S1", "a")])
    >>> v2 = Plan("g", [Step("S1.v2", "a", revises="S1")], version=2, parent=v1)
    >>> revised_roots([v2, v1]), lineage_roots([v2, v1])
    ({'S1.v2': 'S1'}, {'S1.v2': 'S1', 'S1': 'S1'})
    """
    revises: dict[str, str] = {}
    for p in plans:
        for s in p.steps:
            if s.revises and s.id != s.revises:
                revises.setdefault(s.id, s.revises)
    return {sid: root for sid in revises if (root := _follow(sid, revises)) != sid}


def lineage_root(plan: Plan, step_id: str) -> str:
    """The original id that ``step_id`` revises, following ``revises`` through ``plan``'s parents."""
    return lineage_roots(versions(plan)).get(step_id, step_id)


def _follow(sid: str, revises: dict[str, str]) -> str:
    seen = {sid}
    while sid in revises and revises[sid] not in seen:
        sid = revises[sid]
        seen.add(sid)
    return sid


def all_ids(plan: Plan) -> set[str]:
    """Every id ``plan`` or an earlier version used (steps and the ids revisions invalidated): taken names."""
    ids: set[str] = set()
    for p in versions(plan):
        ids.update(p.ids)
        ids.update(p.invalidated)
    return ids
