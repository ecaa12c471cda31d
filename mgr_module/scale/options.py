"""The module's options: every core threshold under its own name, plus the module's own.

Kept free of Ceph imports so that the option list and its validation are unit-tested
without a manager; module.py turns the specs into `Option(...)` objects.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

from ceph_scale.core.config import SETTINGS, ConfigError, Thresholds, check_number
from ceph_scale.core.signals.check_options import OPTION_FIELDS as CHECK_OPTION_FIELDS

DEFAULT_PORT = 9284  # prometheus is 9283; the sidecar defaults to 9928


@dataclass(frozen=True)
class OptionSpec:
    name: str
    type: str  # 'int', 'float', 'str', 'bool'
    default: Any
    desc: str
    min: Any = None
    max: Any = None
    enum_allowed: tuple[str, ...] | None = None
    runtime: bool = True

    def as_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for mgr_module.Option (keyword style, as Quincy+ requires)."""
        kw: dict[str, Any] = {
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "desc": self.desc,
            "runtime": self.runtime,
        }
        if self.min is not None:
            kw["min"] = self.min
        if self.max is not None:
            kw["max"] = self.max
        if self.enum_allowed is not None:
            kw["enum_allowed"] = list(self.enum_allowed)
        return kw


RGW_SOURCES = ("auto", "admin_api", "radosgw_admin", "off")


def threshold_specs() -> tuple[OptionSpec, ...]:
    out = []
    for s in SETTINGS:
        if s.kind is str:
            out.append(OptionSpec(s.name, "str", s.default, s.doc))
            continue
        kind = "int" if s.kind is int else "float"
        cast = int if kind == "int" else float
        # No default where the cluster has its own value: unset then reads as None, not as a choice.
        default = None if s.cluster_value else cast(s.default)
        assert s.minimum is not None and s.maximum is not None  # every number has its range
        out.append(OptionSpec(s.name, kind, default, s.doc, cast(s.minimum), cast(s.maximum)))
    return tuple(out)


def all_specs() -> tuple[OptionSpec, ...]:
    specs = threshold_specs() + MODULE_SPECS
    names = [s.name for s in specs]
    assert len(names) == len(set(names)), "duplicate option name"
    return specs


THRESHOLD_NAMES = tuple(s.name for s in SETTINGS)


def read_thresholds(get: Callable[[str], Any]) -> Thresholds:
    """All threshold options at once, validated as a whole; raises ConfigError, nothing half-applied."""
    values = {}
    for name in THRESHOLD_NAMES:
        raw = get(name)
        if raw is None or raw == "":
            continue
        values[name] = raw
    return Thresholds.from_mapping(values)


def _option(
    default: Any,
    doc: str,
    minimum: Any = None,
    maximum: Any = None,
    enum_allowed: tuple[str, ...] | None = None,
) -> Any:
    """A module option's one declaration: its default, meaning and range."""
    return dataclasses.field(
        default=default, metadata={"doc": doc, "min": minimum, "max": maximum, "enum_allowed": enum_allowed}
    )


def _check_option(name: str) -> Any:
    """A health-check option, as the checks declare it: default, meaning and range."""
    declared = _CHECK_OPTIONS[name]
    return _option(declared.default, declared.metadata["doc"], declared.metadata["min"], declared.metadata["max"])


_CHECK_OPTIONS = {f.name: f for f in CHECK_OPTION_FIELDS}


