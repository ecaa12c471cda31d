"""`ceph health detail` (spillover, nearfull, scrubs late) and the `ceph config get` values the sources read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bench.synth.constants import DB_BYTES, DEEP_INTERVAL, MIN_ALLOC_HDD, SCRUB_INTERVAL, SHARD_LIMIT
from bench.synth.layout import Layout


class Health(Layout):
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
