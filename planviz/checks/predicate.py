"""Completion predicates: whether a step's ``check`` states something about the world that could be false.

A check is a predicate when it names an object, a quantity or a state, or compares one: a number, or a
word the action does not say, or the action's own words with a word that reads a test or a measurement
("tests pass" after "run the tests"). Process words say only that the step happened, whatever their
phrasing, and are dropped: the words of :data:`COMPLETION` and :data:`PROCESS` (invoked, returned, ran,
executed, called, sent, done, completed, understood, succeeded, "did not fail", "no errors"...), stopwords,
the generic subjects of :data:`GENERIC` ("the tool", "the command", "it", "I"), the step's id, its tool's
name and the action's own words (by a simple stem). A word that reads a test ("passes", "fails", "above")
needs something it is about: "it did not fail" and "passes" alone are no predicate. And one other word alone
names nothing that could be false when the check speaks of the step (its id or tool, "it", a process word, a
negation, a subjectless "was ..."): "the server responded", "it concluded", "no issues".

>>> vacuous("Patch applied.", "Patch the key builder"), vacuous("patched file compiles", "Patch the file")
(True, False)
>>> vacuous("the tool was invoked", "Purge the cache"), vacuous("it did not fail", "Purge the cache")
(True, True)
>>> vacuous("the server responded", "Deploy"), vacuous("it wrapped up", "Deploy"), vacuous("the server is up", "Deploy")
(True, True, False)
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["vacuous", "stem", "STOPWORDS", "COMPLETION", "OBSERVABLE", "PROCESS", "GENERIC"]

#: Words that carry no observation on their own.
STOPWORDS = frozenset(
    """a an the it its this that these those has have had was were is are be been being
    and or of to for on in at by with as so all now then here
    successfully fully properly correctly really just already
    task action call tool step job work as expected planned intended
    not no never nothing none without any didn doesn don isn wasn hasn haven t did do does got get gets will would
    should could can fine well smoothly normally cleanly""".split()
)
#: Words that only say the step ran (compared by stem, so "applied" covers "apply" and "applies").
COMPLETION = frozenset(
    """ran run runs running done complete completed completes completion execute executed
    executes execution finish finished finishes perform performed performs succeed succeeded succeeds success
    successful ok okay apply applied applies accomplished achieved worked works working handled
    went""".split()
)
#: More process words: the step was invoked, answered, was understood; errors that did not happen.
PROCESS = frozenset(
    """invoke invoked invokes invocation return returned returns returning call called calls
    calling send sent sends sending understand understood understands trigger triggered triggers issue issued
    issues process processed attempt attempted try tried fire fired acknowledge acknowledged note noted
    error errors errored exception exceptions crash crashed problem problems through respond responded
    responds response raise raised raises throw threw thrown throws occur occurred occurs happen happened
    happens exit exited exits complaint complaints complain complained reported""".split()
)
#: Generic subjects: who or what ran, never what holds afterwards.
GENERIC = frozenset(
    """i we me my our you they command commands request requests operation operations script scripts
    everything something anything tools steps calls""".split()
)
#: Words that read a test or a measurement: with something they are about, a check holding one is a predicate.
OBSERVABLE = frozenset(
    """pass passes passed passing fail fails failed failing compile compiles compiled above
    below under over exceed exceeds exceeded equal equals contain contains contained
    exist exists there present absent missing match matches matched hold holds greater less least most zero empty
    remain remains""".split()
)

#: Words that make the step (or its not failing) the check's subject: a check holding one talks about the step.
_SELF = frozenset(
    "it its this task action call tool step job work not no never nothing none without didn doesn don isn "
    "wasn hasn haven".split()
)

#: A check opening on an auxiliary has no subject but the step ("was carried out", "has been finalized").
_AUXILIARY = frozenset("was were is are has have had been got gets did does".split())

#: Adverbial particles: after a verb they make one phrasal verb with it ("carried out", "wrapped up").
_PARTICLES = frozenset("up out back off down away".split())

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
            if (
                word.endswith(suffix)
                and len(word) - len(suffix) >= 3
                and not (suffix == "s" and word[-2] == "s")
            ):
                word, cut = word[: -len(suffix)], True
                break
        if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "slfz":  # stopp(ed) -> stop
            word, cut = word[:-1], True
    # apply, applied -> appli
    return word[:-1] + "i" if len(word) > 3 and word.endswith("y") else word


_DONE = frozenset(map(stem, COMPLETION | PROCESS))
_SEEN = frozenset(map(stem, OBSERVABLE))


_WORD = re.compile(r"[^\W_]+")
_NUMBERED = re.compile(r"([A-Za-z]*)[\W_]*0*(\d+)")


@lru_cache(maxsize=1024)
def _own_id(step_id: str) -> re.Pattern[str]:
    """The step's id as a check may respell it: its number after its letters or a word for a step, with any
    separator ("S-3", "step 3", "#3", "task no. 3" for S3; "step4" for step_4). A pattern matching nothing when
    the id ends in no number."""
    found = _NUMBERED.fullmatch(step_id)
    if found is None:
        return re.compile(r"(?!)")
    letters = "|".join(re.escape(w) for w in {found[1], "step", "task", "item"} if w)
    return re.compile(
        rf"(?<!\w)(?:(?:{letters})(?:[\W_]{{0,3}}(?:no|nr|number)\b)?[\W_]{{0,3}}|#\s?)0*{found[2]}(?!\d)",
        re.IGNORECASE,
    )


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def vacuous(
    check: str, action: str, *, step_id: str | None = None, tool: str | None = None
) -> bool:
    """Whether ``check`` says nothing that could be false after the step: once stopwords, process words
    ("ran", "invoked", "returned", "sent", "understood", "did not fail"...), generic subjects ("the tool",
    "it", "I") and the step's id are dropped, nothing is left but the action's own words and its tool's
    name, with no word that reads a test or a measurement. A number, or a word the action does not say,
    keeps a check alive. An empty check is not vacuous (it is missing: ``no_check``).

    Parameters
    ----------
    check : str
        The step's completion predicate, in words.
    action : str
        The step's action; its words restated are no predicate.
    step_id : str, optional
        The step's id; "S3 done" says no more than "done".
    tool : str, optional
        The step's tool; "purge_cache returned" says no more than "returned".

    Returns
    -------
    bool
        True when the check only says that the step happened.

    Examples
    --------
    >>> vacuous("done: patch the key builder", "Patch the key builder", step_id="S3")
    True
    >>> vacuous("purged", "Purge the leaked entries"), vacuous("S3 done", "patch", step_id="S3")
    (True, True)
    >>> vacuous("purge_cache returned", "Purge the leaked entries", tool="purge_cache")
    True
    >>> vacuous("the isolation test passes", "Run the isolation test"), vacuous("hit rate above 0.9", "x")
    (False, False)
    >>> vacuous("", "patch"), vacuous("it passes", "Run the isolation test")
    (False, True)
    """
    if step_id:
        check = _own_id(step_id).sub(f" {step_id} ", check)
    words = _words(check)
    if not words:
        return bool(check.strip())
    told = len(words)
    if tool:  # the tool's name as a whole (as written or spaced) names the step, never an object
        name = _words(tool)
        n = len(name)
        words = [
            w
            for i, w in enumerate(words)
            if not any(words[j : j + n] == name for j in range(max(0, i - n + 1), i + 1))
        ]
    # the check speaks of the step: its tool, its id, "it", "the call", a process word, a negation
    itself = len(words) < told or (bool(words) and words[0] in _AUXILIARY)
    sid = step_id or ""
    low_id = sid.lower()
    named: set[str] | None = (
        None  # the id's words, made only when a word could be one (a substring of the id)
    )
    acted: set[str] | None = (
        None  # the stems of the action and the tool, made only when a word needs them
    )
    about = seen = False  # an object the action names; a word that reads a test or a measurement
    other: set[str] = (
        set()
    )  # words that are none of these: an object, a state, or a synonym of "done"
    last = ""  # the word before, when it was one of ``other``: a particle after it makes one verb with it
    for word in words:
        after, last = last, ""
        if word in _PARTICLES and after:
            continue  # "carried out", "wrapped up": one phrasal verb
        if word in low_id:
            if named is None:
                named = set(_words(sid))
            if word in named:
                itself = True
                continue
        # letters only: no digit, skip the scan
        if not word.isalpha() and any(c.isdigit() for c in word):
            return False
        if word in STOPWORDS:
            itself = itself or word in _SELF
            continue
        root = stem(word)
        if root in _SEEN:
            seen = True
            continue
        if acted is None:
            acted = {stem(w) for w in _words(action)} | {stem(w) for w in _words(tool or "")}
        if root in acted:
            about = True
        elif root in _DONE or word in GENERIC:
            itself = True
        else:
            other.add(root)
            last = root
    if len(other) > 1 or (other and (about or seen or not itself)):
        return False  # something, and something that holds of it; or a word alone, about the world
    # one word besides the step's own and its process words names a thing with nothing said of it ("the server
    # responded") or says how the step went ("it concluded", "no issues", "the call wrapped up"): no predicate
    return not (about and seen)
