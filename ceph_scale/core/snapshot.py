"""One typed snapshot of cluster state: the only input of the derivation core.

Each part comes from one source (the sidecar's collectors, or the manager's
own data) and carries the time it was collected, so that rates are computed
against the time the counters were read, not the time of the scrape. A part
is ``None`` when its source has never succeeded: signals that need it are then
absent, never zero.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the type checker sees frozen dataclasses
    from typing import TypeVar

    from typing_extensions import dataclass_transform

    _T = TypeVar("_T")

    @dataclass_transform(frozen_default=True, field_specifiers=(field,))
    def _record(cls: type[_T]) -> type[_T]: ...

else:
    # slots halve the memory of 100,000s of PG and bucket records; Python 3.9
    # (the manager's interpreter on el9 Ceph images) has no dataclass slots.
    _record = dataclass(frozen=True, slots=True) if sys.version_info >= (3, 10) else dataclass(frozen=True)


@_record
class Osd:
    osd_id: int
    device_class: str  # "hdd", "ssd", "nvme" or "" when unknown
    host: str
    up: bool
    in_cluster: bool
    size_bytes: int
    used_bytes: int
    # From `osd metadata`; None where the OSD did not report it.
    dedicated_db: bool | None = None
    data_device_bytes: int | None = None
    # The CRUSH root above it (`osd df tree`, the manager's CRUSH map); "" when it is in no
    # tree (a stray OSD) or the answer had no tree (plain `osd df`).
    crush_root: str = ""

    @property
    def ceph_daemon(self) -> str:
        return f"osd.{self.osd_id}"


@_record
class FullRatios:
    nearfull: float
    backfillfull: float
    full: float


@_record
class OsdMapPart:
    collected_at: float
    osds: tuple[Osd, ...]
    ratios: FullRatios
    flags: frozenset[str] = frozenset()
    fsid: str = ""  # the OSD map names its cluster: the label when the fsid was unreadable at start


@_record
class Pool:
    pool_id: int
    name: str
    stored_bytes: int  # logical bytes written by clients
    used_bytes: int  # raw bytes, replication/EC and allocation included
    max_avail_bytes: int
    used_ratio: float  # `percent_used` of `df detail`, as a 0..1 ratio
    objects: int
    data_chunks: int  # k for EC, 1 for replicated
    coding_chunks: int  # m for EC, size-1 for replicated
    scrub_max_interval_seconds: float = 0.0  # the pool's own option; 0: the cluster's
    deep_scrub_interval_seconds: float = 0.0


@_record
class CapacityPart:
    collected_at: float
    total_bytes: int
    used_bytes: int
    pools: tuple[Pool, ...]


@_record
class BlueFsCounters:
    osd_id: int
    db_total_bytes: int
    db_used_bytes: int
    slow_used_bytes: int
    # `bluefs.wal_used_bytes`: 0 where the WAL shares the DB device (counted in db_used_bytes);
    # None where the daemon did not report it.
    wal_used_bytes: int | None = None


@_record
class OsdOpCounters:
    """Cumulative client op counters of one OSD (`osd.op_r`, `osd.op_w`), and their latencies
    (`osd.op_r_latency`, `osd.op_w_latency`: seconds summed over ops counted; None where not read)."""

    osd_id: int
    read_ops: int
    write_ops: int
    read_latency_sum: float | None = None
    read_latency_count: int | None = None
    write_latency_sum: float | None = None
    write_latency_count: int | None = None


@_record
class RgwOpCounters:
    """Cumulative S3 counters of one RGW daemon (`rgw.get`, `rgw.put`, ...)."""

    instance_id: str
    get_ops: int
    put_ops: int
    get_bytes: int
    put_bytes: int
    # Latency of those ops: seconds summed and ops counted, as the RGW's averaged counters
    # keep them (rgw.put_initial_lat, or Tentacle's rgw_op.put_obj_lat); None where unread.
    get_latency_sum: float | None = None
    get_latency_count: int | None = None
    put_latency_sum: float | None = None
    put_latency_count: int | None = None
    # Demand, whatever the ops' fate: requests in the RGW now (`rgw.qlen`, else `rgw.qactive`: both
    # gauges), requests received and requests failed (`rgw.req`, `rgw.failed_req`); None where unread.
    in_flight: int | None = None
    requests: int | None = None
    failed_requests: int | None = None


@_record
class PerfPart:
    collected_at: float
    bluefs: tuple[BlueFsCounters, ...] = ()
    osd_ops: tuple[OsdOpCounters, ...] = ()
    rgw_ops: tuple[RgwOpCounters, ...] = ()
    # RGWs that report counters but none of the S3 op ones this release's names give.
    rgw_without_s3_ops: tuple[str, ...] = ()


@_record
class PgScrubState:
    pgid: str
    pool_id: int
    state: str  # e.g. "active+clean+scrubbing+deep"
    last_scrub_stamp: float  # epoch seconds
    last_deep_scrub_stamp: float
    # The OSDs serving it now (`acting`, without the empty slots of an EC PG missing a shard), ()
    # where unread.
    acting: tuple[int, ...] = ()


@_record
class PgPart:
    collected_at: float
    pgs: tuple[PgScrubState, ...]


@_record
class RgwRunningOption:
    """An option's value inside a running RGW (`config show rgw.<name>`): what it judges by,
    whether it came from the config database, its ceph.conf section or a runtime change."""

    daemon: str  # the RGW's name in the service map (its gid from Pacific on)
    option: str
    value: int


@_record
class ClusterSettings:
    """Cluster configuration the signals depend on; Ceph's defaults where unset."""

    collected_at: float
    scrub_max_interval_seconds: float = 7 * 86400.0  # osd_scrub_max_interval
    deep_scrub_interval_seconds: float = 7 * 86400.0  # osd_deep_scrub_interval
    warn_pg_not_scrubbed_ratio: float = 0.5  # mon_warn_pg_not_scrubbed_ratio
    warn_pg_not_deep_scrubbed_ratio: float = 0.75  # mon_warn_pg_not_deep_scrubbed_ratio
    rgw_max_objs_per_shard: int | None = None  # the config database's; None: use the configured default
    # The runways' scrub capacity and PG plan: Ceph's defaults up to Reef where unread.
    osd_max_scrubs: int = 1  # concurrent scrubs an OSD takes part in
    mon_target_pg_per_osd: int = 100  # PGs per OSD the autoscaler aims at
    rgw_running: tuple[RgwRunningOption, ...] = ()
    rgw_daemons: int = 0  # RGWs in the service map, read or not


