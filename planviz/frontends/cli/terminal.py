"""What a command shows on a terminal: one progress line on standard error while it works, help as wide as the
terminal (:class:`CommandParser`, measured without importing shutil).

``planviz simulate`` and ``planviz report`` on big plans and long runs take
seconds; :class:`Progress` is the callback they pass to
:func:`planviz.simulate` and :func:`planviz.report_html` (``progress=``). It
rewrites one line on stderr at most every ``interval`` seconds, and writes
nothing at all when stderr is not a terminal (a pipe, a file, a CI log), so
output stays clean for other programs. Used as a context manager it erases
its line at the end, Ctrl-C included.

>>> import io
>>> out = io.StringIO()
>>> with Progress(out, interval=0.0, tty=True) as progress:
...     progress("simulating: steps done", 5, 10)
>>> out.getvalue() == "\\r\\x1b[2Kplanviz: simulating: steps done 5 of 10\\r\\x1b[2K"
True
>>> quiet = io.StringIO()
>>> Progress(quiet)("simulating", 1, 2); quiet.getvalue()  # not a terminal: nothing
''
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from typing import IO, Any, Iterator

__all__ = ["Progress", "CommandParser", "SizedHelpFormatter", "NeutralText", "neutral_stdout"]

_ERASE = "\r\x1b[2K"  # back to the start of the line, and clear it


class NeutralText:
    """A text stream that shows every control character but the line break as an escape
    (:func:`~planviz.checks.report.printable`): whatever a command prints from a plan or trace, an ESC
    byte never reaches the terminal. Bytes written to ``.buffer`` (an image on stdout) pass unchanged.

    >>> import io
    >>> out = io.StringIO()
    >>> print("S1\\x1b[2J", "ok", file=NeutralText(out)); out.getvalue()
    'S1\\\\x1b[2J ok\\n'
    """

    def __init__(self, stream: IO[str]) -> None:
        from planviz.checks.report import printable

        self._stream, self._printable = stream, printable

    def write(self, text: str) -> int:
        self._stream.write("\n".join(map(self._printable, text.split("\n"))))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, buffer, fileno, isatty, encoding...
        return getattr(self._stream, name)


@contextlib.contextmanager
def neutral_stdout() -> Iterator[None]:
    """``sys.stdout`` as a :class:`NeutralText` for the duration, put back after."""
    stdout = sys.stdout
    sys.stdout = NeutralText(stdout)
    try:
        yield
    finally:
        sys.stdout = stdout


class Progress:
    """Report ``(what, done, total)`` on one rewritten line of ``stream`` (default stderr) if it is a terminal."""

    def __init__(
        self, stream: IO[str] | None = None, *, interval: float = 0.25, tty: bool | None = None
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if tty is None:
            try:
                tty = self.stream.isatty()
            except (AttributeError, ValueError):
                tty = False
        self.on = tty
        self.interval = interval
        self._last = -float("inf")
        self._shown = False

    def __call__(self, what: str, done: int, total: int | None = None) -> None:
        if not self.on:
            return
        now = time.monotonic()
        if now - self._last < self.interval:
            return
        self._last = now
        of = f" of {total:,}" if total else ""
        self.stream.write(f"{_ERASE}planviz: {what} {done:,}{of}")
        self.stream.flush()
        self._shown = True

    def clear(self) -> None:
        """Erase the progress line (if one was written), so what follows starts on a clean line."""
        if self._shown:
            self.stream.write(_ERASE)
            self.stream.flush()
            self._shown = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.clear()


class SizedHelpFormatter(argparse.HelpFormatter):
    """argparse's help formatter, as wide as the terminal, measured without importing shutil.

    argparse makes a formatter for every argument it adds, and its own asks shutil for the width: that
    import (with bz2 and lzma) was a tenth of ``planviz validate``'s start-up (issue 28). The width is the
    one shutil.get_terminal_size gives: ``COLUMNS``, else the terminal's, else 80.
    """

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            try:
                columns = int(os.environ["COLUMNS"])
            except (KeyError, ValueError):
                columns = 0
            if columns <= 0:
                try:
                    columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
                except (AttributeError, ValueError, OSError):
                    columns = 0
            width = (columns or 80) - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class CommandParser(argparse.ArgumentParser):
    """An ArgumentParser whose help is laid out by :class:`SizedHelpFormatter`; its subcommands' parsers are ones too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", SizedHelpFormatter)
        super().__init__(*args, **kwargs)
