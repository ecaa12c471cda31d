"""The S3 clients and what the RGWs' and OSDs' counters make of them, by Little's law.

The clients are closed-loop, as COSBench's workers are [000]: each keeps one request in flight
and sends the next when it returns. The scenario's workload gives the ops/s they reach on the
healthy cluster; at each op's healthy latency that is a concurrency, its ops/s times its latency
(Little's law: requests in flight = arrival rate x time in the system), the same per RGW since
the clients spread evenly over them. So each RGW's `qlen` follows the workload: a switch from
writes to reads changes it as a real RGW's would, the PUTs' 510 ms against the GETs' 27 ms [004].

A slower cluster serves a share `served` of that (fewer OSDs, a bucket index being resharded,
deep scrubs taking the disks): the same clients wait longer for each op. Each op then takes its
healthy latency / served, its completions fall to ops/s x served, and the requests in flight
hold: completions x latency is the clients' concurrency still. That is what tells a stall from
clients that asked less (ceph_scale/core/signals/plunge/detect.py): there the requests in flight
fall with the ops.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bench import synth

PUT_LATENCY, GET_LATENCY = 0.51, 0.027  # the 10B cluster's at its load [004]


def in_flight(put: float, get: float) -> float:
    """Requests in flight for these ops/s at the healthy latencies (Little's law)."""
    return put * PUT_LATENCY + get * GET_LATENCY


@dataclass
class RgwCounters:
    """One RGW's cumulative counters since the span's start, and its requests in flight."""

    gets: float = 0.0
    puts: float = 0.0
    get_seconds: float = 0.0  # the seconds spent in GETs: its latency sum
    put_seconds: float = 0.0
    queued: int = 0  # qlen: requests in the RGW now


@dataclass
class S3Traffic:
    """What `osds` OSDs and `rgws` RGWs have served since the span's start."""

    osds: int
    rgws: int
    osd_ops: list[list[float]] = field(default_factory=list)  # per OSD: reads, writes
    rgw: list[RgwCounters] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.osd_ops = [[0.0, 0.0] for _ in range(self.osds)]
        self.rgw = [RgwCounters() for _ in range(self.rgws)]

    def serve(self, dt: float, put: float, get: float, served: tuple[float, float], up: list[int], rgws: int) -> None:
        """`dt` seconds of clients asking `put` and `get` ops/s (their healthy rates) of a
        cluster that serves the shares `served` of them (PUTs, GETs) on the OSDs `up`, through
        its first `rgws` RGWs."""
        done_put, done_get = put * served[0], get * served[1]
        for i in up:
            weight = 0.9 + 0.2 * ((i * 104729) % 100) / 100
            self.osd_ops[i][0] += done_get * synth.EC_K / len(up) * weight * dt
            self.osd_ops[i][1] += done_put * (synth.EC_K + synth.EC_M) / len(up) * weight * dt
        queued = round(in_flight(put, get) / rgws) if max(served) > 0 else 0
        for r in self.rgw[:rgws]:
            r.gets += done_get / rgws * dt
            r.puts += done_put / rgws * dt
            # Completions x latency / served: the clients' concurrency, whatever the cluster's pace.
            if served[1] > 0:
                r.get_seconds += get * GET_LATENCY / rgws * dt
            if served[0] > 0:
                r.put_seconds += put * PUT_LATENCY / rgws * dt
            r.queued = queued

    def hold(self, put: float, get: float, rgws: int) -> None:
        """The requests in flight of clients asking `put` and `get` ops/s over the first `rgws`
        RGWs, before any is served."""
        for r in self.rgw[:rgws]:
            r.queued = round(in_flight(put, get) / rgws)

    def rgw_counters(self, n: int) -> dict[str, float]:
        """RGW n's counters, as the mgr prometheus module names them (without `ceph_rgw_`)."""
        r = self.rgw[n]
        get, put = int(r.gets), int(r.puts)
        return {
            "get": float(get),
            "get_b": float(get * synth.OBJECT_BYTES),
            "get_initial_lat_count": float(get),
            "get_initial_lat_sum": r.get_seconds,
            "put": float(put),
            "put_b": float(put * synth.OBJECT_BYTES),
            "put_initial_lat_count": float(put),
            "put_initial_lat_sum": r.put_seconds,
            "req": float(put + get),
            "qlen": float(r.queued),
            "qactive": float(r.queued),
        }

    def osd_counters(self, i: int) -> dict[str, float]:
        """OSD i's op counters (the latency of a chunk op: the study's, whatever the load)."""
        r, w = (int(v) for v in self.osd_ops[i])
        return {
            "op_r": float(r),
            "op_w": float(w),
            "op_r_latency_count": float(r),
            "op_r_latency_sum": r * GET_LATENCY,
            "op_w_latency_count": float(w),
            "op_w_latency_sum": w * PUT_LATENCY,
        }


@dataclass
class BucketCounts:
    """Each bucket's PUTs and GETs since the span's start, as RGW's per-bucket counters count them:
    the clients' ops spread evenly over the buckets, and a bucket whose index is being resharded
    gets none of its writes while it is (they wait [000]); its reads go on."""

    buckets: int
    each: list[float] = field(default_factory=lambda: [0.0, 0.0])  # PUTs, GETs every bucket got
    lost: dict[int, float] = field(default_factory=dict)  # bucket -> the PUTs it did not get

    def serve(self, dt: float, put: float, get: float, share: float, resharding: set[int]) -> None:
        """`dt` seconds of clients asking `put` and `get` ops/s of a cluster serving `share` of
        them where no index is being resharded."""
        per_bucket = put * share / self.buckets * dt
        self.each[0] += per_bucket
        self.each[1] += get * share / self.buckets * dt
        for b in resharding:
            self.lost[b] = self.lost.get(b, 0.0) + per_bucket

    def count(self, b: int) -> tuple[int, int]:
        return int(self.each[0] - self.lost.get(b, 0.0)), int(self.each[1])
