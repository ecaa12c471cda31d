"""The signals' judgements as typed values: what each signal's derivation leaves besides its
families, for the readers that judge them again in words (the module's health checks and
`ceph scale status`), so that none of them reads a metric back by its name.

Each derivation fills its own field of the `SignalResults` it is given (SignalInput.results);
a signal that has no data leaves its field None, and one whose derivation raises has it cleared
(core/derive.py), as its series are absent.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class ClusterFill:
    used_ratio: float
    headroom_bytes: float  # raw bytes left before the fill target; negative once past it
    seconds_to_target: float | None  # at the fitted fill rate; 0 once past it, None when not filling


@dataclass(frozen=True)
class PoolFill:
    pool_id: str
    name: str
    used_ratio: float
    seconds_to_target: float | None


@dataclass(frozen=True)
class OsdFill:
    ceph_daemon: str
    used_ratio: float


@dataclass(frozen=True)
class FillResult:
    cluster: ClusterFill | None
    pools: tuple[PoolFill, ...]  # by pool id
    osds: tuple[OsdFill, ...]  # by OSD id, those that report a size
    fullest: OsdFill | None  # of the up and in OSDs


@dataclass(frozen=True)
class DbOsd:
    ceph_daemon: str
    spilled_bytes: float
    db_size_bytes: float
    db_used_bytes: float
    db_usable_bytes: float  # the RocksDB levels that fit whole
    db_share_ratio: float | None  # DB device size / data device size, when both are known


@dataclass(frozen=True)
class LevelEta:
    ceph_daemon: str
    seconds: float  # until DB use passes its usable size


@dataclass(frozen=True)
class SpilloverResult:
    osds: tuple[DbOsd, ...]  # the OSDs with a DB device, by OSD id
    next_level: tuple[LevelEta, ...]  # the top-K soonest of those not spilling, soonest first
    spillover_osds: int
    spilled_bytes: float
    share_below_min_osds: int


@dataclass(frozen=True)
class ScrubBacklog:
    overdue: int
    clear_seconds: float | None  # 0 without a backlog, +Inf when nothing completes, None before a rate
    overdue_ratio: float
    oldest_age_seconds: float
    overdue_after_seconds: float
    scrubbing: int
    completed: int


@dataclass(frozen=True)
class ScrubResult:
    pgs: int
    scrub: ScrubBacklog
    deep_scrub: ScrubBacklog


@dataclass(frozen=True)
class PerHddLoad:
    put_ops: float  # S3 op rates per up and in HDD OSD
    get_ops: float
    put_ops_ratio: float  # those rates / their baselines
    get_ops_ratio: float
    mixed_ratio: float  # put / baseline put + get / baseline get
    put_bytes_ratio: float  # byte rates per HDD OSD / their baselines
    get_bytes_ratio: float
    put_headroom: float  # PUT/s (or GET/s) the cluster can add before the mixed load reaches 1
    get_headroom: float


@dataclass(frozen=True)
class Hotspot:
    ceph_daemon: str
    ratio: float  # its op rate / the mean of the up OSDs


@dataclass(frozen=True)
class LoadResult:
    hdd_osds: int | None  # up and in; None without an OSD map
    s3_ops: tuple[float, float] | None  # cluster PUT/s, GET/s once there are rates
    per_hdd: PerHddLoad | None  # once there are rates and HDD OSDs
    osd_rates: bool  # whether any OSD's op rate is known yet
    hotspots: tuple[Hotspot, ...]  # the top-K busiest OSDs
    hotspot_count: int  # OSDs above osd_hotspot_ratio x the mean


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


@dataclass(frozen=True)
class BucketShards:
    listed: int  # buckets listed, with stats read or not yet
    objects: int
    near: int  # buckets at or above rgw_shard_warn_ratio of the limit
    over: int  # buckets at or above the limit
    top: tuple[TopBucket, ...]  # the top-K buckets by objects per shard
    next_reshards: tuple[BucketEta, ...]  # the top-K below the limit predicted to reach it soonest


@dataclass(frozen=True)
class ReshardResult:
    shard_limit: int  # the per-shard object limit the buckets are judged by
    buckets: BucketShards | None  # None without a bucket listing
    events: int | None  # completed reshards seen; None before any listing
    queued: int | None  # RGW's reshard queue; None without it
    in_progress: int | None


@dataclass(frozen=True)
class BucketPollResult:
    last_reads: int  # RADOS reads the last bucket poll caused
    budget_reads: float
    overdue: int  # buckets it had to read and could not
    unread: int  # listed buckets never read yet
    oldest_stats_age_seconds: float | None


@dataclass(frozen=True)
class DegradedResult:
    down_ratio: float  # share of the in HDD OSDs that are down
    put_drop_ratio: float  # the S3 throughput drop the study measured for that share
    get_drop_ratio: float


@dataclass(frozen=True)
class PlungeCause:
    cause: str
    evidence: str


@dataclass(frozen=True)
class PlungeResult:
    active: bool  # S3 ops down against their baseline while the clients' demand held
    demand_drop: bool  # S3 ops down because the clients asked less
    drop_ratio: dict[str, float]  # op -> below the baseline, as a share of it
    demand_ratio: dict[str, float]  # op -> the clients' demand now / in the baseline
    cause_scores: tuple[tuple[str, float], ...]  # of the current plunge, as ranked
    likely_cause: PlungeCause | None  # of the current (or just ended) plunge
    plunges: dict[str, int]  # cause -> plunges counted
    demand_drops: int


@dataclass
class SignalResults:
    """One field per signal that judges for the health checks and the report."""

    fill: FillResult | None = None
    spillover: SpilloverResult | None = None
    scrub: ScrubResult | None = None
    load: LoadResult | None = None
    reshard: ReshardResult | None = None
    bucket_watch: BucketPollResult | None = None
    degraded: DegradedResult | None = None
    plunge: PlungeResult | None = None

    def clear(self, signal: str) -> None:
        """A signal whose derivation raised judges nothing."""
        if signal in {f.name for f in fields(self)}:
            setattr(self, signal, None)
