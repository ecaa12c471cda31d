"""Each PG's state and scrub stamps over the span: the pg dump's answers, and the overdue counts
the health checks give (a part of replay.cluster.SimCluster).

Scrubs run every 5 days per PG, or weekly in the scenario's nightly window; the backlog holds PGs
back as it grows; a scrub storm deep scrubs its PGs at once; a node down leaves PGs degraded,
a rebuild after a power outage and a rebalance leave them recovering or backfilling.
"""

from __future__ import annotations

import math
from typing import Any

from bench import synth
from replay.scenario import Cluster, Event

DAY = 86400.0
HOUR = 3600.0
ROLLING_SCRUB = 5 * DAY  # a PG not held back is scrubbed (and deep-scrubbed) every 5 days
SCRUBBING_FOR = 600.0  # a PG shows `scrubbing+deep` for 10 minutes after its stamp
REBUILDING_SHARE = 0.3  # of the PGs recovering when the power returns, down to none over the rebuild


class PgStates:
    """What SimCluster's PGs answer; it sets these attributes and the two methods below."""

    spec: Cluster
    start: float
    span: float
    now: float
    pg_ids: list[str]
    pg_template: dict[str, Any]

    def active(self, kind: str, t: float) -> list[Event]:
        raise NotImplementedError

    def down_osds(self, t: float) -> tuple[set[int], bool]:
        raise NotImplementedError

    def rebuilding(self, t: float) -> float:
        """The share of the PGs recovering at t, after a power outage."""
        share = 0.0
        for e in self.spec.events:
            back = t - self.start - e.at - e.duration
            if e.kind == "power_outage" and 0 <= back < e.rebuild:
                share = max(share, REBUILDING_SHARE * (1 - back / e.rebuild))
        return share

    def scrub_stamps(self, k: int, t: float) -> tuple[float, float]:
        """(last scrub, last deep scrub) of PG k at t."""
        spec = self.spec
        if spec.scrub_window is not None:  # weekly, each PG on its night, in the night's window
            start_hour, hours = spec.scrub_window
            day = math.floor((t - start_hour * HOUR) / DAY)
            offset = start_hour * HOUR + (k // 7) / max(1, len(self.pg_ids) // 7 + 1) * hours * HOUR
            last = (day - ((day - k) % 7)) * DAY + offset
            if last > t:
                last -= 7 * DAY
            rolling = last
        else:
            phase = (k * 7919.0) % ROLLING_SCRUB
            rolling = t - ((t + phase) % ROLLING_SCRUB)
        deep = min(rolling, self.held_back(k, spec.overdue_deep, synth.DEEP_OVERDUE))
        for e in spec.events:  # a storm's PGs are deep scrubbed when it ends
            if e.kind == "scrub_storm" and self.in_storm(k, e) and self.start + e.at + e.duration <= t:
                deep = max(deep, self.start + e.at + e.duration)
        return min(rolling, self.held_back(k, spec.overdue_scrub, synth.SCRUB_OVERDUE)), deep

    def in_storm(self, k: int, e: Event) -> bool:
        """Whether PG k is one of the `pgs` a scrub storm deep scrubs: spread over the pools."""
        return k % max(1, len(self.pg_ids) // e.pgs) == 0 and k // max(1, len(self.pg_ids) // e.pgs) < e.pgs

    def held_back(self, k: int, overdue: tuple[int, int], limit: float) -> float:
        """The stamp PG k keeps when the backlog holds it: it turns overdue when the backlog's
        count, growing linearly over the span, reaches it; never, when it does not."""
        first, last = overdue
        if k < first:
            return self.start - limit - HOUR - k
        if k >= last or last == first:
            return math.inf
        return self.start + self.span * (k - first + 1) / (last - first) - limit

    def pg_dump(self) -> dict:
        down, _ = self.down_osds(self.now)
        storms = self.active("scrub_storm", self.now)
        rebuilding = self.rebuilding(self.now)
        rebalances = self.active("rebalance", self.now)
        stats = []
        base = self.pg_template
        for k, pgid in enumerate(self.pg_ids):
            scrub, deep = self.scrub_stamps(k, self.now)
            pg = dict(base)
            state = "active+clean"
            if down and k % self.spec.nodes == 0:
                state = "active+undersized+degraded"
            elif any((k * 7919) % len(self.pg_ids) < e.pgs for e in rebalances):
                state = "active+remapped+backfilling"
            elif (k * 7919) % len(self.pg_ids) < rebuilding * len(self.pg_ids):
                state = "active+recovering+degraded" if k % 3 else "active+undersized+degraded+remapped+backfilling"
            elif self.now - deep < SCRUBBING_FOR or any(self.in_storm(k, e) for e in storms):
                state = "active+clean+scrubbing+deep"
            pg.update(
                pgid=pgid,
                state=state,
                last_scrub_stamp=synth.stamp(scrub),
                last_clean_scrub_stamp=synth.stamp(scrub),
                last_deep_scrub_stamp=synth.stamp(deep),
            )
            stats.append(pg)
        return {"pg_ready": True, "pg_stats": stats}

    def overdue_counts(self) -> tuple[int, int]:
        scrub = deep = 0
        for k in range(len(self.pg_ids)):
            s, d = self.scrub_stamps(k, self.now)
            scrub += self.now - s > synth.SCRUB_OVERDUE
            deep += self.now - d > synth.DEEP_OVERDUE
        return scrub, deep
