"""A check that restates that the step ran is no check (``vacuous_check``), whole or in part; a predicate that
names something observable is never vacuous. Behaviour through ``validate``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from planviz import Plan, Step, validate
from planviz.checks.predicate import COMPLETION, OBSERVABLE, STOPWORDS, stem


def severity(check: str, action: str, *, writes: bool = True, sid: str = "S3") -> str | None:
    step = Step(
        sid,
        action,
        expected_evidence="e",
        produces="x",
        check=check,
        resources=["f"] if writes else (),
    )
    found = [f for f in validate(Plan("g", [step])).findings if f.code == "vacuous_check"]
    return found[0].severity if found else None


@pytest.mark.parametrize(
    "check, action",
    [
        ("Patch applied.", "Patch the key builder"),  # the action's word plus "applied"
        # the action restated after "done"
        (
            "done: patch the key builder",
            "Patch the key builder",
        ),
        ("purged", "Purge the leaked entries"),  # the action's verb, another form
        ("Purged the leaked entry successfully", "Purge the leaked entries"),
        ("the key builder was patched", "Patch the key builder"),
        ("Patches applied to the key builder", "Patch the key builder"),
        ("S3 done", "Patch the key builder"),  # its own id says no more
        ("S3: OK", "Patch the key builder"),
        ("the task has been performed", "Patch the key builder"),
        ("ran", "anything"),
        ("Completed successfully.", "anything"),
        ("executed", "anything"),
        ("work finished as planned", "anything"),
        ("it worked", "anything"),
        ("Succeeded!", "anything"),
        ("...", "anything"),  # no word at all
    ],
)
def test_a_check_that_restates_the_step_in_part_is_vacuous(check, action):
    assert severity(check, action) == "error"
    assert severity(check, action, writes=False) == "warning"


@pytest.mark.parametrize(
    "check, action",
    [
        # the action's words, and an observation
        (
            "the isolation test passes",
            "Run the isolation test",
        ),
        ("patched file compiles", "Patch the file"),
        ("hit rate above 0.9", "Measure the hit rate"),
        ("tests pass", "Run the tests"),
        ("no leaked entry remains", "Purge the leaked entries"),
        # words the action does not say
        (
            "the key includes the tenant id",
            "Patch the key builder",
        ),
        ("the patched key builder compiles", "Patch the key builder"),
        ("S4 returns 200", "Call the health endpoint"),  # another step's id, a number
        ("", "Patch the key builder"),  # missing is no_check, not vacuous
    ],
)
def test_a_predicate_is_never_vacuous(check, action):
    assert severity(check, action) is None
    assert severity(check, action, writes=False) is None


def test_the_finding_names_the_step_the_check_and_the_fix():
    step = Step(
        "S3",
        "Patch the key builder",
        expected_evidence="e",
        produces="x",
        check="Patch applied.",
        resources=["keys.py"],
    )
    [f] = [f for f in validate(Plan("g", [step])).findings if f.code == "vacuous_check"]
    assert (f.steps, f.severity) == (("S3",), "error")
    assert "'Patch applied.'" in f.message and "rewrite S3.check" in f.message


_SEEN = {stem(w) for w in OBSERVABLE}
_WORD = st.from_regex(r"[a-z]{3,9}", fullmatch=True).filter(
    lambda w: not {stem(w), stem(w + "ed")} & _SEEN
)
_FILL = st.sampled_from(sorted((STOPWORDS | COMPLETION) - OBSERVABLE))


@settings(max_examples=60, deadline=None)
@given(st.lists(_WORD, min_size=1, max_size=6), st.data())
def test_any_mix_of_the_action_and_completion_words_is_vacuous(action_words, data):
    action = " ".join(action_words)
    pool = st.one_of(
        st.sampled_from(action_words),
        st.sampled_from(action_words).map(str.upper),
        st.sampled_from(action_words).map(lambda w: w + "ed"),
        _FILL,
    )
    check = " ".join(data.draw(st.lists(pool, min_size=1, max_size=8))) + "."
    assert severity(check, action) == "error", (check, action)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_WORD, min_size=1, max_size=6),
    st.lists(_FILL, max_size=5),
    st.sampled_from(sorted(OBSERVABLE)) | st.integers(0, 999).map(str),
)
def test_an_observation_keeps_any_check_a_predicate(action_words, filler, seen):
    action = " ".join(action_words)
    check = " ".join([*action_words, *filler, seen])
    assert severity(check, action) is None, (check, action)
