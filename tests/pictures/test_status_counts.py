"""A group's status counts: a frame that voids, keeps and leaves out nothing counts its members' statuses at once;
the same text as keying each member (the oracle)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from planviz.pictures.grouping import counts_text, member_key, status_counts

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
