"""Slow OSDs among their peers, from their client op latencies over the last perf window. Pure.

A disk that fails slowly, or an OSD starved of CPU or memory, answers its requests late long before
Ceph marks it down, and SLOW_OPS names it only once a request is 30 s old (osd_op_complaint_time).
Every EC 4+2 write waits for its slowest chunk [003], so one slow OSD among 318 slows every
request to its PGs. Its mean read or write latency over the window (`osd.op_r_latency`,
`osd.op_w_latency`: the time from receiving a client op to answering it) stands out from its
peers'. Peers are the OSDs of its device class, per op: an HDD OSD beside flash ones is not slow,
nor is one that happens to serve more writes (a 64 KB PUT's chunk takes 0.5 s on the study's
HDDs, a GET's 27 ms). An OSD is slow when a mean is at least SLOW_FACTOR times the median of its
peers' and at least SLOW_FLOOR: the factor, because HDD and flash clusters differ by 100x in what
is normal; the floor, because an idle cluster's 1 ms against 5 ms is noise to a client.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ...snapshot import OsdOpCounters

MIN_OPS = 10  # ops of that kind an OSD answered in the window, for its mean to be judged
MIN_PEERS = 3  # OSDs judged, for a median to say what is usual
SLOW_FACTOR = 5.0
SLOW_FLOOR = 0.1  # seconds

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

    def __init__(self) -> None:
        self.last: dict[int, dict[str, Latency]] = {}

    def slow(self, counters: Iterable[OsdOpCounters], classes: Mapping[int, str]) -> list[SlowOsd]:
        """The slow OSDs since the last call, slowest first (none on the first call). classes: each
        OSD's device class ("" where it has none)."""
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
            limit = max(SLOW_FACTOR * median, SLOW_FLOOR)
            for osd_id, mean in means.items():
                if mean >= limit and (osd_id not in slow or mean / max(median, 1e-9) > slow[osd_id].ratio):
                    slow[osd_id] = SlowOsd(osd_id, op, mean, median)
        return sorted(slow.values(), key=lambda s: (-s.ratio, s.osd_id))
