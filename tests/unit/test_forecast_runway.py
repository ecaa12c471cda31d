"""A forecast is judged before it is shown: the four histories of issue 27 that the least-squares
runway misread, each with the numbers it gave, through the advisor's own path (trend.fit ->
measure.growth -> runway.fill_cluster -> render)."""

from __future__ import annotations

import math

import pytest

from ceph_scale.core.advisor import render, runway
from ceph_scale.core.advisor.measure import growth
from ceph_scale.core.advisor.model import Measured
from ceph_scale.core.config import Thresholds
from ceph_scale.core.trend import MIN_POINTS, fit, line

TH = Thresholds()  # forecast_min_span_seconds: 1 h
DAY = 86400.0
HOUR = 3600.0
STEP = 7 * DAY / 96  # a week's window in the runway trend's 96 points


def fill(points: list[tuple[float, float]], total: float):
    """The fill_cluster runway of raw use `points` on a cluster of `total` raw bytes."""
    g = growth(points[-1][1], points, TH.forecast_min_span_seconds)
    m = Measured(
        horizon=180 * DAY,
        hdd_osds=318,
        hdd_bytes=16e12,
        other_raw_bytes=0,
        failure_domain_osds=53,
        raw_total_bytes=int(total),
        raw_used=g,
    )
    return runway.fill_cluster(m, TH)


def test_two_points_an_hour_apart_give_no_runway():
    # +0.01 % in the hour, 10 % of the use left to the fill target: the line through two points
    # read 41.6 days. Hourly `--once --plan` from cron fits exactly this after its second run.
    points = [(0.0, 8e14), (HOUR, 8.0008e14)]
    r = fill(points, 1.1e15)
    assert r.seconds is None and render.duration(r.seconds) == "no fit yet"
    # Hourly points: no runway until MIN_POINTS of them, then one with its interval.
    hourly = [(i * HOUR, 8e14 * (1 + 1e-4 * i)) for i in range(MIN_POINTS - 1)]
    assert fill(hourly, 1.1e15).seconds is None
    hourly.append((len(hourly) * HOUR, 8e14 * (1 + 1e-4 * len(hourly))))
    r = fill(hourly, 1.1e15)
    assert r.seconds is not None and r.earliest <= r.seconds <= r.latest


def test_a_delete_wave_is_a_step_not_the_trend():
    # 0.5 %/day for a week, 5 % deleted at day 5: the line over the week slopes down and read
    # "never (not growing)". The growth around the step is the trend: 23 days are left.
    level = 7e14
    points = [
        (i * STEP, level * (1 + 0.005 * i * STEP / DAY) - (0.05 * level if i * STEP >= 5 * DAY else 0.0))
        for i in range(97)
    ]
    total = (points[-1][1] + 23 * 0.005 * level) / 0.8
    assert line(points).slope < 0  # the plain line over the week
    r = fill(points, total)
    assert r.seconds == pytest.approx(23 * DAY, rel=0.01)
    assert r.shape == "step" and math.isfinite(r.latest)  # "never" is not within the interval
    assert r.earliest <= r.seconds <= r.latest
    assert "never" not in render.runway_line(r, 180 * DAY, TH.plan_max_extrapolation)


def test_accelerating_growth_is_detected_and_the_runway_is_the_recent_one():
    # The rate doubles weekly: the line over the week read 62 days and called it steady; at the
    # rate it compounds, the limit is 17.0 days away.
    r0 = 1e13  # bytes per day at the window's start
    points = [(i * STEP, 5e14 + r0 * 7 / math.log(2) * (2 ** (i * STEP / DAY / 7) - 1)) for i in range(97)]
    left = 88.76 * r0
    total = (points[-1][1] + left) / 0.8
    truth = 7 * math.log2(1 + left * math.log(2) / (2 * r0 * 7))
    assert truth == pytest.approx(17.0, abs=0.05)
    assert left / line(points).slope / DAY == pytest.approx(62.0, abs=0.1)  # the plain line
    r = fill(points, total)
    assert r.steady is False and r.shape == "accelerating"
    assert r.seconds == pytest.approx(truth * DAY, rel=0.02)
    assert r.earliest <= truth * DAY <= r.latest
    assert "accelerating" in render.runway_line(r, 180 * DAY, TH.plan_max_extrapolation)


def test_a_lifecycle_sawtooth_is_no_net_growth_with_a_wide_interval():
    # Lifecycle expiry every 3.5 days takes back the 5 % each tooth grew: no net growth. The
    # line over the week read 15.6 days.
    level = 7e14
    points = [(i * STEP, level * (1 + 0.05 * ((i * STEP / DAY / 3.5) % 1.0))) for i in range(97)]
    f = fit(points, HOUR)
    assert f is not None and f.trend == "sawtooth" and f.slope == 0.0
    within_a_tooth = 0.05 * level / (3.5 * DAY)
    assert f.high >= within_a_tooth * 0.99  # what returns if the deletes stop
    left = 15.6 * DAY * line(points).slope  # the 15.6 days the plain line read
    r = fill(points, (points[-1][1] + left) / 0.8)
    assert r.seconds == math.inf and r.latest == math.inf
    assert r.earliest < 15.6 * DAY  # wide: if the deletes stop, sooner than the line said


