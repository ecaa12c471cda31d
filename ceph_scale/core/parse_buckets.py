"""The buckets source's parsers: bucket stats, user quotas and the metadata listings.

Shapes: tests/fixtures/README.md (RGW); every release's captures are in tests/fixtures/<release>/.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .parse_base import InputError, _count, _get, _int, _list, _obj, _opt_str, _str, refuses_bad_shapes
from .snapshot import Bucket, BucketsPart, UserQuota

# --- bucket stats ------------------------------------------------------------------


@refuses_bad_shapes
def buckets_part(bucket_stats: Any, collected_at: float) -> BucketsPart:
    """`radosgw-admin bucket stats` or Admin Ops `GET /admin/bucket?stats=true`: a list of bucket objects."""
    records = _bucket_records(_list(bucket_stats, "bucket_stats"), collected_at)
    return BucketsPart(collected_at=collected_at, buckets=tuple(records))


def _bucket_records(stats: Iterable[Any], stats_at: float) -> Iterator[Bucket]:
    for i, b in enumerate(stats):
        yield _bucket_fast(b, stats_at) or _bucket_checked(b, i, stats_at=stats_at)


@refuses_bad_shapes
def bucket_record(stats: Any, stats_at: float) -> Bucket:
    """One bucket's `GET /admin/bucket?bucket=B&stats=true` (or `radosgw-admin bucket stats --bucket B`)."""
    return _bucket_fast(stats, stats_at) or _bucket_checked(stats, 0, "bucket_stats", stats_at)


_TEXT_FIELDS = ("tenant", "owner", "marker", "creation_time")
NO_QUOTA = -1  # Bucket.quota_bytes / quota_objects: none set (RGW's own "unlimited")
# Tentacle's bucket stats: the index layout's reshard state, "None" or the stage of a reshard under
# way: most of the copy runs as InLogrecord (writes go on), its last moment as InProgress (writes
# wait): tests/fixtures/tentacle/timeline_reshard_running.json. RGW names a state it does not know
# "Unknown": a reshard under way too, as every state but None is.
NOT_RESHARDING = "None"


def _bucket_fast(b: Any, stats_at: float) -> Bucket | None:
    """The common well-formed record without building error paths; None sends it to _bucket_checked,
    which gives the same Bucket for everything this takes (tests/unit/test_parser_properties.py)."""
    if type(b) is not dict:
        return None
    name, bucket_id, shards, usage = b.get("bucket"), b.get("id"), b.get("num_shards"), b.get("usage")
    if type(name) is not str or type(bucket_id) is not str or type(shards) is not int or shards < 0:
        return None
    if type(usage) is not dict:
        return None
    objects: Any = 0  # no rgw.main: an empty bucket (see _bucket_checked)
    size: Any = 0
    if "rgw.main" in usage:
        main = usage["rgw.main"]
        if type(main) is not dict:
            return None
        objects, size = main.get("num_objects"), main.get("size_actual")
        if type(objects) is not int or objects < 0 or type(size) is not int or size < 0:
            return None
    quota = _quota_fast(b)
    if quota is None:
        return None
    tenant, owner, marker, created = (b.get(k, "") for k in _TEXT_FIELDS)
    if type(tenant) is not str or type(owner) is not str or type(marker) is not str or type(created) is not str:
        return None
    gen = b.get("index_generation")  # Tentacle's bucket stats; absent before
    if gen is not None and (type(gen) is not int or gen < 0):
        return None
    state = b.get("reshard_status", NOT_RESHARDING)  # Tentacle's too
    if type(state) is not str:
        return None
    return Bucket(
        name=name,
        tenant=tenant,
        bucket_id=bucket_id,
        num_shards=shards,
        num_objects=objects,
        owner=owner,
        # A bucket never resharded has marker == id: one string, not two (100,000s of buckets).
        marker=bucket_id if marker == bucket_id else marker,
        created=created,
        index_gen=gen,
        stats_at=stats_at,
        size_bytes=size,
        quota_bytes=quota[0],
        quota_objects=quota[1],
        resharding=state != NOT_RESHARDING,
    )


def _quota_fast(b: dict[str, Any]) -> tuple[int, int] | None:
    """(bytes, objects) of a well-formed bucket_quota, NO_QUOTA where unset; None: not well-formed."""
    if "bucket_quota" not in b:
        return NO_QUOTA, NO_QUOTA
    q = b["bucket_quota"]
    if type(q) is not dict:
        return None
    enabled, size, objects = q.get("enabled"), q.get("max_size"), q.get("max_objects")
    if type(enabled) is not bool or type(size) is not int or type(objects) is not int:
        return None
    if not enabled:
        return NO_QUOTA, NO_QUOTA
    return (size if size >= 0 else NO_QUOTA), (objects if objects >= 0 else NO_QUOTA)


def _quota_checked(b: dict[str, Any], p: str) -> tuple[int, int]:
    """A bucket's `bucket_quota` (every release's stats carry it; absent: none known, none applied).
    RGW reads a negative max_size or max_objects as unlimited, and applies neither while disabled."""
    if "bucket_quota" not in b:
        return NO_QUOTA, NO_QUOTA
    return _quota_object(b["bucket_quota"], p + ".bucket_quota")


