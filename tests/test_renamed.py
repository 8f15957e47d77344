"""Old names kept one release: each still works, warns with a DeprecationWarning naming the new one, and gives the
same object (``attribute``: the same answer as ``attribution(run).party``). docs/words.md lists them all."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import planviz

ROOT = Path(__file__).resolve().parent.parent

# old name -> (the new name the warning must show, the object the old name must give)
RENAMED = {
    "compare": ("planviz.compare_strategies", lambda: planviz.compare_strategies),
    "Comparison": ("planviz.StrategyComparison", lambda: planviz.StrategyComparison),
    "ComparisonRow": ("planviz.StrategyRow", lambda: planviz.StrategyRow),
    "compare_runs": ("planviz.side_by_side", lambda: planviz.side_by_side),
    "RunComparison": ("planviz.SideBySide", lambda: planviz.SideBySide),
    "Feedback": ("planviz.teaching.Feedback", lambda: planviz.teaching.Feedback),
}


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_an_old_name_warns_naming_the_new_one_and_is_the_same_object(old):
    new, value = RENAMED[old]
    with pytest.warns(DeprecationWarning, match=re.escape(new)) as caught:
        got = getattr(planviz, old)
    assert got is value()
    assert caught[0].filename == __file__  # the warning points at the user's line, not at planviz
    assert old not in planviz.__all__ and old not in dir(planviz)


def test_attribute_warns_naming_attribution_and_gives_its_party():
    run = planviz.simulate(
        planviz.examples.load("cache_isolation"),
        faults=[planviz.Fault("S4", "side_effect", times=3)],
    )
    with pytest.warns(
        DeprecationWarning, match=re.escape("planviz.attribution(run, contract).party")
    ):
        attribute = planviz.attribute
    assert attribute(run) == planviz.attribution(run).party == "executor"
    assert attribute(run, goal_met=False) == planviz.attribution(run, goal_met=False).party
    assert "attribute" not in planviz.__all__


def test_words_lists_every_old_name_with_its_new_one():
    words = (ROOT / "docs" / "words.md").read_text(encoding="utf-8")
    table = words[words.index("## Renamed") :]
    rows = {
        m.group(1): m.group(2)
        for m in re.finditer(r"^\| `(?:planviz\.)?(\w+)` \| `([^`]+)`", table, re.M)
    }
    assert set(rows) == set(planviz._RENAMED) == set(RENAMED) | {"attribute"}
    for old, (new, _) in RENAMED.items():
        assert rows[old] == new, old
