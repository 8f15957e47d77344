"""Item 8 of issue 42, the blind spots of a whole-reader count: every span reader's work is linear place by place,
in Python and in C (tests/work.py). For each reader (the span formats of tests/traces/test_reader_scaling.py, built
from real files; planviz's own JSON Lines, written by ``save_trace``; OTel GenAI's OTLP/JSON; a LangGraph history),
``load_trace`` of n and of 4n turns is counted:

- in Python (n = 50 turns): no line of planviz runs, no function is called, no item is sorted more than 5 times as
  often at 4n (a Python scan of the spans read before on 1 span in 20, a ``sorted(ids)`` per event fail it);
- in C (n = 25 turns, callgrind): no C function runs more than 8 times the instructions at 4n (``if span_id in
  seen_list`` per span fails it: ``list_contains`` runs 16 times more).

Both with the streamer's buffers cut so that n turns already stream (tests/work.py ``small_buffers``). The C count
needs valgrind: skipped where it is absent, failed under CI (``CI`` set: .ci/run installs it). The same readers'
bytes (DHAT): tests/traces/test_reader_bytes.py.

A history whose output outgrows its input (LangGraph, every 6th checkpoint forking from the one 8 back: n² status
changes) is held to its output: no line works more than twice as fast as the output grows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import planviz
from tests.test_bad_input_4 import _chain, _chain_plan
from tests.traces.test_reader_scaling import SHAPES, _build
from tests.work import (
    assert_linear,
    assert_linear_c,
    c_work,
    places,
    small_buffers,
    valgrind,
)


def _own(n: int, path: Path) -> None:
    # 4 steps a turn: at 25 steps the plan record (4 KB) fits the file buffer and is read by other C lines
    # (_buffered_readline 7.5 times the instructions at 4n); at 100 and 400 it spans buffers at both sizes
    planviz.save_trace(planviz.simulate(_chain_plan(4 * n)), path)


def _otel(n: int, path: Path) -> None:
    from tests.runs.otlp import react_trace

    path.write_text(json.dumps(react_trace(2 * n)), encoding="utf-8")  # n model calls, n tool calls


def _langgraph(n: int, path: Path) -> None:
    path.write_text(json.dumps(_chain(n, back_at=n)), encoding="utf-8")


def _span_format(fmt: str):
    def build(n: int, path: Path) -> None:
        _build(SHAPES[fmt], n, path)

    return build, SHAPES[fmt].suffix, lambda n: n


# each reader: how its file of n turns is written, its suffix, and the steps its run holds (a tool call a turn;
# a LangGraph chain of n checkpoints runs n - 1 tasks; planviz's own trace: 4 steps a turn)
READERS = {
    **{fmt: _span_format(fmt) for fmt in SHAPES},
    "planviz": (_own, ".jsonl", lambda n: 4 * n),
    "otel": (_otel, ".json", lambda n: n),
    "langgraph": (_langgraph, ".json", lambda n: n - 1),
}
PYTHON_N, C_N, WARM_N = 50, 25, 3


def _files(reader: str, folder: Path, sizes: tuple[int, ...]) -> list[Path]:
    build, suffix, _ = READERS[reader]
    if reader == "otlp-proto":
        pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
    paths = []
    for n in sizes:
        path = folder / f"{reader}_{n}{suffix}"
        build(n, path)
        paths.append(path)
    return paths


@pytest.mark.parametrize("reader", sorted(READERS))
def test_no_line_of_a_reader_works_more_than_linearly(reader, tmp_path):
    warm, small, big = _files(reader, tmp_path, (WARM_N, PYTHON_N, 4 * PYTHON_N))
    with small_buffers():
        planviz.load_trace(warm)  # imports and compiled patterns out of the count
        work = [places(lambda p=p: planviz.load_trace(p)) for p in (small, big)]
        # what was counted is a reading of every turn
        steps = [len(planviz.load_trace(p).plan.ids) for p in (small, big)]
    expected = READERS[reader][2]
    assert steps == [expected(PYTHON_N), expected(4 * PYTHON_N)], steps
    # a place that runs less than once a turn at 4n is left out: a data value, not a trend (OTel's numbers
    # >= 100 among a call's values: 1 at n, 151 at 4n)
    assert_linear(*work, reader, floor=4 * PYTHON_N)


def valgrind_cases(
    request, folder: Path, test: str
) -> tuple[list[str], list[tuple[Path, list[Path]]]]:
    """The readers the session runs ``test`` for, and for each its warm-up file and its files of n and 4n turns:
    what one valgrind run for all of them measures."""
    selected = {
        item.callspec.params["reader"]
        for item in request.session.items
        if getattr(item, "originalname", None) == test
    }
    readers = [r for r in sorted(selected) if r != "otlp-proto" or _proto()]
    cases = []
    for reader in readers:
        warm, small, big = _files(reader, folder, (WARM_N, C_N, 4 * C_N))
        cases.append((warm, [small, big]))
    return readers, cases


@pytest.fixture(scope="module")
def c_counts(request, tmp_path_factory):
    """Each selected reader's C work at n and 4n turns, from one valgrind run for all (its start paid once)."""
    valgrind()
    readers, cases = valgrind_cases(
        request,
        tmp_path_factory.mktemp("cwork"),
        "test_no_c_function_of_a_reader_works_more_than_linearly",
    )
    return dict(zip(readers, c_work(cases)))


