"""Provenance: which earlier call's result a call's arguments came from, and why planviz thinks so.

:func:`data_edges` reads a run and returns ``(earlier, later, reason)``
triples: call ``later`` depends on call ``earlier`` when a **distinctive part**
of ``later``'s arguments first appears in ``earlier``'s recorded result
(``Observation.data["result"]``) and ``earlier`` had ended when ``later``
started. Distinctive parts of an argument value are:

- the whole value (a string of 3 characters or more, or a number);
- quoted phrases, numbers of 2 digits or more (a year, a part of a date),
  identifiers (a token holding a digit, ``_``, ``.``, ``/``, ``@``, ``-`` or an
  inner capital) and words of 4 letters or more;

and a part that appears in the **known text** (the user's task, the system
prompt and the tool definitions, when the run records them: today the plan's
goal and the tool names) is not distinctive: a value the task gives is
independent of every call. Parts are matched case-insensitively, on token
boundaries (``Rome`` is not in ``Romeo``).

Each edge says why (the reasons the schedule of :func:`planviz.hindsight`
reads; the first in this order wins for a pair):

- ``unknown: assumed``: the reader cannot tell, so the call depends (this
  understates the gain, never overstates it): the later call records no
  argument and no required fact (every dependency it has stands; in another
  tool's trace that records none, every call that had ended when it
  started: listed as the frontier of those, see :func:`data_edges`), or, in
  another tool's trace, an argument part is found in no recorded result and no
  known text while the earlier call's result was not recorded;
- ``derived: '2025' in '2025-06-11T...'``: a part of the argument lies inside a
  result value (a year out of a timestamp): a model call must take it out;
- ``contains``: the argument holds a whole result value inside a longer
  string (a placeholder inside a string carries it);
- ``exact``: the argument is a whole result value, or a fact or placeholder
  the plan declares (``requires``, ``{{S1.field}}``).

>>> from planviz import Plan, Step, Recorder
>>> plan = Plan("What year is it in Paris?", [Step("now", "now", expected_evidence="e", arguments={"tz": "Paris"}),
...     Step("save", "save", expected_evidence="e", depends_on="now", arguments={"text": "2025"})])
>>> rec = Recorder(clock=iter(range(9)).__next__)
>>> _ = rec.propose(plan), rec.start("now"), rec.complete("now", result={"datetime": "2025-06-11T08:43:13"})
>>> _ = rec.start("save"), rec.complete("save"), rec.stop("plan_complete")
>>> data_edges(rec.run)
(('now', 'save', "derived: '2025' in '2025-06-11T08:43:13'"),)
"""

from __future__ import annotations

import bisect
import functools
import itertools
import operator
import re
from collections import defaultdict
from typing import Callable, Mapping

from planviz.plan.model import Step
from planviz.plan.placeholder import placeholders_in, split_reference
from planviz.runs.events import Run
from planviz.runs.hindsight.callrecords import (
    _values,
    ended_before,
    intervals,
    latest_steps,
    run_result_leaves,
)

__all__ = [
    "data_edges",
    "distinctive_parts",
    "known_words",
    "REASONS",
]

#: The reasons an edge may give, the costliest first (the first that applies to a pair wins).
REASONS = ("unknown", "derived", "contains", "exact")

_QUOTED = re.compile(r"\"([^\"\n]{3,200})\"|'([^'\n]{3,200})'|“([^”\n]{3,200})”")
_TOKEN = re.compile(r"[A-Za-z0-9_]+(?:[./@:-][A-Za-z0-9_]+)*")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_WORD = re.compile(r"[A-Za-z0-9]+")
_SHOWN = 32  # characters of a result value a reason shows


def known_words(run: Run) -> frozenset[str]:
    """The words (lower-cased, split at every non-alphanumeric character) of the text every call could read: the
    user's task (each plan version's goal) and the tool definitions the run records (the tool names)."""
    words: set[str] = set()
    # each text once: a run of 50k calls names a dozen tools
    texts = {p.goal for p in run.plans} | {s.tool or "" for p in run.plans for s in p.steps}
    for text in texts:
        words.update(w.lower() for w in _WORD.findall(text or ""))
    return frozenset(words)


def _distinctive(part: str) -> bool:
    if _NUMBER.fullmatch(part):
        return len(part) >= 2
    if part.isalpha():
        return len(part) >= 4
    # an identifier: it holds a digit, _, ., /, @, :, - or mixes letters and digits
    return len(part) >= 2


