"""OSDs down, up, out and in on the test cluster, waited for in the OSD map.

A mixin of TestCluster (cluster/testcluster.py).
"""

from __future__ import annotations

from cluster.helpers import wait_for
from cluster.host import ClusterHost


class OsdStates(ClusterHost):
    def osd_down(self, osd_id: int, timeout: float = 60) -> None:
        """Stop osd.N's process and wait until the map shows it down (it is still `in`)."""
        self.stop_daemon(f"osd.{osd_id}")
        wait_for(lambda: not self._osd_state(osd_id)["up"], timeout, what=f"osd.{osd_id} down")

    def osd_up(self, osd_id: int, timeout: float = 90) -> None:
        if not self.running().get(f"osd.{osd_id}"):
            self.start_daemon(f"osd.{osd_id}")
        wait_for(lambda: self._osd_state(osd_id)["up"], timeout, what=f"osd.{osd_id} up")

    def osd_out(self, osd_id: int) -> None:
        self.ceph("osd", "out", str(osd_id), fmt_json=False)

    def osd_in(self, osd_id: int) -> None:
        self.ceph("osd", "in", str(osd_id), fmt_json=False)

    def _osd_state(self, osd_id: int) -> dict:
        for o in self.ceph("osd", "dump", timeout=10)["osds"]:
            if o["osd"] == osd_id:
                return o
        raise KeyError(osd_id)
