"""The laggy-PG watchdog: Pacific's PGs that stay laggy for good after their OSDs stalled,
healed by marking their primaries down, from a background thread while the cluster runs.

A mixin of TestCluster (cluster/testcluster.py), which starts and stops the thread.
"""

from __future__ import annotations

import json
import sys
import time

from cluster.host import ClusterHost


class LaggyWatchdog(ClusterHost):
    LAGGY_STUCK_AFTER = 30.0
    REHEALED_WITHIN = 120.0

    def heal_stuck_laggy_pgs(self, stuck_after: float = LAGGY_STUCK_AFTER) -> list[int]:
        """Mark down (they re-boot at once) the primaries of PGs laggy for longer than `stuck_after`.

        Ceph 16.2's PGs of size-1 pools can stay `active+clean+laggy` for good after their OSDs
        stalled past the read lease (heartbeat grace x 0.8 = 16 s): a host overloaded, or every
        OSD frozen by a test. Their reads then wait "for readable" forever (seen here for more
        than 5 minutes, until an OSD went down); `ceph pg repeer` does not help, a new interval
        does. A laggy PG recovers within a lease when the cause is gone, so only one laggy for
        longer than that is treated, and none while a test holds an OSD frozen (after the thaw,
        at once); one stuck again within REHEALED_WITHIN of its heal has its
        primary restarted. Returns the OSDs treated; each heal is appended to
        laggy_heals and to log/laggy-watchdog.log."""
        now = time.monotonic()
        laggy = self.laggy_pgs()
        self._laggy_since = {pgid: self._laggy_since.get(pgid, now) for pgid in laggy}
        with self.daemon_lock:
            frozen = any(name.startswith("osd.") for name in self.frozen)
        if frozen:
            # An OSD hung on purpose makes the PGs it serves laggy, which its test observes: the
            # heal would mark their healthy primaries down (seen: osd.0 and osd.1, 47 s into
            # osd.2's hang). Those still stuck are healed at the first round after the thaw.
            return []
        stuck = sorted(pgid for pgid, since in self._laggy_since.items() if now - since >= stuck_after)
        osds = sorted({laggy[pgid] for pgid in stuck if laggy[pgid] >= 0})
        if not osds:
            return []
        # Reef 18.2.7 once kept seven PGs laggy through three mark-downs 42 s apart: a PG stuck
        # again soon after its primary was marked down has that OSD restarted instead.
        again = {p for p in stuck if now - self._healed_at.get(p, -1e9) <= self.REHEALED_WITHIN}
        with self.daemon_lock:
            # Never an OSD a test stopped or froze on purpose: that one is marked down, as before.
            restart = sorted(o for o in {laggy[p] for p in again if laggy[p] >= 0} if self._restartable(f"osd.{o}"))
            for osd in restart:
                self.restart_daemon(f"osd.{osd}")
        down = [osd for osd in osds if osd not in restart]
        if down:
            self.ceph("osd", "down", *map(str, down), fmt_json=False, timeout=10)
        heal = {"at": time.time(), "pgs": stuck, "osds_down": down, "osds_restarted": restart}
        self.laggy_heals.append(heal)
        with open(self.dir / "log" / "laggy-watchdog.log", "a", encoding="utf-8") as f:
            f.write(json.dumps(heal) + "\n")
        for pgid in stuck:
            self._laggy_since.pop(pgid, None)
            self._healed_at[pgid] = now
        return osds

    def _restartable(self, name: str) -> bool:
        return name in self.pids and name not in self.frozen and self._owned(self.pids[name])

    def laggy_pgs(self) -> dict[str, int]:
        """pgid -> acting primary OSD (-1 if none) of every PG laggy now."""
        listing = self.ceph("pg", "ls", "laggy", timeout=10) or {}
        return {p["pgid"]: p.get("acting_primary", -1) for p in listing.get("pg_stats", [])}

    def _watch_laggy(self) -> None:
        while not self._watchdog_stop.wait(10):
            try:
                self.heal_stuck_laggy_pgs()
            except Exception as e:  # monitor down or frozen by a test: try again next round
                print(f"laggy watchdog: {type(e).__name__}: {str(e)[:200]}", file=sys.stderr)
