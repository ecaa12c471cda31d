"""The module's SCALE_* health checks, on families derived by the core from small snapshots
and from the Pacific captures."""

from __future__ import annotations

import math

import pytest
from scale.checks import CheckOptions, bad_config_check, health_checks

from ceph_scale.core.config import Thresholds
from ceph_scale.core.snapshot import BlueFsCounters
from tests.mgr import snapshots as s


def checks_for(snaps, th=None, **opts):
    _, state = s.derive_with_state(snaps, th)
    return health_checks(state.results, state.thresholds, CheckOptions(**opts))


# --- SCALE_FILL_HEADROOM -------------------------------------------------------------


def test_fill_quiet_far_from_the_target():
    t = 1000.0
    assert "SCALE_FILL_HEADROOM" not in checks_for(
        [s.snap(t, osd_map=s.osd_map(t, [0.5, 0.6]), capacity=s.capacity(t, 0.55, {"data": 0.5}))]
    )


def test_fill_lists_cluster_pools_and_osds_worst_first():
    t = 1000.0
    c = checks_for(
        [
            s.snap(
                t,
                osd_map=s.osd_map(t, [0.50, 0.83, 0.77, 0.92]),
                capacity=s.capacity(t, 0.76, {"data": 0.81, "index": 0.10}),
            )
        ]
    )["SCALE_FILL_HEADROOM"]
    lines = c["detail"]
    # osd.3 92 %, osd.1 83 %, pool data 81 %, osd.2 77 %, cluster 76 %: worst (least headroom) first
    assert [line.split(" is ")[0] for line in lines] == ["osd.3", "osd.1", "pool data", "osd.2", "the cluster"]
    assert "12.0 % past the 80.0 % target" in lines[0]
    assert "4.0 % below the 80.0 % target" in lines[-1]
    assert c["count"] == 5
    assert c["severity"] == "error"  # osd.3 is past fill_critical_ratio (90 %)


def test_fill_warning_below_critical_and_margin_option():
    t = 1000.0
    snaps = [s.snap(t, osd_map=s.osd_map(t, [0.72]), capacity=s.capacity(t, 0.72))]
    assert "SCALE_FILL_HEADROOM" not in checks_for(snaps)  # 8 points below the target > 5
    c = checks_for(snaps, fill_headroom_warn_margin=0.10)["SCALE_FILL_HEADROOM"]
    assert c["severity"] == "warning" and c["count"] == 2


def test_fill_follows_the_threshold_in_force():
    t = 1000.0
    snaps = [s.snap(t, osd_map=s.osd_map(t, [0.62]), capacity=s.capacity(t, 0.62))]
    assert "SCALE_FILL_HEADROOM" not in checks_for(snaps)
    th = Thresholds.from_mapping({"fill_warn_ratio": 0.5, "fill_target_ratio": 0.65})
    c = checks_for(snaps, th)["SCALE_FILL_HEADROOM"]
    assert "65.0 % target" in c["detail"][0]


def test_fill_forecast_within_the_warning_days():
    day = 86400.0
    # 50 % -> 60 % in one day: 80 % in two more days
    snaps = [
        s.snap(t, osd_map=s.osd_map(t, [0.3]), capacity=s.capacity(t, r))
        for t, r in ((0.0, 0.50), (day / 2, 0.55), (day, 0.60))
    ]
    th = Thresholds.from_mapping({"fill_forecast_window_seconds": 7 * 86400})
    c = checks_for(snaps, th)["SCALE_FILL_HEADROOM"]
    assert c["count"] == 1 and "reaching it in 2.0 days" in c["detail"][0]
    assert "SCALE_FILL_HEADROOM" not in checks_for(snaps, th, fill_forecast_warn_days=1)
    # a forecast from too little history is not trusted
    assert "SCALE_FILL_HEADROOM" not in checks_for(snaps, th, history_seconds=1800)


# --- SCALE_RESHARD_SOON -----------------------------------------------------------


def test_reshard_soon_names_buckets_with_a_preshard_recommendation():
    t = 1000.0
    c = checks_for([s.snap(t, buckets=s.buckets(t, {"hot": (95_000, 1), "full": (230_000, 2), "calm": (10_000, 11)}))])[
        "SCALE_RESHARD_SOON"
    ]
    assert c["count"] == 2
    assert c["detail"][0].startswith("bucket full: 230000 objects in 2 shard(s), 115.0 % of rgw_max_objs_per_shard")
    assert "pre-shard to 5 shards" in c["detail"][0]  # 230,000 / (100,000 x 0.5) = 4.6 -> 5 (prime)
    assert c["detail"][1].startswith("bucket hot: 95000 objects in 1 shard(s), 95.0 %")
    assert "1 at the limit" in c["summary"]


