"""Shared fixtures: the bundled worked example and the shared corpus (skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


@pytest.fixture
def cache_plan():
    """The cache-isolation fix of SPEC section 5 (durations in minutes)."""
    from planviz import examples

    return examples.load("cache_isolation")


@pytest.fixture
def corpus() -> Path:
    """../shared/corpus, or a skip saying why it is not there."""
    if not CORPUS.is_dir():
        pytest.skip(f"the shared corpus is not beside this clone ({CORPUS} missing); "
                    "corpus tests run only in the project's workspace")
    return CORPUS
