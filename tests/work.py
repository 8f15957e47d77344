"""Work counted, not timed, place by place: what the reader scaling tests measure (issue 42, item 8).

Three counts of what one call (a ``load_trace``) does, each compared between an input of n and one of 4n place by
place, so that a quadratic hides neither behind the reader's large linear work nor in C:

- :func:`places`: in Python, the times each line of planviz runs (``sys.settrace``), the calls of each function
  (planviz's or not) and the items handed to ``sorted``. A scan of the spans read before, even on 1 span in 20
  and without a function call (``for s in earlier: if ...``), runs its line n²/40 times: 16 times more at 4n, where
  the whole reader's work grew 4.5 times.
- :func:`c_work`: in C, the instructions run in each C function (valgrind's callgrind, counted, deterministic;
  collected only inside the measured call). ``x in a_list``, ``a_list.index(x)``, ``any(a_list)`` or ``sorted``
  over a growing list per span: no Python line shows them, but ``list_contains`` (22,013 -> 327,263
  instructions at 25 -> 100 turns), ``list_index`` (14.7x), ``builtin_any`` (9.5x) or the sort's ``merge_at``
  grow past 8 times.
- :func:`heap_work`: in bytes, those allocated at each allocation point (its first three C functions) and those
  read and written in its blocks (valgrind's DHAT, deterministic; a forked child per measured read, less a child
  that read nothing). A C loop at memcpy or memchr speed (1 to 5 instructions an item) in a function the reader
  also uses linearly hides in the instruction count (a growing list copied per span: ``list_extend`` 5.0x, under
  the bar; its n² needs thousands of spans to outweigh the reader's million instructions a span); in bytes its
  blocks grow with the input. Mutations tried in all 10 readers (2026-12-07, n = 25 turns; each reader's per-span
  function handed a piece of 24 characters, a span id's size, or of 384): ``seen = seen + [x]`` and
  ``seen = list(seen)`` per span fail every reader (``list_concat``'s point 11k -> 163k bytes at 4n in most);
  a text joined per span (``"".join(parts)``) fails 9 of 10 with 24-character pieces (Langfuse passes: 7.0x) and
  all with 384; one extended per span by a copy (``text += piece``, no in-place resize) 6 of 10 with 24 (the
  OpenInference, Phoenix and both OTel JS readers pass: 5.7 to 6.9x) and all with 384.

Not seen at these sizes: a growing text of short pieces where the reader does much linear string work at the same
C point (the streamer's and the messages' joins and concatenations, ``PyUnicode_Join``, ``PyUnicode_Concat``), above
all a search of a growing text per span (``piece in text``, or ``"\\n" in text`` scanned by memchr): caught in
Langfuse, MLflow and planviz's own reader only (the search's bytes read, 27k -> 372k, among the streamer's 0.3 to
0.9 MB at n). And n² small blocks of one size (a copy of every span's small objects per span) in bytes: each costs
hundreds of instructions to allocate and fill, callgrind's to see.

All three run with :func:`small_buffers`: the JSON streamer's read-ahead (1 MiB) and look-ahead window (64 KiB) cut
to 4 KiB and 1 KiB, so that an input of n spans already streams as a large one does (a file smaller than the
read-ahead is decoded whole, by other lines: comparing it with a streamed one would compare two readers).

Valgrind is a system package: where it is absent the C and byte counts skip, saying so, except under CI (``CI``
set), where .ci/run installs it and its absence fails."""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

import planviz

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = str(Path(planviz.__file__).resolve().parent)
SMALL_CHUNK, SMALL_WINDOW = 1 << 12, 1 << 10


@contextlib.contextmanager
def small_buffers() -> Iterator[None]:
    """The JSON streamer's read-ahead and look-ahead cut (see the module's text), restored after."""
    from planviz.traces import jsonstream

    saved = jsonstream.CHUNK, jsonstream.WINDOW
    jsonstream.CHUNK, jsonstream.WINDOW = SMALL_CHUNK, SMALL_WINDOW
    try:
        yield
    finally:
        jsonstream.CHUNK, jsonstream.WINDOW = saved


