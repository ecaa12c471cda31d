"""The reshard queue's buckets' own op counters, read inside the manager (core/queued_bucket_ops.py):
what confirms or rules out a reshard as a plunge's cause (core/signals/plunge/own_ops.py)."""

from __future__ import annotations

from typing import Any

from ceph_scale.core import queued_bucket_ops
from ceph_scale.core.parse_base import InputError
from ceph_scale.core.snapshot import BucketOps, ReshardEntry

from .module_parsers import perf_daemons

NO_LABELED_CALLS = "this manager has no labeled counter calls (Reef's has none, Tentacle's has)"
TENANTED = "a tenant's bucket is not read: the counters label a bucket by its name alone"


class QueuedBucketOps:
    """One read of the watched buckets' counters on every RGW the manager lists."""

    def __init__(self) -> None:
        self.watched = queued_bucket_ops.WatchedBuckets()

    def read(self, mgr: Any, entries: tuple[ReshardEntry, ...], t: float) -> tuple[tuple[BucketOps, ...], str]:
        buckets = self.watched.at(entries, t)
        if not hasattr(mgr, "get_unlabeled_perf_schema"):
            return (), NO_LABELED_CALLS
        if not buckets:
            return (), TENANTED if entries else ""
        try:
            rgws = [ident for kind, ident in perf_daemons(mgr.list_servers()) if kind == "rgw"]
            return queued_bucket_ops.read_bucket_ops(
                lambda rgw, bucket, counter: mgr.get_latest_counter(
                    "rgw", rgw, queued_bucket_ops.SECTION, counter, [("bucket", bucket)]
                ),
                rgws,
                buckets,
            )
        except (InputError, RuntimeError, TypeError, KeyError) as e:  # the queue itself was read
            return (), f"{type(e).__name__}: {e}"
