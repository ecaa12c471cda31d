"""The derivation core's rules, each against the study number it encodes."""

from __future__ import annotations

import dataclasses
import math

import pytest

from exporter.core.config import SETTINGS, ConfigError, Thresholds
from exporter.core.derive import DerivationState, derive
from exporter.core.history import CounterRate, Series
from exporter.core.signals.degraded import expected_drop
from exporter.core.signals.reshard import ReshardState, next_prime, recommended_shards
from exporter.core.signals.spillover import usable_db_bytes
from exporter.core.snapshot import (
    Bucket,
    BucketsPart,
    ClusterSettings,
    FullRatios,
    Osd,
    OsdMapPart,
    PerfPart,
    PgPart,
    PgScrubState,
    RgwOpCounters,
    Snapshot,
)

MiB, GiB = 1024**2, 1024**3


def samples(families, name):
    """{label dict as sorted tuple: value} of one family (labels without cluster)."""
    for f in families:
        if f.name == name:
            return {
                tuple((n, v) for n, v in zip(f.label_names, lv) if n != "cluster")
                + ((("suffix", s),) if s else ()): val
                for s, lv, val in f.samples
            }
    return None


def test_threshold_defaults_match_the_documented_settings():
    th = Thresholds()
    for s in SETTINGS:
        assert getattr(th, s.name) == s.default, s.name
    assert set(th.as_dict()) == {s.name for s in SETTINGS}


@pytest.mark.parametrize(
    "values, message",
    [
        ({"fill_target_ratio": 1.5}, "outside"),
        ({"fill_target_ratio": "abc"}, "expected a number"),
        ({"rgw_top_buckets": 2.5}, "whole number"),
        ({"no_such": 1}, "unknown threshold"),
        ({"fill_warn_ratio": 0.85}, "fill_warn_ratio <= fill_target_ratio"),
        ({"baseline_put_ops_per_hdd": True}, "expected a number"),
        ({"baseline_put_ops_per_hdd": float("nan")}, "NaN"),
    ],
)
def test_bad_thresholds_are_refused_with_the_reason(values, message):
    with pytest.raises(ConfigError, match=message):
        Thresholds.from_mapping(values)


def test_level_rule_counts_only_whole_levels():
    th = Thresholds()
    # [004]: L1 256 MB, L2 2.56 GB, L3 25.6 GB, L4 256 GB: an 80 GB DB holds L1..L3 only.
    assert usable_db_bytes(80 * 10**9, th) == 256 * MiB * 111
    assert usable_db_bytes(256 * MiB, th) == 256 * MiB
    assert usable_db_bytes(1 * GiB, th) == 256 * MiB
    assert usable_db_bytes(255 * MiB, th) == 0
    # The remedy [004]: a larger level base uses more of the device.
    big = Thresholds.from_mapping({"rocksdb_level_base_bytes": 700 * MiB})
    assert usable_db_bytes(80 * 10**9, big) == 700 * MiB * 11


def test_degraded_drop_reproduces_the_study_table():
    assert expected_drop(0.0, 0) == 0.0
    assert expected_drop(0.02, 0) == pytest.approx(0.06)
    assert expected_drop(0.02, 1) == pytest.approx(0.08)
    assert expected_drop(0.17, 0) == pytest.approx(0.21)
    assert expected_drop(0.17, 1) == pytest.approx(0.25)
    assert 0.06 < expected_drop(0.1, 0) < 0.21
    assert expected_drop(1.0, 1) == 1.0


def test_counter_rate_survives_a_daemon_restart():
    r = CounterRate(window=300)
    r.add(0, 1000)
    r.add(10, 1100)
    r.add(20, 50)  # restarted: 50 new ops, not -1050
    assert r.rate() == pytest.approx(150 / 20)
    r.add(20, 60)  # same collection time again: ignored
    assert r.rate() == pytest.approx(150 / 20)


def test_series_slope_is_least_squares():
    s = Series(window=1000)
    for t in range(10):
        s.add(t * 10.0, 5.0 + 2.0 * t * 10.0)
    assert s.slope() == pytest.approx(2.0)


