"""The sections of `ceph scale status`, one per study signal and one for the degraded state:
each reads the derived families through a View and says, in lines and in data, where the
signal stands and which OSDs, pools or buckets lead it (the offenders, worst first)."""

from __future__ import annotations

from typing import Any

from .view import View, duration, number, pct, size


def _section(status: str, lines: list[str], data: dict, offenders: list[dict]) -> dict:
    return {"status": status, "lines": lines, "data": data, "offenders": offenders}


def _status(has_data: bool, warn: bool) -> str:
    if not has_data:
        return "NO DATA"
    return "WARN" if warn else "OK"


def spillover(v: View, checks: dict, top: int) -> dict:
    if not v.has("bluefs_db_osds"):
        return _section("NO DATA", ["no BlueFS counters yet (source perf)"], {}, [])
    db_osds = v.value("bluefs_db_osds") or 0
    spilling = v.value("bluefs_spillover_osds") or 0
    total = v.value("cluster_bluefs_spilled_bytes") or 0
    below = v.value("bluefs_db_share_below_min_osds") or 0
    minimum = v.config("bluefs_db_share_min_ratio", 0.04)
    spilled = v.by_label("bluefs_spilled_bytes", "ceph_daemon")
    used = v.by_label("bluefs_db_used_bytes", "ceph_daemon")
    dbsize = v.by_label("bluefs_db_size_bytes", "ceph_daemon")
    usable = v.by_label("bluefs_db_usable_bytes", "ceph_daemon")
    share = v.by_label("bluefs_db_share_ratio", "ceph_daemon")
    eta = v.by_label("bluefs_db_next_level_seconds", "ceph_daemon")
    lines = [
        f"{number(spilling)} of {number(db_osds)} OSDs with a DB device spill onto the slow device, "
        f"{size(total)} in total",
        f"{number(below)} OSD(s) with a DB share below {pct(minimum)} of the data device",
    ]
    offenders: list[dict[str, Any]] = []
    for daemon, b in sorted(spilled.items(), key=lambda kv: (-kv[1], kv[0])):
        if b <= 0:
            continue
        offenders.append(
            {
                "ceph_daemon": daemon,
                "spilled_bytes": b,
                "db_size_bytes": dbsize.get(daemon),
                "db_used_bytes": used.get(daemon),
                "db_usable_bytes": usable.get(daemon),
                "db_share_ratio": share.get(daemon),
            }
        )
    for o in offenders[:top]:
        lines.append(
            f"  {o['ceph_daemon']}: {size(o['spilled_bytes'])} spilled; DB {size(o['db_size_bytes'] or 0)}, "
            f"{size(o['db_used_bytes'] or 0)} used, {size(o['db_usable_bytes'] or 0)} usable by whole levels"
        )
    soon = sorted((s, d) for d, s in eta.items() if s > 0)
    for s, d in soon[:top]:
        lines.append(f"  {d}: DB use passes its usable size in {duration(s)}")
    for d, r in sorted(share.items(), key=lambda kv: kv[1])[:top]:
        if r < minimum:
            lines.append(f"  {d}: DB share {pct(r)} (< {pct(minimum)})")
    warn = bool(spilling) or "SCALE_DB_SHARE_LOW" in checks or "SCALE_BLUEFS_SPILL_SOON" in checks
    data: dict[str, Any] = {
        "db_osds": db_osds,
        "spillover_osds": spilling,
        "spilled_bytes": total,
        "db_share_below_min_osds": below,
    }
    return _section(_status(True, warn), lines, data, offenders)


