"""The reshard signal's typed result: the buckets against the per-shard object limit, RGW's reshard
queue and the reshards seen.

Its derivation fills it (derive.py); its health checks (check.py, where it has any) and its
section of `ceph scale status` (status.py) judge it again in words."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TopBucket:
    tenant: str
    bucket: str
    shard_fill_ratio: float  # objects per shard / the per-shard limit
    objects: int
    shards: int
    recommended_shards: int


@dataclass(frozen=True)
class BucketEta:
    tenant: str
    bucket: str
    seconds: float  # until it reaches the per-shard limit at its own object growth
    near: bool = False  # at or above rgw_shard_warn_ratio of the limit already


@dataclass(frozen=True)
class BucketShards:
    listed: int  # buckets listed, with stats read or not yet
    objects: int
    near: int  # buckets at or above rgw_shard_warn_ratio of the limit
    over: int  # buckets at or above the limit
    top: tuple[TopBucket, ...]  # the top-K buckets by objects per shard
    next_reshards: tuple[BucketEta, ...]  # the top-K below the limit predicted to reach it soonest
    # Seconds to the limit of every bucket below rgw_shard_warn_ratio predicted to reach it,
    # soonest first: the health check counts them all, not only the top-K it names.
    ahead: tuple[float, ...] = ()


@dataclass(frozen=True)
class ReshardResult:
    shard_limit: int  # the per-shard object limit the buckets are judged by
    buckets: BucketShards | None  # None without a bucket listing
    events: int | None  # completed reshards seen; None before any listing
    queued: int | None  # RGW's reshard queue; None without it
    in_progress: int | None
