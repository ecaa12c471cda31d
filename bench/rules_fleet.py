"""The fleet the rule benchmark loads: which clusters are in the study's trouble, and how the others look.

The 1x study cluster is a cluster in trouble: 296 of 318 OSDs spill, the
fullest OSD is at 88 %, half its top buckets are past the shard limit, its S3
load is far past the HDD baseline. A fleet of 100 where every cluster is that
one alerts 16 times per cluster at once; a pending or firing alert expands its
annotations, queries included, every round, so that fleet measures the
annotations more than the rules. A fleet's steady state is a few clusters in
trouble and the rest quiet: `quiet_value` turns a copy of the study cluster into
a quiet one with the same series (so the rules read as much) and values no
alert fires on.

In every cluster the exporter's own timestamps advance with the samples, as a
polling exporter's do; a backfill of frozen stamps would make every source of
every cluster stale, which no real fleet is.
"""

from __future__ import annotations

import math
from pathlib import Path

STEP = 30  # seconds between samples, the usual scrape interval

DAY = 86400.0
# A quiet cluster's S3 load, per RGW and op: ~18 ops/s per HDD OSD each of PUT and GET over
# 318 HDD OSDs and 12 RGWs (half the mixed baseline of 60 PUT / 90 GET), and 30 % of the
# byte baseline (34 MB/s per HDD OSD).
QUIET_OPS_PER_RGW = 18.0 * 318 / 12
QUIET_BYTES_PER_RGW = 0.3 * 34e6 * 318 / 12
# Families whose value is the moment of the sample: they advance in every cluster.
NOW_FAMILIES = frozenset(
    {"ceph_scale_source_last_success_timestamp_seconds", "ceph_scale_derivation_last_success_timestamp_seconds"}
)
# Gauges of a quiet cluster: the value each takes (a number) or how it follows from the study's.
QUIET_GAUGES: dict[str, object] = {
    "ceph_scale_bluefs_spillover_osds": 0.0,
    "ceph_scale_cluster_bluefs_spilled_bytes": 0.0,
    "ceph_scale_bluefs_spilled_bytes": 0.0,
    "ceph_scale_bluefs_spilled_top_bytes": 0.0,
    "ceph_scale_bluefs_oversized_osds": 0.0,
    "ceph_scale_bluefs_db_share_below_min_osds": 0.0,
    "ceph_scale_bluefs_db_next_level_seconds": 90 * DAY,
    "ceph_scale_cluster_used_ratio": 0.55,
    "ceph_scale_osd_fullest_used_ratio": 0.62,
    "ceph_scale_osd_used_ratio": lambda v: min(v, 0.62),
    "ceph_scale_pool_used_ratio": lambda v: min(v, 0.55),
    "ceph_scale_pool_fill_seconds_to_target": 400 * DAY,
    "ceph_scale_rgw_buckets_near_reshard": 0.0,
    "ceph_scale_rgw_buckets_over_shard_limit": 0.0,
    "ceph_scale_rgw_reshard_queued": 0.0,
    "ceph_scale_rgw_reshard_in_progress": 0.0,
    "ceph_scale_rgw_buckets_past_objects_advised": 0.0,
    "ceph_scale_rgw_top_bucket_shard_fill_ratio": lambda v: min(v, 0.6),
    "ceph_scale_rgw_bucket_reshard_seconds": 90 * DAY,
    "ceph_scale_rgw_bucket_stats_overdue": 0.0,
    "ceph_scale_rgw_tenant_quota_runway_seconds": 400 * DAY,
    "ceph_scale_hdd_osd_hottest_ratio": 1.3,
    "ceph_scale_hdd_osd_hottest_cluster_ratio": 1.3,
    "ceph_scale_hdd_osd_hotspot_ratio": lambda v: min(v, 1.3),
    "ceph_scale_hdd_osd_hotspots": 0.0,
    "ceph_scale_runway_seconds": 400 * DAY,
    "ceph_scale_s3_plunge_active": 0.0,
}
# Counters of a quiet cluster: their rate per second (a reshard every ~half hour, no failures).
QUIET_RATES = {
    "ceph_scale_rgw_s3_ops_total": QUIET_OPS_PER_RGW,
    "ceph_scale_rgw_s3_bytes_total": QUIET_BYTES_PER_RGW,
    "ceph_scale_rgw_reshard_events_total": 1 / 2000,
    "ceph_scale_source_failures_total": 0.0,
    "ceph_scale_signal_failures_total": 0.0,
    "ceph_scale_derivation_failures_total": 0.0,
}


def quiet_value(name: str, value: float) -> float:
    """A quiet cluster's value of a gauge sample (the study's where nothing alerts on it)."""
    rule = QUIET_GAUGES.get(name)
    if rule is None:
        return value
    return rule(value) if callable(rule) else float(rule)  # type: ignore[arg-type]


def counter_slope(name: str, value: float, quiet: bool) -> float:
    """Growth per second of a counter: the study's ~one day of its total per day, or a quiet rate."""
    if quiet and name in QUIET_RATES:
        return QUIET_RATES[name]
    return max(1.0, abs(value) / DAY)


def alerting_clusters(clusters: int, share: float | None) -> int:
    """How many of the clusters carry the study's trouble: all of them when no share is given."""
    if share is None:
        return clusters
    if not 0.0 <= share <= 1.0:
        raise SystemExit(f"--alerting-share: {share} is not between 0 and 1")
    return round(clusters * share)


def write_openmetrics(path: Path, samples, types, clusters: int, alerting: int, start: int, end: int) -> int:
    """Every series of every cluster, every STEP seconds in [start, end]; returns the sample count.

    Clusters c000.. up to `alerting` carry the study's values, the others the quiet ones.
    """
    times = list(range(start, end + 1, STEP))
    by_family: dict[str, list] = {}
    for fam, name, labels, value in samples:
        by_family.setdefault(fam, []).append((name, labels, value))
    count = 0
    with open(path, "w", encoding="utf-8", buffering=1 << 22) as f:
        for fam, rows in by_family.items():
            kind = types[fam]
            f.write(f"# TYPE {fam} {kind}\n")
            for c in range(clusters):
                cluster, quiet = f"c{c:03d}", c >= alerting
                for k, (name, labels, study_value) in enumerate(rows):
                    lab = ",".join(f'{key}="{cluster if key == "cluster" else v}"' for key, v in labels.items())
                    prefix = f"{name}{{{lab}}} "
                    value = quiet_value(name, study_value) if quiet and kind != "counter" else study_value
                    # Per cluster and series, a different level and a slow drift (or growth for counters).
                    wobble = 1.0 + 0.05 * math.sin(c * 1.3 + k * 0.7)
                    if name in NOW_FAMILIES:
                        f.write("".join(f"{prefix}{t} {t}\n" for t in times))
                    elif kind == "counter":
                        base, slope = value * wobble, counter_slope(name, value, quiet)
                        # 10 digits: a counter in the billions still shows its growth of one step.
                        f.write("".join(f"{prefix}{base + slope * (t - start):.10g} {t}\n" for t in times))
                    elif math.isinf(value) or math.isnan(value):
                        text = "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")
                        f.write("".join(f"{prefix}{text} {t}\n" for t in times))
                    else:
                        # A quiet cluster is steady: its fill does not head for the target within days.
                        base, drift = value * wobble, 0.0 if quiet else value * 0.02 / max(1, end - start)
                        f.write("".join(f"{prefix}{base + drift * (t - start):.6g} {t}\n" for t in times))
                    count += len(times)
        f.write("# EOF\n")
    return count
