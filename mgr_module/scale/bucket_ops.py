"""The reshard queue's buckets' own op counters, read inside the manager (core/queued_bucket_ops.py):
what confirms or rules out a reshard as a plunge's cause (core/signals/plunge/own_ops.py). The
module's reshard source reads them with the queue; `ceph scale bucket-ops` gives them to the
sidecar's."""

from __future__ import annotations

import errno
import json
from typing import Any

from ceph_scale.core import queued_bucket_ops
from ceph_scale.core.parse_base import InputError
from ceph_scale.core.snapshot import BucketOps, ReshardEntry

from .module_parsers import perf_daemons


class QueuedBucketOps:
    """One read of the watched buckets' counters on every RGW the manager lists."""

    def __init__(self) -> None:
        self.watched = queued_bucket_ops.WatchedBuckets()

    def read(self, mgr: Any, entries: tuple[ReshardEntry, ...], t: float) -> tuple[tuple[BucketOps, ...], str]:
        buckets = self.watched.at(entries, t)
        if not buckets and entries and hasattr(mgr, "get_unlabeled_perf_schema"):
            return (), queued_bucket_ops.TENANTED
        return read(mgr, buckets)


def read(mgr: Any, buckets: list[str]) -> tuple[tuple[BucketOps, ...], str]:
    """The buckets' counts on every RGW, and "" or why there are none. A failure is said, not
    raised: the queue they go with was read."""
    if not hasattr(mgr, "get_unlabeled_perf_schema"):
        return (), queued_bucket_ops.NO_LABELED_CALLS
    if not buckets:
        return (), ""
    try:
        rgws = [ident for kind, ident in perf_daemons(mgr.list_servers()) if kind == "rgw"]
        return queued_bucket_ops.read_bucket_ops(
            lambda rgw, bucket, counter: mgr.get_latest_counter(
                "rgw", rgw, queued_bucket_ops.SECTION, counter, [("bucket", bucket)]
            ),
            lambda rgw, path: mgr.get_latest_unlabeled_counter("rgw", rgw, path),
            rgws,
            buckets,
        )
    except (InputError, RuntimeError, TypeError, KeyError) as e:
        return (), f"{type(e).__name__}: {e}"


def bucket_ops_reply(mgr: Any, buckets: str) -> tuple[int, str, str]:
    """`ceph scale bucket-ops B1,B2,...`: each RGW's counts of those buckets, and "" or why there
    are none (queued_bucket_ops.reply_part reads it back)."""
    names = [b for b in buckets.split(",") if b]
    if not names:
        return -errno.EINVAL, "", "mgr/scale: bucket-ops: no bucket named (B1,B2,...)"
    ops, unread = read(mgr, names)
    return 0, json.dumps(queued_bucket_ops.reply(ops, unread), sort_keys=True), ""
