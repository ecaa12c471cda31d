"""The 10B study cluster from bench/synth/ (318 HDD OSDs, 12 RGWs, 21,760 PGs, 100,000 buckets),
parsed as the producers parse it, under a closed-loop load, through the real derivation: the
plunge's causes at the study's scale.

The parts are the synthetic state's own (tests/unit/study_clusters.synth_10b): its OSD map, its PG
dump with each PG's acting set, its health checks, its RGWs, its buckets. What a test changes (an
OSD down, PGs deep scrubbing, a health check raised, one RGW slower) it changes on them. The load
is tests/unit/study_rounds' (the 10B run's 17,800 PUT/s at 510 ms, about 9,078 requests in
flight), split evenly over the RGWs. The baseline is 300 s (`plunge_baseline_seconds`; 1,800 by
default) so that a test derives a few dozen snapshots, not hundreds: the scale is the study's,
the history shorter.
"""

from __future__ import annotations

import dataclasses
import functools
import tempfile
from pathlib import Path

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import (
    HealthCheck,
    HealthPart,
    OsdOpCounters,
    PgPart,
    ReshardEntry,
    ReshardPart,
    RgwOpCounters,
    Snapshot,
)
from tests.unit.signals.derived import samples
from tests.unit.study_clusters import synth_10b
from tests.unit.study_rounds import IN_FLIGHT, POLL, Load, count_poll

TH = Thresholds(plunge_baseline_seconds=300)
# The pgs source's default interval (exporter/sidecar/config_file.py): a dump of 21,760 PGs read
# at every 15 s poll would make most of a test's derivation time.
PG_POLL = 120.0
# Each OSD's client ops (17,800 PUT/s in EC 4+2 chunks over 318 OSDs: about 335 a second) and
# their mean latency on the study's HDDs, unless a test slows one (SynthStudy.osd_latency).
OSD_OPS_PER_SECOND = 17_800 * 6 / 318
OSD_LATENCY = 0.030


@functools.lru_cache(maxsize=1)
def study_parts() -> tuple[float, dict]:
    """The synthetic 1x state, parsed once per test process (about 6 s)."""
    with tempfile.TemporaryDirectory(prefix="plunge-study-") as out:
        made = synth_10b(Path(out))
    return made["now"], made["parts"]


