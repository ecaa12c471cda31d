"""Long trends for the runways: bounded series that thin themselves and survive restarts.

A runway looks months ahead, so its growth is fitted over days, not over the hours of the
alerts' forecasts, and a restart or a manager failover must not wipe those days. Points are
therefore sparse: at least `step` seconds apart and at most `MAX_POINTS`; when full, every
other older point goes and the step doubles, so the whole window stays covered at a coarser
grain and the saved state stays a few kilobytes. A point holds one or more columns (the S3
counters' four totals share their times).

`fit` judges a history before its growth is used (docs/runway.md, "How a forecast is judged"):
at least MIN_POINTS over `min_span`; a 95 % interval from Student's t on the slope and the
residuals; a point one reading off left out; a one-off step (a delete wave) set aside, repeated
drops (a lifecycle sawtooth) read as the peaks' net growth (a drop over consecutive points is
one), a fall under way read as the wave it is (the growth around it, "never" within the interval),
any other change lasting to now fitted on its own points, and a change of rate between the older
and the newer third detected, the recent slope then used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .saved_rows import as_time

MAX_POINTS = 96
# Fewer points fit any line exactly: two points an hour apart once gave a 41.6-day runway from
# +0.01 %. Four leave two degrees of freedom for the residuals, so the interval means something.
MIN_POINTS = 4
# Two slopes "agree" (the growth is steady) within this factor: a rate doubling weekly differs
# by 1.6x between the older and the newer third of a week.
STEADY_FACTOR = 1.25
# A consecutive change this many robust standard deviations off the typical one is a step (a
# delete wave, a bulk load), not growth.
STEP_SIGMAS = 6.0
# ...and at most this share of the intervals: more of them is a change of rate, not steps.
MAX_STEP_SHARE = 0.25
# A step straight back by all but this share of it is one reading off, not two steps (blips).
BLIP_RETURN = 0.5
# Student's t, two-sided 95 %, by degrees of freedom; past the table, the normal 1.96.
T95 = ((1, 12.71), (2, 4.30), (3, 3.18), (4, 2.78), (5, 2.57), (6, 2.45), (8, 2.31), (10, 2.23), (15, 2.13),
       (20, 2.09), (30, 2.04), (60, 2.00))  # fmt: skip


def t95(dof: int) -> float:
    """The t value for `dof` degrees of freedom, rounded towards fewer (wider: never overconfident)."""
    value = T95[0][1]
    for d, t in T95:
        if d > dof:
            return value
        value = t
    return 1.96


@dataclass(frozen=True)
class Fit:
    """A growth with its 95 % interval and what shape of history it came from.

    trend: "steady" (one line fits), "step" (one level change removed: a delete wave or a bulk
    load is not the trend), "sawtooth" (repeated drops: the net growth is that of the peaks),
    "accelerating" / "slowing" (the newer third grows faster / slower than the older, beyond noise:
    the slope is the recent one), "noise" (no growth beyond noise), "falling" (a fall under way, a
    delete wave: the growth around it, "never" within the interval), "changed" (a change lasting to
    now: the slope since it)."""

    slope: float  # units per second the runway uses; 0 where within noise
    span: float  # seconds of history behind the slope
    steady: bool  # the older and the newer third grow alike (same sign, within STEADY_FACTOR, or within noise)
    low: float = 0.0  # 95 % interval of the growth: its slowest...
    high: float = 0.0  # ...and its fastest plausible value
    level_error: float = 0.0  # 95 % half-width of the level about the fitted line
    acceleration: float = 0.0  # relative growth of the slope per second (accelerating only)
    trend: str = "steady"


@dataclass(frozen=True)
class Line:
    slope: float
    se: float  # standard error of the slope
    sigma: float  # residual standard error
    dof: int


def line(points: Sequence[tuple[float, float]], removed: int = 0) -> Line | None:
    """Least squares; `removed`: parameters already taken out of the points (steps)."""
    n = len(points)
    if n < 2:
        return None
    t0 = points[0][0]
    mean_t = sum(t - t0 for t, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    den = sum((t - t0 - mean_t) ** 2 for t, _ in points)
    if den <= 0:
        return None
    slope = sum((t - t0 - mean_t) * (v - mean_v) for t, v in points) / den
    dof = n - 2 - removed
    if dof < 1:
        return Line(slope, math.inf, math.inf, 0)
    residual = sum((v - mean_v - slope * (t - t0 - mean_t)) ** 2 for t, v in points)
    sigma = math.sqrt(residual / dof)
    return Line(slope, sigma / math.sqrt(den), sigma, dof)


def within_noise(fitted: Line) -> bool:
    return fitted.dof < 1 or abs(fitted.slope) <= t95(fitted.dof) * fitted.se


def agree(a: float, b: float) -> bool:
    """Two slopes tell the same story: both flat, or the same sign within STEADY_FACTOR."""
    if a == 0 or b == 0:
        return a == b
    if (a > 0) != (b > 0):
        return False
    return max(abs(a), abs(b)) <= STEADY_FACTOR * min(abs(a), abs(b))


def steps(points: Sequence[tuple[float, float]]) -> list[tuple[int, float]]:
    """(index, excess) of the consecutive changes far off the typical one: the excess is the
    change beyond what the typical rate explains over that interval."""
    rates = [(b[1] - a[1]) / (b[0] - a[0]) for a, b in zip(points, points[1:])]
    typical = sorted(rates)[len(rates) // 2]
    deviations = [abs(r - typical) for r in rates]
    spread = 1.4826 * sorted(deviations)[len(deviations) // 2]  # MAD, as a standard deviation
    scale = max(abs(v) for _, v in points)
    out = []
    for i, (a, b) in enumerate(zip(points, points[1:])):
        excess = (b[1] - a[1]) - typical * (b[0] - a[0])
        if abs(excess) > max(STEP_SIGMAS * spread * (b[0] - a[0]), 1e-9 * scale):
            out.append((i + 1, excess))
    # Many "steps" are a change of rate, not of level: the thirds judge those.
    return out if len(out) <= len(rates) * MAX_STEP_SHARE else []


def events(found: list[tuple[int, float]]) -> list[list[tuple[int, float]]]:
    """The steps grouped into events: consecutive intervals changing the same way are one (a delete
    wave of 500 M objects takes hours, several of the trend's points)."""
    runs: list[list[tuple[int, float]]] = []
    for i, excess in found:
        if runs and runs[-1][-1][0] == i - 1 and (runs[-1][-1][1] < 0) == (excess < 0):
            runs[-1].append((i, excess))
        else:
            runs.append([(i, excess)])
    return runs


def blips(found: list[tuple[int, float]]) -> set[int]:
    """The points one reading off: a step one way and straight back the other, by at least
    `1 - BLIP_RETURN` of it. One reading is not a change of level, and a few of them are not a
    lifecycle sawtooth (a raw use reading 2 % high at one point in 20 read "never")."""
    out: set[int] = set()
    k = 0
    while k + 1 < len(found):
        (i, a), (j, b) = found[k], found[k + 1]
        if j == i + 1 and (a < 0) != (b < 0) and abs(a + b) <= BLIP_RETURN * max(abs(a), abs(b)):
            out.add(i)
            k += 2
        else:
            k += 1
    return out


def since_change(
    points: Sequence[tuple[float, float]], before: Sequence[tuple[float, float]], min_span: float
) -> Fit | None:
    """The growth since a change of rate that lasts to now, once its points alone are enough to fit
    (MIN_POINTS over `min_span`); None: they are not. The growth `before` the change stays within
    the interval: a bulk load that ends, or a rebalance at its peak, gives it back (fitted on the
    change alone, a rebalance still rising read +6.2 %/day over 12 h, its interval without the
    0.3 %/day underneath)."""
    span = points[-1][0] - points[0][0]
    fitted = line(points) if len(points) >= MIN_POINTS and span >= min_span else None
    if fitted is None:
        return None
    f = interval(fitted, "steady", span)
    old = line(before)
    low, high = (min(f.low, old.slope), max(f.high, old.slope)) if old is not None else (f.low, f.high)
    return Fit(f.slope, span, False, low, high, f.level_error, 0.0, "changed")


def without(points: Sequence[tuple[float, float]], found: list[tuple[int, float]]) -> list[tuple[float, float]]:
    """The points with each step's excess taken out of every later point."""
    shift = dict(found)
    out, offset = [], 0.0
    for i, (t, v) in enumerate(points):
        offset += shift.get(i, 0.0)
        out.append((t, v - offset))
    return out


def thirds(points: Sequence[tuple[float, float]]) -> tuple[Line | None, Line | None, float]:
    """Lines through the older and the newer third, and the seconds between their middles."""
    t0, t1 = points[0][0], points[-1][0]
    older = [p for p in points if p[0] <= t0 + (t1 - t0) / 3]
    newer = [p for p in points if p[0] >= t1 - (t1 - t0) / 3]
    gap = (newer[0][0] + newer[-1][0]) / 2 - (older[0][0] + older[-1][0]) / 2
    return line(older), line(newer), gap


def interval(fitted: Line, trend: str, span: float) -> Fit:
    """A steady growth (one line, steps set aside) with its interval; within noise it is 0."""
    t = t95(max(1, fitted.dof))
    half = t * fitted.se if math.isfinite(fitted.se) else math.inf
    central = fitted.slope
    if within_noise(fitted):
        central, trend = 0.0, ("noise" if trend == "steady" else trend)
    level = t * fitted.sigma if math.isfinite(fitted.sigma) else math.inf
    return Fit(central, span, True, fitted.slope - half, fitted.slope + half, level, 0.0, trend)


def fit(points: Sequence[tuple[float, float]], min_span: float) -> Fit | None:
    """The growth of `points` once they are MIN_POINTS spanning `min_span`, with its interval
    and the shape of the history (Fit.trend)."""
    if len(points) < MIN_POINTS or any(b[0] <= a[0] for a, b in zip(points, points[1:])):
        return None
    span = points[-1][0] - points[0][0]
    if span <= 0 or span < min_span:
        return None
    found = steps(points)
    odd = blips(found)
    if odd:
        return fit([p for k, p in enumerate(points) if k not in odd], min_span)
    runs = events(found)
    if runs and len(runs[-1]) >= 2 and runs[-1][-1][0] == len(points) - 1:
        at = runs[-1][0][0] - 1
        if deleting(points, at):
            return deletes_under_way(fit_shaped(points, runs, span), line(points[at:]))
        # A change over two or more intervals that lasts to now is the rate now, not a step
        # (growth that stopped a day ago is not set aside to leave the old growth).
        changed = since_change(points[at:], points[: at + 1], min_span)
        if changed is not None:
            return changed
        runs = runs[:-1]  # too short to fit alone: the thirds judge it
    return fit_shaped(points, runs, span)


def deleting(points: Sequence[tuple[float, float]], at: int) -> bool:
    """Whether the change from point `at` to now is a fall under way: the level fell by more than
    the growth before it would have added meanwhile (deletes, not growth that stopped). A fall over
    more than a quarter of the intervals is no step at all (steps, MAX_STEP_SHARE): the thirds
    judge it, and read it as the rate now."""
    before = line(points[: at + 1])
    (t0, v0), (t1, v1) = points[at], points[-1]
    grown = max(0.0, before.slope) * (t1 - t0) if before is not None else 0.0
    return v1 - v0 < -grown


def deletes_under_way(around: Fit | None, fall: Line | None) -> Fit | None:
    """A delete wave still under way (replayed: 5 % over 4 hours read "never" from its second
    point to two points past its end, and the runway ticket closed and opened again): the growth
    around it, as for a wave that ended (compounding where it was), is the runway, its interval
    widened to the fall's rate, which allows "never" if the deletes go on; unsteady, so the plan
    withholds its figures. An earlier drop in the window makes it a sawtooth's second drop."""
    if around is None or fall is None:
        return around
    shape = around.trend if around.trend in ("accelerating", "sawtooth") else "falling"
    return Fit(around.slope, around.span, False, min(around.low, fall.slope), around.high, around.level_error,
               around.acceleration, shape)  # fmt: skip


def fit_shaped(points: Sequence[tuple[float, float]], runs: list[list[tuple[int, float]]], span: float) -> Fit | None:
    """The growth of `points` with the steps of `runs` set aside: a sawtooth, or one line judged
    by its older and newer thirds."""
    if len([run for run in runs if run[0][1] < 0]) >= 2:
        return sawtooth(points, runs, span)
    found = [s for run in runs for s in run]
    adjusted = without(points, found) if found else list(points)
    whole = line(adjusted, len(found))
    if whole is None:
        return None
    older, newer, gap = thirds(adjusted)
    if older is None or newer is None or older.dof < 1 or newer.dof < 1 or gap <= 0:
        return interval(whole, "step" if found else "steady", span)
    differ = abs(newer.slope - older.slope) > t95(min(older.dof, newer.dof)) * math.hypot(older.se, newer.se)
    steady = not differ or agree(older.slope, newer.slope)
    if steady:
        return interval(whole, "step" if found else "steady", span)
    if newer.slope > older.slope > 0:
        # Growth compounding: its relative rate carried to the last point and onwards.
        k = math.log(newer.slope / older.slope) / gap
        recent = newer.slope * math.exp(k * span / 6)  # the newer third's middle is span / 6 back
        half = t95(newer.dof) * newer.se
        return Fit(recent, span, False, newer.slope - half, recent + half, t95(newer.dof) * newer.sigma, k,
                   "accelerating")  # fmt: skip
    half = t95(newer.dof) * newer.se
    trend = "slowing" if newer.slope < older.slope else "accelerating"
    return Fit(newer.slope, span / 3, False, newer.slope - half, newer.slope + half, t95(newer.dof) * newer.sigma,
               0.0, trend)  # fmt: skip


def sawtooth(points: Sequence[tuple[float, float]], runs: list[list[tuple[int, float]]], span: float) -> Fit | None:
    """Repeated drops (lifecycle expiry, periodic deletes): the net growth is that of the
    peaks before each drop; the interval runs from no growth at all (or the peaks' decline) to
    the growth between drops, which is what returns if the deletes stop."""
    peaks = [points[run[0][0] - 1] for run in runs if run[0][1] < 0]
    found = [s for run in runs for s in run]
    between = line(without(points, found), len(found))
    if between is None:
        return None
    net = line(peaks) if len(peaks) >= 2 else None
    net_slope = net.slope if net is not None else 0.0
    if net is not None and net.dof >= 1 and within_noise(net):
        net_slope = 0.0
    if len(peaks) == 2:
        net_slope = 0.0  # two peaks fit any line
    low = min(0.0, net_slope)
    high = max(net_slope, between.slope + t95(max(1, between.dof)) * between.se)
    level = max(v for _, v in points) - min(v for _, v in points)
    return Fit(net_slope, span, False, low, high, level, 0.0, "sawtooth")


def rates(points: Sequence[tuple[float, ...]], column: int) -> list[tuple[float, float]]:
    """Per-second increase of a cumulative column between consecutive points, at their middle."""
    out = []
    for (t0, *a), (t1, *b) in zip(points, points[1:]):
        if t1 > t0:
            out.append(((t0 + t1) / 2, (b[column] - a[column]) / (t1 - t0)))
    return out


class Trend:
    """(time, values...) points within a window: sparse, bounded, durable."""

    __slots__ = ("columns", "step", "points")

    def __init__(self, columns: int = 1) -> None:
        self.columns = columns
        self.step = 0.0  # set from the window at the first point
        self.points: list[tuple[float, ...]] = []

    def due(self, t: float, window: float, min_span: float) -> bool:
        """Whether a point at `t` would be kept (the caller may then do the work to make it)."""
        if not self.points:
            return True
        if not self.step:
            self.step = first_step(window, min_span)
        return t - self.points[-1][0] >= self.step

    def add(self, t: float, values: Sequence[float], window: float, min_span: float) -> bool:
        if len(values) != self.columns or not all(math.isfinite(v) for v in values):
            return False
        if not self.due(t, window, min_span):
            return False
        if not self.step:
            self.step = first_step(window, min_span)
        self.points.append((t, *values))
        cutoff = t - window
        while len(self.points) > 2 and self.points[0][0] < cutoff:
            del self.points[0]
        if len(self.points) > MAX_POINTS:
            last = self.points[-1]
            self.points = self.points[:-1:2] + [last]
            self.step *= 2
        return True

    def column(self, i: int = 0) -> list[tuple[float, float]]:
        return [(p[0], p[1 + i]) for p in self.points]

    def span(self) -> float:
        return self.points[-1][0] - self.points[0][0] if len(self.points) > 1 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "points": [list(p) for p in self.points]}

    @classmethod
    def from_dict(cls, data: object, columns: int = 1, problems: list[str] | None = None, what: str = "") -> Trend:
        """A trend from its saved form; anything malformed gives an empty trend (the history is
        lost, the rest of the saved state is not), and a line in `problems` naming `what`."""
        trend = cls(columns)
        if data is None or data == {}:
            return trend
        try:
            if not isinstance(data, dict):
                raise TypeError(f"a table was expected, not {type(data).__name__}")
            points = [tuple(as_time(v) for v in p) for p in data.get("points", [])]
            step = float(data.get("step", 0.0))
            if not all(len(p) == columns + 1 for p in points) or not all(
                a[0] < b[0] for a, b in zip(points, points[1:])
            ):
                raise ValueError(f"not {columns + 1} columns in time order")
        except (TypeError, ValueError, OverflowError) as e:  # an integer past any float is valid JSON
            if problems is not None:
                problems.append(f"{what or 'a trend'}: saved history unreadable ({str(e)[:120]}), dropped")
            return trend
        trend.points = points[-MAX_POINTS:]
        trend.step = step if math.isfinite(step) and step >= 0 else 0.0
        return trend


def first_step(window: float, min_span: float) -> float:
    """Dense enough for a fit soon after `min_span`, sparse enough to cover the window."""
    step = window / MAX_POINTS
    if min_span > 0:
        step = min(step, min_span / 8)
    return max(1.0, step)
