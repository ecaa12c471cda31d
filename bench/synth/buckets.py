"""The RGW side: the buckets (a few resharded, near or over their shard limit, or empty), their owners
and tenants, bucket and user quotas, the Admin Ops API's bucket stats and the reshard list."""

from __future__ import annotations

import random
from collections.abc import Iterator

from bench.synth.constants import (
    BUCKET_QUOTA_EVERY,
    BUCKETS_PER_OWNER,
    DAY,
    DEFAULT_SHARDS,
    OBJECT_BYTES,
    SHARD_LIMIT,
    TB,
    TENANT_EVERY,
    USER_QUOTA_EVERY,
    ZONE,
    ZONEGROUP,
    stamp_z,
)
from bench.synth.layout import Layout


class Buckets(Layout):
    def _bucket_plan(self) -> dict[int, tuple[int, int, bool]]:
        """Buckets that differ from the ~100K-object, 11-shard norm: index -> (objects, shards, resharded)."""
        rng = random.Random(self.seed * 1000 + 3)
        n = self.n_buckets
        special: dict[int, tuple[int, int, bool]] = {}
        if n == 0:
            return special
        picks = rng.sample(range(n), min(n, max(8, n // 500)))
        for j, b in enumerate(picks):
            kind = j % 4
            if kind == 0:  # grew big, dynamically resharded as in the 1B blog (16 -> 512 shards at 30 M)
                shards = rng.choice((23, 47, 97, 199, 401, 512))
                special[b] = (int(shards * SHARD_LIMIT * rng.uniform(0.3, 0.7)), shards, True)
            elif kind == 1:  # close to its shard limit: reshards next
                special[b] = (int(DEFAULT_SHARDS * SHARD_LIMIT * rng.uniform(0.8, 0.99)), DEFAULT_SHARDS, False)
            elif kind == 2:  # over the limit: queued in the reshard list
                special[b] = (int(DEFAULT_SHARDS * SHARD_LIMIT * rng.uniform(1.0, 1.3)), DEFAULT_SHARDS, False)
            else:  # empty or nearly
                special[b] = (rng.randint(0, 50), DEFAULT_SHARDS, False)
        return special

    def index_shards(self) -> int:
        """Index shards over all buckets."""
        special = self._bucket_plan()
        return DEFAULT_SHARDS * (self.n_buckets - len(special)) + sum(shards for _, shards, _ in special.values())

    def bucket_name(self, b: int) -> str:
        return f"s3bench-{b:07d}"

    @property
    def n_owners(self) -> int:
        return max(1, self.n_buckets // BUCKETS_PER_OWNER)

    def owner_of(self, b: int) -> int:
        """The owner of bucket `b`: a few large ones and many small ones (bucket b goes to an
        owner drawn with weight ~1/rank, seeded), every owner with one bucket at least."""
        if b < self.n_owners:
            return b
        return self._owner_draws[b - self.n_owners]

    @property
    def _owner_draws(self) -> list[int]:
        draws = getattr(self, "_draws", None)
        if draws is None:
            rng = random.Random(self.seed * 1000 + 7)
            weights = [1.0 / (r + 1) for r in range(self.n_owners)]
            draws = rng.choices(range(self.n_owners), weights, k=max(0, self.n_buckets - self.n_owners))
            self._draws = draws
        return draws

    def owner_name(self, o: int) -> tuple[str, str]:
        """(tenant, owner) as RGW names them: `tenant$user` for a tenant's user, else the uid."""
        if o % TENANT_EVERY == 1:
            tenant = f"tenant{o // TENANT_EVERY:04d}"
            return tenant, f"{tenant}$user{o:05d}"
        return "", f"user{o:05d}"

    def bucket_key(self, b: int) -> str:
        """The bucket's metadata key: `tenant/name` for a tenant's bucket."""
        tenant = self.owner_name(self.owner_of(b))[0]
        return f"{tenant}/{self.bucket_name(b)}" if tenant else self.bucket_name(b)

    def user_quota(self, o: int, objects: int) -> list[int] | None:
        """Owner `o`'s user quota, [max bytes, max objects] (room for about twice what its buckets
        hold), or None: every USER_QUOTA_EVERY-th owner has one."""
        if o % USER_QUOTA_EVERY != 5:
            return None
        return [2 * objects * OBJECT_BYTES + TB, 2 * objects + 10**6]

    def iter_buckets(self) -> Iterator[dict]:
        rng = random.Random(self.seed * 1000 + 4)
        special = self._bucket_plan()
        for b in range(self.n_buckets):
            objects, shards, resharded = special.get(b, (None, DEFAULT_SHARDS, False))
            if objects is None:
                objects = rng.randint(95_000, 105_000)
            else:
                rng.random()  # keep the sequence independent of the plan
            o = self.owner_of(b)
            tenant, owner = self.owner_name(o)
            quota = o % BUCKET_QUOTA_EVERY == 0
            inst = self.rgw_list[b % self.n_rgws][1]
            marker = f"{ZONE}.{inst}.{b + 1}"
            bucket_id = f"{ZONE}.{inst}.{self.n_buckets + b + 1}" if resharded else marker
            created = self.now - 180 * DAY + b * (150 * DAY / max(1, self.n_buckets))
            per_shard = objects // shards
            size = objects * OBJECT_BYTES
            usage = (
                {
                    "rgw.main": {
                        "num_objects": objects,
                        "size": size,
                        "size_actual": size,
                        "size_kb": size // 1024,
                        "size_kb_actual": size // 1024,
                        "size_kb_utilized": size // 1024,
                        "size_utilized": size,
                    }
                }
                if objects
                else {}
            )
            yield {
                "bucket": self.bucket_name(b),
                "bucket_quota": {
                    "check_on_raw": False,
                    "enabled": quota,
                    "max_objects": 2 * objects + 1000 if quota else -1,
                    "max_size": (2 * objects + 1000) * OBJECT_BYTES if quota else -1,
                    "max_size_kb": (2 * objects + 1000) * OBJECT_BYTES // 1024 if quota else 0,
                },
                "creation_time": stamp_z(created),
                "explicit_placement": {"data_extra_pool": "", "data_pool": "", "index_pool": ""},
                "id": bucket_id,
                "index_type": "Normal",
                "marker": marker,
                "master_ver": ",".join(f"{s}#0" for s in range(shards)),
                "max_marker": ",".join(f"{s}#" for s in range(shards)),
                "mtime": stamp_z(created + 3600),
                "num_shards": shards,
                "owner": owner,
                "placement_rule": "default-placement",
                "tenant": tenant,
                "usage": usage,
                "ver": ",".join(f"{s}#{per_shard * 2 + s % 3}" for s in range(shards)),
                "zonegroup": ZONEGROUP,
            }

    def reshard_list(self) -> list:
        """The over-limit buckets, queued; the first one being processed."""
        over = sorted(b for b, (objects, shards, _) in self._bucket_plan().items() if objects > shards * SHARD_LIMIT)
        out = []
        for j, b in enumerate(over):
            inst = self.rgw_list[b % self.n_rgws][1]
            out.append(
                {
                    "bucket_id": f"{ZONE}.{inst}.{b + 1}",
                    "bucket_name": self.bucket_name(b),
                    "new_instance_id": f"{self.bucket_name(b)}:{ZONE}.{inst}.{3 * self.n_buckets + b}"
                    if j == 0
                    else "",
                    "old_num_shards": DEFAULT_SHARDS,
                    "tenant": self.owner_name(self.owner_of(b))[0],
                    "tentative_new_num_shards": 23,
                    "time": stamp_z(self.now - 60 * (j + 1)),
                }
            )
        return out