def test_never_only_when_the_interval_holds_no_growth():
    # A level that only wobbles: not growing, and the interval's slow end allows "never"; its
    # fast end still bounds the earliest.
    points = [(i * STEP, 5e14 + (1e11 if i % 2 else -1e11)) for i in range(97)]
    r = fill(points, 1e15)
    assert r.seconds == math.inf and r.latest == math.inf and r.shape == "noise"
    assert r.earliest is not None and math.isfinite(r.earliest)
    # A growth the interval holds as positive throughout is never "never".
    rising = [(t, v + 1e9 * t / HOUR) for t, v in points]
    r = fill(rising, 1e15)
    assert math.isfinite(r.seconds) and math.isfinite(r.latest)


def week(used) -> list[tuple[float, float]]:
    return [(i * STEP, used(i * STEP)) for i in range(97)]


@pytest.mark.parametrize("hours", [4.0, 14.0])
def test_a_delete_wave_over_hours_is_one_step_not_repeated_drops(hours):
    # At the study's scale 5 % of 10 B objects is 500 M deletes, about 14 h at 10,000 a second: the
    # wave spans several of the trend's points. Each of its intervals read as a drop of its own, so
    # the week read as a lifecycle sawtooth: "never (not growing)", its true runway 23 days.
    level = 7e14

    def used(t: float) -> float:
        done = min(1.0, max(0.0, (t - 5 * DAY) / (hours * HOUR)))
        return level * (1 + 0.005 * t / DAY) - 0.05 * level * done

    points = week(used)
    r = fill(points, (points[-1][1] + 23 * 0.005 * level) / 0.8)
    assert r.shape == "step", r.shape
    assert r.seconds == pytest.approx(23 * DAY, rel=0.01)
    assert "never" not in render.runway_line(r, 180 * DAY, TH.plan_max_extrapolation)


def test_a_rebalance_hump_is_set_aside_not_read_as_repeated_drops():
    # 0.3 %/day, and a rebalance that holds 3 % more raw use for a day (12 h up, 12 h down) at day
    # 4: read "never (not growing)" while 59.7 days were left at the growth around it.
    level = 7e14

    def used(t: float) -> float:
        d = t / DAY
        return level * (1 + 0.003 * d) + (0.03 * level * (1 - abs(d - 4.5) / 0.5) if 4.0 <= d < 5.0 else 0.0)

    points = week(used)
    total = (points[-1][1] + 59.7 * 0.003 * level) / 0.8
    r = fill(points, total)
    assert r.shape == "step", r.shape
    assert r.seconds == pytest.approx(59.7 * DAY, rel=0.01)


def test_growth_that_stopped_a_day_ago_is_not_set_aside_as_a_step():
    # The quiet case beside the waves: 0.5 %/day for six days, then flat. The flat day's intervals
    # are a change of rate that lasts to now, not a step: its runway is not the old growth's.
    level = 7e14
    points = week(lambda t: level * (1 + 0.005 * min(t / DAY, 6.0)))
    r = fill(points, (points[-1][1] + 23 * 0.005 * level) / 0.8)
    assert r.shape not in ("step", "falling") and r.seconds == math.inf, (r.shape, r.seconds)


def test_a_runway_from_hours_of_history_is_called_a_guess_where_its_plan_is_withheld():
    # Hourly `--once --plan` from cron: at its 4th run, 3 hours of history gave "59.4 days ...
    # steady", a 475x extrapolation the plan withholds and the Runway board greys; said so now.
    level = 7e14
    hourly = [(i * HOUR, level * (1 + 0.0002 * i)) for i in range(4)]
    r = fill(hourly, (hourly[-1][1] + 59.4 * 24 * 0.0002 * level) / 0.8)
    line = render.runway_line(r, 180 * DAY, TH.plan_max_extrapolation)
    assert r.seconds == pytest.approx(59.4 * DAY, rel=0.01) and "a guess: short of the 6.0 days" in line, line
    # The same growth over a week (at the 96 points the trend keeps) is no guess.
    weekly = [(i * STEP, level * (1 + 0.0002 * i * STEP / HOUR)) for i in range(97)]
    r = fill(weekly, (weekly[-1][1] + 59.4 * 24 * 0.0002 * level) / 0.8)
    assert "a guess" not in render.runway_line(r, 180 * DAY, TH.plan_max_extrapolation)


