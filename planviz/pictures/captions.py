"""What a picture says besides its shapes: the caption, slack and finding notes, the event lines of a frame.

The caption keeps the plan's ``unknowns`` in view: what the planner says it
cannot determine is part of the hypothesis, so every picture of the plan
shows it.

>>> from planviz import examples
>>> from planviz.analysis.schedule import critical_path
>>> plan = examples.load("cache_isolation")
>>> for line in caption_lines(plan, critical_path(plan), "")[1:]:
...     print(line)
plan v1 · 5 steps · critical path (plan) 29 min: S0 → S1 → S3 → S4 (serial 32 min)
Unknowns: whether other services share the cache key scheme
"""

from __future__ import annotations

import math
from itertools import compress, count, repeat
from operator import attrgetter, eq, not_, sub
from typing import Any, Collection, Iterable, Sequence

from planviz.analysis.schedule import critical_path
from planviz.errors import PlanvizError
from planviz.pictures.escape import escape_label
from planviz.pictures.labels import clip, wrap
from planviz.pictures.style import num
from planviz.plan.model import Finding, Plan, natural_key
from planviz.runs.events import event_messages
from planviz.runs.summary.runsummary import run_summary
from planviz.runs.usage import model_calls

__all__ = [
    "schedule_of",
    "critical_marks",
    "slack_notes",
    "finding_notes",
    "run_notes",
    "caption_lines",
    "event_caption",
    "event_lines",
    "event_lines_of",
    "event_lines_stored",
    "critical_steps",
    "EVENT_LINES",
    "EVENT_WIDTH",
]

EVENT_LINES, EVENT_WIDTH = 2, 80
_PAD = (" ",) * EVENT_LINES  # a caption of fewer lines ends with blank ones
_GRAVITY = {"error": 0, "warning": 1, "info": 2}


def schedule_of(plan: Plan) -> tuple[Any, str]:
    try:
        return critical_path(plan), ""
    except PlanvizError as exc:  # a cycle or an unknown dependency: still draw the plan, say why
        return None, str(exc)


def critical_steps(schedule: Any) -> frozenset[str]:
    """The steps on ``schedule``'s critical path (none without a schedule): the first of :func:`critical_marks`."""
    return frozenset() if schedule is None else frozenset(schedule.critical)


def critical_marks(plan: Plan, schedule: Any) -> tuple[frozenset[str], frozenset[tuple[str, str]]]:
    """The steps on ``schedule``'s critical path and its edges between them (those without slack)."""
    return critical_steps(schedule), critical_edges(plan, schedule)


def critical_edges(
    plan: Plan, schedule: Any, among: Collection[str] | None = None
) -> frozenset[tuple[str, str]]:
    """The edges of ``schedule``'s critical path (between its steps, without slack): the second of
    :func:`critical_marks`; ``among``: only those between these steps (the steps a picture draws: a big plan's
    picture draws a few hundred of them)."""
    if schedule is None:
        return frozenset()
    crit = schedule.critical
    eps = 1e-9 * max(1.0, schedule.makespan)
    if among is None:
        timing = dict(schedule.steps.items())  # looked up in C, twice an edge
        return frozenset(
            (u, s.id)
            for s in plan.steps
            if s.id in crit
            for u in s.depends_on
            if u in crit and abs(timing[u].ef - timing[s.id].es) <= eps
        )
    wanted = among if isinstance(among, (set, frozenset)) else set(among)
    timing = schedule.steps
    return frozenset(
        (u, s.id)
        for s in plan.steps
        if s.id in wanted and s.id in crit
        for u in s.depends_on
        if u in wanted and u in crit and abs(timing[u].ef - timing[s.id].es) <= eps
    )


