"""A saved table restored row by row.

The saved state is a file (or the monitors' store) that anything may have edited, truncated
or written with another version. A row that does not read is dropped alone and counted, so
that one bad bucket of 100,000 costs that bucket (read again, or counted afresh), never the
table or the other signals' history.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

_T = TypeVar("_T")

# What reading a malformed row raises: a wrong type or arity, a bad number, a number past any
# float (valid JSON: an integer of 400 digits, or 1e400 read as infinity and then as an int).
UNREADABLE = (TypeError, ValueError, OverflowError, KeyError, IndexError, AttributeError, RecursionError)


def reason(error: BaseException) -> str:
    """Why a saved value did not read, in one short line."""
    return f"{type(error).__name__}: {str(error)[:120]}"


class Dropped:
    """The rows of one saved table that did not read: how many, and the first one's reason."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.rows = 0
        self.count = 0
        self.first = ""

    def add(self, key: str, error: BaseException) -> None:
        self.count += 1
        if not self.first:
            self.first = f"{key[:80]!r}: {reason(error)}"

    def report(self, problems: list[str] | None) -> None:
        """Adds one line to `problems` if anything was dropped."""
        if self.count and problems is not None:
            problems.append(
                f"{self.table}: {self.count:,} of {self.rows:,} saved rows unreadable, dropped (first {self.first})"
            )


def read_rows(
    table: object, read: Callable[[str, Any], _T], dropped: Dropped, unread: Callable[[str], _T] | None = None
) -> dict[str, _T]:
    """`read(key, row)` of each row of a saved `{key: row}` table; a row it fails on is counted in
    `dropped`, and kept as `unread(key)` if given (what a row that says nothing stands for).
    Anything but a table (null included) reads as an empty one, counted as one dropped row; the
    caller passes `{}` for a table that was never saved."""
    if not isinstance(table, dict):
        dropped.rows += 1
        dropped.add(dropped.table, TypeError(f"a table was expected, not {type(table).__name__}"))
        return {}
    out: dict[str, _T] = {}
    dropped.rows += len(table)
    for key, row in table.items():
        try:
            out[str(key)] = read(str(key), row)
        except UNREADABLE as e:
            dropped.add(str(key), e)
            if unread is not None:
                out[str(key)] = unread(str(key))
    return out


def version_of(data: object) -> object:
    """A saved state's version; what it is instead when it is not a table at all."""
    return data.get("version") if isinstance(data, dict) else f"none: a {type(data).__name__}"


def read_value(
    data: dict[str, Any], key: str, convert: Callable[[Any], _T], default: _T, problems: list[str] | None
) -> _T:
    """`convert(data[key])`, `default` when absent; when it does not read, `default` and a line."""
    if key not in data:
        return default
    try:
        return convert(data[key])
    except UNREADABLE as e:
        if problems is not None:
            problems.append(f"saved {key!r} unreadable ({reason(e)}); it starts at {default!r}")
        return default


def as_fsid(v: Any) -> str:
    """A cluster's fsid as the snapshot had it (Ceph prints a UUID): a short printable string."""
    if not isinstance(v, str) or not 0 < len(v.strip()) <= 64 or not v.isprintable():
        raise ValueError(f"not a cluster fsid: {str(v)[:40]!r}")
    return v.strip().lower()


def as_time(v: Any) -> float:
    """A saved time (or rate): a finite JSON number."""
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
        raise ValueError(f"not a finite number: {str(v)[:40]}")
    return float(v)


def as_count(v: Any, least: int = 0) -> int:
    """A saved count: a whole JSON number, at least `least`."""
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v != int(v) or v < least:
        raise ValueError(f"not a count from {least}: {str(v)[:40]}")
    return int(v)
