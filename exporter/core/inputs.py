"""Raw Ceph outputs to snapshot parts: pure functions, no I/O.

Inputs are the decoded JSON of the `ceph` / `radosgw-admin` commands (the
same shapes the manager hands its modules), or the text of the mgr
prometheus module. Every function raises `InputError` with the path of the
offending field, so a source can report one clear line and keep its last
good part instead of serving a half-built one.

Ceph versions differ; the differences known and handled are listed where
they are read (Pacific is captured in tests/fixtures/pacific/).
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Iterator
from datetime import date, datetime, timezone
from typing import Any, Callable

from .json_stream import iter_json_array
from .snapshot import (
    Bucket,
    BucketsPart,
    CapacityPart,
    ClusterSettings,
    FullRatios,
    HealthCheck,
    HealthPart,
    Osd,
    OsdMapPart,
    PgPart,
    PgScrubState,
    Pool,
    ReshardEntry,
    ReshardPart,
    RgwRunningOption,
)


class InputError(ValueError):
    """A raw input that does not have the expected shape."""


def refuses_bad_shapes(func):
    """The parsers check the fields they know; this turns any shape they did not
    foresee (a list where an object was, a number where a string was) into the
    same clear InputError, so a source never dies of an unexpected TypeError."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except InputError:
            raise
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as e:
            raise InputError(f"{func.__name__}: unexpected input shape: {type(e).__name__}: {e}") from None

    return wrapper


def _get(obj: Any, key: str, path: str) -> Any:
    if not isinstance(obj, dict):
        raise InputError(f"{path}: expected an object, got {type(obj).__name__}")
    if key not in obj:
        raise InputError(f"{path}.{key}: missing")
    return obj[key]


def _list(obj: Any, path: str) -> list:
    if not isinstance(obj, list):
        raise InputError(f"{path}: expected a list, got {type(obj).__name__}")
    return obj


