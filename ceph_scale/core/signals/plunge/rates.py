"""The RGWs' counters as windows of rates for the plunge detector (core/signals/plunge/detect.py).

Counters are summed over the RGWs into cluster totals that only grow: a restarted RGW (a counter
lower than before) counts its new value as the increase, as Prometheus' rate() does; an RGW seen
for the first time counts from its first poll. Each poll of the perf source then gives one
window: the increase since the last poll at least `plunge_window_seconds` back, per second, and
the requests in flight: the smaller of their mean over the window's polls and the last poll. The
mean moves with the ops (a window that straddles a change holds both levels); the last poll says
at once that clients stopped (down to the gauge's floor, which Pacific's RGW keeps above 0: see
plunge_detect._in_flight_ratio) or that requests are stuck (all still there); the smaller of the
two claims a held demand only when the window and the present agree on it.
"""

from __future__ import annotations

import statistics
from collections import deque

from ...snapshot import RgwOpCounters
from .detect import OPS, Window

REFRESH_GAPS = 9


def _counters(r: RgwOpCounters) -> dict[str, float | None]:
    return {
        "put_ops": r.put_ops,
        "get_ops": r.get_ops,
        "put_seconds": r.put_latency_sum,
        "get_seconds": r.get_latency_sum,
        "put_bytes": r.put_bytes,
        "get_bytes": r.get_bytes,
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
        # When the totals last changed, and the gaps between changes: how often the counters
        # are refreshed upstream (the mgr prometheus module caches them for its scrape_interval).
        self.changed_at: float | None = None
        self.gaps: deque[float] = deque(maxlen=REFRESH_GAPS)

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
        if not self.points or self.totals != self.points[-1][1]:
            if self.changed_at is not None:
                self.gaps.append(t - self.changed_at)
            self.changed_at = t
        flights = [r.in_flight for r in rgws if r.in_flight is not None]
        self.points.append((t, dict(self.totals), float(sum(flights)) if flights else None))
        # Keep the newest point at least a window back, and everything after it.
        while len(self.points) > 2 and self.points[1][0] <= t - self.window:
            self.points.popleft()
        return self._window()

    def refresh_seconds(self) -> float:
        """How often the counters bring new values: the median gap between changes (0 until
        two changes were seen)."""
        return statistics.median(self.gaps) if self.gaps else 0.0

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
        sizes = {op: v for op in OPS if (v := rate(f"{op}_bytes")) is not None}
        flights = [f for t, _, f in list(self.points)[1:] if f is not None]
        return Window(
            t=t1,
            ops=ops,
            busy=busy,
            in_flight=min(statistics.fmean(flights), flights[-1]) if flights else None,
            requests=rate("requests"),
            failed=rate("failed"),
            bytes=sizes,
        )
