"""Notebook 02's answers: the findings of a dropped edge, a stricter contract's new finding, vacuous checks, the
purge plan fixed, the five contract fields."""

from __future__ import annotations

from dataclasses import replace

import planviz
from tests.teaching import test_lesson02 as t02, test_lesson02_contract as t02c
from tests.teaching.bank import Anything, a, harvest, value_cheats
from tests.teaching.test_lesson02 import FIXED, PURGE, VACUOUS_RIGHT, edit

CODES = {"unmet_requirement", "order_violation"}
EVERY_CODE = sorted(
    {
        "cycle",
        "dead_end",
        "unmet_requirement",
        "order_violation",
        "no_evidence",
        "no_check",
        "vacuous_check",
        "bad_placeholder",
        "isolated_step",
    }
)
EX1 = [
    a("right", "the two codes", codes=CODES),
    *harvest(t02.test_exercise_1_right, "form", lambda codes: ((codes,), {})),
    a("form", "a tuple in capitals", codes=("UNMET_REQUIREMENT", "Order_Violation")),
    a("form", "spaces around", codes=[" unmet_requirement ", "order_violation "]),
    a("form", "a frozenset", codes=frozenset(CODES)),
    a("form", "text with spaces", codes="unmet_requirement order_violation"),
    *harvest(t02.test_exercise_1_wrong, "wrong", lambda codes, says: ((codes,), {})),
    a("wrong", "order_violation only", codes={"order_violation"}),
    a("wrong", "a str of one code", codes="unmet_requirement"),
    a("wrong", "a dict", codes={"unmet_requirement": 1, "order_violation": 1}),
    a("wrong", "no_artifact added", codes=CODES | {"no_artifact"}),
    a("wrong", "the finding objects' layer", codes={"semantics"}),
    a("wrong", "a misspelt code", codes={"unmet_requirements", "order_violation"}),
    a("wrong", "a number", codes=2),
    a("cheat:everything", "every code there is", codes=EVERY_CODE),
    a("cheat:everything", "the two codes and a few more", codes=CODES | {"cycle", "no_evidence"}),
    *value_cheats(lambda v: ((), {"codes": v})),
    a("cheat:identity", "objects equal to everything", codes=[Anything(), Anything()]),
]

EX2 = [
    a("right", "semantics, order_violation", "semantics", "order_violation"),
    a("form", "keywords", layer="semantics", code="order_violation"),
    a("form", "capitals and spaces", " Semantics ", "ORDER_VIOLATION"),
    a("form", "a space for the underscore", "semantics", "order violation"),
    a("form", "the other order of keywords", code="order_violation", layer="semantics"),
    *harvest(t02.test_exercise_2_wrong, "wrong", lambda layer, code, says: ((layer, code), {})),
    a("wrong", "structure layer", "structure", "order_violation"),
    a("wrong", "the feasibility layer", "feasibility", "order_violation"),
    a("wrong", "no code", "semantics", None),
    a("wrong", "cycle", "structure", "cycle"),
    a("wrong", "dead_end", "semantics", "dead_end"),
    a("wrong", "the layer as a number", 2, "order_violation"),
    a("wrong", "swapped", "order_violation", "semantics"),
    a("wrong", "no_check", "static", "no_check"),
    a("wrong", "a misspelt layer", "semantic checks", "order_violation"),
    a("wrong", "the layer only", "semantics", ...),
    a("cheat:everything", "every layer", ["structure", "semantics", "static"], "order_violation"),
    a("cheat:everything", "both codes", "semantics", ["order_violation", "unmet_requirement"]),
    *value_cheats(lambda v: ((v, "order_violation"), {})),
    *value_cheats(lambda v: (("semantics", v), {})),
]

EX3 = [
    a("right", "the solution's predictions", VACUOUS_RIGHT),
    *harvest(t02.test_exercise_3_right, "form", lambda predictions: ((predictions,), {})),
    *harvest(t02.test_exercise_3_wrong, "wrong", lambda predictions, says: ((predictions,), {})),
    a(
        "cheat:everything",
        "every case both severities",
        {k: ["error", "warning"] for k in VACUOUS_RIGHT},
    ),
    a(
        "cheat:everything",
        "every case 'error or warning'",
        {k: "error or warning" for k in VACUOUS_RIGHT},
    ),
    *value_cheats(lambda v: ((v,), {})),
    a(
        "cheat:identity",
        "every prediction an object equal to everything",
        {k: Anything() for k in VACUOUS_RIGHT},
    ),
]

EX4 = [
    a("right", "R4 after R5, a real check", FIXED),
    *harvest(t02.test_exercise_4_right, "form", lambda plan: ((plan,), {})),
    *harvest(t02.test_exercise_4_wrong, "wrong", lambda plan, says: ((plan,), {})),
    a(
        "cheat:vacuous",
        "a check that restates the tool",
        edit(FIXED, "R4", check="purge_cache ran"),
    ),
    a(
        "cheat:vacuous",
        "a check of nothing observable",
        edit(FIXED, "R4", check="completed successfully"),
    ),
    a(
        "cheat:identity",
        "the purge step dropped and the goal kept",
        FIXED.replace(steps=[s for s in FIXED.steps if s.id != "R4"]),
    ),
    a(
        "cheat:identity",
        "the purge declared a read and renamed",
        edit(edit(FIXED, "R4", effect="read"), "R4", tool="read_cache"),
    ),
    a("cheat:identity", "an object equal to everything", Anything()),
]

_CHEAT_ROWS = {
    "every code everywhere": "cheat:everything",
    "a catch-all word": "cheat:everything",
    "nothing anywhere": "cheat:vacuous",
    "the cases themselves": "cheat:identity",
}
EX5 = [
    a(
        "right" if i == 0 else "form" if verdict else _CHEAT_ROWS.get(name, "wrong"),
        f"test_lesson02_contract: {name}",
        answer,
    )
    for i, (name, answer, verdict) in enumerate(t02c.BANK)
]
EX5 += [
    *value_cheats(lambda v: ((v,), {})),
    a(
        "cheat:identity",
        "each case an object equal to everything",
        {k: Anything() for k in t02c.RIGHT},
    ),
]

BANK = {
    "lesson02.check_exercise_1": EX1,
    "lesson02.check_exercise_2": EX2,
    "lesson02.check_exercise_3": EX3,
    "lesson02.check_exercise_4": EX4,
    "lesson02.check_exercise_5": EX5,
}
