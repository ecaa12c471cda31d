"""The runway's long trends (core/trend.py): bounded, thinned, durable; fits with a confidence."""

from __future__ import annotations

import json
import random

import pytest

from ceph_scale.core.trend import MAX_POINTS, MIN_POINTS, Trend, agree, first_step, fit, rates, steps, t95


def test_points_are_kept_a_step_apart_and_thinned_when_full():
    t = Trend()
    window, span = 7 * 86400.0, 3600.0
    assert first_step(window, span) == 450.0  # eight points by the time a fit is trusted
    kept = sum(t.add(i * 60.0, (float(i),), window, span) for i in range(20))
    assert kept == 3  # 0, 480 and 960 s: one point per 450 s step
    for i in range(20, 200_000):
        t.add(i * 60.0, (float(i),), window, span)
    assert len(t.points) <= MAX_POINTS
    # The whole window stays covered, at a coarser grain.
    assert t.span() >= window * 0.9 and t.step > 450.0
    assert t.points[-1][0] >= 199_000 * 60.0


def test_nothing_older_than_the_window():
    t = Trend()
    for i in range(100):
        t.add(i * 10.0, (1.0,), 100.0, 0.0)
    assert t.points[0][0] >= 990.0 - 100.0


def test_a_non_finite_value_or_a_wrong_width_is_refused():
    t = Trend(2)
    assert not t.add(1.0, (1.0,), 100.0, 0.0)
    assert not t.add(1.0, (1.0, float("nan")), 100.0, 0.0)
    assert t.add(1.0, (1.0, 2.0), 100.0, 0.0)


def test_a_saved_trend_comes_back_and_a_broken_one_is_empty():
    t = Trend(2)
    for i in range(10):
        t.add(i * 100.0, (i, 2 * i), 10_000.0, 600.0)
    back = Trend.from_dict(json.loads(json.dumps(t.to_dict())), 2)
    assert back.points == t.points and back.step == t.step
    huge = {"points": [[1, 10**400, 1]]}  # valid JSON, past any float
    for broken in (None, [], {"points": [[1, "x"]]}, {"points": [[2, 1, 1], [1, 1, 1]]}, {"points": [[1, 1]]}, huge):
        assert Trend.from_dict(broken, 2).points == []


def test_fit_waits_for_its_span_and_says_whether_growth_is_steady():
    line = [(t, 5.0 + 2.0 * t) for t in range(0, 1000, 100)]
    assert fit(line, 1000.0) is None  # spans 900 s
    f = fit(line, 600.0)
    assert f.slope == pytest.approx(2.0) and f.span == 900 and f.steady and f.trend == "steady"
    # Accelerating: the newer half grows 4x as fast as the older one.
    bent = [(t, t if t < 500 else 500 + 4 * (t - 500)) for t in range(0, 1000, 50)]
    assert fit(bent, 0.0).steady is False
    # A level that only wobbles is not growing, and that is steady.
    rng = random.Random(3)
    noise = [(t, 100.0 + rng.uniform(-1, 1)) for t in range(0, 2000, 60)]
    f = fit(noise, 0.0)
    assert f.slope == 0.0 and f.steady and f.trend == "noise" and f.low < 0 < f.high


def test_slopes_agree_within_a_quarter_and_the_same_sign():
    # A rate doubling weekly differs by 1.6x between the older and the newer third of a week.
    assert agree(1.0, 1.25) and agree(0.0, 0.0) and agree(-1.0, -1.2)
    assert not agree(1.0, 1.6) and not agree(1.0, -1.0) and not agree(0.0, 1.0)


def test_rates_of_a_cumulative_column():
    points = [(0.0, 0.0, 10.0), (10.0, 100.0, 10.0), (30.0, 500.0, 30.0)]
    assert rates(points, 0) == [(5.0, 10.0), (20.0, 20.0)]
    assert rates(points, 1) == [(5.0, 0.0), (20.0, 1.0)]


def test_fit_needs_points_enough_in_time_order():
    line = [(t * 600.0, 10.0 + t) for t in range(MIN_POINTS)]
    assert fit(line[:-1], 0.0) is None and fit(line, 0.0) is not None
    assert fit([line[0], line[2], line[1], line[3]], 0.0) is None


def test_the_interval_widens_with_fewer_points():
    assert t95(1) == 12.71 and t95(2) == 4.30 and t95(7) == 2.45 and t95(1000) == 1.96
    rng = random.Random(5)
    few = [(t * 600.0, 100.0 + t + rng.uniform(-0.5, 0.5)) for t in range(5)]
    many = [(t * 600.0, 100.0 + t + rng.uniform(-0.5, 0.5)) for t in range(60)]
    a, b = fit(few, 0.0), fit(many, 0.0)
    assert a.low <= a.slope <= a.high and b.low <= b.slope <= b.high
    assert (a.high - a.low) > (b.high - b.low)


def test_a_bulk_load_is_a_step_and_a_change_of_rate_is_not():
    # +1 per point, and once +50 (a bulk load): the step is set aside, the growth stays 1 per 60 s.
    loaded = [(t * 60.0, t + (50.0 if t >= 40 else 0.0)) for t in range(80)]
    assert steps(loaded) == [(40, pytest.approx(50.0))]
    f = fit(loaded, 0.0)
    assert f.trend == "step" and f.slope == pytest.approx(1 / 60) and f.steady
    # Half the history at 4x the rate: many "steps" are a new rate, judged by the thirds.
    bent = [(t * 60.0, t if t < 40 else 40 + 4 * (t - 40)) for t in range(80)]
    assert steps(bent) == [] and fit(bent, 0.0).trend == "accelerating"