def bucket_key(tenant: str, name: str) -> str:
    """A bucket as RGW's metadata keys it: `tenant/name`, or the name without a tenant."""
    return f"{tenant}/{name}" if tenant else name


@_record
class Bucket:
    name: str
    tenant: str
    bucket_id: str  # instance id; a completed reshard gives a new one
    num_shards: int
    num_objects: int
    owner: str = ""
    # The first instance id; RGW keeps it across reshards, so a new marker means
    # the bucket was deleted and created again, which is not a reshard.
    marker: str = ""
    created: str = ""  # creation_time as RGW gives it (ISO 8601, UTC)
    # Index layout generation (Reef+: one per reshard), where it was probed (or Tentacle's stats say it).
    index_gen: int | None = None
    # When these stats were read: the bucket poll reads each bucket on its own schedule, so the
    # buckets of one part hold stats of different ages (0: as old as the part).
    stats_at: float = 0.0
    size_bytes: int = 0  # usage.rgw.main.size_actual: the objects' bytes as allocated (0: empty)
    # bucket_quota where enabled, else NO_QUOTA (RGW's own "unlimited"); a quota of 0 holds nothing.
    quota_bytes: int = -1
    quota_objects: int = -1
    # A reshard of it being processed, where this read tells (Tentacle's stats: `reshard_status`;
    # from Reef on, the bucket poll's probe of a queued bucket's next index generation).
    resharding: bool = False
    # `tenant/name` (RGW's metadata key), or the name: set once, as the signals look every bucket
    # up by it several times a derivation (a property cost ~0.75 s of CPU a derivation at 100,000).
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", bucket_key(self.tenant, self.name))


