"""The sections of `ceph scale status`, one per study signal and one for the degraded state:
each reads its signal's typed judgement (core/signals/results.py) and the thresholds in force,
and says, in lines and in data, where the signal stands and which OSDs, pools or buckets lead it
(the offenders, worst first)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.results import SignalResults

from .view import duration, number, pct, size


@dataclass(frozen=True)
class Judged:
    """What a section reads: the signals' judgements of the last derivation and the thresholds
    it ran with."""

    results: SignalResults
    th: Thresholds


def _section(status: str, lines: list[str], data: dict, offenders: list[dict]) -> dict:
    return {"status": status, "lines": lines, "data": data, "offenders": offenders}


def _count(value: float) -> float:
    """A figure as the JSON report states it: a float as exposed, but a plain 0 for none."""
    return float(value) or 0


def _status(has_data: bool, warn: bool) -> str:
    if not has_data:
        return "NO DATA"
    return "WARN" if warn else "OK"


def spillover(r: Judged, checks: dict, top: int) -> dict:
    spill = r.results.spillover
    if spill is None:
        return _section("NO DATA", ["no BlueFS counters yet (source perf)"], {}, [])
    db_osds = _count(len(spill.osds))
    spilling = _count(spill.spillover_osds)
    total = _count(spill.spilled_bytes)
    below = _count(spill.share_below_min_osds)
    minimum = r.th.bluefs_db_share_min_ratio
    lines = [
        f"{number(spilling)} of {number(db_osds)} OSDs with a DB device spill onto the slow device, "
        f"{size(total)} in total",
        f"{number(below)} OSD(s) with a DB share below {pct(minimum)} of the data device",
    ]
    offenders: list[dict[str, Any]] = []
    for osd in sorted(spill.osds, key=lambda o: (-o.spilled_bytes, o.ceph_daemon)):
        if osd.spilled_bytes <= 0:
            continue
        offenders.append(
            {
                "ceph_daemon": osd.ceph_daemon,
                "spilled_bytes": float(osd.spilled_bytes),
                "db_size_bytes": float(osd.db_size_bytes),
                "db_used_bytes": float(osd.db_used_bytes),
                "db_usable_bytes": float(osd.db_usable_bytes),
                "db_share_ratio": osd.db_share_ratio,
            }
        )
    for o in offenders[:top]:
        lines.append(
            f"  {o['ceph_daemon']}: {size(o['spilled_bytes'])} spilled; DB {size(o['db_size_bytes'] or 0)}, "
            f"{size(o['db_used_bytes'] or 0)} used, {size(o['db_usable_bytes'] or 0)} usable by whole levels"
        )
    soon = sorted((e.seconds, e.ceph_daemon) for e in spill.next_level if e.seconds > 0)
    for s, d in soon[:top]:
        lines.append(f"  {d}: DB use passes its usable size in {duration(s)}")
    shares = [(o.ceph_daemon, o.db_share_ratio) for o in spill.osds if o.db_share_ratio is not None]
    for d, ratio in sorted(shares, key=lambda kv: kv[1])[:top]:
        if ratio < minimum:
            lines.append(f"  {d}: DB share {pct(ratio)} (< {pct(minimum)})")
    warn = bool(spilling) or "SCALE_DB_SHARE_LOW" in checks or "SCALE_BLUEFS_SPILL_SOON" in checks
    data: dict[str, Any] = {
        "db_osds": db_osds,
        "spillover_osds": spilling,
        "spilled_bytes": total,
        "db_share_below_min_osds": below,
    }
    return _section(_status(True, warn), lines, data, offenders)


def fill(r: Judged, checks: dict, top: int) -> dict:
    target = r.th.fill_target_ratio
    judged = r.results.fill
    lines: list[str] = []
    data: dict[str, Any] = {"target_ratio": target}
    cluster = judged.cluster if judged is not None else None
    if cluster is not None:
        used, headroom, eta = cluster.used_ratio, float(cluster.headroom_bytes), cluster.seconds_to_target
        data.update({"cluster_used_ratio": used, "cluster_headroom_bytes": headroom, "cluster_seconds_to_target": eta})
        if used >= target:
            lines.append(
                f"cluster {pct(used)} used: {pct(used - target)} ({size(-headroom)} raw) past the {pct(target)} target"
            )
        else:
            when = "not filling" if eta is None else f"reached in {duration(eta)} at the current fill rate"
            lines.append(
                f"cluster {pct(used)} used: {pct(target - used)} ({size(headroom)} raw) "
                f"below the {pct(target)} target; target {when}"
            )
    fullest = judged.fullest if judged is not None else None
    if fullest is not None:
        data["fullest_osd"] = {"ceph_daemon": fullest.ceph_daemon, "used_ratio": fullest.used_ratio}
        lines.append(f"fullest OSD {fullest.ceph_daemon} at {pct(fullest.used_ratio)}: it fills first")
    pools = sorted(judged.pools if judged is not None else (), key=lambda p: (-p.used_ratio, p.pool_id))
    offenders: list[dict[str, Any]] = [
        {
            "pool_id": p.pool_id,
            "name": p.name,
            "used_ratio": float(p.used_ratio),
            "seconds_to_target": p.seconds_to_target,
        }
        for p in pools
    ]
    if offenders:
        lines.append("pools, fullest first:")
        for o in offenders[:top]:
            seconds = o["seconds_to_target"]
            lines.append(
                f"  {o['name']} (id {o['pool_id']}): {pct(o['used_ratio'])} used"
                + ("" if seconds is None else f", target in {duration(seconds)}")
            )
    osds = judged.osds if judged is not None else ()
    data["osds_near_target"] = sum(1 for o in osds if o.used_ratio >= target - 0.05)
    has = cluster is not None or bool(pools) or bool(osds)
    if not has:
        lines = ["no capacity data yet (sources capacity, osd_map)"]
    return _section(_status(has, "SCALE_FILL_HEADROOM" in checks), lines, data, offenders)


def _maybe(value: float | None) -> float | None:
    return None if value is None else float(value)


def _bucket_name(tenant: str, bucket: str) -> str:
    return f"{tenant}/{bucket}" if tenant else bucket


def reshard(r: Judged, checks: dict, top: int) -> dict:
    judged = r.results.reshard
    if judged is None or (judged.buckets is None and judged.queued is None and judged.events is None):
        return _section("NO DATA", ["no RGW data (sources buckets, reshard): see `Sources` below"], {}, [])
    b = judged.buckets
    data: dict[str, Any] = {
        "buckets": _maybe(b.listed) if b is not None else None,
        "objects": _maybe(b.objects) if b is not None else None,
        "reshard_events": _maybe(judged.events),
        "reshard_queued": _maybe(judged.queued),
        "reshard_in_progress": _maybe(judged.in_progress),
        "buckets_near_reshard": _maybe(b.near) if b is not None else None,
        "buckets_over_shard_limit": _maybe(b.over) if b is not None else None,
        "max_objs_per_shard": float(judged.shard_limit),
    }
    lines = []
    if b is not None:
        lines.append(
            f"{number(b.listed)} buckets, {number(b.objects)} objects; "
            f"{number(b.near)} near the per-shard limit of "
            f"{number(judged.shard_limit)}, {number(b.over)} at it"
        )
    if judged.events is not None:
        lines.append(f"{number(judged.events)} completed reshard(s) seen")
    poll = r.results.bucket_watch
    if poll is not None:
        # What watching costs the cluster, and whether the bucket poll keeps up (docs/cluster-cost.md).
        data["bucket_poll"] = {
            "last_reads": float(poll.last_reads),
            "budget_reads": float(poll.budget_reads),
            "overdue": float(poll.overdue),
            "unread": float(poll.unread),
            "oldest_stats_age_seconds": _maybe(poll.oldest_stats_age_seconds),
        }
        oldest = poll.oldest_stats_age_seconds
        lines.append(
            f"bucket poll: {number(poll.last_reads)} RADOS reads of {number(poll.budget_reads)} "
            f"budgeted; oldest stats {duration(oldest) if oldest is not None else 'none yet'}; "
            f"{number(poll.overdue)} bucket(s) overdue, {number(poll.unread)} not read yet"
        )
    if judged.queued is not None:
        lines.append(f"reshard queue: {number(judged.queued)} queued, {number(judged.in_progress or 0)} in progress")
    offenders: list[dict[str, Any]] = [
        {
            "bucket": t.bucket,
            "tenant": t.tenant,
            "shard_fill_ratio": t.shard_fill_ratio,
            "objects": float(t.objects),
            "shards": float(t.shards),
            "recommended_shards": float(t.recommended_shards),
        }
        for t in sorted(b.top if b is not None else (), key=lambda t: -t.shard_fill_ratio)
    ]
    if offenders:
        lines.append("buckets by objects per shard, fullest first:")
        for o in offenders[:top]:
            lines.append(
                f"  {_bucket_name(o['tenant'], o['bucket'])}: {pct(o['shard_fill_ratio'])} of the limit, "
                f"{number(o['objects'])} objects in {number(o['shards'])} shard(s); "
                f"recommended {number(o['recommended_shards'])} shards"
            )
    soonest = sorted(b.next_reshards if b is not None else (), key=lambda e: (e.seconds, e.tenant, e.bucket))
    data["expected_to_reshard_next"] = [{"bucket": e.bucket, "tenant": e.tenant, "seconds": e.seconds} for e in soonest]
    if soonest:
        lines.append("expected to reshard next, at their own object growth:")
        for e in soonest[:top]:
            when = "at the limit now" if e.seconds <= 0 else f"in {duration(e.seconds)}"
            lines.append(f"  {_bucket_name(e.tenant, e.bucket)}: {when}")
    warn = "SCALE_RESHARD_SOON" in checks or bool(judged.queued) or bool(poll is not None and poll.overdue)
    return _section(_status(True, warn), lines, data, offenders)


def scrub(r: Judged, checks: dict, top: int) -> dict:
    judged = r.results.scrub
    if judged is None:
        return _section("NO DATA", ["no PG data yet (source pgs)"], {}, [])
    total = _count(judged.pgs)
    lines = [f"{number(total)} PGs"]
    data: dict[str, Any] = {"pgs": total}
    offenders: list[dict[str, Any]] = []
    for kind, backlog in (("deep_scrub", judged.deep_scrub), ("scrub", judged.scrub)):
        n, ratio = _count(backlog.overdue), _count(backlog.overdue_ratio)
        oldest, after = float(backlog.oldest_age_seconds), float(backlog.overdue_after_seconds)
        now, done = _count(backlog.scrubbing), float(backlog.completed)
        clear = backlog.clear_seconds
        entry: dict[str, Any] = {
            "kind": kind,
            "overdue": n,
            "overdue_ratio": ratio,
            "oldest_age_seconds": oldest,
            "overdue_after_seconds": after,
            "scrubbing": now,
            "completed": done,
            "backlog_clear_seconds": clear,
        }
        data[kind] = entry
        if n:
            offenders.append(entry)
        label = "deep scrub" if kind == "deep_scrub" else "scrub"
        clear_text = "n/a (no rate yet)" if clear is None else ("none" if clear == 0 else duration(clear))
        lines.append(
            f"{label}: {number(n)} overdue ({pct(ratio)}), oldest stamp {duration(oldest)} old "
            f"(overdue after {duration(after)}), {number(now)} running, backlog clears in: {clear_text}"
        )
    offenders.sort(key=lambda e: (-(e["backlog_clear_seconds"] or 0), -e["overdue"]))
    warn = "SCALE_SCRUB_BACKLOG" in checks or bool(offenders)
    return _section(_status(True, warn), lines, data, offenders)


def load(r: Judged, checks: dict, top: int) -> dict:
    judged = r.results.load
    hdds = None if judged is None or judged.hdd_osds is None else float(judged.hdd_osds)
    if judged is None or (judged.s3_ops is None and not judged.osd_rates):
        return _section("NO DATA", ["no op rates yet (source perf; rates need two samples)"], {"hdd_osds": hdds}, [])
    ops = {"put": judged.s3_ops[0], "get": judged.s3_ops[1]} if judged.s3_ops is not None else {}
    h = judged.per_hdd
    per_hdd = {"put": h.put_ops, "get": h.get_ops} if h is not None else {}
    ratios = (
        {
            ("put", "ops"): h.put_ops_ratio,
            ("get", "ops"): h.get_ops_ratio,
            ("put", "bytes"): h.put_bytes_ratio,
            ("get", "bytes"): h.get_bytes_ratio,
            ("mixed", "ops"): h.mixed_ratio,
        }
        if h is not None
        else {}
    )
    headroom = {"put": h.put_headroom, "get": h.get_headroom} if h is not None else {}
    data: dict[str, Any] = {
        "hdd_osds": hdds,
        "s3_ops_per_second": ops,
        "s3_ops_per_hdd_osd": per_hdd,
        "load_ratio": {f"{op}_{unit}": val for (op, unit), val in ratios.items()},
        "headroom_ops_per_second": headroom,
    }
    lines = []
    if ops:
        lines.append(
            f"S3 {ops.get('put', 0):.1f} PUT/s, {ops.get('get', 0):.1f} GET/s over {number(hdds or 0)} up+in HDD OSDs"
        )
    if ("mixed", "ops") in ratios:
        lines.append(
            f"per HDD OSD {per_hdd.get('put', 0):.2f} PUT/s + {per_hdd.get('get', 0):.2f} GET/s = "
            f"{ratios[('mixed', 'ops')]:.2f} x the baseline ({r.th.baseline_put_ops_per_hdd:g} PUT / "
            f"{r.th.baseline_get_ops_per_hdd:g} GET); bytes: PUT "
            f"{ratios.get(('put', 'bytes'), 0):.2f} x, GET {ratios.get(('get', 'bytes'), 0):.2f} x"
        )
        lines.append(f"headroom: {headroom.get('put', 0):.0f} more PUT/s or {headroom.get('get', 0):.0f} more GET/s")
    hot = sorted(((o.ceph_daemon, o.ratio) for o in judged.hotspots), key=lambda kv: (-kv[1], kv[0]))
    offenders = [{"ceph_daemon": d, "hotspot_ratio": ratio} for d, ratio in hot]
    if hot:
        count = _count(judged.hotspot_count)
        lines.append(f"{number(count)} hot OSD(s) above {r.th.osd_hotspot_ratio:g} x the mean; busiest:")
        for o in offenders[:top]:
            lines.append(f"  {o['ceph_daemon']}: {o['hotspot_ratio']:.2f} x the mean op rate")
    return _section(_status(True, "SCALE_LOAD_ABOVE_BASELINE" in checks), lines, data, offenders)


def degraded(r: Judged) -> dict:
    judged = r.results.degraded
    if judged is None:
        return _section("NO DATA", ["no OSD map yet"], {}, [])
    down = judged.down_ratio
    drop = {"put": judged.put_drop_ratio, "get": judged.get_drop_ratio}
    lines = [
        f"{pct(down)} of HDD OSDs down: expected S3 throughput drop {pct(drop['put'])} PUT, "
        f"{pct(drop['get'])} GET (study table)"
    ]
    return _section("WARN" if down > 0 else "OK", lines, {"osds_down_ratio": down, "expected_drop": drop}, [])


def plunge(r: Judged, checks: dict, top: int) -> dict:
    judged = r.results.plunge
    if judged is None:
        return _section("NO DATA", ["no S3 op counters yet (source perf)"], {}, [])
    active, drop, demand = judged.active, judged.drop_ratio, judged.demand_ratio
    scores = sorted(judged.cause_scores, key=lambda kv: (-kv[1], kv[0]))
    likely = judged.likely_cause
    counts = {c: float(n) for c, n in judged.plunges.items() if n}
    ops = ", ".join(f"{op.upper()} {pct(d)}" for op, d in sorted(drop.items(), reverse=True))
    lines = []
    if not drop:
        lines.append("no baseline yet (it takes three windows of plunge_window_seconds)")
    elif active:
        held = ", ".join(f"{op.upper()} {pct(d)}" for op, d in sorted(demand.items(), reverse=True))
        lines.append(f"PLUNGE: S3 ops below their recent baseline by {ops}; the clients' demand held ({held} of it)")
    elif judged.demand_drop:
        lines.append(f"S3 ops below their recent baseline by {ops}: the clients asked less, no cluster fault")
    else:
        lines.append(f"no plunge: S3 ops against their recent baseline: {ops} below")
    if likely is not None:
        when = "likely cause" if active else "the plunge just over: likely cause"
        named = "no known cause" if likely.cause == "none" else likely.cause
        lines.append(f"{when}: {named} ({likely.evidence})")
        for cause, score in scores[:top]:
            lines.append(f"  {cause}: score {score:.2f}")
    told = ", ".join(f"{c} {number(n)}" for c, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    demand_drops = _count(judged.demand_drops)
    lines.append(f"plunges counted: {told or 'none'}; drops the clients made: {number(demand_drops)}")
    data = {
        "active": active,
        "drop_ratio": drop,
        "demand_ratio": demand,
        "likely_cause": {"cause": likely.cause, "evidence": likely.evidence} if likely is not None else None,
        "cause_scores": dict(scores),
        "plunges": counts,
        "demand_drops": demand_drops,
    }
    offenders = [{"cause": c, "score": sc} for c, sc in scores]
    return _section(_status(True, active), lines, data, offenders)
