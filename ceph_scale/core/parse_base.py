"""What every parser of Ceph's outputs shares: the input error and the checked field reads.

A field the parsers read is either there with the right type, or the read raises
`InputError` naming the field's path (`osd_df.nodes[3].kb: missing`), so a source
reports one clear line and keeps its last good part. Nothing here defaults a
missing number to 0: where Ceph itself leaves a field out for a real zero, the
parser that knows it says so next to the read, with the capture that shows it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # the manager's Python 3.9 has no typing.ParamSpec; annotations are never evaluated
    from typing_extensions import ParamSpec

    _P = ParamSpec("_P")
_R = TypeVar("_R")


class InputError(ValueError):
    """A raw input that does not have the expected shape."""


def refuses_bad_shapes(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """The parsers check the fields they know; this turns any shape they did not
    foresee (a list where an object was, a number where a string was) into the
    same clear InputError, so a source never dies of an unexpected TypeError."""

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return func(*args, **kwargs)
        except InputError:
            raise
        except (AttributeError, TypeError, KeyError, IndexError, ValueError, RecursionError) as e:
            raise InputError(f"{func.__name__}: unexpected input shape: {type(e).__name__}: {e}") from None

    return wrapper


def _get(obj: Any, key: str, path: str) -> Any:
    if not isinstance(obj, dict):
        raise InputError(f"{path}: expected an object, got {type(obj).__name__}")
    if key not in obj:
        raise InputError(f"{path}.{key}: missing")
    return obj[key]


def _obj(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{path}: expected an object, got {type(value).__name__}")
    return value


def _list(obj: Any, path: str) -> list[Any]:
    if not isinstance(obj, list):
        raise InputError(f"{path}: expected a list, got {type(obj).__name__}")
    return obj


def _int(value: Any, path: str) -> int:
    if isinstance(value, bool):
        raise InputError(f"{path}: expected an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return int(value)
    if isinstance(value, str):
        s = value.strip()
        # int() also takes "1_000" and non-ASCII digits; Ceph writes neither.
        if s.isascii() and (s[1:] if s[:1] in "+-" else s).isdigit():
            return int(s)
    raise InputError(f"{path}: expected an integer, got {value!r:.80}")


def _count(value: Any, path: str) -> int:
    """A count or a size: an integer of at least 0 (Ceph's are unsigned)."""
    n = _int(value, path)
    if n < 0:
        raise InputError(f"{path}: expected a count of at least 0, got {n}")
    return n


def _float(value: Any, path: str) -> float:
    if isinstance(value, bool):
        raise InputError(f"{path}: expected a number, got {value!r}")
    if isinstance(value, (int, float)):
        try:
            f = float(value)
        except OverflowError:
            raise InputError(f"{path}: number out of range") from None
    elif isinstance(value, str):
        try:
            f = float(value.strip())
        except ValueError:
            raise InputError(f"{path}: expected a number, got {value!r:.80}") from None
    else:
        raise InputError(f"{path}: expected a number, got {type(value).__name__}")
    if not math.isfinite(f):
        raise InputError(f"{path}: expected a finite number, got {value!r:.80}")
    return f


def _str(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{path}: expected a string, got {type(value).__name__}")
    return value


def _opt_str(obj: dict[str, Any], key: str, path: str) -> str:
    """A text field Ceph may leave out (a label, never a number): "" when absent or null."""
    value = obj.get(key)
    return "" if value is None else _str(value, f"{path}.{key}")


def _opt_int(value: Any, path: str) -> int | None:
    if value in (None, ""):
        return None
    return _int(value, path)


def _flag(value: Any) -> bool | None:
    if value is None:
        return None
    return str(value).strip().lower() in ("1", "true", "yes")


def parse_stamp(value: Any, path: str) -> float:
    """Ceph time stamps to epoch seconds.

    Pacific and later: "2026-11-22T20:41:11.123456+0000"; Octopus and
    earlier: "2020-02-04 10:20:30.123456" (UTC, no zone).
    """
    s = _str(value, path).strip()
    fast = _pacific_stamp(s)
    if fast is not None:
        return fast
    return stamp_by_formats(s, path)


def stamp_by_formats(s: str, path: str) -> float:
    """The general path, for what the Pacific fast path does not take."""
    for fmt in ("%Y-%m-%dT%H:%M:%S.%f%z", "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S"):
        try:
            dt = datetime.strptime(s, fmt)
        except ValueError:
            continue
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=timezone.utc)
        try:
            return dt.timestamp()
        except (OverflowError, ValueError):
            break
    raise InputError(f"{path}: not a Ceph time stamp: {s!r:.80}")


_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


@functools.lru_cache(maxsize=4096)
def _hour_micros(hour: str, zone: str) -> int | None:
    """Epoch microseconds at the start of the hour "YYYY-MM-DDTHH:" in the zone "+HHMM", or None
    if either is not exactly that. A dump's stamps share few hours: each is worked out once."""
    if len(hour) != 14 or hour[4] != "-" or hour[7] != "-" or hour[10] != "T" or hour[13] != ":":
        return None
    if len(zone) != 5 or zone[0] not in "+-":
        return None
    digits = hour[0:4] + hour[5:7] + hour[8:10] + hour[11:13] + zone[1:5]
    if not (digits.isascii() and digits.isdigit()):
        return None
    h, off_h, off_m = int(hour[11:13]), int(zone[1:3]), int(zone[3:5])
    if h > 23 or off_h > 23 or off_m > 59:
        return None
    try:
        days = date(int(hour[0:4]), int(hour[5:7]), int(hour[8:10])).toordinal() - _EPOCH_ORDINAL
    except ValueError:
        return None
    offset = (off_h * 3600 + off_m * 60) * (1 if zone[0] == "+" else -1)
    return (days * 86400 + h * 3600 - offset) * 1_000_000


def _pacific_stamp(s: str) -> float | None:
    """parse_stamp's value for exactly "YYYY-MM-DDTHH:MM:SS.ffffff+HHMM", else None.

    strptime costs ~10 us and a PG has two stamps: 21,760 PGs spent most of
    their parsing there. Where this Python's datetime.fromisoformat reads the
    format (3.11 on), it does, at half the cost of the arithmetic below, on the
    stamps whose fields it cannot read otherwise than strptime: ASCII, the
    calendar date, an hour below 24 (3.14 reads "24:00") and zone minutes below
    60 (it reads "+0060" as an hour). Anything it refuses, the arithmetic decides.
    """
    if len(s) != 31 or s[4:20:3] != "--T::.":  # the separators at 4, 7, 10, 13, 16 and 19
        return None
    if (
        _ISO_READS_PACIFIC
        and s[26] in "+-"
        and s[5] <= "1"
        and s[11:13] <= "23"
        and s[29] <= "5"
        and s.isascii()
        and s[27:].isdigit()  # it reads "+00,0" and "+00:0" too
    ):
        try:
            return datetime.fromisoformat(s).timestamp()
        except ValueError:
            pass
    return _pacific_arithmetic(s)


def _pacific_arithmetic(s: str) -> float | None:
    """_pacific_stamp without fromisoformat, on a stamp whose separators are checked: the same
    integer microseconds divided the same way as datetime.timestamp() does, so the float is
    identical (tests/bench/)."""
    base = _hour_micros(s[:14], s[26:])
    if base is None:
        return None
    tail = s[14:16] + s[17:19] + s[20:26]
    if not (tail.isascii() and tail.isdigit()):
        return None
    minute, second = int(s[14:16]), int(s[17:19])
    if minute > 59 or second > 59:
        return None
    return (base + (minute * 60 + second) * 1_000_000 + int(s[20:26])) / 10**6


def _iso_reads_pacific() -> bool:
    """Whether datetime.fromisoformat reads Pacific's stamps ("+HHMM" zones: Python 3.11 on) to
    the arithmetic's value (the manager's Python may be older)."""
    probe = "2024-02-29T23:59:59.999999-0130"
    try:
        return datetime.fromisoformat(probe).timestamp() == _pacific_arithmetic(probe)
    except ValueError:
        return False


_ISO_READS_PACIFIC = _iso_reads_pacific()
