"""Completion predicates: whether a step's ``check`` names something that could be observed after it.

A check is vacuous when, once the words that say nothing about the world are dropped (stopwords, words
that only mean "it ran": ran, done, applied, succeeded..., and the action's own words, compared by a
simple stem), nothing remains. A word that reads a measurement or a test ("passes", "above", "compiles",
a number) keeps a check alive even when the action says it too: "tests pass" after "run the tests" is a
predicate.

>>> vacuous("Patch applied.", "Patch the key builder"), vacuous("patched file compiles", "Patch the file")
(True, False)
"""

from __future__ import annotations

import re

__all__ = ["vacuous", "stem", "STOPWORDS", "COMPLETION", "OBSERVABLE"]

#: Words that carry no observation on their own.
STOPWORDS = frozenset("""a an the it its this that these those has have had was were is are be been being
    and or of to for on in at by with as so all now then there here
    successfully fully properly correctly really just already
    task action call tool step job work as expected planned intended""".split())
#: Words that only say the step ran (compared by stem, so "applied" covers "apply" and "applies").
COMPLETION = frozenset("""ran run runs running done complete completed completes completion execute executed
    executes execution finish finished finishes perform performed performs succeed succeeded succeeds success
    successful ok okay apply applied applies accomplished achieved worked works working handled
    went""".split())
#: Words that read a test or a measurement: a check holding one is a predicate even if the action says it too.
OBSERVABLE = frozenset("""pass passes passed passing fail fails failed failing compile compiles compiled above
    below under over exceed exceeds exceeded equal equals contain contains contained return returns returned
    exist exists present absent missing match matches matched hold holds greater less least most zero empty
    remain remains""".split())

_SUFFIXES = ("ing", "ers", "ed", "es", "er", "e", "s")


def stem(word: str) -> str:
    """A crude stem of ``word``, enough to see that "purged" and "Purge" are one word: endings are cut while
    at least three letters remain, and "ss" stays ("passes" and "pass" are both "pass").

    >>> [stem(w) for w in ("purged", "Purge", "patches", "applied", "apply", "passes", "pass", "stopped")]
    ['purg', 'purg', 'patch', 'appli', 'appli', 'pass', 'pass', 'stop']
    """
    word = word.lower()
    cut = True
    while cut:
        cut = False
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not (suffix == "s" and word[-2] == "s"):
                word, cut = word[:-len(suffix)], True
                break
        if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "slfz":  # stopp(ed) -> stop
            word, cut = word[:-1], True
    return word[:-1] + "i" if len(word) > 3 and word.endswith("y") else word  # apply, applied -> appli


_DONE = frozenset(map(stem, COMPLETION))
_SEEN = frozenset(map(stem, OBSERVABLE))


_WORD = re.compile(r"[^\W_]+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def vacuous(check: str, action: str, *, step_id: str | None = None) -> bool:
    """Whether ``check`` says nothing that could be observed: after dropping stopwords, words that only mean
    the step ran ("ran", "done", "applied", "succeeded", ...) and the action's own words (and its id),
    nothing remains. A word that reads a test or a measurement ("passes", "above", "compiles") or a number
    is never dropped. An empty check is not vacuous (it is missing: ``no_check``).

    Parameters
    ----------
    check : str
        The step's completion predicate, in words.
    action : str
        The step's action; its words restated are no predicate.
    step_id : str, optional
        The step's id; "S3 done" says no more than "done".

    Returns
    -------
    bool
        True when the check only restates that the step ran.

    Examples
    --------
    >>> vacuous("done: patch the key builder", "Patch the key builder", step_id="S3")
    True
    >>> vacuous("purged", "Purge the leaked entries"), vacuous("S3 done", "patch", step_id="S3")
    (True, True)
    >>> vacuous("the isolation test passes", "Run the isolation test"), vacuous("hit rate above 0.9", "x")
    (False, False)
    >>> vacuous("", "patch")
    False
    """
    words = _words(check)
    if not words:
        return bool(check.strip())
    sid = step_id or ""
    low_id = sid.lower()
    named: set[str] | None = None  # the id's words, made only when a word could be one (a substring of the id)
    acted = None  # the action's stems, made only when a word needs them (most checks end at their first word)
    for word in words:
        if word in low_id:
            if named is None:
                named = set(_words(sid))
            if word in named:
                continue
        if not word.isalpha() and any(c.isdigit() for c in word):  # letters only: no digit, skip the scan
            return False
        root = stem(word)
        if root in _SEEN:
            return False
        if word in STOPWORDS or root in _DONE:
            continue
        if acted is None:
            acted = {stem(w) for w in _words(action)}
        if root not in acted:
            return False
    return True
