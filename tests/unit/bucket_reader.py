"""A cluster's buckets in memory, read the way the bucket poll reads them.

Each bucket is a bucket-stats record captured from a real cluster
(tests/fixtures/<release>/admin_api_bucket.json, what `GET /admin/bucket?bucket=B&stats=true`
answers) with its name, ids, shards and object count set by the test. Reads are counted
with the costs measured on the real cluster (io/admin_ops.py), so a test can check
what a poll would have cost.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from ceph_scale.core import inputs
from ceph_scale.core.index_generation import shard0_oid
from ceph_scale.core.parse_buckets import user_quota
from ceph_scale.io.admin_ops import LIST_PAGE, META_READS, STATS_OVERHEAD_READS, USER_QUOTA_READS, listing_reads

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
OBJECT_BYTES = 4096  # the captures' 300 objects hold 1,228,800 bytes


class Clock:
    def __init__(self, t: float = 1_800_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class MemoryBuckets:
    stats_overhead = STATS_OVERHEAD_READS
    meta_reads = META_READS
    user_quota_reads = USER_QUOTA_READS

    def __init__(self, clock: Clock, release: str = "pacific") -> None:
        self.clock, self.release = clock, release
        self.template = json.loads((FIXTURES / release / "admin_api_bucket.json").read_text())
        self.template.pop("index_generation", None)
        self.buckets: dict[str, dict] = {}
        self.gens: dict[str, int] = {}  # bucket id -> index generation
        self.index_pool: set[str] = set()  # shard 0 of each bucket's current generation (and a target's)
        self.probes = 0
        self.stats_read: list[str] = []
        self.meta_read: list[str] = []
        self.listings = 0
        # What `GET /admin/user?quota&uid=U&quota-type=user` answers (the captured answer), per owner.
        self.quota_template = json.loads((FIXTURES / release / "admin_api_user_quota_only_acme_ops.json").read_text())
        self.user_quotas: dict[str, dict] = {}
        self.quota_read: list[str] = []
        self.with_generation = "index_generation" in json.loads(
            (FIXTURES / release / "admin_api_bucket.json").read_text()
        )

    # --- the cluster --------------------------------------------------------------

    def create(self, key: str, shards: int = 11, objects: int = 0, owner: str = "", size: int | None = None) -> None:
        """`owner` "" keeps the captured record's owner; `size` None: OBJECT_BYTES per object."""
        tenant, _, name = key.rpartition("/")
        bucket_id = f"zone.{len(self.buckets) + 1000}.1"
        # Top-level fields are set per bucket; of the nested ones only the quota is ever changed.
        self.buckets[key] = {**self.template, "bucket_quota": copy.copy(self.template["bucket_quota"]),
                             "bucket": name, "tenant": tenant, "id": bucket_id, "marker": bucket_id,
                             "num_shards": shards}  # fmt: skip
        if owner:
            self.buckets[key]["owner"] = owner
        self._generation(bucket_id, 0)
        self.set_objects(key, objects, size)

    def set_quota(self, key: str, max_size: int = -1, max_objects: int = -1) -> None:
        """The bucket quota as `radosgw-admin quota set --bucket` and `quota enable` leave it."""
        quota = self.buckets[key]["bucket_quota"]
        quota.update(enabled=True, max_size=max_size, max_objects=max_objects)
        quota["max_size_kb"] = max(0, -(-max_size // 1024))

    def _generation(self, bucket_id: str, gen: int) -> None:
        if bucket_id in self.gens:
            self.index_pool.discard(shard0_oid(bucket_id, self.gens[bucket_id]))
        self.gens[bucket_id] = gen
        self.index_pool.add(shard0_oid(bucket_id, gen))

    def set_objects(self, key: str, objects: int, size: int | None = None) -> None:
        size = objects * OBJECT_BYTES if size is None else size
        main = {
            "num_objects": objects,
            "size": size,
            "size_actual": size,
            "size_kb": -(-size // 1024),
            "size_kb_actual": -(-size // 1024),
            "size_kb_utilized": -(-size // 1024),
            "size_utilized": size,
        }
        self.buckets[key]["usage"] = {"rgw.main": main} if objects else {}  # fmt: skip

    def objects(self, key: str) -> int:
        return self.buckets[key]["usage"].get("rgw.main", {}).get("num_objects", 0)

    def reshard(self, key: str, shards: int, new_instance: bool) -> None:
        """Pacific gives the bucket a new instance id; Reef on keeps it and counts a generation up."""
        b = self.buckets[key]
        b["num_shards"] = shards
        if "reshard_status" in b:
            b["reshard_status"] = "None"
        if new_instance:
            b["id"] = f"{b['id']}.r"
            self._generation(b["id"], 0)
        else:
            self._generation(b["id"], self.gens[b["id"]] + 1)

    def begin_reshard(self, key: str, shards: int = 23) -> None:
        """From Reef on, a reshard being processed, as the captures show it
        (tests/fixtures/{reef,tentacle}/timeline_reshard_running.json): the target generation's
        index beside the current one; Tentacle's stats say `InLogrecord`; the shard count and the
        instance id stay as they were until `reshard` completes it."""
        if self.release == "pacific":
            return  # its target is a new instance (its queue entry's new_instance_id says it)
        b = self.buckets[key]
        target = self.gens[b["id"]] + 1
        self.index_pool |= {shard0_oid(b["id"], target)} | {f".dir.{b['id']}.{target}.{i}" for i in range(1, shards)}
        if "reshard_status" in b:
            b["reshard_status"] = "InLogrecord"

    def delete(self, key: str) -> None:
        del self.buckets[key]

    # --- the reads ----------------------------------------------------------------

    def list_instances(self, time_left):
        self.listings += 1
        pages = max(1, -(-len(self.buckets) // LIST_PAGE))
        return {k: (b["id"],) for k, b in self.buckets.items()}, listing_reads(pages, pages)

    def shards(self, key, instance_id, time_left):
        self.meta_read.append(key)
        b = self.buckets.get(key)
        return b["num_shards"] if b is not None and b["id"] == instance_id else None

    def stats(self, key, time_left):
        self.stats_read.append(key)
        b = self.buckets.get(key)
        if b is None:
            return None
        raw = {**b, "index_generation": self.gens[b["id"]]} if self.with_generation else b
        return inputs.bucket_record(raw, self.clock())

    def set_user_quota(self, owner: str, max_size: int = -1, max_objects: int = -1) -> None:
        """The user quota as `radosgw-admin quota set --quota-scope=user` and `quota enable` leave it."""
        kb = max(0, -(-max_size // 1024))
        self.user_quotas[owner] = {**self.quota_template, "enabled": True, "max_size": max_size,
                                   "max_objects": max_objects, "max_size_kb": kb}  # fmt: skip

    def user_quota(self, owner, time_left):
        self.quota_read.append(owner)
        unset = {**self.quota_template, "enabled": False, "max_size": -1, "max_objects": -1, "max_size_kb": 0}
        return user_quota(self.user_quotas.get(owner, unset), owner, self.clock())

    def exists(self, oid: str) -> bool:
        """A stat in the index pool."""
        self.probes += 1
        return oid in self.index_pool
