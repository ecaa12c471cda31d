"""One simulated cluster's answers at a time `t`, in the JSON shapes Ceph returns.

The shapes are bench.synth's (each checked key by key against the Pacific fixtures by
tests/bench/test_synth.py); this class moves the state they are built from along the
scenario's timeline: fill, spillover, scrub stamps, OSDs down, the S3 workload's counters,
reshards. `answers(t)` gives each registered parser input (ceph_scale.core.registry) as
`json.loads` would return it.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from bench import synth
from replay.scenario import Cluster, Event

DAY = 86400.0
HOUR = 3600.0
ROLLING_SCRUB = 5 * DAY  # a PG not held back is scrubbed (and deep-scrubbed) every 5 days
PUT_LATENCY, GET_LATENCY = 0.51, 0.027  # the 10B cluster's at its load [004]
SCRUBBING_FOR = 600.0  # a PG shows `scrubbing+deep` for 10 minutes after its stamp
DOWN_OUT_INTERVAL = 600.0  # mon_osd_down_out_interval: a down OSD is marked out after 10 minutes


def lerp(pair: tuple[float, float], frac: float) -> float:
    return pair[0] + (pair[1] - pair[0]) * frac


class SimCluster(synth.Synth):
    """`spec` at times from `start` on (unix seconds), over a span of `span` seconds."""

    def __init__(self, spec: Cluster, start: float, span: float) -> None:
        super().__init__(spec.osds, spec.pgs, spec.pools, spec.buckets, spec.rgws)
        self.spec, self.start, self.span = spec, start, span
        self.spilled, self.nearfull = set(), set()
        self.slow_used = {i: 0 for i in range(spec.osds)}
        self.db_used = {i: int(spec.db_bytes * 0.3) for i in range(spec.osds)}
        # Which OSDs spill first, and each PG's place in the backlog: fixed orders.
        self.spill_order = sorted(range(spec.osds), key=lambda i: (i * 7919) % spec.osds)
        self.pg_template = next(iter(synth.Synth(6, 7, 7, 0, 1).iter_pgs()))
        self.pg_ids = [f"{p['id']}.{seq:x}" for p in self.pool_list for seq in range(p["pg_num"])]
        self.bucket_template = next(iter(synth.Synth(6, 7, 7, 1, 1).iter_buckets()))
        self.reshard_template = {
            "bucket_id": "",
            "bucket_name": "",
            "new_instance_id": "",
            "old_num_shards": 0,
            "tenant": "",
            "tentative_new_num_shards": 0,
            "time": "",
        }
        self.osd_ops = [[0.0, 0.0] for _ in range(spec.osds)]  # reads, writes since start
        self.rgw_ops = [[0.0, 0.0] for _ in range(spec.rgws)]  # gets, puts
        self.t = start
        self.now = start

    # --- the timeline ----------------------------------------------------------------

    def frac(self, t: float) -> float:
        return min(1.0, max(0.0, (t - self.start) / self.span)) if self.span else 1.0

    def active(self, kind: str, t: float) -> list[Event]:
        off = t - self.start
        return [e for e in self.spec.events if e.kind == kind and e.at <= off < e.at + max(e.duration, 1e-9)]

    def down_osds(self, t: float) -> tuple[set[int], bool]:
        """The OSDs down at t, and whether noout is set."""
        down: set[int] = set()
        noout = False
        per = self.spec.osds_per_node
        for e in self.active("node_down", t):
            down |= set(range(e.node * per, (e.node + 1) * per))
            noout = noout or e.noout
        return down, noout

    def out_osds(self, t: float) -> set[int]:
        """The down OSDs the monitors have marked out: down longer than the interval, without noout."""
        per = self.spec.osds_per_node
        out: set[int] = set()
        for e in self.active("node_down", t):
            if not e.noout and t - self.start - e.at >= DOWN_OUT_INTERVAL:
                out |= set(range(e.node * per, (e.node + 1) * per))
        return out

    def workload(self, t: float) -> tuple[float, float]:
        """Cluster-wide PUT and GET ops/s at t: the scenario's cycle, repeated."""
        cycle = self.spec.workload
        period = sum(s.duration for s in cycle)
        off = (t - self.start) % period if period else 0.0
        for s in cycle:
            if off < s.duration:
                return s.put, s.get
            off -= s.duration
        return cycle[-1].put, cycle[-1].get

    def advance(self, t: float) -> None:
        """Counters from the last call to t at the workload of the interval's start."""
        dt = t - self.t
        if dt <= 0:
            return
        put, get = self.workload(self.t)
        down, _ = self.down_osds(self.t)
        up = [i for i in range(self.spec.osds) if i not in down] or [0]
        # Fewer OSDs serve the same requests a little slower: the study's drop for a share down [004].
        served = 1.0 - 1.25 * len(down) / self.spec.osds
        put, get = put * served, get * served
        for i in up:
            weight = 0.9 + 0.2 * ((i * 104729) % 100) / 100
            self.osd_ops[i][0] += get * synth.EC_K / len(up) * weight * dt
            self.osd_ops[i][1] += put * (synth.EC_K + synth.EC_M) / len(up) * weight * dt
        for r in self.rgw_ops:
            r[0] += get / self.spec.rgws * dt
            r[1] += put / self.spec.rgws * dt
        self.t = t

    def move_to(self, t: float) -> None:
        self.advance(t)
        self.now = t
        frac = self.frac(t)
        spec = self.spec
        for i in range(spec.osds):
            self.fill[i] = lerp(spec.fill, frac) + 0.01 * (((i * 7919) % 21) - 10) / 10
        self.nearfull = {i for i, f in self.fill.items() if f >= 0.85}
        spilled = round(lerp(spec.spilled_osds, frac))
        self.spilled = set(self.spill_order[:spilled])
        per_osd = lerp(spec.spilled_bytes, frac)
        for i in range(spec.osds):
            self.slow_used[i] = int(per_osd) if i in self.spilled else 0
            self.db_used[i] = int(spec.db_bytes * (0.9 if i in self.spilled else 0.3 + 0.001 * frac))

    # --- the answers -----------------------------------------------------------------

    def host_of(self, osd: int) -> str:
        return f"ceph-node-{osd // self.spec.osds_per_node + 1:02d}"

    def osd_counters(self, i: int, uptime: float) -> dict[str, float]:
        c = super().osd_counters(i, 0.0)
        r, w = self.osd_ops[i]
        c.update(
            db_total_bytes=float(self.spec.db_bytes),
            db_used_bytes=float(self.db_used[i]),
            slow_used_bytes=float(self.slow_used[i]),
            op_r=float(int(r)),
            op_w=float(int(w)),
            op_r_latency_count=float(int(r)),
            op_r_latency_sum=int(r) * GET_LATENCY,
            op_w_latency_count=float(int(w)),
            op_w_latency_sum=int(w) * PUT_LATENCY,
        )
        return c

    def rgw_counters(self, n: int, uptime: float) -> dict[str, float]:
        c = super().rgw_counters(n, 0.0)
        get, put = (int(v) for v in self.rgw_ops[n])
        c.update(
            get=float(get),
            get_b=float(get * synth.OBJECT_BYTES),
            get_initial_lat_count=float(get),
            get_initial_lat_sum=get * GET_LATENCY,
            put=float(put),
            put_b=float(put * synth.OBJECT_BYTES),
            put_initial_lat_count=float(put),
            put_initial_lat_sum=put * PUT_LATENCY,
            req=float(put + get),
        )
        return c

    def osd_df(self) -> dict:
        out = super().osd_df()
        down, _ = self.down_osds(self.now)
        for node in out["nodes"]:
            if node["id"] in down:
                node["status"] = "down"
        return out

    def osd_dump(self) -> dict:
        out = super().osd_dump()
        down, noout = self.down_osds(self.now)
        marked_out = set() if noout else self.out_osds(self.now)
        for osd in out["osds"]:
            if osd["osd"] in down:
                osd["up"], osd["state"] = 0, ["exists"]
                osd["in"] = 0 if osd["osd"] in marked_out else 1
        if noout:
            out["flags"] += ",noout"
            out["flags_set"] = sorted(out["flags_set"] + ["noout"])
        return out

    def scrub_stamps(self, k: int, t: float) -> tuple[float, float]:
        """(last scrub, last deep scrub) of PG k at t."""
        spec = self.spec
        if spec.scrub_window is not None:  # weekly, each PG on its night, in the night's window
            start_hour, hours = spec.scrub_window
            day = math.floor((t - start_hour * HOUR) / DAY)
            offset = start_hour * HOUR + (k // 7) / max(1, len(self.pg_ids) // 7 + 1) * hours * HOUR
            last = (day - ((day - k) % 7)) * DAY + offset
            if last > t:
                last -= 7 * DAY
            rolling = last
        else:
            phase = (k * 7919.0) % ROLLING_SCRUB
            rolling = t - ((t + phase) % ROLLING_SCRUB)
        return (
            min(rolling, self.held_back(k, spec.overdue_scrub, synth.SCRUB_OVERDUE)),
            min(rolling, self.held_back(k, spec.overdue_deep, synth.DEEP_OVERDUE)),
        )

    def held_back(self, k: int, overdue: tuple[int, int], limit: float) -> float:
        """The stamp PG k keeps when the backlog holds it: it turns overdue when the backlog's
        count, growing linearly over the span, reaches it; never, when it does not."""
        first, last = overdue
        if k < first:
            return self.start - limit - HOUR - k
        if k >= last or last == first:
            return math.inf
        return self.start + self.span * (k - first + 1) / (last - first) - limit

    def pg_dump(self) -> dict:
        down, _ = self.down_osds(self.now)
        stats = []
        base = self.pg_template
        for k, pgid in enumerate(self.pg_ids):
            scrub, deep = self.scrub_stamps(k, self.now)
            pg = dict(base)
            state = "active+clean"
            if down and k % self.spec.nodes == 0:
                state = "active+undersized+degraded"
            elif self.now - deep < SCRUBBING_FOR:
                state = "active+clean+scrubbing+deep"
            pg.update(
                pgid=pgid,
                state=state,
                last_scrub_stamp=synth.stamp(scrub),
                last_clean_scrub_stamp=synth.stamp(scrub),
                last_deep_scrub_stamp=synth.stamp(deep),
            )
            stats.append(pg)
        return {"pg_ready": True, "pg_stats": stats}

    def overdue_counts(self) -> tuple[int, int]:
        scrub = deep = 0
        for k in range(len(self.pg_ids)):
            s, d = self.scrub_stamps(k, self.now)
            scrub += self.now - s > synth.SCRUB_OVERDUE
            deep += self.now - d > synth.DEEP_OVERDUE
        return scrub, deep

    def health(self) -> dict:
        counts = self.overdue_counts()
        self.scrub_counts = lambda: counts  # type: ignore[method-assign]
        out = super().health_detail()
        keep = {
            "BLUEFS_SPILLOVER": bool(self.spilled),
            "OSD_NEARFULL": bool(self.nearfull),
            "POOL_NEARFULL": bool(self.nearfull),
            "PG_NOT_SCRUBBED": counts[0] > 0,
            "PG_NOT_DEEP_SCRUBBED": counts[1] > 0,
        }
        out["checks"] = {k: v for k, v in out["checks"].items() if keep.get(k, True)}
        down, noout = self.down_osds(self.now)
        if down:
            out["checks"]["OSD_DOWN"] = {
                "detail": [{"message": f"osd.{i} is down"} for i in sorted(down)],
                "muted": False,
                "severity": "HEALTH_WARN",
                "summary": {"count": len(down), "message": f"{len(down)} osds down"},
            }
        if noout:
            out["checks"]["OSDMAP_FLAGS"] = {
                "detail": [],
                "muted": False,
                "severity": "HEALTH_WARN",
                "summary": {"count": 1, "message": "noout flag(s) set"},
            }
        out["status"] = "HEALTH_WARN" if out["checks"] else "HEALTH_OK"
        return out

    def shards_of(self, b: int, t: float) -> tuple[int, bool]:
        """(num_shards, resharded) of bucket b at t: its last reshard's, or the default."""
        shards, resharded = synth.DEFAULT_SHARDS, False
        for e in self.spec.events:
            if e.kind == "reshard" and e.bucket == b and e.at + e.duration <= t - self.start:
                shards, resharded = e.shards, True
        return shards, resharded

    def bucket_stats(self) -> list[dict[str, Any]]:
        out = []
        per_bucket = self.spec.bucket_objects
        for b in range(self.spec.buckets):
            shards, resharded = self.shards_of(b, self.now)
            bucket = copy.deepcopy(self.bucket_template)
            marker = f"{synth.ZONE}.{self.rgw_list[b % self.spec.rgws][1]}.{b + 1}"
            objects = int(per_bucket * (1 + 0.002 * self.frac(self.now)))
            bucket.update(
                bucket=self.bucket_name(b),
                id=f"{marker}.{shards}" if resharded else marker,
                marker=marker,
                num_shards=shards,
                master_ver=",".join(f"{s}#0" for s in range(shards)),
                max_marker=",".join(f"{s}#" for s in range(shards)),
                ver=",".join(f"{s}#1" for s in range(shards)),
            )
            bucket["usage"]["rgw.main"].update(num_objects=objects, size=objects * synth.OBJECT_BYTES)
            out.append(bucket)
        return out

    def reshard_queue(self) -> list[dict[str, Any]]:
        out = []
        for e in self.spec.events:
            if e.kind == "reshard" and e.at <= self.now - self.start < e.at + e.duration:
                entry = dict(self.reshard_template)
                entry.update(
                    bucket_id=f"{synth.ZONE}.{self.rgw_list[e.bucket % self.spec.rgws][1]}.{e.bucket + 1}",
                    bucket_name=self.bucket_name(e.bucket),
                    old_num_shards=self.shards_of(e.bucket, self.start + e.at)[0],
                    tentative_new_num_shards=e.shards,
                    time=synth.stamp_z(self.start + e.at),
                )
                out.append(entry)
        return out

    def answers(self, t: float, pgs: bool) -> dict[str, Any]:
        """Each parser input at t (the pg dump only when `pgs`: its source is read less often)."""
        self.move_to(t)
        out: dict[str, Any] = {
            "osd df": self.osd_df(),
            "osd dump": self.osd_dump(),
            "osd metadata": self.osd_metadata(),
            "df": self.df_detail(),
            "perf counters": self.mgr_prometheus_text(),
            "config get": self.config_get(),
            "health": self.health(),
            "bucket stats": self.bucket_stats(),
            "reshard list": self.reshard_queue(),
        }
        if pgs:
            out["pg dump"] = self.pg_dump()
        return out