def fill(v: View, checks: dict, top: int) -> dict:
    target = v.config("fill_target_ratio", 0.8)
    lines: list[str] = []
    data: dict[str, Any] = {"target_ratio": target}
    used = v.value("cluster_used_ratio")
    if used is not None:
        headroom = v.value("cluster_fill_headroom_bytes", threshold="target")
        eta = v.value("cluster_fill_seconds_to_threshold", threshold="target")
        data.update({"cluster_used_ratio": used, "cluster_headroom_bytes": headroom, "cluster_seconds_to_target": eta})
        if used >= target:
            lines.append(
                f"cluster {pct(used)} used: {pct(used - target)} ({size(-(headroom or 0))} raw) "
                f"past the {pct(target)} target"
            )
        else:
            when = "not filling" if eta is None else f"reached in {duration(eta)} at the current fill rate"
            lines.append(
                f"cluster {pct(used)} used: {pct(target - used)} ({size(headroom or 0)} raw) "
                f"below the {pct(target)} target; target {when}"
            )
    fullest = v.samples("osd_fullest_used_ratio")
    if fullest:
        labels, r = fullest[0]
        data["fullest_osd"] = {"ceph_daemon": labels["ceph_daemon"], "used_ratio": r}
        lines.append(f"fullest OSD {labels['ceph_daemon']} at {pct(r)}: it fills first")
    etas = {lb["pool_id"]: val for lb, val in v.samples("pool_fill_seconds_to_target")}
    pools = sorted(v.samples("pool_used_ratio"), key=lambda s: (-s[1], s[0]["pool_id"]))
    offenders: list[dict[str, Any]] = []
    for labels, r in pools:
        offenders.append(
            {
                "pool_id": labels["pool_id"],
                "name": labels.get("name", ""),
                "used_ratio": r,
                "seconds_to_target": etas.get(labels["pool_id"]),
            }
        )
    if offenders:
        lines.append("pools, fullest first:")
        for o in offenders[:top]:
            eta = o["seconds_to_target"]
            lines.append(
                f"  {o['name']} (id {o['pool_id']}): {pct(o['used_ratio'])} used"
                + ("" if eta is None else f", target in {duration(eta)}")
            )
    osds = sorted(v.by_label("osd_used_ratio", "ceph_daemon").items(), key=lambda kv: (-kv[1], kv[0]))
    data["osds_near_target"] = sum(1 for _, r in osds if r >= target - 0.05)
    has = used is not None or bool(pools) or bool(osds)
    if not has:
        lines = ["no capacity data yet (sources capacity, osd_map)"]
    return _section(_status(has, "SCALE_FILL_HEADROOM" in checks), lines, data, offenders)


def reshard(v: View, checks: dict, top: int) -> dict:
    has_buckets = v.has("rgw_buckets")
    has_queue = v.has("rgw_reshard_queued")
    has_events = v.has("rgw_reshard_events")
    if not (has_buckets or has_queue or has_events):
        return _section("NO DATA", ["no RGW data (sources buckets, reshard): see `Sources` below"], {}, [])
    events = v.value("rgw_reshard_events")
    data: dict[str, Any] = {
        "buckets": v.value("rgw_buckets"),
        "objects": v.value("rgw_objects"),
        "reshard_events": events,
        "reshard_queued": v.value("rgw_reshard_queued"),
        "reshard_in_progress": v.value("rgw_reshard_in_progress"),
        "buckets_near_reshard": v.value("rgw_buckets_near_reshard"),
        "buckets_over_shard_limit": v.value("rgw_buckets_over_shard_limit"),
        "max_objs_per_shard": v.config("rgw_max_objs_per_shard"),
    }
    lines = []
    if has_buckets:
        lines.append(
            f"{number(data['buckets'] or 0)} buckets, {number(data['objects'] or 0)} objects; "
            f"{number(data['buckets_near_reshard'] or 0)} near the per-shard limit of "
            f"{number(data['max_objs_per_shard'] or 0)}, {number(data['buckets_over_shard_limit'] or 0)} at it"
        )
    if events is not None:
        lines.append(f"{number(events)} completed reshard(s) seen")
    if v.has("rgw_bucket_poll_last_reads"):
        # What watching costs the cluster, and whether the bucket poll keeps up (docs/cluster-cost.md).
        data["bucket_poll"] = {
            "last_reads": v.value("rgw_bucket_poll_last_reads"),
            "budget_reads": v.value("rgw_bucket_poll_budget_reads"),
            "overdue": v.value("rgw_bucket_stats_overdue"),
            "unread": v.value("rgw_bucket_stats_unread"),
            "oldest_stats_age_seconds": v.value("rgw_bucket_stats_oldest_age_seconds"),
        }
        poll = data["bucket_poll"]
        oldest = poll["oldest_stats_age_seconds"]
        lines.append(
            f"bucket poll: {number(poll['last_reads'] or 0)} RADOS reads of {number(poll['budget_reads'] or 0)} "
            f"budgeted; oldest stats {duration(oldest) if oldest is not None else 'none yet'}; "
            f"{number(poll['overdue'] or 0)} bucket(s) overdue, {number(poll['unread'] or 0)} not read yet"
        )
    if has_queue:
        lines.append(
            f"reshard queue: {number(data['reshard_queued'] or 0)} queued, "
            f"{number(data['reshard_in_progress'] or 0)} in progress"
        )
    objects = {(lb["tenant"], lb["bucket"]): val for lb, val in v.samples("rgw_top_bucket_objects")}
    shards = {(lb["tenant"], lb["bucket"]): val for lb, val in v.samples("rgw_top_bucket_shards")}
    rec = {(lb["tenant"], lb["bucket"]): val for lb, val in v.samples("rgw_top_bucket_recommended_shards")}
    offenders: list[dict[str, Any]] = []
    for labels, f in sorted(v.samples("rgw_top_bucket_shard_fill_ratio"), key=lambda s: -s[1]):
        key = (labels["tenant"], labels["bucket"])
        offenders.append(
            {
                "bucket": key[1],
                "tenant": key[0],
                "shard_fill_ratio": f,
                "objects": objects.get(key),
                "shards": shards.get(key),
                "recommended_shards": rec.get(key),
            }
        )
    if offenders:
        lines.append("buckets by objects per shard, fullest first:")
        for o in offenders[:top]:
            name = f"{o['tenant']}/{o['bucket']}" if o["tenant"] else o["bucket"]
            lines.append(
                f"  {name}: {pct(o['shard_fill_ratio'])} of the limit, {number(o['objects'] or 0)} objects in "
                f"{number(o['shards'] or 0)} shard(s); recommended {number(o['recommended_shards'] or 0)} shards"
            )
    soonest = sorted(v.samples("rgw_bucket_reshard_seconds"), key=lambda s: (s[1], s[0]["tenant"], s[0]["bucket"]))
    data["expected_to_reshard_next"] = [
        {"bucket": lb["bucket"], "tenant": lb["tenant"], "seconds": val} for lb, val in soonest
    ]
    if soonest:
        lines.append("expected to reshard next, at their own object growth:")
        for labels, seconds in soonest[:top]:
            name = f"{labels['tenant']}/{labels['bucket']}" if labels["tenant"] else labels["bucket"]
            lines.append(f"  {name}: " + ("at the limit now" if seconds <= 0 else f"in {duration(seconds)}"))
    warn = "SCALE_RESHARD_SOON" in checks or bool(data["reshard_queued"]) or bool(v.value("rgw_bucket_stats_overdue"))
    return _section(_status(True, warn), lines, data, offenders)


