"""One condition's polls over the baseline, and its usual value: what a plunge's cause is judged
against (plunge/evidence.py)."""

from __future__ import annotations

import statistics
from collections import deque


class Measure:
    """(poll time, value) of one condition, kept for the baseline; its usual value."""

    def __init__(self, keep: float) -> None:
        self.keep = keep
        self.points: deque[tuple[float, float]] = deque()

    def add(self, t: float, value: float) -> None:
        self.points.append((t, value))
        while self.points and self.points[0][0] < t - self.keep:
            self.points.popleft()

    def usual(self, start: float, end: float) -> float:
        """The median over [start, end]; 0 without polls there (a start with no history)."""
        values = [v for t, v in self.points if start <= t <= end]
        return statistics.median(values) if values else 0.0
