"""Manager failover on the test cluster: which manager is active, and making the standby take over.

A mixin of TestCluster (cluster/testcluster.py).
"""

from __future__ import annotations

import warnings

from cluster.helpers import wait_for
from cluster.host import ClusterHost


class ManagerFailover(ClusterHost):
    def refresh_active_mgr(self) -> str:
        self.active_mgr = self.ceph("mgr", "stat", timeout=30).get("active_name") or self.active_mgr
        self._save_info()
        return self.active_mgr

    def await_prometheus(self, timeout: float = 90) -> str:
        """Wait until the active manager's prometheus module serves the cluster's metrics, following
        the active manager wherever it is; returns its name.

        Enabling a module respawns every manager, and either may come back active: a wait on the
        manager that was active before can only see the standby's page, which serves no metrics."""

        def serving() -> bool:
            self.active_mgr = self.ceph("mgr", "stat", timeout=10).get("active_name") or self.active_mgr
            return "ceph_osd_up" in self.mgr_metrics(10)

        wait_for(serving, timeout, what=f"the prometheus module of the active mgr (of {self.mgr_ids})")
        self.revive_mgrs(timeout)
        self._save_info()
        return self.active_mgr

    def revive_mgrs(self, timeout: float = 90) -> list[str]:
        """Start again each manager whose process died, as its service unit would
        (`Restart=on-failure` in Ceph's ceph-mgr@.service), and wait until it is a standby; returns
        their names, each also a warning in the test report.

        Pacific 16.2.15's manager once aborted as it became active after a module's enable,
        verifying a peer's authorizer (`FAILED ceph_assert(ckh)` in auth/Crypto.h, after
        "verify_authorizer global_id mismatch"): every later failover then had no standby."""
        running = self.running()
        dead = [i for i in self.mgr_ids if not running.get(f"mgr.{i}")]
        if not dead:
            return []

        def standbys() -> dict[str, int]:
            return {s["name"]: s["gid"] for s in self.ceph("mgr", "dump", timeout=10).get("standbys", [])}

        # The monitor lists a dead standby until its beacon grace runs out: the new process has a gid of its own.
        stale = standbys()
        for ident in dead:
            warnings.warn(f"mgr.{ident} had died (see {self.dir}/log/mgr.{ident}.log); started again", stacklevel=2)
            self.start_daemon(f"mgr.{ident}")

        def back() -> bool:
            now = standbys()
            return all(i in now and now[i] != stale.get(i) for i in dead if i != self.active_mgr)

        wait_for(back, timeout, what=f"mgr {', '.join(dead)} back as a standby")
        return [f"mgr.{i}" for i in dead]

    def fail_mgr(self, timeout: float = 90) -> str:
        """`ceph mgr fail <active>`: the standby takes over (needs standby_mgr=True). Returns the new
        active mgr once its prometheus module answers; mgr_prometheus_url follows it."""
        self.revive_mgrs(timeout)
        old = self.refresh_active_mgr()
        self.ceph("mgr", "fail", old, fmt_json=False)

        def other_active():
            s = self.ceph("mgr", "stat", timeout=10)
            return s.get("available") and s.get("active_name") not in ("", old) and s["active_name"]

        wait_for(other_active, timeout, interval=0.5, what="a standby mgr to take over")
        return self.await_prometheus(timeout)
