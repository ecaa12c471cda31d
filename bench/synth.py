"""Synthetic cluster state at a given scale, in the JSON shapes captured from Pacific.

    python -m bench.synth --out DIR                       # the 10B study cluster (1x)
    python -m bench.synth --scale 10 --out DIR            # every count x10
    python -m bench.synth --osds 318 --pgs 21760 --pools 7 --buckets 100000 --rgws 12 --out DIR

Writes the files the sources read, named as in tests/fixtures/pacific/ and with
exactly their keys (tests/bench/test_synth.py compares them recursively):
osd_df.json, osd_dump.json, osd_metadata.json, df_detail.json, pg_dump_pgs.json,
health_detail.json, config_get.json, mgr_prometheus_metrics.txt (filtered as the
fixture is), admin_api_bucket_stats.json, reshard_list.json, the bucket poll's listings, record
offsets and saved state (admin_api_metadata_bucket*.json, bucket_offsets.json,
state.json.buckets), and manifest.json with
the parameters, the capture time and the counts the state was built to have.

JSON is written compact, as `ceph ... -f json` and the Admin Ops API send it (the
fixtures were re-indented when captured). Seeded: the same arguments give the
same bytes.

The state is the 10B-object study cluster [004, 003, 001]: 6 nodes of 53 x 16 TB
HDD OSDs with ~880 GB NVMe DB each (5.5 %), BlueFS spillover on 296 of 318 OSDs
(L5 does not fit), 13 nearfull OSDs, EC 4+2 data pool holding 10 B x 64 KB
objects (64 KB min_alloc makes it ~6x raw), 21,070 of 21,760 PGs not scrubbed in
time and 19,494 not deep-scrubbed, 100,000 buckets of ~100,000 objects (11 index
shards, Pacific's default) and a few big dynamically resharded ones, 12 RGWs.
At other scales every count keeps the study's proportions.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import zlib
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

STUDY = {"osds": 318, "pgs": 21760, "pools": 7, "buckets": 100_000, "rgws": 12}
FORMAT = 3  # of the files written: a data directory of another format is generated again
# The study's 100,000 buckets across 5,000 owners (issue 29): 20 buckets an owner on average.
BUCKETS_PER_OWNER = 20
TENANT_EVERY = 4  # every 4th owner is a `tenant$user` (its buckets `tenant/name` in the listings)
BUCKET_QUOTA_EVERY = 10  # every 10th owner's buckets carry an enabled bucket quota
USER_QUOTA_EVERY = 10  # ... and every 10th (other) owner has a user quota
# Proportions of the 10B study [004].
SPILLOVER_SHARE = 296 / 318
NEARFULL_SHARE = 13 / 318
NOT_SCRUBBED_SHARE = 21070 / 21760
NOT_DEEP_SCRUBBED_SHARE = 19494 / 21760
OSDS_PER_HOST = 53  # 318 OSDs on 6 nodes
RGWS_PER_HOST = 2

NOW = datetime(2026, 11, 22, 21, 13, 27, 243640, tzinfo=timezone.utc)  # the fixtures' capture time
DAY = 86400.0
TB = 10**12
HDD_BYTES = 16 * TB
DB_BYTES = 880 * 10**9 // 2**20 * 2**20  # 5.5 % of 16 TB, whole MiB
MIN_ALLOC_HDD = 65536
SCRUB_INTERVAL = 7 * DAY  # Ceph's defaults: osd_scrub_max_interval, osd_deep_scrub_interval
DEEP_INTERVAL = 7 * DAY
SCRUB_OVERDUE = SCRUB_INTERVAL * 1.5  # x (1 + mon_warn_pg_not_scrubbed_ratio)
DEEP_OVERDUE = DEEP_INTERVAL * 1.75  # x (1 + mon_warn_pg_not_deep_scrubbed_ratio)
SHARD_LIMIT = 100_000
DEFAULT_SHARDS = 11  # Pacific's bucket_index_max_shards
CEPH_VERSION = "ceph version 16.2.15 (618f440892089921c3e944a991122ddc44e60516) pacific (stable)"
FSID = "5a1c0e7e-10b0-4c3e-9d2a-3f0c5b1a0001"
ZONEGROUP = "b7e3c1d2-4f5a-4e6b-8c7d-9e0f1a2b3c4d"
ZONE = "2c7f9a10-6d3e-4b8a-a1f2-7e5d4c3b2a19"
# One group of 7 pools per zone, as an RGW zone creates them; pg share of each.
POOL_GROUP = (
    ("device_health_metrics", 128 / 21760, "mgr_devicehealth"),
    (".rgw.root", 128 / 21760, "rgw"),
    ("{z}.rgw.log", 512 / 21760, "rgw"),
    ("{z}.rgw.control", 256 / 21760, "rgw"),
    ("{z}.rgw.meta", 256 / 21760, "rgw"),
    ("{z}.rgw.buckets.index", 4096 / 21760, "rgw"),
    ("{z}.rgw.buckets.data", 16384 / 21760, "rgw"),  # EC 4+2, the rest of the PGs
)
EC_K, EC_M = 4, 2
OBJECT_BYTES = 65536


def stamp(t: float) -> str:
    """Pacific's time stamp: 2026-11-22T21:13:27.243640+0000."""
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f+0000")


def stamp_z(t: float) -> str:
    """RGW's: 2026-11-22T21:12:03.957443Z."""
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


