"""The cluster-wide parsers: `osd df` + `osd dump` + `osd metadata`, `df detail`,
`health detail` and the `config get` values (fields: tests/fixtures/README.md)."""

from __future__ import annotations

from typing import Any

from .parse_base import (
    InputError,
    _count,
    _flag,
    _float,
    _get,
    _int,
    _list,
    _obj,
    _opt_int,
    _opt_str,
    _str,
    refuses_bad_shapes,
)
from .snapshot import CapacityPart, ClusterSettings, FullRatios, HealthCheck, HealthPart, Osd, OsdMapPart, Pool

# --- osd_map: `osd df`, `osd dump`, `osd metadata` --------------------------------


@refuses_bad_shapes
def osd_map_part(osd_df: Any, osd_dump: Any, osd_metadata: Any, collected_at: float) -> OsdMapPart:
    nodes = _list(_get(osd_df, "nodes", "osd_df"), "osd_df.nodes")
    dump_osds = _list(_get(osd_dump, "osds", "osd_dump"), "osd_dump.osds")
    state: dict[int, tuple[bool, bool]] = {}
    for i, o in enumerate(dump_osds):
        p = f"osd_dump.osds[{i}]"
        state[_count(_get(o, "osd", p), p + ".osd")] = (
            bool(_int(_get(o, "up", p), p + ".up")),
            bool(_int(_get(o, "in", p), p + ".in")),
        )
    metadata = _metadata_by_id(osd_metadata)
    osds = []
    for i, n in enumerate(nodes):
        p = f"osd_df.nodes[{i}]"
        osd_id = _count(_get(n, "id", p), p + ".id")
        if osd_id not in state:  # the OSD was created or removed between the two commands
            raise InputError(f"{p}.id: osd.{osd_id} is not in osd_dump.osds")
        up, in_cluster = state[osd_id]
        # `osd metadata` lists only OSDs that have booted once; the others have none.
        meta = metadata.get(osd_id, {})
        mp = f"osd_metadata[{osd_id}]"
        osds.append(
            Osd(
                osd_id=osd_id,
                device_class=_opt_str(n, "device_class", p),
                host=_opt_str(meta, "hostname", mp),
                up=up,
                in_cluster=in_cluster,
                size_bytes=_count(_get(n, "kb", p), p + ".kb") * 1024,
                used_bytes=_count(_get(n, "kb_used", p), p + ".kb_used") * 1024,
                dedicated_db=_flag(meta.get("bluefs_dedicated_db")),
                data_device_bytes=_opt_int(meta.get("bluestore_bdev_size"), mp + ".bluestore_bdev_size"),
            )
        )
    ratios = FullRatios(
        nearfull=_float(_get(osd_dump, "nearfull_ratio", "osd_dump"), "osd_dump.nearfull_ratio"),
        backfillfull=_float(_get(osd_dump, "backfillfull_ratio", "osd_dump"), "osd_dump.backfillfull_ratio"),
        full=_float(_get(osd_dump, "full_ratio", "osd_dump"), "osd_dump.full_ratio"),
    )
    # Always there, "" when no flag is set: a missing one would hide noscrub.
    flags = _str(_get(osd_dump, "flags", "osd_dump"), "osd_dump.flags")
    return OsdMapPart(
        collected_at=collected_at,
        osds=tuple(osds),
        ratios=ratios,
        flags=frozenset(f for f in flags.split(",") if f),
        fsid=_opt_str(osd_dump, "fsid", "osd_dump"),
    )


def _metadata_by_id(osd_metadata: Any) -> dict[int, dict[str, Any]]:
    # `ceph osd metadata` gives a list with "id"; the manager's
    # get_metadata / get("osd_metadata") gives a dict keyed by id as a string.
    if isinstance(osd_metadata, dict):
        return {
            _count(k, f"osd_metadata[{k!r:.40}]"): _obj(v, f"osd_metadata[{k!r:.40}]") for k, v in osd_metadata.items()
        }
    out = {}
    for i, m in enumerate(_list(osd_metadata, "osd_metadata")):
        p = f"osd_metadata[{i}]"
        out[_count(_get(m, "id", p), p + ".id")] = m
    return out


# --- capacity: `df detail` + pool types from `osd dump` ---------------------------


@refuses_bad_shapes
def capacity_part(df: Any, osd_dump: Any, collected_at: float) -> CapacityPart:
    stats = _get(df, "stats", "df")
    total = _count(_get(stats, "total_bytes", "df.stats"), "df.stats.total_bytes")
    # total_used_raw_bytes includes BlueStore's DB and overhead: what fills OSDs.
    # Releases before it (Mimic) have total_used_bytes only.
    used_key = "total_used_raw_bytes" if "total_used_raw_bytes" in stats else "total_used_bytes"
    used = _count(_get(stats, used_key, "df.stats"), f"df.stats.{used_key}")
    layout = _pool_layout(osd_dump)
    pools = []
    for i, p in enumerate(_list(_get(df, "pools", "df"), "df.pools")):
        path = f"df.pools[{i}]"
        pool_id = _count(_get(p, "id", path), path + ".id")
        if pool_id not in layout:  # created or deleted between the two reads
            raise InputError(f"{path}.id: pool {pool_id} is not in osd_dump.pools")
        s = _get(p, "stats", path)
        sp = path + ".stats"
        pools.append(
            Pool(
                pool_id=pool_id,
                name=_str(_get(p, "name", path), path + ".name"),
                stored_bytes=_count(_get(s, "stored", sp), sp + ".stored"),
                used_bytes=_count(_get(s, "bytes_used", sp), sp + ".bytes_used"),
                max_avail_bytes=_count(_get(s, "max_avail", sp), sp + ".max_avail"),
                used_ratio=_float(_get(s, "percent_used", sp), sp + ".percent_used"),
                objects=_count(_get(s, "objects", sp), sp + ".objects"),
                **layout[pool_id],
            )
        )
    return CapacityPart(collected_at=collected_at, total_bytes=total, used_bytes=used, pools=tuple(pools))


