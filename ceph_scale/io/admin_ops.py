"""The RGW Admin Ops API over HTTP, signed with AWS Signature V4, stdlib only: the one
client both producers use.

The bucket poll (core/bucket_poll.py) reads through `AdminOpsBuckets`: the bucket and
bucket-instance metadata listings a page at a time, one bucket's shard count, one bucket's
stats. It never asks for every bucket's stats at once (`GET /admin/bucket?stats=true`):
that reads every index shard of every bucket (docs/cluster-cost.md).
"""

from __future__ import annotations

import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator
from typing import Any, Callable

from ..core import inputs, json_bound
from ..core.parse_buckets import user_quota
from ..core.snapshot import Bucket, UserQuota
from . import bounded_http
from .sigv4 import sigv4_headers


class AdminOpsError(RuntimeError):
    """A failed request, said without the keys."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status  # the HTTP status, 0 when there was no answer


class AdminOps:
    def __init__(
        self,
        endpoint: str,
        access_key: str,
        secret_key: str,
        region: str = "us-east-1",
        verify_tls: bool = True,
        max_response_mb: int = json_bound.MAX_RESPONSE_BYTES >> 20,
    ) -> None:
        parsed = urllib.parse.urlsplit(endpoint)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise AdminOpsError(f"the RGW endpoint must be http(s)://host:port, got {endpoint!r:.100}")
        self.endpoint = endpoint.rstrip("/")
        self._access_key = access_key
        self._secret_key = secret_key
        self.region = region or "us-east-1"
        self.max_bytes = max_response_mb << 20
        self.context = None
        if parsed.scheme == "https" and not verify_tls:
            self.context = ssl._create_unverified_context()  # the operator's explicit choice

    def __repr__(self) -> str:  # never let a secret reach a log line
        return f"AdminOps({self.endpoint!r}, access_key={self._access_key[:4]}...)"

    def get_raw(self, path: str, params: dict[str, str], timeout: float) -> bytes:
        url = f"{self.endpoint}{path}?{urllib.parse.urlencode(params)}"
        headers = sigv4_headers("GET", url, self._access_key, self._secret_key, self.region)
        request = urllib.request.Request(url, headers=headers)
        try:
            return bounded_http.get(request, timeout, self.context, self.max_bytes)
        except urllib.error.HTTPError as e:
            detail = bounded_http.printable(e.read(300).decode(errors="replace").strip())
            raise AdminOpsError(f"RGW Admin Ops {self.endpoint}{path}: HTTP {e.code}: {detail}", e.code) from None
        except (urllib.error.URLError, OSError) as e:
            reason = bounded_http.printable(str(getattr(e, "reason", e)))
            raise AdminOpsError(f"RGW Admin Ops {self.endpoint}{path}: {reason}") from None

    def decode(self, path: str, body: bytes) -> Any:
        """The body decoded within json_bound.BUDGET_RATIO x the byte cap, whatever its shape."""
        try:
            return json_bound.loads(body, json_bound.BUDGET_RATIO * self.max_bytes)
        except json_bound.DecodeBoundError as e:
            raise AdminOpsError(f"RGW Admin Ops {path}: {e}") from None
        except ValueError as e:
            raise AdminOpsError(f"RGW Admin Ops {path}: invalid JSON: {e}") from None

    def get_json(self, path: str, params: dict[str, str], timeout: float) -> Any:
        return self.decode(path, self.get_raw(path, {**params, "format": "json"}, timeout))


# What the reads cost the cluster, measured on Pacific 16.2.15 with RGW's metadata cache
# cold (as at 100,000+ buckets, which outgrow its 10,000 entries; docs/cluster-cost.md):
STATS_OVERHEAD_READS = 5  # a bucket's stats: one read per index shard, plus its entrypoint and instance
META_READS = 2  # a bucket instance's metadata (its shard count)
# An owner's user quota (`GET /admin/user?quota&quota-type=user`): 0 to 1.8 measured, cold to warm
# on every release (tests/fixtures/<release>/user_quota_read_cost.json), charged as 2.
USER_QUOTA_READS = 2
LIST_PAGE = 1000
# A metadata listing page of up to LIST_PAGE keys, the costliest release's (Tentacle's `bucket`
# listing: 18 a page; Pacific's 6, every release's `bucket.instance` 5 or 6).
LIST_READS_PER_PAGE = {"bucket": 18, "bucket.instance": 6}


def listing_reads(bucket_pages: int, instance_pages: int) -> int:
    return bucket_pages * LIST_READS_PER_PAGE["bucket"] + instance_pages * LIST_READS_PER_PAGE["bucket.instance"]


def instances_by_bucket(buckets: Iterable[list[str]], instances: Iterable[list[str]]) -> dict[str, tuple[str, ...]]:
    """Every listed bucket with its listed instance ids (sorted), from the two listings a page
    at a time: only the result is held, never a list of every instance key (at 10^6 buckets
    the poll's first listing peaked 50 MB lower: `python -m bench.decode_bound --only listing`)."""
    ids: dict[str, tuple[str, ...]] = {}
    for page in buckets:
        ids.update(dict.fromkeys(page, ()))
    for page in instances:
        for key in page:
            bucket, instance = inputs.instance_key(key)
            held = ids.get(bucket)
            if held is not None:  # instances of deleted buckets may linger (stale instances)
                ids[bucket] = (*held, instance)
    for bucket, held in ids.items():
        if len(held) > 1:
            ids[bucket] = tuple(sorted(held))
    return ids


class AdminOpsBuckets:
    """The bucket poll's reads over the Admin Ops API (core/bucket_poll.BucketReader)."""

    stats_overhead = STATS_OVERHEAD_READS
    meta_reads = META_READS
    user_quota_reads = USER_QUOTA_READS

    def __init__(self, ops: AdminOps) -> None:
        self.ops = ops

    def _pages(self, section: str, time_left: Callable[[], float], page_sizes: list[int]) -> Iterator[list[str]]:
        """The listing's pages one at a time; each page's key count is appended to `page_sizes`."""
        path = f"/admin/metadata/{section}"
        marker = ""
        while True:
            params = {"max-entries": str(LIST_PAGE), **({"marker": marker} if marker else {})}
            page, marker = inputs.metadata_page(self.ops.get_json(path, params, time_left()), section)
            page_sizes.append(len(page))
            yield page
            if not marker:
                return

    def list_instances(self, time_left: Callable[[], float]) -> tuple[dict[str, tuple[str, ...]], int]:
        """Every bucket (its entrypoint) with the instance ids listed for it, and the reads it cost."""
        bucket_pages: list[int] = []
        instance_pages: list[int] = []
        ids = instances_by_bucket(
            self._pages("bucket", time_left, bucket_pages), self._pages("bucket.instance", time_left, instance_pages)
        )
        return ids, listing_reads(len(bucket_pages), len(instance_pages))

    def shards(self, key: str, instance_id: str, time_left: Callable[[], float]) -> int | None:
        """The shard count of one bucket instance; None if it is gone."""
        try:
            meta = self.ops.get_json("/admin/metadata/bucket.instance", {"key": f"{key}:{instance_id}"}, time_left())
        except AdminOpsError as e:
            if e.status == 404:
                return None
            raise
        return inputs.instance_shards(meta)

    def stats(self, key: str, time_left: Callable[[], float]) -> Bucket | None:
        """One bucket's stats (every index shard's header); None if it is gone."""
        try:
            raw = self.ops.get_json("/admin/bucket", {"bucket": key, "stats": "true"}, time_left())
        except AdminOpsError as e:
            if e.status == 404:
                return None
            raise
        return inputs.bucket_record(raw, time.time())

    def user_quota(self, owner: str, time_left: Callable[[], float]) -> UserQuota | None:
        """The owner's user quota alone (not its keys: `?quota` answers with the quota object); None
        if the user is gone."""
        params = {"quota": "", "uid": owner, "quota-type": "user"}
        try:
            raw = self.ops.get_json("/admin/user", params, time_left())
        except AdminOpsError as e:
            if e.status == 404:
                return None
            raise
        return user_quota(raw, owner, time.time())
