"""Output files written whole or not at all: a temporary file beside the target, renamed into place.

Every file planviz writes (``dump_plan``, ``save_trace``, ``report_html``,
``Diagram.save``, the command line's outputs) goes through here, so a failure
half-way (a full disk, a value that cannot be written, Ctrl-C) never leaves a
truncated file, and the file that was there before stays as it was. A device
or a pipe (``/dev/stdout``, also when standard output is a pipe) is written to
directly, and a FIFO that nothing reads is refused instead of waited on; a
symbolic link is followed, so the file it names is replaced; an existing file
keeps its permissions; a missing folder is made. The temporary file's name
holds the writer's process id, so the next write of the same target removes
what a killed writer left (``.out.svg.<pid>.<random>.tmp``).

>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
>>> write_output(path, "one\\n")
>>> with open_output(path) as fh:
...     _ = fh.write("two\\n")
...     raise OSError("disk full")
Traceback (most recent call last):
...
OSError: disk full
>>> path.read_text()
'one\\n'
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from typing import IO, Any, Iterator

from planviz.errors import PlanvizTypeError, show_value

__all__ = ["open_output", "write_output", "same_file", "output_name"]


@contextlib.contextmanager
def open_output(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[IO[Any]]:
    """An open file (UTF-8 text, or ``binary``) that replaces ``path`` when the block ends without an error.

    Errors name ``path`` (never the temporary file); a FIFO nobody reads is refused at once (writing to it
    would wait forever), as are a directory and a path no file can have (a NUL, a lone surrogate).
    """
    name = output_name(path)
    try:
        # follows links, /dev/stdout and /proc/self/fd/N too
        info: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        info = None
    except ValueError:  # a NUL or an unencodable character in the path
        raise OSError(
            errno.EINVAL, "no file can have this name (it holds a NUL or a lone surrogate)", name
        ) from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", name)
    # a device or a pipe: written to directly
    if info is not None and not stat.S_ISREG(info.st_mode):
        with _open_special(path, name, binary) as fh:
            yield fh
        return
    target = os.path.realpath(path) if os.path.islink(path) else os.fspath(path)
    head, tail = os.path.split(os.path.abspath(target))
    # save("out/plan.svg") makes out/, as Graphviz's own render does
    os.makedirs(head, exist_ok=True)
    _remove_stale(head, tail)
    temporary, fd = _create(head, tail, stat.S_IMODE(info.st_mode) if info is not None else 0o666)
    try:
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else "utf-8") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temporary, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError) and exc.errno is not None and exc.filename == temporary:
            raise type(exc)(
                exc.errno, exc.strerror, name
            ) from None  # the user's path, not the temporary file
        raise


@contextlib.contextmanager
def _open_special(path: str | os.PathLike[str], name: str, binary: bool) -> Iterator[IO[Any]]:
    """A device or a pipe opened without blocking: a FIFO with no reader is refused, not waited on."""
    try:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OSError(
                errno.ENXIO,
                "a FIFO (named pipe) that nothing reads: writing to it would wait forever; "
                "write to a regular file",
                name,
            ) from None
        raise type(exc)(exc.errno, exc.strerror, name) from None
    if hasattr(os, "set_blocking"):
        # opened without waiting; written as any file (a full pipe waits for its reader)
        os.set_blocking(fd, True)
    with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else "utf-8") as fh:
        yield fh


def output_name(path: Any) -> str:
    """``path`` as text, once checked: a str, bytes or path-like (else :class:`PlanvizTypeError`), and no longer
    than any path the system opens (else the OSError of a too-long name, which shows it cut short)."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise PlanvizTypeError(
            f"an output path is a str or a pathlib.Path, got {type(path).__name__} {show_value(path)}"
        )
    name = _shown(path)
    if len(name) > 4096:
        raise OSError(errno.ENAMETOOLONG, "File name too long", name[:80] + "...")
    return name


def _shown(path: str | bytes | os.PathLike[Any]) -> str:
    name = os.fspath(path)
    return name if isinstance(name, str) else os.fsdecode(name)


_STALE = re.compile(r"\.(.*)\.(\d+)\.[0-9a-f]{8}\.tmp\Z", re.S)


def _remove_stale(directory: str, name: str) -> None:
    """Remove the temporary files an earlier write of ``name`` left when its process was killed (their
    writer, named in the file name, is no longer running); another running writer's file is left alone."""
    prefix = f".{name[:200]}."
    try:
        entries = [e for e in os.listdir(directory) if e.startswith(prefix) and e.endswith(".tmp")]
    except OSError:
        return
    for entry in entries:
        m = _STALE.match(entry)
        if m is None or m.group(1) != name[:200] or _running(int(m.group(2))):
            continue
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(directory, entry))


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return False  # this process: a write of its own that failed without cleaning up (it always does)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # someone else's process, or a number no process has: leave it
    return True


def write_output(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` whole or not at all (see :func:`open_output`)."""
    with open_output(path, binary=isinstance(data, bytes)) as fh:
        fh.write(data)


def same_file(path: str | os.PathLike[str], other: str | os.PathLike[str]) -> bool:
    """Whether ``path`` and ``other`` open the same file: the same device and inode (so symbolic and hard
    links, ``/dev/stdin`` and ``/proc/self/fd/N`` count), or the same path when one does not exist yet.
    ``"-"`` is standard input (the file or pipe it reads).

    >>> same_file("/dev/null", "/dev/null"), same_file("a.svg", "./a.svg"), same_file("a.svg", "b.svg")
    (True, True, False)
    """
    ids = [_identity(p) for p in (path, other)]
    if None not in ids:
        return ids[0] == ids[1]
    try:
        return os.path.realpath(path) == os.path.realpath(other)
    except (OSError, ValueError):
        return False


def _identity(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    try:
        info = os.fstat(0) if os.fspath(path) == "-" else os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def _create(directory: str, name: str, mode: int) -> tuple[str, int]:
    """A new temporary file beside the target (same file system, so the rename is atomic)."""
    for _ in range(100):
        temporary = os.path.join(
            directory, f".{name[:200]}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
        )
        try:
            fd = os.open(
                temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666
            )
        except FileExistsError:
            continue
        if mode != 0o666:
            # the old file's permissions; a new file gets 0o666 less the umask
            os.chmod(temporary, mode)
        return temporary, fd
    raise FileExistsError(17, "cannot create a temporary file", directory)  # pragma: no cover
