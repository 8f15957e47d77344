"""`make test` runs on every core (pytest-xdist, ``--dist loadfile``): a worker takes one whole unit at a time
(tests/conftest.py's ``_unit_of``: a test file, all of tests/browser/, one package's doctests). A fixture
shared beyond one test is built once per worker that uses it, so each such fixture must serve one unit only:
otherwise two workers would each run the notebooks or start JupyterLab."""

from __future__ import annotations

from collections import defaultdict

import pytest

from tests.conftest import LONGEST_FIRST, _unit_of


def test_every_shared_fixture_serves_one_unit(request):
    units = defaultdict(set)
    for item in request.session.items:
        info = getattr(item, "_fixtureinfo", None)
        for defs in info.name2fixturedefs.values() if info else ():
            fixture = defs[-1]  # the definition this test sees
            # pytest's own (tmp_path_factory) have none
            if fixture.scope != "function" and fixture.baseid:
                units[(fixture.baseid, fixture.argname, fixture.scope)].add(_unit_of(item.nodeid))
    if not units:
        pytest.skip("no test of this selection uses a shared fixture (the whole suite does)")
    spread = {fixture: sorted(u) for fixture, u in units.items() if len(u) > 1}
    assert not spread, (
        f"these fixtures would be built once per worker, in each unit: {spread}; move their tests into one "
        "unit (one file, or a folder tests/conftest.py's _unit_of makes one unit, as tests/browser/)"
    )


def test_the_units_are_a_file_the_browser_folder_or_a_packages_doctests():
    assert _unit_of(
        "tests/test_notebooks.py::test_runs_top_to_bottom[01_checklist_to_plan.ipynb]"
    ) == ("tests/test_notebooks.py")
    assert _unit_of("tests/browser/test_lab.py::test_explorer_in_jupyterlab") == "tests/browser"
    assert _unit_of("planviz/traces/toolcalls.py::planviz.traces.toolcalls") == "planviz/traces"
    assert _unit_of("planviz/errors.py::planviz.errors.show_value") == "planviz"


def test_the_longest_units_named_first_exist(request):
    units = {_unit_of(item.nodeid) for item in request.session.items}
    if "tests/test_notebooks.py" not in units:
        pytest.skip("a selection: the units named first are not all collected")
    assert set(LONGEST_FIRST) <= units, sorted(set(LONGEST_FIRST) - units)
