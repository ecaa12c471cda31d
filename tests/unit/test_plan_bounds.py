"""A plan is bounded by physics and by Ceph's limits, and a figure the growth behind it cannot
carry to the target date has no headline: issue 27's findings on the studies' clusters
(tests/unit/study_clusters.py) and on hand-made measurements with the studies' numbers."""

from __future__ import annotations

import dataclasses
import math

import pytest

from ceph_scale.core.advisor import advise, bounds, render, shards, sizing
from ceph_scale.core.advisor.model import Growth, OsdDb, PoolPgs
from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.reshard.derive import recommended_shards
from ceph_scale.core.signals.runway.derive import RunwayState
from ceph_scale.core.snapshot import Bucket
from tests.unit.signals.runway.test_runway import samples
from tests.unit.study_clusters import FIT, PUT_1B, PUT_10B, cluster_1b, db_per_chunk, fed, synth_10b
from tests.unit.test_advisor import measured

DAY = 86400.0
TB = 10**12
# The default 180-day target; the studies' fits are minutes long (FIT).
TH = Thresholds(forecast_min_span_seconds=FIT)


@pytest.fixture(scope="module")
def tenb(tmp_path_factory):
    d = synth_10b(tmp_path_factory.mktemp("synth-10b"))
    per_chunk = db_per_chunk(d["parts"], 10e9)
    state, families = fed(d["parts"], d["now"], PUT_10B, per_chunk, TH)
    return {"state": state.of(RunwayState), "families": families, "per_chunk": per_chunk, **d}


def test_the_10b_plan_at_180_days_from_minutes_of_history_has_no_headline(tenb):
    # 12 minutes of ingest extrapolated 180 days read "add 10,259 HDDs" and "DB per OSD: 29,826
    # GB", more than the 16 TB data device.
    plan = tenb["state"].advice.plan
    assert plan.db_per_osd_levels <= 16 * TB  # never above the data device...
    assert plan.db_per_osd_levels >= plan.db_per_osd_share == 640 * 10**9  # ...nor under the 4 % rule
    assert {"hdd_by_fill", "db_per_osd"} <= set(plan.withheld)
    assert "12.5 min" in plan.withheld["hdd_by_fill"] and "6.0 days" in plan.withheld["hdd_by_fill"]
    text = render.as_text(tenb["state"].advice, "10B")
    assert f"add {plan.hdd_to_add}" not in text and "to add: withheld (growth fitted over 12.5 min" in text
    assert "29,826" not in text and "29826" not in text
    assert "374 by ops" in text  # the load is not growing: today's need is not an extrapolation
    doc = render.as_dict(tenb["state"].advice)["plan"]
    assert doc["hdd_osds"]["to_add"] is None and doc["hdd_osds"]["by_fill"] is None and doc["hdd_osds"]["by_ops"] == 374
    assert doc["db_per_osd"]["levels_bytes"] is None and "hdd_by_fill" in doc["withheld"]
    fams = tenb["families"]
    # Exported, bounded, and said to be withheld: the boards' headline shows "withheld".
    assert samples(fams, "ceph_scale_plan_hdd_osds")[("ops",)] == 374.0
    assert samples(fams, "ceph_scale_plan_hdd_osds")[("fill",)] == tenb["state"].advice.plan.hdd_by_fill
    assert samples(fams, "ceph_scale_plan_caveat")[("hdd_by_fill", "withheld")] == 1
    assert samples(fams, "ceph_scale_plan_caveat")[("db_per_osd", "withheld")] == 1


def test_the_plan_stands_once_the_history_carries_the_target(tenb):
    # The same 12 minutes carry a 6-hour target (30 x 12.5 min): the figures are shown.
    short = dataclasses.replace(tenb["state"].measured, horizon=6 * 3600.0)
    plan = advise(short, TH).plan
    assert plan.withheld == {} and plan.hdd_to_add is not None
    assert f"add {plan.hdd_to_add}" in render.as_text(advise(short, TH))