def _int(value: Any, path: str) -> int:
    if isinstance(value, bool):
        raise InputError(f"{path}: expected an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise InputError(f"{path}: expected an integer, got {value!r:.80}")


def _float(value: Any, path: str) -> float:
    if isinstance(value, bool):
        raise InputError(f"{path}: expected a number, got {value!r}")
    if isinstance(value, (int, float)):
        f = float(value)
    elif isinstance(value, str):
        try:
            f = float(value.strip())
        except ValueError:
            raise InputError(f"{path}: expected a number, got {value!r:.80}") from None
    else:
        raise InputError(f"{path}: expected a number, got {type(value).__name__}")
    if not math.isfinite(f):
        raise InputError(f"{path}: expected a finite number, got {value!r}")
    return f


def _str(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{path}: expected a string, got {type(value).__name__}")
    return value


def parse_stamp(value: Any, path: str) -> float:
    """Ceph time stamps to epoch seconds.

    Pacific and later: "2026-11-22T20:41:11.123456+0000"; Octopus and
    earlier: "2020-02-04 10:20:30.123456" (UTC, no zone).
    """
    s = _str(value, path).strip()
    fast = _pacific_stamp(s)
    if fast is not None:
        return fast
    return stamp_by_formats(s, path)


def stamp_by_formats(s: str, path: str) -> float:
    """The general path, for what the Pacific fast path does not take."""
    for fmt in ("%Y-%m-%dT%H:%M:%S.%f%z", "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S"):
        try:
            dt = datetime.strptime(s, fmt)
        except ValueError:
            continue
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=timezone.utc)
        return dt.timestamp()
    raise InputError(f"{path}: not a Ceph time stamp: {s!r:.80}")


_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


@functools.lru_cache(maxsize=4096)
def _epoch_day(year: int, month: int, day: int) -> int:
    return date(year, month, day).toordinal() - _EPOCH_ORDINAL


def _pacific_stamp(s: str) -> float | None:
    """parse_stamp's value for exactly "YYYY-MM-DDTHH:MM:SS.ffffff+HHMM", else None.

    strptime costs ~10 us and a PG has two stamps: 21,760 PGs spent most of
    their parsing there. The same integer microseconds divided the same way
    as datetime.timestamp() does, so the float is identical (tests/bench/).
    Anything else (other formats, out-of-range fields) takes strptime's path.
    """
    if (
        len(s) != 31
        or s[4] != "-"
        or s[7] != "-"
        or s[10] != "T"
        or s[13] != ":"
        or s[16] != ":"
        or s[19] != "."
        or s[26] not in "+-"
        or not s.isascii()
    ):
        return None
    digits = s[0:4] + s[5:7] + s[8:10] + s[11:13] + s[14:16] + s[17:19] + s[20:26] + s[27:31]
    if not digits.isdigit():
        return None
    hour, minute, second = int(s[11:13]), int(s[14:16]), int(s[17:19])
    off_h, off_m = int(s[27:29]), int(s[29:31])
    if hour > 23 or minute > 59 or second > 59 or off_h > 23 or off_m > 59:
        return None
    try:
        days = _epoch_day(int(s[0:4]), int(s[5:7]), int(s[8:10]))
    except ValueError:
        return None
    offset = (off_h * 3600 + off_m * 60) * (1 if s[26] == "+" else -1)
    micros = (days * 86400 + hour * 3600 + minute * 60 + second - offset) * 1_000_000 + int(s[20:26])
    return micros / 10**6


# --- osd_map: `osd df`, `osd dump`, `osd metadata` --------------------------------


@refuses_bad_shapes
def osd_map_part(osd_df: Any, osd_dump: Any, osd_metadata: Any, collected_at: float) -> OsdMapPart:
    nodes = _list(_get(osd_df, "nodes", "osd_df"), "osd_df.nodes")
    dump_osds = _list(_get(osd_dump, "osds", "osd_dump"), "osd_dump.osds")
    state: dict[int, tuple[bool, bool]] = {}
    for i, o in enumerate(dump_osds):
        p = f"osd_dump.osds[{i}]"
        state[_int(_get(o, "osd", p), p + ".osd")] = (
            bool(_int(_get(o, "up", p), p + ".up")),
            bool(_int(_get(o, "in", p), p + ".in")),
        )
    metadata = _metadata_by_id(osd_metadata)
    osds = []
    for i, n in enumerate(nodes):
        p = f"osd_df.nodes[{i}]"
        osd_id = _int(_get(n, "id", p), p + ".id")
        up, in_cluster = state.get(osd_id, (False, False))
        meta = metadata.get(osd_id, {})
        osds.append(
            Osd(
                osd_id=osd_id,
                device_class=str(n.get("device_class", "") or ""),
                host=str(meta.get("hostname", "")),
                up=up,
                in_cluster=in_cluster,
                size_bytes=_int(_get(n, "kb", p), p + ".kb") * 1024,
                used_bytes=_int(_get(n, "kb_used", p), p + ".kb_used") * 1024,
                avail_bytes=_int(_get(n, "kb_avail", p), p + ".kb_avail") * 1024,
                dedicated_db=_flag(meta.get("bluefs_dedicated_db")),
                db_device_bytes=_opt_int(meta.get("bluefs_db_size"), f"osd_metadata[{osd_id}].bluefs_db_size"),
                data_device_bytes=_opt_int(
                    meta.get("bluestore_bdev_size"), f"osd_metadata[{osd_id}].bluestore_bdev_size"
                ),
            )
        )
    ratios = FullRatios(
        nearfull=_float(_get(osd_dump, "nearfull_ratio", "osd_dump"), "osd_dump.nearfull_ratio"),
        backfillfull=_float(_get(osd_dump, "backfillfull_ratio", "osd_dump"), "osd_dump.backfillfull_ratio"),
        full=_float(_get(osd_dump, "full_ratio", "osd_dump"), "osd_dump.full_ratio"),
    )
    flags = osd_dump.get("flags", "")
    flag_set = frozenset(f for f in flags.split(",") if f) if isinstance(flags, str) else frozenset()
    fsid = osd_dump.get("fsid", "")
    return OsdMapPart(
        collected_at=collected_at,
        osds=tuple(osds),
        ratios=ratios,
        flags=flag_set,
        fsid=fsid if isinstance(fsid, str) else "",
    )


def _metadata_by_id(osd_metadata: Any) -> dict[int, dict]:
    # `ceph osd metadata` gives a list with "id"; the manager's
    # get_metadata / get("osd_metadata") gives a dict keyed by id as a string.
    if isinstance(osd_metadata, dict):
        items = [(k, v) for k, v in osd_metadata.items()]
        return {_int(k, f"osd_metadata[{k!r}]"): v for k, v in items if isinstance(v, dict)}
    out = {}
    for i, m in enumerate(_list(osd_metadata, "osd_metadata")):
        if isinstance(m, dict) and "id" in m:
            out[_int(m["id"], f"osd_metadata[{i}].id")] = m
    return out


def _flag(value: Any) -> bool | None:
    if value is None:
        return None
    return str(value).strip().lower() in ("1", "true", "yes")


def _opt_int(value: Any, path: str) -> int | None:
    if value in (None, ""):
        return None
    return _int(value, path)


# --- capacity: `df detail` + pool types from `osd dump` ---------------------------


@refuses_bad_shapes
def capacity_part(df: Any, osd_dump: Any, collected_at: float) -> CapacityPart:
    stats = _get(df, "stats", "df")
    total = _int(_get(stats, "total_bytes", "df.stats"), "df.stats.total_bytes")
    # total_used_raw_bytes includes BlueStore's DB and overhead: what fills OSDs.
    used_key = "total_used_raw_bytes" if "total_used_raw_bytes" in stats else "total_used_bytes"
    used = _int(_get(stats, used_key, "df.stats"), f"df.stats.{used_key}")
    avail = _int(_get(stats, "total_avail_bytes", "df.stats"), "df.stats.total_avail_bytes")
    layout = _pool_layout(osd_dump)
    pools = []
    for i, p in enumerate(_list(_get(df, "pools", "df"), "df.pools")):
        path = f"df.pools[{i}]"
        pool_id = _int(_get(p, "id", path), path + ".id")
        s = _get(p, "stats", path)
        sp = path + ".stats"
        pools.append(
            Pool(
                pool_id=pool_id,
                name=_str(_get(p, "name", path), path + ".name"),
                stored_bytes=_int(_get(s, "stored", sp), sp + ".stored"),
                used_bytes=_int(_get(s, "bytes_used", sp), sp + ".bytes_used"),
                max_avail_bytes=_int(_get(s, "max_avail", sp), sp + ".max_avail"),
                used_ratio=_float(_get(s, "percent_used", sp), sp + ".percent_used"),
                objects=_int(_get(s, "objects", sp), sp + ".objects"),
                **layout.get(pool_id, {"erasure_coded": False, "data_chunks": 1, "coding_chunks": 0}),
            )
        )
    return CapacityPart(
        collected_at=collected_at, total_bytes=total, used_bytes=used, avail_bytes=avail, pools=tuple(pools)
    )


def _pool_layout(osd_dump: Any) -> dict[int, dict[str, Any]]:
    """Per pool: EC layout, application and its own scrub intervals (0: the cluster's)."""
    profiles = osd_dump.get("erasure_code_profiles", {}) if isinstance(osd_dump, dict) else {}
    out: dict[int, dict[str, Any]] = {}
    for i, p in enumerate(_list(_get(osd_dump, "pools", "osd_dump"), "osd_dump.pools")):
        path = f"osd_dump.pools[{i}]"
        pool_id = _int(_get(p, "pool", path), path + ".pool")
        size = _int(_get(p, "size", path), path + ".size")
        apps = p.get("application_metadata") or {}
        app = ",".join(sorted(apps)) if isinstance(apps, dict) else ""
        if _int(p.get("type", 1), path + ".type") == 3:  # erasure
            profile = profiles.get(p.get("erasure_code_profile", ""), {})
            k = _opt_int(profile.get("k"), f"{path}.profile.k") if isinstance(profile, dict) else None
            # Without the profile, min_size defaults to k+1.
            k = k or max(1, _int(p.get("min_size", size - 1), path + ".min_size") - 1)
            ec, m = True, size - k
        else:
            ec, k, m = False, 1, size - 1
        options = p.get("options") or {}
        if not isinstance(options, dict):
            raise InputError(f"{path}.options: expected an object")
        out[pool_id] = {
            "erasure_coded": ec,
            "data_chunks": k,
            "coding_chunks": m,
            "application": app,
            # `ceph osd pool set <pool> scrub_max_interval|deep_scrub_interval`: PG_NOT_(DEEP_)SCRUBBED
            # judges the pool's PGs by them when set.
            "scrub_max_interval_seconds": _float(
                options.get("scrub_max_interval", 0), path + ".options.scrub_max_interval"
            ),
            "deep_scrub_interval_seconds": _float(
                options.get("deep_scrub_interval", 0), path + ".options.deep_scrub_interval"
            ),
        }
    return out


# --- pgs: `pg dump pgs` ----------------------------------------------------------


@refuses_bad_shapes
def pg_part(pg_dump: Any, collected_at: float) -> PgPart:
    # `pg dump pgs -f json` gives {"pg_ready":..., "pg_stats": [...]} (Pacific+)
    # or a bare list (Nautilus); `pg dump` nests them under "pg_map".
    if isinstance(pg_dump, dict) and "pg_map" in pg_dump:
        pg_dump = pg_dump["pg_map"]
    stats = pg_dump if isinstance(pg_dump, list) else _get(pg_dump, "pg_stats", "pg_dump")
    return PgPart(collected_at=collected_at, pgs=tuple(_pg_records(_list(stats, "pg_dump.pg_stats"))))


def _pg_records(stats: Iterable) -> Iterator[PgScrubState]:
    for i, s in enumerate(stats):
        yield _pg_fast(s) or _pg_checked(s, i)


def _pg_fast(s: Any) -> PgScrubState | None:
    """The common well-formed record without building error paths; None sends it to _pg_checked."""
    if type(s) is not dict:
        return None
    pgid, state = s.get("pgid"), s.get("state")
    scrub, deep = s.get("last_scrub_stamp"), s.get("last_deep_scrub_stamp")
    if type(pgid) is not str or type(state) is not str or type(scrub) is not str or type(deep) is not str:
        return None
    pool = pgid.split(".", 1)[0]
    if not (pool.isascii() and pool.isdigit()):
        return None
    scrub_t, deep_t = _pacific_stamp(scrub.strip()), _pacific_stamp(deep.strip())
    if scrub_t is None or deep_t is None:
        return None
    return PgScrubState(
        pgid=pgid, pool_id=int(pool), state=state, last_scrub_stamp=scrub_t, last_deep_scrub_stamp=deep_t
    )


def _pg_checked(s: Any, i: int) -> PgScrubState:
    p = f"pg_dump.pg_stats[{i}]"
    pgid = _str(_get(s, "pgid", p), p + ".pgid")
    return PgScrubState(
        pgid=pgid,
        pool_id=_int(pgid.split(".", 1)[0], p + ".pgid"),
        state=_str(_get(s, "state", p), p + ".state"),
        last_scrub_stamp=parse_stamp(_get(s, "last_scrub_stamp", p), p + ".last_scrub_stamp"),
        last_deep_scrub_stamp=parse_stamp(_get(s, "last_deep_scrub_stamp", p), p + ".last_deep_scrub_stamp"),
    )


def pg_part_from_json(raw: bytes, collected_at: float, decode: Callable[[bytes], Any] = json.loads) -> PgPart:
    """pg_part(decode(raw), collected_at), without ever holding the whole decoded dump.

    At 21,760 PGs `pg dump pgs` is ~50 MB of JSON that decodes to ~100 MB of
    dicts, of which five fields per PG are kept; the PGs are decoded a chunk
    at a time instead (see iter_json_array). Any input that is not the plain
    shape, or any error, goes through pg_part(decode(raw)): the same part,
    the same exception.
    """
    try:
        stream = iter_json_array(raw, "pg_stats")
        if stream is not None:
            return PgPart(collected_at=collected_at, pgs=tuple(_pg_records(stream)))
    except Exception:  # the exact outcome, error included, is the full decode's
        pass
    return pg_part(decode(raw), collected_at)


# --- settings: `config get` values -----------------------------------------------

SETTING_OPTIONS = {
    "osd_scrub_max_interval": "scrub_max_interval_seconds",
    "osd_deep_scrub_interval": "deep_scrub_interval_seconds",
    "mon_warn_pg_not_scrubbed_ratio": "warn_pg_not_scrubbed_ratio",
    "mon_warn_pg_not_deep_scrubbed_ratio": "warn_pg_not_deep_scrubbed_ratio",
    "rgw_max_objs_per_shard": "rgw_max_objs_per_shard",
    "bluestore_min_alloc_size_hdd": "bluestore_min_alloc_size_hdd",
    "osd_max_scrubs": "osd_max_scrubs",
    "mon_target_pg_per_osd": "mon_target_pg_per_osd",
}
# The options the manager's PG_NOT_(DEEP_)SCRUBBED checks use: read from the running manager.
SCRUB_HEALTH_OPTIONS = (
    "osd_scrub_max_interval",
    "osd_deep_scrub_interval",
    "mon_warn_pg_not_scrubbed_ratio",
    "mon_warn_pg_not_deep_scrubbed_ratio",
)
_INT_SETTINGS = ("rgw_max_objs_per_shard", "bluestore_min_alloc_size_hdd", "osd_max_scrubs", "mon_target_pg_per_osd")


# What each running RGW holds, read with `config show rgw.<name> <option>` (mgr 'allow r'):
# a ceph.conf section or a runtime change is invisible to `config get`.
RGW_RUNNING_OPTIONS = ("rgw_max_objs_per_shard", "rgw_reshard_num_logs")


def rgw_daemon_names(service_map: Any) -> list[str]:
    """The RGWs of a service map (`service dump`, or the manager's service_map), named as
    `config show rgw.<name>` wants them."""
    services = service_map.get("services") if isinstance(service_map, dict) else None
    if not isinstance(services, dict):
        raise InputError("service map: expected an object with 'services'")
    daemons = (services.get("rgw") or {}).get("daemons") or {}
    if not isinstance(daemons, dict):
        raise InputError("service map: services.rgw.daemons: expected an object")
    # A restarted RGW registers under a new gid; its old entry stays until the manager's beacon
    # grace ends. Of entries for the same daemon (host and name), the latest start is the running one.
    latest: dict[tuple[str, str], tuple[int, str]] = {}
    for name, d in daemons.items():
        if name == "summary" or not isinstance(d, dict):
            continue
        meta = d.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        key = (str(meta.get("hostname", "")), str(meta.get("id", name)))
        started = _int(d.get("start_epoch", 0), f"service map: services.rgw.daemons.{name}.start_epoch")
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
        out += [RgwRunningOption(name, option, _int(raw, f"config show rgw.{name} {option}")) for option, raw in values]
    return tuple(out)


@refuses_bad_shapes
def settings_part(
    values: dict[str, Any],
    collected_at: float,
    rgw_running: tuple[RgwRunningOption, ...] = (),
    rgw_daemons: int = 0,
) -> ClusterSettings:
    """values: Ceph option name -> value as `config get` returns it; missing ones keep Ceph's defaults.
    rgw_running: the running RGWs' own values, of rgw_daemons in the service map."""
    if not isinstance(values, dict):
        raise InputError(f"settings: expected an object of option values, got {type(values).__name__}")
    kwargs: dict[str, Any] = {}
    for option, field_name in SETTING_OPTIONS.items():
        if option not in values or values[option] in (None, ""):
            continue
        raw = values[option]
        if field_name in _INT_SETTINGS:
            kwargs[field_name] = _int(raw, option)
        else:
            kwargs[field_name] = _float(raw, option)
    return ClusterSettings(collected_at=collected_at, rgw_running=rgw_running, rgw_daemons=rgw_daemons, **kwargs)


# --- health: `health detail` -----------------------------------------------------


@refuses_bad_shapes
def health_part(health: Any, collected_at: float) -> HealthPart:
    status = _str(_get(health, "status", "health"), "health.status")
    checks = []
    raw_checks = health.get("checks", {})
    if not isinstance(raw_checks, dict):
        raise InputError("health.checks: expected an object")
    for code, c in sorted(raw_checks.items()):
        p = f"health.checks.{code}"
        summary = _get(c, "summary", p)
        message = summary.get("message", "") if isinstance(summary, dict) else str(summary)
        count = summary.get("count") if isinstance(summary, dict) else None
        if count is None:  # before Octopus: no count, one detail line each
            count = len(c.get("detail", []) or []) or 1
        checks.append(
            HealthCheck(
                code=code,
                severity=_str(_get(c, "severity", p), p + ".severity"),
                count=_int(count, p + ".summary.count"),
                summary=str(message),
            )
        )
    return HealthPart(collected_at=collected_at, status=status, checks=tuple(checks))


# --- RGW: bucket stats and the reshard queue -------------------------------------


@refuses_bad_shapes
def buckets_part(bucket_stats: Any, collected_at: float) -> BucketsPart:
    """`radosgw-admin bucket stats` or Admin Ops `GET /admin/bucket?stats=true`: a list of bucket objects."""
    records = _bucket_records(_list(bucket_stats, "bucket_stats"), collected_at)
    return BucketsPart(collected_at=collected_at, buckets=tuple(records))


def _bucket_records(stats: Iterable, stats_at: float) -> Iterator[Bucket]:
    for i, b in enumerate(stats):
        yield _bucket_fast(b, stats_at) or _bucket_checked(b, i, stats_at=stats_at)


@refuses_bad_shapes
def bucket_record(stats: Any, stats_at: float) -> Bucket:
    """One bucket's `GET /admin/bucket?bucket=B&stats=true` (or `radosgw-admin bucket stats --bucket B`)."""
    return _bucket_fast(stats, stats_at) or _bucket_checked(stats, 0, "bucket_stats", stats_at)


@refuses_bad_shapes
def metadata_page(page: Any, section: str) -> tuple[list[str], str]:
    """A page of `GET /admin/metadata/<section>?max-entries=N`: (keys, marker of the next page or "").

    RGW says `"truncated": "true"` (a string) and gives the marker only then; without
    max-entries it answers a plain list of every key."""
    if isinstance(page, list):
        return [_str(k, f"{section}[{i}]") for i, k in enumerate(page)], ""
    p = f"metadata {section}"
    keys = [_str(k, f"{p}.keys[{i}]") for i, k in enumerate(_list(_get(page, "keys", p), p + ".keys"))]
    truncated = str(page.get("truncated", "false")).lower() == "true"
    return keys, _str(_get(page, "marker", p), p + ".marker") if truncated else ""


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
    return _int(_get(info, "num_shards", p), p + ".num_shards")


def _bucket_fast(b: Any, stats_at: float) -> Bucket | None:
    """The common well-formed record without building error paths; None sends it to _bucket_checked."""
    if type(b) is not dict:
        return None
    name, bucket_id, shards = b.get("bucket"), b.get("id"), b.get("num_shards")
    if type(name) is not str or type(bucket_id) is not str or type(shards) is not int:
        return None
    usage = b.get("usage")
    objects = 0
    if type(usage) is dict:
        main = usage.get("rgw.main")
        if type(main) is dict:
            objects = main.get("num_objects", 0)
            if type(objects) is not int:
                return None
        elif main is not None:
            return None
    elif usage is not None and isinstance(usage, dict):
        return None
    marker = str(b.get("marker", "") or "")
    gen = b.get("index_generation")  # Tentacle's bucket stats; absent before
    if gen is not None and type(gen) is not int:
        return None
    return Bucket(
        name=name,
        tenant=str(b.get("tenant", "") or ""),
        bucket_id=bucket_id,
        num_shards=shards,
        num_objects=objects,
        owner=str(b.get("owner", "") or ""),
        # A bucket never resharded has marker == id: one string, not two (100,000s of buckets).
        marker=bucket_id if marker == bucket_id else marker,
        created=str(b.get("creation_time", "") or ""),
        index_gen=gen,
        stats_at=stats_at,
    )


def _bucket_checked(b: Any, i: int, p: str = "", stats_at: float = 0.0) -> Bucket:
    p = p or f"bucket_stats[{i}]"
    if not isinstance(b, dict):
        raise InputError(f"{p}: expected an object, got {type(b).__name__}")
    usage = b.get("usage") if isinstance(b, dict) else None
    objects = 0
    if isinstance(usage, dict):
        for category, u in usage.items():
            # rgw.main holds the objects; rgw.multimeta counts upload parts.
            if category == "rgw.main" and isinstance(u, dict):
                objects = _int(u.get("num_objects", 0), f"{p}.usage.rgw.main.num_objects")
    return Bucket(
        name=_str(_get(b, "bucket", p), p + ".bucket"),
        tenant=str(b.get("tenant", "") or ""),
        bucket_id=_str(_get(b, "id", p), p + ".id"),
        num_shards=_int(_get(b, "num_shards", p), p + ".num_shards"),
        num_objects=objects,
        owner=str(b.get("owner", "") or ""),
        marker=str(b.get("marker", "") or ""),
        created=str(b.get("creation_time", "") or ""),
        index_gen=_opt_int(b.get("index_generation"), p + ".index_generation"),
        stats_at=stats_at,
    )


@refuses_bad_shapes
def reshard_part(reshard_list: Any, collected_at: float) -> ReshardPart:
    """`radosgw-admin reshard list`.

    Pacific 16.2.8+ and Quincy name the target `tentative_new_num_shards`;
    Octopus and Pacific up to 16.2.7 `new_num_shards` (ceph/ceph #44386,
    #45509). `new_instance_id` is set once processing has begun.
    """
    entries = []
    for i, e in enumerate(_list(reshard_list, "reshard_list")):
        p = f"reshard_list[{i}]"
        new = e.get("new_num_shards", e.get("tentative_new_num_shards")) if isinstance(e, dict) else None
        if new is None:
            raise InputError(f"{p}: missing new_num_shards / tentative_new_num_shards")
        entries.append(
            ReshardEntry(
                bucket=_str(_get(e, "bucket_name", p), p + ".bucket_name"),
                tenant=str(e.get("tenant", "") or ""),
                bucket_id=str(e.get("bucket_id", "") or ""),
                old_num_shards=_int(e.get("old_num_shards", 0), p + ".old_num_shards"),
                new_num_shards=_int(new, p + ".new_num_shards"),
                in_progress=bool(e.get("new_instance_id")),
            )
        )
    return ReshardPart(collected_at=collected_at, entries=tuple(entries))


# --- perf counters: the manager's per-daemon counters or the prometheus module ----

from .snapshot import BlueFsCounters, OsdOpCounters, PerfPart, RgwOpCounters  # noqa: E402

# Counter paths as the manager names them, and the mgr prometheus module's
# names for the same counters (`ceph_` + path with "." -> "_").
# Tentacle's RGW counts S3 objects ops in the `rgw_op` set (ceph_rgw_op_put_obj_ops, ...).
RENAMED_COUNTERS = {
    "rgw_op.put_obj_ops": "rgw.put",
    "rgw_op.get_obj_ops": "rgw.get",
    "rgw_op.put_obj_bytes": "rgw.put_b",
    "rgw_op.get_obj_bytes": "rgw.get_b",
    "rgw_op.put_obj_lat.sum": "rgw.put_initial_lat.sum",
    "rgw_op.put_obj_lat.count": "rgw.put_initial_lat.count",
    "rgw_op.get_obj_lat.sum": "rgw.get_initial_lat.sum",
    "rgw_op.get_obj_lat.count": "rgw.get_initial_lat.count",
}
# Averaged counters (seconds summed, ops counted): read as "<path>.sum" and "<path>.count",
# the mgr prometheus module's <name>_sum and <name>_count.
AVERAGED_COUNTERS = ("rgw.put_initial_lat", "rgw.get_initial_lat", "rgw_op.put_obj_lat", "rgw_op.get_obj_lat")
PERF_COUNTERS = (
    "bluefs.db_total_bytes",
    "bluefs.db_used_bytes",
    "bluefs.slow_used_bytes",
    "osd.op_r",
    "osd.op_w",
    "osd.op_r_out_bytes",
    "osd.op_w_in_bytes",
    "rgw.get",
    "rgw.put",
    "rgw.get_b",
    "rgw.put_b",
    "rgw.req",  # every RGW has it: tells an RGW without S3 op counters from no RGW
    "rgw.failed_req",
    "rgw.qlen",
    "rgw.qactive",
    *(f"{path}.{part}" for path in AVERAGED_COUNTERS[:2] for part in ("sum", "count")),
    *RENAMED_COUNTERS,
)
_PROM_NAMES = {"ceph_" + c.replace(".", "_"): c for c in PERF_COUNTERS}


_SAMPLE = re.compile(r"^(ceph_[a-zA-Z0-9_]+)\{(.*)\}\s+(\S+)(?:\s+-?\d+)?$")
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)')


