"""The derivation as a whole (core/derive.py): no source, no signal; the series budget at study
scale; the cluster label."""

from __future__ import annotations

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import (
    BucketsPart,
    FullRatios,
    Osd,
    OsdMapPart,
    PerfPart,
    RgwOpCounters,
    Snapshot,
)
from tests.unit.signals.derived import samples
from tests.unit.signals.parts import bucket, osd, osd_map


def test_a_source_that_never_succeeded_gives_no_signal_not_zero():
    th = Thresholds()
    fams = derive(Snapshot(taken_at=1.0), DerivationState(th), th)
    names = {f.name for f in fams}
    assert "ceph_scale_cluster_used_ratio" not in names
    assert "ceph_scale_bluefs_spillover_osds" not in names
    assert "ceph_scale_pg_scrub_overdue" not in names
    assert "ceph_scale_config" in names


def test_series_budget_at_study_scale():
    """318 OSDs, 7 pools, 100,000 buckets, 12 RGWs: at most 3,000 series [issue 6 target]."""
    from ceph_scale.core.snapshot import BlueFsCounters, CapacityPart, OsdOpCounters, Pool

    th = Thresholds()
    state = DerivationState(th)
    osds = [Osd(i, "hdd", f"h{i // 53}", True, True, 16 * 10**12, 12 * 10**12, True, 16 * 10**12) for i in range(318)]
    pools = tuple(Pool(p, f"pool{p}", 10**14, 15 * 10**13, 10**14, 0.5, 10**9, 4, 2) for p in range(7))
    buckets = tuple(bucket(f"b{i}", f"id{i}", 11, 100_000 + i, f"m{i}") for i in range(100_000))
    for t in (0.0, 30.0):
        perf = PerfPart(
            collected_at=t,
            bluefs=tuple(BlueFsCounters(i, 440 * 10**9, 100 * 10**9 + int(t), 10**9) for i in range(318)),
            osd_ops=tuple(OsdOpCounters(i, int(t) * i, int(t) * 2) for i in range(318)),
            rgw_ops=tuple(RgwOpCounters(str(r), int(t) * 100, int(t) * 100, 0, 0) for r in range(12)),
        )
        snap = Snapshot(
            taken_at=t,
            osd_map=osd_map(osds, t),
            capacity=CapacityPart(t, 5 * 10**15, 3 * 10**15, pools),
            perf=perf,
            buckets=BucketsPart(t, buckets),
        )
        fams = derive(snap, state, th, cluster="c1")
    series = sum(len(f.samples) for f in fams)
    assert series <= 3000, series
    assert samples(fams, "ceph_scale_rgw_top_bucket_objects") is not None
    assert len(samples(fams, "ceph_scale_rgw_top_bucket_objects")) == th.rgw_top_buckets


def test_cluster_label_falls_back_to_the_osd_maps_fsid():
    """The exporter may start while the monitors are down: the fsid then comes with the first OSD map."""
    th = Thresholds()
    part = OsdMapPart(collected_at=1.0, osds=(osd(0),), ratios=FullRatios(0.85, 0.9, 0.95), fsid="f-1")
    fams = derive(Snapshot(taken_at=1.0, osd_map=part), DerivationState(th), th)
    build = next(f for f in fams if f.name == "ceph_scale_build_info")
    assert dict(zip(build.label_names, build.samples[0][1]))["cluster"] == "f-1"
    fams = derive(Snapshot(taken_at=1.0, fsid="f-0", osd_map=part), DerivationState(th), th, cluster="prod")
    build = next(f for f in fams if f.name == "ceph_scale_build_info")
    assert dict(zip(build.label_names, build.samples[0][1]))["cluster"] == "prod"
