from __future__ import annotations

import dataclasses
import json
import time

from ceph_scale.core import inputs
from ceph_scale.core.queued_bucket_ops import TENANTED, WatchedBuckets, reply_part
from ceph_scale.core.reshard_queue import OMAP_PAGE, RESHARD_NAMESPACE, queue_log_count, read_queue
from ceph_scale.core.snapshot import BucketOps, ReshardPart
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

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.watched = WatchedBuckets()

    def collect(self, deadline: Deadline):
        part = self._radosgw_admin(deadline) if self.ctx.reshard_backend == "radosgw-admin" else self._omap(deadline)
        ops, unread = self.bucket_ops(part, deadline)
        return dataclasses.replace(part, bucket_ops=ops, bucket_ops_unread=unread)

    def bucket_ops(self, part: ReshardPart, deadline: Deadline) -> tuple[tuple[BucketOps, ...], str]:
        """The queued (and lately queued) buckets' own op counts, which confirm or rule out a
        reshard as a plunge's cause: only the manager's labeled calls give them, so the `scale`
        module's `scale bucket-ops` (under the read-only `mgr 'allow r'`). Without it, or on a
        manager before Tentacle, why not is said and the queue kept."""
        buckets = self.watched.at(part.entries, part.collected_at)
        if not buckets:
            return (), TENANTED if part.entries else ""
        try:
            return reply_part(self.ceph("scale bucket-ops", deadline, buckets=",".join(buckets)))
        except Exception as e:  # the queue was read: the counts are unread, and why
            why = " ".join(str(e).split()) or type(e).__name__
            return (), why if "scale bucket-ops" in why else f"`ceph scale bucket-ops`: {why}"

    def _omap(self, deadline: Deadline) -> ReshardPart:
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

    def _radosgw_admin(self, deadline: Deadline) -> ReshardPart:
        t = time.time()
        argv = [*self.ctx.radosgw_admin_argv, "reshard", "list", "--format", "json"]
        return inputs.reshard_part(json.loads(radosgw_admin.run(argv, deadline.left())), t)
