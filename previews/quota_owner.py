"""A bucket owner every one of whose buckets has a quota, growing steadily through a previews run:
the condition under which the exporter gives a tenant its quota runway (core/signals/tenants/
derive.py: a tenant is bounded when every bucket it owns has one), so that the tenants table's
runway columns and "Shortest tenant quota runway" have data.

The owner is new each run (a user the run makes), so no older bucket of it without a quota makes it
unbounded. It grows at a steady rate (bursts would be fitted as level steps, not growth: core/
trend.py). Its byte quota is QUOTA_SECONDS of that growth: a runway of minutes, within
plan_max_extrapolation x the history once a minute of it is fitted (the "runway" column); its
object quota far above, a runway held to that (the "runway held (at least)" column). The writes
stop short of the byte quota, so RGW never refuses one.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from cluster import s3load

BUCKETS = 2
OBJECT_SIZE = 4096
PER_BUCKET_PER_SECOND = 1.0
QUOTA_SECONDS = 300
QUOTA_BYTES = int(QUOTA_SECONDS * PER_BUCKET_PER_SECOND * OBJECT_SIZE)  # per bucket
MAX_OBJECTS = int(0.9 * QUOTA_SECONDS * PER_BUCKET_PER_SECOND)  # per bucket: under the byte quota
# Far above: held to plan_max_extrapolation (30) x the fit's span for any run under 9 hours (2 million
# objects at 2/s). At 10,000 a run whose fit spanned more than 333 s (a loaded machine) was not held,
# and the held-runway column had no data.
QUOTA_OBJECTS = 1_000_000


@dataclass(frozen=True)
class QuotaOwner:
    uid: str
    access: str
    secret: str
    buckets: tuple[str, ...]


def make_quota_owner(cluster) -> QuotaOwner:
    """A new user with BUCKETS buckets, each with a bucket quota (objects and bytes) enabled."""
    uid = f"dash-quota-{int(time.time())}"
    user = cluster.radosgw_admin("user", "create", "--uid", uid, "--display-name", "previews: buckets with quotas")
    keys = user["keys"][0]
    owner = QuotaOwner(uid, keys["access_key"], keys["secret_key"], tuple(f"{uid}-{i}" for i in range(BUCKETS)))
    s3 = s3load.client(cluster.rgw_endpoint, owner.access, owner.secret)
    for bucket in owner.buckets:
        s3.create_bucket(Bucket=bucket)
        # `quota enable` sets the limits given with it too (radosgw-admin: enable falls through to set).
        cluster.radosgw_admin(
            "quota", "enable", "--quota-scope", "bucket", "--bucket", bucket,
            "--max-objects", str(QUOTA_OBJECTS), "--max-size", str(QUOTA_BYTES), fmt_json=False,
        )  # fmt: skip
        quota = cluster.bucket_stats(bucket).get("bucket_quota") or {}
        if not quota.get("enabled") or quota.get("max_objects") != QUOTA_OBJECTS:
            raise RuntimeError(f"bucket {bucket}: quota not set as asked: {quota}")
    return owner


class SteadyGrowth:
    """Small objects into each of the owner's buckets at PER_BUCKET_PER_SECOND, in a thread, until
    stopped or MAX_OBJECTS each. stop() raises if a write failed."""

    def __init__(self, cluster, owner: QuotaOwner) -> None:
        self.s3 = s3load.client(cluster.rgw_endpoint, owner.access, owner.secret)
        self.owner = owner
        self.written = 0
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"growth-{owner.uid}", daemon=True)

    def __enter__(self) -> SteadyGrowth:
        self._thread.start()
        return self

    def __exit__(self, exc_type, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=30)
        if exc_type is None:
            self.stop()  # a failed write is reported, unless the run failed first

    def _run(self) -> None:
        body = b"x" * OBJECT_SIZE
        start = time.monotonic()
        for i in range(MAX_OBJECTS):
            for bucket in self.owner.buckets:
                try:
                    self.s3.put_object(Bucket=bucket, Key=f"grow-{i:06d}", Body=body)
                    self.written += 1
                except Exception as e:  # reported by stop(); the run goes on without growth
                    self.errors.append(f"{bucket}: {type(e).__name__}: {e}"[:200])
                    return
            if self._stop.wait(max(0.0, start + (i + 1) / PER_BUCKET_PER_SECOND - time.monotonic())):
                return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)
        if self.errors:
            raise RuntimeError(f"{self.owner.uid}: a write failed after {self.written}: {self.errors[0]}")
