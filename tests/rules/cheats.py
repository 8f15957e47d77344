"""A generator of cheats: families of cheating plans and replanners built from the worked examples (issue 40.7).

Each :class:`Cheat` pairs a cheating case with the honest case it competes with under the same faults: the
honest replanner (:func:`planviz.reissue`) on the same plan, or, for a cheat on the plan itself, the plainly
stated version of the same move (the one a rule already refuses). :func:`gains` says what the cheat won over
the honest run, or None: a better outcome, better metrics for the same outcome, or a completion that is
not true (the final plan does not validate, or a completed id names other work than the work that ran).

Families: ``rename`` (the unfinished work under new ids), ``respell`` (and its action re-spelled: case,
spacing, trailing punctuation, the tool's name added), ``drop_completed`` (a completed step deleted),
``readd_completed`` (a completed id dropped, then brought back naming other work), ``redefine_completed``,
``hollow_redo`` (a completed step "redone" under a new id as other work that produces nothing),
``drop_premises``, ``self_effect`` (``effect="read"`` on a writing tool), ``reregister_tool`` (the writing
tool renamed or registered read-only by the plan), ``vacuous_check`` (a check rephrased in process words);
and, for the frozen-plan test, :func:`silent_executors` (an executor that withholds declared evidence on
steps that list no ``produces``).
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator

from planviz import Contract, Fault, Plan, Step, ToolSpec, examples, metrics, reissue, simulate
from planviz.checks.validation import refusal
from planviz.plan.identity import work_keys

FAMILIES = (
    "rename",
    "respell",
    "drop_completed",
    "readd_completed",
    "redefine_completed",
    "hollow_redo",
    "drop_premises",
    "self_effect",
    "reregister_tool",
    "vacuous_check",
    "duplicate_step",
    "self_evidence",
    "reorder",
)
#: Families of honest variants: they must gain nothing, and lose nothing either (no false refusal).
HONEST = ("reorder",)


@dataclass(frozen=True)
class Case:
    """One run to make: ``simulate(plan, contract, faults, propose=propose)``."""

    plan: Plan
    contract: Contract | None = None
    faults: tuple[Fault, ...] = ()
    propose: Callable[..., Plan] | None = field(default=None, compare=False)

    def run(self):
        return simulate(self.plan, self.contract, self.faults, propose=self.propose)


@dataclass(frozen=True)
class Cheat:
    family: str
    label: str
    cheat: Case
    honest: Case


# ------------------------------------------------------------------ the worked examples, as bases


def _cache() -> Plan:
    return examples.load("cache_isolation")


def _cache_tooled() -> Plan:
    """The cache example with tools on its steps (so a re-spelling can add the tool's name)."""
    tools = {
        "S0": "run_tests",
        "S1": "grep_code",
        "S2": "write_test",
        "S3": "edit_file",
        "S4": "run_tests",
    }
    p = _cache()
    return p.replace(steps=tuple(replace(s, tool=tools[s.id]) for s in p.steps))


def _past_due() -> Plan:
    return examples.load("past_due_account")


#: base name -> (plan maker, the step a side effect is found at)
BASES: dict[str, tuple[Callable[[], Plan], str]] = {
    "cache_isolation": (_cache, "S4"),
    "cache_tooled": (_cache_tooled, "S4"),
    "past_due_account": (_past_due, "step_4"),
}


# ------------------------------------------------------------------ re-spellings


def respell(action: str, tool: str | None, rnd: random.Random) -> str:
    """``action`` re-spelled: case, spacing, trailing space or punctuation, the tool's name added; 1 to 3 of them."""
    moves = [
        "upper",
        "lower",
        "capitalize",
        "trail_space",
        "trail_punct",
        "double_space",
        "lead_space",
    ]
    if tool:
        moves += ["tool_prefix", "tool_suffix", "tool_bracket"]
    text = action
    for move in rnd.sample(moves, rnd.randint(1, 3)):
        if move in ("upper", "lower", "capitalize"):
            text = getattr(text, move)()
        elif move == "trail_space":
            text += " " * rnd.randint(1, 3)
        elif move == "trail_punct":
            text += rnd.choice([".", "!", ";", ":", "...", ",", " ."])
        elif move == "double_space":
            text = text.replace(" ", "  ", rnd.randint(1, 3))
        elif move == "lead_space":
            text = " " + text
        elif move == "tool_prefix":
            text = f"{tool}{rnd.choice([': ', ' - ', ' '])}{text}"
        elif move == "tool_suffix":
            text = f"{text} ({tool})"
        else:
            text = f"[{tool}] {text}"
    if text == action:
        text += "."
    return text


def fresh_id(rnd: random.Random, taken: set[str]) -> str:
    while True:
        new = rnd.choice(["X", "R", "W", "step_", "N"]) + "".join(rnd.choices(string.digits, k=3))
        if new not in taken:
            taken.add(new)
            return new


def _copy_unfinished(plan: Plan, state: Any, rnd: random.Random, spell: bool) -> Plan:
    """The unfinished work of ``plan`` under new ids (re-spelled when ``spell``); completed steps kept."""
    taken = set(plan.ids)
    new = {s.id: fresh_id(rnd, taken) for s in plan.steps if s.id not in state.completed}
    from planviz.plan.placeholder import rename_placeholders

    steps = []
    for s in plan.steps:
        if s.id not in new:
            steps.append(s)
            continue
        steps.append(
            replace(
                s,
                id=new[s.id],
                depends_on=tuple(new.get(d, d) for d in s.depends_on),
                arguments=rename_placeholders(s.arguments, new, plan.by_id),
                action=respell(s.action, s.tool, rnd) if spell else s.action,
            )
        )
    return plan.replace(steps=tuple(steps))


def _unfinished(plan: Plan, state: Any) -> set[str]:
    return {s.id for s in plan.steps if s.id not in state.completed}


def _without(plan: Plan, gone: str) -> Plan:
    return plan.replace(
        steps=tuple(
            replace(s, depends_on=tuple(d for d in s.depends_on if d != gone))
            for s in plan.steps
            if s.id != gone
        )
    )


# ------------------------------------------------------------------ families of cheating replanners


def _replanner_cheats(rnd: random.Random, base: str) -> Iterator[Cheat]:
    make, at = BASES[base]
    plan = make()
    times = rnd.choice([1, 2, 10])
    faults = (Fault(at, "side_effect", times=times),)
    honest = Case(plan, None, faults)
    seed = rnd.randrange(1 << 30)

    for family, spell in (("rename", False), ("respell", True)):

        def propose(goal, contract, state, p, _r=random.Random(seed), _spell=spell):
            return _copy_unfinished(p, state, _r, _spell)

        yield Cheat(family, f"{base} x{times}", Case(plan, None, faults, propose), honest)

    gone = rnd.choice(["first", "last"])

    def drop_completed(goal, contract, state, p, _gone=gone):
        done = [s for s in p.ids if s in state.completed]
        victim = done[0] if _gone == "first" else done[-1]
        return _without(reissue(p, _unfinished(p, state), "cheat"), victim)

    yield Cheat(
        "drop_completed",
        f"{base} x{times} drops the {gone} completed step",
        Case(plan, None, faults, drop_completed),
        honest,
    )

    def hollow_redo(goal, contract, state, p, _r=random.Random(seed)):
        done = [s for s in p.ids if s in state.completed]
        victim = _r.choice(done)
        again = reissue(p, _unfinished(p, state) | {victim}, "cheat")
        return again.replace(
            steps=tuple(
                replace(
                    s,
                    action=respell("Assume it holds", None, _r),
                    produces=(),
                    tool=None,
                    arguments={},
                    duration=0,
                )
                if s.revises == victim
                else s
                for s in again.steps
            )
        )

    yield Cheat(
        "hollow_redo",
        f"{base} x{times}: a completed step redone as nothing",
        Case(plan, None, faults, hollow_redo),
        honest,
    )

    other = rnd.choice(
        [
            "Assume the legacy key builder; do not look",
            "Skip this, it is known",
            "Pretend the earlier work holds",
            "lookup nothing",
        ]
    )
    two = (Fault(at, "side_effect", times=2),)

    def readd(goal, contract, state, p, _other=other, _memo={}):
        done = [s for s in p.ids if s in state.completed]
        if "victim" not in _memo:
            victim = _memo["victim"] = p.step(done[-1])
            return _without(reissue(p, _unfinished(p, state), "cheat"), victim.id)
        victim = _memo["victim"]
        again = reissue(p, _unfinished(p, state), "cheat")
        back = replace(victim, action=_other, tool=None, arguments={})
        needs = set(victim.produces)
        steps = tuple(
            replace(s, depends_on=(*s.depends_on, victim.id))
            if needs & set(s.requires) and victim.id not in s.depends_on
            else s
            for s in again.steps
        )
        return again.replace(steps=(back, *steps))

    yield Cheat(
        "readd_completed",
        f"{base}: a completed id back as {other!r}",
        Case(plan, None, two, readd),
        Case(plan, None, two),
    )

    def redefine(goal, contract, state, p, _other=other):
        again = reissue(p, _unfinished(p, state), "cheat")
        victim = [s for s in p.ids if s in state.completed][-1]
        return again.replace(
            steps=tuple(
                replace(s, action=respell(_other, None, random.Random(seed)))
                if s.id == victim
                else s
                for s in again.steps
            )
        )

    yield Cheat(
        "redefine_completed",
        f"{base}: a completed id redefined",
        Case(plan, None, faults, redefine),
        honest,
    )

    def duplicate(goal, contract, state, p, _r=random.Random(seed)):
        again = reissue(p, _unfinished(p, state), "cheat")
        twin = _r.choice([s for s in again.steps if s.id not in state.completed])
        copy = replace(twin, id=fresh_id(_r, set(again.ids)), revises=None)
        return again.replace(steps=(*again.steps, copy))

    yield Cheat(
        "duplicate_step",
        f"{base} x{times}: an unfinished step duplicated under a new id",
        Case(plan, None, faults, duplicate),
        honest,
    )

    def reorder(goal, contract, state, p, _r=random.Random(seed)):
        again = reissue(p, _unfinished(p, state), "cheat")
        steps = list(again.steps)
        _r.shuffle(steps)
        return again.replace(steps=tuple(steps))

    yield Cheat(
        "reorder",
        f"{base} x{times}: the honest re-issue, steps in another file order",
        Case(plan, None, faults, reorder),
        honest,
    )

    takers = [s for s in plan.steps if s.requires]
    taker = rnd.choice(takers)
    fact = rnd.choice(taker.requires)
    lost = (Fault(taker.id, "withdraw", fact=fact),)

    def self_evidence(goal, contract, state, p, _fact=fact):
        again = reissue(p, _unfinished(p, state), "cheat")
        return again.replace(
            steps=tuple(
                replace(s, produces=(*s.produces, _fact))
                if _fact in s.requires and _fact not in s.produces
                else s
                for s in again.steps
            )
        )

    yield Cheat(
        "self_evidence",
        f"{base}: {fact!r} withdrawn at {taker.id}, its takers claim to make it themselves",
        Case(plan, None, lost, self_evidence),
        Case(plan, None, lost),
    )

    if plan.premises:
        falsify = (
            Fault(at, "side_effect"),
            Fault(at, "premise_false", fact=rnd.choice(plan.premises)),
        )
        keep = rnd.random() < 0.5

        def drop_premises(goal, contract, state, p, _keep=keep):
            again = reissue(p, _unfinished(p, state), "cheat")
            kept = p.premises[:1] if _keep and len(p.premises) > 1 else ()
            return again.replace(premises=kept)

        yield Cheat(
            "drop_premises",
            f"{base}: premises dropped",
            Case(plan, None, falsify, drop_premises),
            Case(plan, None, falsify),
        )


# ------------------------------------------------------------------ families of cheating plans (read-only intent)


def _read_only_cases(rnd: random.Random) -> tuple[str, Plan, Contract, frozenset[str]]:
    """A plan with writing tool steps under a read-only contract: (label, plan, contract, writing step ids)."""
    if rnd.random() < 0.5:
        p = _past_due()
        writers = frozenset({"step_4", "step_5"})
        reads = {"lookup_account", "check_payment_plan_eligibility", "compute_installments"}
        label = "past_due_account"
    else:
        c = _cache()
        purge = Step(
            "P",
            "Purge the cache",
            tool="purge_cache",
            depends_on="S1",
            requires="key_builder_located",
            produces="cache_purged",
            expected_evidence="the cache holds no entry",
            check="no entry of tenant A remains in the cache",
        )
        # S0 and S1 are thoughts here (no tool): they change nothing
        p = Plan(
            c.goal,
            [replace(c.step("S0"), effect="read"), replace(c.step("S1"), effect="read"), purge],
        )
        writers, reads, label = frozenset({"P"}), set(), "cache purge"
    registry = rnd.choice(
        ["none", "reads", "reads_and_writes"] if reads else ["none", "reads_and_writes"]
    )
    tools: dict[str, ToolSpec] = {}
    if registry != "none":
        tools = {t: ToolSpec(effect="read") for t in reads}
    if registry == "reads_and_writes":
        tools.update({p.step(w).tool: ToolSpec(effect="write") for w in writers})
    return f"{label}, registry {registry}", p, Contract(intent="read", tools=tools), writers


def _plan_cheats(rnd: random.Random) -> Iterator[Cheat]:
    label, plan, contract, writers = _read_only_cases(rnd)
    honest = Case(plan, contract)
    marked = plan.replace(
        steps=tuple(replace(s, effect="read") if s.id in writers else s for s in plan.steps)
    )
    yield Cheat("self_effect", label, Case(marked, contract), honest)
    name = rnd.choice(
        [
            "email_payment_plan_offer",
            "notify_customer",
            "deliver_offer",
            "flush_entries",
            "refresh_cache",
            "lookup_and_send",
        ]
    )
    renamed = plan.replace(
        steps=tuple(
            replace(s, tool=f"{name}_{s.id}", effect=rnd.choice([None, "read"]))
            if s.id in writers
            else s
            for s in plan.steps
        )
    )
    own = replace(
        contract,
        tools={**contract.tools, **{f"{name}_{w}": ToolSpec(effect="read") for w in writers}},
    )
    yield Cheat("reregister_tool", f"{label}: renamed {name}", Case(renamed, contract), honest)
    yield Cheat(
        "reregister_tool",
        f"{label}: renamed {name}, registered read by the plan",
        Case(renamed.replace(contract=own), contract),
        honest,
    )


SUBJECTS = (
    "",
    "the tool",
    "the command",
    "the call",
    "the request",
    "it",
    "the step",
    "{tool}",
    "the {tool} call",
    "the operation",
    "the script",
    "the job",
    "I",
    "we",
)
PROCESS = (
    "was invoked",
    "got invoked",
    "returned",
    "has returned",
    "ran",
    "was run",
    "executed",
    "was executed",
    "was called",
    "got called",
    "was sent",
    "is done",
    "has completed",
    "completed",
    "did not fail",
    "didn't fail",
    "never failed",
    "did not error",
    "finished without errors",
    "returned without error",
    "succeeded",
    "worked",
    "has been performed",
    "was triggered",
    "was issued",
    "finished",
    "returned ok",
    "has understood",
    "understood the task",
    "went fine",
    "raised no error",
    "threw no exception",
    "raised no exceptions",
    "exited without complaint",
    "exited cleanly",
    "finished OK",
)


def vacuous_phrasings(tool: str, rnd: random.Random | None = None) -> list[str]:
    """Checks that only say the step ran, generated: subject x process words, then re-spelled by ``rnd``."""
    out = []
    for subject in SUBJECTS:
        for verb in PROCESS:
            text = f"{subject.format(tool=tool)} {verb}".strip()
            out.append(text)
    out += [
        "I have understood",
        "Done.",
        "Sent.",
        f"{tool} returned",
        "no errors",
        "Invoked.",
        "no error was raised",
        "no exception was thrown",
        "no error occurred",
        "no exception happened",
        "no problems were reported",
        "no complaints",
    ]
    out += _more_vacuous(tool)
    if rnd is not None:
        out = [respell(t, None, rnd) if rnd.random() < 0.5 else t for t in out]
    return out


#: Things that run a step, named as nouns the rule does not know: a check saying one of them ran names nothing else.
EXECUTORS = (
    "the server",
    "the API",
    "the endpoint",
    "the program",
    "the function",
    "the agent",
    "the system",
    "the migration",
    "the deploy",
    "the backup",
    "the {tool} invocation",
)
#: Other words for "it ran": synonyms, phrasal verbs, passives, and calques of other languages' usual phrasing
#: ("est terminé", "wurde durchgeführt", "se ha realizado", "è stato effettuato").
SYNONYMS = (
    "concluded",
    "was concluded",
    "was finalized",
    "has been finalized",
    "wrapped up",
    "was carried out",
    "has been carried out",
    "came back",
    "ended normally",
    "terminated normally",
    "is terminated",
    "was realized",
    "has been effectuated",
    "was effectuated",
    "has been performed without problems",
    "went through",
)
#: Negations of trouble: the step did not go wrong, and nothing more.
TROUBLE = ("issues", "failures", "hiccups", "trouble", "complaints", "errors")
NEGATIONS = (
    "no {n}",
    "no {n} at all",
    "without any {n}",
    "{n}: none",
    "it had no {n}",
    "nothing went wrong",
)
#: Adverbials of the process put first ("without errors, the call concluded").
FRONTED = ("successfully", "without errors", "without problems", "smoothly", "as expected")


def _more_vacuous(tool: str) -> list[str]:
    """Phrasings a word list misses, generated: an executor the rule does not know with a process word (one
    that reads no test: "the API did not fail" reads the API like "the tests did not fail"); a generic subject,
    or none, with a synonym of "ran" in any voice; a negation of trouble; a process adverbial put first."""
    from planviz.checks.predicate import OBSERVABLE, stem

    seen = {stem(w) for w in OBSERVABLE}
    quiet = [v for v in PROCESS if not {stem(w) for w in v.split()} & seen]
    out = [f"{e.format(tool=tool)} {v}" for e in EXECUTORS for v in quiet]
    subjects = [x.format(tool=tool) for x in SUBJECTS if x and x not in ("I", "we")]
    out += [f"{x} {v}" for x in subjects for v in SYNONYMS]
    out += [v for v in SYNONYMS if v.split()[0] in ("was", "has", "is")]
    out += sorted({n.format(n=t) for n in NEGATIONS for t in TROUBLE})
    out += [f"{a}, {x} {v}" for a in FRONTED for x in subjects[::3] for v in SYNONYMS[::2]]
    return out


def respell_id(step_id: str) -> list[str]:
    """The ways a check may name its own step, generated: the id's number after its letters or a word for a
    step ("step", "Task", "item", with "no." or not), with a space, a hyphen, a dot, "#" or nothing between."""
    import re

    letters, number = re.fullmatch(r"([A-Za-z]*)[\W_]*(\d+)", step_id).groups()
    out = []
    for word in (letters, "step", "Task", "item", "Step no."):
        for sep in ("", " ", "-", ".", " #", "_"):
            if word:
                out.append(f"{word}{sep}{number}")
    return [*out, f"#{number}", f"# {number}"]


def own_id_vacuous(step_id: str) -> list[str]:
    """Vacuous checks naming their step by a respelled id: each spelling with a process word, before or after."""
    verbs = ("done", "completed", "was executed", "ran without errors", "finished OK")
    return [f"{x} {v}" for x in respell_id(step_id) for v in verbs] + [
        f"done: {x}" for x in respell_id(step_id)
    ]


def open_vacuous(tool: str) -> list[str]:
    """Phrasings the rule still reads as predicates (two words it does not know, with nothing to tell a thing from
    a verb): an executor it does not know with a synonym of "ran"; trouble it does not know negated beside a
    synonym or counted. A word list would close them one by one; the rule needs to tell nouns from verbs."""
    out = [f"{e.format(tool=tool)} {v}" for e in EXECUTORS for v in SYNONYMS]
    out += [f"without {t}, the call {v}" for t in ("hiccups", "failures") for v in SYNONYMS[:4]]
    out += [f"not a single one of the {t}" for t in TROUBLE]
    return out


def _check_cheats(rnd: random.Random) -> Iterator[Cheat]:
    if rnd.random() < 0.5:
        p, sid = _cache_tooled(), "S3"
    else:
        p, sid = _past_due(), "step_4"
        p = p.replace(
            steps=tuple(
                replace(s, resources=("account C-17",)) if s.id == sid else s for s in p.steps
            )
        )
    tool = p.step(sid).tool
    plain = p.replace(steps=tuple(replace(s, check="Done.") if s.id == sid else s for s in p.steps))
    for text in rnd.sample(vacuous_phrasings(tool, rnd), 3):
        cheat = p.replace(
            steps=tuple(replace(s, check=text) if s.id == sid else s for s in p.steps)
        )
        yield Cheat(
            "vacuous_check",
            f"{sid}.check = {text!r}",
            Case(cheat, p.contract),
            Case(plain, p.contract),
        )


def cheats(n: int, seed: int = 40) -> list[Cheat]:
    """``n`` cheats (at least), generated from ``seed``: every family, round after round."""
    rnd = random.Random(seed)
    out: list[Cheat] = []
    while len(out) < n:
        for base in BASES:
            out.extend(_replanner_cheats(rnd, base))
        out.extend(_plan_cheats(rnd))
        out.extend(_check_cheats(rnd))
    return out


# ------------------------------------------------------------------ judging


def false_completion(run, contract: Contract | None) -> str | None:
    """Why a run that says ``plan_complete`` is not complete, or None: its final plan does not validate, or a
    completed id of the final plan names other work than the work that ran under that id."""
    if run.outcome != "plan_complete":
        return None
    final = run.plans[-1]
    why = refusal(final, contract if contract is not None else final.contract)
    if why is not None:
        return f"the final plan v{final.version} is refused: {why.code}"
    redone = {s.revises for p in run.plans for s in p.steps if s.revises}
    gone = sorted(set(run.state.completed) - set(final.ids) - redone)
    if gone:
        return f"the completed {gone[0]!r} is deleted from the final plan"
    ran: dict[str, str] = {}
    by_version = {p.version: p for p in run.plans}
    for e in run.events:
        if e.kind == "complete" and e.step is not None and e.plan_version in by_version:
            ran[e.step] = work_keys(by_version[e.plan_version], [e.step]).get(e.step, "")
    now = work_keys(final)
    for sid, key in now.items():
        if sid in ran and ran[sid] != key:
            return f"{sid!r} counts as done, but the work that ran under that id was other work"
        if sid not in ran:
            return f"{sid!r} counts as done, but it never ran"
    return None


def gains(cheat: Cheat) -> str | None:
    """What the cheat won over the honest run under the same faults, or None."""
    a, b = cheat.cheat.run(), cheat.honest.run()
    contract = cheat.honest.contract
    false = false_completion(a, contract)
    if false is not None:
        return f"outcome {a.outcome} ({false})"
    if a.outcome == "plan_complete" and b.outcome != "plan_complete":
        return f"outcome plan_complete where the honest run ends {b.outcome}"
    if a.outcome == b.outcome and a.outcome is not None:
        ma, mb = metrics(a), metrics(b)
        for name in ("duplicate_steps", "precondition_errors"):
            if getattr(ma, name) < getattr(mb, name):
                return f"{name} {getattr(ma, name)} < {getattr(mb, name)} (outcome {a.outcome})"
    return None


# ------------------------------------------------------------------ the frozen-plan test: a silent executor


def silent_executors(n: int, seed: int = 40) -> list[tuple[str, Plan, tuple[Fault, ...]]]:
    """``n`` frozen-plan cases whose executor withholds the evidence of some steps (``missing_evidence``),
    on plans whose steps may declare no ``produces`` (so nothing but the declared evidence can miss)."""
    rnd = random.Random(seed)
    out = []
    while len(out) < n:
        plan = _cache()
        bare = {s.id for s in plan.steps if rnd.random() < 0.6}
        plan = plan.replace(
            steps=tuple(replace(s, produces=()) if s.id in bare else s for s in plan.steps)
        )
        made = {f for s in plan.steps for f in s.produces}
        plan = plan.replace(
            steps=tuple(
                replace(s, requires=tuple(f for f in s.requires if f in made)) for s in plan.steps
            )
        )
        hit = [
            sid for sid in rnd.sample(list(plan.ids), rnd.randint(1, len(plan.ids))) if sid in bare
        ]
        if hit:
            faults = tuple(Fault(sid, "missing_evidence", times=3) for sid in hit)
            out.append((f"bare {sorted(bare)}, silent on {sorted(hit)}", plan, faults))
    return out


# ------------------------------------------------------------------ the capstone's open exercise (issue 40.6)


def capstone_cheats(n: int, seed: int = 40) -> list[tuple[str, Plan, Contract]]:
    """``n`` read-only answers to notebook 08's exercise 2 that still contact the customer or write: the
    sending (or logging) step kept, its tool renamed to another tool of the account's system or to a name
    the system does not have, its action re-spelled to match, registered read-only by the answer's own
    contract, with or without ``effect="read"`` on the step."""
    from planviz.teaching.lesson08 import TOOLS, WORLD

    rnd = random.Random(seed)
    plan = _past_due()
    acting = sorted(t for t, what in WORLD.items() if what != "read")
    out = []
    while len(out) < n:
        sid = rnd.choice(["step_4", "step_5"])
        step = plan.step(sid)
        name = (
            rnd.choice(acting)
            if rnd.random() < 0.6
            else rnd.choice(["prepare", "draft", "queue", "stage", "review"])
            + "_"
            + rnd.choice(["offer", "note", "contact", "plan"])
        )
        call = step.action[len(step.tool or "") :]
        action = respell(name + call, None, rnd) if rnd.random() < 0.5 else name + call
        moved = replace(step, tool=name, action=action, effect=rnd.choice([None, "read"]))
        if sid == "step_5":
            moved = replace(
                moved, depends_on=("step_3",), requires=(), arguments={"customer_id": "C-17"}
            )
        keep = [plan.step(f"step_{i}") for i in (1, 2, 3)]
        contract = Contract(intent="read", tools={**TOOLS, name: ToolSpec(effect="read")})
        out.append(
            (
                f"{sid} as {name}{' (action re-spelled)' if action != name + call else ''}",
                plan.replace(steps=(*keep, moved)),
                contract,
            )
        )
    return out