def test_the_10b_buckets_past_100k_objects_are_counted_and_more_buckets_advised(tenb, oneb_plan):
    # "about 100 K objects per bucket" [000]: the 10B synth's 100,000 buckets hold ~100,000 each.
    parts = tenb["parts"]
    over = sum(1 for b in parts["buckets"].buckets if b.num_objects > 100_000)
    plan = tenb["state"].advice.plan
    assert over > 0 and plan.buckets_over_advised == over
    assert any(f"{over:,} bucket(s) hold more than 100,000 objects" in n for n in plan.notes)
    assert render.as_dict(tenb["state"].advice)["plan"]["buckets_to_preshard"]["over_advised_objects"] == over
    # The 1B cluster's 14 buckets of 50,000: none.
    assert oneb_plan.buckets_over_advised == 0 and not [n for n in oneb_plan.notes if "100,000 objects" in n]


@pytest.fixture(scope="module")
def oneb(tenb):
    now = 1.8e9
    state, _ = fed(cluster_1b(now), now, PUT_1B, tenb["per_chunk"], TH)
    return state.of(RunwayState)


@pytest.fixture(scope="module")
def oneb_plan(oneb):
    return oneb.advice.plan


def test_the_1b_db_plan_is_at_least_the_4_percent_rule_and_at_most_the_hdd(oneb, oneb_plan):
    # At 180 days the DB growth of minutes passes every level: held to the 4 TB HDD, withheld.
    assert oneb_plan.db_per_osd_levels == 4 * TB and "db_per_osd" in oneb_plan.withheld
    # An hour ahead (those minutes carry 6 h), ~22 GB of DB use fits L1..L3 (29.8 GB) whole, but
    # the 4 % of a 4 TB HDD is 160 GB [004]: the plan asks for no less.
    plan = advise(dataclasses.replace(oneb.measured, horizon=3600.0), TH).plan
    assert sizing.next_boundary(max(d.growth.at(3600.0) for d in oneb.measured.dbs), TH) < 30 * 10**9
    assert plan.db_per_osd_share == 160 * 10**9 and "db_per_osd" not in plan.withheld
    assert plan.db_per_osd_levels == 160 * 10**9 and plan.db_short_levels == 112


def test_hdds_by_fill_held_to_what_the_hdds_can_write():
    # 1 TB/s of raw growth on 318 HDDs of an EC 4+2 cluster: they write at most 318 x 34 MB/s x
    # 1.5 = 16.2 GB/s raw [004]; the fill plan takes no more.
    pools = (PoolPgs(1, "data", 8192, 6, 100 * TB, 4),)
    m = measured(raw_used=Growth(0.5 * 318 * 16 * TB, 1e12, 180 * DAY, True), pools=pools, osds_in=318)
    assert bounds.write_amplification(m) == 1.5
    plan = advise(m, TH).plan
    most = 318 * 34e6 * 1.5
    cap = math.ceil((m.raw_used.now + most * 180 * DAY) / 0.8 / (1 - 53 / 318) / (16 * TB))
    assert plan.hdd_by_fill == cap and "16.2 GB/s" in plan.bounded["hdd_osds"]
    assert "[bounded: raw growth 1,000.0 GB/s held to what 318 HDDs write" in render.as_text(advise(m, TH))


def test_rgws_held_to_what_the_shown_hdds_take():
    # The load growing 3 PUT/s every second, fitted over an hour: at 180 days 46.7 M PUT/s, once
    # "RGW instances to add 49,199". Neither HDD count is shown (too short a fit), so the RGWs are
    # held to what today's 318 HDDs take: 90 GET/s each, 500 per RGW [004, 000], a node lost.
    s3 = {
        "put_ops": Growth(17_800, 3.0, 3600, True),
        "get_ops": Growth(0, 0.0, 3600, True),
        "put_bytes": Growth(17_800 * 65536, 3.0 * 65536, 3600, True),
        "get_bytes": Growth(0, 0.0, 3600, True),
    }
    m = measured(s3=s3, s3_span=3600, s3_steady=True, rgw_instances=12, raw_used=Growth(TB, 1e6, 3600, True))
    plan = advise(m, TH).plan
    most = math.ceil(318 * 90 / 500 / (1 - 53 / 318) - 1e-9)
    assert plan.rgw_needed == most == 69
    assert {"hdd_by_fill", "hdd_by_ops", "rgw_instances"} <= set(plan.withheld)
    doc = render.as_dict(advise(m, TH))["plan"]["rgw_instances"]
    assert doc["needed"] is None and doc["to_add"] is None


