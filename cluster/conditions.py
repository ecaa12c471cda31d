"""The study's conditions, made to happen for real on a test cluster: spillover, nearfull
OSDs, a scrub backlog, dynamic resharding (queued, held, done), and what they are read by.

A mixin of TestCluster (cluster/testcluster.py), which keeps the cluster's lifecycle, its
daemons and its command wrappers.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from cluster.helpers import RGW_NAME, CephError, parse_stamp, wait_for
from cluster.host import ClusterHost

# The options TestCluster.scrub_intervals sets, in its order.
SCRUB_INTERVAL_OPTIONS = ("osd_scrub_min_interval", "osd_scrub_max_interval", "osd_deep_scrub_interval")


class StudyConditions(ClusterHost):
    def health_checks(self) -> dict:
        """{code: check} of `ceph health detail`."""
        return self.ceph("health", "detail").get("checks", {})

    def wait_health(self, code: str, present: bool = True, timeout: float = 120, interval: float = 1.0) -> dict:
        """Wait until health check `code` is present (returns it) or gone (returns {})."""

        def check():
            checks = self.health_checks()
            if present:
                return checks.get(code)
            return {} if code not in checks else None

        if present:
            return wait_for(check, timeout, interval, what=f"health check {code}")
        wait_for(lambda: check() == {}, timeout, interval, what=f"health check {code} to clear")
        return {}

    def bluefs(self, osd_id: int) -> dict:
        """`ceph tell osd.N perf dump bluefs` -> its "bluefs" section (db_total_bytes, db_used_bytes,
        slow_used_bytes, ...)."""
        return self.ceph("tell", f"osd.{osd_id}", "perf", "dump", "bluefs")["bluefs"]

    def wait_spillover(self, osd_id: int = 0, timeout: float = 60) -> dict:
        """Spillover is built in: an OSD whose DB is 256 MiB puts its RocksDB WAL (preallocated to
        ~256 MiB) on the slow device from its first start. Waits until `slow_used_bytes` > 0 and
        BLUEFS_SPILLOVER names osd.N; returns the bluefs counters."""

        def spilled():
            b = self.bluefs(osd_id)
            check = self.health_checks().get("BLUEFS_SPILLOVER", {})
            named = any(f"osd.{osd_id} " in m["message"] for m in check.get("detail", []))
            return b if (b["slow_used_bytes"] > 0 and named) else None

        return wait_for(spilled, timeout, what=f"BlueFS spillover on osd.{osd_id}")

    def inject_full(self, osd_id: int, state: str) -> None:
        """`ceph daemon osd.N injectfull <state>`: none|nearfull|backfillfull|full|failsafe.

        It changes the OSD's own fullness state only (not `osd df`): the OSD reports it to the mon,
        which sets the nearfull/backfillfull/full flag on the OSD in the map and raises OSD_NEARFULL,
        OSD_BACKFILLFULL or OSD_FULL. "full"/"failsafe" block client writes.
        """
        self.admin_socket(f"osd.{osd_id}", "injectfull", state)

    def make_nearfull(self, osd_id: int, wait: bool = True, timeout: float = 60) -> None:
        self.inject_full(osd_id, "nearfull")
        if wait:
            self.wait_health("OSD_NEARFULL", True, timeout, interval=0.5)

    def clear_nearfull(self, osd_id: int, wait: bool = True, timeout: float = 60) -> None:
        self.inject_full(osd_id, "none")
        if wait:
            self.wait_health("OSD_NEARFULL", False, timeout, interval=0.5)

    def block_scrubs(
        self, max_interval: int = 30, deep_interval: int = 40, min_interval: int | None = None,
        wait: bool = False, timeout: float = 300,
    ) -> None:  # fmt: skip
        """Make a scrub backlog: set noscrub + nodeep-scrub, and shorter intervals (global, config db).

        The manager raises PG_NOT_SCRUBBED for PGs whose last_scrub_stamp is older than
        osd_scrub_max_interval x (1 + mon_warn_pg_not_scrubbed_ratio = 0.5) and PG_NOT_DEEP_SCRUBBED
        for last_deep_scrub_stamp older than osd_deep_scrub_interval x (1 + 0.75): with the defaults
        here 45 s and 70 s. PGs scrub every 60-120 s in this cluster, so some are overdue at once
        and all within ~45 s (~70 s for deep). wait=True waits for both checks.
        """
        self.ceph("osd", "set", "noscrub", fmt_json=False)
        self.ceph("osd", "set", "nodeep-scrub", fmt_json=False)
        settings = [("osd_scrub_max_interval", max_interval), ("osd_deep_scrub_interval", deep_interval)]
        if min_interval is not None:
            settings.append(("osd_scrub_min_interval", min_interval))
        for key, value in settings:
            self.ceph("config", "set", "global", key, str(value), fmt_json=False)
        if wait:
            self.wait_health("PG_NOT_SCRUBBED", True, timeout)
            self.wait_health("PG_NOT_DEEP_SCRUBBED", True, timeout)

    def unblock_scrubs(self, restore_intervals: bool = True, wait: bool = False, timeout: float = 300) -> None:
        """Unset noscrub/nodeep-scrub: each OSD scrubs its overdue PGs, one at a time (osd_max_scrubs 1).

        restore_intervals: set the cluster's own intervals back (scrub_intervals); without that the
        shorter warning limits of block_scrubs() stay below the OSDs' schedule and the warnings
        never clear. wait: until every PG has been scrubbed since this call and PG_NOT_SCRUBBED
        and PG_NOT_DEEP_SCRUBBED are gone (about 30 s for 49 PGs on 3 OSDs).
        """
        since = time.time() - 1
        self.ceph("osd", "unset", "noscrub", fmt_json=False)
        self.ceph("osd", "unset", "nodeep-scrub", fmt_json=False)
        if restore_intervals:
            for key, value in zip(SCRUB_INTERVAL_OPTIONS, self.scrub_intervals):
                self.ceph("config", "set", "global", key, str(value), fmt_json=False)
        if wait:
            wait_for(lambda: all(parse_stamp(p["last_scrub_stamp"]) > since for p in self.scrub_stamps()),
                     timeout, interval=2, what="every PG scrubbed")  # fmt: skip
            self.wait_health("PG_NOT_SCRUBBED", False, timeout, interval=2)
            self.wait_health("PG_NOT_DEEP_SCRUBBED", False, timeout, interval=2)

    def scrub_stamps(self) -> list[dict]:
        """pgid, state, last_scrub_stamp, last_deep_scrub_stamp of every PG (`ceph pg dump pgs`)."""
        keys = ("pgid", "state", "last_scrub_stamp", "last_deep_scrub_stamp")
        return [{k: s[k] for k in keys} for s in self.ceph("pg", "dump", "pgs")["pg_stats"]]

    def audit_commands(self, entity: str) -> list[str]:
        """The commands `entity` (e.g. client.ceph-scale) sent to the monitor and the manager,
        from the audit log (one line each as the command is dispatched)."""
        path = self.dir / "log" / "ceph.audit.log"
        if not path.exists():
            return []
        marker = f"entity='{entity}'"
        return [line for line in path.read_text(errors="replace").splitlines() if marker in line and "dispatch" in line]

    def reshard_list(self) -> list:
        return self.radosgw_admin("reshard", "list") or []

    def bucket_stats(self, bucket: str) -> dict:
        return self.radosgw_admin("bucket", "stats", "--bucket", bucket)

    def index_generation(self, bucket: str) -> int:
        """The bucket index layout's generation (`bucket layout`, Reef+): one per reshard; 0 on
        Pacific, which has no generations."""
        if not self.release.reshard_keeps_id:
            return 0
        return int(self.radosgw_admin("bucket", "layout", "--bucket", bucket)["layout"]["current_index"]["gen"])

    def rgw_log_size(self) -> int:
        """Where the RGW's log ends now: `reshards_completed` counts from there."""
        return (self.dir / "log" / f"{RGW_NAME}.log").stat().st_size

    def reshards_completed(self, bucket: str, since: int = 0) -> int:
        """The reshards of `bucket` the RGW logged as completed past byte `since` of its log: at
        level 1, "reshard of bucket ... completed successfully" (Pacific's RGW; Reef's and
        Tentacle's `radosgw-admin bucket reshard` the same)."""
        with open(self.dir / "log" / f"{RGW_NAME}.log", "rb") as f:
            f.seek(since)
            text = f.read().decode(errors="replace")
        return len(re.findall(r'reshard of bucket "' + re.escape(bucket) + r'".*completed successfully', text))

    def hold_reshards(self) -> None:
        """Keep queued reshards queued: the RGW's reshard thread re-reads rgw_reshard_thread_interval
        after each sleep, so after 600 is set and one short sleep passes it sleeps 600 s."""
        self.ceph("config", "set", "client.rgw", "rgw_reshard_thread_interval", "600", fmt_json=False)
        time.sleep(self.reshard_interval + 2)

    def release_reshards(self, timeout: float = 60) -> None:
        """Undo hold_reshards(): the short interval again and an RGW restart (its reshard thread
        processes the queue at once on start). Returns when the queue is empty."""
        self.ceph("config", "set", "client.rgw", "rgw_reshard_thread_interval", str(self.reshard_interval),
                  fmt_json=False)  # fmt: skip
        self.restart_daemon(RGW_NAME)
        wait_for(self.rgw_answers, 60, interval=0.5, what="the RGW after restart")
        wait_for(lambda: self.reshard_list() == [], timeout, interval=0.5, what="the reshard queue to drain")

    def fill_bucket_until_reshard(
        self, bucket: str, objects: int | None = None, size: int = 1024, timeout: float = 120,
        wait_done: bool = True, concurrency: int = 8,
    ) -> dict:  # fmt: skip
        """PUT `objects` (default 3 x rgw_max_objs_per_shard) small objects into a new `bucket` as
        the normal user, watching `radosgw-admin reshard list` every ~0.5 s, then (wait_done) wait
        for RGW to reshard it: more shards, the same marker, and on Pacific a new bucket instance id.

        Returns {"before": stats, "queued": first reshard-list entry seen or None, "after": stats,
        "put_seconds", "queued_after_seconds", "resharded_after_seconds"} (seconds from the first PUT).
        """

        from . import s3load

        objects = objects or 3 * self.reshard_objs_per_shard
        t0 = time.monotonic()
        seen: dict[str, Any] = {}
        stop = threading.Event()

        def watch():
            while not stop.is_set():
                try:
                    for entry in self.reshard_list():
                        if entry.get("bucket_name") == bucket and "queued" not in seen:
                            seen["queued"] = entry
                            seen["queued_at"] = time.monotonic() - t0
                except Exception:
                    pass
                stop.wait(0.5)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            s3 = s3load.client(self.rgw_endpoint, *self.user_keys)
            s3.create_bucket(Bucket=bucket)
            before = self.bucket_stats(bucket)
            result = s3load.run(self.rgw_endpoint, *self.user_keys, bucket, objects=objects, size=size,
                                concurrency=concurrency, gets=False, max_seconds=timeout)  # fmt: skip
            put_seconds = time.monotonic() - t0
            if result.errors:
                raise CephError(f"{result.errors} PUTs into {bucket} failed")
            after = before
            if wait_done:

                def resharded():
                    s = self.bucket_stats(bucket)
                    new_id = s["id"] != before["id"] or self.release.reshard_keeps_id
                    return s if new_id and s["num_shards"] > before["num_shards"] else None

                after = wait_for(resharded, timeout, interval=0.5, what=f"RGW to reshard {bucket}")
        finally:
            stop.set()
            watcher.join(5)
        return {
            "before": before,
            "queued": seen.get("queued"),
            "after": after,
            "put_seconds": round(put_seconds, 1),
            "queued_after_seconds": round(seen["queued_at"], 1) if "queued_at" in seen else None,
            "resharded_after_seconds": round(time.monotonic() - t0, 1) if wait_done else None,
        }

    def queue_reshard(self, bucket: str, objects: int | None = None, size: int = 1024, hold: bool = True) -> dict:
        """A reshard that stays queued: hold_reshards() (unless hold=False), fill `bucket` past the
        limit, wait for its entry in `reshard list` and return it. release_reshards() lets it run.

        The RGW queues a bucket from the bucket stats it has cached (refreshed every
        rgw_bucket_quota_ttl), so the entry's tentative_new_num_shards can come from a count a
        little behind the last PUT. Re-writing one existing key (the count does not change) makes
        it queue the bucket again with the final count: done until tentative_new_num_shards is at
        least 2 x objects / rgw_max_objs_per_shard (Ceph then rounds it up to a prime).
        """
        from . import s3load

        if hold:
            self.hold_reshards()
        objects = objects or 3 * self.reshard_objs_per_shard
        self.fill_bucket_until_reshard(bucket, objects=objects, size=size, wait_done=False)
        want = -(-2 * objects // self.reshard_objs_per_shard)
        s3 = s3load.client(self.rgw_endpoint, *self.user_keys)

        def queued():
            entry = next((e for e in self.reshard_list() if e["bucket_name"] == bucket), None)
            shards = (entry or {}).get("tentative_new_num_shards", (entry or {}).get("new_num_shards", 0))
            if entry and shards >= want:
                return entry
            s3.put_object(Bucket=bucket, Key="obj-00000000", Body=b"x" * size)
            return None

        return wait_for(queued, 60, interval=1.0, what=f"a queued reshard of {bucket} to >= {want} shards")