def bucket(name, bid, shards, objects, marker="m-" + "x"):
    return Bucket(name=name, tenant="", bucket_id=bid, num_shards=shards, num_objects=objects, marker=marker)


def test_reshard_counted_once_per_new_instance_and_not_for_recreated_buckets():
    s = ReshardState()
    s.observe(1, (bucket("a", "id1", 1, 10, "ma"), bucket("b", "id2", 1, 10, "mb")))
    assert s.events == 0
    s.observe(2, (bucket("a", "id3", 7, 120, "ma"), bucket("b", "id2", 1, 10, "mb")))
    assert s.events == 1
    s.observe(2, (bucket("a", "id4", 11, 120, "ma"),))  # same collection time: ignored
    assert s.events == 1
    s.observe(3, (bucket("a", "id3", 7, 130, "ma"), bucket("b", "id9", 11, 0, "mb-new")))  # b re-created
    assert s.events == 1


def test_a_bucket_missing_from_one_poll_is_not_counted_again_when_it_is_back():
    """Pacific swaps a resharded bucket's instance under a stats read, which may answer "no such
    bucket" for a moment: the poll drops it, the next lists it again. Seen in a full run as a
    reshard counted twice (a bucket first seen already resharded)."""
    made = "2026-11-26T09:23:00.000000Z"  # after the watch began: its earlier reshards are ours
    s = ReshardState()
    s.observe(1_700_000_000, (bucket("other", "o1", 11, 0, "o1"),))
    u = dataclasses.replace(bucket("u", "u2", 7, 0, "u1"), created=made)
    s.watch_start = 0.0  # the bucket's creation stamp is after the watch began
    s.observe(1_700_000_010, (bucket("other", "o1", 11, 0, "o1"), u))
    first = s.events
    s.observe(1_700_000_020, (bucket("other", "o1", 11, 0, "o1"),))  # its stats read found it gone
    s.observe(1_700_000_030, (bucket("other", "o1", 11, 0, "o1"), u))
    assert s.events == first
    # Resharded while it was missing: counted once, as any reshard.
    s.observe(1_700_000_040, (bucket("other", "o1", 11, 0, "o1"),))
    s.observe(1_700_000_050, (bucket("other", "o1", 11, 0, "o1"), dataclasses.replace(u, bucket_id="u3", num_shards=3)))
    assert s.events == first + 1
    # Missing from one poll, then listed and not yet read, then read: still the same bucket.
    back = dataclasses.replace(u, bucket_id="u3", num_shards=3)
    s.observe(1_700_000_060, (bucket("other", "o1", 11, 0, "o1"),))
    s.observe(1_700_000_070, (bucket("other", "o1", 11, 0, "o1"),), unread=frozenset({"u"}))
    s.observe(1_700_000_080, (bucket("other", "o1", 11, 0, "o1"), back))
    assert s.events == first + 1


def test_reshard_during_a_restart_is_counted_exactly_once():
    before = ReshardState()
    before.observe(1, (bucket("a", "id1", 1, 10, "ma"),))
    saved = before.to_dict()
    import json

    after = ReshardState.from_dict(json.loads(json.dumps(saved)))
    after.observe(5, (bucket("a", "id2", 3, 200, "ma"),))
    after.observe(6, (bucket("a", "id2", 3, 210, "ma"),))
    assert after.events == 1


def test_recommended_shards_keep_the_target_fill_and_are_prime():
    assert next_prime(8) == 11
    # 30 M objects at 50 % of 100 K per shard: 600 shards -> next prime 601 [000].
    assert recommended_shards(30_000_000, 100_000, 0.5) == 601


