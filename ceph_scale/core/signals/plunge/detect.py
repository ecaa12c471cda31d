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

Clients that ask for other work at the same concurrency are not a slower cluster either [000: each
COSBench round wrote for an hour, then read and ran a mixed load for 15 minutes each]:
- Another op: the requests in flight and received are totals over every op. What the other judged
  ops took of them (their own seconds in flight per second, their own ops/s) is not this op's
  demand, nor is the rest the baseline had besides the judged ops (requests not judged, a gauge's
  leaked floor). At a switch from PUT to GET the GETs took the whole concurrency: none is left for
  the PUTs, whose demand fell. In a stall the requests that wait and complete nothing stay in the
  totals, more of them than the baseline's rest: each op may claim them. Of the requests received,
  only those that failed (a stall that fails fast): the mixed load's lists and deletes are not.
- Larger objects: the ops fall while the bytes rise (seeks, not bandwidth, bound an HDD's small
  objects: 60 ops/s of 64 KB against 34 MB/s of 128 MB [004]). An op's drop is its throughput's:
  the lesser of its drop in ops/s and in bytes/s, where the bytes were counted in the baseline.
- Back to an op after other phases: the baseline is still theirs, where the op ran little, and a
  stall of the op's writes as its phase starts reads as a rise. Each op is judged against its own
  level too (levels.py: its own phase's baseline), where its clients ask it as much as then.
"""

from __future__ import annotations

import dataclasses
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
    bytes: dict[str, float] = field(default_factory=dict)  # op -> bytes/s

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
    bytes: dict[str, float] = field(default_factory=dict)
    # Each op's own levels, one per phase, where this baseline's windows are another phase's
    # (levels.py): judged against them too, an op is slower only if asked as much as then.
    own: dict[str, tuple[Baseline, ...]] = field(default_factory=dict)
    failed: float | None = None  # requests failed per second
    start: float | None = None  # when its first window ended

    def latency(self, op: str) -> float | None:
        ops, busy = self.ops.get(op), self.busy.get(op)
        return busy / ops if ops and busy is not None else None


MIN_WINDOWS = 3  # a level is not one window


@dataclass(frozen=True)
class OpVerdict:
    op: str
    drop: float  # 1 - rate / baseline; negative above the baseline
    demand: float | None  # the clients' demand now / in the baseline; None: nothing tells
    kind: str  # LEVEL (no drop), CLUSTER (slower), DEMAND (clients asked less), UNKNOWN
    since: float | None = None  # the start of the op's own level it was judged against (levels.py); None: the baseline


def _ratio(now: float | None, base: float | None) -> float | None:
    return now / base if now is not None and base is not None and base > 0 else None


def _mine(
    total: float | None,
    now: dict[str, float],
    base_total: float | None,
    base: dict[str, float],
    op: str,
    claimable: float | None = None,
) -> tuple[float, float] | None:
    """This op's part of a total over every request (in flight, received) now and in the baseline,
    or None where a part is unread. The judged ops' own measure (their seconds in flight per
    second, their ops/s) is what they took of it; the rest is every other request, waiting or not
    judged. This op's part now: what the total leaves once the other ops took theirs and the
    baseline's rest is set aside, so the rest counts only where it grew past the baseline's
    (requests waiting that nothing completes: the gauge does not tell which op they are for, so
    each op may claim them). `claimable`: the most of that growth that may be this op's, where
    something tells (the requests that failed)."""
    if total is None or base_total is None or op not in base or any(o not in now for o in base):
        return None
    grown = total - sum(now.values()) - (base_total - sum(base.values()))
    if claimable is not None:
        grown = min(grown, max(0.0, claimable))
    return max(0.0, now.get(op, 0.0) + grown), base[op]


def _in_flight_ratio(now: Window, base: Baseline, op: str) -> float | None:
    """This op's requests in flight now against the baseline's (_mine); 0 once the gauge is down to
    its floor, no client in the RGW whatever the gauge kept: under it, or at it where the baseline's
    clients took it above it (a gauge that never moved is clients always in the RGW: at it, they
    still are)."""
    floor, peak = base.in_flight_floor, base.in_flight_peak
    level = now.in_flight
    if level is not None and floor is not None and peak is not None and (level < floor or level == floor < peak):
        return 0.0
    mine = _mine(level, now.busy, base.in_flight, base.busy, op)
    return _ratio(*mine) if mine is not None else _ratio(level, base.in_flight)


def demand_ratio(now: Window, base: Baseline, op: str) -> float | None:
    """The largest estimate of the clients' demand for `op` now against the baseline, or None."""
    # Requests received beyond the baseline's other requests are this op's only where they failed:
    # a stall that fails fast still receives its requests, while the list and delete requests of
    # a mixed load [000] are other work the clients asked for, not demand for this op.
    failing = now.failed - base.failed if now.failed is not None and base.failed is not None else None
    received = _mine(now.requests, now.ops, base.requests, base.ops, op, failing)
    estimates = [
        _ratio(now.busy.get(op), base.busy.get(op)),
        _in_flight_ratio(now, base, op),
        _ratio(*received) if received is not None else _ratio(now.requests, base.requests),
    ]
    known = [e for e in estimates if e is not None]
    return max(known) if known else None