class Synth:
    def __init__(self, osds: int, pgs: int, pools: int, buckets: int, rgws: int, seed: int = 1) -> None:
        if osds < 6 or pgs < pools or pools < 1 or rgws < 1 or buckets < 0:
            raise ValueError("need at least 6 OSDs, one pool, one PG per pool, one RGW")
        self.n_osds, self.n_pgs, self.n_pools, self.n_buckets, self.n_rgws = osds, pgs, pools, buckets, rgws
        self.seed = seed
        self.now = NOW.timestamp()
        rng = random.Random(seed)
        self.hosts = max(1, math.ceil(osds / OSDS_PER_HOST))
        self.spilled = set(rng.sample(range(osds), round(osds * SPILLOVER_SHARE)))
        not_spilled = [i for i in range(osds) if i not in self.spilled]
        # The nearfull OSDs among the spilled ones: both findings at once, as at 10B.
        self.nearfull = set(rng.sample(sorted(self.spilled), round(osds * NEARFULL_SHARE)))
        self.fill = {}
        for i in range(osds):
            if i in self.nearfull:
                self.fill[i] = rng.uniform(0.855, 0.885)
            else:
                self.fill[i] = min(0.84, max(0.70, rng.gauss(0.775, 0.02)))
        self.db_used = {}
        self.slow_used = {}
        for i in range(osds):
            if i in self.spilled:  # L1..L4 (284 GB) on flash, L5 spilling
                self.db_used[i] = rng.randint(270, 300) * 10**9
                self.slow_used[i] = rng.randint(2, 90) * 10**9
            else:
                self.db_used[i] = rng.randint(150, 270) * 10**9
                self.slow_used[i] = 0
        del not_spilled
        self.pool_list = self._pools()
        self.rgw_list = [
            (f"rgw.ceph-node-{h + 1:02d}.rgw{k}", str(14250 + 17 * n))
            for n, (h, k) in enumerate((n // RGWS_PER_HOST, n % RGWS_PER_HOST) for n in range(rgws))
        ]
        self.rng = rng

    # --- layout ------------------------------------------------------------------

    def _pools(self) -> list[dict[str, Any]]:
        """[{id, name, pg_num, ec, app}] in groups of seven per zone; PGs split as at 10B."""
        groups = math.ceil(self.n_pools / len(POOL_GROUP))
        out: list[dict[str, Any]] = []
        for g in range(groups):
            zone = "default" if g == 0 else f"zone{g}"
            for name, _, app in POOL_GROUP:
                if len(out) == self.n_pools:
                    break
                n = name.format(z=zone)
                if g and not name.startswith("{z}"):
                    n = f"{zone}{name}" if name.startswith(".") else f"{zone}.{name}"
                out.append({"id": len(out) + 1, "name": n, "ec": name.endswith("buckets.data"), "app": app})
        weights = [POOL_GROUP[i % len(POOL_GROUP)][1] for i in range(len(out))]
        total = sum(weights)
        left = self.n_pgs
        for p, w in zip(out, weights):
            p["pg_num"] = max(1, int(self.n_pgs * w / total))
            left -= p["pg_num"]
        # Rounding goes to the largest (data) pool, so the total is exact.
        biggest = max(out, key=lambda p: p["pg_num"])
        biggest["pg_num"] += left
        if biggest["pg_num"] < 1:
            raise ValueError("too few PGs for this many pools")
        return out

    def host_of(self, osd: int) -> str:
        return f"ceph-node-{osd // OSDS_PER_HOST + 1:02d}"

    def addr(self, osd: int, port: int) -> str:
        h = osd // OSDS_PER_HOST
        return f"10.0.{h}.{10 + h}:{port}"

    def _addrvec(self, osd: int, base: int) -> dict:
        nonce = 1000 + osd
        return {
            "addrvec": [
                {"addr": self.addr(osd, base), "nonce": nonce, "type": "v2"},
                {"addr": self.addr(osd, base + 1), "nonce": nonce, "type": "v1"},
            ]
        }

    # --- osd df / dump / metadata -------------------------------------------------

    def osd_df(self) -> dict:
        nodes = []
        kb = HDD_BYTES // 1024
        pgs_per_osd = round(sum(p["pg_num"] * (EC_K + EC_M if p["ec"] else 3) for p in self.pool_list) / self.n_osds)
        utils = []
        for i in range(self.n_osds):
            used = int(kb * self.fill[i])
            meta = (self.db_used[i] + self.slow_used[i]) // 1024
            omap = used // 2000
            util = used / kb * 100
            utils.append(util)
            nodes.append(
                {
                    "crush_weight": 14.55190658569336,
                    "depth": 2,
                    "device_class": "hdd",
                    "id": i,
                    "kb": kb,
                    "kb_avail": kb - used,
                    "kb_used": used,
                    "kb_used_data": used - meta - omap,
                    "kb_used_meta": meta,
                    "kb_used_omap": omap,
                    "name": f"osd.{i}",
                    "pgs": pgs_per_osd + (i % 7) - 3,
                    "pool_weights": {},
                    "reweight": 1,
                    "status": "up",
                    "type": "osd",
                    "type_id": 0,
                    "utilization": util,
                    "var": 1.0,
                }
            )
        avg = sum(utils) / len(utils)
        for n in nodes:
            n["var"] = n["utilization"] / avg
        dev = math.sqrt(sum((u - avg) ** 2 for u in utils) / len(utils))
        total_used = sum(n["kb_used"] for n in nodes)
        return {
            "nodes": nodes,
            "stray": [],
            "summary": {
                "average_utilization": avg,
                "dev": dev,
                "max_var": max(n["var"] for n in nodes),
                "min_var": min(n["var"] for n in nodes),
                "total_kb": kb * self.n_osds,
                "total_kb_avail": kb * self.n_osds - total_used,
                "total_kb_used": total_used,
                "total_kb_used_data": sum(n["kb_used_data"] for n in nodes),
                "total_kb_used_meta": sum(n["kb_used_meta"] for n in nodes),
                "total_kb_used_omap": sum(n["kb_used_omap"] for n in nodes),
            },
        }

    def _osd_dump_pool(self, p: dict) -> dict:
        ec = p["ec"]
        options: dict = {}
        if p["name"] == "device_health_metrics":
            options = {"pg_num_max": 32, "pg_num_min": 1}
        elif p["name"].endswith((".rgw.meta", ".rgw.buckets.index")):
            options = {"pg_autoscale_bias": 4}
        return {
            "application_metadata": {p["app"]: {}},
            "auid": 0,
            "cache_min_evict_age": 0,
            "cache_min_flush_age": 0,
            "cache_mode": "none",
            "cache_target_dirty_high_ratio_micro": 600000,
            "cache_target_dirty_ratio_micro": 400000,
            "cache_target_full_ratio_micro": 800000,
            "create_time": stamp(self.now - 200 * DAY),
            "crush_rule": 1 if ec else 0,
            "erasure_code_profile": "ec-4-2" if ec else "",
            "expected_num_objects": 0,
            "fast_read": False,
            "flags": 2049 if not ec else 2049 | 4,
            "flags_names": "hashpspool,nearfull" if not ec else "hashpspool,ec_overwrites,nearfull",
            "grade_table": [],
            "hit_set_count": 0,
            "hit_set_grade_decay_rate": 0,
            "hit_set_params": {"type": "none"},
            "hit_set_period": 0,
            "hit_set_search_last_n": 0,
            "last_change": "41210",
            "last_force_op_resend": "0",
            "last_force_op_resend_preluminous": "0",
            "last_force_op_resend_prenautilus": "0",
            "last_pg_merge_meta": {
                "last_epoch_clean": 0,
                "last_epoch_started": 0,
                "ready_epoch": 0,
                "source_pgid": "0.0",
                "source_version": "0'0",
                "target_version": "0'0",
            },
            "min_read_recency_for_promote": 0,
            "min_size": EC_K + 1 if ec else 2,
            "min_write_recency_for_promote": 0,
            "object_hash": 2,
            "options": options,
            "peering_crush_bucket_barrier": 0,
            "peering_crush_bucket_count": 0,
            "peering_crush_bucket_mandatory_member": 2147483647,
            "peering_crush_bucket_target": 0,
            "pg_autoscale_mode": "off",
            "pg_num": p["pg_num"],
            "pg_num_pending": p["pg_num"],
            "pg_num_target": p["pg_num"],
            "pg_placement_num": p["pg_num"],
            "pg_placement_num_target": p["pg_num"],
            "pool": p["id"],
            "pool_name": p["name"],
            "pool_snaps": [],
            "quota_max_bytes": 0,
            "quota_max_objects": 0,
            "read_tier": -1,
            "removed_snaps": "[]",
            "size": EC_K + EC_M if ec else 3,
            "snap_epoch": 0,
            "snap_mode": "selfmanaged",
            "snap_seq": 0,
            "stripe_width": EC_K * 4096 if ec else 0,
            "target_max_bytes": 0,
            "target_max_objects": 0,
            "tier_of": -1,
            "tiers": [],
            "type": 3 if ec else 1,
            "use_gmt_hitset": True,
            "write_tier": -1,
        }

    def osd_dump(self) -> dict:
        osds, xinfo = [], []
        for i in range(self.n_osds):
            osds.append(
                {
                    "cluster_addr": f"{self.addr(i, 6802 + 8 * (i % OSDS_PER_HOST) + 1)}/{1000 + i}",
                    "cluster_addrs": self._addrvec(i, 6802 + 8 * (i % OSDS_PER_HOST)),
                    "down_at": 0,
                    "heartbeat_back_addr": f"{self.addr(i, 6806 + 8 * (i % OSDS_PER_HOST) + 1)}/{1000 + i}",
                    "heartbeat_back_addrs": self._addrvec(i, 6806 + 8 * (i % OSDS_PER_HOST)),
                    "heartbeat_front_addr": f"{self.addr(i, 6804 + 8 * (i % OSDS_PER_HOST) + 1)}/{1000 + i}",
                    "heartbeat_front_addrs": self._addrvec(i, 6804 + 8 * (i % OSDS_PER_HOST)),
                    "in": 1,
                    "last_clean_begin": 0,
                    "last_clean_end": 0,
                    "lost_at": 0,
                    "osd": i,
                    "primary_affinity": 1,
                    "public_addr": f"{self.addr(i, 6800 + 8 * (i % OSDS_PER_HOST) + 1)}/{1000 + i}",
                    "public_addrs": self._addrvec(i, 6800 + 8 * (i % OSDS_PER_HOST)),
                    "state": ["exists", "up"],
                    "up": 1,
                    "up_from": 7 + i,
                    "up_thru": 41000,
                    "uuid": f"{self.seed:08x}-0000-4000-8000-{i:012x}",
                    "weight": 1,
                }
            )
            xinfo.append(
                {
                    "dead_epoch": 0,
                    "down_stamp": "0.000000",
                    "features": 4540138314316775423,
                    "laggy_interval": 0,
                    "laggy_probability": 0,
                    "last_purged_snaps_scrub": stamp(self.now - (i % 86400)),
                    "old_weight": 0,
                    "osd": i,
                }
            )
        return {
            "backfillfull_ratio": 0.8999999761581421,
            "blocklist": {f"10.0.0.10:0/{2000000000 + k}": stamp(self.now + DAY - 3600 * k) for k in range(4)},
            "cluster_snapshot": "",
            "created": stamp(self.now - 210 * DAY),
            "crush_node_flags": {},
            "crush_version": 1200,
            "device_class_flags": {},
            "epoch": 41234,
            "erasure_code_profiles": {
                "default": {"k": "2", "m": "2", "plugin": "jerasure", "technique": "reed_sol_van"},
                "ec-4-2": {"k": str(EC_K), "m": str(EC_M), "plugin": "jerasure", "technique": "reed_sol_van"},
            },
            "flags": "sortbitwise,recovery_deletes,purged_snapdirs,pglog_hardlimit",
            "flags_num": 5799936,
            "flags_set": ["pglog_hardlimit", "purged_snapdirs", "recovery_deletes", "sortbitwise"],
            "fsid": FSID,
            "full_ratio": 0.949999988079071,
            "last_in_change": stamp(self.now - 30 * DAY),
            "last_up_change": stamp(self.now - 30 * DAY),
            "max_osd": self.n_osds,
            "min_compat_client": "jewel",
            "modified": stamp(self.now - 60),
            "nearfull_ratio": 0.8500000238418579,
            "new_purged_snaps": [],
            "new_removed_snaps": [],
            "osd_xinfo": xinfo,
            "osds": osds,
            "pg_temp": [],
            "pg_upmap": [],
            "pg_upmap_items": [],
            "pool_max": len(self.pool_list),
            "pools": [self._osd_dump_pool(p) for p in self.pool_list],
            "primary_temp": [],
            "range_blocklist": {},
            "removed_snaps_queue": [],
            "require_min_compat_client": "luminous",
            "require_osd_release": "pacific",
            "stretch_mode": {
                "degraded_stretch_mode": 0,
                "recovering_stretch_mode": 0,
                "stretch_bucket_count": 0,
                "stretch_mode_bucket": 0,
                "stretch_mode_enabled": False,
            },
        }

    def osd_metadata(self) -> list:
        out = []
        for i in range(self.n_osds):
            host = self.host_of(i)
            slot = i % OSDS_PER_HOST
            disk = f"sd{chr(ord('a') + slot // 26)}{chr(ord('a') + slot % 26)}"
            nvme = f"nvme{slot // 9}n1"
            port = 6800 + 8 * slot

            def a(base: int, i: int = i) -> str:
                return f"[v2:{self.addr(i, base)}/{1000 + i},v1:{self.addr(i, base + 1)}/{1000 + i}]"

            out.append(
                {
                    "arch": "x86_64",
                    "back_addr": a(port + 2),
                    "back_iface": "ens2f1",
                    "bluefs": "1",
                    "bluefs_db_access_mode": "blk",
                    "bluefs_db_block_size": "4096",
                    "bluefs_db_devices": nvme,
                    "bluefs_db_driver": "KernelDevice",
                    "bluefs_db_path": f"/var/lib/ceph/osd/ceph-{i}/block.db",
                    "bluefs_db_rotational": "0",
                    "bluefs_db_size": str(DB_BYTES),
                    "bluefs_db_support_discard": "1",
                    "bluefs_db_type": "ssd",
                    "bluefs_dedicated_db": "1",
                    "bluefs_dedicated_wal": "0",
                    "bluefs_single_shared_device": "0",
                    "bluestore_bdev_access_mode": "blk",
                    "bluestore_bdev_block_size": "4096",
                    "bluestore_bdev_devices": disk,
                    "bluestore_bdev_driver": "KernelDevice",
                    "bluestore_bdev_path": f"/var/lib/ceph/osd/ceph-{i}/block",
                    "bluestore_bdev_rotational": "1",
                    "bluestore_bdev_size": str(HDD_BYTES),
                    "bluestore_bdev_support_discard": "0",
                    "bluestore_bdev_type": "hdd",
                    "bluestore_min_alloc_size": str(MIN_ALLOC_HDD),
                    "ceph_release": "pacific",
                    "ceph_version": CEPH_VERSION,
                    "ceph_version_short": "16.2.15",
                    "ceph_version_when_created": CEPH_VERSION,
                    "container_name": f"ceph-{FSID}-osd-{i}",
                    "cpu": "Intel(R) Xeon(R) Gold 6152 CPU @ 2.10GHz",
                    "created_at": stamp_z(self.now - 200 * DAY + i),
                    "default_device_class": "hdd",
                    "device_ids": f"{disk}=SEAGATE_ST16000NM_ZL{i:06d},{nvme}=INTEL_SSDPE2KE076T8_{slot // 9:04d}",
                    "device_paths": f"{disk}=/dev/disk/by-path/pci-0000:3b:00.0-sas-phy{slot}-lun-0",
                    "devices": f"{disk},{nvme}",
                    "distro": "centos",
                    "distro_description": "CentOS Stream 8",
                    "distro_version": "8",
                    "front_addr": a(port),
                    "front_iface": "ens2f0",
                    "hb_back_addr": a(port + 6),
                    "hb_front_addr": a(port + 4),
                    "hostname": host,
                    "id": i,
                    "journal_rotational": "0",
                    "kernel_description": "#1 SMP Thu Nov 18 19:43:57 UTC 2021",
                    "kernel_version": "4.18.0-348.el8.x86_64",
                    "mem_swap_kb": "0",
                    "mem_total_kb": "394798404",
                    "network_numa_unknown_ifaces": "back_iface,front_iface",
                    "objectstore_numa_unknown_devices": f"{disk},{nvme}",
                    "os": "Linux",
                    "osd_data": f"/var/lib/ceph/osd/ceph-{i}",
                    "osd_objectstore": "bluestore",
                    "osdspec_affinity": "hdd_with_nvme_db",
                    "rotational": "1",
                }
            )
        return out

    # --- df detail ---------------------------------------------------------------

    def df_detail(self) -> dict:
        total = HDD_BYTES * self.n_osds
        used = sum(int(HDD_BYTES // 1024 * self.fill[i]) * 1024 for i in range(self.n_osds))
        avail = total - used
        # What the fullest OSD allows, as Ceph computes max_avail (raw).
        fullest = max(self.fill.values())
        avail_raw = int(self.n_osds * HDD_BYTES * max(0.0, 0.95 - fullest))
        objects = self.n_buckets * 100_000
        data_pools = [p for p in self.pool_list if p["ec"]] or self.pool_list[-1:]
        index_pools = sum(1 for p in self.pool_list if p["name"].endswith("buckets.index")) or 1
        pools = []
        for p in self.pool_list:
            is_data = p in data_pools
            if is_data:
                n_obj = objects // len(data_pools)
                stored = n_obj * OBJECT_BYTES
                # Six 16 KB chunks per 64 KB object, each taking 64 KB of min_alloc [000].
                bytes_used = n_obj * (EC_K + EC_M) * MIN_ALLOC_HDD
                max_avail = avail_raw * EC_K // (EC_K + EC_M)
            elif p["name"].endswith("buckets.index"):
                n_obj = self.n_buckets * DEFAULT_SHARDS // index_pools
                stored, bytes_used = 0, 0
                max_avail = avail_raw // 3
            else:
                n_obj = 200 + p["id"] * 37
                stored = n_obj * 1500
                bytes_used = max(stored * 3, 4096 * 3 * n_obj)
                max_avail = avail_raw // 3
            omap = n_obj * 4096 if p["name"].endswith("buckets.index") else 0
            percent = stored / (stored + max_avail) if stored + max_avail else 0
            pools.append(
                {
                    "id": p["id"],
                    "name": p["name"],
                    "stats": {
                        "avail_raw": avail_raw,
                        "bytes_used": bytes_used + omap * 3,
                        "compress_bytes_used": 0,
                        "compress_under_bytes": 0,
                        "data_bytes_used": bytes_used,
                        "dirty": 0,
                        "kb_used": (bytes_used + omap * 3) // 1024,
                        "max_avail": max_avail,
                        "objects": n_obj,
                        "omap_bytes_used": omap * 3,
                        "percent_used": percent,
                        "quota_bytes": 0,
                        "quota_objects": 0,
                        "rd": n_obj * 3,
                        "rd_bytes": stored * 2,
                        "stored": stored + omap,
                        "stored_data": stored,
                        "stored_omap": omap,
                        "stored_raw": (stored + omap) * ((EC_K + EC_M) / EC_K if is_data else 3),
                        "wr": n_obj,
                        "wr_bytes": stored,
                    },
                }
            )
        stats = {
            "total_avail_bytes": avail,
            "total_bytes": total,
            "total_used_bytes": used,
            "total_used_raw_bytes": used,
            "total_used_raw_ratio": used / total,
        }
        return {
            "pools": pools,
            "stats": {"num_osds": self.n_osds, "num_per_pool_omap_osds": self.n_osds, "num_per_pool_osds": self.n_osds}
            | stats,
            "stats_by_class": {"hdd": dict(stats)},
        }

    # --- pg dump -----------------------------------------------------------------

    def iter_pgs(self) -> Iterator[dict]:
        """Scrub stamps follow Ceph's rule so that exactly the study's shares are overdue."""
        rng = random.Random(self.seed * 1000 + 2)
        n = self.n_pgs
        not_scrubbed = set(rng.sample(range(n), round(n * NOT_SCRUBBED_SHARE)))
        not_deep = set(rng.sample(range(n), round(n * NOT_DEEP_SCRUBBED_SHARE)))
        hour = 3600.0
        k = 0
        for p in self.pool_list:
            size = EC_K + EC_M if p["ec"] else 3
            objects_per_pg = (self.n_buckets * 100_000 // max(1, p["pg_num"])) if p["ec"] else 40
            for seq in range(p["pg_num"]):
                scrub_late, deep_late = k in not_scrubbed, k in not_deep
                # A deep scrub is also a scrub: last_scrub_stamp >= last_deep_scrub_stamp.
                if deep_late:
                    deep_age = rng.uniform(DEEP_OVERDUE + hour, 60 * DAY)
                    scrub_age = rng.uniform(SCRUB_OVERDUE + hour, 40 * DAY) if scrub_late else rng.uniform(0, 10 * DAY)
                    scrub_age = min(scrub_age, deep_age)
                elif scrub_late:
                    scrub_age = rng.uniform(SCRUB_OVERDUE + hour, DEEP_OVERDUE - 2 * hour)
                    deep_age = rng.uniform(scrub_age, DEEP_OVERDUE - hour)
                else:
                    scrub_age = rng.uniform(0, SCRUB_OVERDUE - hour)
                    deep_age = rng.uniform(scrub_age, DEEP_OVERDUE - hour)
                k += 1
                r = rng.random()
                state = "active+clean"
                if r < 0.002:
                    state = "active+clean+scrubbing+deep"
                elif r < 0.0025:
                    state = "active+clean+scrubbing"
                acting = rng.sample(range(self.n_osds), size)
                fresh = stamp(self.now - rng.uniform(0, 5))
                active = stamp(self.now - 30 * DAY + rng.uniform(0, 3600))
                scrub_s, deep_s = stamp(self.now - scrub_age), stamp(self.now - deep_age)
                nobj = objects_per_pg + rng.randint(-500, 500) if p["ec"] else objects_per_pg
                nobj = max(0, nobj)
                nbytes = nobj * (OBJECT_BYTES if p["ec"] else 1500)
                epoch = 41000 + rng.randint(0, 234)
                version = f"{epoch}'{nobj + 17}"
                yield {
                    "acting": acting,
                    "acting_primary": acting[0],
                    "avail_no_missing": [],
                    "blocked_by": [],
                    "created": 30 + p["id"],
                    "dirty_stats_invalid": False,
                    "hitset_bytes_stats_invalid": False,
                    "hitset_stats_invalid": False,
                    "last_active": fresh,
                    "last_became_active": active,
                    "last_became_peered": active,
                    "last_change": active,
                    "last_clean": fresh,
                    "last_clean_scrub_stamp": scrub_s,
                    "last_deep_scrub": version,
                    "last_deep_scrub_stamp": deep_s,
                    "last_epoch_clean": epoch - 3,
                    "last_fresh": fresh,
                    "last_fullsized": fresh,
                    "last_peered": fresh,
                    "last_scrub": version,
                    "last_scrub_stamp": scrub_s,
                    "last_undegraded": fresh,
                    "last_unstale": fresh,
                    "log_size": 3000,
                    "log_start": f"{epoch - 100}'{nobj}",
                    "manifest_stats_invalid": False,
                    "mapping_epoch": epoch - 10,
                    "object_location_counts": [],
                    "omap_stats_invalid": False,
                    "ondisk_log_size": 3000,
                    "ondisk_log_start": f"{epoch - 100}'{nobj}",
                    "parent": "0.0",
                    "parent_split_bits": 0,
                    "pgid": f"{p['id']}.{seq:x}",
                    "pin_stats_invalid": False,
                    "purged_snaps": [],
                    "reported_epoch": epoch,
                    "reported_seq": epoch * 7,
                    "snaptrimq_len": 0,
                    "stat_sum": {
                        "num_bytes": nbytes,
                        "num_bytes_hit_set_archive": 0,
                        "num_bytes_recovered": 0,
                        "num_deep_scrub_errors": 0,
                        "num_evict": 0,
                        "num_evict_kb": 0,
                        "num_evict_mode_full": 0,
                        "num_evict_mode_some": 0,
                        "num_flush": 0,
                        "num_flush_kb": 0,
                        "num_flush_mode_high": 0,
                        "num_flush_mode_low": 0,
                        "num_keys_recovered": 0,
                        "num_large_omap_objects": 0,
                        "num_legacy_snapsets": 0,
                        "num_object_clones": 0,
                        "num_object_copies": nobj * size,
                        "num_objects": nobj,
                        "num_objects_degraded": 0,
                        "num_objects_dirty": nobj,
                        "num_objects_hit_set_archive": 0,
                        "num_objects_manifest": 0,
                        "num_objects_misplaced": 0,
                        "num_objects_missing": 0,
                        "num_objects_missing_on_primary": 0,
                        "num_objects_omap": 0 if p["ec"] else nobj,
                        "num_objects_pinned": 0,
                        "num_objects_recovered": 0,
                        "num_objects_repaired": 0,
                        "num_objects_unfound": 0,
                        "num_omap_bytes": 0,
                        "num_omap_keys": 0,
                        "num_promote": 0,
                        "num_read": nobj * 2,
                        "num_read_kb": nbytes * 2 // 1024,
                        "num_scrub_errors": 0,
                        "num_shallow_scrub_errors": 0,
                        "num_whiteouts": 0,
                        "num_write": nobj,
                        "num_write_kb": nbytes // 1024,
                    },
                    "state": state,
                    "stats_invalid": False,
                    "up": list(acting),
                    "up_primary": acting[0],
                    "version": version,
                }

    def scrub_counts(self) -> tuple[int, int]:
        return round(self.n_pgs * NOT_SCRUBBED_SHARE), round(self.n_pgs * NOT_DEEP_SCRUBBED_SHARE)

    # --- health ------------------------------------------------------------------

    def health_detail(
        self, late_scrub: Sequence[tuple[str, str]] = (), late_deep: Sequence[tuple[str, str]] = ()
    ) -> dict:
        """late_*: (pgid, stamp) of the first overdue PGs, for the detail lines."""
        checks: dict[str, Any] = {}
        spilled = sorted(self.spilled)
        checks["BLUEFS_SPILLOVER"] = {
            "detail": [
                {
                    "message": f" osd.{i} spilled over {self.slow_used[i] // 2**20} MiB metadata from 'db' device "
                    f"({self.db_used[i] // 2**30} GiB used of {DB_BYTES // 2**30} GiB) to slow device"
                }
                for i in spilled
            ],
            "muted": False,
            "severity": "HEALTH_WARN",
            "summary": {"count": len(spilled), "message": f"{len(spilled)} OSD(s) experiencing BlueFS spillover"},
        }
        near = sorted(self.nearfull)
        checks["OSD_NEARFULL"] = {
            "detail": [{"message": f"osd.{i} is near full"} for i in near],
            "muted": False,
            "severity": "HEALTH_WARN",
            "summary": {"count": len(near), "message": f"{len(near)} nearfull osd(s)"},
        }
        not_scrubbed, not_deep = self.scrub_counts()
        # The monitor lists at most mon_health_max_detail (50) PGs per check.
        checks["PG_NOT_DEEP_SCRUBBED"] = {
            "detail": [{"message": f"pg {pg} not deep-scrubbed since {s}"} for pg, s in late_deep[:50]],
            "muted": False,
            "severity": "HEALTH_WARN",
            "summary": {"count": not_deep, "message": f"{not_deep} pgs not deep-scrubbed in time"},
        }
        checks["PG_NOT_SCRUBBED"] = {
            "detail": [{"message": f"pg {pg} not scrubbed since {s}"} for pg, s in late_scrub[:50]],
            "muted": False,
            "severity": "HEALTH_WARN",
            "summary": {"count": not_scrubbed, "message": f"{not_scrubbed} pgs not scrubbed in time"},
        }
        checks["POOL_NEARFULL"] = {
            "detail": [{"message": f"pool '{p['name']}' is nearfull"} for p in self.pool_list],
            "muted": False,
            "severity": "HEALTH_WARN",
            "summary": {"count": len(self.pool_list), "message": f"{len(self.pool_list)} pool(s) nearfull"},
        }
        return {"checks": dict(sorted(checks.items())), "mutes": [], "status": "HEALTH_WARN"}

    def config_get(self) -> dict:
        return {
            "bluestore_min_alloc_size_hdd": MIN_ALLOC_HDD,
            "mon_warn_pg_not_deep_scrubbed_ratio": 0.75,
            "mon_warn_pg_not_scrubbed_ratio": 0.5,
            "osd_deep_scrub_interval": DEEP_INTERVAL,
            "osd_scrub_max_interval": SCRUB_INTERVAL,
            "rgw_max_objs_per_shard": SHARD_LIMIT,
        }

    # --- mgr prometheus module (filtered as the fixture is) -----------------------

    BLUEFS = (
        "alloc_slow_fallback alloc_slow_size_fallback alloc_unit_db alloc_unit_main alloc_unit_wal "
        "bytes_written_slow bytes_written_sst bytes_written_wal compact_lat_sum compact_lat_count "
        "compact_lock_lat_sum compact_lock_lat_count db_total_bytes db_used_bytes log_bytes logged_bytes "
        "num_files read_bytes read_prefetch_bytes read_random_buffer_bytes read_random_bytes "
        "read_random_disk_bytes slow_total_bytes slow_used_bytes wal_total_bytes wal_used_bytes"
    ).split()
    OSD_OP = (
        "op_r op_r_latency_sum op_r_latency_count op_r_out_bytes op_r_prepare_latency_sum "
        "op_r_prepare_latency_count op_r_process_latency_sum op_r_process_latency_count op_rw op_rw_in_bytes "
        "op_rw_latency_sum op_rw_latency_count op_rw_out_bytes op_rw_prepare_latency_sum "
        "op_rw_prepare_latency_count op_rw_process_latency_sum op_rw_process_latency_count op_w op_w_in_bytes "
        "op_w_latency_sum op_w_latency_count op_w_prepare_latency_sum op_w_prepare_latency_count "
        "op_w_process_latency_sum op_w_process_latency_count op_wip"
    ).split()
    RGW = (
        "cache_hit cache_miss failed_req gc_retire_object get get_b get_initial_lat_sum get_initial_lat_count "
        "keystone_token_cache_hit keystone_token_cache_miss lc_abort_mpu lc_expire_current lc_expire_dm "
        "lc_expire_noncurrent lc_transition_current lc_transition_noncurrent pubsub_event_lost "
        "pubsub_event_triggered pubsub_events pubsub_missing_conf pubsub_push_failed pubsub_push_ok "
        "pubsub_push_pending pubsub_store_fail pubsub_store_ok put put_b put_initial_lat_sum "
        "put_initial_lat_count qactive qlen req"
    ).split()

    def osd_counters(self, i: int, uptime: float) -> dict[str, float]:
        """Cumulative counters of one OSD after `uptime` seconds at the study's load [004]."""
        # ~17,800 PUT/s cluster-wide, each six 16 KB chunk writes; ~28,800 GET/s, four chunk reads.
        w_rate = 17800 * (EC_K + EC_M) / self.n_osds * (0.8 + 0.4 * ((i * 7919) % 100) / 100)
        r_rate = 28800 * EC_K / self.n_osds * (0.8 + 0.4 * ((i * 104729) % 100) / 100)
        if i % 53 == 17:  # a few hot OSDs
            w_rate, r_rate = w_rate * 2.5, r_rate * 2.5
        w, r = int(w_rate * uptime), int(r_rate * uptime)
        c = {name: 0.0 for name in self.BLUEFS + self.OSD_OP}
        c.update(
            alloc_unit_db=1048576.0,
            alloc_unit_main=65536.0,
            db_total_bytes=float(DB_BYTES),
            db_used_bytes=float(self.db_used[i]),
            slow_total_bytes=0.0,
            slow_used_bytes=float(self.slow_used[i]),
            alloc_slow_fallback=float(self.slow_used[i] // 2**20),
            bytes_written_slow=float(self.slow_used[i] * 3),
            bytes_written_sst=float(self.db_used[i] * 4),
            bytes_written_wal=float(w * 20480),
            log_bytes=5 * 2**20,
            logged_bytes=4 * 2**20,
            num_files=float(self.db_used[i] // (64 * 2**20)),
            read_bytes=float(r * 4096),
            op_r=float(r),
            op_w=float(w),
            op_r_out_bytes=float(r * 16384),
            op_w_in_bytes=float(w * 16384),
            op_r_latency_count=float(r),
            op_r_latency_sum=r * 0.027,
            op_w_latency_count=float(w),
            op_w_latency_sum=w * 0.51,
            op_wip=float(i % 5),
        )
        return c

    def rgw_counters(self, n: int, uptime: float) -> dict[str, float]:
        put = int(17800 / self.n_rgws * (self.n_osds / 318) * uptime)
        get = int(28800 / self.n_rgws * (self.n_osds / 318) * uptime)
        c = {name: 0.0 for name in self.RGW}
        c.update(
            cache_hit=float(put * 3),
            cache_miss=float(put // 50),
            get=float(get),
            get_b=float(get * OBJECT_BYTES),
            get_initial_lat_count=float(get),
            get_initial_lat_sum=get * 0.027,
            put=float(put),
            put_b=float(put * OBJECT_BYTES),
            put_initial_lat_count=float(put),
            put_initial_lat_sum=put * 0.51,
            qactive=float(n % 7),
            req=float(put + get),
        )
        return c

    def mgr_prometheus_text(self, uptime: float = 30 * DAY) -> str:
        lines = []
        for name, inst in self.rgw_list:
            host = name.split(".")[1]
            lines.append(
                f'ceph_rgw_metadata{{ceph_daemon="{name}",hostname="{host}",ceph_version="{CEPH_VERSION}",'
                f'instance_id="{inst}"}} 1.0'
            )
        counters = [self.osd_counters(i, uptime) for i in range(self.n_osds)]
        for prefix, names in (("ceph_bluefs_", self.BLUEFS), ("ceph_osd_", self.OSD_OP)):
            for name in names:
                for i, c in enumerate(counters):
                    lines.append(f'{prefix}{name}{{ceph_daemon="osd.{i}"}} {fmt(c[name])}')
        rgw = [self.rgw_counters(n, uptime) for n in range(self.n_rgws)]
        for name in self.RGW:
            if name == "put":
                lines.append("# HELP ceph_rgw_put Puts")
            for (_, inst), c in zip(self.rgw_list, rgw):
                lines.append(f'ceph_rgw_{name}{{instance_id="{inst}"}} {fmt(c[name])}')
        return "\n".join(lines) + "\n"

    # --- RGW ---------------------------------------------------------------------

    def _bucket_plan(self) -> dict[int, tuple[int, int, bool]]:
        """Buckets that differ from the ~100K-object, 11-shard norm: index -> (objects, shards, resharded)."""
        rng = random.Random(self.seed * 1000 + 3)
        n = self.n_buckets
        special: dict[int, tuple[int, int, bool]] = {}
        if n == 0:
            return special
        picks = rng.sample(range(n), min(n, max(8, n // 500)))
        for j, b in enumerate(picks):
            kind = j % 4
            if kind == 0:  # grew big, dynamically resharded as in the 1B blog (16 -> 512 shards at 30 M)
                shards = rng.choice((23, 47, 97, 199, 401, 512))
                special[b] = (int(shards * SHARD_LIMIT * rng.uniform(0.3, 0.7)), shards, True)
            elif kind == 1:  # close to its shard limit: reshards next
                special[b] = (int(DEFAULT_SHARDS * SHARD_LIMIT * rng.uniform(0.8, 0.99)), DEFAULT_SHARDS, False)
            elif kind == 2:  # over the limit: queued in the reshard list
                special[b] = (int(DEFAULT_SHARDS * SHARD_LIMIT * rng.uniform(1.0, 1.3)), DEFAULT_SHARDS, False)
            else:  # empty or nearly
                special[b] = (rng.randint(0, 50), DEFAULT_SHARDS, False)
        return special

    def index_shards(self) -> int:
        """Index shards over all buckets."""
        special = self._bucket_plan()
        return DEFAULT_SHARDS * (self.n_buckets - len(special)) + sum(shards for _, shards, _ in special.values())

    def bucket_name(self, b: int) -> str:
        return f"s3bench-{b:07d}"

    @property
    def n_owners(self) -> int:
        return max(1, self.n_buckets // BUCKETS_PER_OWNER)

    def owner_of(self, b: int) -> int:
        """The owner of bucket `b`: a few large ones and many small ones (bucket b goes to an
        owner drawn with weight ~1/rank, seeded), every owner with one bucket at least."""
        if b < self.n_owners:
            return b
        return self._owner_draws[b - self.n_owners]

    @property
    def _owner_draws(self) -> list[int]:
        draws = getattr(self, "_draws", None)
        if draws is None:
            rng = random.Random(self.seed * 1000 + 7)
            weights = [1.0 / (r + 1) for r in range(self.n_owners)]
            draws = rng.choices(range(self.n_owners), weights, k=max(0, self.n_buckets - self.n_owners))
            self._draws = draws
        return draws

    def owner_name(self, o: int) -> tuple[str, str]:
        """(tenant, owner) as RGW names them: `tenant$user` for a tenant's user, else the uid."""
        if o % TENANT_EVERY == 1:
            tenant = f"tenant{o // TENANT_EVERY:04d}"
            return tenant, f"{tenant}$user{o:05d}"
        return "", f"user{o:05d}"

    def bucket_key(self, b: int) -> str:
        """The bucket's metadata key: `tenant/name` for a tenant's bucket."""
        tenant = self.owner_name(self.owner_of(b))[0]
        return f"{tenant}/{self.bucket_name(b)}" if tenant else self.bucket_name(b)

    def user_quota(self, o: int, objects: int) -> list[int] | None:
        """Owner `o`'s user quota, [max bytes, max objects] (room for about twice what its buckets
        hold), or None: every USER_QUOTA_EVERY-th owner has one."""
        if o % USER_QUOTA_EVERY != 5:
            return None
        return [2 * objects * OBJECT_BYTES + TB, 2 * objects + 10**6]

    def iter_buckets(self) -> Iterator[dict]:
        rng = random.Random(self.seed * 1000 + 4)
        special = self._bucket_plan()
        for b in range(self.n_buckets):
            objects, shards, resharded = special.get(b, (None, DEFAULT_SHARDS, False))
            if objects is None:
                objects = rng.randint(95_000, 105_000)
            else:
                rng.random()  # keep the sequence independent of the plan
            o = self.owner_of(b)
            tenant, owner = self.owner_name(o)
            quota = o % BUCKET_QUOTA_EVERY == 0
            inst = self.rgw_list[b % self.n_rgws][1]
            marker = f"{ZONE}.{inst}.{b + 1}"
            bucket_id = f"{ZONE}.{inst}.{self.n_buckets + b + 1}" if resharded else marker
            created = self.now - 180 * DAY + b * (150 * DAY / max(1, self.n_buckets))
            per_shard = objects // shards
            size = objects * OBJECT_BYTES
            usage = (
                {
                    "rgw.main": {
                        "num_objects": objects,
                        "size": size,
                        "size_actual": size,
                        "size_kb": size // 1024,
                        "size_kb_actual": size // 1024,
                        "size_kb_utilized": size // 1024,
                        "size_utilized": size,
                    }
                }
                if objects
                else {}
            )
            yield {
                "bucket": self.bucket_name(b),
                "bucket_quota": {
                    "check_on_raw": False,
                    "enabled": quota,
                    "max_objects": 2 * objects + 1000 if quota else -1,
                    "max_size": (2 * objects + 1000) * OBJECT_BYTES if quota else -1,
                    "max_size_kb": (2 * objects + 1000) * OBJECT_BYTES // 1024 if quota else 0,
                },
                "creation_time": stamp_z(created),
                "explicit_placement": {"data_extra_pool": "", "data_pool": "", "index_pool": ""},
                "id": bucket_id,
                "index_type": "Normal",
                "marker": marker,
                "master_ver": ",".join(f"{s}#0" for s in range(shards)),
                "max_marker": ",".join(f"{s}#" for s in range(shards)),
                "mtime": stamp_z(created + 3600),
                "num_shards": shards,
                "owner": owner,
                "placement_rule": "default-placement",
                "tenant": tenant,
                "usage": usage,
                "ver": ",".join(f"{s}#{per_shard * 2 + s % 3}" for s in range(shards)),
                "zonegroup": ZONEGROUP,
            }

    def reshard_list(self) -> list:
        """The over-limit buckets, queued; the first one being processed."""
        over = sorted(b for b, (objects, shards, _) in self._bucket_plan().items() if objects > shards * SHARD_LIMIT)
        out = []
        for j, b in enumerate(over):
            inst = self.rgw_list[b % self.n_rgws][1]
            out.append(
                {
                    "bucket_id": f"{ZONE}.{inst}.{b + 1}",
                    "bucket_name": self.bucket_name(b),
                    "new_instance_id": f"{self.bucket_name(b)}:{ZONE}.{inst}.{3 * self.n_buckets + b}"
                    if j == 0
                    else "",
                    "old_num_shards": DEFAULT_SHARDS,
                    "tenant": self.owner_name(self.owner_of(b))[0],
                    "tentative_new_num_shards": 23,
                    "time": stamp_z(self.now - 60 * (j + 1)),
                }
            )
        return out

    # --- writing -----------------------------------------------------------------

    def write(self, out: Path) -> dict:
        out.mkdir(parents=True, exist_ok=True)
        small = {
            "osd_df.json": self.osd_df(),
            "osd_dump.json": self.osd_dump(),
            "osd_metadata.json": self.osd_metadata(),
            "df_detail.json": self.df_detail(),
            "config_get.json": self.config_get(),
            "reshard_list.json": self.reshard_list(),
        }
        for name, obj in small.items():
            (out / name).write_text(dumps(obj))
        late_scrub: list[tuple[str, str]] = []
        late_deep: list[tuple[str, str]] = []
        scrub_limit, deep_limit = stamp(self.now - SCRUB_OVERDUE), stamp(self.now - DEEP_OVERDUE)
        with open(out / "pg_dump_pgs.json", "w", encoding="utf-8") as f:
            f.write('{"pg_ready":true,"pg_stats":[')
            for k, pg in enumerate(self.iter_pgs()):
                if k:
                    f.write(",")
                f.write(dumps(pg))
                # Same format throughout, so the stamps compare as strings.
                if len(late_scrub) < 50 and pg["last_scrub_stamp"] < scrub_limit:
                    late_scrub.append((pg["pgid"], pg["last_scrub_stamp"]))
                if len(late_deep) < 50 and pg["last_deep_scrub_stamp"] < deep_limit:
                    late_deep.append((pg["pgid"], pg["last_deep_scrub_stamp"]))
            f.write("]}")
        (out / "health_detail.json").write_text(dumps(self.health_detail(late_scrub, late_deep)))
        (out / "mgr_prometheus_metrics.txt").write_text(self.mgr_prometheus_text())
        objects = 0
        # The bucket poll's view (core/bucket_poll.py): the metadata listings, where each bucket's
        # stats record lies in admin_api_bucket_stats.json (what `GET /admin/bucket?bucket=B&stats=true`
        # answers for it), and the poll's saved state in its sweep (every bucket read within the
        # last three hours, the oldest first).
        offsets, state = [], {}
        owner_objects: dict[int, int] = {}
        with open(out / "admin_api_bucket_stats.json", "wb") as f:
            f.write(b"[")
            for b, bucket in enumerate(self.iter_buckets()):
                if b:
                    f.write(b",")
                record = dumps(bucket).encode()
                key = self.bucket_key(b)
                offsets.append([key, bucket["id"], f.tell(), len(record)])
                o = self.owner_of(b)
                owner_objects[o] = owner_objects.get(o, 0) + bucket["usage"].get("rgw.main", {}).get("num_objects", 0)
                f.write(record)
                objects += bucket["usage"].get("rgw.main", {}).get("num_objects", 0)
                read_at = self.now - 3 * 3600 * (1 - b / max(1, self.n_buckets))
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
        users_read_at = {self.owner_name(o)[1]: round(self.now - 3600 - o % 3600, 3) for o in sorted(owner_objects)}
        quotas = {}
        for o, n in sorted(owner_objects.items()):
            q = self.user_quota(o, n)
            if q is not None:
                quotas[self.owner_name(o)[1]] = [*q, users_read_at[self.owner_name(o)[1]]]
        poll_state = {"version": 1, "tokens": None, "refilled_at": 0.0, "buckets": state,
                      "users": {"read_at": users_read_at, "quotas": quotas}}  # fmt: skip
        (out / "state.json.buckets").write_text(dumps(poll_state))
        not_scrubbed, not_deep = self.scrub_counts()
        manifest = {
            "params": {
                "format": FORMAT,
                "osds": self.n_osds,
                "pgs": self.n_pgs,
                "pools": self.n_pools,
                "buckets": self.n_buckets,
                "rgws": self.n_rgws,
                "seed": self.seed,
            },
            "now": self.now,
            "expect": {
                "spillover_osds": len(self.spilled),
                "nearfull_osds": len(self.nearfull),
                "pgs_not_scrubbed": not_scrubbed,
                "pgs_not_deep_scrubbed": not_deep,
                "ec_pools": sum(1 for p in self.pool_list if p["ec"]),
                "objects": objects,
                "reshard_queued": len(small["reshard_list.json"]),
                "hosts": self.hosts,
            },
            "files": {p.name: p.stat().st_size for p in sorted(out.iterdir()) if p.name != "manifest.json"},
        }
        (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        return manifest


def fmt(v: float) -> str:
    """Values as the mgr prometheus module prints them (Python's repr of a float)."""
    return repr(float(v))


def scaled(scale: float) -> dict[str, int]:
    return {k: max(1, round(v * scale)) for k, v in STUDY.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.synth", description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=float, default=1.0, help="multiply the study's counts (default 1)")
    for key, value in STUDY.items():
        p.add_argument(f"--{key}", type=int, default=None, help=f"default {value} x scale")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True, help="directory to write into")
    args = p.parse_args(argv)
    counts = scaled(args.scale)
    for key in STUDY:
        if getattr(args, key) is not None:
            counts[key] = getattr(args, key)
    manifest = Synth(seed=args.seed, **counts).write(Path(args.out))
    total = sum(manifest["files"].values())
    print(
        f"wrote {len(manifest['files'])} files, {total / 1e6:.1f} MB, to {args.out}: {json.dumps(manifest['expect'])}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
