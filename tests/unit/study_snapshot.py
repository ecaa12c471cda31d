"""A synthetic snapshot at the 10B study's scale where every signal has data."""

from __future__ import annotations

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.signals.signal_input import SignalInput
from ceph_scale.core.signals.tenants import derive as tenants
from ceph_scale.core.snapshot import (
    BlueFsCounters,
    Bucket,
    BucketPollReport,
    BucketsPart,
    CapacityPart,
    ClusterSettings,
    FullRatios,
    HealthCheck,
    HealthPart,
    Osd,
    OsdMapPart,
    OsdOpCounters,
    PerfPart,
    PgPart,
    PgScrubState,
    Pool,
    ReshardEntry,
    ReshardPart,
    RgwOpCounters,
    RgwRunningOption,
    Snapshot,
    SourceStatus,
)


def rgw_ops(t: float, slow_from: float | None = None) -> tuple[RgwOpCounters, ...]:
    """12 RGWs, each 80 GETs and 120 PUTs a second at 27 ms and 510 ms [004], 50 requests in flight;
    from `slow_from` on, a cluster slower by 60 %: 40 % of the ops, each 2.5 times as long."""
    slow = max(0.0, t - slow_from) if slow_from is not None else 0.0
    done = t - 0.6 * slow  # seconds' worth of ops at the full rate
    return tuple(
        RgwOpCounters(
            str(4000 + r),
            int(done * 80),
            int(done * 120),
            int(done * 10**6),
            0,
            t * 80 * 0.027,
            int(done * 80),
            t * 120 * 0.51,
            int(done * 120),
            50,
            int(done * 200),
            0,
        )
        for r in range(12)
    )


def study_snapshot(
    t: float, osds: int = 318, buckets: int = 2000, grow: int = 0, slow_from: float | None = None
) -> Snapshot:
    osd_list = tuple(
        Osd(
            i,
            "hdd",
            f"h{i // 53}",
            i != 0,
            True,
            16 * 10**12,
            12 * 10**12 + grow * i,
            True,
            16 * 10**12,
        )  # fmt: skip
        for i in range(osds)
    )
    pools = tuple(
        Pool(p, f"pool{p}", 10**14 + grow * 10**9, 15 * 10**13, 10**14, 0.5 + grow * 1e-4, 10**9, 4, 2)
        for p in range(7)
    )
    perf = PerfPart(
        collected_at=t,
        # The WAL on the DB device, as in every capture: its bytes are in db_used_bytes.
        bluefs=tuple(
            BlueFsCounters(i, 440 * 10**9, 100 * 10**9 + grow * 10**6, (i % 2) * 10**9, 0) for i in range(osds)
        ),
        osd_ops=tuple(OsdOpCounters(i, int(t) * (i + 1), int(t) * 2) for i in range(osds)),
        rgw_ops=rgw_ops(t, slow_from),
    )
    pgs = tuple(
        PgScrubState(
            f"{p}.{i:x}",
            p,
            "active+clean+scrubbing+deep" if i % 50 == 0 else "active+clean",
            t - 86400 * (i % 20) - (grow if i % 3 == 0 else 0),
            t - 86400 * (i % 30),
        )  # fmt: skip
        for p in range(7)
        for i in range(300)
    )
    bucket_list = tuple(study_bucket(i, grow) for i in range(buckets))
    sources = tuple(
        SourceStatus(n, n != "reshard", 0.1, t - 1, "" if n != "reshard" else "boom", int(n == "reshard"), 30.0)
        for n in ("osd_map", "capacity", "perf", "pgs", "settings", "buckets", "reshard", "health")
    )
    return Snapshot(
        taken_at=t,
        fsid="f00",
        osd_map=OsdMapPart(t, osd_list, FullRatios(0.85, 0.9, 0.95), frozenset({"sortbitwise", "nodeep-scrub"})),
        capacity=CapacityPart(t, 5 * 10**15, 3 * 10**15 + grow * 10**12, pools),
        perf=perf,
        pgs=PgPart(t, pgs),
        settings=ClusterSettings(
            t,
            rgw_max_objs_per_shard=100_000,
            # Two RGWs, one started with its own ceph.conf value, and one not yet reporting.
            rgw_running=(
                RgwRunningOption("4154", "rgw_max_objs_per_shard", 100_000),
                RgwRunningOption("4154", "rgw_reshard_num_logs", 16),
                RgwRunningOption("4160", "rgw_max_objs_per_shard", 50_000),
                RgwRunningOption("4160", "rgw_reshard_num_logs", 16),
            ),
            rgw_daemons=3,
        ),
        buckets=BucketsPart(t, bucket_list, poll=poll_report(t, grow)),
        reshard=ReshardPart(t, (ReshardEntry("bucket-12", "", "zone.12.0", 11, 23, True),)),
        health=HealthPart(t, "HEALTH_WARN", (HealthCheck("BLUEFS_SPILLOVER", "HEALTH_WARN", 159, "spillover"),)),
        sources=sources,
    )


