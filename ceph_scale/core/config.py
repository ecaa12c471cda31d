"""Thresholds and baselines: every number the signals compare against.

Each default comes from Ceph's published scale tests; the bracket names the
document in shared/seeds (000: 1B blog series, 001/003: 10B report, 004: 10B
slides). Both producers take the same names: the sidecar from its YAML file
(`thresholds:`), the ceph-mgr module from `mgr/scale/<name>`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .config_checks import ConfigError, check_names, check_number

__all__ = ["SETTINGS", "ConfigError", "Setting", "Thresholds", "check_names", "check_number", "coerce"]


@dataclass(frozen=True)
class Setting:
    name: str
    default: float | int | str
    kind: type  # int, float, or str for a comma-separated list of names
    minimum: float | None
    maximum: float | None
    doc: str
    # The cluster has its own value (read by the settings source), used unless this
    # threshold is set explicitly: the module then declares the option without a default.
    cluster_value: bool = False


def _setting(default: float, minimum: float, maximum: float, doc: str, cluster_value: bool = False) -> Any:
    """A threshold's one declaration: its default, its range and its meaning."""
    return dataclasses.field(
        default=default, metadata={"minimum": minimum, "maximum": maximum, "doc": doc, "cluster_value": cluster_value}
    )


def _names_setting(default: str, doc: str) -> Any:
    """A setting that is a comma-separated list of names (e.g. device classes)."""
    return dataclasses.field(
        default=default, metadata={"minimum": None, "maximum": None, "doc": doc, "cluster_value": False}
    )


