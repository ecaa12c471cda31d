"""The advisor reaches the studies' own conclusions on the studies' own clusters, fed through
the real derivation with growth at their ingest rates (tests/unit/study_clusters.py)."""

from __future__ import annotations

import math

import pytest

from ceph_scale.core.advisor import sizing
from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.degraded.derive import expected_drop
from ceph_scale.core.signals.runway.derive import RunwayState
from ceph_scale.core.signals.spillover.derive import usable_db_bytes
from tests.unit.study_clusters import FIT, PUT_1B, PUT_10B, cluster_1b, db_per_chunk, fed, synth_10b

MIB = 2**20
DAY = 86400.0
# The 10B run ingested its 10 B objects in about 10e9 / 17,800 s = 6.5 days [004]: its own horizon.
WEEK = Thresholds(forecast_min_span_seconds=FIT, runway_target_seconds=7 * 86400)


@pytest.fixture(scope="module")
def tenb(tmp_path_factory):
    d = synth_10b(tmp_path_factory.mktemp("synth-10b"))
    per_chunk = db_per_chunk(d["parts"], 10e9)
    state, families = fed(d["parts"], d["now"], PUT_10B, per_chunk, WEEK)
    return {"state": state.of(RunwayState), "per_chunk": per_chunk, "families": families, **d}


@pytest.fixture(scope="module")
def oneb(tenb):
    now = 1.8e9
    state, _ = fed(cluster_1b(now), now, PUT_1B, tenb["per_chunk"], WEEK)
    return state.of(RunwayState)


def runway(state, limit: str):
    (r,) = [r for r in state.advice.runways if r.limit == limit]
    return r


def test_the_10b_state_is_the_studys(tenb):
    parts = tenb["parts"]
    assert len(parts["osd_map"].osds) == 318 and len(parts["perf"].rgw_ops) == 12
    assert len(parts["pgs"].pgs) == 21_760 and len(parts["buckets"].buckets) == 100_000
    # DB metadata per EC chunk, from the 10B end state: ~321 GB per OSD over 10 B x 6 / 318 chunks
    assert tenb["per_chunk"] == pytest.approx(1700, rel=0.01)


def test_10b_dbs_cannot_hold_l5_so_spillover_is_expected_on_most_osds(tenb):
    plan, measured = tenb["state"].advice.plan, tenb["state"].measured
    db = measured.dbs[0].db_bytes
    assert db / 16e12 == pytest.approx(0.055, abs=0.0005)  # ~880 GB per 16 TB HDD (7.6 TB NVMe / 8-9 OSDs)
    # Above the 4 % rule (640 GB)...
    assert plan.db_per_osd_share == 640 * 10**9 and plan.db_short_share == 0
    # ...but RocksDB places whole levels only: L1..L4 = 298 GB of it is usable, and holding L5
    # needs L1..L5 = 2.98 TB per OSD, which no DB of the cluster has [004].
    assert usable_db_bytes(db, WEEK) == 256 * MIB * 1111
    assert plan.db_per_osd_levels == 256 * MIB * 11111
    assert plan.db_short_levels == 318
    # 296 of 318 spill now [004], so the DB runway is spent; the other 22 follow within the week.
    r = runway(tenb["state"], "db_levels")
    assert r.seconds == 0 and r.detail == "296 of 318 OSDs spill now"
    assert plan.db_spilling_by_target == 318
    # The study's remedy: a larger level base makes whole levels fill the DB it has [004].
    assert plan.level_base == db // 1111
    assert any("298.2 GB of the smallest DB" in n for n in plan.notes)


def test_1b_80_gb_db_is_below_the_4_percent_rule(oneb):
    plan, measured = oneb.advice.plan, oneb.measured
    assert {d.db_bytes / d.data_bytes for d in measured.dbs} == {0.02}  # 80 GB of 4 TB [000]
    assert plan.db_per_osd_share == 160 * 10**9  # 4 % of 4 TB
    assert plan.db_short_share == 112  # every OSD
    # Whole levels: 80 GB holds L1..L3 (30 GB); the study's OSDs spilled 80+ GB [000].
    assert usable_db_bytes(80 * 10**9, WEEK) == 256 * MIB * 111
    first = measured.dbs[0]
    assert runway(oneb, "db_levels").seconds == pytest.approx((256 * MIB * 111 - first.used_bytes) / first.growth.rate)


