"""What each source costs the watched cluster, at the synthetic state's scale.

The per-read costs are measured on a real cluster (`python -m bench.cluster_cost`, kept in
bench/cluster_cost.json per release; RADOS ops counted by the RGW's and the producer's own
client counters, RGW's metadata cache cold as at 100,000+ buckets); they are scaled here by
the state's counts (bench/synth/: buckets and their shards, PGs) and each source's default
interval (core/registry.py) and the default thresholds (core/config.py):

- osd_map, capacity, perf, settings, health: the monitors' and the manager's maps, in memory:
  no RADOS op (their CPU is in the cycle figures);
- pgs: no RADOS op; the manager's CPU for `pg dump pgs` (the sidecar) against the module's
  own read of the same PG stats, per PG from two PG counts, times the PGs;
- buckets, as before the bucket poll: one `GET /admin/bucket?stats=true` per poll, one read
  per index shard and the metadata of each bucket; and as now: the bucket poll, whose budget
  (`rgw_bucket_reads_per_second`, at most `rgw_bucket_poll_max_reads` a poll) bounds it, the
  listings spent first at what the poll charges for them (io/admin_ops.py: the costliest
  release's), and the sweep period that budget gives;
- reshard: one omap read per reshard log object (`rgw_reshard_num_logs`, 16) per poll.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ceph_scale.core.bucket_poll import LIST_SHARE
from ceph_scale.core.config import Thresholds
from ceph_scale.core.registry import SOURCE_BY_NAME
from ceph_scale.io.admin_ops import LIST_PAGE, listing_reads

COST_FILE = Path(__file__).resolve().parent / "cluster_cost.json"
TARGET_OPS_PER_SECOND = 0.01 * 17_800  # 1 % of the 10B study's PUT rate [004]
RESHARD_LOGS = 16


def measured(release: str = "pacific") -> dict:
    data = json.loads(COST_FILE.read_text())
    return data[release]


def per_read(m: dict) -> dict[str, float]:
    """The measured unit costs, cold cache (the study-scale case)."""
    cold = m["cold"]
    pages = cold["metadata_bucket_pages"]["pages"] + cold["metadata_bucket.instance_pages"]["pages"]
    return {
        "stats_overhead": cold["one_bucket_stats_11_shards"]["overhead_per_bucket"],
        "full_overhead": cold["full_stats"]["ops_per_bucket_beyond_shards"],
        "list_per_page": (cold["metadata_bucket_pages"]["ops"] + cold["metadata_bucket.instance_pages"]["ops"]) / pages,
        "rgw_ms_per_bucket_11": cold["one_bucket_stats_11_shards"]["ms_per_bucket"],
        "rgw_s_full_per_bucket": cold["full_stats"]["seconds"] / cold["full_stats"]["buckets"],
        "mgr_cpu_per_pg_dump_pg": m["pgs"]["mgr_cpu_per_pg_per_dump"],
        "module_s_per_pg": m["pgs"]["module_seconds_per_pg_per_read"],
    }


def costs(buckets: int, shards: int, pgs: int, m: dict, th: Thresholds | None = None) -> dict:
    """Per source: RADOS ops per poll, per hour, per second; the manager's CPU where it is the cost."""
    th = th or Thresholds()
    unit = per_read(m)
    interval = {name: SOURCE_BY_NAME[name].interval for name in ("pgs", "buckets", "reshard")}
    pages = -(-buckets // LIST_PAGE)
    # What the poll charges its budget for the two listings (the costliest release's per page);
    # the full read lists once itself, at the release's own cost.
    listing: float = listing_reads(pages, pages)
    full = shards + buckets * unit["full_overhead"] + pages * unit["list_per_page"]
    budget = min(th.rgw_bucket_poll_max_reads, th.rgw_bucket_reads_per_second * interval["buckets"])
    # The listings take at most LIST_SHARE of the budget over time (every few polls past it).
    listing = min(listing, LIST_SHARE * th.rgw_bucket_reads_per_second * interval["buckets"])
    poll = budget
    sweep_reads = shards + buckets * unit["stats_overhead"]
    sweep_rate = max(1e-9, poll - listing) / interval["buckets"]
    needed = sweep_reads / th.rgw_bucket_stats_max_age_seconds + listing / interval["buckets"]
    out: dict[str, Any] = {
        "buckets_full_read": _row(full, interval["buckets"]),
        "buckets_poll": _row(poll, interval["buckets"]),
        "reshard": _row(RESHARD_LOGS, interval["reshard"]),
        "pgs": _row(0, interval["pgs"]),
    }
    out["buckets_full_read"]["rgw_seconds"] = buckets * unit["rgw_s_full_per_bucket"]
    out["buckets_poll"].update(
        listing_reads=listing,
        sweep_hours=sweep_reads / sweep_rate / 3600,
        reads_per_second_for_max_age=needed,
        max_age_hours=th.rgw_bucket_stats_max_age_seconds / 3600,
        rgw_seconds=(poll - listing) / (11 + unit["stats_overhead"]) * unit["rgw_ms_per_bucket_11"] / 1000,
    )
    out["pgs"]["mgr_cpu_seconds_pg_dump"] = pgs * unit["mgr_cpu_per_pg_dump_pg"]
    out["pgs"]["mgr_cpu_seconds_module"] = pgs * unit["module_s_per_pg"]
    out["total_ops_per_second"] = sum(out[k]["per_second"] for k in ("buckets_poll", "reshard", "pgs"))
    out["total_ops_per_second_before"] = sum(out[k]["per_second"] for k in ("buckets_full_read", "reshard", "pgs"))
    out["target_ops_per_second"] = TARGET_OPS_PER_SECOND
    out.update(release=m["release"], n_buckets=buckets, n_shards=shards, n_pgs=pgs)
    return out


def _row(per_poll: float, interval: float) -> dict[str, float]:
    return {"per_poll": per_poll, "interval": interval, "per_hour": per_poll * 3600 / interval,
            "per_second": per_poll / interval}  # fmt: skip


def lines(scales: dict[int, dict]) -> list[str]:
    """The report's section: each source's cost to the cluster at each scale."""
    out: list[str] = []
    p = out.append
    first = next(iter(scales.values()))
    p(f"== cost to the watched cluster (per-read costs measured on {first['release']}, bench/cluster_cost.json)")
    for scale, c in scales.items():
        b, f, r, g = c["buckets_poll"], c["buckets_full_read"], c["reshard"], c["pgs"]
        p(f"   {scale}x: {c['n_buckets']:,} buckets, {c['n_shards']:,} index shards, {c['n_pgs']:,} PGs")
        p(f"     buckets, bucket poll: <= {b['per_poll']:,.0f} RADOS reads a poll ({b['listing_reads']:,.0f} of them "
          f"the listings, on average), {b['per_hour']:,.0f}/h, {b['per_second']:.0f}/s; every bucket read again within "
          f"{b['sweep_hours']:.1f} h (stats kept at most {b['max_age_hours']:.0f} h); RGW busy "
          f"{b['rgw_seconds']:.0f} s a poll")  # fmt: skip
        p(f"     buckets, one full stats read a poll (before): {f['per_poll']:,.0f} a poll, {f['per_hour']:,.0f}/h, "
          f"{f['per_second']:,.0f}/s; RGW busy {f['rgw_seconds']:.0f} s a poll")  # fmt: skip
        p(f"     reshard queue: {r['per_poll']:.0f} a poll, {r['per_hour']:,.0f}/h; pgs and the map sources: no RADOS "
          f"read (the monitors' and manager's maps)")  # fmt: skip
        p(
            f"     manager CPU a PG poll (every {g['interval']:.0f} s): `pg dump pgs` for the sidecar "
            f"{g['mgr_cpu_seconds_pg_dump']:.2f} s, the module's own read {g['mgr_cpu_seconds_module']:.2f} s"
        )
        p(f"     total: {c['total_ops_per_second']:.0f} RADOS reads/s ({c['total_ops_per_second_before']:,.0f}/s "
          f"before), target <= {c['target_ops_per_second']:.0f}/s")  # fmt: skip
    return out


def evaluate(scales: dict[int, dict]) -> list[tuple[str, bool, str]]:
    out = []
    for scale, c in scales.items():
        total, target = c["total_ops_per_second"], c["target_ops_per_second"]
        out.append((
            f"RADOS reads on the watched cluster <= 1 % of the study's PUT rate ({target:.0f}/s) at {scale}x",
            total <= target,
            f"{total:.0f}/s ({(total / target - 1) * 100:+.0f} %); {c['total_ops_per_second_before']:,.0f}/s with "
            "one full bucket-stats read a poll",
        ))  # fmt: skip
        sweep, age = c["buckets_poll"]["sweep_hours"], c["buckets_poll"]["max_age_hours"]
        out.append((
            f"every bucket read again within rgw_bucket_stats_max_age_seconds at {scale}x",
            sweep <= age,
            f"{sweep:.1f} h of {age:.0f} h"
            + ("" if sweep <= age else f": needs rgw_bucket_reads_per_second >= "
               f"{c['buckets_poll']['reads_per_second_for_max_age']:.0f}"),
        ))  # fmt: skip
    return out
