"""The 10B study's cluster under the 1B study's COSBench rounds, for the plunge detector's tests.

The cluster: 318 HDD OSDs on 6 nodes, 12 RGWs [004]. The rounds: an hour of PUT, then 15 minutes
of GET, then 15 minutes of the mixed load (70 % read, 20 % write, 5 % list, 5 % delete), each
round at the same concurrency [000: "each round wrote for one hour followed by 15 minutes of read
and RWLD"]. The clients are a closed loop: the requests in flight stay where the workers keep
them, and each op's rate is what its latency lets through (Little's law). At the 10B run's load:
17,800 PUT/s at 510 ms and 28,800 GET/s [004], so about 9,078 requests in flight.

Only the parts the plunge detector and its causes read are made (the OSD map, the RGWs' counters,
the PGs, the reshard queue, and BlueFS counters where OSDs spill), so that hours of snapshots
derive in seconds.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import (
    BlueFsCounters,
    FullRatios,
    Osd,
    OsdMapPart,
    PerfPart,
    PgPart,
    PgScrubState,
    ReshardEntry,
    ReshardPart,
    RgwOpCounters,
    Snapshot,
)
from tests.unit.signals.derived import samples

OSDS, RGWS, NODES = 318, 12, 6
KB = 1024
IN_FLIGHT = 17_800 * 0.51  # [004]
PUT_LATENCY = 0.51  # [004]
GET_LATENCY = IN_FLIGHT / 28_800  # 28,800 GET/s at the same concurrency [004]
OTHER_LATENCY = 0.1  # list and delete: not judged, only counted in the requests received
POLL = 15.0  # the perf source poll: four to the default 60 s window
SPILLING_OSDS = 296  # of 318 spilled over by the end of the 10B run [004]
DB_BYTES = 880 * 10**9  # per OSD: 36 NVMe devices, about 5.5 % of a 16 TB HDD [004]
# The poll-to-poll wobble of what spills: RocksDB moves whole SST files to the slow device as it
# compacts, so the bytes spilled grow in steps, not at the rate of the writes.
SPILL_WOBBLE = (1.0, 1.6, 0.5, 1.3, 0.7, 1.1, 0.4, 1.4)


@dataclass(frozen=True)
class Load:
    """Shares of the requests by op and each op's latency and object size; the rates follow from
    the concurrency."""

    put: float = 0.0
    get: float = 0.0
    other: float = 0.0
    put_latency: float = PUT_LATENCY
    get_latency: float = GET_LATENCY
    put_size: int = 64 * KB
    get_size: int = 64 * KB
    slowdown: float = 1.0  # each op takes this many times as long (a slower cluster)
    other_latency: float = OTHER_LATENCY

    def rates(self, in_flight: float) -> dict[str, float]:
        busy = self.slowdown * (
            self.put * self.put_latency + self.get * self.get_latency + self.other * self.other_latency
        )
        total = in_flight / busy
        return {"put": total * self.put, "get": total * self.get, "other": total * self.other}


PUT = Load(put=1.0)
GET = Load(get=1.0)
MIXED = Load(put=0.2, get=0.7, other=0.1)  # [000]
# 20 times larger objects with the same workers: each PUT takes 4 times as long (the HDDs' seeks,
# not their bandwidth, bound small objects: 60 ops/s of 64 KB but 34 MB/s of 128 MB per HDD [004]).
LARGER = Load(put=1.0, put_latency=4 * PUT_LATENCY, put_size=20 * 64 * KB)


def count_poll(c: dict[str, float], load: Load, rates: dict[str, float]) -> None:
    """A poll's S3 ops at `rates` added to an RGW's (or all RGWs') counters: ops, seconds spent
    at the load's latencies, bytes, and requests."""
    for op in ("put", "get"):
        latency = (load.put_latency if op == "put" else load.get_latency) * load.slowdown
        size = load.put_size if op == "put" else load.get_size
        c[op] += rates[op] * POLL
        c[f"{op}_s"] += rates[op] * POLL * latency
        c[f"{op}_b"] += rates[op] * POLL * size
    c["req"] += sum(rates.values()) * POLL


class StudyCluster:
    """Snapshots every POLL seconds of the study cluster under a load; counters split evenly
    over the RGWs."""

    def __init__(self, th: Thresholds | None = None, pgs: int = 0) -> None:
        self.th = th or Thresholds()
        self.state = DerivationState(self.th)
        self.t = 0.0
        self.counters = dict.fromkeys(("put", "get", "put_s", "get_s", "put_b", "get_b", "req"), 0.0)
        self.in_flight = IN_FLIGHT
        per_node = OSDS // NODES
        self.osds = [
            Osd(i, "hdd", f"node-{i // per_node + 1}", True, True, 16 * 10**12, 10 * 10**12) for i in range(OSDS)
        ]
        self.pgs = [PgScrubState(f"9.{i:x}", 9, "active+clean", 0.0, 0.0) for i in range(pgs)]
        self.resharding: tuple[ReshardEntry, ...] = ()
        # Bytes spilled on each of SPILLING_OSDS, grown per PUT and per poll while a bucket
        # reshards (spilling()); none: no BlueFS counters in the snapshots.
        self.spilled: list[float] = []
        self.spill_per_put = self.spill_per_reshard_poll = 0.0
        self.fams: list = []
        self.seen: list[tuple[float, float, str]] = []  # (t, plunge active, cause) at each snapshot

    def run(self, seconds: float, load: Load) -> StudyCluster:
        for _ in range(round(seconds / POLL)):
            self._step(load)
            self.fams = derive(self.snapshot(), self.state, self.th, cluster="study")
            info = samples(self.fams, "ceph_scale_s3_plunge_info") or {}
            cause = dict(next(iter(info))).get("cause", "") if info else ""
            self.seen.append((self.t, self.value("ceph_scale_s3_plunge_active") or 0.0, cause))
        return self

    def elapse(self, seconds: float, load: Load) -> StudyCluster:
        """The cluster under `load` with no process watching it (between two `--once` runs)."""
        for _ in range(round(seconds / POLL)):
            self._step(load)
        return self

    def _step(self, load: Load) -> None:
        rates = load.rates(self.in_flight)
        count_poll(self.counters, load, rates)
        if self.spilled:
            grown = rates["put"] * POLL * self.spill_per_put + (self.spill_per_reshard_poll if self.resharding else 0)
            wobble = SPILL_WOBBLE[round(self.t / POLL) % len(SPILL_WOBBLE)]
            self.spilled = [b + grown * wobble / len(self.spilled) for b in self.spilled]
        self.t += POLL

    def snapshot(self) -> Snapshot:
        t, c = self.t, self.counters
        rgws = tuple(
            RgwOpCounters(
                str(4000 + r),
                int(c["get"] / RGWS),
                int(c["put"] / RGWS),
                int(c["get_b"] / RGWS),
                int(c["put_b"] / RGWS),
                c["get_s"] / RGWS,
                int(c["get"] / RGWS),
                c["put_s"] / RGWS,
                int(c["put"] / RGWS),
                round(self.in_flight / RGWS),
                int(c["req"] / RGWS),
                0,
            )  # fmt: skip
            for r in range(RGWS)
        )
        return Snapshot(
            taken_at=t,
            osd_map=OsdMapPart(t, tuple(self.osds), FullRatios(0.85, 0.9, 0.95)),
            perf=PerfPart(t, self.bluefs(), (), rgws),
            pgs=PgPart(t, tuple(self.pgs)) if self.pgs else None,
            reshard=ReshardPart(t, self.resharding),
        )

    def spilling(self, per_put: float, per_reshard_poll: float = 0.0) -> StudyCluster:
        """SPILLING_OSDS spill over from now, by `per_put` bytes in all for each PUT and by
        `per_reshard_poll` more at each poll while a bucket reshards (it writes its index anew)."""
        self.spilled = [float(10**9)] * SPILLING_OSDS
        self.spill_per_put, self.spill_per_reshard_poll = per_put, per_reshard_poll
        return self

    def bluefs(self) -> tuple[BlueFsCounters, ...]:
        return tuple(BlueFsCounters(i, DB_BYTES, DB_BYTES - 10**9, int(b)) for i, b in enumerate(self.spilled))

    def down(self, *osd_ids: int) -> None:
        for i in osd_ids:
            self.osds[i] = dataclasses.replace(self.osds[i], up=False)

    def value(self, name: str, **labels: str) -> float | None:
        found = samples(self.fams, name) or {}
        return found.get(tuple(sorted(labels.items())))

    def info(self) -> dict[str, str] | None:
        found = samples(self.fams, "ceph_scale_s3_plunge_info")
        return dict(next(iter(found))) if found else None

    def plunges(self) -> dict[str, float]:
        """Plunges counted so far, by cause, and one more for a plunge still going on."""
        counted = {dict(k)["cause"]: v for k, v in samples(self.fams, "ceph_scale_s3_plunges").items() if v}
        if self.value("ceph_scale_s3_plunge_active"):
            cause = (self.info() or {}).get("cause", "none")
            counted[cause] = counted.get(cause, 0) + 1
        return counted

    def plunge_windows(self) -> int:
        return sum(1 for _, active, _ in self.seen if active)


def rounds(cluster: StudyCluster, n: int, put: Load = PUT, mixed: Load = MIXED) -> StudyCluster:
    """n COSBench rounds [000]."""
    for _ in range(n):
        cluster.run(3600, put).run(900, GET).run(900, mixed)
    return cluster


_ROUNDS: dict[int, StudyCluster] = {}


def after_rounds(n: int) -> StudyCluster:
    """A copy of a StudyCluster at the default thresholds after n rounds, run once per test process:
    the rounds before a test's own events are the same for every test, and a round is 360
    derivations of the cluster."""
    if n not in _ROUNDS:
        _ROUNDS[n] = rounds(StudyCluster(), n)
    return copy.deepcopy(_ROUNDS[n])
