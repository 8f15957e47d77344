"""Item 8 of issue 42, what an instruction count misses: a copy or a search of what a reader read so far, per span,
loops at memcpy or memchr speed (1 to 5 instructions an item) in C functions the reader also uses linearly, so its
n² is lost among the reader's million instructions a span at the sizes valgrind can run (tests/work.py). Counted in
bytes instead (valgrind's DHAT, tests/work.py ``heap_work``): for each reader of tests/traces/test_reader_work.py,
``load_trace`` of n = 25 and 100 turns, the bytes allocated, read and written in all grow at most 4.5 times, and at
no allocation point whose blocks grow in size more than 8 times. ``seen = seen + [x]`` or ``list(seen)`` per span
fails it in every reader (the list's point 15 times the bytes at 4n); a growing text joined, extended or searched
per span in some (see tests/work.py for which). Needs valgrind as the C count does: skipped where it is absent,
failed under CI."""

from __future__ import annotations

import pytest

from tests.traces.test_reader_work import READERS, valgrind_cases
from tests.work import assert_linear_bytes, heap_work, valgrind


@pytest.fixture(scope="module")
def heap_counts(request, tmp_path_factory):
    """Each selected reader's bytes at n and 4n turns (DHAT), from one valgrind run for all."""
    valgrind()
    readers, cases = valgrind_cases(
        request,
        tmp_path_factory.mktemp("heapwork"),
        "test_no_allocation_point_of_a_reader_grows_more_than_linearly",
    )
    sizes = [[p.stat().st_size for p in ps] for _, ps in cases]
    return dict(zip(readers, zip(heap_work(cases), sizes)))


@pytest.mark.slow  # valgrind's DHAT: about 45 s of CPU for all readers
@pytest.mark.parametrize("reader", sorted(READERS))
def test_no_allocation_point_of_a_reader_grows_more_than_linearly(reader, heap_counts):
    if reader not in heap_counts:
        pytest.skip("opentelemetry-proto is not installed")
    (small, big), sizes = heap_counts[reader]
    # what was counted is each read: more bytes allocated than its file holds (beyond the baseline child's)
    allocated = [sum(v for k, v in c.items() if k[0] == "allocated") for c in (small, big)]
    assert allocated[0] > sizes[0] and allocated[1] > sizes[1], (allocated, sizes)
    assert_linear_bytes(small, big, reader)
