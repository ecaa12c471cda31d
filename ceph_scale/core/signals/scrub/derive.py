"""Scrub backlog [004, 001, 003].

Overdue follows Ceph's own rule for PG_NOT_SCRUBBED / PG_NOT_DEEP_SCRUBBED:
a stamp older than interval x (1 + mon_warn_pg_not_(deep_)scrubbed_ratio), the
interval being the pool's own scrub_max_interval / deep_scrub_interval where set.
Completed scrubs are counted from stamps that moved forward, which needs only
the previous stamps: no per-PG series are exported.
"""

from __future__ import annotations

from ...config import Thresholds
from ...families import Family, counter, gauge
from ...history import Series
from ...snapshot import ClusterSettings, Snapshot
from ..signal_input import SignalInput
from .result import ScrubBacklog, ScrubResult
from .tally import tally

KINDS = ("scrub", "deep_scrub")


class ScrubState:
    def __init__(self, th: Thresholds) -> None:
        self.seen_at = 0.0
        self.stamps: dict[str, tuple[float, float]] = {}
        self.completed = {"scrub": 0, "deep_scrub": 0}
        self.completed_history = {k: Series(th.scrub_rate_window_seconds) for k in KINDS}
        self.scrubbing_history = {k: Series(th.scrub_rate_window_seconds) for k in KINDS}
        # What the last PG poll showed (PGs scrubbing by kind, recovering by activity, remapped
        # otherwise), for the plunge signal's evidence.
        self.activity: dict[str, int] = {}

    def retuned(self, th: Thresholds) -> ScrubState:
        """New thresholds restart the rate windows; the completed counters go on."""
        fresh = ScrubState(th)
        fresh.completed = dict(self.completed)
        return fresh


def overdue_after(settings: ClusterSettings | None) -> dict[str, float]:
    s = settings or ClusterSettings(collected_at=0.0)
    return {
        "scrub": s.scrub_max_interval_seconds * (1 + s.warn_pg_not_scrubbed_ratio),
        "deep_scrub": s.deep_scrub_interval_seconds * (1 + s.warn_pg_not_deep_scrubbed_ratio),
    }


def pool_overdue_after(snap: Snapshot) -> dict[int, dict[str, float]]:
    """Pools with their own scrub_max_interval / deep_scrub_interval: Ceph judges their PGs
    by them, with the same warn ratios."""
    s = snap.settings or ClusterSettings(collected_at=0.0)
    cluster = (s.scrub_max_interval_seconds, s.deep_scrub_interval_seconds)
    out: dict[int, dict[str, float]] = {}
    for pool in snap.capacity.pools if snap.capacity is not None else ():
        own = (pool.scrub_max_interval_seconds, pool.deep_scrub_interval_seconds)
        if any(own):
            scrub, deep = (o if o > 0 else c for o, c in zip(own, cluster))
            out[pool.pool_id] = {
                "scrub": scrub * (1 + s.warn_pg_not_scrubbed_ratio),
                "deep_scrub": deep * (1 + s.warn_pg_not_deep_scrubbed_ratio),
            }
    return out


def derive(given: SignalInput, state: ScrubState) -> list[Family]:
    snap = given.snap
    part = snap.pgs
    if part is None:
        return []
    now = part.collected_at
    limits = overdue_after(snap.settings)
    pool_limits = pool_overdue_after(snap)
    fresh = now > state.seen_at
    t = tally(part.pgs, now, limits, pool_limits, state.stamps if fresh else None)
    overdue = {"scrub": t.overdue[0], "deep_scrub": t.overdue[1]}
    oldest = {"scrub": t.oldest[0], "deep_scrub": t.oldest[1]}
    scrubbing = {"scrub": t.scrubbing[0], "deep_scrub": t.scrubbing[1]}
    # OSDs do not start scrubs while they recover (osd_scrub_during_recovery is off by default):
    # a backlog that grows during a recovery is the recovery's, not a scrub capacity problem.
    recovering = {"recovery": t.recovery, "backfill": t.backfill}
    remapped = t.remapped  # neither recovering nor backfilling, but not where CRUSH puts them: data to move
    if fresh:
        state.completed["scrub"] += t.completed[0]
        state.completed["deep_scrub"] += t.completed[1]
        state.stamps = t.stamps
        state.seen_at = now
        state.activity = {**scrubbing, **recovering, "remapped": remapped}
        for kind in KINDS:
            state.completed_history[kind].add(now, state.completed[kind])
            state.scrubbing_history[kind].add(now, scrubbing[kind])

    total = len(part.pgs)
    f_overdue = gauge("pg_scrub_overdue", "PGs whose last (deep) scrub is overdue by Ceph's own rule.", "kind")
    f_ratio = gauge("pg_scrub_overdue_ratio", "Share of PGs overdue.", "kind")
    f_oldest = gauge("pg_scrub_oldest_age_seconds", "Age of the oldest (deep) scrub stamp.", "kind")
    f_after = gauge("pg_scrub_overdue_after_seconds", "Stamp age from which a PG counts as overdue.", "kind")
    f_now = gauge("pg_scrubbing", "PGs scrubbing now.", "kind")
    f_done = counter("pg_scrubs_completed", "Scrubs completed, seen as a PG's stamp moving forward.", "kind")
    f_clear = gauge(
        "pg_scrub_backlog_clear_seconds",
        "Overdue PGs divided by the scrub completion rate; +Inf when nothing completes.",
        "kind",
    )
    backlog: dict[str, ScrubBacklog] = {}
    for kind in KINDS:
        share = overdue[kind] / total if total else 0.0
        oldest_age = max(0.0, now - oldest[kind]) if total else 0.0
        f_overdue.add(overdue[kind], kind)
        f_ratio.add(share, kind)
        f_oldest.add(oldest_age, kind)
        f_after.add(limits[kind], kind)
        f_now.add(scrubbing[kind], kind)
        f_done.add(state.completed[kind], kind)
        history = state.completed_history[kind]
        clear: float | None = None
        if overdue[kind] == 0:
            clear = 0.0
        elif history.span() > 0:
            (t0, c0), (t1, c1) = history.points[0], history.points[-1]
            rate = (c1 - c0) / (t1 - t0)
            clear = overdue[kind] / rate if rate > 0 else float("inf")
        if clear is not None:
            f_clear.add(clear, kind)
        backlog[kind] = ScrubBacklog(
            overdue[kind], clear, share, oldest_age, limits[kind], scrubbing[kind], state.completed[kind]
        )
    f_recovering = gauge(
        "pg_recovering", "PGs recovering or backfilling, or waiting to (scrubs pause meanwhile).", "activity"
    )
    for activity, count in recovering.items():
        f_recovering.add(count, activity)
    given.judged(ScrubResult(total, backlog["scrub"], backlog["deep_scrub"]))
    families = [gauge("pgs", "Placement groups.").add(total), f_overdue, f_ratio, f_oldest, f_after, f_now]
    return families + [f_done, f_clear, f_recovering]
