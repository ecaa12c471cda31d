"""`pg dump pgs`: each PG's state, scrub stamps and acting set, with a fast path for the common
record."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, Callable

from .json_stream import iter_json_array
from .parse_base import InputError, _get, _list, _pacific_stamp, _str, parse_stamp, refuses_bad_shapes
from .snapshot import PgPart, PgScrubState


@refuses_bad_shapes
def pg_part(pg_dump: Any, collected_at: float) -> PgPart:
    # `pg dump pgs -f json` gives {"pg_ready":..., "pg_stats": [...]} (Pacific+)
    # or a bare list (Nautilus); `pg dump` nests them under "pg_map".
    if isinstance(pg_dump, dict) and "pg_map" in pg_dump:
        pg_dump = pg_dump["pg_map"]
    stats = pg_dump if isinstance(pg_dump, list) else _get(pg_dump, "pg_stats", "pg_dump")
    return PgPart(collected_at=collected_at, pgs=tuple(_pg_records(_list(stats, "pg_dump.pg_stats"))))


# CRUSH_ITEM_NONE: the slot of an EC shard no OSD serves.
NO_OSD = 2147483647
_INTS = frozenset((int,))


def _pg_records(stats: Iterable[Any]) -> Iterator[PgScrubState]:
    # One int object per OSD id for the whole dump: 21,760 acting sets of 6 share 318 of them.
    osd_ids: dict[int, int] = {}
    for i, s in enumerate(stats):
        yield _pg_fast(s, osd_ids) or _pg_checked(s, i, osd_ids)


def _acting(raw: Any, osd_ids: dict[int, int] | None) -> tuple[int, ...]:
    """The acting set's OSD ids; () where absent or not a list of them: unread, not an error.
    Only the plunge's confirmation of its causes reads it (signals/plunge/placement.py), which
    says "unconfirmed" without it: a malformed one must not fail the scrub stamps of the dump.
    osd_ids: the ids seen in this dump, each to itself (a look-up is the fast path)."""
    if type(raw) is not list:
        return ()
    ids = {} if osd_ids is None else osd_ids
    # The look-up alone would take 2.0 or True for an id seen (equal keys): ints only.
    if _INTS.issuperset(map(type, raw)):
        try:
            return tuple(map(ids.__getitem__, raw))
        except KeyError:  # an id not seen yet, or an empty EC slot
            pass
    out = []
    for o in raw:
        if type(o) is not int or o < 0 or o > NO_OSD:  # CRUSH's ids are 32-bit
            return ()
        if o != NO_OSD:
            out.append(ids.setdefault(o, o))
    return tuple(out)


def _pool_of(pgid: str) -> int | None:
    """The pool of a PG id "<pool>.<seed in hex>", or None if it is not one."""
    pool, dot, seed = pgid.partition(".")
    if not dot or not (pool.isascii() and pool.isdigit()) or not seed:
        return None
    return int(pool)


def _pg_fast(s: Any, osd_ids: dict[int, int] | None = None) -> PgScrubState | None:
    """The common well-formed record without building error paths; None sends it to _pg_checked."""
    if type(s) is not dict:
        return None
    pgid, state = s.get("pgid"), s.get("state")
    scrub, deep = s.get("last_scrub_stamp"), s.get("last_deep_scrub_stamp")
    if type(pgid) is not str or type(state) is not str or type(scrub) is not str or type(deep) is not str:
        return None
    pool = _pool_of(pgid)
    if pool is None:
        return None
    scrub_t, deep_t = _pacific_stamp(scrub.strip()), _pacific_stamp(deep.strip())
    if scrub_t is None or deep_t is None:
        return None
    return PgScrubState(pgid, pool, state, scrub_t, deep_t, _acting(s.get("acting"), osd_ids))


def _pg_checked(s: Any, i: int, osd_ids: dict[int, int] | None = None) -> PgScrubState:
    p = f"pg_dump.pg_stats[{i}]"
    pgid = _str(_get(s, "pgid", p), p + ".pgid")
    pool = _pool_of(pgid)
    if pool is None:
        raise InputError(f"{p}.pgid: expected <pool>.<seed>, got {pgid!r:.80}")
    return PgScrubState(
        pgid=pgid,
        pool_id=pool,
        state=_str(_get(s, "state", p), p + ".state"),
        last_scrub_stamp=parse_stamp(_get(s, "last_scrub_stamp", p), p + ".last_scrub_stamp"),
        last_deep_scrub_stamp=parse_stamp(_get(s, "last_deep_scrub_stamp", p), p + ".last_deep_scrub_stamp"),
        acting=_acting(s.get("acting"), osd_ids),
    )


def pg_part_from_json(
    raw: bytes,
    collected_at: float,
    decode: Callable[[bytes], Any] = json.loads,
    first: Callable[[bytes], Any] | None = None,
) -> PgPart:
    """pg_part(decode(raw), collected_at), without ever holding the whole decoded dump.

    At 21,760 PGs `pg dump pgs` is ~50 MB of JSON that decodes to ~100 MB of
    dicts, of which six fields per PG are kept; the PGs are decoded a chunk
    at a time instead (see iter_json_array). Any input that is not the plain
    shape, or any error, goes through pg_part(decode(raw)): the same part,
    the same exception. `first`: a faster decoder of the chunks (core/json_bound.loads).
    """
    try:
        stream = iter_json_array(raw, "pg_stats", first=first)
        if stream is not None:
            return PgPart(collected_at=collected_at, pgs=tuple(_pg_records(stream)))
    except Exception:  # the exact outcome, error included, is the full decode's
        pass
    return pg_part(decode(raw), collected_at)