def _quota_object(quota: Any, p: str) -> tuple[int, int]:
    """(max bytes, max objects) of one of RGW's quota objects, each NO_QUOTA where none applies."""
    q = _obj(quota, p)
    enabled = _get(q, "enabled", p)
    if type(enabled) is not bool:
        raise InputError(f"{p}.enabled: expected true or false, got {enabled!r:.40}")
    size, objects = _int(_get(q, "max_size", p), p + ".max_size"), _int(_get(q, "max_objects", p), p + ".max_objects")
    if not enabled:
        return NO_QUOTA, NO_QUOTA
    return (size if size >= 0 else NO_QUOTA), (objects if objects >= 0 else NO_QUOTA)


@refuses_bad_shapes
def user_quota(answer: Any, owner: str, read_at: float) -> UserQuota:
    """An owner's user quota from `GET /admin/user?quota&uid=U&quota-type=user` (the quota
    object itself) or `radosgw-admin user info --uid U` (its `user_quota`)."""
    p = f"user {owner}"
    if isinstance(answer, dict) and "user_quota" in answer:
        answer, p = answer["user_quota"], p + ".user_quota"
    size, objects = _quota_object(answer, p)
    return UserQuota(owner, size, objects, read_at)


def _bucket_checked(b: Any, i: int, p: str = "", stats_at: float = 0.0) -> Bucket:
    p = p or f"bucket_stats[{i}]"
    b = _obj(b, p)
    usage = _obj(_get(b, "usage", p), p + ".usage")
    # An empty bucket has "usage": {} (admin_api_bucket.json of every release: s1-000001):
    # rgw.main, the category that holds the objects, appears with the first object.
    objects = size = 0
    if "rgw.main" in usage:
        main = _obj(usage["rgw.main"], p + ".usage.rgw.main")
        objects = _count(_get(main, "num_objects", p + ".usage.rgw.main"), p + ".usage.rgw.main.num_objects")
        size = _count(_get(main, "size_actual", p + ".usage.rgw.main"), p + ".usage.rgw.main.size_actual")
    quota_bytes, quota_objects = _quota_checked(b, p)
    gen = b.get("index_generation")
    state = _str(b.get("reshard_status", NOT_RESHARDING), p + ".reshard_status")
    return Bucket(
        name=_str(_get(b, "bucket", p), p + ".bucket"),
        tenant=_opt_str(b, "tenant", p),
        bucket_id=_str(_get(b, "id", p), p + ".id"),
        num_shards=_count(_get(b, "num_shards", p), p + ".num_shards"),
        num_objects=objects,
        owner=_opt_str(b, "owner", p),
        marker=_opt_str(b, "marker", p),
        created=_opt_str(b, "creation_time", p),
        index_gen=None if gen is None else _count(gen, p + ".index_generation"),
        stats_at=stats_at,
        size_bytes=size,
        quota_bytes=quota_bytes,
        quota_objects=quota_objects,
        resharding=state != NOT_RESHARDING,
    )


# --- the metadata listings ----------------------------------------------------------


@refuses_bad_shapes
def metadata_page(page: Any, section: str) -> tuple[list[str], str]:
    """A page of `GET /admin/metadata/<section>?max-entries=N`: (keys, marker of the next page or "").

    `truncated` is the string "true"/"false" on Pacific and a JSON boolean from Reef on
    (admin_api_metadata_bucket_page.json); the marker is there only when truncated. Without
    max-entries RGW answers a plain list of every key."""
    p = f"metadata {section}"
    if isinstance(page, list):
        return [_str(k, f"{p}[{i}]") for i, k in enumerate(page)], ""
    keys = [_str(k, f"{p}.keys[{i}]") for i, k in enumerate(_list(_get(page, "keys", p), p + ".keys"))]
    truncated = _get(page, "truncated", p)
    if truncated not in (True, False, "true", "false"):
        raise InputError(f"{p}.truncated: expected true or false, got {truncated!r:.40}")
    return keys, _str(_get(page, "marker", p), p + ".marker") if truncated in (True, "true") else ""


def instance_key(key: str) -> tuple[str, str]:
    """A `bucket.instance` metadata key, `[tenant/]name:instance id`: (bucket key, instance id)."""
    bucket, sep, instance = key.rpartition(":")
    if not sep or not bucket or not instance:
        raise InputError(f"bucket.instance key {key!r:.120}: expected [tenant/]name:instance_id")
    return bucket, instance


@refuses_bad_shapes
def instance_shards(meta: Any) -> int:
    """The index shard count in `GET /admin/metadata/bucket.instance?key=...` (or `radosgw-admin
    metadata get bucket.instance:...`), the same on every release (tests/fixtures/*/metadata_bucket_instance.json)."""
    p = "bucket.instance.data.bucket_info"
    info = _get(_get(meta, "data", "bucket.instance"), "bucket_info", "bucket.instance.data")
    return _count(_get(info, "num_shards", p), p + ".num_shards")
