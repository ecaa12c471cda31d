"""Manager failover on the test cluster: which manager is active, and making the standby take over.

A mixin of TestCluster (cluster/testcluster.py).
"""

from __future__ import annotations

from cluster.helpers import wait_for
from cluster.host import ClusterHost


class ManagerFailover(ClusterHost):
    def refresh_active_mgr(self) -> str:
        self.active_mgr = self.ceph("mgr", "stat", timeout=10).get("active_name") or self.active_mgr
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
        self._save_info()
        return self.active_mgr

    def fail_mgr(self, timeout: float = 90) -> str:
        """`ceph mgr fail <active>`: the standby takes over (needs standby_mgr=True). Returns the new
        active mgr once its prometheus module answers; mgr_prometheus_url follows it."""
        old = self.refresh_active_mgr()
        self.ceph("mgr", "fail", old, fmt_json=False)

        def other_active():
            s = self.ceph("mgr", "stat", timeout=10)
            return s.get("available") and s.get("active_name") not in ("", old) and s["active_name"]

        wait_for(other_active, timeout, interval=0.5, what="a standby mgr to take over")
        return self.await_prometheus(timeout)
