"""The fill signal (core/signals/fill/derive.py): no forecast from minutes of history."""

from __future__ import annotations

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import Snapshot
from tests.unit.signals.derived import samples


def test_no_forecast_from_minutes_of_history():
    """Four minutes after a start, two points once read "1.5 days to 80 %" at 17.8 % full."""
    from ceph_scale.core.snapshot import CapacityPart

    th = Thresholds()
    state = DerivationState(th)
    total = 10**15

    def at(t: float, used_ratio: float):
        part = CapacityPart(t, total, int(total * used_ratio), ())
        families = derive(Snapshot(taken_at=t, capacity=part), state, th)
        return samples(families, "ceph_scale_cluster_fill_seconds_to_threshold")

    assert not at(0.0, 0.178)
    assert not at(240.0, 0.18)  # a steep slope over 4 minutes: no forecast
    for t in range(600, 3600, 600):
        assert not at(float(t), 0.18 + t * 1e-7)
    forecast = at(3600.0, 0.18 + 3600 * 1e-7)
    assert forecast[(("threshold", "target"),)] > 5 * 86400  # an hour's fit, not a 4-minute one