def distinctive_parts(value: str, known: frozenset[str] = frozenset()) -> list[str]:
    """The parts of one argument value that could only have come from somewhere (see the module), in order,
    without those whose every word is known.

    >>> distinctive_parts('write "the year" 2025 to out_1.txt for Paris', frozenset({"paris", "write"}))
    ['the year', 'year', '2025', 'out_1.txt']
    """
    return list(_parts(value, known))


@functools.lru_cache(maxsize=8192)
def _parts(value: str, known: frozenset[str]) -> tuple[str, ...]:
    out: list[str] = []
    seen: set[str] = set()
    if value.isascii() and value.replace(" ", "").isalnum():
        # ASCII letters and digits between spaces (a query, a number): no quote, each token is what split gives,
        # one word each (the isalnum case below)
        for token in value.split():
            if (
                token not in seen
                and token.lower() not in known
                and len(token) >= (4 if token.isalpha() else 2)
            ):
                seen.add(token)
                out.append(token)
        return tuple(out)
    # the candidates in order (quoted phrases, then each token and its words), each kept once
    if '"' in value or "'" in value or "“" in value:
        for m in _QUOTED.finditer(value):
            _consider(next(g for g in m.groups() if g), known, seen, out)
    for token in _TOKEN.findall(value):
        if token.isalnum():
            # a token of letters and digits (ASCII: _TOKEN's) is its one word, no sub-parts (the common case,
            # _consider inline)
            if (
                token not in seen
                and token.lower() not in known
                and len(token) >= (4 if token.isalpha() else 2)
            ):
                seen.add(token)
                out.append(token)
            continue
        _consider(token, known, seen, out)
        if not _NUMBER.fullmatch(token):
            for p in _WORD.findall(token):
                if p != token:
                    _consider(p, known, seen, out)
    return tuple(out)


def _consider(p: str, known: frozenset[str], seen: set[str], out: list[str]) -> None:
    """Add ``p`` to ``out`` (and ``seen``) when it is distinctive and new (see :func:`distinctive_parts`)."""
    if p in seen:
        return
    if p.isascii() and p.isalnum():  # one word: _WORD finds it whole
        if p.lower() in known:
            return
        # a number (all digits) of 2 or more, a word of 4 letters or more, a mix of 2 or more
        if len(p) < (4 if p.isalpha() else 2):
            return
    else:
        words = [w.lower() for w in _WORD.findall(p)]
        if not words or all(w in known for w in words) or not (" " in p or _distinctive(p)):
            return
    seen.add(p)
    out.append(p)


def _alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _found(part: str, text: str) -> bool:
    """Whether ``part`` is in ``text`` on token boundaries (no ASCII letter or digit on either side), ignoring
    case."""
    p, t = part.lower(), text.lower()
    i = t.find(p)
    while i >= 0:
        j = i + len(p)
        if (i == 0 or not _alnum(t[i - 1]) or not _alnum(p[0])) and (
            j == len(t) or not _alnum(t[j]) or not _alnum(p[-1])
        ):
            return True
        i = t.find(p, i + 1)
    return False


def _shown(text: str) -> str:
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


class _Source:
    """What :func:`_why_one` reads of one result, read once: its values, the distinctive whole ones (with their
    stripped text; worked out when first read: a value found whole does not need them) and the set of every
    value's stripped text."""

    __slots__ = ("values", "_whole", "stripped", "_known", "_parts_of")

    def __init__(
        self,
        leaves: list[tuple[tuple[str, ...], str]],
        known: frozenset[str],
        parts_of: Callable[[str, frozenset[str]], list[str] | tuple[str, ...]],
    ) -> None:
        self.values = [leaf for path, leaf in leaves if path or len(leaves) == 1]
        self.stripped = {leaf.strip() for leaf in self.values}
        self._whole: list[tuple[str, str]] | None = None
        self._known, self._parts_of = known, parts_of

    @property
    def whole(self) -> list[tuple[str, str]]:
        """The distinctive whole values, each with its stripped text."""
        if self._whole is None:
            known, parts_of = self._known, self._parts_of
            self._whole = [
                (leaf, leaf.strip())
                for leaf in self.values
                if leaf.strip() and _distinctive_whole(leaf, known, parts_of)
            ]
        return self._whole


def _why_one(
    arg: str,
    source: _Source,
    known: frozenset[str],
    parts_of: Callable[[str, frozenset[str]], list[str] | tuple[str, ...]],
) -> str | None:
    """How the argument value ``arg`` came from the result ``source``: the costliest reason, or None ("exact" when
    it is a distinctive whole value; else the first part found inside a value, "derived"; else "contains" when a
    distinctive whole value lies inside it)."""
    a = arg.strip()
    if a in source.stripped and _distinctive_whole(arg, known, parts_of):
        return "exact"
    inner = [leaf for leaf, stripped in source.whole if len(stripped) < len(a) and stripped in arg]
    covered = " ".join(inner)
    values = source.values
    for part in parts_of(arg, known):
        if covered and _found(part, covered):
            continue
        for leaf in values:
            if _found(part, leaf):
                return f"derived: {part!r} in {_shown(leaf)!r}"
    return "contains" if inner else None


