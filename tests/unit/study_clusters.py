"""The studies' two clusters, fed with growth at their ingest rates, for the runway tests.

- 10B [004, 003, 001]: the benchmark's synthetic 1x state (bench/synth/: 318 x 16 TB HDD OSDs
  on 6 nodes, ~880 GB DB each, 296 spilling, EC 4+2, 12 RGWs, 100,000 buckets), ingesting
  17,800 64 KB PUT/s, the 10B run's average [004].
- 1B [000, 002]: 7 nodes of 16 x 4 TB HDD OSDs, 80 GB DB partition each, EC 4+2, 14 RGWs,
  ingesting ~6,500 64 KB PUT/s, the 1B cluster's small-object write throughput [002].

Growth per second of ingest, from the studies' own arithmetic: each 64 KB object is six 16 KB
EC 4+2 chunks, each taking a whole 64 KB allocation unit (bluestore_min_alloc_size_hdd) [000,
003], so 384 KiB raw per object (the 10B cluster: 3.7 PiB used for 10 B objects [004]); and
each chunk adds the DB metadata the 10B cluster's end state shows per chunk (its DB use over
its 10 B x 6 / 318 chunks per OSD).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from bench import stages, synth
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import (
    BlueFsCounters,
    Bucket,
    BucketsPart,
    CapacityPart,
    ClusterSettings,
    FullRatios,
    Osd,
    OsdMapPart,
    PerfPart,
    PgPart,
    PgScrubState,
    Pool,
    RgwOpCounters,
    Snapshot,
    SourceStatus,
)

OBJECT = 65536
CHUNKS = 6  # EC 4+2
RAW_PER_OBJECT = CHUNKS * 65536  # six 16 KB chunks, each in a 64 KB allocation unit [000, 003]
PUT_10B = 17_800.0  # [004]
PUT_1B = 6_500.0  # [002]
STEP = 75.0  # seconds between snapshots: the runway trends' step for a 600 s fit
FIT = 600  # forecast_min_span_seconds of these tests: 10 minutes of history stand for hours


def synth_10b(out: Path) -> dict:
    """The benchmark's 1x state, parsed as the producers parse it (about 6 s)."""
    synth.Synth(**synth.STUDY).write(out)
    now = json.loads((out / "manifest.json").read_text())["now"]
    parts = stages.parts_from_decoded(stages.parse_all(stages.load_raws(out)), now)
    return {"now": now, "parts": parts}


def db_per_chunk(parts: dict, objects: float) -> float:
    """DB bytes per EC chunk in a state: its mean DB use per OSD over its chunks per OSD."""
    bluefs = parts["perf"].bluefs
    used = sum(c.db_used_bytes + c.slow_used_bytes for c in bluefs) / len(bluefs)
    return used / (objects * CHUNKS / len(bluefs))


def grown(parts: dict, now: float, dt: float, objects: float, per_chunk: float) -> Snapshot:
    """The state `dt` seconds and `objects` 64 KB PUTs later (the studies' 100 % PUT runs)."""
    raw = objects * RAW_PER_OBJECT
    osd_map, cap, perf = parts["osd_map"], parts["capacity"], parts["perf"]
    n = len(osd_map.osds)
    per_osd = raw / n  # equal CRUSH weights: equal growth
    osds = tuple(dataclasses.replace(o, used_bytes=int(o.used_bytes + per_osd)) for o in osd_map.osds)
    data = max(cap.pools, key=lambda p: p.used_bytes)
    pools = tuple(
        dataclasses.replace(
            p,
            used_bytes=int(p.used_bytes + raw),
            stored_bytes=int(p.stored_bytes + objects * OBJECT),
            objects=int(p.objects + objects),
        )
        if p is data
        else p  # fmt: skip
        for p in cap.pools
    )
    meta = objects * CHUNKS / n * per_chunk
    bluefs = tuple(
        dataclasses.replace(c, slow_used_bytes=int(c.slow_used_bytes + meta))
        if c.slow_used_bytes
        else dataclasses.replace(c, db_used_bytes=int(c.db_used_bytes + meta))
        for c in perf.bluefs
    )
    per_rgw = objects / len(perf.rgw_ops)
    rgw = tuple(
        dataclasses.replace(r, put_ops=int(r.put_ops + per_rgw), put_bytes=int(r.put_bytes + per_rgw * OBJECT))
        for r in perf.rgw_ops
    )
    t = now + dt
    return Snapshot(
        taken_at=t,
        fsid="study",
        osd_map=dataclasses.replace(osd_map, collected_at=t, osds=osds),
        capacity=dataclasses.replace(cap, collected_at=t, used_bytes=int(cap.used_bytes + raw), pools=pools),
        perf=dataclasses.replace(perf, collected_at=t, bluefs=bluefs, rgw_ops=rgw),
        pgs=parts["pgs"],
        settings=parts["settings"],
        buckets=parts.get("buckets"),
        health=parts.get("health"),
        sources=tuple(SourceStatus(name, True, 0.1, t) for name in parts),
    )


def fed(parts: dict, now: float, put_rate: float, per_chunk: float, th: Thresholds, steps: int = 11, ramp: float = 0.0):
    """(state, last families) after `steps` snapshots STEP apart at that ingest, growing by
    `ramp` of itself per second (0: steady)."""
    state = DerivationState(th)
    families: list = []
    for i in range(steps):
        dt = i * STEP
        objects = put_rate * (dt + ramp * dt * dt / 2)
        families = derive(grown(parts, now, dt, objects, per_chunk), state, th, cluster="study")
    return state, families


def cluster_1b(now: float) -> dict:
    """The 1B cluster half full, where its writes began to fall [000]; a DB of 20 GB used per OSD."""
    tb = 4 * 10**12
    osds = tuple(Osd(i, "hdd", f"node-{i // 16 + 1}", True, True, tb, tb // 2, True, tb) for i in range(112))
    objects = 56 * tb // RAW_PER_OBJECT  # 570 M: "around 500 million objects" at 50 % [000]
    pools = (
        Pool(1, "default.rgw.buckets.index", 0, 3 * 10**11, 10**14, 0.001, 1000, 1, 2),
        Pool(2, "default.rgw.buckets.data", objects * OBJECT, 56 * tb, 10**14, 0.5, objects, 4, 2),
    )
    pgs = tuple(
        PgScrubState(f"{p}.{i:x}", p, "active+clean", now, now) for p, n in ((1, 256), (2, 4096)) for i in range(n)
    )
    return {
        "osd_map": OsdMapPart(now, osds, FullRatios(0.85, 0.9, 0.95)),
        "capacity": CapacityPart(now, 112 * tb, 56 * tb, pools),
        "perf": PerfPart(
            now,
            bluefs=tuple(BlueFsCounters(i, 80 * 10**9, 20 * 10**9, 0) for i in range(112)),
            rgw_ops=tuple(RgwOpCounters(str(5000 + r), 0, 10**6, 0, 10**6 * OBJECT) for r in range(14)),
        ),
        "pgs": PgPart(now, pgs),
        "settings": ClusterSettings(now, rgw_max_objs_per_shard=100_000),
        "buckets": BucketsPart(now, tuple(Bucket(f"b{i}", "", f"z.{i}", 16, 50_000) for i in range(14))),
    }