def throughput_drop(ops: dict[str, float], sizes: dict[str, float], base: Baseline, op: str) -> float:
    """1 - the op's rate / the baseline's (which must be above 0): of ops/s, or of bytes/s where they
    fell less and the baseline counted them (fewer, larger objects are no drop)."""
    drop = 1.0 - ops.get(op, 0.0) / base.ops[op]
    if base.bytes.get(op, 0.0) > 0 and op in sizes:
        drop = min(drop, 1.0 - sizes[op] / base.bytes[op])
    return drop


def _verdict(now: Window, base: Baseline, op: str, th: Thresholds) -> OpVerdict | None:
    before = base.ops.get(op, 0.0)
    if before <= 0 or before < th.plunge_min_ops_per_second:
        return None
    drop = throughput_drop(now.ops, now.bytes, base, op)
    demand = demand_ratio(now, base, op)
    if drop < th.plunge_drop_ratio:
        kind = LEVEL
    elif demand is None:
        kind = UNKNOWN
    elif 1.0 - demand >= th.plunge_demand_drop_share * drop:
        kind = DEMAND
    else:
        kind = CLUSTER
    return OpVerdict(op, drop, demand, kind)


def judge(now: Window, base: Baseline, th: Thresholds, held: float | None = None) -> dict[str, OpVerdict]:
    """A verdict for each op with a baseline of at least `plunge_min_ops_per_second`. An op that
    reads slower against its own level (Baseline.own), its clients asking it as much as then (their
    demand fell by less than a plunge's drop), is slower whatever the baseline's other phase says:
    at a switch to PUT, the PUTs of the GET and mixed phases before are no measure of a stall.

    `held`: a reshard that may hold writes is in progress (evidence.py), and the drop that makes
    its hold a plunge. The PUTs are then judged against their own level scaled by their demand
    now (held_put)."""
    out = {}
    for op in OPS:
        v = _verdict(now, base, op, th)
        if v is not None:
            out[op] = v
    for op, levels in base.own.items():
        for level in levels:
            mine = _verdict(now, level, op, th)
            if (
                mine is not None
                and mine.kind == CLUSTER
                and mine.demand is not None
                and mine.demand >= 1.0 - th.plunge_drop_ratio
                and (op not in out or out[op].kind != CLUSTER)
            ):
                out[op] = dataclasses.replace(mine, since=level.start)
    if held is not None and ("put" not in out or out["put"].kind != CLUSTER):
        level = busiest(base, "put")
        scaled = held_put(now, level, th)
        if scaled is not None and scaled.drop >= held:
            out["put"] = dataclasses.replace(scaled, since=level.start) if level is not base else scaled
    return out


