"""The histories signals keep between snapshots (core/history.py): counter rates and slopes."""

from __future__ import annotations

import pytest

from ceph_scale.core.history import CounterRate, Series


def test_counter_rate_survives_a_daemon_restart():
    r = CounterRate(window=300)
    r.add(0, 1000)
    r.add(10, 1100)
    r.add(20, 50)  # restarted: 50 new ops, not -1050
    assert r.rate() == pytest.approx(150 / 20)
    r.add(20, 60)  # same collection time again: ignored
    assert r.rate() == pytest.approx(150 / 20)


def test_series_slope_is_least_squares():
    s = Series(window=1000)
    for t in range(10):
        s.add(t * 10.0, 5.0 + 2.0 * t * 10.0)
    assert s.slope() == pytest.approx(2.0)
