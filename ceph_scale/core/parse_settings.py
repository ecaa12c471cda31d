"""The settings source's parsers: the `config get` values, and what each running RGW holds
(`config show`) of the options the signals depend on (fields: tests/fixtures/README.md)."""

from __future__ import annotations

from typing import Any, Callable

from .parse_base import (
    InputError,
    _count,
    _float,
    _get,
    _obj,
    _opt_str,
    _str,
    refuses_bad_shapes,
)
from .snapshot import ClusterSettings, RgwRunningOption

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