def test_pgs_per_pool_a_power_of_two_within_mon_max_pg_per_osd():
    # An operator's mon_target_pg_per_osd of 1,000 asks for more than Ceph accepts (250 PG
    # replicas per OSD): the plan stops at the largest power of two under it.
    pools = (PoolPgs(1, "data", 1024, 6, 90 * TB, 4),)
    m = measured(pools=pools, osds_in=318, target_pg_per_osd=1000, raw_used=Growth(100 * TB, 0.0, 7 * DAY, True))
    (pool,) = sizing.pools(m, 0, 250)
    assert pool.planned_pgs == 8192 and pool.planned_pgs * 6 / 318 <= 250
    assert bounds.max_pgs(318, 6, 250) == 8192 and bounds.max_pgs(1, 6, 250) == 32
    plan = advise(m, TH).plan
    assert plan.pools[0].planned_pgs == 8192 and "mon_max_pg_per_osd 250" in plan.bounded["pool_pgs"]
    (unbounded,) = sizing.pools(m, 0)
    assert unbounded.planned_pgs == 65536  # what the autoscaler rule alone asks for: 1,000 x 318 / 6, rounded


def test_pre_shard_held_to_rgw_max_dynamic_shards_and_the_boards_figure_while_growth_is_short():
    # A bucket of 100,000 objects in 3 shards growing 1,000 objects/s, fitted over 4.2 minutes:
    # 180 days of it once asked for 153,979-odd shards; the RGW board recommends 3.
    big = Bucket("big", "", "id.big", 3, 100_000)
    o = shards.outlook((big,), {"big": 1000.0}, 100_000, 180 * DAY, 0.5, 5, 252.0, 1999)
    (due,) = o.top
    board = max(3, recommended_shards(100_000, 100_000, 0.5))
    assert board == 3 and due.recommended_now == board
    assert recommended_shards(math.ceil(due.objects_at_target), 100_000, 0.5) > 1999
    assert due.recommended_shards == 1999
    m = measured(shards=o, objects_span=252.0, objects_steady=True)
    plan = advise(m, TH).plan
    assert "4.2 min" in plan.withheld["bucket_shards"]
    doc = render.as_dict(advise(m, TH))["plan"]["buckets_to_preshard"]["top"][0]
    assert doc["recommended_shards"] is None and doc["recommended_shards_now"] == 3
    assert "big: 3 -> 3 shards for today's objects" in render.as_text(advise(m, TH))
    # With history enough (6 days for 180), the target's figure, held to rgw_max_dynamic_shards.
    m = measured(shards=dataclasses.replace(o, span=7 * DAY), objects_span=7 * DAY, objects_steady=True)
    plan = advise(m, TH).plan
    assert "bucket_shards" not in plan.withheld and plan.buckets_top[0].recommended_shards == 1999
    assert "rgw_max_dynamic_shards 1999" in plan.bounded["bucket_shards"]


def test_the_rgw_sizing_note_names_the_op_that_binds():
    # A GET-only load past the per-RGW figure: 750 GET/s per RGW is 150 % of 500 [000].
    s3 = {name: Growth(v, 0.0, 3600, True) for name, v in
          (("put_ops", 0), ("get_ops", 9_000), ("put_bytes", 0), ("get_bytes", 9_000 * 65536))}  # fmt: skip
    plan = advise(measured(s3=s3, s3_span=3600, s3_steady=True, rgw_instances=12), TH).plan
    (note,) = [n for n in plan.notes if "per-RGW figure" in n]
    assert "750 GET/s" in note and "raise rgw_get_ops_per_instance" in note
    assert "rgw_put_ops_per_instance" not in note


def test_db_per_osd_never_above_the_data_device():
    # DB use growing 1 GB/s for 180 days: the next whole level is L1..L6 (29.8 TB), past a 16 TB HDD.
    db = OsdDb("osd.0", 880 * 10**9, 300 * 10**9, 0, 16 * TB, Growth(300e9, 1e9, 180 * DAY, True))
    plan = advise(measured(dbs=(db,)), TH).plan
    assert plan.db_per_osd_levels == 16 * TB
    assert "larger than the data device (16,000 GB)" in plan.bounded["db_per_osd"]
    assert "[bounded: the next whole level (29,826 GB)" in render.as_text(advise(measured(dbs=(db,)), TH))