@refuses_bad_shapes
def counters_from_prometheus_text(text: str) -> dict[str, dict[str, float]]:
    """daemon -> {counter path: value} from the mgr prometheus module's /metrics.

    Only the few families we need are parsed, line by line: at 318 OSDs the
    module's output is megabytes and a full parse would dominate the cycle.
    RGW daemons are keyed "rgw.<instance_id>", as Pacific labels their counters.
    A malformed or cut line among those families refuses the whole input.
    """
    out: dict[str, dict[str, float]] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.startswith("ceph_"):
            continue
        name = line.split("{", 1)[0].split(" ", 1)[0]
        path = _PROM_NAMES.get(name)
        if path is None:
            continue
        m = _SAMPLE.match(line)
        if m is None:
            raise InputError(f"mgr prometheus line {lineno}: not a sample: {line[:80]!r}")
        labels = _labels(m.group(2), lineno)
        # Pacific labels RGW counters with instance_id only; OSDs with ceph_daemon.
        daemon = labels.get("ceph_daemon") or (f"rgw.{labels['instance_id']}" if labels.get("instance_id") else None)
        if daemon is None:
            raise InputError(f"mgr prometheus line {lineno}: {name} has neither ceph_daemon nor instance_id")
        out.setdefault(daemon, {})[path] = _float(m.group(3), f"mgr prometheus line {lineno}")
    return out


def _labels(text: str, lineno: int) -> dict[str, str]:
    labels: dict[str, str] = {}
    pos = 0
    while pos < len(text):
        m = _LABEL.match(text, pos)
        if m is None or m.end() == pos:
            raise InputError(f"mgr prometheus line {lineno}: bad labels near {text[pos : pos + 40]!r}")
        labels[m.group(1)] = re.sub(r"\\(.)", lambda e: "\n" if e.group(1) == "n" else e.group(1), m.group(2))
        pos = m.end()
    return labels


def _latency(c: dict[str, float], op: str, daemon: str) -> dict[str, Any]:
    """The op's latency sum and count, both or neither (an RGW without the counters)."""
    total, count = c.get(f"rgw.{op}_initial_lat.sum"), c.get(f"rgw.{op}_initial_lat.count")
    if total is None or count is None:
        return {}
    where = f"perf[{daemon}].rgw.{op}_initial_lat"
    return {f"{op}_latency_sum": _float(total, where + ".sum"), f"{op}_latency_count": _int(count, where + ".count")}


def _demand(c: dict[str, float], daemon: str) -> dict[str, Any]:
    """Requests in flight, received and failed, where the RGW reports them (every release here)."""
    out: dict[str, Any] = {}
    queued = c.get("rgw.qlen", c.get("rgw.qactive"))
    if queued is not None:
        out["in_flight"] = _int(queued, f"perf[{daemon}].rgw.qlen")
    if "rgw.req" in c:
        out["requests"] = _int(c["rgw.req"], f"perf[{daemon}].rgw.req")
    if "rgw.failed_req" in c:
        out["failed_requests"] = _int(c["rgw.failed_req"], f"perf[{daemon}].rgw.failed_req")
    return out


