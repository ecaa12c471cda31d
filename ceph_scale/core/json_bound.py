"""JSON decoded within a memory bound, whatever the body's shape.

The byte cap (io/bounded_http.py) bounds a response's bytes, not what they decode to:
`[{},{},...]` decodes to 25 times its size in CPython, `{"":{}}` elements to 33 times,
so a body at the 256 MiB cap would take 6 to 8 GB. Before decoding a body larger than
budget / MOST_PER_BYTE (7 MB at the default budget), `loads` scans its bytes (`bytes.count`:
1 to 2 s for 256 MiB) and projects an upper bound of what the decode allocates, for any
shape (n: the body's bytes):

    text      tw x n     the str json decodes from: tw = 1, 2 or 4 bytes a character
                         (4 if a UTF-8 byte opens a 4-byte sequence)
    contents  cw x n     the strings' characters and the numbers' digits: cw = tw, or with
                         escapes 2 (ASCII) to 8 (a \\u escape may widen a string by copying)
    {         DICT       a dict and its first keys table
    [         LIST       a list and its first item array
    "" pair   STRING     a str's header, every key and value
    :         MEMBER     a dict entry and the decoder's key memo entry, with their growth
    value     SLOT       a list's item pointer: one per "," ":" "[" and the top level
    number    NUMBER     an int or float, at most one per value that is not a string

and refuses a body whose projection is over the budget, with one line giving the figures
(the caller names the source), before allocating anything. The costs are CPython 3.11's
and 3.13's on 64-bit, each above the traced peak of a body made of that item alone;
tests/unit/test_decode_bound.py checks the projection against the traced peak of every
hostile shape.

The bound: decoding one response holds at most its raw bytes plus the budget (the text
included), BUDGET_RATIO x the byte cap: 1.5 GiB at the default 256 MiB cap, 1.75 GiB (7x
the cap) with the raw body, against 6 to 8 GB unbounded. The ceph CLI's and radosgw-admin's
output is read up to the same byte cap (io/child_output.py); librados replies arrive as one
buffer no call can cap (docs/security.md, "What is not bounded"); their budget is the default
one. The responses read whole at scale are the
bucket listings (radosgw-admin lists every key at once): they project to 5.4 to 5.6 times
their size, so a listing up to the cap decodes (~15 M bucket names). Dict-heavy answers
project to 10 to 21 times theirs (their keys are shared, which a scan cannot see) and are
read a piece at a time (`pg dump`: core/json_stream.py; bucket stats: one bucket a read)
or are small (`osd dump`, 0.4 MB at the study's 318 OSDs, decodes whole up to ~70 MB).
`.venv/bin/python -m bench.decode_bound` prints each shape's peak at the real cap.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

# The cap on one HTTP response (io/bounded_http.py enforces it): the bucket stats of the study's
# 100,000 buckets are about 95 MB of JSON; twice that is room for larger bucket entries, and
# still bounded.
MAX_RESPONSE_BYTES = 256 * 1024**2
BUDGET_RATIO = 6
DEFAULT_BUDGET = BUDGET_RATIO * MAX_RESPONSE_BYTES

# Bytes per item, CPython 3.11-3.13 on 64-bit, each over the measured worst case (the traced
# peak of a body made of that item only; tests/unit/test_decode_bound.py checks them).
BASE = 1 << 20  # the decoder's fixed costs
DICT = 200  # 64 with its GC header, and a first keys table of 5 entries
LIST = 96  # 56 with its GC header, and a first item array of 4 slots
STRING = 56  # a str's header, 49 bytes for ASCII (its characters are the contents' part)
WIDE_STRING = 80  # ... 74 to 76 bytes for UCS-2 and UCS-4
MEMBER = 80  # a dict entry and the key memo's entry, with their growth
SLOT = 9  # a list's item pointer, 1/8 over-allocated
NUMBER = 32  # an int (28 to 32 bytes) or a float (24)


class DecodeBoundError(ValueError):
    """A body whose decode would exceed the budget; the message is one line with the figures."""


def _widths(raw: bytes) -> tuple[int, int, int]:
    """Bytes a character of the decoded text may take; bytes of contents a byte of raw may
    become (a string with escapes is built in a buffer that grows by a quarter and widens
    by copying: UCS-1 to UCS-4 at a late \\ud83d escape, ~6 bytes a byte); a str's header."""
    narrow = raw.isascii() and b"\\u" not in raw  # every string is then ASCII
    text = 1 if raw.isascii() else 4 if any(lead in raw for lead in range(0xF0, 0xF5)) else 2
    if b"\\" not in raw:
        contents = text
    else:
        contents = 2 if narrow else 8
    return text, contents, STRING if narrow else WIDE_STRING


def projected_bytes(raw: bytes) -> int:
    """An upper bound of what json.loads(raw) allocates at its peak, the text included."""
    text, contents, header = _widths(raw)
    dicts, lists, colons = raw.count(b"{"), raw.count(b"["), raw.count(b":")
    values = raw.count(b",") + colons + lists + 1  # a value follows each, and one is the top
    strings = (raw.count(b'"') + 1) // 2
    # A value that is not a string may be a number; keys are the strings before a colon. An
    # escaped quote counted as a string takes a number away but costs more than one.
    numbers = max(0, values - max(0, strings - colons))
    return (
        BASE
        + (text + contents) * len(raw)
        + DICT * dicts
        + LIST * lists
        + header * strings
        + MEMBER * colons
        + SLOT * values
        + NUMBER * numbers
    )


# The most a byte of raw can project to (text and contents, and a "{"): a body this many
# times smaller than the budget is decoded without a scan (an Admin Ops page, a 1 MB piece).
MOST_PER_BYTE = 4 + 8 + DICT


def mb(size: float) -> str:
    return f"{size / 2**20:.0f} MB" if size >= 2**20 else f"{size / 2**20:.1f} MB"


def check(raw: bytes, budget: int | None = None) -> None:
    """DecodeBoundError if decoding raw may allocate more than `budget` bytes (DEFAULT_BUDGET)."""
    budget = DEFAULT_BUDGET if budget is None else budget
    if BASE + MOST_PER_BYTE * len(raw) <= budget:
        return
    need = projected_bytes(raw)
    if need > budget:
        raise DecodeBoundError(f"{mb(len(raw))} of JSON would decode to ~{mb(need)}, over the {mb(budget)} bound")


def loads(
    raw: bytes, budget: int | None = None, utf8_errors: str | None = None, first: Callable[[bytes], Any] | None = None
) -> Any:
    """json.loads(raw) within `budget` bytes: DecodeBoundError if it may take more, and for
    any other bad body a ValueError of one line (invalid JSON, a nesting too deep for the
    decoder, an integer too long). With `utf8_errors` ("strict", "replace") the text is
    raw.decode("utf-8", utf8_errors), else what json.loads makes of bytes.

    `first`: a faster decoder tried before json.loads, which must give json.loads' value
    wherever it gives one and raise ValueError elsewhere (the sidecar's, exporter/sidecar/
    fast_json.py); json.loads then makes the outcome, its error included."""
    check(raw, budget)
    if first is not None:
        try:
            return first(raw)
        except ValueError:
            pass
    try:
        return json.loads(raw if utf8_errors is None else raw.decode("utf-8", utf8_errors))
    except RecursionError:
        raise ValueError("JSON nested too deep to decode") from None
