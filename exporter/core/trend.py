"""Long trends for the runways: bounded series that thin themselves and survive restarts.

A runway looks months ahead, so its growth is fitted over days, not over the hours of the
alerts' forecasts, and a restart or a manager failover must not wipe those days. Points are
therefore sparse: at least `step` seconds apart and at most `MAX_POINTS`; when full, every
other older point goes and the step doubles, so the whole window stays covered at a coarser
grain and the saved state stays a few kilobytes. A point holds one or more columns (the S3
counters' four totals share their times).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MAX_POINTS = 96
# A fit is "steady" when the slopes of its older and newer halves agree within this factor.
STEADY_FACTOR = 2.0
# A slope under this many standard errors is noise (about 95 % for a dozen points).
T_MIN = 2.0


@dataclass(frozen=True)
class Fit:
    slope: float  # units per second, least squares over the whole span
    span: float  # seconds of history behind the slope
    steady: bool  # the older and the newer half grow alike (same sign, within STEADY_FACTOR)


def least_squares(points: Sequence[tuple[float, float]]) -> float | None:
    """The fitted slope; 0 where it is within noise (under T_MIN standard errors): a level that
    only wobbles is not growing, however close to its limit it wobbles."""
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
    if n > 2:
        residual = sum((v - mean_v - slope * (t - t0 - mean_t)) ** 2 for t, v in points)
        if abs(slope) < T_MIN * math.sqrt(residual / (n - 2) / den):
            return 0.0
    return slope


def agree(a: float, b: float) -> bool:
    """Two slopes tell the same story: both flat, or the same sign within STEADY_FACTOR."""
    if a == 0 or b == 0:
        return a == b
    if (a > 0) != (b > 0):
        return False
    return max(abs(a), abs(b)) <= STEADY_FACTOR * min(abs(a), abs(b))


def fit(points: Sequence[tuple[float, float]], min_span: float) -> Fit | None:
    """The growth of `points` once they span `min_span`, with whether its halves agree."""
    if len(points) < 2:
        return None
    span = points[-1][0] - points[0][0]
    if span <= 0 or span < min_span:
        return None
    slope = least_squares(points)
    if slope is None:
        return None
    middle = points[0][0] + span / 2
    older = least_squares([p for p in points if p[0] <= middle])
    newer = least_squares([p for p in points if p[0] >= middle])
    steady = older is not None and newer is not None and agree(older, newer)
    return Fit(slope, span, steady)


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

    def to_dict(self) -> dict:
        return {"step": self.step, "points": [list(p) for p in self.points]}

    @classmethod
    def from_dict(cls, data: object, columns: int = 1) -> Trend:
        """A trend from its saved form; anything malformed gives an empty trend (the history is
        lost, the rest of the saved state is not)."""
        trend = cls(columns)
        if not isinstance(data, dict):
            return trend
        try:
            points = [tuple(float(v) for v in p) for p in data.get("points", [])]
            step = float(data.get("step", 0.0))
        except (TypeError, ValueError):
            return trend
        if all(len(p) == columns + 1 for p in points) and all(a[0] < b[0] for a, b in zip(points, points[1:])):
            trend.points = points[-MAX_POINTS:]
            trend.step = step if math.isfinite(step) and step >= 0 else 0.0
        return trend


def first_step(window: float, min_span: float) -> float:
    """Dense enough for a fit soon after `min_span`, sparse enough to cover the window."""
    step = window / MAX_POINTS
    if min_span > 0:
        step = min(step, min_span / 8)
    return max(1.0, step)
