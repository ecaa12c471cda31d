"""The advisor's formulas (core/advisor/) on hand-made measurements, with the studies' numbers."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

from ceph_scale.core.advisor import advise, render, runway, scrub, shards, sizing
from ceph_scale.core.advisor.model import Growth, Measured, OsdDb, OsdFill, PoolPgs, ScrubMeasure
from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.reshard.derive import recommended_shards
from ceph_scale.core.snapshot import Bucket

TH = Thresholds()
DAY = 86400.0
TB = 10**12
MIB = 2**20


def measured(**kw) -> Measured:
    base = dict(
        horizon=180 * DAY,
        hdd_osds=318,
        hdd_bytes=16 * TB,
        other_raw_bytes=0,
        failure_domain_osds=53,
        raw_total_bytes=318 * 16 * TB,
        raw_used=Growth(0.5 * 318 * 16 * TB, 1e9, 7 * DAY, True),
    )
    return Measured(**{**base, **kw})


def s3(put: float, get: float = 0.0, put_bytes: float | None = None, get_bytes: float | None = None, rate=0.0):
    size = 65536
    return {
        "put_ops": Growth(put, rate, 3600, True),
        "get_ops": Growth(get, 0.0, 3600, True),
        "put_bytes": Growth(put * size if put_bytes is None else put_bytes, rate * size, 3600, True),
        "get_bytes": Growth(get * size if get_bytes is None else get_bytes, 0.0, 3600, True),
    }


def test_until_reached_not_growing_or_not_fitted():
    assert runway.until(-1, 5.0) == 0 and runway.until(0, None) == 0
    assert runway.until(10, None) is None
    assert runway.until(10, 0.0) == math.inf and runway.until(10, -1.0) == math.inf
    assert runway.until(10, 2.0) == 5


def test_growth_at_the_target_never_counts_on_shrinking():
    assert Growth(10, 2.0).at(5) == 20 and Growth(10, -2.0).at(5) == 10 and Growth(10).at(5) == 10


def test_fill_runways_cluster_and_fullest_osd():
    m = measured(
        raw_total_bytes=100,
        raw_used=Growth(60, 1.0, 7 * DAY, True),
        osd_fill=(OsdFill("osd.0", 20, 50), OsdFill("osd.1", 40, 50)),
    )
    assert runway.fill_cluster(m, TH).seconds == pytest.approx(20)  # 80 - 60 at 1 B/s
    # osd.1 holds 2/3 of the data and takes 2/3 of the growth: (40 - 40) / ... it is at 80 % now.
    r = runway.fill_osd(m, TH)
    assert r.seconds == 0 and "osd.1" in r.detail
    m = dataclasses.replace(m, osd_fill=(OsdFill("osd.0", 20, 50), OsdFill("osd.1", 30, 50)))
    # osd.1: (40 - 30) / (1 x 30/50) = 16.7 s; osd.0: (40 - 20) / (1 x 20/50) = 50 s
    r = runway.fill_osd(m, TH)
    assert r.seconds == pytest.approx(10 / 0.6) and r.detail == "osd.1 first" and r.steady


def test_db_runway_to_the_whole_levels_then_to_the_device():
    l1_l3 = 256 * MIB * 111
    fresh = OsdDb("osd.1", 80 * 10**9, 20 * 10**9, 0, 4 * TB, Growth(20 * 10**9, 1e6, 3600, True))
    r = runway.db_levels(measured(dbs=(fresh,)), TH)
    assert r.seconds == pytest.approx((l1_l3 - 20e9) / 1e6) and r.detail == "osd.1 first"
    # Past L1..L3 without spilling (Pacific lets a level use spare space): the device is the limit.
    past = dataclasses.replace(fresh, used_bytes=40 * 10**9)
    assert runway.db_levels(measured(dbs=(past,)), TH).seconds == pytest.approx(40e9 / 1e6)
    spilling = dataclasses.replace(fresh, daemon="osd.2", spilled_bytes=1)
    r = runway.db_levels(measured(dbs=(fresh, spilling)), TH)
    assert r.seconds == 0 and r.detail == "1 of 2 OSDs spill now"


def test_load_per_hdd_is_the_larger_of_the_ops_and_the_bytes_mix():
    # 64 KB PUTs: ops bind (17,800 / 318 / 60 = 93 %; bytes 11 %).
    level, _ = runway.hdd_load(measured(s3=s3(17_800)), TH)
    assert level == pytest.approx(17_800 / 318 / 60)
    # 128 MB PUTs at the 10B run's ~10.7 GB/s: 33.6 MB/s per HDD, 99 % of 34 MB/s [004].
    level, _ = runway.hdd_load(measured(s3=s3(80, put_bytes=10.7e9)), TH)
    assert level == pytest.approx(10.7e9 / 318 / 34e6)


def test_load_runway_from_its_growth():
    m = measured(s3=s3(9_540, rate=1.0), s3_span=3600, s3_steady=True)  # 50 % of the baseline, +1 PUT/s each second
    r = runway.runways(m, TH)[3]
    assert r.limit == "load_hdd" and r.seconds == pytest.approx(9_540) and r.steady
    r = runway.runways(dataclasses.replace(m, rgw_instances=12), TH)[4]
    assert r.limit == "load_rgw" and r.seconds == pytest.approx((12_000 - 9_540) / 1.0)


def test_hdds_by_fill_with_the_failure_domains_capacity_gone():
    m = measured(raw_used=Growth(100 * TB, 0.0, DAY, True), hdd_osds=10, hdd_bytes=16 * TB, other_raw_bytes=8 * TB)
    # 100 TB / 0.8 / (1 - 2/10) = 156.25 TB, 8 TB of it on SSDs: 148.25 / 16 -> 10 HDDs
    assert sizing.hdds_by_fill(m, TH, 0.2) == 10
    grow = dataclasses.replace(m, raw_used=Growth(100 * TB, TB / DAY, DAY, True), horizon=10 * DAY)
    assert sizing.hdds_by_fill(grow, TH, 0.2) == math.ceil((110 / 0.8 / 0.8 - 8) / 16)


def test_hdds_by_ops_hold_a_node_lost():
    m = measured(s3=s3(17_800, 28_800))
    # Mixed: put/60 + get/90 with the 17 % node drop: 21 % / 25 % [004].
    want = 17_800 / 60 / (1 - 0.21) + 28_800 / 90 / (1 - 0.25)
    assert sizing.hdds_by_ops(m, TH, 0.21, 0.25) == math.ceil(want)


def test_next_level_boundary_and_the_level_base_that_fills_a_db():
    assert sizing.next_boundary(100 * 10**9, TH) == 256 * MIB * 1111  # L4 holds it
    assert sizing.next_boundary(300 * 10**9, TH) == 256 * MIB * 11111  # needs L5
    assert sizing.next_boundary(10**16, TH) == 256 * MIB * 111111  # past every level: the deepest
    # The study's advice: raise max_bytes_for_level_base so the 4 % is used [004]: a 640 GB DB
    # holds L1..L4 with the default base (298 GB); a 576 MB base makes L1..L4 fill it.
    assert sizing.level_base_for(640 * 10**9, TH) == 640 * 10**9 // 1111
    assert sizing.level_base_for(100 * MIB, TH) is None  # not even L1 fits


def test_pgs_per_pool_to_a_power_of_two_and_never_fewer():
    m = measured(
        pools=(PoolPgs(1, "data", 1024, 6, 90 * TB), PoolPgs(2, "index", 64, 3, 10 * TB)),
        osds_in=318,
    )
    planned = {p.name: p.planned_pgs for p in sizing.pools(m, 0)}
    # data: 100 x 318 x 0.9 / 6 = 4,770 -> 4,096; index: 100 x 318 x 0.1 / 3 = 1,060 -> 1,024
    assert planned == {"data": 4096, "index": 1024}
    assert {p.planned_pgs for p in sizing.pools(measured(pools=(PoolPgs(1, "d", 8192, 6, TB),), osds_in=318), 0)} == {
        8192
    }


def test_the_10b_clusters_deep_scrubs_could_not_fit_its_week():
    """From its own `ceph -s` [004]: 28 PGs deep scrubbing and 19,494 of 21,760 not deep-scrubbed
    within 7 days x 1.75: at most 2,266 deep scrubs in 12.25 days, so one took >= 3.6 h, and a
    week of them needs 8.8 times the scrub slots of 318 OSDs (osd_max_scrubs 1, EC 4+2)."""
    done = (21_760 - 19_494) / (7 * 1.75 * DAY)
    m = ScrubMeasure(21_760, 6.0, 318, 1, 7 * DAY, 7 * DAY, 0.0, 28.0, 0.0, done, 3600.0)
    shallow, deep = scrub.durations(m)
    assert deep == pytest.approx(28 / done) and deep > 3.6 * 3600 and shallow == deep
    u = scrub.utilization(m)
    assert u == pytest.approx(21_760 * deep / (7 * DAY) / (318 / 6))
    assert u == pytest.approx(8.9, abs=0.05)
    assert runway.scrub_capacity(measured(scrub=m), TH).seconds == 0
    # With 3 scrubs per OSD (Squid's default) and a tenth of the work it would fit; growth at
    # the fitted raw rate uses up the rest: (1/u - 1) x used / rate.
    light = dataclasses.replace(m, max_scrubs=3, deep_scrubbing=2.8)
    u = scrub.utilization(light)
    assert u == pytest.approx(8.9 / 30, abs=0.01)
    g = Growth(50 * TB, 1e6, DAY, True)
    r = runway.scrub_capacity(measured(scrub=light, raw_used=g), TH)
    assert r.seconds == pytest.approx((1 / u - 1) * 50 * TB / 1e6)


def test_scrubs_too_short_to_be_seen_running_leave_the_runway_unbounded():
    # Scrubs completed, none seen in a PG poll: Little's law gives a duration of 0.
    m = ScrubMeasure(49, 1.0, 3, 1, 60, 120, 0.0, 0.0, 0.5, 0.2, 60.0)
    assert scrub.utilization(m) == 0
    r = runway.scrub_capacity(measured(scrub=m), TH)
    assert r.seconds == math.inf


def test_no_scrub_measured_no_runway():
    m = ScrubMeasure(100, 3.0, 3, 1, 60, 120, 0.0, 0.0, 0.0, 0.0, 60.0)
    assert scrub.utilization(m) is None
    assert runway.scrub_capacity(measured(scrub=m), TH).seconds is None


def test_shard_outlook_runway_preshard_list_and_bound():
    # 11 shards x 100,000: room for 1.1 M objects; b19 has 1,090,000, b0 900,000; 10 objects/s each.
    buckets = tuple(Bucket(f"b{i}", "", f"id{i}", 11, 900_000 + i * 10_000) for i in range(20))
    rates = {f"b{i}": 10.0 for i in range(20)}
    o = shards.outlook(buckets, rates, 100_000, 180 * DAY, 0.5, 3, 3600.0, 1999)
    assert o.runway == pytest.approx(1_000) and o.over_limit == 0 and o.due == 20
    assert [b.name for b in o.top] == ["b19", "b18", "b17"]  # the soonest, bounded
    first = o.top[0]
    assert first.seconds == pytest.approx(1_000)
    assert first.objects_at_target == pytest.approx(1_090_000 + 10 * 180 * DAY)  # 156 M objects
    # Shards for those objects at half the limit, a prime [000] (3,137 for 156.6 M objects), held
    # to rgw_max_dynamic_shards: past it, more buckets. Today's: the RGW board's own figure.
    assert recommended_shards(math.ceil(first.objects_at_target), 100_000, 0.5) == 3137
    assert first.recommended_shards == 1999
    assert first.recommended_now == max(11, recommended_shards(1_090_000, 100_000, 0.5)) == 23
    # Only the buckets due by the target date count: at 0.01 objects/s b0 needs 231 days.
    slow = shards.outlook(buckets, {"b0": 0.01}, 100_000, 180 * DAY, 0.5, 3, 3600.0, 1999)
    assert slow.due == 0 and slow.runway == pytest.approx(200_000 / 0.01)
    over = buckets + (Bucket("full", "t", "x", 1, 200_000),)
    o = shards.outlook(over, {}, 100_000, 180 * DAY, 0.5, 3, 0.0, 1999)
    assert o.runway == 0 and o.over_limit == 1 and o.due == 1 and o.top[0].name == "full"
    assert shards.outlook(buckets, {}, 100_000, 180 * DAY, 0.5, 3, 0.0, 1999).runway is None  # no growth known yet
    assert shards.outlook(buckets, {}, 100_000, 180 * DAY, 0.5, 3, 3600.0, 1999).runway == math.inf  # known: none grows


def test_the_plan_in_json_and_text_says_the_same():
    m = measured(
        s3=s3(17_800, rate=0.0),
        s3_span=3600,
        s3_steady=True,
        rgw_instances=12,
        dbs=(OsdDb("osd.0", 880 * 10**9, 300 * 10**9, 2 * 10**9, 16 * TB, Growth(3e11)),),
    )
    advice = advise(m, TH)
    doc = render.as_dict(advice, "c1")
    hdd = doc["plan"]["hdd_osds"]
    assert hdd["now"] == 318 and hdd["by_ops"] == 374 and hdd["by_fill"] == advice.plan.hdd_by_fill
    assert hdd["to_add"] == advice.plan.hdd_to_add and hdd["binding"] == advice.plan.hdd_binding
    assert doc["plan"]["rgw_instances"] == {"now": 12, "needed": 22, "to_add": 10}
    assert doc["plan"]["db_per_osd"]["levels_bytes"] == 256 * MIB * 11111
    limits = {r["limit"]: r for r in doc["runways"]}
    assert limits["load_hdd"]["seconds"] == "+Inf" and limits["db_levels"]["seconds"] == 0
    assert json.loads(render.as_json(advice, "c1"))["runways"] == doc["runways"]  # strict JSON: +Inf as a string
    text = render.as_text(advice, "c1")
    assert "RGW instances: 12 now, 22 needed" in text and "374 by ops" in text and "318 now;" in text
    assert "db_levels" in text and "reached now" in text


def test_the_fullest_osd_is_named_whatever_the_growth():
    # 318 OSDs from 40 % (osd.0) to 78 % full (osd.317), the raw growth within noise: every OSD's
    # runway was "never", and the first OSD kept, the emptiest; its earliest end, 17.4 days, was
    # shown where the fullest OSD's is 0.4 days.
    fills = tuple(OsdFill(f"osd.{i}", int(16 * TB * (0.40 + 0.38 * i / 317)), 16 * TB) for i in range(318))
    used = sum(o.used_bytes for o in fills)
    noise = Growth(used, 0.0, 7 * DAY, True, -1e9, 2e9, 0.0, 0.0, "noise")
    r = runway.fill_osd(measured(raw_used=noise, osd_fill=fills), Thresholds())
    assert r.detail == "osd.317 first" and r.seconds == math.inf
    share = fills[-1].used_bytes / used
    assert r.earliest == pytest.approx((0.8 * 16 * TB - fills[-1].used_bytes) / (2e9 * share), rel=1e-6)
    # Growing, the same OSD, as before.
    growing = runway.fill_osd(measured(raw_used=Growth(used, 1e9, 7 * DAY, True), osd_fill=fills), Thresholds())
    assert growing.detail == "osd.317 first" and math.isfinite(growing.seconds)


def test_the_db_with_least_room_is_named_where_none_grows():
    dbs = tuple(
        OsdDb(f"osd.{i}", 80 * 10**9, int((20 + i) * 10**9), 0, 16 * TB, Growth((20 + i) * 10**9, 0.0, DAY, True))
        for i in range(40)
    )
    th = Thresholds()
    r = runway.db_levels(measured(dbs=dbs), th)
    # The least room to the DB's whole levels (or, past them, to the device): not the first DB.
    least = min(dbs, key=lambda d: runway.db_limit(d.db_bytes, d.used_bytes, th) - d.used_bytes)
    assert least.daemon != "osd.0" and r.seconds == math.inf and r.detail == f"{least.daemon} first", r


def test_the_s3_load_compounds_as_its_gets_do_beside_steady_puts():
    # GETs doubling weekly, PUTs steady: the mixed load took the PUTs' shape and compounding ("no
    # growth beyond noise", 5.4 days where the truth is 4.31).
    week = 7 * DAY
    k = math.log(2) / week
    gets = 15_740.0
    m = measured(
        s3={
            "put_ops": Growth(3000.0, 0.0, week, True, -0.01, 0.01, 0.0, 0.0, "noise"),
            "get_ops": Growth(gets, gets * k, week, False, gets * k, gets * k, 0.0, k, "accelerating"),
        },
    )
    g = runway.mix(m, {"put_ops": 1 / 60 / 318, "get_ops": 1 / 90 / 318})
    assert g.shape == "accelerating" and g.acceleration == pytest.approx(k)
    truth = week * math.log2((318 - 3000 / 60) * 90 / gets)
    seconds, earliest, latest = runway.reach(1 - g.now, g)
    assert seconds == pytest.approx(truth, rel=0.01) and earliest <= truth <= latest
