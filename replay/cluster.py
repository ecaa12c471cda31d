"""One simulated cluster's answers at a time `t`, in the JSON shapes Ceph returns.

The shapes are bench.synth's (each checked key by key against the Pacific fixtures by
tests/bench/test_synth.py), or a newer release's (replay/release_shapes.py); this class moves
the state they are built from along the scenario's timeline: fill, spillover, scrub stamps,
OSDs down, the S3 workload's counters, reshards. `answers(t)` gives each registered parser
input (ceph_scale.core.registry) as `json.loads` would return it.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from bench import synth
from replay import release_shapes
from replay.buckets import BucketIndexes
from replay.pgs import PgStates
from replay.s3 import BucketCounts, S3Traffic
from replay.scenario import Cluster, Event

DOWN_OUT_INTERVAL = 600.0  # mon_osd_down_out_interval: a down OSD is marked out after 10 minutes
SERVED_SLICE = 10.0  # seconds: the resolution of a stall within a step (a reshard may last 3 minutes)


def lerp(pair: tuple[float, float], frac: float) -> float:
    return pair[0] + (pair[1] - pair[0]) * frac


class SimCluster(PgStates, synth.Synth):
    """`spec` at times from `start` on (unix seconds), over a span of `span` seconds."""

    def __init__(self, spec: Cluster, start: float, span: float) -> None:
        super().__init__(spec.osds, spec.pgs, spec.pools, spec.buckets, spec.most_rgws)
        self.spec, self.start, self.span = spec, start, span
        self.spilled, self.nearfull = set(), set()
        self.slow_used = {i: 0 for i in range(spec.osds)}
        self.db_used = {i: int(spec.db_bytes * 0.3) for i in range(spec.osds)}
        # Which OSDs spill first, and each PG's place in the backlog: fixed orders.
        self.spill_order = sorted(range(spec.osds), key=lambda i: (i * 7919) % spec.osds)
        self.pg_template = next(iter(synth.Synth(6, 7, 7, 0, 1).iter_pgs()))
        self.pg_ids = [f"{p['id']}.{seq:x}" for p in self.pool_list for seq in range(p["pg_num"])]
        self.bucket_template = next(iter(synth.Synth(6, 7, 7, 1, 1).iter_buckets()))
        # The studies' buckets had no quota; the template is the synthetic state's first owner's
        # bucket, which carries one (bench/synth: every 10th owner's), and every bucket is made from it.
        self.bucket_template["bucket_quota"] = {
            "check_on_raw": False,
            "enabled": False,
            "max_objects": -1,
            "max_size": -1,
            "max_size_kb": 0,
        }
        self.reshard_template = {
            "bucket_id": "",
            "bucket_name": "",
            "new_instance_id": "",
            "old_num_shards": 0,
            "tenant": "",
            "tentative_new_num_shards": 0,
            "time": "",
        }
        self.traffic = S3Traffic(spec.osds, spec.most_rgws)
        self.traffic.hold(*self.workload(start), spec.rgws)
        self.indexes = BucketIndexes(spec, start)
        self.bucket_counts = BucketCounts(spec.buckets) if spec.bucket_counters else None
        self.puts_in_span = self.puts_asked(span)
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

    def puts_asked(self, off: float) -> float:
        """The PUTs the clients asked for from the span's start to offset `off`."""
        cycle = self.spec.workload
        period = sum(s.duration for s in cycle)
        whole, left = divmod(off, period)
        done = whole * sum(s.put * s.duration for s in cycle)
        for s in cycle:
            done += s.put * min(s.duration, left)
            left = max(0.0, left - s.duration)
        return done

    def objects(self, t: float) -> int:
        """Objects per bucket at t: they grow with the PUTs asked."""
        asked = self.puts_asked(t - self.start) / self.puts_in_span if self.puts_in_span else self.frac(t)
        return int(lerp(self.spec.bucket_objects, min(1.0, asked)))

    def served(self, t: float) -> tuple[float, float]:
        """The share of the clients' PUTs and GETs the cluster completes at t: the scenario's pace;
        fewer OSDs serve the same requests a little slower, the study's drop for a share down
        [004]; the writes to a bucket being resharded wait [000]."""
        down, _ = self.down_osds(t)
        share = lerp(self.spec.pace, self.frac(t)) * max(0.0, 1.0 - 1.25 * len(down) / self.spec.osds)
        for e in self.active("scrub_storm", t):
            share *= e.served
        if self.rebuilding(t) > 0:
            share *= min(e.served for e in self.spec.events if e.kind == "power_outage")
        for e in self.active("rebalance", t):
            share *= e.served
        if self.active("power_outage", t):
            return 0.0, 0.0
        resharding = len(self.indexes.running(t)) / max(1, self.spec.buckets)
        return share * (1.0 - resharding), share

    def advance(self, t: float) -> None:
        """Counters from the last call to t at the workload of the interval's start, served at the
        mean of its slices' shares."""
        dt = t - self.t
        if dt <= 0:
            return
        down, _ = self.down_osds(self.t)
        up = [i for i in range(self.spec.osds) if i not in down] or [0]
        slices = max(1, math.ceil(dt / SERVED_SLICE))
        shares = [self.served(self.t + dt * (k + 0.5) / slices) for k in range(slices)]
        put_share, get_share = (sum(s[i] for s in shares) / slices for i in (0, 1))
        self.traffic.serve(dt, *self.workload(self.t), (put_share, get_share), up, self.rgws_at(self.t))
        if self.bucket_counts is not None:
            for k, (_, share) in enumerate(shares):  # the GETs' share: the cluster's pace before a reshard's
                running = self.indexes.running(self.t + dt * (k + 0.5) / slices)
                self.bucket_counts.serve(dt / slices, *self.workload(self.t), share, running)
        self.t = t

    def rgws_at(self, t: float) -> int:
        return self.spec.rgws + sum(
            e.count for e in self.spec.events if e.kind == "add_rgws" and e.at <= t - self.start
        )

    def deleted(self, t: float) -> float:
        """The fill the rebalances took away by t: each one's `fill_drop`, linearly over its `for`."""
        off = t - self.start
        return sum(
            e.fill_drop * min(1.0, max(0.0, (off - e.at) / e.duration))
            for e in self.spec.events
            if e.kind == "rebalance"
        )

    def mgr_prometheus_text(self, uptime: float = 0.0) -> str:
        """The RGWs running now: those of the scenario's start and the ones added since."""
        every = self.rgw_list
        self.rgw_list = every[: self.rgws_at(self.now)]
        self.n_rgws = len(self.rgw_list)
        try:
            return super().mgr_prometheus_text(uptime)
        finally:
            self.rgw_list, self.n_rgws = every, len(every)

    def move_to(self, t: float) -> None:
        if self.active("power_outage", t):  # every daemon restarts with its counters at zero
            self.traffic = S3Traffic(self.spec.osds, self.spec.most_rgws)
            self.traffic.hold(*self.workload(t), self.rgws_at(t))
        self.advance(t)
        self.now = t
        self.indexes.update(t, [self.objects(t)] * self.spec.buckets)
        frac = self.frac(t)
        spec = self.spec
        for i in range(spec.osds):
            self.fill[i] = lerp(spec.fill, frac) - self.deleted(t) + 0.01 * (((i * 7919) % 21) - 10) / 10
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
        c.update(
            db_total_bytes=float(self.spec.db_bytes),
            db_used_bytes=float(self.db_used[i]),
            slow_used_bytes=float(self.slow_used[i]),
            **self.traffic.osd_counters(i),
        )
        return c

    def rgw_counters(self, n: int, uptime: float) -> dict[str, float]:
        c = super().rgw_counters(n, 0.0)
        c.update(self.traffic.rgw_counters(n))
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

    def bucket_stats(self) -> list[dict[str, Any]]:
        out = []
        objects = self.objects(self.now)
        for b in range(self.spec.buckets):
            shards, generation = self.indexes.shards[b], self.indexes.generation[b]
            bucket = copy.deepcopy(self.bucket_template)
            marker = f"{synth.ZONE}.{self.rgw_list[b % self.spec.rgws][1]}.{b + 1}"
            bucket.update(
                bucket=self.bucket_name(b),
                id=f"{marker}.{generation}" if generation else marker,
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
        for r in self.indexes.queue():
            entry = dict(self.reshard_template)
            bucket_id = f"{synth.ZONE}.{self.rgw_list[r.bucket % self.spec.rgws][1]}.{r.bucket + 1}"
            generation = self.indexes.generation[r.bucket]
            entry.update(
                bucket_id=f"{bucket_id}.{generation}" if generation else bucket_id,
                bucket_name=self.bucket_name(r.bucket),
                # Set while the reshard thread copies the index: the new instance being built.
                new_instance_id=f"{bucket_id}.{generation + 1}" if r.start is not None and r.start <= self.now else "",
                old_num_shards=r.old_shards,
                tentative_new_num_shards=r.new_shards,
                time=synth.stamp_z(r.queued_at),
            )
            out.append(entry)
        return out

    def bucket_counter(self, rgw: str, bucket: str, counter: str) -> dict[str, list[float]]:
        """The manager's answer to `get_latest_counter('rgw', rgw, 'rgw_op_per_bucket', counter,
        [('bucket', bucket)])`: each RGW counted an equal share of the bucket's ops; a bucket or an
        RGW it does not know, no points (tests/fixtures/tentacle/mgr_get_latest_counter_*)."""
        rgws = [ident for _, ident in self.rgw_list]
        b = int(bucket.rsplit("-", 1)[1]) if bucket.startswith("s3bench-") else -1
        if self.bucket_counts is None or rgw not in rgws or not 0 <= b < self.spec.buckets:
            return {"rgw_op_per_bucket": []}
        put, get = self.bucket_counts.count(b)
        value = (put if counter == "put_obj_ops" else get) // len(rgws)
        return {"rgw_op_per_bucket": [self.now, value]}

    def rgw_counter(self, rgw: str, path: str) -> dict[str, list[float]]:
        """The manager's answer to `get_latest_unlabeled_counter('rgw', rgw, path)` for an RGW's
        own rgw_op.put_obj_ops and get_obj_ops, its totals over all buckets."""
        rgws = [ident for _, ident in self.rgw_list]
        if rgw not in rgws:
            return {path: []}
        counts = self.traffic.rgw[rgws.index(rgw)]
        return {path: [self.now, int(counts.puts if path.endswith("put_obj_ops") else counts.gets)]}

    def incidents(self) -> list[tuple[float, float | None, str]]:
        """(start, end, what) of each stall the span held: the timeline the alerts are judged by."""
        out: list[tuple[float, float | None, str]] = []
        for e in self.spec.events:
            if e.kind == "node_down":
                what = f"node {e.node} down ({self.spec.osds_per_node} OSDs{', noout' if e.noout else ''})"
                out.append((self.start + e.at, self.start + e.at + e.duration, what))
            if e.kind == "power_outage":
                out.append((self.start + e.at, self.start + e.at + e.duration, "power outage: the cluster dark"))
                back = self.start + e.at + e.duration
                out.append((back, back + e.rebuild, f"rebuilding ({e.served:.0%} of the ops served)"))
            if e.kind == "rebalance":
                what = f"old objects deleted, rebalancing ({e.pgs} PGs backfilling, fill -{e.fill_drop:.0%})"
                out.append((self.start + e.at, self.start + e.at + e.duration, what))
            if e.kind == "scrub_storm":
                what = f"deep-scrub storm ({e.pgs} PGs, {e.served:.0%} of the ops served)"
                out.append((self.start + e.at, self.start + e.at + e.duration, what))
        for r in self.indexes.reshards:
            if r.start is not None and r.start < (r.end or r.start):
                what = f"bucket {self.bucket_name(r.bucket)} resharding {r.old_shards} -> {r.new_shards}"
                out.append((r.start, r.end if r.end is not None and r.end <= self.now else None, what))
        return sorted(out, key=lambda i: i[0])

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
        return release_shapes.shaped(out, self.spec.release, self.indexes.generation)
