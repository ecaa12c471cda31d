"""The usage signal leaves its result in SignalResults (signals/results.py), also when the same
poll is derived again from its kept figures."""

from __future__ import annotations

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.registry import OWNERS
from ceph_scale.core.signals.tenants.result import UsageSummary
from ceph_scale.core.snapshot import Bucket, BucketsPart, Snapshot

TH = Thresholds()


def test_each_derivation_leaves_the_result_even_of_a_poll_already_summed():
    part = BucketsPart(1000.0, (Bucket("a", "acme", "1", 1, 5, "acme$ops", size_bytes=5, stats_at=990.0),))
    state = DerivationState(TH)
    derive(Snapshot(taken_at=1000.0, buckets=part), state, TH)
    first = state.results.get(UsageSummary)
    assert first is not None and first.tenants == 1 and first.top[0].owner == "acme$ops"
    assert first.age(first.top[0]) == 10.0
    # The next derivation (another source's new part, the same poll): a fresh SignalResults, filled.
    derive(Snapshot(taken_at=1015.0, buckets=part), state, TH)
    assert state.results.get(UsageSummary) is first
    assert OWNERS[UsageSummary] == "tenants"
