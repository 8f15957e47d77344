"""io/output.py: every output file is written whole or not at all."""

from __future__ import annotations

import os
import stat

import pytest

import planviz
from planviz import examples
from planviz.io.output import open_output, write_output


def leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("data", ["text é\n", b"\x00\xffbytes"])
def test_writes_text_or_bytes(tmp_path, data):
    path = tmp_path / "out"
    write_output(path, data)
    assert (
        path.read_bytes() if isinstance(data, bytes) else path.read_text(encoding="utf-8")
    ) == data
    assert leftovers(tmp_path) == ["out"]


@pytest.mark.parametrize(
    "error", [OSError(28, "No space left on device"), KeyboardInterrupt(), ValueError("x")]
)
def test_a_failure_keeps_the_old_file_and_leaves_no_temporary_file(tmp_path, error):
    path = tmp_path / "trace.jsonl"
    path.write_text("old\n")
    with pytest.raises(type(error)):
        with open_output(path) as fh:
            fh.write("new, half written")
            raise error
    assert path.read_text() == "old\n"
    assert leftovers(tmp_path) == ["trace.jsonl"]


def test_a_failure_before_the_first_write_creates_nothing(tmp_path):
    with pytest.raises(RuntimeError):
        with open_output(tmp_path / "new.html"):
            raise RuntimeError("the page could not be built")
    assert leftovers(tmp_path) == []


def test_an_existing_file_keeps_its_permissions(tmp_path):
    path = tmp_path / "private.yaml"
    path.write_text("old")
    os.chmod(path, 0o600)
    write_output(path, "new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.read_text() == "new"


def test_a_new_file_gets_the_usual_permissions(tmp_path):
    umask = os.umask(0o022)
    try:
        write_output(tmp_path / "new.svg", "<svg/>")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.svg").stat().st_mode) == 0o644


def test_a_symbolic_link_is_followed(tmp_path):
    target = tmp_path / "real.jsonl"
    target.write_text("old")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    write_output(link, "new")
    assert link.is_symlink() and target.read_text() == "new"


def test_a_device_is_written_to_directly():
    write_output(os.devnull, "discarded")  # no temporary file beside /dev/null, no rename over it
    assert os.path.exists(os.devnull) and stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_directory_is_an_os_error(tmp_path):
    with pytest.raises(IsADirectoryError):
        write_output(tmp_path, "x")


@pytest.mark.parametrize(
    "write",
    [
        lambda run, path: planviz.save_trace(run, path),
        lambda run, path: planviz.report_html(run, path),
        lambda run, path: planviz.render(run.plans[0]).save(path.with_suffix(".svg")),
        lambda run, path: planviz.dump_plan(run.plans[0], path),
    ],
    ids=["save_trace", "report_html", "Diagram.save", "dump_plan"],
)
def test_every_writer_replaces_its_file_whole(tmp_path, monkeypatch, write):
    from planviz.io import output

    run = planviz.simulate(examples.load("cache_isolation"))
    path = tmp_path / "out"
    write(run, path)
    written = leftovers(tmp_path)
    assert len(written) == 1  # the output, and no temporary file
    replaced = []
    monkeypatch.setattr(output.os, "replace", lambda a, b: replaced.append(b) or os.rename(a, b))
    write(run, path)
    assert [os.path.basename(p) for p in replaced] == written


def test_a_missing_folder_is_made(tmp_path):
    target = tmp_path / "out" / "deeper" / "plan.svg"
    write_output(target, "<svg/>")
    assert target.read_text() == "<svg/>" and [p.name for p in target.parent.iterdir()] == [
        "plan.svg"
    ]


def test_a_fifo_nobody_reads_is_refused_at_once_naming_the_path(tmp_path):
    fifo = tmp_path / "out.svg"
    os.mkfifo(fifo)
    with pytest.raises(
        OSError,
        match=r"a FIFO \(named pipe\) that nothing reads: writing to it would wait "
        r"forever",
    ) as info:
        write_output(fifo, "x")
    assert info.value.filename == str(fifo)


def test_a_fifo_with_a_reader_is_written_to(tmp_path):
    fifo = tmp_path / "out.txt"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_output(fifo, "through the pipe\n")
        assert os.read(reader, 100) == b"through the pipe\n"
    finally:
        os.close(reader)


def _dead_pid() -> int:
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_the_next_write_removes_what_a_killed_writer_left_but_not_a_running_writers_file(tmp_path):
    target = tmp_path / "out.svg"
    stale = tmp_path / f".out.svg.{_dead_pid()}.0123abcd.tmp"
    # a live process (this test's parent)
    running = tmp_path / f".out.svg.{os.getppid()}.89abcdef.tmp"
    other = tmp_path / f".other.svg.{_dead_pid()}.0123abcd.tmp"  # another target's
    for path in (stale, running, other):
        path.write_text("half")
    write_output(target, "whole")
    assert target.read_text() == "whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [target.name, running.name, other.name]
    )


def test_a_failure_names_the_users_path_not_the_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "out.svg"

    def full(src, dst):
        raise OSError(28, "No space left on device", src)

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OSError, match="No space left on device") as info:
        write_output(target, "x")
    assert info.value.filename == str(target)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("path", ["a\x00b.svg", "a\ud800b.svg"])
def test_a_path_no_file_can_have_is_an_os_error(tmp_path, path):
    with pytest.raises(OSError, match="no file can have this name"):
        write_output(str(tmp_path / path), "x")