def test_reshard_soon_counts_buckets_beyond_the_top_k():
    t = 1000.0
    many = {f"b{i:03d}": (90_000 + i, 1) for i in range(30)}
    th = Thresholds.from_mapping({"rgw_top_buckets": 5})
    c = checks_for([s.snap(t, buckets=s.buckets(t, many))], th, health_detail_max=10)["SCALE_RESHARD_SOON"]
    assert c["count"] == 30
    # The count of those it does not name first, where the detail's cap cannot cut it off.
    assert len(c["detail"]) == 6 and c["detail"][0] == "25 more bucket(s) near the limit outside the top 5 exposed"


def test_reshard_soon_predicts_a_fast_bucket_far_from_the_limit():
    """The study's plunges came from a bucket growing to 30 M objects [000]: a bucket filling
    fast is flagged while still far from the limit; a full but idle one stays on the ratio."""
    snaps = [
        s.snap(t, buckets=s.buckets(t, {"fast": (fast, 1), "idle": (85_000, 1), "slow": (slow, 1)}))
        for t, fast, slow in ((1000.0, 10_000, 10_000), (1100.0, 60_000, 10_001))
    ]
    c = checks_for(snaps)["SCALE_RESHARD_SOON"]
    assert c["count"] == 2  # fast (predicted) and idle (85 % >= 80 %); slow reaches it in 104 days
    assert c["detail"][0].startswith("bucket fast: 60000 objects in 1 shard(s), 60.0 %")
    assert "reaches the limit in 80 s" in c["detail"][0], c
    assert c["detail"][1].startswith("bucket idle: 85000 objects") and "reaches" not in c["detail"][1]
    assert not any("slow" in line for line in c["detail"])
    # A shorter horizon than the slow bucket's 89,999 objects / 0.01 per s (104.2 days), a longer one
    assert "slow" not in str(checks_for(snaps, reshard_forecast_warn_days=104)["SCALE_RESHARD_SOON"])
    assert "bucket slow" in str(checks_for(snaps, reshard_forecast_warn_days=105)["SCALE_RESHARD_SOON"])
    # Forecasts are not trusted on too short a history
    short = checks_for(snaps, history_seconds=60)["SCALE_RESHARD_SOON"]
    assert short["count"] == 1 and "fast" not in str(short)


def test_reshard_quiet_below_the_warn_ratio():
    t = 1000.0
    assert "SCALE_RESHARD_SOON" not in checks_for([s.snap(t, buckets=s.buckets(t, {"a": (50_000, 1)}))])


# --- SCALE_LOAD_ABOVE_BASELINE ----------------------------------------------------


def load_snaps(put_rate: float, get_rate: float, osds: int = 10):
    return [
        s.snap(t, osd_map=s.osd_map(t, [0.1] * osds), perf=s.perf(t, int(put_rate * t), int(get_rate * t)))
        for t in (1000.0, 1060.0, 1120.0)
    ]


def test_load_above_baseline():
    # 10 HDDs, 500 PUT/s + 450 GET/s: 50/60 + 45/90 = 1.33 x
    c = checks_for(load_snaps(500, 450))["SCALE_LOAD_ABOVE_BASELINE"]
    assert "1.33 x the study's baseline" in c["detail"][0]
    assert "50.0 PUT/s + 45.0 GET/s" in c["detail"][0]


def test_load_below_baseline_is_quiet_and_the_ratio_is_an_option():
    assert "SCALE_LOAD_ABOVE_BASELINE" not in checks_for(load_snaps(300, 300))  # 0.5 + 0.33
    assert "SCALE_LOAD_ABOVE_BASELINE" in checks_for(load_snaps(300, 300), load_warn_ratio=0.8)


# --- SCALE_SCRUB_BACKLOG ------------------------------------------------------------


def test_scrub_backlog_that_never_clears():
    snaps = [s.snap(t, pgs=s.pgs(t, 100, overdue=40)) for t in (1000.0, 1600.0)]
    c = checks_for(snaps)["SCALE_SCRUB_BACKLOG"]
    assert c["detail"][0].startswith("deep scrub: 40 of 100 PGs overdue (40.0 %); no deep scrub completed")
    assert c["detail"][1].startswith("scrub: 40 of 100 PGs overdue")
    assert c["count"] == 80


