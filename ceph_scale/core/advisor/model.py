"""What the advisor reads and what it says, as plain records (docs/runway.md).

`Measured` is the live state reduced to what the runways and the plan need: levels now, their
fitted growth and the confidence of each fit. It is built from a snapshot and the signals'
states by `measure.py`, or by hand for a study cluster, so the formulas are tested on the
studies' own numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Growth:
    """A level now and its fitted growth per second; rate None: no fit yet (too little history)."""

    now: float
    rate: float | None = None
    span: float = 0.0  # seconds of history behind the rate
    steady: bool | None = None  # None: not fitted
    low: float | None = None  # 95 % interval of the rate (trend.Fit); None: the rate's own fit has none
    high: float | None = None
    level_error: float = 0.0  # 95 % half-width of the level about the fit
    acceleration: float = 0.0  # relative growth of the rate per second, where it compounds
    shape: str = ""  # trend.Fit.trend; "": fitted elsewhere (another signal's slope)

    def at(self, seconds: float) -> float:
        """The level `seconds` from now; a shrinking level is held where it is (a plan never
        counts on growth reversing)."""
        return self.now + max(0.0, self.rate or 0.0) * seconds


@dataclass(frozen=True)
class OsdFill:
    daemon: str
    used_bytes: int
    size_bytes: int


@dataclass(frozen=True)
class OsdDb:
    daemon: str
    db_bytes: int  # the DB device
    used_bytes: int  # BlueFS use, on the DB device and spilled
    spilled_bytes: int
    data_bytes: int  # the data device (0: unknown)
    growth: Growth  # of used_bytes


@dataclass(frozen=True)
class PoolPgs:
    pool_id: int
    name: str
    pgs: int
    width: int  # OSDs per PG: k+m, or the replica count
    raw_used_bytes: int
    data_chunks: int = 1  # k for EC, 1 for replicated: raw written = stored x width / data_chunks


@dataclass(frozen=True)
class ScrubMeasure:
    """Scrub work by Little's law: mean PGs scrubbing / scrubs completed per second = the mean
    duration of a scrub, measured the same way on every release."""

    pgs: int
    pg_width: float  # mean OSDs per PG
    osds: int  # up OSDs
    max_scrubs: int  # osd_max_scrubs
    scrub_interval: float  # osd_scrub_max_interval
    deep_interval: float  # osd_deep_scrub_interval
    scrubbing: float  # mean PGs in a shallow scrub over the window
    deep_scrubbing: float  # mean PGs in a deep scrub
    scrubs_per_second: float  # shallow scrubs completed (a deep scrub moves both stamps: not counted here)
    deep_scrubs_per_second: float
    span: float


@dataclass(frozen=True)
class BucketDue:
    """A bucket predicted to reach its per-shard limit before the target date."""

    name: str
    tenant: str
    seconds: float  # until it reaches the limit (0: over it now)
    objects_at_target: float
    shards: int
    recommended_shards: int  # for the objects at the target date, at most rgw_max_dynamic_shards
    recommended_now: int  # for its objects today: what the RGW board recommends


@dataclass(frozen=True)
class ShardOutlook:
    runway: float | None  # None: no bucket growth fitted yet
    over_limit: int  # buckets at or past the limit now
    due: int  # buckets reaching it before the target date, those over it included
    top: tuple[BucketDue, ...]  # the soonest, bounded by plan_top_buckets
    span: float


@dataclass(frozen=True)
class Measured:
    horizon: float  # runway_target_seconds
    hdd_osds: int  # up and in
    hdd_bytes: float  # mean size of those
    other_raw_bytes: int  # raw capacity not on HDD OSDs
    failure_domain_osds: int  # HDD OSDs lost with the largest failure domain
    raw_total_bytes: int
    raw_used: Growth | None
    osd_fill: tuple[OsdFill, ...] = ()
    s3: dict[str, Growth] = field(default_factory=dict)  # put_ops, get_ops, put_bytes, get_bytes
    s3_span: float = 0.0
    s3_steady: bool | None = None  # of the mixed load per HDD OSD
    rgw_instances: int = 0
    dbs: tuple[OsdDb, ...] = ()
    pools: tuple[PoolPgs, ...] = ()
    osds_in: int = 0  # every class: the PG plan spreads PGs over them
    target_pg_per_osd: int = 100
    scrub: ScrubMeasure | None = None
    shards: ShardOutlook | None = None
    objects_steady: bool | None = None  # of the bucket population's growth
    buckets_over_advised: int = 0  # buckets past rgw_bucket_objects_advised [000]
    objects_span: float = 0.0  # history behind the bucket growth (the reshard signal's)


@dataclass(frozen=True)
class Runway:
    limit: str
    seconds: float | None  # 0: hit now; inf: not growing; None: no fit yet
    span: float  # seconds of history behind the growth (0: no fit needed or none yet)
    steady: bool | None
    detail: str  # what binds, in words
    earliest: float | None = None  # the 95 % interval of `seconds`: its fastest growth...
    latest: float | None = None  # ...and its slowest (inf: not growing is within the interval)
    shape: str = ""  # the growth's trend.Fit.trend; "": no fit of the runway's own behind it


@dataclass(frozen=True)
class PoolPlan:
    pool_id: int
    name: str
    pgs: int
    planned_pgs: int


@dataclass(frozen=True)
class Plan:
    horizon: float
    failure_domain_osds: int
    degraded_drop_put: float  # the study's drop for that share of OSDs down [004]
    degraded_drop_get: float
    hdd_osds: int
    hdd_by_fill: int | None
    hdd_by_ops: int | None
    db_per_osd_levels: int | None  # the next whole-level boundary above the DB use at the target date
    db_per_osd_share: int | None  # bluefs_db_share_min_ratio of the largest data device
    db_short_levels: int  # OSDs whose DB device is smaller than db_per_osd_levels
    db_short_share: int
    db_spilling_by_target: int  # OSDs spilling now or predicted to by the target date
    # max_bytes_for_level_base making whole levels fill the planned DB (the larger of the
    # largest DB now and db_per_osd_share) [004]
    level_base: int | None
    rgw_instances: int
    rgw_needed: int | None
    pools: tuple[PoolPlan, ...]
    buckets_due: int | None
    buckets_top: tuple[BucketDue, ...]
    notes: tuple[str, ...]
    # plan_max_extrapolation: a runway fitted over less than horizon / this is a guess, as the
    # figures sized on such a growth are withheld.
    max_extrapolation: float
    # figure -> why it is not shown (a short or unsteady fit behind it): hdd_by_fill, hdd_by_ops,
    # db_per_osd, rgw_instances, bucket_shards; either HDD figure withholds the HDDs to
    # add. figure -> the bound it was held to (physics, Ceph's limits): hdd_osds, db_per_osd,
    # rgw_instances, pool_pgs, bucket_shards.
    withheld: dict[str, str] = field(default_factory=dict)
    bounded: dict[str, str] = field(default_factory=dict)
    buckets_over_advised: int = 0

    def bound_shown(self, figure: str) -> str | None:
        """The bound `figure` was held to, unless the figure is withheld: its words carry the
        extrapolated number the withholding hides."""
        hidden = self.hdd_withheld if figure == "hdd_osds" else self.withheld.get(figure)
        return None if hidden else self.bounded.get(figure)

    @property
    def hdd_withheld(self) -> str | None:
        """Why the HDDs to add are not shown: either count behind them is withheld."""
        return self.withheld.get("hdd_by_fill") or self.withheld.get("hdd_by_ops")

    @property
    def hdd_to_add(self) -> int | None:
        needed = [n for n in (self.hdd_by_fill, self.hdd_by_ops) if n is not None]
        return max(0, max(needed) - self.hdd_osds) if needed else None

    @property
    def hdd_binding(self) -> str | None:
        if self.hdd_by_fill is None and self.hdd_by_ops is None:
            return None
        return "fill" if (self.hdd_by_fill or 0) >= (self.hdd_by_ops or 0) else "ops"


@dataclass(frozen=True)
class Advice:
    runways: tuple[Runway, ...]
    plan: Plan
    now: dict[str, float]  # the levels the advice starts from, for the report