def slack_notes(
    plan: Plan,
    schedule: Any,
    findings: tuple[Finding, ...] = (),
    ids: Collection[str] | None = None,
) -> tuple[tuple[str, str], ...]:
    """``slack 5 min`` under each step off the critical path: how late it may finish without delaying the goal.

    A step that never reaches the plan's terminal has unbounded slack: its note says it is a dead end,
    unless a finding on it already says so. With ``ids``, the notes of those steps only (the steps drawn).
    """
    if schedule is None:
        return ()
    unit = f" {plan.time_unit}" if plan.time_unit else ""
    flagged = {sid for f in findings if f.code in ("dead_end", "isolated_step") for sid in f.steps}
    wanted = None if ids is None else set(ids)
    timing = (
        schedule.steps.items()
        if wanted is None
        else [(sid, t) for sid, t in schedule.steps.items() if sid in wanted]
    )
    return tuple(
        (
            sid,
            f"slack {num(t.slack)}{unit}"
            if math.isfinite(t.slack)
            else "dead end: never reaches the end",
        )
        for sid, t in sorted(timing, key=lambda item: natural_key(item[0]))
        if t.slack > 0 and (math.isfinite(t.slack) or sid not in flagged)
    )


def run_notes(run: Any, ids: Collection[str] | None = None) -> tuple[tuple[str, str], ...]:
    """Label lines of a run's steps: the model calls that led to each (time, tokens), how long it waited after
    its inputs were ready, the step it could have run beside and the calls whose data it waited for, with the
    reason (:func:`planviz.hindsight`, the run summary's); for a recorded run
    (a simulation's times are the plan's own estimates). With ``ids``, the lines of those steps only (the steps
    drawn: a 50k-step run's picture draws a few hundred)."""
    if not getattr(run, "events", None) or getattr(run, "strategy", None) != "recorded":
        return ()
    wanted = None if ids is None else set(ids)
    unit = f" {run.plan.time_unit}" if run.plan is not None and run.plan.time_unit else ""
    took: dict[str, float] = {}
    tokens: dict[str, int] = {}
    count: dict[str, int] = {}
    unknown: set[str] = set()
    for sid, c in model_calls(run):
        if sid is None:  # led to no step (a final answer): the timeline shows it in its own row
            continue
        if wanted is not None and sid not in wanted:
            continue
        count[sid] = count.get(sid, 0) + 1
        if isinstance(c.get("duration"), (int, float)):
            took[sid] = took.get(sid, 0.0) + c["duration"]
        else:  # one call's time unknown: their sum is unknown too, never the others' alone
            unknown.add(sid)
        tokens[sid] = tokens.get(sid, 0) + sum(
            c[k]
            for k in ("input_tokens", "output_tokens")
            if isinstance(c.get(k), int) and not isinstance(c.get(k), bool)
        )
    h = run_summary(run).hindsight
    beside: dict[str, list[str]] = {}
    for u, v in h.serialized:
        if wanted is None or v in wanted:
            beside.setdefault(v, []).append(u)
    data: dict[str, list[str]] = {}
    for u, v, why in h.data_edges:  # shortest first: a label keeps two lines
        if wanted is not None and v not in wanted:
            continue
        kind, _, detail = why.partition(": ")
        part = detail.split(" in ", 1)[0] if kind == "derived" else ""
        data.setdefault(v, []).append(
            {
                "exact": f"copies {u}",
                "contains": f"holds a value of {u}",
                "derived": f"{part} derived from {u}",
            }.get(kind, f"assumed to need {u}")
        )
    notes = []
    for sid in sorted(
        set(count)
        | set(beside)
        | set(data)
        | {s for s, w in h.waits.items() if w > 0 and (wanted is None or s in wanted)},
        key=natural_key,
    ):
        parts = list(data.get(sid, ()))
        if sid in count:
            parts.append(
                f"{count[sid]} model call{'s' * (count[sid] > 1)}"
                + (
                    ", time unknown"
                    if sid in unknown and sid in took
                    else f" {num(round(took[sid], 3))}{unit}"
                    if sid in took
                    else ""
                )
                + (f", {tokens[sid]} tokens" if tokens.get(sid) else "")
            )
        if sid in beside:
            parts.append(f"could run beside {', '.join(beside[sid])}")
        if h.waits.get(sid, 0) > 0:
            parts.append(f"waited {num(round(h.waits[sid], 3))}{unit}")
        notes.append((sid, "; ".join(parts)))
    return tuple(notes)


