"""One condition's polls over the baseline, and its usual value: what a plunge's cause is judged
against (plunge/evidence.py)."""

from __future__ import annotations

import bisect
import itertools
import statistics
from collections import deque


class Measure:
    """(poll time, value) of one condition, kept for the baseline; its usual value.

    The polls come in time order, so the polls of a span are a run found by bisection: the
    measures keep about three baselines of polls, and each of the causes' measures takes its usual
    value at every poll. Times out of order (a clock set back) are read one by one instead."""

    def __init__(self, keep: float) -> None:
        self.keep = keep
        self.points: deque[tuple[float, float]] = deque()
        self.times: deque[float] = deque()  # the points' times, for bisection
        self.in_order = True  # every time added at least the last (none NaN)

    def add(self, t: float, value: float) -> None:
        self.in_order = self.in_order and t >= (self.times[-1] if self.times else t)
        self.points.append((t, value))
        self.times.append(t)
        while self.points and self.points[0][0] < t - self.keep:
            self.points.popleft()
            self.times.popleft()

    def usual(self, start: float, end: float) -> float:
        """The median over [start, end]; 0 without polls there (a start with no history)."""
        if self.in_order and start == start and end == end:  # neither NaN: bisection orders them
            first, last = bisect.bisect_left(self.times, start), bisect.bisect_right(self.times, end)
            values = [v for _, v in itertools.islice(self.points, first, max(first, last))]
        else:
            values = [v for t, v in self.points if start <= t <= end]
        return statistics.median(values) if values else 0.0