def test_scrub_backlog_clearing_fast_enough_is_quiet():
    t0, t1 = 1000.0, 4600.0
    first = s.pgs(t0, 100, overdue=40)
    # 30 PGs scrubbed in the hour: 10 overdue left, cleared in 20 min
    second = s.pgs(t1, 100, overdue=10, scrubbed_at=t1 - 10)
    fams, state = s.derive_with_state([s.snap(t0, pgs=first), s.snap(t1, pgs=second)])
    clear = [v for _, lv, v in next(f for f in fams if f.name.endswith("backlog_clear_seconds")).samples]
    assert all(math.isfinite(v) for v in clear)
    assert "SCALE_SCRUB_BACKLOG" not in health_checks(state.results, state.thresholds, CheckOptions())


# --- SCALE_DB_SHARE_LOW / SCALE_BLUEFS_SPILL_SOON -----------------------------------


def test_db_share_below_the_4_percent_rule():
    t = 1000.0
    bluefs = [BlueFsCounters(0, 200 * 10**9, 10 * 10**9, 0)]
    c = checks_for([s.snap(t, osd_map=s.osd_map(t, [0.1], data_device_bytes=10 * s.TB), perf=s.perf(t, 0, 0, bluefs))])[
        "SCALE_DB_SHARE_LOW"
    ]
    assert c["detail"] == ["osd.0: DB device is 2.0 % of the data device (study: at least 4.0 %)"]


def test_spill_soon_from_the_db_growth():
    hour = 3600.0
    db = 20 * 10**9  # usable 2.95 GB (L1+L2): L3 (25.6 GB) does not fit
    snaps = []
    for i in range(3):
        t = 1000.0 + i * hour
        used = 2 * 10**9 + i * 10**8  # +100 MB/h: from 2.2 GB, 2.95 GB in 7.5 h
        snaps.append(
            s.snap(
                t,
                osd_map=s.osd_map(t, [0.1], data_device_bytes=10 * s.TB),
                perf=s.perf(t, 0, 0, [BlueFsCounters(0, db, used, 0)]),
            )
        )
    c = checks_for(snaps)["SCALE_BLUEFS_SPILL_SOON"]
    assert c["detail"][0].startswith("osd.0: DB use passes the usable 2.8 GiB")
    assert "in 7.5 h" in c["detail"][0]


# --- the common shape --------------------------------------------------------------


def test_detail_is_capped_with_a_closing_line():
    t = 1000.0
    c = checks_for([s.snap(t, osd_map=s.osd_map(t, [0.9] * 25))], health_detail_max=4)["SCALE_FILL_HEADROOM"]
    assert c["count"] == 25 and len(c["detail"]) == 5 and c["detail"][-1] == "... and 21 more"


def test_every_check_has_the_set_health_checks_shape():
    from tests.unit.study_snapshot import rich_derivation

    _, state = rich_derivation()
    checks = health_checks(state.results, state.thresholds, CheckOptions())
    assert checks, "the study-scale snapshot should raise some checks"
    for code, c in checks.items():
        assert code.startswith("SCALE_")
        assert set(c) == {"severity", "summary", "count", "detail"}
        assert c["severity"] in ("warning", "error")
        assert isinstance(c["count"], int) and c["count"] > 0
        assert all(isinstance(d, str) for d in c["detail"])


def test_bad_config_check():
    c = bad_config_check(["fill ratios must satisfy ..."])
    assert c["severity"] == "warning" and c["count"] == 1 and "previous values stay in force" in c["summary"]


@pytest.mark.parametrize("suffix", ["", "_queued", "_resharded"])
def test_checks_on_the_pacific_captures(suffix):
    from tests.mgr.test_sources import fixture_derivation

    _, state = fixture_derivation(suffix)
    checks = health_checks(state.results, state.thresholds, CheckOptions())
    # The captures hold one bucket with 250 objects in 1 shard while its reshard is queued
    # (rgw_max_objs_per_shard 100): it must be named.
    if suffix == "_queued":
        assert "bucket queued-reshard: 250 objects in 1 shard(s)" in checks["SCALE_RESHARD_SOON"]["detail"][0]
    else:
        assert "SCALE_RESHARD_SOON" not in checks
    assert "SCALE_LOAD_ABOVE_BASELINE" not in checks