def finding_notes(findings: tuple[Finding, ...]) -> tuple[tuple[str, str], ...]:
    """One label line per step with findings (``error: cycle, unmet_requirement``), so a printed picture says why."""
    codes: dict[str, dict[str, None]] = {}
    for f in findings:
        for sid in f.steps:
            codes.setdefault(sid, {})[f"{f.severity}: {f.code}"] = None
    notes = []
    for sid, found in codes.items():
        shown = sorted(found, key=lambda c: (_GRAVITY.get(c.split(":")[0], 3), c))
        notes.append(
            (sid, ", ".join(shown[:2]) + (f" +{len(shown) - 2} more" if len(shown) > 2 else ""))
        )
    return tuple(sorted(notes, key=lambda note: natural_key(note[0])))


def findings_line(findings: tuple[Finding, ...]) -> str:
    """The picture's one line about its findings: how many of each severity, their codes (most frequent first, at
    most three), and where the list is; the findings themselves are outlined on their steps and edges.

    >>> from planviz import Finding
    >>> found = [Finding("deviating_attribute", "import", "warning", "m", (), ())] * 2
    >>> findings_line(tuple(found) + (Finding("dead_end", "structure", "error", "m", ("S1",), ()),))
    '1 error, 2 warnings (deviating_attribute ×2, dead_end), listed in the details'
    """
    counts = [
        (sum(f.severity == sev for f in findings), sev) for sev in ("error", "warning", "info")
    ]
    said = ", ".join(
        f"{n} {'note' if sev == 'info' else sev}{'s' * (n != 1)}"
        for n, sev in counts
        if n or sev != "info"
    )
    codes: dict[str, int] = {}
    for f in findings:
        codes[f.code] = codes.get(f.code, 0) + 1
    ranked = sorted(codes, key=lambda c: (-codes[c], c))
    named = ", ".join(c + (f" ×{codes[c]}" if codes[c] > 1 else "") for c in ranked[:3])
    more = f" +{len(ranked) - 3} more" if len(ranked) > 3 else ""
    return f"{said} ({named}{more}), listed in the details"


def caption_lines(
    plan: Plan, schedule: Any, why_not: str, findings: tuple[Finding, ...] = ()
) -> tuple[str, ...]:
    unit = f" {plan.time_unit}" if plan.time_unit else ""
    head = f"plan v{plan.version} · {len(plan.ids)} steps"
    if schedule is not None:
        path = " → ".join(schedule.path)
        head += (
            f" · critical path (plan) {num(schedule.makespan)}{unit}: {path or '(none)'}"
            f" (serial {num(schedule.serial_time)}{unit})"
        )
    elif why_not:
        head += f" · no critical path: {why_not}"
    lines = [f"Goal: {plan.goal}", head]
    if plan.unknowns:
        lines.append(f"Unknowns: {'; '.join(plan.unknowns)}")
    if findings:
        lines.append(findings_line(findings))
    return tuple(lines)


def event_caption(event: Any, index: int | None, run: Any, plan: Plan) -> str:
    """The whole caption of a run's frame, on one line: event number, clock, what happened, the outcome at the end."""
    unit = f" {plan.time_unit}" if plan.time_unit else ""
    last = len(run.events) - 1
    what = f"{event.kind} {event.step}" if getattr(event, "step", None) else f"{event.kind}"
    text = f"event {index} of {last} · t = {num(float(event.time or 0))}{unit} · {what}: {event.message or ''}"
    outcome = getattr(run, "outcome", None)
    if index == last and outcome and str(outcome) not in text:
        text += f" · outcome: {outcome}"
    return text


def event_lines(event: Any, index: int | None, run: Any, plan: Plan) -> tuple[str, ...]:
    """:func:`event_caption` wrapped into the picture's caption lines (escaped, cut with ``…`` when too long)."""
    return tuple(_wrapped(event_caption(event, index, run, plan)))


