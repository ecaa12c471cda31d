"""`ceph osd df`, `ceph osd dump` and `ceph osd metadata` of the layout's OSDs and pools."""

from __future__ import annotations

import math

from bench.synth.constants import (
    CEPH_VERSION,
    DAY,
    DB_BYTES,
    EC_K,
    EC_M,
    FSID,
    HDD_BYTES,
    MIN_ALLOC_HDD,
    OSDS_PER_HOST,
    stamp,
    stamp_z,
)
from bench.synth.layout import Layout


class Osds(Layout):
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
