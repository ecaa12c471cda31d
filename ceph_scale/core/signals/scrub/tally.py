"""One pass over every PG (21,760 at study scale, every PG poll): the overdue, the oldest stamps,
the scrubbing, recovering and remapped, and the scrubs completed since the stamps before."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...snapshot import PgScrubState

# The state of nearly every PG, which holds none of the activities counted.
CLEAN = "active+clean"


@dataclass
class Tally:
    overdue: tuple[int, int]  # (scrub, deep scrub)
    oldest: tuple[float, float]
    scrubbing: tuple[int, int]
    recovery: int
    backfill: int
    remapped: int
    completed: tuple[int, int] = (0, 0)
    stamps: dict[str, tuple[float, float]] = field(default_factory=dict)  # pgid -> stamps, when fresh


def tally(
    pgs: tuple[PgScrubState, ...],
    now: float,
    limits: dict[str, float],
    pool_limits: dict[int, dict[str, float]],
    before: dict[str, tuple[float, float]] | None,
) -> Tally:
    """`limits`: the stamp ages past which a PG is overdue, by kind, where its pool has none of its
    own (`pool_limits`); `before`: the stamps of the last poll where this one is new (scrubs that
    completed since are those whose stamp moved forward), else None."""
    default = (limits["scrub"], limits["deep_scrub"])
    per_pool = {pool: (own["scrub"], own["deep_scrub"]) for pool, own in pool_limits.items()}
    over_s = over_d = done_s = done_d = scrub_n = deep_n = recovery = backfill = remapped = 0
    oldest_s = oldest_d = now
    stamps: dict[str, tuple[float, float]] = {}
    for pg in pgs:
        s, d = pg.last_scrub_stamp, pg.last_deep_scrub_stamp
        if before is not None:
            old = before.get(pg.pgid)
            if old is not None:
                if s > old[0]:
                    done_s += 1
                if d > old[1]:
                    done_d += 1
            stamps[pg.pgid] = (s, d)
        limit_s, limit_d = per_pool.get(pg.pool_id, default)
        if now - s > limit_s:
            over_s += 1
        if s < oldest_s:
            oldest_s = s
        if now - d > limit_d:
            over_d += 1
        if d < oldest_d:
            oldest_d = d
        state = pg.state
        if state != CLEAN:
            if "scrubbing" in state:
                if "deep" in state:
                    deep_n += 1
                else:
                    scrub_n += 1
            if "backfill" in state:
                backfill += 1
            elif "recover" in state:
                recovery += 1
            elif "remapped" in state:
                remapped += 1
    return Tally((over_s, over_d), (oldest_s, oldest_d), (scrub_n, deep_n), recovery, backfill, remapped,
                 (done_s, done_d), stamps)  # fmt: skip