def event_lines_of(run: Any, first: int, last: int, plan: Plan) -> list[list[str]]:
    """:func:`event_lines` of each of ``run``'s events ``first``..``last`` (of ``plan``), as lists: what the caption
    says of every event is worked out once, not per event (a report captions each of a run's events).

    >>> from planviz import examples, simulate
    >>> run = simulate(examples.load("cache_isolation"))
    >>> event_lines_of(run, 0, 11, run.plan) == [list(event_lines(e, e.index, run, run.plan)) for e in run.events]
    True
    """
    events = run.events
    end = len(events) - 1
    stop = min(last, end - 1) + 1  # the last event (the outcome at the end) is captioned apart
    texts = _texts(run, count(first), plan, _columns(run, first, stop, plan))
    # _wrapped's first case, read here: plain text of one line, or two cut at a space; whether all are plain (the
    # usual case) is one check of them joined by "|", printable, where a text's space at an end shows as " |" or "| "
    # (found: each is checked alone)
    joined = "|".join(texts)
    pad = _PAD[1]
    if _plain(joined) and " |" not in joined and "| " not in joined:
        out = [[text, pad] if len(text) <= EVENT_WIDTH else _cut(text) for text in texts]
    else:
        out = [
            ([text, pad] if len(text) <= EVENT_WIDTH else _cut(text))
            if _plain(text)
            else _wrapped(text)
            for text in texts
        ]
    if first <= end <= last:
        out.append(_wrapped(event_caption(events[end], end, run, plan)))
    return out


def _columns(
    run: Any, first: int, stop: int, plan: Plan
) -> tuple[list[Any], list[str], list[Any], list[str]]:
    """The columns the caption texts of ``run``'s events ``first``..``stop - 1`` are made of: the times as the
    events hold them, as written (by ``"{:g}"``, as str writes inf and nan), what happened and the messages the
    report's log shares."""
    chosen = run.events[first:stop]
    held = list(map(_TIME, chosen))
    times = list(map(_G, [float(t or 0) for t in held]))
    whats = [
        f"{kind} {step}" if step else kind
        for kind, step in zip(map(_KIND, chosen), map(_STEP, chosen))
    ]
    return held, times, whats, event_messages(run)[first:stop]


def _texts(run: Any, numbers: Iterable[int], plan: Plan, columns: Sequence[list[Any]]) -> list[str]:
    """The one-line caption texts of ``run``'s events ``numbers`` (none the last), from their columns
    (:func:`_columns`), a column at a time."""
    _, times, whats, messages = columns
    unit = f" {plan.time_unit}" if plan.time_unit else ""
    of_end = f" of {len(run.events) - 1} · t = "
    return [
        f"event {i}{of_end}{t}{unit} · {what}: {message}"
        for i, t, what, message in zip(numbers, times, whats, messages)
    ]


def _kept(
    run: Any,
    first: int,
    plan: Plan,
    columns: Sequence[list[Any]],
    ok: list[bool] | None,
    texts: list[str] | None = None,
) -> tuple[list[list[str]], list[int]]:
    """The lines of the events whose lines the rule does not give (``ok``: False; None: it gives every one) and of
    those whose time is ``-0`` (the caption writes no sign, its time ``or 0``, the log row does), and the events
    left to the page's script; the texts made here for the events kept when not given."""
    held, times = columns[0], columns[1]
    if "0" in times:
        zeros = compress(count(), map(eq, times, repeat("0")))
        signed = [
            k for k in zeros if isinstance(held[k], float) and math.copysign(1.0, held[k]) < 0
        ]
        if signed:
            ok = ok or [True] * len(times)
            for k in signed:
                ok[k] = False
    if ok is None:
        return [], list(range(first, first + len(times)))
    kept = list(compress(count(), map(not_, ok)))
    if texts is None:
        texts = _texts(
            run, [first + k for k in kept], plan, [[c[k] for k in kept] for c in columns]
        )
    else:
        texts = [texts[k] for k in kept]
    return list(map(_wrapped, texts)), [first + k for k in compress(count(), ok)]