def test_buckets_expected_to_reshard_next_by_their_own_growth():
    """A slow bucket near the limit reshards after a fast one further from it [000: 16 -> 512 shards]."""
    th = Thresholds(rgw_top_buckets=2, rgw_growth_window_seconds=600)
    state = DerivationState(th)

    def at(t, fast, slow, idle, over):
        part = BucketsPart(
            t,
            (
                bucket("fast", "i1", 1, fast, "m1"),  # 1,000 objects/s, 50,000 from the limit
                bucket("slow", "i2", 1, slow, "m2"),  # 10 objects/s, 5,000 from the limit
                bucket("idle", "i3", 1, idle, "m3"),  # not growing: no prediction
                bucket("over", "i4", 1, over, "m4"),  # past the limit: due now, growing or not
            ),
        )
        return samples(derive(Snapshot(taken_at=t, buckets=part), state, th), "ceph_scale_rgw_bucket_reshard_seconds")

    # "over" is past the limit: counted and listed by fill elsewhere, never in this top-K, where
    # such buckets would hide those still ahead when resharding is widespread.
    assert not at(0.0, 0, 90_000, 95_000, 100_001)  # no family without samples
    got = at(50.0, 50_000, 95_000 - 5_000 + 500, 95_000, 100_001)
    # Top 2: "fast" (50,000 left / 1,000 per s), then "slow" (9,500 / 10 per s).
    assert got == {(("bucket", "fast"), ("tenant", "")): 50.0, (("bucket", "slow"), ("tenant", "")): 950.0}
    assert state.reshard.growth is not None
    wide = Thresholds(rgw_top_buckets=3, rgw_growth_window_seconds=600)
    state.thresholds = wide  # widen the top-K without restarting the windows
    got = samples(
        derive(
            Snapshot(
                taken_at=60.0,
                buckets=BucketsPart(
                    60.0,
                    (
                        bucket("fast", "i1", 1, 60_000, "m1"),
                        bucket("slow", "i2", 1, 90_600, "m2"),
                        bucket("idle", "i3", 1, 95_000, "m3"),
                        bucket("over", "i4", 1, 100_001, "m4"),
                    ),
                ),
            ),
            state,
            wide,
        ),
        "ceph_scale_rgw_bucket_reshard_seconds",
    )
    # Rates against the first counts (t=0): fast 1,000/s, slow 10/s.
    assert got[(("bucket", "slow"), ("tenant", ""))] == pytest.approx(9_400 / 10)
    assert got[(("bucket", "fast"), ("tenant", ""))] == pytest.approx(40_000 / 1_000)
    assert (("bucket", "idle"), ("tenant", "")) not in got


def test_a_bucket_created_after_the_reference_is_predicted_from_its_first_sight():
    th = Thresholds(rgw_growth_window_seconds=6 * 3600)
    state = DerivationState(th)

    def at(t, buckets):
        part = BucketsPart(t, tuple(bucket(n, f"i-{n}", 1, o, f"m-{n}") for n, o in buckets))
        return samples(derive(Snapshot(taken_at=t, buckets=part), state, th), "ceph_scale_rgw_bucket_reshard_seconds")

    assert not at(0.0, [("old", 10)])  # nothing grows, nothing at the limit: no series
    at(100.0, [("old", 10), ("new", 0)])  # created an hour after the reference: first seen here
    got = at(110.0, [("old", 10), ("new", 500)])  # 50 objects/s since it was first seen
    assert got == {(("bucket", "new"), ("tenant", "")): pytest.approx((100_000 - 500) / 50)}


def osd(i, cls="hdd", up=True, size=4 * GiB, used=GiB):
    return Osd(
        osd_id=i,
        device_class=cls,
        host="h",
        up=up,
        in_cluster=True,
        size_bytes=size,
        used_bytes=used,
        avail_bytes=size - used,
    )


def osd_map(osds, t=100.0):
    return OsdMapPart(collected_at=t, osds=tuple(osds), ratios=FullRatios(0.85, 0.9, 0.95))


