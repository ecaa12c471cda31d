"""Slow OSDs among their peers, from their client op latencies over the last perf window. Pure.

A disk that fails slowly, or an OSD starved of CPU or memory, answers its requests late long before
Ceph marks it down, and SLOW_OPS names it only once a request is 30 s old (osd_op_complaint_time).
Every EC 4+2 write waits for its slowest chunk [003], so one slow OSD among 318 slows every
request to its PGs. Its mean read or write latency over the window (`osd.op_r_latency`,
`osd.op_w_latency`: the time from receiving a client op to answering it) stands out from its
peers'. Peers are the OSDs of its device class, per op: an HDD OSD beside flash ones is not slow,
nor is one that happens to serve more writes (a 64 KB PUT's chunk takes 0.5 s on the study's
HDDs, a GET's 27 ms). An OSD is slow when a mean is at least `plunge_slow_osd_factor` times the
median of its peers' and at least `plunge_slow_osd_floor_seconds`: the factor, because HDD and flash
clusters differ by 100x in what is normal; the floor, because an idle cluster's 1 ms against 5 ms
is noise to a client (one floor for every class: an all-flash cluster may lower it). And it
is slow at two polls in a row: a plunge leaves fewer ops per window, where one stalled op weighs
more, so that a plunge of any cause would make its own slow OSDs of single stalls.
"""

from __future__ import annotations

import statistics
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ...snapshot import OsdOpCounters

# Ops of that kind an OSD answered in the window, for its mean to be judged: with fewer, one op
# stalled behind a compaction makes a healthy OSD's mean (40 reads at 27 ms, one at 1.5 s: 64 ms).
MIN_OPS = 30
MIN_PEERS = 3  # OSDs judged, for a median to say what is usual

Latency = tuple[float, int]  # (seconds summed, ops counted)


@dataclass(frozen=True)
class SlowOsd:
    osd_id: int
    op: str  # "read" or "write"
    latency: float  # seconds per op over the window
    median: float  # its peers' (same device class, same op), over the same window

    @property
    def ratio(self) -> float:
        return self.latency / max(self.median, 1e-9)

    def told(self) -> str:
        ratio = f", {self.ratio:.0f}x its peers' median {self.median * 1000:.0f} ms" if self.median else ""
        return f"osd.{self.osd_id} answered {self.op}s in {self.latency * 1000:.0f} ms per op{ratio}"


def _latencies(c: OsdOpCounters) -> dict[str, Latency]:
    out = {}
    for op, total, count in (
        ("read", c.read_latency_sum, c.read_latency_count),
        ("write", c.write_latency_sum, c.write_latency_count),
    ):
        if total is not None and count is not None:
            out[op] = (total, count)
    return out


class LatencyWindow:
    """Each OSD's latency counters at the last perf poll; the slow OSDs since then."""

    def __init__(self, factor: float, floor: float) -> None:
        self.factor, self.floor = factor, floor  # plunge_slow_osd_factor, plunge_slow_osd_floor_seconds
        self.last: dict[int, dict[str, Latency]] = {}
        self.slow_before: set[int] = set()  # slow in the window before this one

    def slow(self, counters: Iterable[OsdOpCounters], classes: Mapping[int, str]) -> list[SlowOsd]:
        """The OSDs slow since the last call and in the window before, slowest first (none on the
        first two calls). classes: each OSD's device class ("" where it has none)."""
        now = {c.osd_id: _latencies(c) for c in counters}
        peers: dict[tuple[str, str], dict[int, float]] = {}
        for osd_id, kinds in now.items():
            for op, (total, count) in kinds.items():
                before = self.last.get(osd_id, {}).get(op)
                if before is None:
                    continue
                ops, seconds = count - before[1], total - before[0]
                if ops >= MIN_OPS and seconds >= 0:  # fewer: too few to judge; a reset: a restarted OSD
                    peers.setdefault((classes.get(osd_id, ""), op), {})[osd_id] = seconds / ops
        self.last = now
        slow: dict[int, SlowOsd] = {}
        for (_, op), means in peers.items():
            if len(means) < MIN_PEERS:
                continue
            median = statistics.median(means.values())
            limit = max(self.factor * median, self.floor)
            for osd_id, mean in means.items():
                if mean >= limit and (osd_id not in slow or mean / max(median, 1e-9) > slow[osd_id].ratio):
                    slow[osd_id] = SlowOsd(osd_id, op, mean, median)
        twice = [v for o, v in slow.items() if o in self.slow_before]
        self.slow_before = set(slow)
        return sorted(twice, key=lambda s: (-s.ratio, s.osd_id))


class SlowHistory:
    """Which OSDs were slow at each poll, kept for the baseline: those slow at more than half of
    its polls are the cluster's usual state (a disk known to be slow), not news."""

    def __init__(self, keep: float) -> None:
        self.keep = keep
        self.polls: deque[tuple[float, frozenset[int]]] = deque()

    def add(self, t: float, slow: set[int]) -> None:
        self.polls.append((t, frozenset(slow)))
        while self.polls and self.polls[0][0] < t - self.keep:
            self.polls.popleft()

    def usual(self, start: float, end: float) -> set[int]:
        within = [osds for t, osds in self.polls if start <= t <= end]
        counts: dict[int, int] = {}
        for osds in within:
            for o in osds:
                counts[o] = counts.get(o, 0) + 1
        return {o for o, n in counts.items() if n * 2 > len(within)}
