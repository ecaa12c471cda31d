"""Writes the state into a directory: the files the sources read, the bucket poll's listings, record
offsets and saved state, and manifest.json with the counts the state was built to have."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

from bench.synth.constants import DEEP_OVERDUE, FORMAT, SCRUB_OVERDUE, dumps, stamp

if TYPE_CHECKING:
    from bench.synth.state import Synth


def write_state(s: Synth, out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    small = {
        "osd_df.json": s.osd_df(),
        "osd_dump.json": s.osd_dump(),
        "osd_metadata.json": s.osd_metadata(),
        "df_detail.json": s.df_detail(),
        "config_get.json": s.config_get(),
        "reshard_list.json": s.reshard_list(),
    }
    for name, obj in small.items():
        (out / name).write_text(dumps(obj))
    late_scrub: list[tuple[str, str]] = []
    late_deep: list[tuple[str, str]] = []
    scrub_limit, deep_limit = stamp(s.now - SCRUB_OVERDUE), stamp(s.now - DEEP_OVERDUE)
    with open(out / "pg_dump_pgs.json", "w", encoding="utf-8") as f:
        f.write('{"pg_ready":true,"pg_stats":[')
        for k, pg in enumerate(s.iter_pgs()):
            if k:
                f.write(",")
            f.write(dumps(pg))
            # Same format throughout, so the stamps compare as strings.
            if len(late_scrub) < 50 and pg["last_scrub_stamp"] < scrub_limit:
                late_scrub.append((pg["pgid"], pg["last_scrub_stamp"]))
            if len(late_deep) < 50 and pg["last_deep_scrub_stamp"] < deep_limit:
                late_deep.append((pg["pgid"], pg["last_deep_scrub_stamp"]))
        f.write("]}")
    (out / "health_detail.json").write_text(dumps(s.health_detail(late_scrub, late_deep)))
    (out / "mgr_prometheus_metrics.txt").write_text(s.mgr_prometheus_text())
    objects = 0
    # The bucket poll's view (core/bucket_poll.py): the metadata listings, where each bucket's
    # stats record lies in admin_api_bucket_stats.json (what `GET /admin/bucket?bucket=B&stats=true`
    # answers for it), and the poll's saved state in its sweep (every bucket read within the
    # last three hours, the oldest first).
    offsets, state = [], {}
    owner_objects: dict[int, int] = {}
    with open(out / "admin_api_bucket_stats.json", "wb") as f:
        f.write(b"[")
        for b, bucket in enumerate(s.iter_buckets()):
            if b:
                f.write(b",")
            record = dumps(bucket).encode()
            key = s.bucket_key(b)
            offsets.append([key, bucket["id"], f.tell(), len(record)])
            o = s.owner_of(b)
            owner_objects[o] = owner_objects.get(o, 0) + bucket["usage"].get("rgw.main", {}).get("num_objects", 0)
            f.write(record)
            objects += bucket["usage"].get("rgw.main", {}).get("num_objects", 0)
            read_at = s.now - 3 * 3600 * (1 - b / max(1, s.n_buckets))
            quota = bucket["bucket_quota"]
            state[key] = [
                bucket["id"], "" if bucket["marker"] == bucket["id"] else bucket["marker"], bucket["num_shards"],
                bucket["usage"].get("rgw.main", {}).get("num_objects", 0), round(read_at, 3), 0.0, 0,
                zlib.crc32(bucket["id"].encode()), bucket["creation_time"], bucket["owner"], 0,
                bucket["usage"].get("rgw.main", {}).get("size_actual", 0),
                quota["max_size"] if quota["enabled"] else -1, quota["max_objects"] if quota["enabled"] else -1,
            ]  # fmt: skip
        f.write(b"]")
    (out / "bucket_offsets.json").write_text(dumps(offsets))
    (out / "admin_api_metadata_bucket.json").write_text(dumps([o[0] for o in offsets]))
    (out / "admin_api_metadata_bucket_instance.json").write_text(dumps([f"{o[0]}:{o[1]}" for o in offsets]))
    # Every owner's user quota read within the last day (the poll reads each once a day).
    users_read_at = {s.owner_name(o)[1]: round(s.now - 3600 - o % 3600, 3) for o in sorted(owner_objects)}
    quotas = {}
    for o, n in sorted(owner_objects.items()):
        q = s.user_quota(o, n)
        if q is not None:
            quotas[s.owner_name(o)[1]] = [*q, users_read_at[s.owner_name(o)[1]]]
    poll_state = {"version": 1, "tokens": None, "refilled_at": 0.0, "buckets": state,
                  "users": {"read_at": users_read_at, "quotas": quotas}}  # fmt: skip
    (out / "state.json.buckets").write_text(dumps(poll_state))
    not_scrubbed, not_deep = s.scrub_counts()
    manifest = {
        "params": {
            "format": FORMAT,
            "osds": s.n_osds,
            "pgs": s.n_pgs,
            "pools": s.n_pools,
            "buckets": s.n_buckets,
            "rgws": s.n_rgws,
            "seed": s.seed,
        },
        "now": s.now,
        "expect": {
            "spillover_osds": len(s.spilled),
            "nearfull_osds": len(s.nearfull),
            "pgs_not_scrubbed": not_scrubbed,
            "pgs_not_deep_scrubbed": not_deep,
            "ec_pools": sum(1 for p in s.pool_list if p["ec"]),
            "objects": objects,
            "reshard_queued": len(small["reshard_list.json"]),
            "hosts": s.hosts,
        },
        "files": {p.name: p.stat().st_size for p in sorted(out.iterdir()) if p.name != "manifest.json"},
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest
