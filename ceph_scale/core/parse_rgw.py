"""The RGW parsers: bucket stats, user quotas, the metadata listings, the reshard queue and the service map's RGWs.

Shapes: tests/fixtures/README.md (RGW); every release's captures are in tests/fixtures/<release>/.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Callable

from .parse_base import InputError, _count, _get, _int, _list, _obj, _opt_str, _str, refuses_bad_shapes
from .snapshot import Bucket, BucketsPart, ReshardEntry, ReshardPart, RgwRunningOption, UserQuota

# --- the service map's RGWs and what each one runs with ---------------------------

# What each running RGW holds, read with `config show rgw.<name> <option>` (mgr 'allow r'):
# a ceph.conf section or a runtime change is invisible to `config get`.
RGW_RUNNING_OPTIONS = ("rgw_max_objs_per_shard", "rgw_reshard_num_logs")


@refuses_bad_shapes
def rgw_daemon_names(service_map: Any) -> list[str]:
    """The RGWs of a service map (`service dump`, or the manager's service_map), named as
    `config show rgw.<name>` wants them."""
    if not isinstance(service_map, dict):
        raise InputError(f"service map: expected an object with 'services', got {type(service_map).__name__}")
    if "services" not in service_map:
        raise InputError("service map: services: missing")
    services = service_map["services"]
    if not isinstance(services, dict):
        raise InputError(f"service map: services: expected an object, got {type(services).__name__}")
    if "rgw" not in services:  # the map lists a service once a daemon of it has registered
        return []
    rgw = services["rgw"]
    if not isinstance(rgw, dict) or not isinstance(rgw.get("daemons"), dict):
        raise InputError("service map: services.rgw.daemons: expected an object")
    # A restarted RGW registers under a new gid; its old entry stays until the manager's beacon
    # grace ends. Of entries for the same daemon (host and name), the latest start is the running one.
    latest: dict[tuple[str, str], tuple[int, str]] = {}
    for name, d in rgw["daemons"].items():
        if name == "summary":  # the service's status text (service_dump.json: "")
            continue
        p = f"service map: services.rgw.daemons.{name}"
        meta = _obj(_get(d, "metadata", p), p + ".metadata")
        # Pacific on key the daemons by gid and name them in metadata.id; before, the key is the name.
        key = (_str(_get(meta, "hostname", p + ".metadata"), p + ".metadata.hostname"),
               _opt_str(meta, "id", p + ".metadata") or name)  # fmt: skip
        started = _count(_get(d, "start_epoch", p), p + ".start_epoch")
        if key not in latest or started > latest[key][0]:
            latest[key] = (started, name)
    return sorted(name for _, name in latest.values())


def read_rgw_running(names: list[str], config_show: Callable[[str, str], Any]) -> tuple[RgwRunningOption, ...]:
    """config_show(who, option) for every RGW; an RGW the manager has no config state for yet
    (just started) or that cannot be read is left out and counted as unread by the signals."""
    out = []
    for name in names:
        try:
            values = [(option, config_show(f"rgw.{name}", option)) for option in RGW_RUNNING_OPTIONS]
        except Exception:  # noqa: BLE001 - one RGW unread is shown by the unread count, not a failed source
            continue
        out += [RgwRunningOption(name, option, _count(raw, f"config show rgw.{name} {option}"))
                for option, raw in values]  # fmt: skip
    return tuple(out)


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


# --- the reshard queue ---------------------------------------------------------------


@refuses_bad_shapes
def reshard_part(reshard_list: Any, collected_at: float) -> ReshardPart:
    """`radosgw-admin reshard list`.

    Pacific 16.2.8+ and Quincy name the target `tentative_new_num_shards`;
    Octopus and Pacific up to 16.2.7 `new_num_shards` (ceph/ceph #44386,
    #45509). `new_instance_id` is set once processing has begun; Reef's
    entries leave it out (reef/reshard_list_queued.json).
    """
    entries = []
    for i, e in enumerate(_list(reshard_list, "reshard_list")):
        p = f"reshard_list[{i}]"
        e = _obj(e, p)
        new_key = "new_num_shards" if "new_num_shards" in e else "tentative_new_num_shards"
        if new_key not in e:
            raise InputError(f"{p}.tentative_new_num_shards: missing (nor new_num_shards)")
        entries.append(
            ReshardEntry(
                bucket=_str(_get(e, "bucket_name", p), p + ".bucket_name"),
                tenant=_opt_str(e, "tenant", p),
                bucket_id=_str(_get(e, "bucket_id", p), p + ".bucket_id"),
                old_num_shards=_count(_get(e, "old_num_shards", p), p + ".old_num_shards"),
                new_num_shards=_count(e[new_key], f"{p}.{new_key}"),
                in_progress=bool(_opt_str(e, "new_instance_id", p)),
            )
        )
    return ReshardPart(collected_at=collected_at, entries=tuple(entries))