@dataclass(frozen=True)
class Thresholds:
    """Every threshold, declared once: SETTINGS, the module's options and the docs are read from here."""

    # Capacity [001: "Ceph recommends not exceeding 80% capacity utilization";
    # 000: degraded from 70 %, "an alarming 90%" forced deletes].
    fill_target_ratio: float = _setting(0.80, 0.01, 1.0, "Fill line not to cross [001].")
    fill_warn_ratio: float = _setting(0.70, 0.01, 1.0, "Fill from which performance may degrade [000].")
    fill_critical_ratio: float = _setting(0.90, 0.01, 1.0, "Fill that forced deletes in the 1B test [000].")
    fill_forecast_window_seconds: int = _setting(
        6 * 3600, 60, 90 * 86400, "History used to fit the fill rate for time-to-threshold predictions."
    )
    # Two points minutes apart fit any slope: four minutes after a start, "time to 80 %" once
    # read 1.5 days on a cluster 17.8 % full. No forecast until its fit spans this much.
    forecast_min_span_seconds: int = _setting(
        3600, 0, 90 * 86400, "Shortest history a forecast (fill, DB growth) is fitted over before it is exported."
    )
    # BlueFS / RocksDB [004]: level base 256 MB, x10 per level; DB >= 4 % of HDD.
    rocksdb_level_base_bytes: int = _setting(
        256 * 1024**2, 1024**2, 1024**4, "RocksDB max_bytes_for_level_base (L1 size) [004]."
    )
    rocksdb_level_multiplier: int = _setting(10, 2, 100, "RocksDB max_bytes_for_level_multiplier [004].")
    rocksdb_levels: int = _setting(6, 1, 10, "Number of RocksDB levels below L0 considered (L1..L6) [004].")
    bluefs_db_share_min_ratio: float = _setting(
        0.04, 0.0, 1.0, "Minimum DB device size as a share of the data device [004]."
    )
    bluefs_growth_window_seconds: int = _setting(
        6 * 3600, 60, 90 * 86400, "History used to fit the DB growth rate for the next-level prediction."
    )
    # Ceph's own default: newer releases raise BLUESTORE_BLUEFS_OVERSIZED at the same ratio.
    bluefs_warn_ratio: float = _setting(
        0.06,
        0.001,
        1.0,
        "BlueFS use (DB + WAL + spilled) as a share of the main device past which an OSD is "
        "oversized: Ceph's `bluestore_bluefs_warn_ratio` (`BLUESTORE_BLUEFS_OVERSIZED`, ceph/ceph "
        "PRs 68242 and 68243, in no release this project runs), computed here on every release from "
        "`bluefs.db_used_bytes`, `bluefs.wal_used_bytes`, `bluefs.slow_used_bytes` and the main "
        "device size of `osd metadata`.",
    )
    # RGW resharding [000, 004]: ~100K objects per bucket, rgw_max_objs_per_shard 100000.
    rgw_max_objs_per_shard: int = _setting(
        100_000,
        1,
        10**9,
        "Objects per index shard before dynamic resharding [000]. Unset: the smallest value the running "
        "RGWs hold, else the config database's; set, it wins over both.",
        cluster_value=True,
    )
    rgw_shard_warn_ratio: float = _setting(
        0.8, 0.01, 1.0, "Objects-per-shard share of the limit at which a bucket is 'about to reshard'."
    )
    rgw_preshard_fill_ratio: float = _setting(
        0.5, 0.01, 1.0, "Target objects-per-shard share of the limit used for pre-shard recommendations [000]."
    )
    rgw_top_buckets: int = _setting(
        10,
        0,
        1000,
        "Buckets exposed with their own series: the top-K by shard fill (4 series each) and the K "
        "soonest to reach the limit (1 each).",
    )
    # Usage per tenant and per bucket (signals/tenants): a fixed series budget whatever the number
    # of buckets or tenants (docs/metrics.md, "Usage per tenant and bucket", has each one's cost).
    rgw_tenant_series: int = _setting(
        20,
        0,
        10_000,
        "Tenants (bucket owners) with their own usage series, the largest by bytes; the rest are summed "
        'into one (user="(others)") series. 13 series each.',
    )
    rgw_bucket_usage_top: int = _setting(
        10,
        0,
        1000,
        "Buckets with their own usage series: the top K by bytes, by objects, by byte growth and past "
        'rgw_bucket_objects_advised, the rest of each summed into one (bucket="(others)"). 4 series each.',
    )
    # The tenants' quota runways are judged by these in the health check and, read from
    # ceph_scale_config, in the alert rules: one declaration for both (signals/tenants).
    rgw_tenant_quota_warn_seconds: int = _setting(
        7 * 86400,
        0,
        365 * 86400,
        "A tenant's runway to its quota under which SCALE_TENANT_QUOTA_RUNWAY and "
        "CephScaleTenantQuotaRunwayShort warn (a week).",
    )
    rgw_tenant_quota_critical_seconds: int = _setting(
        86400,
        0,
        365 * 86400,
        "A tenant's runway to its quota under which SCALE_TENANT_QUOTA_RUNWAY is an error and "
        "CephScaleTenantQuotaRunwayUnderADay pages (a day; 0 is the quota reached: RGW refuses its writes).",
    )
    rgw_tenant_stats_judged_seconds: int = _setting(
        2 * 86400,
        600,
        90 * 86400,
        "Oldest a tenant's figures (its oldest bucket stats) may be for its quota runway to be judged "
        "(two days): older ones may describe a tenant that has since changed.",
    )
    rgw_growth_window_seconds: int = _setting(
        6 * 3600,
        60,
        30 * 86400,
        "History used for each bucket's object growth rate, to predict which buckets reshard next.",
    )
    # What watching the buckets costs the cluster (core/bucket_poll.py, docs/cluster-cost.md): at
    # most 1 % of the 10B study's 17,800 PUT/s [004] in RADOS reads, and what a read may skip.
    rgw_bucket_reads_per_second: float = _setting(
        100.0,
        1.0,
        1e6,
        "RADOS reads per second the bucket poll may cause on average (listings, stats, generation probes); "
        "with the reshard queue and the listings the producer stays under 1 % of the study's 17,800 PUT/s [004].",
    )
    rgw_bucket_poll_max_reads: int = _setting(
        15_000, 100, 10**8, "RADOS reads one bucket poll may cause at most, whatever budget it saved up."
    )
    rgw_bucket_growth_floor: float = _setting(
        10.0,
        0.0,
        1e6,
        "Objects per second any bucket is assumed able to grow between two reads of its stats, even one "
        "never seen growing: the guarantee that a bucket crossing a line is seen within a poll assumes it.",
    )
    rgw_bucket_growth_safety: float = _setting(
        2.0, 1.0, 1000.0, "Multiple of a bucket's observed object growth assumed as its growth until its next read."
    )
    rgw_bucket_stats_max_age_seconds: int = _setting(
        86400, 600, 90 * 86400, "Oldest a bucket's stats may get: read again then even if its bound says it need not."
    )
    # Scrub: the cluster's intervals are read live; these only bound the outputs.
    scrub_rate_window_seconds: int = _setting(
        3600, 60, 30 * 86400, "History used for the scrub completion rate and the backlog clearance time."
    )
    # Load per HDD OSD [004]: "Single HDD OSD performance (with 4% flash)".
    baseline_put_ops_per_hdd: float = _setting(60.0, 0.001, 1e6, "64 KB S3 PUT ops/s per HDD OSD [004].")
    baseline_get_ops_per_hdd: float = _setting(90.0, 0.001, 1e6, "64 KB S3 GET ops/s per HDD OSD [004].")
    baseline_put_bytes_per_hdd: float = _setting(34e6, 1.0, 1e12, "128 MB S3 PUT bytes/s per HDD OSD (34 MB/s) [004].")
    baseline_get_bytes_per_hdd: float = _setting(37e6, 1.0, 1e12, "128 MB S3 GET bytes/s per HDD OSD (37 MB/s) [004].")
    rate_window_seconds: int = _setting(300, 10, 86400, "Window over which the exporter computes its own op rates.")
    osd_hotspot_ratio: float = _setting(2.0, 1.0, 1000.0, "An OSD above this multiple of the mean op rate is hot.")
    osd_top_hot: int = _setting(10, 0, 1000, "OSDs per top-K family: hottest, next level, most spilled, low DB share.")
    # The study's baseline is per HDD OSD [004]; clusters that name their CRUSH device
    # classes otherwise (hdd_archive, big) say which classes are HDDs.
    hdd_device_classes: str = _names_setting(
        "hdd", "CRUSH device classes of the HDD OSDs the baseline is per, comma-separated [004]."
    )
    # Runway and sizing (docs/runway.md): when each limit above is reached, and what to add.
    runway_target_seconds: int = _setting(
        180 * 86400,
        3600,
        10 * 365 * 86400,
        "Date each runway must reach and the sizing plan must hold to (180 days; docs/runway.md).",
    )
    runway_window_seconds: int = _setting(
        7 * 86400,
        60,
        365 * 86400,
        "History of fill, S3 load and bucket objects the runways fit their growth over (kept across restarts).",
    )
    rgw_put_ops_per_instance: float = _setting(1000.0, 0.001, 1e7, "64 KB S3 PUT ops/s one RGW sustains [000].")
    rgw_get_ops_per_instance: float = _setting(500.0, 0.001, 1e7, "64 KB S3 GET ops/s one RGW sustains [000].")
    plan_failure_domain_osds: int = _setting(
        0,
        0,
        100_000,
        "OSDs the plan must survive losing at once; 0: the largest host's (one node was 53 of 318 [004]), "
        "one OSD on a single host.",
    )
    plan_top_buckets: int = _setting(5, 0, 1000, "Buckets listed with their own pre-shard series in the plan.")
    # A plan is sized at the target date from the growth fitted so far; a growth fitted over
    # 4.2 minutes once asked for 503,679 HDDs at 180 days. Past this ratio no headline figure.
    plan_max_extrapolation: float = _setting(
        30.0,
        1.0,
        1e6,
        "Most times its fitted history a plan extrapolates a growth before it withholds the figure "
        "(a 180-day plan needs 6 days of history; docs/runway.md).",
    )
    # Ceph's own bounds on what a plan may ask for: their defaults in Pacific 16.2.15
    # (`ceph-conf -D`), rgw_max_dynamic_shards 1999 also in rgw.yaml.in since options moved to YAML.
    plan_mon_max_pg_per_osd: int = _setting(
        250,
        1,
        100_000,
        "Ceph's `mon_max_pg_per_osd` (250 on Pacific 16.2.15; set it to the cluster's): PG replicas "
        "per OSD past which Ceph refuses more PGs; bounds the PGs a plan asks for.",
    )
    plan_rgw_max_dynamic_shards: int = _setting(
        1999,
        1,
        10**6,
        "Ceph's `rgw_max_dynamic_shards` (1999 on Pacific 16.2.15 and in rgw.yaml.in; set it to the "
        "cluster's): most index shards dynamic resharding creates; bounds the shards a plan asks "
        "for.",
    )
    rgw_bucket_objects_advised: int = _setting(
        100_000,
        1,
        10**12,
        "Objects per bucket the studies advise staying about: the plan counts the buckets past it "
        "and advises more buckets [000].",
    )
    # S3 throughput plunges [000: ~5.4K -> 3.9K ops/s with "sudden plunges" at each reshard;
    # 001: deep scrubs at a high rate, "a brief, significant drop"; 004: one node down cost
    # 21 % of PUT and 25 % of GET ops/s]. Detection and attribution: docs/metrics.md.
    plunge_drop_ratio: float = _setting(
        0.2,
        0.01,
        1.0,
        "S3 ops below the recent baseline by this share make a plunge (the one-node failure cost 21 % PUT "
        "[004]; 5.4K -> 3.9K ops/s is 28 % [000]).",
    )
    plunge_window_seconds: int = _setting(
        60, 5, 3600, "Window of the op rates a plunge is judged on (four polls of the perf source by default)."
    )
    plunge_baseline_seconds: int = _setting(
        1800,
        10,
        86400,
        "Recent history before that window the rates are compared with (its median); a plunge lasting "
        "longer is the cluster's new level and ends, unless its cause is still seen (plunge_cause_hold_seconds).",
    )
    plunge_cause_hold_seconds: int = _setting(
        4 * 3600,
        0,
        7 * 86400,
        "How long from its start a plunge outlasting the baseline is held while its named cause is still "
        "seen (the resharding run's 256 -> 512 reshard held the writes 53 minutes [000]); without it, or "
        "past it, the plunge is the new level and ends. Below plunge_baseline_seconds: no plunge outlasts it.",
    )
    plunge_min_ops_per_second: float = _setting(
        5.0,
        0.0,
        1e9,
        "Baseline S3 ops/s of an op below which it is not judged: fewer requests in a window are chance, not a level.",
    )
    plunge_demand_drop_share: float = _setting(
        0.5,
        0.01,
        1.0,
        "A drop is the clients' (no cluster fault) when their demand (ops in flight, requests) fell by at "
        "least this share of the ops' own drop.",
    )
    plunge_held_unconfirmed_ratio: float = _setting(
        0.4,
        0.01,
        1.0,
        "While a reshard that may hold writes is in progress, PUTs below their own level scaled by their "
        "demand by this share make a plunge where the bucket's own ops do not confirm the reshard "
        "(plunge_drop_ratio where they do): a mixed phase whose PUTs are all slower reads the same.",
    )
    plunge_held_min_demand: float = _setting(
        0.2,
        0.01,
        1.0,
        "The least demand for PUTs, against their own level, at which a reshard's hold is judged (a mixed "
        "load's writes ask about 0.3 of a PUT hour's [000]): below it, noise moves the rate expected by more "
        "than a drop.",
    )
    plunge_deep_scrub_above_usual_ratio: float = _setting(
        1.5,
        1.0,
        100.0,
        "Deep scrubs count as a cause from this multiple of their usual concurrency (the baseline's "
        "median) and at least one more [001].",
    )
    plunge_slow_osd_factor: float = _setting(
        5.0,
        1.5,
        1000.0,
        "An OSD whose mean read or write latency over a perf window is this many times its peers' median "
        "(its device class, the same op) is slow, a slow_ops cause of a plunge [003: an EC write waits "
        "for its slowest chunk].",
    )
    plunge_slow_osd_floor_seconds: float = _setting(
        0.1,
        0.0,
        600.0,
        "Mean latency below which no OSD is slow, whatever its peers' (an idle cluster's 1 ms against "
        "5 ms is noise to a client); an all-flash cluster may lower it.",
    )
    # The names the operator set; a cluster_value setting set here wins over the cluster's.
    explicit: frozenset[str] = dataclasses.field(default=frozenset(), compare=False, repr=False)

    @classmethod
    def from_mapping(cls, values: dict[str, Any] | None) -> Thresholds:
        """Validate every value first, so a bad one is refused and nothing is half-applied."""
        values = dict(values or {})
        unknown = sorted(set(values) - set(_BY_NAME))
        if unknown:
            raise ConfigError(f"unknown threshold(s): {', '.join(unknown)}; known: {', '.join(sorted(_BY_NAME))}")
        checked = {name: coerce(name, raw) for name, raw in values.items()}
        result = cls(**checked, explicit=frozenset(checked))  # type: ignore[arg-type]  # coerce checked each type
        order = (result.fill_warn_ratio, result.fill_target_ratio, result.fill_critical_ratio)
        if not order[0] <= order[1] <= order[2]:
            raise ConfigError(
                "fill ratios must satisfy fill_warn_ratio <= fill_target_ratio <= fill_critical_ratio, "
                f"got {order[0]} / {order[1]} / {order[2]}"
            )
        windows = min(
            result.fill_forecast_window_seconds, result.bluefs_growth_window_seconds, result.runway_window_seconds
        )
        if result.forecast_min_span_seconds > windows:
            raise ConfigError(
                f"forecast_min_span_seconds ({result.forecast_min_span_seconds}) must not exceed the forecast "
                "windows (fill_forecast_window_seconds, bluefs_growth_window_seconds, runway_window_seconds: "
                f"{windows}): no forecast could ever be made"
            )
        if result.plunge_window_seconds > result.plunge_baseline_seconds:
            raise ConfigError(
                f"plunge_window_seconds ({result.plunge_window_seconds}) must not exceed plunge_baseline_seconds "
                f"({result.plunge_baseline_seconds}): the baseline is what a window is compared with"
            )
        return result

    def as_dict(self) -> dict[str, float | int | str]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "explicit"}

    def numbers(self) -> dict[str, float | int]:
        """The numeric settings (ceph_scale_config exports them)."""
        return {k: v for k, v in self.as_dict().items() if not isinstance(v, str)}

    @property
    def hdd_classes(self) -> frozenset[str]:
        return frozenset(self.hdd_device_classes.split(","))


SETTINGS: tuple[Setting, ...] = tuple(
    Setting(
        f.name,
        f.default,  # type: ignore[arg-type]  # every threshold has a number default
        {"int": int, "float": float, "str": str}[str(f.type)],
        f.metadata["minimum"],
        f.metadata["maximum"],
        f.metadata["doc"],
        f.metadata["cluster_value"],
    )
    for f in dataclasses.fields(Thresholds)
    if f.name != "explicit"
)
_BY_NAME = {s.name: s for s in SETTINGS}


def coerce(name: str, raw: Any) -> float | int | str:
    """One threshold's value, checked against its setting; raises ConfigError with the reason."""
    setting = _BY_NAME.get(name)
    if setting is None:
        raise ConfigError(f"unknown threshold {name!r}")
    if setting.kind is str:
        return check_names(name, raw)
    return check_number(name, raw, setting.kind is int, setting.minimum, setting.maximum)
