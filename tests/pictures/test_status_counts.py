"""A group's status counts and traits, read in C passes over its members: the same as reading each member (the
oracles: the loops they replace)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from planviz import Finding, Plan, Step
from planviz.pictures.grouping import Group, counts_text, member_key, status_counts, traits_of
from planviz.pictures.style import gravest

_IDS = [f"S{i}" for i in range(12)]
_STATUS = st.sampled_from(
    ["pending", "ready", "running", "done", "failed", "invalidated", "blocked", "odd"]
)


def _one_by_one(members, statuses, voided, kept, not_run):
    counts: dict[str, int] = {}
    for s in members:
        key = member_key(s, statuses, voided, kept, not_run)
        counts[key] = counts.get(key, 0) + 1
    return counts_text(counts)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_IDS), max_size=20),
    st.dictionaries(st.sampled_from(_IDS), _STATUS),
    st.sets(st.sampled_from(_IDS), max_size=3) | st.just(set()),
    st.sets(st.sampled_from(_IDS), max_size=3) | st.just(set()),
    st.sets(st.sampled_from(_IDS), max_size=3) | st.just(set()),
)
def test_status_counts_are_each_members_key_counted(members, statuses, voided, kept, not_run):
    sets = frozenset(voided), frozenset(kept), frozenset(not_run)
    assert status_counts(members, statuses, *sets) == _one_by_one(members, statuses, *sets)


def _traits_one_by_one(groups, plan, critical, findings):
    by_step: dict[str, list] = {}
    for f in findings:
        for sid in f.steps:
            by_step.setdefault(sid, []).append(f)
    severity = {sid: gravest(found) for sid, found in by_step.items()}
    out = []
    for g in groups:
        marked = [sid for sid in g.members if sid in plan.by_id]
        out.append(
            (
                bool(marked) and all(sid in critical for sid in marked),
                next(
                    (s for s in ("error", "warning") if any(severity.get(m) == s for m in marked)),
                    None,
                )
                if severity
                else None,
            )
        )
    return out


_PLAN = Plan("g", [Step(sid, "a") for sid in _IDS[:8]])  # S8..S11: members the plan does not hold


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(_IDS), max_size=6), max_size=4),
    st.sets(st.sampled_from(_IDS)),
    st.lists(
        st.tuples(
            st.sampled_from(["error", "warning", "info"]),
            st.lists(st.sampled_from(_IDS), max_size=4),
        ),
        max_size=4,
    ),
)
def test_group_traits_are_each_members_read_one_by_one(members, critical, found):
    groups = tuple(Group(f"g{i}", "summary", tuple(m), "t", "h") for i, m in enumerate(members))
    findings = tuple(Finding("x", "import", sev, "m", tuple(steps), ()) for sev, steps in found)
    crit = frozenset(critical)
    assert traits_of(groups, _PLAN, crit, findings) == _traits_one_by_one(
        groups, _PLAN, crit, findings
    )
