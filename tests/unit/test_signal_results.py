"""The signals' typed judgements (core/signals/results.py), which the module's health checks
and `ceph scale status` read: the same figures the exposition carries, and none for a signal
whose derivation raised or that has no data."""

from __future__ import annotations

import pytest

from ceph_scale.core import registry
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.signals.fill import derive as fill
from ceph_scale.core.snapshot import Snapshot
from tests.unit.signals.derived import samples
from tests.unit.study_snapshot import rich_derivation, study_snapshot


def test_the_results_state_what_the_exposition_states():
    fams, state = rich_derivation()
    r = state.results
    assert r.fill is not None and r.fill.cluster is not None
    assert r.fill.cluster.used_ratio == samples(fams, "ceph_scale_cluster_used_ratio")[()]
    pools = samples(fams, "ceph_scale_pool_used_ratio")
    assert {(("pool_id", p.pool_id), ("name", p.name)): p.used_ratio for p in r.fill.pools} == pools
    assert r.spillover is not None
    assert r.spillover.spillover_osds == samples(fams, "ceph_scale_bluefs_spillover_osds")[()] > 0
    next_level = samples(fams, "ceph_scale_bluefs_db_next_level_seconds")
    assert {(("ceph_daemon", e.ceph_daemon),): e.seconds for e in r.spillover.next_level} == next_level
    assert r.scrub is not None
    overdue = samples(fams, "ceph_scale_pg_scrub_overdue")
    assert (r.scrub.scrub.overdue, r.scrub.deep_scrub.overdue) == (
        overdue[(("kind", "scrub"),)],
        overdue[(("kind", "deep_scrub"),)],
    )
    assert r.reshard is not None and r.reshard.buckets is not None
    assert r.reshard.buckets.near == samples(fams, "ceph_scale_rgw_buckets_near_reshard")[()]
    assert r.load is not None and r.load.per_hdd is not None
    ratio = samples(fams, "ceph_scale_s3_load_ratio")
    assert r.load.per_hdd.mixed_ratio == ratio[(("op", "mixed"), ("unit", "ops"))]
    assert r.plunge is not None and r.plunge.active
    assert r.degraded is not None and r.bucket_watch is not None


def test_no_data_no_result():
    th = Thresholds()
    state = DerivationState(th)
    derive(Snapshot(taken_at=1.0), state, th)
    r = state.results
    assert (r.spillover, r.scrub, r.load, r.degraded, r.plunge, r.bucket_watch) == (None,) * 6


def test_a_failing_signal_leaves_no_result(monkeypatch: pytest.MonkeyPatch):
    _, state = rich_derivation()
    assert state.results.fill is not None

    def broken(given, state):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(fill, "derive", broken)
    spec = next(s for s in registry.SIGNALS if s.name == "fill")
    assert spec.module is fill  # the registry calls the module's derive, patched above
    th = state.thresholds
    derive(study_snapshot(1180.0, grow=3, slow_from=1030.0), state, th)
    assert state.results.fill is None and "fill" in state.signal_errors