def busiest(base: Baseline, op: str) -> Baseline:
    """The op's level of the phase that asked it most (levels.py), or the baseline itself."""
    return max((base, *base.own.get(op, ())), key=lambda b: b.busy.get(op, 0.0))


def held_put(now: Window, level: Baseline, th: Thresholds) -> OpVerdict | None:
    """The PUTs' drop against their level scaled by their clients' demand now, while a reshard may
    hold writes. A phase that asks fewer PUTs (a mixed load after a PUT hour) completes fewer in
    proportion (Little's law), so its drop reads near 0; a bucket whose writes are held keeps its
    clients' PUTs waiting, each taking longer, which reads as the share held. The demand is the
    PUTs' own seconds in flight per second, not the requests in the RGWs: the mixed load's lists
    and deletes are in flight beside them, where a PUT hour had none. The RGWs' totals read the
    same for a phase whose PUTs are all slower, which is why this is judged only while a reshard
    is in progress, and at `plunge_held_unconfirmed_ratio` where its bucket's own ops do not
    confirm it (reshard_cause.py)."""
    v = _verdict(now, level, "put", th)
    demand = _ratio(now.busy.get("put"), level.busy.get("put"))
    if v is None or demand is None or demand < th.plunge_held_min_demand:
        return None
    return OpVerdict("put", 1.0 - (1.0 - v.drop) / demand, demand, CLUSTER)


def returning(demand_seen_at: dict[str, float], t: float, th: Thresholds, refresh: float) -> set[str]:
    """The ops whose clients' drop was seen recently enough that their return may still read as a
    slower cluster: within a window, which holds the drop until it has passed, and two refreshes of
    the counters, which reach the producer up to one refresh late and in steps of one (a burst of
    returning clients also queues in the RGW for a moment)."""
    return {op for op, seen in demand_seen_at.items() if t - seen < th.plunge_window_seconds + 2 * refresh}


def clients_left(
    left: dict[str, float], verdicts: dict[str, OpVerdict], now: Window, before: Window | None, th: Thresholds
) -> dict[str, float]:
    """op -> the window its clients left it at: its drop read as theirs (DEMAND) in every window
    since, marked at the first of them whose rate still fell from the window `before` (by half the
    threshold, from at least `plunge_min_ops_per_second`), as at a switch of phase. Within
    `returning`'s reach of that mark the windows still straddle the switch, judging neither the op
    the clients left nor the one they ramp up: that is no return to the level, for a plunge on (a
    slowdown from the mixed phase into the PUT hour ended its plunge at the switch, and began
    another a minute on: two counted for one fault). A drop read as the clients' as a fault ends
    (the mixed phase's GETs judged against a GET phase's baseline once their own level no longer
    reads them down) rises, and is no switch."""
    out = {}
    for v in verdicts.values():
        if v.kind != DEMAND:
            continue
        was = before.ops.get(v.op, 0.0) if before is not None else 0.0
        if v.op in left:
            out[v.op] = left[v.op]
        elif was >= th.plunge_min_ops_per_second and now.ops.get(v.op, 0.0) < (1 - th.plunge_drop_ratio / 2) * was:
            out[v.op] = now.t  # an op already left (no rate to fall from) is no new switch
    return out


def still_down(verdicts: dict[str, OpVerdict], th: Thresholds) -> list[OpVerdict]:
    """The ops still down by half the threshold, not by the clients' doing: what keeps a plunge
    going, and a slower reading slower. Below the threshold the verdict is LEVEL whatever the
    demand, so the clients' share is checked here too: the mixed phase's GETs are down 11 %
    against a baseline of the GET phase's end, and so is their demand. (A held PUT's verdict
    is CLUSTER, its drop already scaled by its demand.)"""
    return [
        v
        for v in verdicts.values()
        if v.drop >= th.plunge_drop_ratio / 2
        and v.kind != DEMAND
        and not (v.kind == LEVEL and v.demand is not None and 1.0 - v.demand >= th.plunge_demand_drop_share * v.drop)
    ]