def places(read: Callable[[], object]) -> Counter:
    """The work ``read()`` does in Python: ``("line", file, line)`` the times each line of planviz ran,
    ``("call", file, line, name)`` the calls of each function, ``("sorted",)`` the items sorted."""
    counts: Counter = Counter()
    real = builtins.sorted

    def counted(iterable, *args, **kwargs):
        seq = list(iterable)
        counts["sorted",] += len(seq)
        return real(seq, *args, **kwargs)

    def local(frame, event, arg):
        if event == "line":
            counts["line", frame.f_code.co_filename, frame.f_lineno] += 1
        return local

    def call(frame, event, arg):
        code = frame.f_code
        counts["call", code.co_filename, code.co_firstlineno, code.co_name] += 1
        return local if code.co_filename.startswith(PACKAGE) else None

    builtins.sorted = counted
    sys.settrace(call)
    try:
        read()
    finally:
        sys.settrace(None)
        builtins.sorted = real
    return counts


def _show(place: tuple) -> str:
    if place[0] == "sorted":
        return "items sorted"
    where = f"{os.path.relpath(place[1], ROOT)}:{place[2]}"
    return f"calls of {place[3]} ({where})" if place[0] == "call" else f"line {where}"


def assert_linear(
    small: Counter,
    big: Counter,
    what: str,
    factor: float = 8.0,
    floor: int = 100,
    total: float = 5.0,
) -> None:
    """At 4 times the input, the whole works at most ``total`` (5) times as much and no place (a line, a function,
    ``sorted``) more than ``factor`` times: a place that does n²/k work does 16 times more, one that does 4n - c
    (a step per span but the last c) a little more than 4 (6.2 at n = 50, c = 26: OTel's ends of calls left
    pending). Places that work fewer than ``floor`` times at 4n are left out (a buffer refilled 3 times then 7
    is not a trend)."""
    total_small, total_big = sum(small.values()), sum(big.values())
    grown = sorted(
        (
            (big[k] / max(small[k], 1), k)
            for k in big
            if big[k] >= floor and big[k] > factor * small[k]
        ),
        reverse=True,
    )
    assert total_big <= total * total_small and not grown, (
        f"{what}: work {total_small:,} -> {total_big:,} at 4x the input; grew more than {factor:.3g}x: "
        + "; ".join(f"{_show(k)} {small[k]:,} -> {big[k]:,}" for _, k in grown[:5])
    )


# -- C: callgrind ---------------------------------------------------------------------------------------------

# What runs under valgrind: each case's warm-up file read (imports, compiled patterns: out of the count), then
# each measured file read inside exec("..."), the one C function (PyRun_StringFlags) callgrind collects in and
# dumps after: one dump per measured read. A measured read that itself ran exec of a string would add a dump and
# is refused. The cyclic garbage collector is off while measuring (its full collections come in steps).
_HARNESS = """
import gc, json, os, sys
from planviz import load_trace
from planviz.traces import jsonstream
jsonstream.CHUNK, jsonstream.WINDOW = {chunk}, {window}
cases, out = json.loads(sys.argv[1]), sys.argv[2]
def dumps():
    return [name for name in os.listdir(out) if name.startswith("callgrind.out")]
def number(name):
    last = name.rpartition(".")[2]
    return int(last) if last.isdigit() else 0
done = []
for warm, measured in cases:
    load_trace(warm)
    for path in measured:
        before = len(dumps())
        gc.collect()
        gc.disable()
        exec("load_trace(path)", {{"load_trace": load_trace, "path": path}})
        gc.enable()
        after = sorted(dumps(), key=number)
        if len(after) != before + 1:
            sys.exit("the read of " + path + " ran exec of a string: the count is not that read's")
        done.append(after[-1])
print(json.dumps(done))
"""

# glibc's allocator: how long its free lists are depends on what was freed before, in steps; a reader's own
# quadratic shows in the functions that loop (list, dict, str, sre), never only here.
ALLOCATOR = frozenset(
    {
        "_int_malloc",
        "_int_free",
        "_int_realloc",
        "unlink_chunk.constprop.0",
        "malloc_consolidate",
        "malloc",
        "free",
        "realloc",
        "cfree",
        "sysmalloc",
        # CPython's small-object allocator: a new pool or arena only once the freed ones are used up
        "allocate_from_new_pool",
        "new_arena",
        "insert_to_usedpool",
        "insert_to_freepool",
        "_PyObject_ArenaMmap",
        "_PyObject_ArenaMunmap",
    }
)