def _fit_by_lengths(
    end: int, first: int, plan: Plan, times: list[str], whats: list[str], messages: list[str]
) -> bool:
    """Whether every text of these columns is plain and the simple rule cuts it as :func:`_cut` does, proven from
    the columns alone, without the texts (False: not proven, the texts decide). A text is its head (up to the
    ``": "`` before the message, at most ``P`` characters) and the message. While ``P <= EVENT_WIDTH + 1``, the
    text's last space within the first ``EVENT_WIDTH + 1`` characters is at or after the message's last within
    its first ``EVENT_WIDTH + 1 - P`` (else the one before the message), so the rule holds when the longest text
    is at most ``2 * EVENT_WIDTH`` characters and each message's length less that space's place (-1: none) is at
    most ``EVENT_WIDTH + 1``: the second line is no longer than that."""
    unit = plan.time_unit or ""
    if EVENT_LINES != 2 or not messages or not (_plain(unit) and "" not in messages):
        return False
    # plain: each column's items checked joined, where an item's space at an end shows as " |" or "| " (the
    # constant parts are plain; a time as "{:g}" writes it has no space)
    for column in (whats, messages):
        try:
            joined = "|".join(column)
        except TypeError:  # a kind that is no str: the texts decide
            return False
        if not _plain(joined) or " |" in joined or "| " in joined:
            return False
    longest_head = (
        len(f"event {first + len(messages) - 1} of {end} · t = {' ' * bool(unit)}{unit} · : ")
        + max(map(len, times))
        + max(map(len, whats))
    )
    if longest_head > EVENT_WIDTH + 1:
        return False
    sizes = list(map(len, messages))
    spaces = map(
        str.rfind, messages, repeat(" "), repeat(0), repeat(EVENT_WIDTH + 1 - longest_head)
    )
    longest: int = max(sizes) + longest_head
    rest: int = max(map(sub, sizes, spaces))
    return longest <= 2 * EVENT_WIDTH and rest <= EVENT_WIDTH + 1


def event_lines_stored(
    run: Any, first: int, last: int, plan: Plan
) -> tuple[list[list[str]], list[int]]:
    """:func:`event_lines_of`, but only for the events whose lines the page's script cannot compose from the
    event's log row: those lines in order, and the events left to the script (ascending).

    The script (``js/runview.js``, ``eventLines``) writes the caption's text from the log row (the time as
    ``"{:g}"`` writes it, kind, step, message) and the page's unit, and cuts it by the *simple rule*: a text of at
    most :data:`EVENT_WIDTH` characters is the first line, the rest blank; a longer one is cut at its last space
    within the first ``EVENT_WIDTH + 1`` characters. That gives :func:`event_lines` exactly when the text is plain
    (:func:`_plain`: what escape_label leaves as it is; ASCII and middle dots, so its length in UTF-16 units, a
    browser's, is its length) and it fits one line, or :func:`_cut` cuts it in two at that space (two lines, at
    most ``2 * EVENT_WIDTH`` characters, the second at most ``EVENT_WIDTH``). Every other event keeps its lines
    here: a text escape_label changes (control characters, runs of spaces, non-ASCII, an empty message's
    trailing space), one wrapped and clipped with ``…``, a time of ``-0`` (its log row writes the sign, its
    caption not), every event of a range where some kind or step is no str (a log row writes ``str()`` of it, a
    caption formats it), and the run's last event (its caption may add the outcome). The plan's unit must be the page's
    (the caller's to check). Decided by checks over all texts at once (joined, lengths, the cuts' places), with a
    pass per event only where one fails.

    >>> from planviz import examples, simulate
    >>> run = simulate(examples.load("cache_isolation"))
    >>> lines, composed = event_lines_stored(run, 0, 11, run.plan)
    >>> composed == list(range(11)), lines == [list(event_lines(run.events[11], 11, run, run.plan))]
    (True, True)
    """
    events = run.events
    end = len(events) - 1
    stop = min(last, end - 1) + 1
    columns = _columns(run, first, stop, plan)
    ok: list[bool] | None = None  # None: the rule gives every event's lines
    texts = None
    chosen = events[first:stop]
    if not (
        {*map(type, map(_KIND, chosen))} <= _STR and {*map(type, map(_STEP, chosen))} <= _STEPS
    ):  # a kind or step that is no str: its log row writes str() of it, the caption formats it
        ok = [False] * len(chosen)
    elif not _fit_by_lengths(end, first, plan, *columns[1:]):  # not proven: the texts decide
        texts = _texts(run, count(first), plan, columns)
        ok = _rule_fits(texts)
    lines, composed = _kept(run, first, plan, columns, ok, texts)
    if first <= end <= last:
        lines.append(_wrapped(event_caption(events[end], end, run, plan)))
    return lines, composed


