"""Decoding a checkpoint blob imports nothing (issue 42 item 8): every msgpack extension code the decoder knows
and every other one, naming modules already imported, importable ones not yet imported and made-up ones; pickle,
JSON and unknown blob types too. ``sys.modules`` is the same before and after, and ``__import__`` is never called.
"""

from __future__ import annotations

import builtins
import struct
import sys

import pytest

msgpack = pytest.importorskip("msgpack")

from planviz.traces.langgraph import checkpointblobs  # noqa: E402
from planviz.traces.langgraph.checkpointblobs import MESSAGE_MODULES, SAFE_TYPES, decode_blob  # noqa: E402

# importable standard-library modules a test run does not import: importing one would show in sys.modules
NOT_IMPORTED = [
    m
    for m in ("wave", "tabnanny", "this", "xdrlib", "mailbox", "nntplib", "turtle", "curses")
    if m not in sys.modules
]
TARGETS = (
    sorted(SAFE_TYPES)
    + [(m, "HumanMessage") for m in sorted(MESSAGE_MODULES)]
    + [(m, "run") for m in NOT_IMPORTED]
    + [
        ("os", "system"),
        ("builtins", "eval"),
        ("planviz_no_such_module", "X"),
        ("pickle", "loads"),
        ("importlib", "import_module"),
    ]
)


def _ext(code: int, data: bytes) -> bytes:
    """A msgpack extension value of any code, -128 to 127 (msgpack.ExtType takes 0 to 127 only)."""
    return b"\xc8" + struct.pack(">Hb", len(data), code) + data


def _blobs():
    """(kind, bytes) of every shape: each extension code with each (module, name) payload, and other types."""
    for code in range(-128, 128):
        for module, name in TARGETS:
            for payload in (
                [module, name, ["arg"]],
                [module, name, {"k": "v"}, "model_validate_json"],
                [module, name, "2025-01-01T00:00:00"],
            ):
                yield "msgpack", b"\x81" + msgpack.packb("v") + _ext(code, msgpack.packb(payload))
        yield "msgpack", b"\x91" + _ext(code, b"\x00\x01\x02")
    for module in NOT_IMPORTED + ["os"]:
        yield "pickle", b"c" + module.encode() + b"\nsystem\n(S'id'\ntR."
        yield (
            "json",
            ('{"lc": 1, "type": "constructor", "id": ["%s", "X"], "kwargs": {}}' % module).encode(),
        )
    yield "bytes", b"\x00"
    yield "weird", b"\x00"


def test_decoding_any_blob_imports_no_module():
    assert NOT_IMPORTED, "every candidate module is already imported: the test would show nothing"
    calls = []
    real = builtins.__import__

    def watched(name, *args, **kwargs):
        calls.append(name)
        return real(name, *args, **kwargs)

    blobs = list(_blobs())
    assert len(blobs) > 256 * len(TARGETS)
    before = set(sys.modules)
    builtins.__import__ = watched
    try:
        values = [decode_blob(kind, blob, "hostile.db", "checkpoints[0]") for kind, blob in blobs]
    finally:
        builtins.__import__ = real
    assert calls == []
    assert set(sys.modules) == before
    assert len(values) == len(blobs)
    # nothing was revived: every value is plain data (no object of an imported class)
    plain = (dict, list, str, int, float, bool, type(None))
    stack = list(values)
    while stack:
        v = stack.pop()
        assert isinstance(v, plain), type(v)
        stack.extend(v.values() if isinstance(v, dict) else v if isinstance(v, list) else ())


def test_the_decoder_module_holds_no_import_machinery():
    """The decoder's own namespace has no way to import by name (a revival would need one)."""
    names = set(vars(checkpointblobs))
    assert not names & {
        "importlib",
        "import_module",
        "pickle",
        "__import__",
        "getattr_static",
        "pydoc",
        "runpy",
    }
