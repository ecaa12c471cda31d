"""`ceph pg dump pgs`: every PG, its scrub stamps drawn so that exactly the study's shares are overdue."""

from __future__ import annotations

import random
from collections.abc import Iterator

from bench.synth.constants import (
    DAY,
    DEEP_OVERDUE,
    EC_K,
    EC_M,
    NOT_DEEP_SCRUBBED_SHARE,
    NOT_SCRUBBED_SHARE,
    OBJECT_BYTES,
    SCRUB_OVERDUE,
    stamp,
)
from bench.synth.layout import Layout


class Pgs(Layout):
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