@refuses_bad_shapes
def perf_part(counters: dict[str, dict[str, float]], collected_at: float) -> PerfPart:
    """counters: daemon name ("osd.3", "rgw.<id>") -> {counter path: value}."""
    bluefs, osd_ops, rgw_ops, rgw_without_ops = [], [], [], []
    for daemon, c in sorted(counters.items()):
        c = {RENAMED_COUNTERS.get(path, path): value for path, value in c.items()}
        kind, _, ident = daemon.partition(".")
        if kind == "osd":
            osd_id = _int(ident, f"perf[{daemon}]")
            if "bluefs.db_total_bytes" in c:
                bluefs.append(
                    BlueFsCounters(
                        osd_id=osd_id,
                        db_total_bytes=_int(c["bluefs.db_total_bytes"], f"perf[{daemon}].bluefs.db_total_bytes"),
                        db_used_bytes=_int(c.get("bluefs.db_used_bytes", 0), f"perf[{daemon}].bluefs.db_used_bytes"),
                        slow_used_bytes=_int(
                            c.get("bluefs.slow_used_bytes", 0), f"perf[{daemon}].bluefs.slow_used_bytes"
                        ),
                    )
                )
            if "osd.op_r" in c and "osd.op_w" in c:
                osd_ops.append(
                    OsdOpCounters(
                        osd_id=osd_id,
                        read_ops=_int(c["osd.op_r"], f"perf[{daemon}].osd.op_r"),
                        write_ops=_int(c["osd.op_w"], f"perf[{daemon}].osd.op_w"),
                        read_bytes=_int(c.get("osd.op_r_out_bytes", 0), f"perf[{daemon}].osd.op_r_out_bytes"),
                        write_bytes=_int(c.get("osd.op_w_in_bytes", 0), f"perf[{daemon}].osd.op_w_in_bytes"),
                    )
                )
        elif kind in ("rgw", "client") and "rgw.put" not in c and "rgw.req" in c:
            rgw_without_ops.append(ident)
        elif kind in ("rgw", "client") and "rgw.put" in c:
            rgw_ops.append(
                RgwOpCounters(
                    instance_id=ident,
                    get_ops=_int(c.get("rgw.get", 0), f"perf[{daemon}].rgw.get"),
                    put_ops=_int(c["rgw.put"], f"perf[{daemon}].rgw.put"),
                    get_bytes=_int(c.get("rgw.get_b", 0), f"perf[{daemon}].rgw.get_b"),
                    put_bytes=_int(c.get("rgw.put_b", 0), f"perf[{daemon}].rgw.put_b"),
                    **_latency(c, "get", daemon),
                    **_latency(c, "put", daemon),
                    **_demand(c, daemon),
                )
            )
    return PerfPart(
        collected_at=collected_at,
        bluefs=tuple(bluefs),
        osd_ops=tuple(osd_ops),
        rgw_ops=tuple(rgw_ops),
        rgw_without_s3_ops=tuple(rgw_without_ops),
    )
