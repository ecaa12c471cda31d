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
