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

    def fail_mgr(self, timeout: float = 90) -> str:
        """`ceph mgr fail <active>`: the standby takes over (needs standby_mgr=True). Returns the new
        active mgr once its prometheus module answers; mgr_prometheus_url follows it."""
        old = self.refresh_active_mgr()
        self.ceph("mgr", "fail", old, fmt_json=False)

        def other_active():
            s = self.ceph("mgr", "stat", timeout=10)
            return s.get("available") and s.get("active_name") not in ("", old) and s["active_name"]

        self.active_mgr = wait_for(other_active, timeout, interval=0.5, what="a standby mgr to take over")
        self._save_info()
        wait_for(lambda: "ceph_osd_up" in self.mgr_metrics(10), timeout, what="prometheus on the new active mgr")
        return self.active_mgr
