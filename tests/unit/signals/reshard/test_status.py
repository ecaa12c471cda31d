"""The reshard signal's section of `ceph scale status` (ceph_scale/core/signals/reshard/status.py),
with the bucket poll's cost from the bucket_watch signal's result."""

from __future__ import annotations

from ceph_scale.core.signals.bucket_watch.result import BucketPollResult
from ceph_scale.core.signals.reshard.result import BucketShards, ReshardResult, TopBucket
from ceph_scale.core.signals.reshard.status import SECTION
from tests.unit.signals.judged import judged


def test_no_data_without_buckets_or_queue():
    assert SECTION.build(judged(), {}, 5)["status"] == "NO DATA"
    assert SECTION.build(judged(reshard=ReshardResult(1000, None, None, None, None)), {}, 5)["status"] == "NO DATA"


def test_buckets_fullest_first_with_the_poll_and_the_queue():
    top = (TopBucket("", "a", 0.2, 200, 1, 1), TopBucket("t", "b", 0.9, 900, 1, 2))
    result = ReshardResult(1000, BucketShards(2, 1100, 1, 0, top, ()), 3, 2, 1)
    poll = BucketPollResult(40, 100.0, 0, 0, 30.0)
    section = SECTION.build(judged(reshard=result, bucket_watch=poll), {}, 5)
    assert [o["bucket"] for o in section["offenders"]] == ["b", "a"]
    assert section["data"]["bucket_poll"]["last_reads"] == 40.0
    assert any(line.startswith("bucket poll: 40 RADOS reads of 100") for line in section["lines"])
    assert section["status"] == "WARN"  # two buckets queued for resharding


def test_ok_when_nothing_is_queued_or_raised():
    result = ReshardResult(1000, BucketShards(1, 10, 0, 0, (), ()), 0, 0, 0)
    assert SECTION.build(judged(reshard=result), {}, 5)["status"] == "OK"
    assert SECTION.build(judged(reshard=result), {"SCALE_RESHARD_SOON": {}}, 5)["status"] == "WARN"