def _cannot(reason: str) -> None:
    """Skip, saying why; under CI (``CI`` set), fail: there the C count must run."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run it")
    pytest.skip(reason)


def valgrind() -> str:
    """The valgrind command, or a skip (a failure under CI, where .ci/run installs it)."""
    found = shutil.which("valgrind")
    if found is None:
        _cannot(
            "valgrind is not installed: the C-level work count (callgrind) cannot run; "
            "`apt-get install valgrind` (.ci/run installs it)"
        )
    return str(found)


# static C functions of CPython every read runs: named in the count only when the interpreter has its symbols
_CANARIES = frozenset({"list_dealloc", "dict_dealloc", "unicode_dealloc", "list_append"})


def _family(name: str) -> str:
    """A C function's name with what varies by size alone taken out: callgrind's recursion depth (``f'2``: f
    called within f) and, for CPython's string searches (str.find, ``in``, split, count), the algorithm chosen by
    the lengths (``ucs1lib__two_way`` past 2,500 characters, the default loop below)."""
    name = re.sub(r"'\d+$", "", name)
    if re.match(r"(ascii|ucs1|ucs2|ucs4)lib_", name) or name in _SEARCHES:
        return "str search (find, in, count, split, replace)"
    return name


# the callers the short searches are compiled into (at n the search runs inside PyUnicode_Contains, at 4n in
# ucs1lib__two_way): one family
_SEARCHES = frozenset(
    {
        "PyUnicode_Contains",
        "PyUnicode_Find",
        "PyUnicode_Count",
        "PyUnicode_Split",
        "PyUnicode_Replace",
        "any_find_slice",
        "unicode_count",
        "unicode_find",
        "unicode_index",
        "unicode_rfind",
        "unicode_rindex",
        "split",
        "rsplit",
        "replace",
    }
)


def _self_costs(path: Path, names: dict) -> Counter:
    """Instructions run in each function itself (not in what it called), from a callgrind dump. Function names
    are numbered once for the whole run, so ``names`` is shared by the dumps read in order."""
    costs: Counter = Counter()
    fn, skip = None, False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if skip:  # the inclusive cost of the call just named: not this function's own
                skip = False
            elif line[:1].isdigit() or line[:1] in "+-*":
                parts = line.split()
                if fn is not None and len(parts) > 1:
                    costs[fn] += int(parts[1])
            elif line.startswith(("fn=", "cfn=")):
                m = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
                if m is not None:
                    if m.group(2) is not None:
                        names[m.group(1)] = _family(m.group(2))
                    if line.startswith("fn="):
                        fn = names.get(m.group(1), m.group(1))
            elif line.startswith("calls="):
                skip = True
    return costs


def _dump_number(name: str) -> int:
    """callgrind.out.7: 7 (the file written at exit, callgrind.out: 0)."""
    last = name.rpartition(".")[2]
    return int(last) if last.isdigit() else 0


def _under_valgrind(
    harness: str,
    tool: list[str],
    cases: list[tuple[Path, list[Path]]],
    out: str,
    more: tuple[str, ...] = (),
    env: tuple[tuple[str, str], ...] = (),
) -> Any:
    """Run ``harness`` (its read-ahead and look-ahead cut, :func:`small_buffers`'s) in a file in ``out`` under
    valgrind with ``tool``'s options, on ``cases`` (and ``more`` arguments), with a fixed hash seed; what it
    printed last, as JSON. A file, not python -c: the -c command runs inside PyRun_StringFlags itself."""
    command = valgrind()
    path = Path(out, "harness.py")
    path.write_text(harness.format(chunk=SMALL_CHUNK, window=SMALL_WINDOW), encoding="utf-8")
    arg = json.dumps([[str(w), [str(p) for p in ps]] for w, ps in cases])
    done = subprocess.run(
        [command, *tool, sys.executable, str(path), arg, *more],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(ROOT), **dict(env)},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def c_work(cases: list[tuple[Path, list[Path]]]) -> list[list[Counter]]:
    """For each case (a warm-up file, the files to measure), the instructions each C function ran in each
    measured ``load_trace``; one valgrind run for all."""
    with tempfile.TemporaryDirectory() as out:
        wanted = _under_valgrind(
            _HARNESS,
            [
                "--tool=callgrind",
                "--collect-atstart=no",
                "--toggle-collect=PyRun_StringFlags",
                "--dump-after=PyRun_StringFlags",
                f"--callgrind-out-file={out}/callgrind.out",
            ],
            cases,
            out,
            (out,),
        )
        names: dict = {}
        costs = {}
        dumps = sorted(
            (n for n in os.listdir(out) if n.startswith("callgrind.out")), key=_dump_number
        )
        for name in dumps:
            cost = _self_costs(Path(out, name), names)
            if name in wanted:
                costs[name] = cost
    if not any(name in cost for cost in costs.values() for name in _CANARIES):
        # a stripped interpreter (Debian's /usr/bin/python3): the static functions (list_contains...) are not
        # told apart, a quadratic one hides in a large bucket (tried: `x in a_list` per span then passed)
        _cannot(
            f"{sys.executable} has no symbols for its static C functions (a stripped build): callgrind cannot "
            "tell list_contains from the rest; install its debug symbols (Debian: `apt-get install python3-dbg`, "
            ".ci/run does) or use a Python built with them (from source, pyenv's included)"
        )
    it = iter(wanted)
    return [[costs[next(it)] for _ in ps] for _, ps in cases]


def assert_linear_c(
    small: Counter, big: Counter, what: str, factor: float = 8.0, share: float = 1e-4
) -> None:
    """At 4 times the input, no C function runs more than ``factor`` times the instructions (nor the whole more
    than 5 times), among those that run at least ``share`` of the instructions at 4n, the allocator's left out."""
    total_small, total_big = sum(small.values()), sum(big.values())
    grown = sorted(
        (
            (big[k] / max(small[k], 1), k)
            for k in big
            if k not in ALLOCATOR and big[k] >= share * total_big and big[k] > factor * small[k]
        ),
        reverse=True,
    )
    assert total_big <= 5 * total_small and not grown, (
        f"{what}: instructions {total_small:,} -> {total_big:,} at 4x the input; grew more than {factor:.3g}x: "
        + "; ".join(f"{k} {small[k]:,} -> {big[k]:,}" for _, k in grown[:5])
    )


# -- bytes: DHAT ----------------------------------------------------------------------------------------------

# What runs under valgrind's DHAT: every case's warm-up read first (imports, compiled patterns, caches), then one
# forked child per measured read and one that reads nothing (the baseline). DHAT has no switch to collect inside
# one call, but a forked child inherits its parent's counts and writes its own file at exit: a read's bytes are
# its child's counts less the baseline child's, point by point. The children do not collect garbage (the cyclic
# collector's full collections come in steps) and leave by os._exit (no interpreter teardown in the counts).
_DHAT_HARNESS = """
import gc, json, os, sys
from planviz import load_trace
from planviz.traces import jsonstream
jsonstream.CHUNK, jsonstream.WINDOW = {chunk}, {window}
cases = json.loads(sys.argv[1])
for warm, measured in cases:
    load_trace(warm)
gc.collect()
gc.disable()
def child(path):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            if path is not None:
                load_trace(path)
        except BaseException as exc:
            print(exc, file=sys.stderr)
            code = 1
        os._exit(code)
    if os.waitpid(pid, 0)[1] != 0:
        sys.exit("the read of " + str(path) + " failed under DHAT")
    return pid
print(json.dumps([child(None)] + [child(path) for _, measured in cases for path in measured]))
"""

# the frames of the allocator itself: valgrind's replacements and CPython's raw allocator, above the function that
# asked for the block
_ALLOCATING = frozenset(
    {
        "malloc",
        "calloc",
        "realloc",
        "memalign",
        "posix_memalign",
        "aligned_alloc",
        "_PyMem_RawMalloc",
        "_PyMem_RawCalloc",
        "_PyMem_RawRealloc",
        "PyMem_RawMalloc",
        "PyMem_RawCalloc",
        "PyMem_RawRealloc",
        "PyMem_Malloc",
        "PyMem_Calloc",
        "PyMem_Realloc",
        "PyObject_Malloc",
        "PyObject_Calloc",
        "PyObject_Realloc",
    }
)
# an allocation point: the first three C functions under the allocator (below them comes the evaluation loop, the
# same for every Python line: a copy in a reader shares its point with the same copy anywhere else)
POINT_DEPTH = 3
# the stack valgrind unwinds at each allocation: the allocator's frames above those three, no more (each frame
# unwound costs time at every malloc)
NUM_CALLERS = POINT_DEPTH + 3
BYTES = ("allocated", "read", "written")


def _points(path: Path) -> Counter:
    """A dhat.out file as ``(measure, point)``: bytes allocated, read and written in the blocks allocated at each
    point, and ``("blocks", point)``, the blocks allocated there."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    names = [re.sub(r"^0x[0-9A-Fa-f]+: (\S+).*$", r"\1", frame) for frame in data["ftbl"]]
    counts: Counter = Counter()
    for pp in data["pps"]:
        point: list[str] = []
        for i in pp["fs"]:
            name = names[i]
            # inlined functions repeat their caller's address: one name once
            if name not in _ALLOCATING and (not point or point[-1] != name):
                point.append(name)
                if len(point) == POINT_DEPTH:
                    break
        key = tuple(point)
        counts["allocated", key] += pp["tb"]
        counts["read", key] += pp["rb"]
        counts["written", key] += pp["wb"]
        counts["blocks", key] += pp["tbk"]
    return counts


def heap_work(cases: list[tuple[Path, list[Path]]]) -> list[list[Counter]]:
    """For each case (a warm-up file, the files to measure), the bytes each allocation point allocated, and read
    and wrote in its blocks, in each measured ``load_trace`` (valgrind's DHAT, its counts deterministic); one
    valgrind run for all, with CPython's allocator replaced by malloc (``PYTHONMALLOC=malloc``: its small-object
    arenas would hide every block under 512 bytes)."""
    with tempfile.TemporaryDirectory() as out:
        base, *pids = _under_valgrind(
            _DHAT_HARNESS,
            ["--tool=dhat", f"--num-callers={NUM_CALLERS}", f"--dhat-out-file={out}/dhat.%p"],
            cases,
            out,
            env=(("PYTHONMALLOC", "malloc"),),
        )
        baseline = _points(Path(out, f"dhat.{base}"))
        reads = []
        for pid in pids:
            counts = _points(Path(out, f"dhat.{pid}"))
            counts.subtract(baseline)
            reads.append(Counter({k: v for k, v in counts.items() if v > 0}))
    if not any(name in key[1] for read in reads for key in read for name in _HEAP_CANARIES):
        _cannot(
            f"{sys.executable} has no symbols for its static C functions (a stripped build): DHAT cannot tell "
            "list_resize from the rest; install its debug symbols (Debian: `apt-get install python3-dbg`, "
            ".ci/run does) or use a Python built with them (from source, pyenv's included)"
        )
    it = iter(reads)
    return [[next(it) for _ in ps] for _, ps in cases]


# static C functions of CPython every read allocates in: named in the points only when the interpreter has symbols
_HEAP_CANARIES = frozenset({"list_resize", "new_keys_object"})


def assert_linear_bytes(
    small: Counter,
    big: Counter,
    what: str,
    total: float = 4.5,
    factor: float = 8.0,
    share: float = 1e-4,
    size: float = 1.5,
) -> None:
    """At 4 times the input, the bytes allocated, read and written in all grow at most ``total`` times (3.98 the
    most seen on the 10 readers: a linear reader with a fixed part grows 4 times or less), and no allocation point's
    bytes allocated or read more than ``factor`` times where its blocks grew: their mean size at least ``size``
    times. A copy of what was read so far, per span (a list, a text), allocates blocks that grow with the input, and
    a search of a growing text reads a block that grows: at 4n their point's bytes grow up to 16 times, its blocks'
    mean size up to 4 times. Left out, among points holding less than ``share`` of the bytes at 4n: nothing else.
    Left out as no trend: a point that allocated nothing at n (a threshold crossed: the sort's merge buffer past 64
    items), and one whose blocks kept their size (integers past 256 leave CPython's small-int cache, a free list
    runs dry: more blocks, each read as often; n² small blocks are callgrind's to see, each costs hundreds of
    instructions). Bytes written are in the totals only: a copy writes what it allocates, and a sort writes in
    place n log n times (n² up to 64 items, its insertion sort)."""
    grown = []
    for measure in BYTES:
        total_small = sum(v for k, v in small.items() if k[0] == measure)
        total_big = sum(v for k, v in big.items() if k[0] == measure)
        if total_big > total * total_small:
            grown.append(f"all bytes {measure} {total_small:,} -> {total_big:,}")
        if measure == "written":
            continue
        for key, b in big.items():
            s, point = small[key], key[1]
            if key[0] != measure or s == 0 or b <= factor * s or b < share * total_big:
                continue
            blocks_small, blocks_big = small["blocks", point], big["blocks", point]
            if not blocks_small or not blocks_big:
                continue
            mean_small = small["allocated", point] / blocks_small
            mean_big = big["allocated", point] / blocks_big
            if mean_big >= size * mean_small:
                grown.append(
                    f"bytes {measure} in the blocks of {' < '.join(point)} {s:,} -> {b:,} "
                    f"({blocks_small:,} -> {blocks_big:,} blocks of {mean_small:,.0f} -> "
                    f"{mean_big:,.0f} bytes)"
                )
    assert not grown, f"{what}: at 4x the input, grew more than linearly: " + "; ".join(grown[:5])