def scrub(v: View, checks: dict, top: int) -> dict:
    if not v.has("pgs"):
        return _section("NO DATA", ["no PG data yet (source pgs)"], {}, [])
    total = v.value("pgs") or 0
    lines = [f"{number(total)} PGs"]
    data: dict[str, Any] = {"pgs": total}
    offenders: list[dict[str, Any]] = []
    for kind in ("deep_scrub", "scrub"):
        n = v.value("pg_scrub_overdue", kind=kind) or 0
        ratio = v.value("pg_scrub_overdue_ratio", kind=kind) or 0
        oldest = v.value("pg_scrub_oldest_age_seconds", kind=kind)
        after = v.value("pg_scrub_overdue_after_seconds", kind=kind)
        now = v.value("pg_scrubbing", kind=kind) or 0
        clear = v.value("pg_scrub_backlog_clear_seconds", kind=kind)
        done = v.value("pg_scrubs_completed", kind=kind)
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
            f"{label}: {number(n)} overdue ({pct(ratio)}), oldest stamp {duration(oldest or 0)} old "
            f"(overdue after {duration(after or 0)}), {number(now)} running, backlog clears in: {clear_text}"
        )
    offenders.sort(key=lambda e: (-(e["backlog_clear_seconds"] or 0), -e["overdue"]))
    warn = "SCALE_SCRUB_BACKLOG" in checks or bool(offenders)
    return _section(_status(True, warn), lines, data, offenders)