def study_bucket(i: int, grow: int) -> Bucket:
    """Owners of skewed sizes (a few own most buckets: more owners than rgw_tenant_series), the
    tenant's buckets owned by `tenant$` users, and every bucket of owner-0 under a bucket quota."""
    objects = 100_000 * (i % 13) + (grow * 60_000 if i % 13 < 5 else 0)  # the ones below the limit grow
    tenant = "tenant" if i % 10 == 0 else ""
    user = f"owner-{min(i % 97, i % 31)}"
    quota = user == "owner-0"
    return Bucket(
        f"bucket-{i}",
        tenant,
        f"zone.{i}.{grow}",
        11,
        objects,
        f"{tenant}${user}" if tenant else user,
        f"zone.{i}.0",
        size_bytes=objects * 65_536,
        quota_bytes=(1_000_000 + 200_000 * (i % 3)) * 65_536 if quota else -1,
        quota_objects=1_300_000 if quota else -1,
    )


def poll_report(t: float, grow: int) -> BucketPollReport:
    """A bucket poll at study scale in its sweep: 12,000 reads of its 100 reads/s every 120 s."""
    return BucketPollReport(
        budget=12_000.0,
        reads=11_990,
        reads_total=(("list", 700 * (grow + 1)), ("meta", 0), ("stats", 11_290 * (grow + 1)), ("probe", 0)),
        buckets_read_total=(
            ("new", grow),
            ("changed", 0),
            ("queued", 1),
            ("due", 40 * grow),
            ("unread", 0),
            ("sweep", 700 * (grow + 1)),
        ),  # fmt: skip
        overdue=0,
        unread=0,
        oldest_stats_at=t - 3 * 3600,
        bound_exceeded_total=grow,
    )


def rich_families():
    return rich_derivation()[0]


def rich_derivation():
    """rich_families, and the derivation state holding the signals' judgements of them."""
    # Three snapshots a minute apart stand for hours of history: forecasts from their 2 minutes.
    # Before them, four minutes of S3 ops alone make the plunge detector's baseline; the cluster
    # is then 60 % slower from 1030 s on, with a bucket resharding (a plunge with its cause).
    th = Thresholds(forecast_min_span_seconds=120, plunge_window_seconds=30, plunge_baseline_seconds=240)
    state = DerivationState(th)
    for t in range(760, 1000, 30):
        derive(Snapshot(taken_at=t, perf=PerfPart(t, rgw_ops=rgw_ops(t))), state, th, cluster="study")
    # The bucket polls of the hours before, as the tenants' durable state holds them after a restart.
    for t in (400.0, 600.0, 800.0):
        snap = study_snapshot(t)
        tenants.derive(SignalInput(snap, th, 100_000), state.signals["tenants"])
    fams = []
    for step in range(3):
        t = 1000.0 + 60 * step
        fams = derive(study_snapshot(t, grow=step, slow_from=1030.0), state, th, cluster="study")
    return fams, state
