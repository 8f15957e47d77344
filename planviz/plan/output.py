"""Output files written whole or not at all: a temporary file beside the target, renamed into place.

Every file planviz writes (``dump_plan``, ``save_trace``, ``report_html``,
``Diagram.save``, the command line's outputs) goes through here, so a failure
half-way (a full disk, a value that cannot be written, Ctrl-C) never leaves a
truncated file, and the file that was there before stays as it was. A device
or a pipe (``/dev/stdout``) is written to directly; a symbolic link is
followed, so the file it names is replaced; an existing file keeps its
permissions; a missing folder is made.

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
import os
import secrets
import stat
from typing import IO, Any, Iterator

__all__ = ["open_output", "write_output"]


@contextlib.contextmanager
def open_output(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[IO[Any]]:
    """An open file (UTF-8 text, or ``binary``) that replaces ``path`` when the block ends without an error."""
    target = os.path.realpath(path) if os.path.islink(path) else os.fspath(path)
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(21, "Is a directory", os.fspath(path))
    if info is not None and not stat.S_ISREG(info.st_mode):  # a device or a pipe: nothing to replace
        with open(target, "wb" if binary else "w", encoding=None if binary else "utf-8") as fh:
            yield fh
        return
    head, tail = os.path.split(os.path.abspath(target))
    os.makedirs(head, exist_ok=True)  # save("out/plan.svg") makes out/, as Graphviz's own render does
    temporary, fd = _create(head, tail, stat.S_IMODE(info.st_mode) if info is not None else 0o666)
    try:
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else "utf-8") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_output(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` whole or not at all (see :func:`open_output`)."""
    with open_output(path, binary=isinstance(data, bytes)) as fh:
        fh.write(data)


def _create(directory: str, name: str, mode: int) -> tuple[str, int]:
    """A new temporary file beside the target (same file system, so the rename is atomic)."""
    for _ in range(100):
        temporary = os.path.join(directory, f".{name[:200]}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:
            continue
        if mode != 0o666:
            os.chmod(temporary, mode)  # the old file's permissions; a new file gets 0o666 less the umask
        return temporary, fd
    raise FileExistsError(17, "cannot create a temporary file", directory)  # pragma: no cover
