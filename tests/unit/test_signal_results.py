"""The signals' typed judgements (core/signals/results.py), which the module's health checks
and `ceph scale status` read: the same figures the exposition carries, and none for a signal
whose derivation raised or that has no data."""

from __future__ import annotations

import pytest

from ceph_scale.core import registry
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.signals.bucket_watch.result import BucketPollResult
from ceph_scale.core.signals.degraded.result import DegradedResult
from ceph_scale.core.signals.fill import derive as fill
from ceph_scale.core.signals.fill.result import FillResult
from ceph_scale.core.signals.load.result import LoadResult
from ceph_scale.core.signals.plunge.result import PlungeResult
from ceph_scale.core.signals.reshard.result import ReshardResult
from ceph_scale.core.signals.scrub.result import ScrubResult
from ceph_scale.core.signals.spillover.result import SpilloverResult
from ceph_scale.core.snapshot import Snapshot
from tests.unit.signals.derived import samples
from tests.unit.study_snapshot import rich_derivation, study_snapshot


def test_the_results_state_what_the_exposition_states():
    fams, state = rich_derivation()
    r = state.results
    assert r.get(FillResult) is not None and r.get(FillResult).cluster is not None
    assert r.get(FillResult).cluster.used_ratio == samples(fams, "ceph_scale_cluster_used_ratio")[()]
    pools = samples(fams, "ceph_scale_pool_used_ratio")
    assert {(("pool_id", p.pool_id), ("name", p.name)): p.used_ratio for p in r.get(FillResult).pools} == pools
    assert r.get(SpilloverResult) is not None
    assert r.get(SpilloverResult).spillover_osds == samples(fams, "ceph_scale_bluefs_spillover_osds")[()] > 0
    next_level = samples(fams, "ceph_scale_bluefs_db_next_level_seconds")
    assert {(("ceph_daemon", e.ceph_daemon),): e.seconds for e in r.get(SpilloverResult).next_level} == next_level
    assert r.get(ScrubResult) is not None
    overdue = samples(fams, "ceph_scale_pg_scrub_overdue")
    assert (r.get(ScrubResult).scrub.overdue, r.get(ScrubResult).deep_scrub.overdue) == (
        overdue[(("kind", "scrub"),)],
        overdue[(("kind", "deep_scrub"),)],
    )
    assert r.get(ReshardResult) is not None and r.get(ReshardResult).buckets is not None
    assert r.get(ReshardResult).buckets.near == samples(fams, "ceph_scale_rgw_buckets_near_reshard")[()]
    assert r.get(LoadResult) is not None and r.get(LoadResult).per_hdd is not None
    ratio = samples(fams, "ceph_scale_s3_load_ratio")
    assert r.get(LoadResult).per_hdd.mixed_ratio == ratio[(("op", "mixed"), ("unit", "ops"))]
    assert r.get(PlungeResult) is not None and r.get(PlungeResult).active
    assert r.get(DegradedResult) is not None and r.get(BucketPollResult) is not None


def test_no_data_no_result():
    th = Thresholds()
    state = DerivationState(th)
    derive(Snapshot(taken_at=1.0), state, th)
    r = state.results
    assert (
        r.get(SpilloverResult),
        r.get(ScrubResult),
        r.get(LoadResult),
        r.get(DegradedResult),
        r.get(PlungeResult),
        r.get(BucketPollResult),
    ) == (None,) * 6


def test_a_failing_signal_leaves_no_result(monkeypatch: pytest.MonkeyPatch):
    _, state = rich_derivation()
    assert state.results.get(FillResult) is not None

    def broken(given, state):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(fill, "derive", broken)
    spec = next(s for s in registry.SIGNALS if s.name == "fill")
    assert spec.module is fill  # the registry calls the module's derive, patched above
    th = state.thresholds
    derive(study_snapshot(1180.0, grow=3, slow_from=1030.0), state, th)
    assert state.results.get(FillResult) is None and "fill" in state.signal_errors