def test_a_change_to_now_keeps_the_growth_before_it_within_the_interval():
    # A bulk load of 2 % over the last three intervals, the 0.5 %/day around it: fitted on the
    # change alone the runway read 2.1 days [2.1 .. 2.1], "compounding"; the growth underneath, 23
    # days' worth, comes back when the load ends and must stay within the interval.
    level = 7e14
    points = week(
        lambda t: (
            level * (1 + 0.005 * t / DAY)
            + (0.02 * level * min(1.0, (t - 93 * STEP) / (3 * STEP)) if t > 93 * STEP else 0.0)
        )
    )
    r = fill(points, (points[-1][1] + 23 * 0.005 * level) / 0.8)
    assert r.shape == "changed" and r.earliest <= r.seconds <= r.latest, r
    assert r.latest >= 23 * DAY * 0.99, r.latest / DAY
    assert "compounding" not in render.runway_line(r, 180 * DAY, TH.plan_max_extrapolation)


@pytest.mark.parametrize("off", [0.02, -0.02])
def test_a_reading_off_at_one_point_in_twenty_is_left_out_not_read_as_a_sawtooth(off):
    # 0.5 %/day, and one reading in twenty 2 % off (a capacity poll during a rebalance, a pool's
    # stats briefly double-counted), straight back at the next: each is a step up and a step down,
    # and two of them read as repeated drops, "never (not growing)", where 23 days were left.
    level = 7e14
    odd = {9, 31, 52, 77}  # about one in twenty of the 97 points

    def used(i: int) -> float:
        return level * (1 + 0.005 * i * STEP / DAY) * (1 + (off if i in odd else 0.0))

    points = [(i * STEP, used(i)) for i in range(97)]
    r = fill(points, (points[-1][1] + 23 * 0.005 * level) / 0.8)
    assert r.shape == "steady", r.shape
    assert r.seconds == pytest.approx(23 * DAY, rel=0.01)
    # The quiet case beside it: drops that stay are the sawtooth they were.
    expiring = [(t, v - 0.02 * level * sum(1 for k in odd if i > k)) for i, (t, v) in enumerate(points)]
    assert fit(expiring, HOUR).trend == "sawtooth"


@pytest.mark.parametrize("into", [2, 3, 5])
def test_a_delete_wave_under_way_keeps_the_growth_around_it_with_never_in_its_interval(into):
    # 0.5 %/day, and 5 % being deleted over the last `into` intervals, still going on. Replayed
    # (tests/replay/test_delete_wave.py), such a wave read "never" from its second point to two
    # points past its end, and the runway ticket closed and opened again. The growth around it
    # is the runway (what is left once the deletes stop); the interval allows "never" (they may
    # go on); the plan withholds its figures (unsteady).
    level = 7e14
    start = (96 - into) * STEP

    def used(t: float) -> float:
        return level * (1 + 0.005 * t / DAY) - 0.05 * level * min(1.0, max(0.0, (t - start) / (6 * STEP)))

    points = week(used)
    r = fill(points, (points[-1][1] + 23 * 0.005 * level) / 0.8)
    assert r.shape == "falling" and r.steady is False, (r.shape, r.steady)
    assert r.seconds == pytest.approx(23 * DAY, rel=0.01)
    assert r.latest == math.inf and r.earliest <= r.seconds
    assert "never" not in render.duration(r.seconds)


def test_a_fall_over_more_than_a_quarter_of_the_history_is_the_rate_now():
    # The quiet case beside the wave under way: a cluster emptied at 2 %/day for the last 2.5 of
    # 7 days is shrinking: its falls are more than a quarter of the intervals, no steps.
    level = 7e14
    points = week(lambda t: level * (1 + 0.005 * t / DAY) - 0.02 * level * max(0.0, (t - 4.5 * DAY) / DAY))
    r = fill(points, (points[-1][1] + 23 * 0.005 * level) / 0.8)
    assert r.shape != "step" and r.seconds == math.inf, (r.shape, r.seconds)


def test_accelerating_growth_keeps_compounding_while_a_wave_is_under_way():
    # The rate doubling weekly, and 5 % being deleted over the last three intervals: the runway is
    # the compounding growth's, as once the whole wave is in (the deleted share apart), not the
    # plain slope's (read 30.3 days, earliest 30.1, where the truth was 14.5).
    r0 = 1e13
    start = 93 * STEP

    def used(t: float) -> float:
        grown = 5e14 + r0 * 7 / math.log(2) * (2 ** (t / DAY / 7) - 1)
        return grown - 0.05 * 5e14 * min(1.0, max(0.0, (t - start) / (6 * STEP)))

    points = week(used)
    ended = week(lambda t: used(t) if t < start else used(t) - 0.05 * 5e14 * (1 - min(1.0, (t - start) / (6 * STEP))))
    total = (points[-1][1] + 88.76 * r0) / 0.8
    r = fill(points, total)
    done = fill(ended, (ended[-1][1] + 88.76 * r0) / 0.8)
    assert done.shape == "accelerating"
    assert r.shape == "accelerating" and r.steady is False and r.latest == math.inf, (r.shape, r.latest)
    assert r.seconds == pytest.approx(done.seconds, rel=0.05), (r.seconds / DAY, done.seconds / DAY)
    assert r.earliest <= r.seconds < 20 * DAY
