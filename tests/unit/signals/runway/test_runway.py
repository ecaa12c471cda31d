"""The runway signal (core/signals/runway/derive.py): its families, bounds and durable history."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.signals.reshard.derive import ReshardState
from ceph_scale.core.signals.runway.derive import RunwayState
from ceph_scale.core.snapshot import BlueFsCounters
from tests.unit.study_snapshot import study_snapshot

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "pacific"

TH = Thresholds(forecast_min_span_seconds=120, runway_window_seconds=3600)


def samples(families, name: str) -> dict[tuple, float]:
    for f in families:
        if f.name == name:
            return {
                tuple(v for k, v in zip(f.label_names, labels) if k != "cluster"): value
                for _, labels, value in f.samples
            }
    return {}


def run(state, steps, start=1000.0, every=30.0, **kw):
    fams = []
    for i in steps:
        fams = derive(study_snapshot(start + every * i, osds=12, buckets=50, grow=i, **kw), state, TH, cluster="c")
    return fams


def test_runways_appear_once_their_growth_is_fitted():
    state = DerivationState(TH)
    first = run(state, range(1))
    # Before any fit: only what is reached now (the fake cluster has spilling DBs, buckets past their limit).
    assert samples(first, "ceph_scale_runway_seconds") == {("db_levels",): 0.0, ("shard",): 0.0}
    later = run(state, range(1, 8))
    runways = samples(later, "ceph_scale_runway_seconds")
    assert {"fill_cluster", "fill_osd", "db_levels", "load_hdd", "load_rgw", "shard"} <= {k[0] for k in runways}
    span = samples(later, "ceph_scale_runway_fit_span_seconds")
    assert span[("fill_cluster",)] >= 120
    assert samples(later, "ceph_scale_runway_growth_steady")[("fill_cluster",)] in (0.0, 1.0)
    lower, upper = samples(later, "ceph_scale_runway_lower_seconds"), samples(later, "ceph_scale_runway_upper_seconds")
    # Every fitted runway not yet reached has its interval; a reached one (0) has none.
    not_reached = {k for k, v in runways.items() if v > 0 and k != ("shard",)}
    assert ("fill_cluster",) in not_reached and not_reached <= set(lower) == set(upper)
    assert not {k for k, v in runways.items() if v == 0} & set(lower)
    for limit in lower:
        assert lower[limit] <= runways[limit] <= upper[limit], limit
    assert len(samples(later, "ceph_scale_runway_growth_shape")) >= 4
    # Minutes of history behind a 180-day plan: its figures are withheld, and say so.
    assert ("fill",) in samples(later, "ceph_scale_plan_hdd_osds")  # exported, bounded, and said withheld
    assert samples(later, "ceph_scale_plan_caveat")[("hdd_by_fill", "withheld")] == 1
    assert samples(later, "ceph_scale_plan_caveat")[("db_per_osd", "withheld")] == 1
    # Every OSD of this cluster is on one host: a host cannot be lost and survived, so one OSD is.
    assert samples(later, "ceph_scale_plan_failure_domain_osds") == {(): 1.0}


def test_the_failure_domain_is_the_largest_host_or_the_operators():
    state = DerivationState(TH)
    fams = derive(study_snapshot(1000.0), state, TH, cluster="c")  # 318 OSDs, 53 per host; osd.0 down
    assert samples(fams, "ceph_scale_plan_failure_domain_osds") == {(): 53.0}
    th = dataclasses.replace(TH, plan_failure_domain_osds=106)
    fams = derive(study_snapshot(1030.0), DerivationState(th), th, cluster="c")
    assert samples(fams, "ceph_scale_plan_failure_domain_osds") == {(): 106.0}


def test_the_pre_shard_list_is_bounded():
    th = dataclasses.replace(TH, plan_top_buckets=3)
    state = DerivationState(th)
    fams = derive(study_snapshot(1000.0, osds=12, buckets=500), state, th, cluster="c")
    assert samples(fams, "ceph_scale_plan_buckets_to_preshard")[()] > 3
    assert len(samples(fams, "ceph_scale_plan_bucket_shards")) == 3


def test_history_survives_a_restart_and_keeps_growing():
    state = DerivationState(TH)
    run(state, range(6))
    saved = json.loads(json.dumps(state.durable()))
    assert len(saved["runway"]["used"]["points"]) >= 3
    restored = DerivationState(TH)
    restored.restore(saved)
    assert restored.of(RunwayState).used.points == state.of(RunwayState).used.points
    assert restored.of(RunwayState).s3_last == state.of(RunwayState).s3_last
    # One more collection after the restart (a `--once` run from cron): the runways are there at once.
    fams = run(restored, range(6, 7))
    assert ("fill_cluster",) in samples(fams, "ceph_scale_runway_seconds")


def test_a_broken_saved_history_costs_only_itself():
    state = DerivationState(TH)
    run(state, range(3))
    saved = json.loads(json.dumps(state.durable()))
    saved["runway"] = {"used": {"points": "garbage"}, "s3": {"points": [[1, 2]]}, "s3_last": [1]}
    restored = DerivationState(TH)
    restored.restore(saved)
    assert restored.of(RunwayState).used.points == [] and restored.of(RunwayState).s3.points == []
    assert restored.of(ReshardState).buckets == state.of(ReshardState).buckets


def test_new_thresholds_keep_the_history():
    state = DerivationState(TH)
    run(state, range(4))
    points = list(state.of(RunwayState).used.points)
    state.retune(dataclasses.replace(TH, runway_target_seconds=86400))
    assert state.of(RunwayState).used.points == points


def test_a_restarted_rgw_counts_from_zero_not_backwards():
    state = DerivationState(TH)
    run(state, range(3))
    before = state.of(RunwayState).s3.points[-1]
    snap = study_snapshot(1000.0 + 30 * 3, osds=12, buckets=50, grow=3)
    restarted = dataclasses.replace(
        snap.perf, rgw_ops=(dataclasses.replace(snap.perf.rgw_ops[0], put_ops=5),) + snap.perf.rgw_ops[1:]
    )
    derive(dataclasses.replace(snap, perf=restarted), state, TH, cluster="c")
    after = state.of(RunwayState).s3.points[-1]
    assert after[0] > before[0]
    # 11 RGWs at 120 PUT/s for 30 s, and the restarted one's 5 since its start
    assert after[1] - before[1] == 11 * 120 * 30 + 5


def test_counters_polled_faster_than_they_are_refreshed_still_show_a_ramp():
    """The perf source polls every 2 s, the mgr prometheus module refreshes the RGW counters every
    5 s: the polls in between repeat the counters. Taken as points, they add intervals of no PUTs
    and intervals of twice the PUTs, and the fit read the test cluster's ramp as noise
    (runway_load_hdd +Inf). The counters are those of a real run (the fixture says which)."""
    captured = json.loads((FIXTURES / "runway" / "rgw_counters_polled_every_2s.json").read_text())
    th = Thresholds(forecast_min_span_seconds=20, runway_window_seconds=60, rate_window_seconds=10)
    state = DerivationState(th)
    base = study_snapshot(1000.0, osds=3, buckets=5)
    fams: list = []
    for t, put_ops, get_ops, put_bytes, get_bytes in captured["polls"]:
        ops = dataclasses.replace(
            base.perf.rgw_ops[0], instance_id="4160", put_ops=put_ops, get_ops=get_ops, put_bytes=put_bytes,
            get_bytes=get_bytes,
        )  # fmt: skip
        perf = dataclasses.replace(base.perf, collected_at=1000.0 + t, rgw_ops=(ops,))
        fams = derive(dataclasses.replace(base, taken_at=1000.0 + t, perf=perf), state, th, cluster="c")
    shapes = {k[0]: k[1] for k in samples(fams, "ceph_scale_runway_growth_shape")}
    assert shapes["load_hdd"] != "noise", shapes
    assert 0 < samples(fams, "ceph_scale_runway_seconds")[("load_hdd",)] < 3600


def test_a_compaction_does_not_read_as_a_db_that_stopped_growing():
    """318 OSDs, 880 GB DBs (L1..L4 whole: 298 GB usable), each DB +1 GB an hour, and one RocksDB
    compaction taking back 8 GB at 5 h. Each OSD's own fit (the spillover signal's hours, no
    interval) went negative and the runway read "never (not growing)", its interval +Inf to +Inf,
    where 2.0 days were left. Every DB grows at least at its share of all DBs' growth, fitted with
    the step set aside and with its interval."""
    th = Thresholds()
    gb = 10**9

    def db(t: float) -> int:
        return int(250 * gb + gb * t / 3600 - (8 * gb if t >= 5 * 3600 else 0))

    state = DerivationState(th)
    fams: list = []
    for i in range(0, 7 * 12 + 7):
        t = 300.0 * i
        snap = study_snapshot(1000.0 + t)
        assert snap.perf is not None
        perf = dataclasses.replace(
            snap.perf, bluefs=tuple(BlueFsCounters(n, 880 * gb, db(t), 0, 0) for n in range(318))
        )
        fams = derive(dataclasses.replace(snap, perf=perf), state, th, cluster="c")
    usable = 256 * 2**20 * (1 + 10 + 100 + 1000)
    truth = (usable - db(7.5 * 3600)) / gb * 3600
    runway = samples(fams, "ceph_scale_runway_seconds")[("db_levels",)]
    lower = samples(fams, "ceph_scale_runway_lower_seconds")[("db_levels",)]
    upper = samples(fams, "ceph_scale_runway_upper_seconds")[("db_levels",)]
    assert runway == pytest.approx(truth, rel=0.05), (runway / 86400, truth / 86400)
    assert lower <= runway <= upper < float("inf")
    # The quiet case beside it: DBs that do not grow read "never".
    flat = DerivationState(th)
    for i in range(0, 3 * 12):
        snap = study_snapshot(1000.0 + 300.0 * i)
        assert snap.perf is not None
        perf = dataclasses.replace(
            snap.perf, bluefs=tuple(BlueFsCounters(n, 880 * gb, 250 * gb, 0, 0) for n in range(318))
        )
        fams = derive(dataclasses.replace(snap, perf=perf), flat, th, cluster="c")
    assert samples(fams, "ceph_scale_runway_seconds")[("db_levels",)] == float("inf")
