"""S3 latency from the RGWs' own averaged counters, as each release exports them: Pacific and
Reef `rgw.put_initial_lat`, Tentacle `rgw_op.put_obj_lat` (captured /metrics of each)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ceph_scale.core import inputs
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import PerfPart, RgwOpCounters, Snapshot
from tests.unit.signals.derived import samples

FIX = Path(__file__).resolve().parents[3] / "fixtures"


@pytest.mark.parametrize("release", ["pacific", "reef", "tentacle"])
def test_every_release_exports_the_latency_of_put_and_get(release):
    part = inputs.perf_part(
        inputs.counters_from_prometheus_text((FIX / release / "mgr_prometheus_metrics.txt").read_text()), 1.0
    )
    assert part.rgw_ops
    for r in part.rgw_ops:
        assert r.put_latency_count == r.put_ops > 0 and r.get_latency_count == r.get_ops > 0
        # Seconds, not nanoseconds: the captured test load's PUTs took milliseconds each.
        assert 0 < r.put_latency_sum / r.put_latency_count < 1.0


def test_the_cluster_mean_is_seconds_spent_over_ops_done_across_rgws():
    th = Thresholds()
    state = DerivationState(th)

    def snap(t: float, a: tuple[float, int], b: tuple[float, int]) -> Snapshot:
        rgws = (
            RgwOpCounters("a", 0, a[1], 0, 0, 0.0, 0, a[0], a[1]),
            RgwOpCounters("b", 0, b[1], 0, 0, 0.0, 0, b[0], b[1]),
        )
        return Snapshot(taken_at=t, perf=PerfPart(t, (), (), rgws))

    assert "ceph_scale_s3_latency_seconds" not in {f.name for f in derive(snap(0.0, (0, 0), (0, 0)), state, th)}
    # In 60 s: rgw a did 100 PUTs at 0.5 s, rgw b 300 PUTs at 0.1 s: (50 + 30) / 400 = 0.2 s.
    fams = derive(snap(60.0, (50.0, 100), (30.0, 300)), state, th)
    assert samples(fams, "ceph_scale_s3_latency_seconds")[(("op", "put"),)] == pytest.approx(0.2)
    assert samples(fams, "ceph_scale_rgw_s3_latency_seconds")[(("instance_id", "a"), ("op", "put"))] == 50.0
    none = dataclasses.replace(snap(120.0, (50.0, 100), (30.0, 300)), perf=PerfPart(120.0, (), (), ()))
    assert not samples(derive(none, state, th), "ceph_scale_rgw_s3_latency_seconds")
