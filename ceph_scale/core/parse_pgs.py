"""`pg dump pgs`: each PG's state and scrub stamps, with a fast path for the common record."""

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


def _pg_records(stats: Iterable[Any]) -> Iterator[PgScrubState]:
    for i, s in enumerate(stats):
        yield _pg_fast(s) or _pg_checked(s, i)


def _pool_of(pgid: str) -> int | None:
    """The pool of a PG id "<pool>.<seed in hex>", or None if it is not one."""
    pool, dot, seed = pgid.partition(".")
    if not dot or not (pool.isascii() and pool.isdigit()) or not seed:
        return None
    return int(pool)


def _pg_fast(s: Any) -> PgScrubState | None:
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
    return PgScrubState(pgid=pgid, pool_id=pool, state=state, last_scrub_stamp=scrub_t, last_deep_scrub_stamp=deep_t)


def _pg_checked(s: Any, i: int) -> PgScrubState:
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
    )


def pg_part_from_json(raw: bytes, collected_at: float, decode: Callable[[bytes], Any] = json.loads) -> PgPart:
    """pg_part(decode(raw), collected_at), without ever holding the whole decoded dump.

    At 21,760 PGs `pg dump pgs` is ~50 MB of JSON that decodes to ~100 MB of
    dicts, of which five fields per PG are kept; the PGs are decoded a chunk
    at a time instead (see iter_json_array). Any input that is not the plain
    shape, or any error, goes through pg_part(decode(raw)): the same part,
    the same exception.
    """
    try:
        stream = iter_json_array(raw, "pg_stats")
        if stream is not None:
            return PgPart(collected_at=collected_at, pgs=tuple(_pg_records(stream)))
    except Exception:  # the exact outcome, error included, is the full decode's
        pass
    return pg_part(decode(raw), collected_at)