def _distinctive_whole(
    value: str,
    known: frozenset[str],
    parts_of: Callable[[str, frozenset[str]], list[str] | tuple[str, ...]] = _parts,
) -> bool:
    v = value.strip()
    if not v:
        return False
    return bool(parts_of(v, known)) and (len(v) >= 3 or _NUMBER.fullmatch(v) is not None)


_INF = float("inf")


def data_edges(
    run: Run,
    times: Mapping[str, tuple[float, float]] | None = None,
    steps: Mapping[str, Step] | None = None,
    *,
    every: bool = False,
    leaves: Mapping[str, list[tuple[tuple[str, ...], str]]] | None = None,
) -> tuple[tuple[str, str, str], ...]:
    """The data edges of ``run``: ``(earlier, later, reason)`` sorted (see the module for the rules).

    ``times`` maps each call that ran to its (first start, last end) and ``steps`` each id to its latest
    definition (:func:`planviz.hindsight` passes both; read from the run when left out).

    A call assumed to depend on every call that had ended when it started (``unknown: assumed`` in another
    tool's trace) lists only its **frontier**: the earlier calls no other such call between them and it
    already waits for (a ReAct turn: the previous model call and tool call). The rest reach it through those,
    so every wait, every earliest start and the ideal schedule are the same, in time linear in the run rather
    than quadratic. ``every=True`` lists every assumed edge (what each such call depends on, spelled out).
    ``leaves`` is :func:`run_result_leaves` of the run, when the caller has it already.
    """
    times = intervals(run) if times is None else times
    defs = latest_steps(run) if steps is None else steps
    known = known_words(run)
    # the calls whose result was recorded (not None): the keys of the leaves
    results = leaves = run_result_leaves(run) if leaves is None else leaves
    # each fact -> the calls that produce it, in the order they ran; and every id: made when first needed (a
    # call that requires a fact, a placeholder), none in most traces of another tool
    producers: dict[str, list[str]] = {}
    ids: set[str] = set()

    def producers_of(fact: str) -> list[str]:
        if not producers:
            producers[""] = []  # made (a fact is never empty text)
            for sid in times:
                for each in defs[sid].produces if sid in defs else ():
                    producers.setdefault(each, []).append(sid)
        return producers.get(fact, [])

    # by (start, end, id): the key tuples themselves sorted (compared in C, no key call per call)
    # (when the starts rise strictly in the recorded order, that order: time_order's)
    starts = [t[0] for t in times.values()]
    order = (
        list(times)
        if all(map(operator.lt, starts, starts[1:]))
        else [s for _, _, s in sorted([(t[0], t[1], s) for s, t in times.items()])]
    )
    foreign = run.trace_format is not None
    out: dict[tuple[str, str], str] = {}
    into: dict[str, set[str]] = {}

    def add(u: str, v: str, reason: str) -> None:
        old = out.get((u, v))
        if old is None or REASONS.index(reason.split(":")[0]) < REASONS.index(old.split(":")[0]):
            out[(u, v)] = reason
            into.setdefault(v, set()).add(u)

    before = ended_before(times)
    # whether a call's result went unrecorded (read at each call assumed to wait: as a set difference, in C)
    unread = not results.keys() >= times.keys()
    # what assume reads (the ranks, the calls by end, the calls that wait for every call): made at its first call,
    # none in most traces (every call records its arguments and its result)
    kept: list[tuple[dict[str, int], dict[bool, tuple[list[str], list[float]]], set[str]]] = []

    def assumed() -> tuple[dict[str, int], dict[bool, tuple[list[str], list[float]]], set[str]]:
        if not kept:
            rank = {u: i for i, u in enumerate(order)}
            by_end = [
                s for _, _, s in sorted([(t[1], rank[s], s) for s, t in times.items()])
            ]  # by (end, rank)
            late = [u for u in by_end if u not in results]  # calls whose result was not recorded
            pools = {
                True: (by_end, [times[u][1] for u in by_end]),
                False: (late, [times[u][1] for u in late]),
            }
            # a call that waits for every call that had ended when it started (it records no input)
            waits_all = {
                w
                for w in (order if foreign else ())
                if w in defs
                and not defs[w].requires
                and not defs[w].arguments
                and not defs[w].depends_on
            }
            kept.append((rank, pools, waits_all))
        return kept[0]

    def assume(v: str, s_v: float, any_call: bool) -> None:
        """``unknown: assumed`` edges from the calls (``any_call``, else those whose result was not recorded) that
        had ended when ``v`` started: every one (``every``), or the frontier: ``u`` is left out when a call ``w``
        of ``waits_all`` among them, ranked between them, started after ``u`` ended (``u`` reaches ``v`` through
        ``w``, which waits for ``u``; by induction on rank the whole closure is kept). Scans back from the latest
        end, so only the frontier and the calls ending at the cover's start are read."""
        if not any_call and not unread and v not in into:
            return  # no call to wait for, no pair to mark (most calls of a ReAct trace)
        rank, pools, waits_all = assumed()
        pool, ends = pools[any_call]
        if (
            not pool and v not in into
        ):  # no call to wait for, no pair to mark (most calls of a ReAct trace)
            return
        rv, cover = rank[v], None
        for k in range(bisect.bisect_right(ends, s_v) - 1, -1, -1):
            u = pool[k]
            if u == v or not before(u, v):  # ended at the instant v started, but recorded after it
                continue
            if not every and cover is not None and rank[cover] > rank[u] and before(u, cover):
                if ends[k] < times[cover][0]:
                    break  # every call ending sooner started sooner: ranked below the cover, covered too
                continue
            add(u, v, "unknown: assumed")
            if u in waits_all and rank[u] < rv and (cover is None or rank[u] > rank[cover]):
                cover = u
        # a pair already linked for another reason: the assumption is costlier
        for u in sorted(into.get(v, ())):
            if u != v and u in times and before(u, v) and (any_call or u not in results):
                add(u, v, "unknown: assumed")

    # each alphanumeric word of a result -> the calls whose result holds it, in the order they started: a part is
    # on token boundaries in a text only if each of its words is one of the text's words
    holders: dict[str, list[str]] = defaultdict(list)
    findall = _WORD.findall
    # the leaves of each call joined by a newline (no word spans it), every call's text joined by a NUL: lower-cased
    # and split back at once when the whole is ASCII text holding no NUL of its own (only beyond ASCII can
    # lower-casing make a letter ASCII), each text on its own otherwise; the words of each, by regex in C
    second = operator.itemgetter(1)
    texts = ["\n".join(map(second, leaves[u])) if u in leaves else "" for u in order]
    whole = "\0".join(texts)
    if whole.isascii() and whole.count("\0") == len(texts) - 1:
        found_in = list(map(set, map(findall, whole.lower().split("\0"))))
    else:
        found_in = [
            set(findall(t.lower())) if t.isascii() else set(map(str.lower, findall(t)))
            for t in texts
        ]
    words_of = dict(zip(order, found_in))
    for u, found in zip(order, found_in):
        for each in found:
            holders[each].append(u)
    # each word -> the earliest end among the calls whose result holds it
    end_of = {u: t[1] for u, t in times.items()}.__getitem__
    earliest = {w: min(map(end_of, calls)) for w, calls in holders.items()}
    never = itertools.repeat(_INF)  # the end of a word no result holds

    part_words: dict[str, tuple[list[str], bool]] = {}

    def words_in(part: str) -> tuple[list[str], bool]:
        """The words of ``part``, and whether it is one word (then it is on token boundaries wherever the word is
        one of a text's words)."""
        got = part_words.get(part)
        if got is None:
            found = [w.lower() for w in _WORD.findall(part)]
            got = part_words[part] = (found, len(found) == 1 and _WORD.fullmatch(part) is not None)
        return got

    def source_of(part: str, v: str) -> str | None:
        """The first call that had ended when ``v`` started whose result holds ``part``, a part that is not one word
        (the loop below reads one word's holders itself)."""
        words = words_in(part)[0]
        if not words:
            return None
        # the fewest holders of one of its words, each holding every word (a set's superset test, in C) and the
        # part itself on token boundaries
        for u in min([holders.get(w, ()) for w in words], key=len):
            if u != v and before(u, v) and words_of[u].issuperset(words):
                for _, leaf in leaves[u]:
                    if _found(part, leaf):
                        return u
        return None

    # each value's distinctive parts and each source's values, read once per run (a value recurs: a page number)
    memo: dict[str, tuple[str, ...]] = {}
    parse = _parts.__wrapped__

    def parts_of(value: str, known: frozenset[str]) -> tuple[str, ...]:
        got = memo.get(value)
        if got is None:
            got = memo[value] = parse(value, known)
        return got

    sources: dict[str, _Source] = {}
    recorded = {sid: k for k, sid in enumerate(times)}  # ended_before's order, read inline below

    memo_get, holders_get = memo.get, holders.get
    firsts: dict[
        str, float
    ] = {}  # each argument value -> the earliest end of a result holding one of its words
    firsts_get, earliest_get = firsts.get, earliest.get

    def ended(u: str, v: str) -> bool:
        """Whether call ``u`` had ended when ``v`` started."""
        return u != v and u in times and before(u, v)

    str_, int_, float_ = str, int, float
    for v in order:
        step = defs.get(v)
        if step is None:
            continue
        s_v = times[v][0]
        requires, arguments = step.requires, step.arguments
        # a fact the plan declares (in another tool's trace, the reader's own guess: the arguments decide)
        if requires and not (foreign and arguments):
            for fact in requires:
                done = [u for u in producers_of(fact) if ended(u, v)]
                if done:
                    add(max(done, key=lambda u: (times[u][1], u)), v, "exact")
        if not arguments:
            if not requires:  # inputs unknown: every dependency stands
                # the dependencies the reader recorded (a LangGraph node's versions_seen); in another tool's trace
                # that records none, every call that had ended
                if foreign and not step.depends_on:
                    assume(v, s_v, True)
                for u in () if foreign and not step.depends_on else step.depends_on:
                    if ended(u, v):
                        add(u, v, "unknown: assumed")
            continue
        # the arguments' values as text, read once: a placeholder lives in a string holding "{{" (most hold none)
        # _values(arguments), inline for a call's usual arguments (each a string, an int or a float)
        args = []
        for value in arguments.values():
            kind = type(value)
            if kind is str_:
                args.append(value)
            elif kind is int_:
                if -10 < value < 10:
                    continue  # one digit: no distinctive part (a page number), nothing to find
                args.append(str(value))
            elif kind is float_:
                args.append(repr(value))
            else:
                args = _values(arguments)
                break
        for leaf in args:
            if "{{" in leaf:
                for _, ph in placeholders_in(dict(arguments)):
                    if not ids:
                        ids.update(defs)
                        ids.update(times)
                    ref = split_reference(ph.inner, ids)
                    if ref is not None and ended(ref[0], v):
                        add(ref[0], v, "exact")
                args = [leaf for leaf in args if "{{" not in leaf]  # _arguments(step)
                break
        unexplained = False
        r_v = recorded[v]
        for arg in args:
            parts = memo_get(arg)
            if parts is None:
                # a value not split yet: when no word of it is in a result that had ended when v started, no part
                # of it has a source (each part's words are words of the value) and it is left unsplit (its parts
                # are unexplained, read below only when that matters)
                first = firsts_get(arg)
                if first is None:
                    low = (
                        findall(arg.lower()) if arg.isascii() else [w.lower() for w in findall(arg)]
                    )
                    first = firsts[arg] = min(map(earliest_get, low, never), default=_INF)
                if first > s_v:
                    continue
                parts = memo[arg] = parse(arg, known)
            # the sources this value was read against (the same source again gives the same answer, added)
            asked: list[str] | None = None
            for part in parts:
                if (
                    part.isalnum() and part.isascii()
                ):  # one word (the common case): itself, lower-cased
                    word: str | None = part.lower()
                else:
                    words, one_word = part_words.get(part) or words_in(part)
                    word = words[0] if one_word else None
                if (
                    word is not None
                ):  # source_of, inline: the first holder that had ended when v started
                    source = None
                    for u in holders_get(word, ()):
                        e_u = times[u][1]
                        if u != v and (e_u < s_v or (e_u == s_v and recorded[u] < r_v)):
                            source = u
                            break
                else:
                    source = source_of(part, v)
                if source is None:
                    unexplained = True
                    continue
                if asked is None:
                    asked = [source]
                elif source in asked:
                    continue
                else:
                    asked.append(source)
                facts = sources.get(source)
                if facts is None:
                    facts = sources[source] = _Source(leaves[source], known, parts_of)
                reason = _why_one(arg, facts, known, parts_of)
                if reason is not None:
                    add(source, v, reason)
        # (assume returns at once when no result went unrecorded and no pair is linked: most calls)
        if (
            foreign
            and (unread or v in into)
            and (
                unexplained
                or any(firsts_get(arg, -_INF) > s_v and parts_of(arg, known) for arg in args)
            )
        ):
            assume(v, s_v, False)
    return tuple(sorted((u, v, r) for (u, v), r in out.items()))
