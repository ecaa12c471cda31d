"""Small time-series helpers for the signals that need more than one snapshot.

Samples are keyed by the time their source collected them, so a part served
again unchanged (its source is slower than the snapshot cycle) adds nothing.
"""

from __future__ import annotations

from collections import deque


class Series:
    """(time, value) points within a trailing window, with a least-squares slope once the
    points span at least `min_span` seconds."""

    __slots__ = ("window", "min_span", "points")

    def __init__(self, window: float, min_span: float = 0.0) -> None:
        self.window = window
        self.min_span = min_span
        self.points: deque[tuple[float, float]] = deque()

    def add(self, t: float, value: float) -> None:
        if self.points and t <= self.points[-1][0]:
            return
        self.points.append((t, value))
        cutoff = t - self.window
        while len(self.points) > 2 and self.points[0][0] < cutoff:
            self.points.popleft()

    def span(self) -> float:
        return self.points[-1][0] - self.points[0][0] if len(self.points) > 1 else 0.0

    def slope(self) -> float | None:
        """Units per second, or None with fewer than two points or a span under min_span."""
        n = len(self.points)
        if n < 2 or self.span() <= 0 or self.span() < self.min_span:
            return None
        t0 = self.points[0][0]
        mean_t = sum(t - t0 for t, _ in self.points) / n
        mean_v = sum(v for _, v in self.points) / n
        num = sum((t - t0 - mean_t) * (v - mean_v) for t, v in self.points)
        den = sum((t - t0 - mean_t) ** 2 for t, _ in self.points)
        return num / den if den > 0 else None


class CounterRate:
    """Per-second rate of a cumulative counter over a window, robust to resets.

    A value lower than the previous one is a restart of the daemon: the new
    value counts as the increase, as Prometheus' rate() does.
    """

    __slots__ = ("window", "last_raw", "total", "points")

    def __init__(self, window: float) -> None:
        self.window = window
        self.last_raw: float | None = None
        self.total = 0.0
        self.points: deque[tuple[float, float]] = deque()

    def add(self, t: float, raw: float) -> None:
        if self.points and t <= self.points[-1][0]:
            return
        if self.last_raw is not None:
            self.total += raw - self.last_raw if raw >= self.last_raw else raw
        self.last_raw = raw
        self.points.append((t, self.total))
        cutoff = t - self.window
        while len(self.points) > 2 and self.points[0][0] < cutoff:
            self.points.popleft()

    def rate(self) -> float | None:
        if len(self.points) < 2:
            return None
        (t0, v0), (t1, v1) = self.points[0], self.points[-1]
        return (v1 - v0) / (t1 - t0) if t1 > t0 else None


class KeyedRates:
    """CounterRate per key; keys not seen in an update are forgotten."""

    __slots__ = ("window", "rates")

    def __init__(self, window: float) -> None:
        self.window = window
        self.rates: dict[object, CounterRate] = {}

    def update(self, t: float, values: dict[object, float]) -> None:
        for key in list(self.rates):
            if key not in values:
                del self.rates[key]
        for key, raw in values.items():
            rate = self.rates.get(key)
            if rate is None:
                rate = self.rates[key] = CounterRate(self.window)
            rate.add(t, raw)

    def rate(self, key: object) -> float | None:
        r = self.rates.get(key)
        return r.rate() if r is not None else None


class KeyedSeries:
    """Series per key; keys not seen in an update are forgotten."""

    __slots__ = ("window", "min_span", "series")

    def __init__(self, window: float, min_span: float = 0.0) -> None:
        self.window = window
        self.min_span = min_span
        self.series: dict[object, Series] = {}

    def update(self, t: float, values: dict[object, float]) -> None:
        for key in list(self.series):
            if key not in values:
                del self.series[key]
        for key, value in values.items():
            s = self.series.get(key)
            if s is None:
                s = self.series[key] = Series(self.window, self.min_span)
            s.add(t, value)

    def slope(self, key: object) -> float | None:
        s = self.series.get(key)
        return s.slope() if s is not None else None
