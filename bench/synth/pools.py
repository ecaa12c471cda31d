"""`ceph df detail`: the pools' objects and bytes, the EC data pool's 64 KB min_alloc overhead [000]."""

from __future__ import annotations

from bench.synth.constants import DEFAULT_SHARDS, EC_K, EC_M, HDD_BYTES, MIN_ALLOC_HDD, OBJECT_BYTES
from bench.synth.layout import Layout


class Pools(Layout):
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