def load(v: View, checks: dict, top: int) -> dict:
    hdds = v.value("hdd_osds")
    if not v.has("s3_ops_per_second") and not v.has("osd_ops_per_second"):
        return _section("NO DATA", ["no op rates yet (source perf; rates need two samples)"], {"hdd_osds": hdds}, [])
    ops = v.by_label("s3_ops_per_second", "op")
    per_hdd = v.by_label("s3_ops_per_hdd_osd", "op")
    ratios = {(lb["op"], lb["unit"]): val for lb, val in v.samples("s3_load_ratio")}
    headroom = v.by_label("s3_ops_headroom_per_second", "op")
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
            f"{ratios[('mixed', 'ops')]:.2f} x the baseline (60 PUT / 90 GET); bytes: PUT "
            f"{ratios.get(('put', 'bytes'), 0):.2f} x, GET {ratios.get(('get', 'bytes'), 0):.2f} x"
        )
        lines.append(f"headroom: {headroom.get('put', 0):.0f} more PUT/s or {headroom.get('get', 0):.0f} more GET/s")
    hot = sorted(v.by_label("osd_hotspot_ratio", "ceph_daemon").items(), key=lambda kv: (-kv[1], kv[0]))
    offenders = [{"ceph_daemon": d, "hotspot_ratio": r} for d, r in hot]
    if hot:
        count = v.value("osd_hotspots") or 0
        lines.append(f"{number(count)} hot OSD(s) above {v.config('osd_hotspot_ratio', 2.0):g} x the mean; busiest:")
        for o in offenders[:top]:
            lines.append(f"  {o['ceph_daemon']}: {o['hotspot_ratio']:.2f} x the mean op rate")
    return _section(_status(True, "SCALE_LOAD_ABOVE_BASELINE" in checks), lines, data, offenders)


def degraded(v: View) -> dict:
    down = v.value("osds_down_ratio")
    if down is None:
        return _section("NO DATA", ["no OSD map yet"], {}, [])
    drop = v.by_label("degraded_expected_drop_ratio", "op")
    lines = [
        f"{pct(down)} of HDD OSDs down: expected S3 throughput drop {pct(drop.get('put', 0))} PUT, "
        f"{pct(drop.get('get', 0))} GET (study table)"
    ]
    return _section("WARN" if down > 0 else "OK", lines, {"osds_down_ratio": down, "expected_drop": drop}, [])


def plunge(v: View, checks: dict, top: int) -> dict:
    if not v.has("s3_plunge_active"):
        return _section("NO DATA", ["no S3 op counters yet (source perf)"], {}, [])
    active = bool(v.value("s3_plunge_active"))
    drop = v.by_label("s3_plunge_drop_ratio", "op")
    demand = v.by_label("s3_plunge_demand_ratio", "op")
    scores = sorted(v.by_label("s3_plunge_cause_score", "cause").items(), key=lambda kv: (-kv[1], kv[0]))
    info = [lb for lb, _ in v.samples("s3_plunge_info")]
    counts = {c: n for c, n in v.by_label("s3_plunges_total", "cause").items() if n}
    demand_drops = v.value("s3_demand_drops_total") or 0
    ops = ", ".join(f"{op.upper()} {pct(d)}" for op, d in sorted(drop.items(), reverse=True))
    lines = []
    if not drop:
        lines.append("no baseline yet (it takes three windows of plunge_window_seconds)")
    elif active:
        held = ", ".join(f"{op.upper()} {pct(d)}" for op, d in sorted(demand.items(), reverse=True))
        lines.append(f"PLUNGE: S3 ops below their recent baseline by {ops}; the clients' demand held ({held} of it)")
    elif v.value("s3_demand_drop_active"):
        lines.append(f"S3 ops below their recent baseline by {ops}: the clients asked less, no cluster fault")
    else:
        lines.append(f"no plunge: S3 ops against their recent baseline: {ops} below")
    if info:
        cause, evidence = info[0]["cause"], info[0]["evidence"]
        when = "likely cause" if active else "the plunge just over: likely cause"
        lines.append(f"{when}: {'no known cause' if cause == 'none' else cause} ({evidence})")
        for cause, score in scores[:top]:
            lines.append(f"  {cause}: score {score:.2f}")
    told = ", ".join(f"{c} {number(n)}" for c, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    lines.append(f"plunges counted: {told or 'none'}; drops the clients made: {number(demand_drops)}")
    data = {
        "active": active,
        "drop_ratio": drop,
        "demand_ratio": demand,
        "likely_cause": info[0] if info else None,
        "cause_scores": dict(scores),
        "plunges": counts,
        "demand_drops": demand_drops,
    }
    offenders = [{"cause": c, "score": sc} for c, sc in scores]
    return _section(_status(True, active), lines, data, offenders)
