"""Run tables made once and read-only that carry their columns, so the page data reads the columns and takes no
row apart again: :class:`ColumnRecords`, a table's records made from its columns when first read (the report
reads only the columns), on the read-only list :mod:`~planviz.frontends.pagedata`'s other tables share.

>>> table = ColumnRecords({"t": ([0.0, 1.5], []), "v": ([1], [0])}, 2)
>>> len(table), table.columns["v"], table
(2, ([1], [0]), [{'t': 0.0}, {'t': 1.5, 'v': 1}])
"""

from __future__ import annotations

from collections import deque
from itertools import compress, islice, repeat
from operator import gt
from typing import Any, Iterable

from planviz.errors import show_value

__all__ = ["ColumnRecords"]


class _ReadOnlyRows(list):  # type: ignore[type-arg]
    """A list made once and never changed (so the columns it carries stay its own); a copy (``copy.copy``,
    pickling, a slice) is a plain list."""

    __slots__ = ()
    _what = "these rows are read-only: copy them with list(rows) to change them"

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(self._what)

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __reduce__(self) -> Any:
        return (list, (list(self),))


class ColumnRecords(_ReadOnlyRows):
    """A run table's records (dicts) made from its columns, which it also carries, so :func:`encode_page` reads
    the columns (no record taken apart again: a 100k-event report's events table); read-only: made once and
    never changed, so the columns stay the records' own. A copy (``copy.copy``, pickling) is a plain list, which
    is encoded from its records.

    ``columns`` maps each key to ``(values, absent)``: the values of the rows that hold the key, in order, and
    the rows (ascending) that do not; a record's keys are in the columns' order. The columns are checked at once;
    the records are made when first read (a report reads only the columns): every reading of the list (length,
    items, iteration, comparison, ``repr``, ``json.dumps``, copies) sees them. (``pprint`` writes the table as its
    ``repr``, on one line.)

    >>> table = ColumnRecords({"t": ([0.0, 1.5], []), "v": ([1], [0])}, 2)
    >>> table, type(table[:]) is list
    ([{'t': 0.0}, {'t': 1.5, 'v': 1}], True)
    """

    __slots__ = ("columns", "_rows", "_waiting")

    def __init__(self, columns: dict[str, tuple[list[Any], list[int]]], rows: int) -> None:
        for key, (values, absent) in columns.items():
            _holding(key, values, absent, rows)
        list.__init__(self)
        self.columns = columns
        self._rows, self._waiting = rows, True  # the records not made yet

    def __len__(self) -> int:  # (no record needed)
        return self._rows

    def _made(self) -> None:
        """Make the records (once): each key in every row that holds it, in C."""
        if not self._waiting:
            return
        rows = self._rows
        records: list[dict[str, Any]] = [{} for _ in range(rows)]
        setitem = dict.__setitem__
        for key, (values, absent) in self.columns.items():
            mask = _holding(key, values, absent, rows)
            holds: Iterable[dict[str, Any]] = records if mask is None else compress(records, mask)
            deque(map(setitem, holds, repeat(key), values), maxlen=0)
        list.__init__(self, records)
        self._waiting = False

    def __radd__(self, other: Any) -> Any:
        """``other + table`` for a list ``other`` (a list's ``+`` would read the table's items directly)."""
        if not isinstance(other, list):
            return NotImplemented
        self._made()
        return list.__add__(other, self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's display: the records, as it shows a list."""
        self._made()
        printer.pretty(list(self))

    _what = "a run table's records are read-only: copy them with list(records) to change them"


def _reading(name: str) -> Any:
    """List method ``name`` of a :class:`ColumnRecords`, made to read its records (made first)."""
    method = getattr(list, name)

    def read(self: ColumnRecords, *args: Any) -> Any:
        self._made()
        return method(self, *args)

    read.__name__, read.__qualname__, read.__doc__ = name, f"ColumnRecords.{name}", method.__doc__
    return read


for _name in (
    "__getitem__",
    "__iter__",
    "__reversed__",
    "__contains__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__add__",
    "__mul__",
    "__rmul__",
    "__repr__",
    "__sizeof__",
    "copy",
    "index",
    "count",
):
    setattr(ColumnRecords, _name, _reading(_name))


def _holding(key: str, values: list[Any], absent: list[int], rows: int) -> list[bool] | None:
    """Which of ``rows`` rows hold column ``key`` (None: every row), or ValueError when its values and absent
    rows do not fit them."""
    mask = None
    if absent:
        mask = [True] * rows
        if min(absent) >= 0:  # (a negative row would count from the end)
            try:
                deque(map(mask.__setitem__, absent, repeat(False)), maxlen=0)
            except IndexError:
                pass
        if mask.count(False) != len(absent) or any(map(gt, absent, islice(absent, 1, None))):
            raise ValueError(
                f"the absent rows of column {key!r} must be distinct rows of 0..{rows - 1} in "
                f"ascending order: {show_value(absent, 120)}"
            )
    if len(values) + len(absent) != rows:
        raise ValueError(
            f"the column {key!r} must hold a value for each of the {rows} rows it does not list as "
            f"absent: {len(values)} values, {len(absent)} absent"
        )
    return mask