def _rule_fits(texts: list[str]) -> list[bool] | None:
    """Whether the simple rule gives each text's lines (None: every one's)."""
    joined = "|".join(texts)
    plain: list[bool] | None = None  # None: all plain (the usual case)
    if not (_plain(joined) and " |" not in joined and "| " not in joined):
        plain = list(map(_plain, texts))
    lengths = list(map(len, texts))
    cuts = list(map(str.rfind, texts, repeat(" "), repeat(0), repeat(EVENT_WIDTH + 1)))
    two = EVENT_LINES == 2
    # a text within one line fits whatever its cut; a longer one fits when cut in two lines at that space
    fits = (
        plain is None
        and max(lengths, default=0) <= (2 * EVENT_WIDTH if two else EVENT_WIDTH)
        and min(cuts, default=1) > 0
        and max(map(sub, lengths, cuts), default=0) <= EVENT_WIDTH + 1
    )
    ok = (
        None
        if fits
        else [
            (plain is None or plain[k])
            and (
                n <= EVENT_WIDTH
                or (two and n <= 2 * EVENT_WIDTH and cut > 0 and n - cut <= EVENT_WIDTH + 1)
            )
            for k, (n, cut) in enumerate(zip(lengths, cuts))
        ]
    )
    return ok


_G = "{:g}".format
_STR, _STEPS = {str}, {str, type(None)}
_TIME, _KIND, _STEP = attrgetter("time"), attrgetter("kind"), attrgetter("step")


def _cut(text: str) -> list[str]:
    """Plain text longer than a line (:func:`_plain`) as the caption's lines: its words are separated by single
    spaces, so two lines are the text cut at a space (as many words as fit on the first) when it is not cut and
    the rest fits; else it is wrapped and clipped with ``…``."""
    cut = text.rfind(" ", 0, EVENT_WIDTH + 1)
    if (
        EVENT_LINES == 2
        and len(text) <= EVENT_LINES * EVENT_WIDTH
        and 0 < cut
        and len(text) - cut - 1 <= EVENT_WIDTH
    ):
        return [text[:cut], text[cut + 1 :]]
    lines = wrap(clip(text, EVENT_LINES * EVENT_WIDTH), EVENT_WIDTH, EVENT_LINES)
    return [*lines, *_PAD[len(lines) :]]


def _plain(text: str) -> bool:
    """Whether ``text`` is what :func:`escape_label` leaves as it is but for its cut and wrap (a 100k-event report:
    nearly every caption): printable ASCII and the caption's middle dots, no two spaces
    running (a few C passes instead of a search).

    >>> [_plain(t) for t in ("a · b", "a  b", " a", "a\\tb", "a\\x7fb", "é", "")]
    [True, False, False, False, False, False, True]
    """
    return (
        "  " not in text
        and (text.isascii() or text.replace("\u00b7", "").isascii())
        and text.isprintable()
        and text[:1] != " "
        and text[-1:] != " "
    )


def _wrapped(text: str) -> list[str]:
    """A caption's text wrapped into the picture's caption lines (escaped, cut with ``…`` when too long)."""
    if _plain(text):
        # escape_label's whitespace, control character and NFC passes change nothing in such text
        return [text, *_PAD[1:]] if len(text) <= EVENT_WIDTH else _cut(text)
    lines = escape_label(
        text,
        limit=EVENT_LINES * EVENT_WIDTH,
        width=EVENT_WIDTH,
        max_lines=EVENT_LINES,
        target="text",
    ).split("\n")
    return [*lines, *_PAD[len(lines) :]]