def test_the_rgw_board_and_the_plan_recommend_the_same_shards_held_to_rgw_max_dynamic_shards():
    """A bucket far past what rgw_max_dynamic_shards can hold: the board's top-bucket figure is the
    plan's rule, held to the same cap (it once said 3,137 where the plan said 1,999)."""
    from ceph_scale.core.derive import DerivationState, derive
    from ceph_scale.core.signals.reshard.derive import preshard
    from tests.unit.study_snapshot import study_snapshot

    snap = study_snapshot(1_000_000.0, osds=12, buckets=3)
    huge = dataclasses.replace(snap.buckets.buckets[0], num_objects=500_000_000, num_shards=11)
    snap = dataclasses.replace(
        snap, buckets=dataclasses.replace(snap.buckets, buckets=(huge, *snap.buckets.buckets[1:]))
    )
    families = derive(snap, DerivationState(TH), TH)
    (board,) = [
        value
        for f in families
        if f.name == "ceph_scale_rgw_top_bucket_recommended_shards"
        for _, labels, value in f.samples
        if huge.name in labels
    ]
    assert recommended_shards(500_000_000, 100_000, TH.rgw_preshard_fill_ratio) > TH.plan_rgw_max_dynamic_shards
    assert board == preshard(500_000_000, 11, 100_000, TH.rgw_preshard_fill_ratio, TH.plan_rgw_max_dynamic_shards)
    assert board == TH.plan_rgw_max_dynamic_shards


def test_pgs_of_all_pools_together_within_mon_max_pg_per_osd():
    # Two replicated pools of equal raw use at an operator's mon_target_pg_per_osd of 200 on 356
    # OSDs: each rounded to 16,384 PGs, 276 PG replicas an OSD together, past the 250 Ceph allows.
    pools = (PoolPgs(1, "a", 1024, 3, 100 * TB, 1), PoolPgs(2, "b", 1024, 3, 100 * TB, 1))
    m = measured(
        pools=pools, osds_in=356, hdd_osds=356, target_pg_per_osd=200, raw_used=Growth(200 * TB, 0.0, 7 * DAY, True)
    )
    plan = advise(m, TH).plan
    replicas = sum(x.planned_pgs * 3 for x in plan.pools)
    assert replicas <= TH.plan_mon_max_pg_per_osd * 356, [x.planned_pgs for x in plan.pools]
    assert sorted(x.planned_pgs for x in plan.pools) == [8192, 16384]  # the most halved, the rest kept
    assert "mon_max_pg_per_osd 250" in plan.bounded["pool_pgs"]
    # At the default target of 100 they fit as they are: nothing held.
    quiet = advise(dataclasses.replace(m, target_pg_per_osd=100), TH).plan
    assert "pool_pgs" not in quiet.bounded and sum(x.planned_pgs * 3 for x in quiet.pools) <= 250 * 356


def test_pgs_are_sized_for_the_hdds_the_plan_shows_not_those_it_withholds(tenb):
    # The 10B plan withholds its HDDs to add (minutes of history at 180 days): its pools were sized
    # for them, and 131,072 PGs exported, 2,473 PG replicas an OSD of today's.
    plan = tenb["state"].advice.plan
    assert "hdd_by_fill" in plan.withheld and "pool_pgs" not in plan.withheld
    # Its 21,760 PGs are 360 PG replicas an OSD already, past the 250 of mon_max_pg_per_osd's
    # default (the study's cluster ran with it raised): no pool is planned above its PGs now.
    pools = {p.pool_id: p for p in tenb["state"].measured.pools}
    assert sum(p.pgs * p.width for p in pools.values()) > TH.plan_mon_max_pg_per_osd * 318
    assert [x.planned_pgs for x in plan.pools] == [pools[x.pool_id].pgs for x in plan.pools]
    assert max(x.planned_pgs for x in plan.pools) == 16384