@_record
class BucketPollReport:
    """What one bucket poll cost the cluster and how far behind its schedule it is
    (core/bucket_poll.py). Counts are of this poll unless named cumulative."""

    budget: float  # RADOS reads this poll could spend
    reads: int  # RADOS reads this poll caused
    # Since the producer started: (kind: list, meta, stats, probe) -> RADOS reads caused, and
    # (reason: new, changed, queued, due, unread, sweep) -> bucket stats read.
    reads_total: tuple[tuple[str, int], ...]
    buckets_read_total: tuple[tuple[str, int], ...]
    overdue: int  # buckets that had to be read (new, changed, queued, may have crossed a line) and were not
    unread: int  # listed buckets whose stats were never read yet
    oldest_stats_at: float | None  # read time of the oldest stats held
    bound_exceeded_total: int = 0  # reads that found more growth than the bucket's bound assumed


@_record
class UserQuota:
    """A bucket owner's own (user) quota: what all its buckets together may hold."""

    owner: str  # RGW's `tenant$user`, as a bucket's owner names it
    max_bytes: int  # -1 (NO_QUOTA): none (unset, unlimited, or the quota disabled)
    max_objects: int
    read_at: float


@_record
class BucketsPart:
    collected_at: float
    buckets: tuple[Bucket, ...]
    # Why index generations could not be read this poll ("" if they could, or none was due).
    generation_error: str = ""
    # Listed buckets without stats yet (a first start without saved state): known to exist, not judged.
    unread: frozenset[str] = frozenset()
    poll: BucketPollReport | None = None  # None: every bucket read in one request (fixtures, `bucket stats`)
    user_quotas: tuple[UserQuota, ...] = ()  # the owners' user quotas last read (at most one read per max age)


@_record
class ReshardEntry:
    bucket: str
    tenant: str
    bucket_id: str
    old_num_shards: int
    new_num_shards: int
    in_progress: bool = False


@_record
class BucketOps:
    """One RGW's op counters of one bucket (RGW's `rgw_op_per_bucket`, labeled by the bucket's name),
    as the manager last had them from that RGW: totals since the RGW started counting the bucket."""

    rgw: str  # the RGW's instance id, as the perf source keys it
    bucket: str
    put: int
    get: int


# Why a reshard part carries no per-bucket op counters, where its producer cannot read them.
BUCKET_OPS_NOT_READ = "per-bucket op counters not read (only the manager's labeled counter calls give them)"


@_record
class ReshardPart:
    collected_at: float
    entries: tuple[ReshardEntry, ...]
    # The queued (and lately queued) buckets' own op counters, where the RGWs keep them; why not
    # ("" when they were read, even if no RGW counted one of the buckets).
    bucket_ops: tuple[BucketOps, ...] = ()
    bucket_ops_unread: str = BUCKET_OPS_NOT_READ


@_record
class HealthCheck:
    code: str
    severity: str  # "HEALTH_WARN" or "HEALTH_ERR"
    count: int
    summary: str


@_record
class HealthPart:
    collected_at: float
    status: str
    checks: tuple[HealthCheck, ...] = ()


@_record
class SourceStatus:
    """How one source fared: served as `ceph_scale_source_*` by every producer."""

    name: str
    success: bool
    duration_seconds: float
    last_success_at: float | None  # None: never succeeded
    error: str = ""
    failures: int = 0  # failed collections since the producer started
    interval_seconds: float | None = None  # how often it is collected; alerts judge its age by it


@_record
class Snapshot:
    taken_at: float
    fsid: str = ""
    osd_map: OsdMapPart | None = None
    capacity: CapacityPart | None = None
    perf: PerfPart | None = None
    pgs: PgPart | None = None
    settings: ClusterSettings | None = None
    buckets: BucketsPart | None = None
    reshard: ReshardPart | None = None
    health: HealthPart | None = None
    sources: tuple[SourceStatus, ...] = field(default_factory=tuple)
