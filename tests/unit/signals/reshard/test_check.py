"""SCALE_RESHARD_SOON on a hand-made reshard result (ceph_scale/core/signals/reshard/check.py)."""

from __future__ import annotations

from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.check_options import CheckOptions
from ceph_scale.core.signals.reshard.check import CHECKS, check_reshard
from ceph_scale.core.signals.reshard.result import BucketEta, BucketShards, ReshardResult, TopBucket


def reshard(near: int = 0, over: int = 0, top=(), soon=()) -> ReshardResult:
    return ReshardResult(100_000, BucketShards(10, 1_000_000, near, over, tuple(top), tuple(soon)), 0, 0, 0)


def test_it_is_the_folders_one_check():
    assert [c.code for c in CHECKS] == ["SCALE_RESHARD_SOON"]


def test_quiet_without_buckets_near_the_limit_or_predicted():
    assert check_reshard(None, Thresholds(), CheckOptions()) is None
    assert check_reshard(reshard(), Thresholds(), CheckOptions()) is None


def test_the_bucket_at_the_limit_leads_then_the_predicted_one():
    full = TopBucket("", "full", 1.0, 100_000, 1, 11)
    near = TopBucket("t", "near", 0.5, 50_000, 1, 6)
    c = check_reshard(
        reshard(near=1, over=1, top=(full, near), soon=(BucketEta("t", "near", 3600.0),)), Thresholds(), CheckOptions()
    )
    assert c is not None and c["count"] == 2
    assert c["detail"][0].startswith("bucket full: ") and "at the limit now" in c["detail"][0]
    assert c["detail"][1].startswith("bucket t/near: ") and "reaches the limit in 60 min" in c["detail"][1]
    assert "1 at the limit" in c["summary"]


def test_a_prediction_waits_for_enough_history():
    soon = reshard(soon=(BucketEta("", "b", 3600.0),))
    assert check_reshard(soon, Thresholds(), CheckOptions(history_seconds=60)) is None


def _study_scale_result(near: int):
    """100,000 buckets of one shard (100,000 objects each at most), derived twice an hour apart:
    `near` of them past the warn ratio and filling within the hour (the soonest, so they fill the
    exposed top-K), 120 below it reaching the limit in about a day, 180 in about a month, and the
    rest idle."""
    from ceph_scale.core.derive import DerivationState, derive
    from ceph_scale.core.snapshot import BucketsPart, Snapshot
    from tests.unit.signals.parts import bucket

    th = Thresholds()  # rgw_top_buckets and rgw_shard_warn_ratio at their defaults
    state = DerivationState(th)
    growing = {f"near{i}": (85_000, 4.0) for i in range(near)}
    growing |= {f"day{i}": (10_000, 1.0) for i in range(120)}  # 90,000 - 3,600 left at 1/s: ~1 day
    growing |= {f"month{i}": (10_000, 0.03) for i in range(180)}  # ~35 days
    idle = [f"idle{i}" for i in range(100_000 - len(growing))]
    for t in (0.0, 3600.0):
        buckets = tuple(bucket(n, f"i-{n}", 1, int(o + rate * t), f"m-{n}") for n, (o, rate) in growing.items())
        buckets += tuple(bucket(n, f"i-{n}", 1, 1_000, f"m-{n}") for n in idle)
        derive(Snapshot(taken_at=t, buckets=BucketsPart(t, buckets)), state, th)
    return state.results.get(ReshardResult), th


def test_every_bucket_predicted_within_the_horizon_is_counted_not_only_the_top_k_exposed():
    """At study scale, with the top-K taken by buckets already near the limit, the 120 predicted
    to reach it within the horizon are still counted (the exposed top-K names the soonest), and
    the detail says how many it does not name. Quiet where no bucket is near and none is
    predicted within the horizon."""
    result, th = _study_scale_result(near=40)
    assert len(result.buckets.next_reshards) == th.rgw_top_buckets < 40
    assert all(e.near for e in result.buckets.next_reshards)
    c = check_reshard(result, th, CheckOptions())
    assert c is not None and c["count"] == 40 + 120, c["summary"]
    assert any(line.startswith("120 more bucket(s) predicted to reach the limit within 7 days") for line in c["detail"])
    month = check_reshard(result, th, CheckOptions(reshard_forecast_warn_days=60))
    assert month is not None and month["count"] == 40 + 120 + 180
    quiet, th = _study_scale_result(near=0)
    assert check_reshard(quiet, th, CheckOptions(reshard_forecast_warn_days=0.5)) is None
    assert check_reshard(quiet, th, CheckOptions())["count"] == 120