def _pool_layout(osd_dump: Any) -> dict[int, dict[str, Any]]:
    """Per pool: EC layout and its own scrub intervals (0: the cluster's)."""
    profiles = _obj(_obj(osd_dump, "osd_dump").get("erasure_code_profiles", {}), "osd_dump.erasure_code_profiles")
    out: dict[int, dict[str, Any]] = {}
    for i, p in enumerate(_list(_get(osd_dump, "pools", "osd_dump"), "osd_dump.pools")):
        path = f"osd_dump.pools[{i}]"
        pool_id = _count(_get(p, "pool", path), path + ".pool")
        size = _count(_get(p, "size", path), path + ".size")
        if size < 1:
            raise InputError(f"{path}.size: expected at least 1, got {size}")
        if _int(_get(p, "type", path), path + ".type") == 3:  # erasure
            where = path + ".erasure_code_profile"
            profile = _obj(profiles.get(_opt_str(p, "erasure_code_profile", path), {}), where)
            k = _opt_int(profile.get("k"), where + " k")
            # Without the profile, min_size defaults to k+1.
            k = k or max(1, _int(p.get("min_size", size - 1), path + ".min_size") - 1)
            if not 1 <= k < size:
                raise InputError(f"{where}: {k} data chunks in a pool of size {size}")
            m = size - k
        else:
            k, m = 1, size - 1
        # Ceph lists a pool option only once it is set (osd_dump.json: pools[].options == {}):
        # absent is the cluster's interval, which 0 stands for here.
        options = _obj(p.get("options") or {}, path + ".options")
        out[pool_id] = {
            "data_chunks": k,
            "coding_chunks": m,
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


# --- health: `health detail` -----------------------------------------------------


@refuses_bad_shapes
def health_part(health: Any, collected_at: float) -> HealthPart:
    status = _str(_get(health, "status", "health"), "health.status")
    # Always there ({} when HEALTH_OK, health_detail*.json): a missing one would read as no checks.
    raw_checks = _obj(_get(health, "checks", "health"), "health.checks")
    checks = []
    for code, c in sorted(raw_checks.items()):
        p = f"health.checks.{code}"
        summary = _obj(_get(c, "summary", p), p + ".summary")
        count = summary.get("count")
        if count is None:  # before Octopus: no count, one detail line each
            count = len(_list(c.get("detail", []) or [], p + ".detail")) or 1
        checks.append(
            HealthCheck(
                code=code,
                severity=_str(_get(c, "severity", p), p + ".severity"),
                count=_count(count, p + ".summary.count"),
                summary=_str(_get(summary, "message", p + ".summary"), p + ".summary.message"),
            )
        )
    return HealthPart(collected_at=collected_at, status=status, checks=tuple(checks))


# --- settings: `config get` values -----------------------------------------------

SETTING_OPTIONS = {
    "osd_scrub_max_interval": "scrub_max_interval_seconds",
    "osd_deep_scrub_interval": "deep_scrub_interval_seconds",
    "mon_warn_pg_not_scrubbed_ratio": "warn_pg_not_scrubbed_ratio",
    "mon_warn_pg_not_deep_scrubbed_ratio": "warn_pg_not_deep_scrubbed_ratio",
    "rgw_max_objs_per_shard": "rgw_max_objs_per_shard",
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
_INT_SETTINGS = ("rgw_max_objs_per_shard", "osd_max_scrubs", "mon_target_pg_per_osd")


@refuses_bad_shapes
def settings_part(
    values: dict[str, Any],
    collected_at: float,
    rgw_running: tuple[Any, ...] = (),
    rgw_daemons: int = 0,
) -> ClusterSettings:
    """values: Ceph option name -> value as `config get` returns it; an option left out (not
    asked, or not known to this release) keeps Ceph's default, as the cluster itself does.
    rgw_running: the running RGWs' own values (RgwRunningOption), of rgw_daemons in the service map."""
    if not isinstance(values, dict):
        raise InputError(f"settings: expected an object of option values, got {type(values).__name__}")
    kwargs: dict[str, Any] = {}
    for option, field_name in SETTING_OPTIONS.items():
        if option not in values or values[option] in (None, ""):
            continue
        raw = values[option]
        kwargs[field_name] = _count(raw, option) if field_name in _INT_SETTINGS else _float(raw, option)
    return ClusterSettings(collected_at=collected_at, rgw_running=rgw_running, rgw_daemons=rgw_daemons, **kwargs)
