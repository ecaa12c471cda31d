from __future__ import annotations

import json
import time

from ceph_scale.core import inputs
from ceph_scale.core.reshard_queue import OMAP_PAGE, RESHARD_NAMESPACE, queue_log_count, read_queue
from ceph_scale.core.snapshot import ReshardPart
from ceph_scale.io import radosgw_admin

from .base import Deadline, Source


class ReshardSource(Source):
    """The reshard queue: omap of the zone's log pool (read-only), or `radosgw-admin reshard list`.

    Pacific's Admin Ops API has no reshard endpoint. Reading the queue's omap
    needs only `osd 'allow r pool=<zone>.rgw.log namespace=reshard'`;
    radosgw-admin needs write and watch rights to start, so it is the
    fallback for hosts without librados.
    """

    name = field = "reshard"

    def collect(self, deadline: Deadline):
        if self.ctx.reshard_backend == "radosgw-admin":
            return self._radosgw_admin(deadline)
        t = time.time()
        num_logs = queue_log_count(
            self.ctx.latest("settings"),
            lambda: self.ceph("config get", deadline, who=self.ctx.rgw_config_section, key="rgw_reshard_num_logs"),
        )
        ceph = self.ctx.ceph

        def read_omap(pool: str, oid: str, after: str) -> list[tuple[str, bytes]]:
            deadline.left()
            deadline.waiting_on = f"omap of {pool}/{RESHARD_NAMESPACE}/{oid}"
            return ceph.omap_page(pool, RESHARD_NAMESPACE, oid, after, OMAP_PAGE)

        entries = read_queue(read_omap, [self.ctx.rgw_log_pool], num_logs)
        return ReshardPart(collected_at=t, entries=tuple(entries))

    def _radosgw_admin(self, deadline: Deadline):
        t = time.time()
        argv = [*self.ctx.radosgw_admin_argv, "reshard", "list", "--format", "json"]
        return inputs.reshard_part(json.loads(radosgw_admin.run(argv, deadline.left())), t)
