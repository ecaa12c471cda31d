"""The runway's long trends (core/trend.py): bounded, thinned, durable; fits with a confidence."""

from __future__ import annotations

import json
import random

from exporter.core.trend import MAX_POINTS, Trend, agree, first_step, fit, rates


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
    for broken in (None, [], {"points": [[1, "x"]]}, {"points": [[2, 1, 1], [1, 1, 1]]}, {"points": [[1, 1]]}):
        assert Trend.from_dict(broken, 2).points == []


def test_fit_waits_for_its_span_and_says_whether_growth_is_steady():
    line = [(t, 5.0 + 2.0 * t) for t in range(0, 1000, 100)]
    assert fit(line, 1000.0) is None  # spans 900 s
    f = fit(line, 600.0)
    assert f.slope == 2.0 and f.span == 900 and f.steady
    # Accelerating: the newer half grows 4x as fast as the older one.
    bent = [(t, t if t < 500 else 500 + 4 * (t - 500)) for t in range(0, 1000, 50)]
    assert fit(bent, 0.0).steady is False
    # A level that only wobbles is not growing, and that is steady.
    rng = random.Random(3)
    noise = [(t, 100.0 + rng.uniform(-1, 1)) for t in range(0, 2000, 60)]
    f = fit(noise, 0.0)
    assert f.slope == 0.0 and f.steady


def test_halves_agree_within_a_factor_of_two_and_the_same_sign():
    assert agree(1.0, 2.0) and agree(0.0, 0.0) and agree(-1.0, -1.5)
    assert not agree(1.0, 2.1) and not agree(1.0, -1.0) and not agree(0.0, 1.0)


def test_rates_of_a_cumulative_column():
    points = [(0.0, 0.0, 10.0), (10.0, 100.0, 10.0), (30.0, 500.0, 30.0)]
    assert rates(points, 0) == [(5.0, 10.0), (20.0, 20.0)]
    assert rates(points, 1) == [(5.0, 0.0), (20.0, 1.0)]
