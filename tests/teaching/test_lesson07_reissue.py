"""Notebook 07's build-it: the planner's re-issue, against planviz.reissue on random plans and failures."""

from __future__ import annotations

from dataclasses import replace

import pytest

import planviz
from planviz.teaching.agreement import FRESH
from planviz.teaching.lesson07 import check_reissue


def _renamed(old, voided, suffix=None):
    version = old.version + 1
    return {
        s.id: f"{s.id}.v{version if suffix is None else suffix}"
        for s in old.steps
        if s.id in voided
    }


def right(old, voided):
    new = _renamed(old, voided)
    steps = [
        replace(
            s,
            id=new.get(s.id, s.id),
            revises=s.id if s.id in new else s.revises,
            depends_on=tuple(new.get(d, d) for d in s.depends_on),
        )
        for s in old.steps
    ]
    return old.replace(
        steps=steps, version=old.version + 1, parent=old, invalidated=tuple(sorted(voided))
    )


def right_steps_only(old, voided):
    return list(right(old, voided).steps)


def right_reversed(old, voided):
    return tuple(reversed(right(old, voided).steps))


def deps_not_renamed(old, voided):
    new = _renamed(old, voided)
    return old.replace(
        steps=[
            replace(s, id=new.get(s.id, s.id), revises=s.id if s.id in new else None)
            for s in old.steps
        ]
    )


def no_revises(old, voided):
    return old.replace(steps=[replace(s, revises=None) for s in right(old, voided).steps])


def same_version_suffix(old, voided):
    new = _renamed(old, voided, suffix=old.version)
    return old.replace(
        steps=[
            replace(
                s,
                id=new.get(s.id, s.id),
                revises=s.id if s.id in new else None,
                depends_on=tuple(new.get(d, d) for d in s.depends_on),
            )
            for s in old.steps
        ]
    )


def everything_reissued(old, voided):
    return right(old, set(old.ids))


def old_steps_kept_too(old, voided):
    return old.replace(
        steps=list(old.steps) + [s for s in right(old, voided).steps if s.id not in old.ids]
    )


def voided_dropped(old, voided):
    return (
        old.replace(steps=[s for s in old.steps if s.id not in voided])
        if len(voided) < len(old.ids)
        else old
    )


def the_library(old, voided):
    return planviz.reissue(old, voided, "by hand")


def _helper(old, voided):
    return getattr(planviz, "reis" + "sue")(old, voided, "hidden")


def the_library_through_a_helper(old, voided):
    return _helper(old, voided)


def returns_ids(old, voided):
    return sorted(right(old, voided).ids)


def returns_nothing(old, voided):
    right(old, voided)


def raises(old, voided):
    raise KeyError("S9")


@pytest.mark.parametrize("fn", [right, right_steps_only, right_reversed])
def test_right_in_any_form(fn):
    feedback = check_reissue(fn)
    assert feedback, str(feedback)
    # the 200 seeded plans, then FRESH drawn for the call
    assert f"all {200 + FRESH} questions" in feedback.message


@pytest.mark.parametrize(
    "fn, says",
    [
        (deps_not_renamed, "yours has"),
        (no_revises, "yours has"),
        (same_version_suffix, "missing"),
        (everything_reissued, "missing"),
        (old_steps_kept_too, "extra"),
        (voided_dropped, "missing"),
        (the_library, "calls planviz.reissue"),
        (the_library_through_a_helper, "calls planviz.reissue"),
        (returns_ids, "not all Steps"),
        (returns_nothing, "returned None"),
        (raises, "raised KeyError"),
        (right(planviz.examples.load("cache_isolation"), {"S3"}), "expected a function"),
        (None, "define your function reissue"),
    ],
)
def test_wrong_answers_say_why(fn, says):
    feedback = check_reissue(fn)
    assert not feedback
    assert says in feedback.message and feedback.hint, str(feedback)


def test_the_links_hint_when_the_ids_are_right():
    feedback = check_reissue(deps_not_renamed)
    assert "now the links" in feedback.hint


def test_deterministic():
    """The same verdict on the same question every time; only the names a call draws for its plans differ."""
    first, second = check_reissue(deps_not_renamed), check_reissue(deps_not_renamed)
    assert (first.passed, first.hint) == (second.passed, second.hint)
    assert first.message.split(", on this plan")[0] == second.message.split(", on this plan")[0]
    assert first.message.startswith("the first disagreement is question ")