def _proto() -> bool:
    try:
        import opentelemetry.proto.collector.trace.v1.trace_service_pb2  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.slow  # valgrind: about 30 s of CPU for all readers
@pytest.mark.parametrize("reader", sorted(READERS))
def test_no_c_function_of_a_reader_works_more_than_linearly(reader, c_counts):
    if reader not in c_counts:
        pytest.skip("opentelemetry-proto is not installed")
    small, big = c_counts[reader]
    assert_linear_c(small, big, reader)


@pytest.mark.parametrize("ci", ["", "true"])
def test_without_valgrind_the_c_count_skips_and_under_ci_fails(monkeypatch, ci):
    import tests.work as work

    monkeypatch.setattr(work.shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", ci)
    expected = pytest.fail.Exception if ci else pytest.skip.Exception
    with pytest.raises(expected, match="valgrind is not installed"):
        work.valgrind()


def _fork_back_8(n: int) -> list:
    """A LangGraph history of ``n`` checkpoints where every 6th forks from the one 8 back, onto the branch before
    the current one (benchmarks/bench_langgraph.py, "fork back 8"): each fork voids about half the current path
    and takes the other half back as done, so the run's output (its status changes, its versions' steps) grows as
    n², while the input grows as n."""

    def snap(k: int) -> dict:
        parent = None if k == 0 else k - 8 if k % 6 == 0 and k >= 8 else k - 1
        r = {
            "values": {"x": k},
            "next": [f"n{(k + 1) % 50}"],
            "config": {"configurable": {"thread_id": "t", "checkpoint_id": f"c{k}"}},
            "metadata": {"source": "loop", "step": k},
            "created_at": f"2025-01-01T00:{k // 60_000 % 60:02d}:{k // 1000 % 60:02d}.{k % 1000:03d}000+00:00",
            "tasks": [{"id": f"t{k}", "name": f"n{k % 50}", "error": None, "interrupts": []}],
        }
        if parent is not None:
            r["parent_config"] = {"configurable": {"thread_id": "t", "checkpoint_id": f"c{parent}"}}
        return r

    return [snap(k) for k in range(n)]


def test_a_forked_history_costs_its_output_not_more(tmp_path):
    """A history whose output grows faster than its input (fork back 8) is read in work proportional to what it
    outputs: the checkpoints read, the status changes of its events, the steps of its plan versions. At 4n the
    output grows about 14 times and the work (tests/work.py ``places``) 5 times (a fixed part per checkpoint
    beside the output's): no place may grow more than twice the output's growth (the walks down the versions a
    fork shares, ``langgraphversions._common``/``_ids``, the closest: 1.3 times), nor the whole more than the
    output. A scan of a version's whole step list per status change grows with the output times the steps."""
    n = 250
    files = []
    for size in (30, n, 4 * n):
        path = tmp_path / f"fork_back_{size}.json"
        path.write_text(json.dumps(_fork_back_8(size)), encoding="utf-8")
        files.append(path)
    with small_buffers():
        planviz.load_trace(files[0])
        work = [places(lambda p=p: planviz.load_trace(p)) for p in files[1:]]
    outputs = []
    for path in files[1:]:
        raw = json.loads(path.read_text(encoding="utf-8"))
        forks = sum(
            1
            for r in raw
            if "parent_config" in r
            and r["parent_config"]["configurable"]["checkpoint_id"]
            != f"c{int(r['config']['configurable']['checkpoint_id'][1:]) - 1}"
        )
        run = planviz.load_trace(path)
        assert len(run.plans) == 1 + forks, (len(run.plans), forks)  # one version per fork read
        outputs.append(
            len(raw)
            + sum(len(e.changes) for e in run.events)
            + sum(len(p.steps) for p in run.plans)
        )
    growth = outputs[1] / outputs[0]
    assert growth > 8, (
        outputs
    )  # the output does grow faster than the input: what this test is about
    small, big = work
    assert_linear(small, big, "fork back 8", factor=2 * growth, floor=4 * n, total=growth)
