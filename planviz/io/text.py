"""Untrusted input to text: paths, open files and bytes, with size caps and encoding checks.

Plans are often written by a model, so nothing here trusts its input: files
are capped at :data:`planviz.io.limits.MAX_BYTES` (read at each call, so a
program may raise it), encodings are checked (UTF-8, or UTF-16/32
with a byte-order mark), NUL characters are refused, and text that cannot be
written back as UTF-8 (a lone surrogate) is refused with its place. A string
is never guessed to be a path: :func:`read_path` reads a path, :func:`text_of`
takes text.

>>> text_of(b"\\xef\\xbb\\xbfgoal: g")
'goal: g'
>>> text_of("goal: g".encode("utf-16"))
'goal: g'
>>> text_of(b"goal: caf\\xe9")  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
planviz.errors.PlanFormatError: <string>:1:10: invalid UTF-8 at byte offset 9 (byte 0xe9): expected UTF-8
text (save the file as UTF-8)
"""

from __future__ import annotations

import codecs
import os
import stat
from typing import IO, Any

from planviz.errors import PlanFormatError
from planviz.io import limits
from planviz.io.syntax import line_col, show_value

__all__ = [
    "STRING_NAME",
    "text_of",
    "read_path",
    "read_stream",
    "decode",
    "check_text",
    "too_large",
    "open_regular",
    "file_kind",
]

STRING_NAME = "<string>"

_BOMS = (  # longest first: the UTF-32-LE mark starts with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def text_of(content: str | bytes | bytearray | memoryview, name: str = STRING_NAME) -> str:
    """Plan text given as text or bytes, checked: size cap, encoding, no NUL, a leading byte-order mark dropped."""
    if isinstance(content, (bytes, bytearray, memoryview)):
        content = bytes(content)
        if len(content) > limits.MAX_BYTES:
            raise too_large(f"{len(content):,} bytes is", name)
        return decode(content, name)
    if len(content) > limits.MAX_BYTES:
        raise too_large(f"text of {len(content):,} characters is", name)
    return check_text(content.removeprefix("\ufeff"), name)


def read_path(path: str | os.PathLike[str]) -> tuple[str, str]:
    """``(text, name)`` of the file at ``path``; a missing or unreadable file, or one that is not a regular
    file (a FIFO would block forever, a device never end), is a located error."""
    name = os.fspath(path)
    with open_regular(
        name, "a plan, contract or planner output is a regular file; for standard input give -"
    ) as fh:
        try:
            data = fh.read(limits.MAX_BYTES + 1)
        except OSError as exc:
            raise PlanFormatError(
                f"cannot read the file: {exc.strerror or exc}", source=name
            ) from None
    if len(data) > limits.MAX_BYTES:
        raise too_large("file is", name)
    return decode(data, name), name


def open_regular(
    name: str | os.PathLike[str],
    hint: str,
    error: type[PlanFormatError] = PlanFormatError,
    noun: str = "file",
    expected: str = "a regular file",
) -> IO[bytes]:
    """``name`` opened for reading (binary) if it is a regular file: the one check of every input path.

    Opened without blocking, so a FIFO never hangs the reader; a directory, FIFO, device or socket is
    refused as ``error`` saying what it is, that ``expected`` was, and ``hint``; a path holding a NUL or a
    lone surrogate (no file can have that name) is refused the same way ("cannot read the ``noun``"),
    never a ValueError or UnicodeEncodeError.

    >>> open_regular("/dev/null", "give a file")
    Traceback (most recent call last):
    ...
    planviz.errors.PlanFormatError: /dev/null: this is a device, not a regular file; give a file
    """
    shown = os.fspath(name)
    shown = shown if isinstance(shown, str) else os.fsdecode(shown)
    if "\x00" in shown:
        raise error(
            "the path holds a NUL character: no file can have that name", source=repr(shown)
        )
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as exc:  # UnicodeEncodeError: a lone surrogate in the path
        why = (
            exc.strerror
            if isinstance(exc, OSError) and exc.strerror
            else "the path cannot be encoded (a lone surrogate?): no file can have that name"
        )
        raise error(
            f"cannot read the {noun}: {why}",
            source=shown.encode("utf-8", "backslashreplace").decode(),
        ) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise error(f"this is {file_kind(mode)}, not {expected}; {hint}", source=shown)
    return os.fdopen(fd, "rb")


def file_kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, for messages ("a FIFO (named pipe)", "a device", ...)."""
    return (
        "a directory"
        if stat.S_ISDIR(mode)
        else "a FIFO (named pipe)"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a regular file"
        if stat.S_ISREG(mode)
        else "not a regular file"
    )


def read_stream(stream: Any) -> tuple[str, str]:
    """``(text, name)`` of an open file (binary or text), read up to the cap."""
    name = str(getattr(stream, "name", STRING_NAME))
    try:
        content = stream.read(limits.MAX_BYTES + 1)
    except (OSError, ValueError) as exc:
        raise PlanFormatError(f"cannot read: {exc}", source=name) from None
    if not isinstance(content, (str, bytes, bytearray)):
        raise PlanFormatError(
            f"reading gave {show_value(content)}, expected text or bytes", source=name
        )
    if len(content) > limits.MAX_BYTES:
        raise too_large("input is", name)
    return text_of(content, name), name


def decode(data: bytes, name: str = STRING_NAME) -> str:
    """Decode file bytes: UTF-8, or the encoding a byte-order mark names; the mark is dropped.

    >>> decode(b"\\xff\\xfeg\\x00")
    'g'
    """
    codec, start = "utf-8", 0
    for bom, bom_codec in _BOMS:
        if data.startswith(bom):
            codec, start = bom_codec, len(bom)
            break
    try:
        text = data[start:].decode(codec)
    except UnicodeDecodeError as exc:
        offset = start + exc.start
        line = data.count(b"\n", 0, offset) + 1
        column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
        bad = data[offset : offset + 1].hex()
        expected = (
            "UTF-8 text (save the file as UTF-8)"
            if codec == "utf-8"
            else f"{codec} text, as its byte-order mark says"
        )
        raise PlanFormatError(
            f"invalid {codec.upper().replace('-LE', '').replace('-BE', '')} at byte offset "
            f"{offset} (byte 0x{bad}): expected {expected}",
            source=name,
            line=line,
            column=column,
        ) from None
    return check_text(text, name)


def check_text(text: str, name: str = STRING_NAME) -> str:
    """``text`` itself, after refusing a NUL character or a lone surrogate (text that is not Unicode) with its place."""
    nul = text.find("\x00")
    if nul >= 0:
        line, column = line_col(text, nul)
        raise PlanFormatError(
            "NUL character: expected text, got binary data (or UTF-16 without a byte-order mark)",
            source=name,
            line=line,
            column=column,
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        line, column = line_col(text, exc.start)
        raise PlanFormatError(
            f"lone surrogate {text[exc.start]!r}: expected Unicode text that can be written "
            "as UTF-8",
            source=name,
            line=line,
            column=column,
        ) from None
    return text


def too_large(what: str, name: str) -> PlanFormatError:
    """The refusal of input over :data:`planviz.io.limits.MAX_BYTES`, saying how to raise the cap."""
    return PlanFormatError(
        f"{what} larger than the {limits.mib(limits.MAX_BYTES)} cap: "
        f"{limits.raise_hint('MAX_BYTES')}",
        source=name,
    )
