"""Is S3 throughput down against its recent baseline, and is that the cluster's doing? Pure.

A plunge [000: "sudden plunges" at each reshard; 001: deep scrubs, "a brief, significant drop";
004: a failed node cost 21 % of PUT and 25 % of GET ops/s] is an op rate below the median of
its recent windows by `plunge_drop_ratio` or more, while the clients still ask as much.

Telling "the cluster is slower" from "clients asked less": a client keeps in flight its op rate
times the op's latency (Little's law). A client that sends less keeps fewer in flight: its ops,
the seconds spent in them per second, the requests waiting in the RGW and the requests received
all fall together. A cluster that slows down or stalls leaves the demand where it was: fewer ops
complete but each takes longer (seconds spent per second hold), requests wait in the RGW (its
`qlen` holds while nothing completes), or fail fast (requests received hold). The demand is the
largest of these estimates, each against its own baseline; the drop is the clients' when the
demand fell by at least `plunge_demand_drop_share` of the ops' own drop.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...config import Thresholds

OPS = ("put", "get")

LEVEL, CLUSTER, DEMAND, UNKNOWN = "level", "cluster", "demand", "unknown"


@dataclass(frozen=True)
class Window:
    """What the RGWs did over one window ending at `t`, per second."""

    t: float
    ops: dict[str, float]  # op -> ops/s
    busy: dict[str, float] = field(default_factory=dict)  # op -> seconds spent in the op per second
    in_flight: float | None = None  # requests in the RGWs (plunge_rates.py: window mean or last poll)
    requests: float | None = None  # requests received per second, every kind
    failed: float | None = None  # requests failed per second

    def latency(self, op: str) -> float | None:
        ops, busy = self.ops.get(op), self.busy.get(op)
        return busy / ops if ops and busy is not None else None


@dataclass(frozen=True)
class Baseline:
    """The median of each rate over the baseline's windows."""

    ops: dict[str, float]
    busy: dict[str, float]
    in_flight: float | None
    requests: float | None
    windows: int
    # The least and the most of its windows' requests in flight. The least is what the RGW's gauge
    # reads with no client in it: Pacific's RGW keeps one request counted for good for each whose
    # client hung up before the reply (a timeout during a stall), so that floor need not be 0.
    in_flight_floor: float | None = None
    in_flight_peak: float | None = None

    def latency(self, op: str) -> float | None:
        ops, busy = self.ops.get(op), self.busy.get(op)
        return busy / ops if ops and busy is not None else None


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def baseline(windows: Sequence[Window], min_windows: int = 3) -> Baseline | None:
    """The baseline of these windows, or None with fewer than `min_windows`: a level is not one
    window."""
    if len(windows) < min_windows:
        return None
    ops = {op: statistics.median(w.ops.get(op, 0.0) for w in windows) for op in OPS}
    busy = {}
    for op in OPS:
        seen = [w.busy[op] for w in windows if op in w.busy]
        if seen:
            busy[op] = statistics.median(seen)
    flights = [w.in_flight for w in windows if w.in_flight is not None]
    requests = _median([w.requests for w in windows if w.requests is not None])
    floor, peak = (min(flights), max(flights)) if flights else (None, None)
    return Baseline(ops, busy, _median(flights), requests, len(windows), floor, peak)


@dataclass(frozen=True)
class OpVerdict:
    op: str
    drop: float  # 1 - rate / baseline; negative above the baseline
    demand: float | None  # the clients' demand now / in the baseline; None: nothing tells
    kind: str  # LEVEL (no drop), CLUSTER (slower), DEMAND (clients asked less), UNKNOWN


def _ratio(now: float | None, base: float | None) -> float | None:
    return now / base if now is not None and base is not None and base > 0 else None


def _in_flight_ratio(now: float | None, base: Baseline) -> float | None:
    """Requests in flight now against the baseline's; 0 once the gauge is down to its floor, no
    client in the RGW whatever the gauge kept: under it, or at it where the baseline's clients took
    it above it (a gauge that never moved is clients always in the RGW: at it, they still are)."""
    floor, peak = base.in_flight_floor, base.in_flight_peak
    if now is not None and floor is not None and peak is not None and (now < floor or now == floor < peak):
        return 0.0
    return _ratio(now, base.in_flight)


def demand_ratio(now: Window, base: Baseline, op: str) -> float | None:
    """The largest estimate of the clients' demand now against the baseline, or None."""
    estimates = [
        _ratio(now.busy.get(op), base.busy.get(op)),
        _in_flight_ratio(now.in_flight, base),
        _ratio(now.requests, base.requests),
    ]
    known = [e for e in estimates if e is not None]
    return max(known) if known else None


def judge(now: Window, base: Baseline, th: Thresholds) -> dict[str, OpVerdict]:
    """A verdict for each op with a baseline of at least `plunge_min_ops_per_second`."""
    out = {}
    for op in OPS:
        before = base.ops.get(op, 0.0)
        if before <= 0 or before < th.plunge_min_ops_per_second:
            continue
        drop = 1.0 - now.ops.get(op, 0.0) / before
        demand = demand_ratio(now, base, op)
        if drop < th.plunge_drop_ratio:
            kind = LEVEL
        elif demand is None:
            kind = UNKNOWN
        elif 1.0 - demand >= th.plunge_demand_drop_share * drop:
            kind = DEMAND
        else:
            kind = CLUSTER
        out[op] = OpVerdict(op, drop, demand, kind)
    return out