@dataclass(frozen=True)
class ModuleSettings:
    """The module's own options, checked; built from scratch on each config change."""

    # Serving
    server_addr: str = _option("", "Address of the /metrics server; empty: '::' (or 0.0.0.0 without IPv6).")
    server_port: int = _option(DEFAULT_PORT, "Port of the /metrics server.", 1, 65535)
    cluster_label: str = _option(
        "", "Value of the `cluster` label on every series; empty: the cluster fsid (as the sidecar)."
    )
    # Collection
    interval: int = _option(15, "Seconds between collections of the manager's own data.", 1, 3600)
    pgs_interval: int = _option(60, "Seconds between reads of the PG stats (scrub stamps).", 1, 86400)
    settings_interval: int = _option(60, "Seconds between reads of the Ceph options the signals use.", 1, 86400)
    rgw_interval: int = _option(60, "Seconds between reads of the RGW buckets and reshard queue.", 1, 86400)
    rgw_timeout: int = _option(60, "Timeout in seconds of one RGW read (Admin Ops API, radosgw-admin).", 1, 3600)
    stale_after: int = _option(
        0,
        "Seconds after which a failing source's last data is dropped; 0: 10 x its interval, at least 300.",
        0,
        86400 * 7,
    )
    # RGW access
    rgw_source: str = _option(
        "auto",
        "Where bucket stats and the reshard queue come from: admin_api (rgw_endpoint + keys; the reshard "
        "queue from RADOS), radosgw_admin (the tool, run as this manager), auto (admin_api when rgw_endpoint "
        "is set, else radosgw_admin), off.",
        enum_allowed=RGW_SOURCES,
    )
    rgw_endpoint: str = _option("", "RGW URL for the Admin Ops API, e.g. http://rgw1:8080.")
    rgw_access_key: str = _option("", "Access key of an RGW user with the buckets=read capability.")
    rgw_secret_key: str = _option("", "Its secret key (never logged).")
    rgw_region: str = _option("us-east-1", "Region used to sign Admin Ops requests (SigV4).")
    rgw_verify_tls: bool = _option(True, "Verify the RGW's TLS certificate.")
    rgw_max_response_mb: int = _option(
        256, "Largest Admin Ops response read, in MiB (the bucket stats of 100,000 buckets: ~95 MB).", 1, 4096
    )
    rgw_config_section: str = _option(
        "client.rgw", "Config section whose rgw_max_objs_per_shard / rgw_reshard_num_logs the RGWs use."
    )
    rgw_log_pools: str = _option(
        "", "Comma-separated RGW log pools holding the reshard queue; empty: every pool named *.rgw.log."
    )
    # Health checks
    enable_health_checks: bool = _option(True, "Raise the SCALE_* health checks.")
    # Declared with the checks that read them (core/signals/check_options.py), under the same names.
    fill_headroom_warn_margin: float = _check_option("fill_headroom_warn_margin")
    fill_forecast_warn_days: float = _check_option("fill_forecast_warn_days")
    load_warn_ratio: float = _check_option("load_warn_ratio")
    scrub_backlog_warn_days: float = _check_option("scrub_backlog_warn_days")
    bluefs_spill_warn_days: float = _check_option("bluefs_spill_warn_days")
    reshard_forecast_warn_days: float = _check_option("reshard_forecast_warn_days")
    health_detail_max: int = _check_option("health_detail_max")

    def __repr__(self) -> str:  # never let the secret key reach a log line
        shown = ", ".join(f"{k}={'***' if k == 'rgw_secret_key' and v else repr(v)}" for k, v in self.__dict__.items())
        return f"ModuleSettings({shown})"

    def log_pools(self) -> list[str]:
        return [p.strip() for p in self.rgw_log_pools.split(",") if p.strip()]


MODULE_SPECS: tuple[OptionSpec, ...] = tuple(
    OptionSpec(
        f.name,
        str(f.type),
        f.default,
        f.metadata["doc"],
        f.metadata["min"],
        f.metadata["max"],
        f.metadata["enum_allowed"],
    )
    for f in dataclasses.fields(ModuleSettings)
)
_MODULE_BY_NAME = {s.name: s for s in MODULE_SPECS}


def check_value(spec: OptionSpec, raw: Any) -> Any:
    if spec.type == "bool":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("true", "1", "yes", "on"):
            return True
        if text in ("false", "0", "no", "off"):
            return False
        raise ConfigError(f"{spec.name}: expected true or false, got {raw!r}")
    if spec.type == "str":
        text = "" if raw is None else str(raw)
        if spec.enum_allowed is not None and text not in spec.enum_allowed:
            raise ConfigError(f"{spec.name}: expected one of {', '.join(spec.enum_allowed)}, got {text!r}")
        return text
    return check_number(spec.name, raw, spec.type == "int", spec.min, spec.max)


def read_module_settings(get: Callable[[str], Any]) -> ModuleSettings:
    """The module's own options, each checked; raises ConfigError naming the first bad one."""
    values = {}
    for name, spec in _MODULE_BY_NAME.items():
        raw = get(name)
        values[name] = spec.default if raw is None else check_value(spec, raw)
    return ModuleSettings(**values)