class SynthStudy:
    """Snapshots every POLL seconds of the synthetic study cluster under a load."""

    def __init__(self, th: Thresholds = TH) -> None:
        now, parts = study_parts()
        self.th, self.parts, self.t = th, parts, now
        self.state = DerivationState(th)
        self.osds = list(parts["osd_map"].osds)
        self.pgs = list(parts["pgs"].pgs)
        self.rgws = [r.instance_id for r in parts["perf"].rgw_ops]
        self.counters = {
            r: dict.fromkeys(("put", "get", "put_s", "get_s", "put_b", "get_b", "req"), 0.0) for r in self.rgws
        }
        self.checks: list[HealthCheck] = []  # raised on top of the synthetic state's own
        self.slower: dict[str, float] = {}  # RGW -> how many times slower its ops are than the load's
        self.osd_latency: dict[int, float] = {}  # OSD -> its seconds per op, where not OSD_LATENCY
        self.osd_counters = {o.osd_id: [0.0, 0.0] for o in self.osds}  # OSD -> [latency sum, ops]
        self.resharding: tuple[ReshardEntry, ...] = ()  # the reshard queue's entries
        self.pgs_stale = False  # the pgs source failing: its last part stays as it was
        self.osd_map_age = 0.0  # how long before the poll the OSD map was read (each source has its thread)
        self.pg_part = PgPart(now, tuple(self.pgs))
        self.fams: list = []
        self.seen: list[tuple[float, float, str]] = []

    def run(self, seconds: float, load: Load) -> SynthStudy:
        per_rgw = IN_FLIGHT / len(self.rgws)
        for _ in range(round(seconds / POLL)):
            for r in self.rgws:
                slow = dataclasses.replace(load, slowdown=load.slowdown * self.slower.get(r, 1.0))
                count_poll(self.counters[r], slow, slow.rates(per_rgw))
            for o in self.osds:
                if o.up:
                    ops, kept = OSD_OPS_PER_SECOND * POLL, self.osd_counters[o.osd_id]
                    kept[0] += ops * self.osd_latency.get(o.osd_id, OSD_LATENCY)
                    kept[1] += ops
            self.t += POLL
            self.fams = derive(self.snapshot(), self.state, self.th, cluster="study")
            info = samples(self.fams, "ceph_scale_s3_plunge_info") or {}
            cause = dict(next(iter(info))).get("cause", "") if info else ""
            self.seen.append((self.t, self.value("ceph_scale_s3_plunge_active") or 0.0, cause))
        return self

    def snapshot(self) -> Snapshot:
        t, p = self.t, self.parts
        rgws = tuple(
            RgwOpCounters(
                r,
                int(c["get"]),
                int(c["put"]),
                int(c["get_b"]),
                int(c["put_b"]),
                c["get_s"],
                int(c["get"]),
                c["put_s"],
                int(c["put"]),
                round(IN_FLIGHT / len(self.rgws)),
                int(c["req"]),
                0,
            )  # fmt: skip
            for r, c in self.counters.items()
        )
        if not self.pgs_stale and (t - self.pg_part.collected_at >= PG_POLL or self.pgs_changed()):
            self.pg_part = PgPart(t, tuple(self.pgs))
        health: HealthPart = p["health"]
        return Snapshot(
            taken_at=t,
            fsid="study",
            osd_map=dataclasses.replace(p["osd_map"], collected_at=t - self.osd_map_age, osds=tuple(self.osds)),
            capacity=dataclasses.replace(p["capacity"], collected_at=t),
            perf=dataclasses.replace(p["perf"], collected_at=t, rgw_ops=rgws, osd_ops=self.osd_ops()),
            pgs=self.pg_part,
            reshard=ReshardPart(t, self.resharding),
            health=HealthPart(t, "HEALTH_WARN", tuple(sorted((*health.checks, *self.checks), key=lambda c: c.code))),
        )

    def pgs_changed(self) -> bool:
        """Whether a test changed the PGs since the last dump: it is read again at once, as if its
        poll came then."""
        dumped = self.pg_part.pgs
        return len(dumped) != len(self.pgs) or any(a is not b for a, b in zip(dumped, self.pgs))

    def osd_ops(self) -> tuple[OsdOpCounters, ...]:
        return tuple(
            OsdOpCounters(osd_id, 0, int(ops), 0.0, 0, total, int(ops))  # the PUT hours' writes
            for osd_id, (total, ops) in sorted(self.osd_counters.items())
        )

    def rgw_pools(self) -> set[int]:
        """The zone's bucket data and index pools."""
        return {
            p.pool_id
            for p in self.parts["capacity"].pools
            if p.name.endswith((".rgw.buckets.data", ".rgw.buckets.index"))
        }

    def off_the_s3_pools(self, osd: int, instead: int = 6) -> None:
        """`osd` serves only pools of another CRUSH rule: `instead` takes its place in every acting
        set of the S3 ops' pools."""
        pools = self.rgw_pools()
        self.pgs = [
            dataclasses.replace(pg, acting=tuple(instead if o == osd else o for o in pg.acting))
            if pg.pool_id in pools
            else pg
            for pg in self.pgs
        ]

    def down(self, *osd_ids: int) -> None:
        for i in osd_ids:
            self.osds[i] = dataclasses.replace(self.osds[i], up=False)

    def value(self, name: str, **labels: str) -> float | None:
        found = samples(self.fams, name) or {}
        return found.get(tuple(sorted(labels.items())))

    def info(self) -> dict[str, str] | None:
        found = samples(self.fams, "ceph_scale_s3_plunge_info")
        return dict(next(iter(found))) if found else None

    def plunge_windows(self) -> int:
        return sum(1 for _, active, _ in self.seen if active)