def test_load_ratio_against_the_study_baseline():
    th = Thresholds()
    state = DerivationState(th)
    osds = [osd(i) for i in range(318)]

    def snap(t, put, get):
        perf = PerfPart(collected_at=t, rgw_ops=(RgwOpCounters("4123", get, put, get * 65536, put * 65536),))
        return Snapshot(taken_at=t, osd_map=osd_map(osds, t), perf=perf)

    derive(snap(0.0, 0, 0), state, th)
    fams = derive(snap(10.0, 178_000, 288_000), state, th)
    ratio = samples(fams, "ceph_scale_s3_load_ratio")
    # [004]: ~17,800 PUT and ~28,800 GET ops/s over 318 HDDs is 56 / 90.6 per HDD.
    assert ratio[(("op", "put"), ("unit", "ops"))] == pytest.approx(17800 / 318 / 60)
    assert ratio[(("op", "get"), ("unit", "ops"))] == pytest.approx(28800 / 318 / 90)
    assert ratio[(("op", "mixed"), ("unit", "ops"))] == pytest.approx(17800 / 318 / 60 + 28800 / 318 / 90)
    assert samples(fams, "ceph_scale_hdd_osds")[()] == 318


def test_no_hdd_osds_means_no_per_hdd_ratio_rather_than_a_division_by_zero():
    th = Thresholds()
    state = DerivationState(th)
    for t, n in ((0.0, 0), (10.0, 100)):
        perf = PerfPart(collected_at=t, rgw_ops=(RgwOpCounters("1", 0, n, 0, 0),))
        fams = derive(Snapshot(taken_at=t, osd_map=osd_map([osd(0, "ssd")], t), perf=perf), state, th)
    assert samples(fams, "ceph_scale_s3_load_ratio") is None
    assert samples(fams, "ceph_scale_s3_ops_per_second")[(("op", "put"),)] == pytest.approx(10.0)


