"""A resharding bucket is the cause only if its own ops fell. RGW counts a bucket's ops from
Tentacle on, with `rgw_bucket_counters_cache` on (off by default), as labeled counters that only
its admin socket and the manager's labeled calls give (tests/unit/test_bucket_counters_captured.py
holds what the captures show; Reef 18.2.7 has none); the perf source does not read them. A reshard
is named, and its evidence says its own ops are unconfirmed. At the 10B study's scale
(tests/unit/signals/plunge/study.py)."""

from __future__ import annotations

import dataclasses

from ceph_scale.core.snapshot import ReshardEntry
from tests.unit.signals.plunge.study import SynthStudy
from tests.unit.study_rounds import PUT

SLOWER = dataclasses.replace(PUT, slowdown=1 / 0.4)


def queued(*names: str) -> tuple[ReshardEntry, ...]:
    return tuple(ReshardEntry(n, "", f"zone.{n}", 11, 23, True) for n in names)


def test_more_buckets_resharding_than_usual_are_named_with_their_own_ops_unconfirmed():
    c = SynthStudy()
    c.resharding = queued("s3bench-0000001")  # one at a time, as at 100,000 buckets
    c.run(450, PUT)
    c.resharding = queued("hot-0", "hot-1", "hot-2")
    c.run(60, SLOWER)
    info = c.info()
    assert info is not None and info["cause"] == "reshard", info
    assert info["evidence"] == (
        "bucket hot-0 resharding 11 -> 23 shards (3 resharding, usually 1); "
        "its own ops unconfirmed (no per-bucket op counters read) (and 2 more)"
    ), info


def test_the_one_bucket_usually_resharding_is_no_cause():
    c = SynthStudy()
    c.resharding = queued("s3bench-0000001")
    c.run(450, PUT)
    c.resharding = queued("idle")
    c.run(60, SLOWER)
    info = c.info()
    assert info is not None and info["cause"] == "none", info