def test_17800_puts_on_318_hdds_is_near_the_baseline_and_a_lost_node_needs_more(tenb):
    advice, measured = tenb["state"].advice, tenb["state"].measured
    # 17,800 / 318 = 56 PUT/s per HDD: 93 % of the 60 ops/s baseline [004].
    assert advice.now["s3_put_ops_per_second"] == pytest.approx(PUT_10B)
    assert advice.now["hdd_load_ratio"] == pytest.approx(17_800 / 318 / 60)
    assert 0.9 < advice.now["hdd_load_ratio"] < 1
    # Steady ingest: at the baseline only if the load grows, and it does not.
    r = runway(tenb["state"], "load_hdd")
    assert r.seconds == math.inf and r.steady is True and r.span > FIT
    # Enough HDDs today (297 of 318), not with a node down: 53 of 318 down cost 21 % of the PUTs
    # [004] (interpolated for 16.7 %: 20.7 %), so 374 HDDs hold 17,800 PUT/s through it.
    assert sizing.hdds_by_ops(measured, WEEK, 0.0, 0.0) == 297
    plan = advice.plan
    assert plan.failure_domain_osds == 53
    assert plan.degraded_drop_put == pytest.approx(expected_drop(53 / 318, 0)) == pytest.approx(0.2067, abs=1e-4)
    assert plan.hdd_by_ops == math.ceil(17_800 / 60 / (1 - plan.degraded_drop_put)) == 374


def test_12_rgws_for_17800_puts_by_the_per_rgw_figure(tenb):
    advice = tenb["state"].advice
    # 17,800 / 12 = 1,483 PUT/s per RGW, 148 % of the 1B study's ~1,000 [000]: by that figure 12
    # are not enough. 18 carry it, 22 with a node's RGWs lost (2 per node, 6 nodes).
    assert advice.now["rgw_load_ratio"] == pytest.approx(17_800 / 12 / 1000)
    assert runway(tenb["state"], "load_rgw").seconds == 0
    assert advice.plan.rgw_needed == math.ceil(17.8 / (1 - 53 / 318)) == 22
    # Said honestly: the 10B cluster did carry it, so the figure is the 1B hardware's.
    (note,) = [n for n in advice.plan.notes if "per-RGW figure" in n]
    assert "1,483 PUT/s" in note and "148%" in note and "raise rgw_put_ops_per_instance" in note


def test_the_1b_cluster_is_near_the_baseline_and_14_rgws_are_enough(oneb):
    advice = oneb.advice
    assert advice.now["hdd_load_ratio"] == pytest.approx(6_500 / 112 / 60, rel=1e-5)  # 58 per HDD: 97 %
    assert advice.now["rgw_load_ratio"] == pytest.approx(6_500 / 14 / 1000, rel=1e-5)  # 464 PUT/s per RGW
    assert advice.plan.rgw_needed == math.ceil(6.5 / (1 - 16 / 112)) == 8  # <= 14: enough
    assert not [n for n in advice.plan.notes if "per-RGW figure" in n]


def test_fill_at_the_ingest_rate(tenb):
    """At 17,800 PUT/s a 64 KB object takes 384 KiB raw: 7 GB/s; the 10B cluster had hours left."""
    state = tenb["state"]
    m, plan = state.measured, state.advice.plan
    assert m.raw_used.rate == pytest.approx(PUT_10B * 6 * 65536, rel=1e-6)
    r = runway(state, "fill_cluster")
    assert r.seconds == pytest.approx((0.8 * m.raw_total_bytes - m.raw_used.now) / m.raw_used.rate)
    assert 3600 < r.seconds < DAY and r.steady is True
    # 13 OSDs past nearfull [004]: the fullest OSD is past the target already.
    assert runway(state, "fill_osd").seconds == 0
    # HDDs by fill: a week's ingest, under 80 % with a node's capacity lost.
    needed = (m.raw_used.now + m.raw_used.rate * 7 * DAY) / 0.8 / (1 - 53 / 318)
    assert plan.hdd_by_fill == math.ceil(needed / 16e12)
    assert plan.hdd_to_add == plan.hdd_by_fill - 318 and plan.hdd_binding == "fill"


def test_growing_ingest_shortens_the_load_runway_and_grows_the_plan(oneb, tenb):
    """Ingest growing by 10 % an hour: the load runway is finite, and shorter the faster it grows; the plan
    withholds what minutes of history cannot carry."""
    now = 1.8e9
    plans = {}
    for ramp in (0.0, 0.1 / 3600, 0.3 / 3600):
        state, _ = fed(cluster_1b(now), now, PUT_1B * 0.5, tenb["per_chunk"], WEEK, ramp=ramp)
        plans[ramp] = (runway(state.of(RunwayState), "load_hdd").seconds, state.of(RunwayState).advice.plan)
    steady, slow, fast = (plans[k] for k in sorted(plans))
    assert steady[0] == math.inf
    assert math.inf > slow[0] > fast[0] > 0
    assert steady[1].rgw_needed <= slow[1].rgw_needed <= fast[1].rgw_needed
    # Fitted over minutes, that growth cannot carry a week: the HDD and RGW figures are withheld,
    # and the RGWs held to what the 112 HDDs shown take (90 GET/s each, 500 per RGW, a node lost).
    # The HDDs by ops, which nothing physical bounds, are exported at today's load, not carried.
    for plan in (slow[1], fast[1]):
        assert {"hdd_by_ops", "rgw_instances"} <= set(plan.withheld)
        assert steady[1].hdd_by_ops <= plan.hdd_by_ops <= 1.1 * steady[1].hdd_by_ops
    assert fast[1].rgw_needed == math.ceil(112 * 90 / 500 / (1 - 16 / 112)) and "rgw_instances" in fast[1].bounded