def test_scrub_overdue_uses_cephs_rule_and_counts_completions():
    th = Thresholds()
    state = DerivationState(th)
    settings = ClusterSettings(
        collected_at=0,
        scrub_max_interval_seconds=100,
        deep_scrub_interval_seconds=200,
        warn_pg_not_scrubbed_ratio=0.5,
        warn_pg_not_deep_scrubbed_ratio=0.5,
    )
    now = 10_000.0

    def pgs(t, stamps):
        return PgPart(
            collected_at=t,
            pgs=tuple(PgScrubState(f"1.{i}", 1, "active+clean", t - s, t - d) for i, (s, d) in enumerate(stamps)),
        )

    # overdue after 150 s (scrub) and 300 s (deep): PG 1 is overdue for both, PG 0 for neither.
    first = derive(Snapshot(taken_at=now, pgs=pgs(now, [(10, 10), (151, 301)]), settings=settings), state, th)
    assert samples(first, "ceph_scale_pg_scrub_overdue")[(("kind", "scrub"),)] == 1
    assert samples(first, "ceph_scale_pg_scrub_overdue")[(("kind", "deep_scrub"),)] == 1
    assert samples(first, "ceph_scale_pg_scrub_oldest_age_seconds")[(("kind", "deep_scrub"),)] == 301
    # Nothing completes: the backlog never clears.
    later = now + 60
    frozen = PgPart(collected_at=later, pgs=pgs(now, [(10, 10), (151, 301)]).pgs)
    second = derive(Snapshot(taken_at=later, pgs=frozen, settings=settings), state, th)
    assert math.isinf(samples(second, "ceph_scale_pg_scrub_backlog_clear_seconds")[(("kind", "scrub"),)])
    # PG 0 scrubs: one completion, and the backlog clears at that rate.
    done = PgPart(
        collected_at=later + 60,
        pgs=(PgScrubState("1.0", 1, "active+clean", later + 59, now - 10), frozen.pgs[1]),
    )
    third = derive(Snapshot(taken_at=later + 60, pgs=done, settings=settings), state, th)
    assert samples(third, "ceph_scale_pg_scrubs_completed_total") is None  # counters keep their base name
    assert samples(third, "ceph_scale_pg_scrubs_completed")[(("kind", "scrub"),)] == 1
    assert samples(third, "ceph_scale_pg_scrub_backlog_clear_seconds")[(("kind", "scrub"),)] == pytest.approx(120.0)


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
    from exporter.core.snapshot import BlueFsCounters, CapacityPart, OsdOpCounters, Pool

    th = Thresholds()
    state = DerivationState(th)
    osds = [
        Osd(i, "hdd", f"h{i // 53}", True, True, 16 * 10**12, 12 * 10**12, 4 * 10**12, True, 440 * 10**9, 16 * 10**12)
        for i in range(318)
    ]
    pools = tuple(Pool(p, f"pool{p}", 10**14, 15 * 10**13, 10**14, 0.5, 10**9, True, 4, 2) for p in range(7))
    buckets = tuple(bucket(f"b{i}", f"id{i}", 11, 100_000 + i, f"m{i}") for i in range(100_000))
    for t in (0.0, 30.0):
        perf = PerfPart(
            collected_at=t,
            bluefs=tuple(BlueFsCounters(i, 440 * 10**9, 100 * 10**9 + int(t), 10**9) for i in range(318)),
            osd_ops=tuple(OsdOpCounters(i, int(t) * i, int(t) * 2, 0, 0) for i in range(318)),
            rgw_ops=tuple(RgwOpCounters(str(r), int(t) * 100, int(t) * 100, 0, 0) for r in range(12)),
        )
        snap = Snapshot(
            taken_at=t,
            osd_map=osd_map(osds, t),
            capacity=CapacityPart(t, 5 * 10**15, 3 * 10**15, 2 * 10**15, pools),
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


def test_the_soonest_spill_list_shows_the_osds_still_ahead_when_half_already_spill():
    """159 of 318 OSDs spill (the study's 10B cluster: 296): the top-K lists the others."""
    from tests.unit.study_snapshot import rich_families

    soonest = samples(rich_families(), "ceph_scale_bluefs_db_next_level_seconds")
    assert len(soonest) == Thresholds().osd_top_hot
    for labels, seconds in soonest.items():
        osd_id = int(dict(labels)["ceph_daemon"].removeprefix("osd."))
        assert seconds > 0 and osd_id % 2 == 0, (labels, seconds)  # odd ids spill in this state


def test_no_forecast_from_minutes_of_history():
    """Four minutes after a start, two points once read "1.5 days to 80 %" at 17.8 % full."""
    from exporter.core.snapshot import CapacityPart

    th = Thresholds()
    state = DerivationState(th)
    total = 10**15

    def at(t: float, used_ratio: float):
        part = CapacityPart(t, total, int(total * used_ratio), int(total * (1 - used_ratio)), ())
        families = derive(Snapshot(taken_at=t, capacity=part), state, th)
        return samples(families, "ceph_scale_cluster_fill_seconds_to_threshold")

    assert not at(0.0, 0.178)
    assert not at(240.0, 0.18)  # a steep slope over 4 minutes: no forecast
    for t in range(600, 3600, 600):
        assert not at(float(t), 0.18 + t * 1e-7)
    forecast = at(3600.0, 0.18 + 3600 * 1e-7)
    assert forecast[(("threshold", "target"),)] > 5 * 86400  # an hour's fit, not a 4-minute one


def test_a_minimum_span_longer_than_the_windows_is_refused():
    with pytest.raises(ConfigError, match="forecast_min_span_seconds"):
        Thresholds.from_mapping({"forecast_min_span_seconds": 7200, "fill_forecast_window_seconds": 3600})


def test_out_osds_are_not_down_for_the_drop_and_only_watched_flags_are_exported():
    """At 318 disks one OSD always waits for its replacement, destroyed and out: no drop for it."""
    from exporter.core.snapshot import FullRatios, Osd, OsdMapPart

    def osd(i: int, up: bool, in_cluster: bool) -> Osd:
        return Osd(i, "hdd", "h", up, in_cluster, 10**12, 10**11, 9 * 10**11, True, 10**10, 10**12)

    osds = tuple(osd(i, True, True) for i in range(98)) + (osd(98, False, False), osd(99, False, True))
    part = OsdMapPart(1.0, osds, FullRatios(0.85, 0.9, 0.95), frozenset({"noout", "sortbitwise"}))
    fams = derive(Snapshot(taken_at=1.0, osd_map=part), DerivationState(Thresholds()), Thresholds())
    assert samples(fams, "ceph_scale_osds_down_ratio")[()] == pytest.approx(1 / 99)  # osd.99 of the 99 in
    assert samples(fams, "ceph_scale_osd_map_flag") == {(("flag", "noout"),): 1.0}


def test_only_hdd_data_osds_count_for_the_expected_drop():
    """The study's drop is per HDD data OSD [004]: 6 of 318 HDDs down cost 6 % PUT / 8 % GET. A
    down NVMe index OSD is neither down nor in the total; classes follow hdd_device_classes."""
    from exporter.core.snapshot import FullRatios, Osd, OsdMapPart

    def osd(i: int, device_class: str, up: bool) -> Osd:
        return Osd(i, device_class, "h", up, True, 10**12, 10**11, 9 * 10**11)

    hdds = tuple(osd(i, "hdd", i >= 6) for i in range(318))  # 6 of 318 HDDs down: 2 %
    nvmes = tuple(osd(318 + i, "nvme", i != 0) for i in range(12))  # one index OSD down
    part = OsdMapPart(1.0, hdds + nvmes, FullRatios(0.85, 0.9, 0.95))
    fams = derive(Snapshot(taken_at=1.0, osd_map=part), DerivationState(Thresholds()), Thresholds())
    assert samples(fams, "ceph_scale_osds_down_ratio")[()] == pytest.approx(6 / 318)
    drop = samples(fams, "ceph_scale_degraded_expected_drop_ratio")
    assert drop[(("op", "put"),)] == pytest.approx(expected_drop(6 / 318, 0))
    # Only the NVMe OSD down: no HDD down, no expected drop, no alert.
    only_nvme = OsdMapPart(1.0, tuple(osd(i, "hdd", True) for i in range(318)) + nvmes, FullRatios(0.85, 0.9, 0.95))
    quiet = derive(Snapshot(taken_at=1.0, osd_map=only_nvme), DerivationState(Thresholds()), Thresholds())
    assert samples(quiet, "ceph_scale_osds_down_ratio")[()] == 0
    assert set(samples(quiet, "ceph_scale_degraded_expected_drop_ratio").values()) == {0.0}
    # A cluster whose HDDs are the class "archive" counts them once hdd_device_classes names it.
    archive = OsdMapPart(1.0, tuple(osd(i, "archive", i >= 6) for i in range(318)) + nvmes, FullRatios(0.85, 0.9, 0.95))
    th = Thresholds.from_mapping({"hdd_device_classes": "archive"})
    named = derive(Snapshot(taken_at=1.0, osd_map=archive), DerivationState(th), th)
    assert samples(named, "ceph_scale_osds_down_ratio")[()] == pytest.approx(6 / 318)


def test_hdd_device_classes_name_the_osds_the_baseline_is_per():
    """A cluster whose HDDs are the class "archive": counted once hdd_device_classes says so."""
    from exporter.core.snapshot import FullRatios, Osd, OsdMapPart, PerfPart

    osds = tuple(Osd(i, "archive", "h", True, True, 10**12, 10**11, 9 * 10**11) for i in range(4))
    snap = Snapshot(
        taken_at=1.0,
        osd_map=OsdMapPart(
            1.0, osds + (Osd(9, "nvme", "h", True, True, 10**12, 10**11, 9 * 10**11),), FullRatios(0.85, 0.9, 0.95)
        ),
        perf=PerfPart(1.0, (), (), ()),
    )
    default = derive(snap, DerivationState(Thresholds()), Thresholds())
    assert samples(default, "ceph_scale_hdd_osds")[()] == 0
    th = Thresholds.from_mapping({"hdd_device_classes": "archive, hdd"})
    named = derive(snap, DerivationState(th), th)
    assert samples(named, "ceph_scale_hdd_osds")[()] == 4
    assert set(samples(named, "ceph_scale_hdd_device_class")) == {
        (("device_class", "archive"),),
        (("device_class", "hdd"),),
    }
    assert "hdd_device_classes" not in {dict(k)["option"] for k in samples(named, "ceph_scale_config")}
    with pytest.raises(ConfigError, match="comma-separated names"):
        Thresholds.from_mapping({"hdd_device_classes": "hdd; rm -rf"})
