"""One big JSON array decoded a chunk at a time.

`pg dump` at 20,000+ PGs and the bucket stats of 100,000 buckets are tens of megabytes of
JSON; decoding them whole costs several times that in dicts. The parsers in inputs.py
walk the elements as they come instead, and fall back to a full decode on anything
unusual, so the result or the error is always the full decode's. Every decode here is
bounded as the full one is (core/json_bound.py): a piece whose decode would be over the
budget is unusual, and goes to the full decode, which refuses it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from . import json_bound

_BOUNDARY = re.compile(rb"\}\s*,\s*\{")
# 64 KiB: the elements a chunk decodes to are still in the CPU's cache when the parser reads them;
# at 1 MiB, 21,760 PGs took 1.7 to 2 times as long to decode and read (bench/, issue 29).
_CHUNK_BYTES = 1 << 16
_SLOT = '"\\u0000ceph-scale-slot"'
Loads = Callable[[bytes], Any]


class _NotPlain(ValueError):
    pass


def iter_json_array(
    raw: bytes, key: str | None, chunk_bytes: int | None = None, first: Loads | None = None
) -> Iterator[Any] | None:
    """The elements of the JSON array `raw` (key None) or `raw[key]` (an object), decoded chunk by chunk.

    Returns None when raw does not look like that shape. The iterator raises
    ValueError if the text turns out not to be exactly that (the caller then
    decodes it whole). Sound by construction: the text is cut only where an
    element may end ("}" "," "{"), and a cut is kept only if the piece before
    it decodes on its own as the body of an array; pieces that each decode,
    joined by commas, are the array. The object around a keyed array is
    checked by decoding it with the array replaced by a marker, so the array
    is known to be its value under `key` at the top level. `first`: a faster decoder of the
    pieces, as json_bound.loads takes it.
    """
    if not isinstance(raw, (bytes, bytearray)):
        return None
    chunk_bytes = chunk_bytes or _CHUNK_BYTES  # read at each call: the tests set smaller ones
    start, end = 0, len(raw)
    while start < end and raw[start] in b" \t\r\n":
        start += 1
    while end > start and raw[end - 1] in b" \t\r\n":
        end -= 1
    if key is None:
        if raw[start : start + 1] != b"[" or raw[end - 1 : end] != b"]":
            return None
        return _array_pieces(raw, start, end - 1, chunk_bytes, first)
    if raw[start : start + 1] != b"{":
        return None
    name = json.dumps(key).encode() + b":"
    at = raw.find(name, start)
    if at < 0:
        return None
    at_open = at + len(name)
    while at_open < end and raw[at_open] in b" \t\r\n":
        at_open += 1
    last = raw.rfind(b"]", at_open, end)
    if raw[at_open : at_open + 1] != b"[" or last < 0:
        return None
    outer = json_bound.loads(raw[start:at_open] + _SLOT.encode() + raw[last + 1 : end], utf8_errors="strict")
    if type(outer) is not dict or outer.get(key) != json.loads(_SLOT) or "pg_map" in outer:
        return None
    return _array_pieces(raw, at_open, last, chunk_bytes, first)


def _array_pieces(raw: bytes, open_at: int, close_at: int, chunk_bytes: int, first: Loads | None) -> Iterator[Any]:
    """Elements of the array raw[open_at] == "[" ... raw[close_at] == "]"."""
    pos = open_at + 1
    while True:
        if close_at - pos <= chunk_bytes:
            body = raw[pos:close_at]
            if body.strip():
                yield from _piece(body, first)
            return
        for tries, cut in enumerate(_BOUNDARY.finditer(raw, pos + chunk_bytes, close_at)):
            if tries == 16:
                raise _NotPlain("no element boundary found")
            try:
                items = _piece(raw[pos : cut.start() + 1], first)
            except ValueError:
                continue  # "}" "," "{" inside an element: try the next one
            yield from items
            pos = cut.end() - 1
            break
        else:
            yield from _piece(raw[pos:close_at], first)
            return


def _piece(body: bytes, first: Loads | None) -> list[Any]:
    items: list[Any] = json_bound.loads(b"[" + body + b"]", utf8_errors="strict", first=first)
    if not items:
        raise _NotPlain("empty piece")
    return items
