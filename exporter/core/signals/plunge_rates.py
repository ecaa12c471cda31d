"""The RGWs' counters as windows of rates for the plunge detector (core/signals/plunge_detect.py).

Counters are summed over the RGWs into cluster totals that only grow: a restarted RGW (a counter
lower than before) counts its new value as the increase, as Prometheus' rate() does; an RGW seen
for the first time counts from its first poll. Each poll of the perf source then gives one
window: the increase since the last poll at least `plunge_window_seconds` back, per second, and
the mean of the requests in flight at the polls since (a mean, as the ops are one: the two must
move together when clients send less, even in a window that straddles the change).
"""

from __future__ import annotations

import statistics
from collections import deque

from ..snapshot import RgwOpCounters
from .plunge_detect import OPS, Window


def _counters(r: RgwOpCounters) -> dict[str, float | None]:
    return {
        "put_ops": r.put_ops,
        "get_ops": r.get_ops,
        "put_seconds": r.put_latency_sum,
        "get_seconds": r.get_latency_sum,
        "requests": r.requests,
        "failed": r.failed_requests,
    }


class RgwRates:
    def __init__(self, window: float) -> None:
        self.window = window
        self.last: dict[tuple[str, str], float] = {}  # (RGW, counter) -> its last raw value
        self.totals: dict[str, float] = {}
        # (poll time, totals then, requests in flight then)
        self.points: deque[tuple[float, dict[str, float], float | None]] = deque()

    def add(self, t: float, rgws: tuple[RgwOpCounters, ...]) -> Window | None:
        """Take one poll; the window ending with it, once the polls span a window."""
        if self.points and t <= self.points[-1][0]:
            return None
        last: dict[tuple[str, str], float] = {}
        for r in rgws:
            for name, raw in _counters(r).items():
                if raw is None:
                    continue
                before = self.last.get((r.instance_id, name))
                if before is not None:
                    self.totals[name] = self.totals.get(name, 0.0) + (raw - before if raw >= before else raw)
                else:
                    self.totals.setdefault(name, 0.0)
                last[(r.instance_id, name)] = float(raw)
        self.last = last
        flights = [r.in_flight for r in rgws if r.in_flight is not None]
        self.points.append((t, dict(self.totals), float(sum(flights)) if flights else None))
        # Keep the newest point at least a window back, and everything after it.
        while len(self.points) > 2 and self.points[1][0] <= t - self.window:
            self.points.popleft()
        return self._window()

    def _window(self) -> Window | None:
        t1, now, _ = self.points[-1]
        t0, before, _ = self.points[0]
        if t1 - t0 < self.window:
            return None
        span = t1 - t0

        def rate(name: str) -> float | None:
            if name not in now or name not in before:
                return None
            return (now[name] - before[name]) / span

        ops = {op: rate(f"{op}_ops") or 0.0 for op in OPS}
        busy = {op: v for op in OPS if (v := rate(f"{op}_seconds")) is not None}
        flights = [f for t, _, f in list(self.points)[1:] if f is not None]
        return Window(
            t=t1,
            ops=ops,
            busy=busy,
            in_flight=statistics.fmean(flights) if flights else None,
            requests=rate("requests"),
            failed=rate("failed"),
        )
