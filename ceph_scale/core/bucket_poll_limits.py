"""The limits a bucket poll reads within (core/bucket_poll.py), and the bound that says when a
bucket may have crossed a line since its last read."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .config import Thresholds
from .derive import shard_limit_and_origin
from .snapshot import Bucket, ClusterSettings, ReshardEntry, ReshardPart, Snapshot, bucket_key


@dataclass(frozen=True)
class PollLimits:
    reads_per_second: float
    max_reads: int
    growth_floor: float
    growth_safety: float
    max_age: float
    warn_ratio: float
    shard_limit: int

    @classmethod
    def of(cls, th: Thresholds, shard_limit: int) -> PollLimits:
        return cls(
            reads_per_second=th.rgw_bucket_reads_per_second,
            max_reads=th.rgw_bucket_poll_max_reads,
            growth_floor=th.rgw_bucket_growth_floor,
            growth_safety=th.rgw_bucket_growth_safety,
            max_age=th.rgw_bucket_stats_max_age_seconds,
            warn_ratio=th.rgw_shard_warn_ratio,
            shard_limit=shard_limit,
        )

    def growth_bound(self, rate: float) -> float:
        return max(self.growth_floor, self.growth_safety * rate)


def poll_inputs(
    th: Thresholds, settings: ClusterSettings | None, reshard: ReshardPart | None
) -> tuple[PollLimits, frozenset[str]]:
    """The limits of a poll (with the per-shard limit the derivation judges by) and the queued
    buckets, from the latest parts of the settings and reshard sources (None before they succeed)."""
    limit, _ = shard_limit_and_origin(Snapshot(taken_at=0.0, settings=settings), th)
    return PollLimits.of(th, limit), queued_keys(reshard.entries) if reshard is not None else frozenset()


def may_cross_at(b: Bucket, rate: float, lim: PollLimits) -> float:
    """The earliest time the bucket may reach its next line (the warn ratio, then the limit)
    under its growth bound, or its stats reach max_age, whichever comes first."""
    stale = b.stats_at + lim.max_age
    cap = max(1, b.num_shards) * lim.shard_limit
    room = lim.warn_ratio * cap - b.num_objects
    if room <= 0:  # past the warn ratio: the limit itself is the next line
        room = 1.0 * cap - b.num_objects
        if room <= 0:
            return stale
    growth = lim.growth_bound(rate)
    return min(stale, b.stats_at + room / growth) if growth > 0 else stale


def queued_keys(entries: Iterable[ReshardEntry]) -> frozenset[str]:
    return frozenset(bucket_key(e.tenant, e.bucket) for e in entries)
