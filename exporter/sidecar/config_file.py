"""The optional YAML configuration file, validated whole before anything starts.

cluster_label: prod-eu-1          # default: the cluster fsid
state_file: /var/lib/ceph-scale/state.json
thresholds:                       # names and origins: docs/configuration.md
  fill_target_ratio: 0.8
sources:                          # per source: interval, timeout, stale_after (s), enabled
  pgs: {interval: 120, timeout: 60}
  reshard: {enabled: false}
rgw:
  endpoint: http://rgw.example:8080
  credentials_file: /etc/ceph-scale/rgw-admin.json   # {"access_key": ..., "secret_key": ...}
  region: us-east-1
  verify_tls: true
  max_response_mb: 256            # the largest Admin Ops response read (100,000 buckets: ~95 MB)
mgr_prometheus_url: http://mgr.example:9283/metrics  # default: from `ceph mgr services`
perf_urls:                        # instead: every ceph-exporter (Reef and later), one per host
  - http://host1:9926/metrics
perf_discovery: orchestrator      # or instead: found (cephadm), or dns:NAME:PORT (every address)
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from ceph_scale.core.config import ConfigError, Thresholds
from ceph_scale.core.registry import SOURCE_BY_NAME
from ceph_scale.io import discovery

SOURCE_KEYS = {"interval", "timeout", "stale_after", "enabled"}
TOP_KEYS = {
    "cluster_label",
    "state_file",
    "thresholds",
    "sources",
    "rgw",
    "mgr_prometheus_url",
    "perf_urls",
    "perf_discovery",
    "rgw_config_section",
}
RGW_KEYS = {
    "endpoint",
    "credentials_file",
    "region",
    "verify_tls",
    "log_pool",
    "index_pool",
    "reshard_backend",
    "max_response_mb",
}
RGW_KINDS: dict[str, type] = {"verify_tls": bool, "max_response_mb": int}
MAX_RESPONSE_MB = 4096


@dataclass
class FileConfig:
    thresholds: Thresholds = field(default_factory=Thresholds)
    cluster_label: str | None = None
    state_file: str | None = None
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    rgw: dict[str, Any] = field(default_factory=dict)
    mgr_prometheus_url: str | None = None
    perf_urls: tuple[str, ...] = ()
    perf_discovery: discovery.Discovery | None = None  # orchestrator or dns:NAME:PORT, parsed
    rgw_config_section: str = "client.rgw"


def parse(data: Any, source_names: set[str]) -> FileConfig:
    if data is None:
        return FileConfig()
    if not isinstance(data, dict):
        raise ConfigError(f"--config.file: expected a mapping at the top level, got {type(data).__name__}")
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise ConfigError(f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(TOP_KEYS))}")
    cfg = FileConfig()
    if "thresholds" in data:
        if not isinstance(data["thresholds"], dict):
            raise ConfigError("thresholds: expected a mapping")
        cfg.thresholds = Thresholds.from_mapping(data["thresholds"])
    for key in ("cluster_label", "state_file", "mgr_prometheus_url", "rgw_config_section"):
        if key in data and data[key] is not None:
            if not isinstance(data[key], str) or not data[key]:
                raise ConfigError(f"{key}: expected a non-empty string")
            setattr(cfg, key, data[key])
    if cfg.mgr_prometheus_url is not None and not is_http_url(cfg.mgr_prometheus_url):
        raise ConfigError(f"mgr_prometheus_url: expected an http(s):// URL, got {cfg.mgr_prometheus_url!r:.100}")
    urls = data.get("perf_urls")
    if urls is not None:
        if not isinstance(urls, list) or not urls or not all(is_http_url(u) for u in urls):
            raise ConfigError("perf_urls: expected a non-empty list of http(s):// URLs")
        if data.get("mgr_prometheus_url"):
            raise ConfigError("perf_urls and mgr_prometheus_url: set one of them")
        cfg.perf_urls = tuple(urls)
    if data.get("perf_discovery") is not None:
        cfg.perf_discovery = discovery.parse_rule(data["perf_discovery"])
        check_one_perf_setting(cfg, "perf_discovery")
    sources = {} if data.get("sources") is None else data["sources"]
    if not isinstance(sources, dict):
        raise ConfigError("sources: expected a mapping")
    for name, opts in sources.items():
        if name not in source_names:
            raise ConfigError(f"sources.{name}: unknown source; known: {', '.join(sorted(source_names))}")
        if not isinstance(opts, dict):
            raise ConfigError(f"sources.{name}: expected a mapping")
        bad = sorted(set(opts) - SOURCE_KEYS)
        if bad:
            raise ConfigError(f"sources.{name}: unknown key(s) {', '.join(bad)}")
        for key in ("interval", "timeout", "stale_after"):
            if key in opts:
                v = opts[key]
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.1 <= v <= 86400 * 7:
                    raise ConfigError(f"sources.{name}.{key}: expected seconds between 0.1 and 604800, got {v!r}")
        if "enabled" in opts and not isinstance(opts["enabled"], bool):
            raise ConfigError(f"sources.{name}.enabled: expected true or false")
        # Against the interval in force, the default one included: a collection that may run
        # longer than its interval would overlap the next.
        interval = opts.get("interval", SOURCE_BY_NAME[name].interval if name in SOURCE_BY_NAME else None)
        if "timeout" in opts and interval is not None and opts["timeout"] > interval:
            raise ConfigError(f"sources.{name}: timeout {opts['timeout']} exceeds the interval {interval:g}")
        # Stale before the next collection could land: its signals would vanish between polls.
        if "stale_after" in opts and interval is not None and opts["stale_after"] < interval:
            raise ConfigError(f"sources.{name}: stale_after {opts['stale_after']} is under the interval {interval:g}")
    cfg.sources = {k: dict(v) for k, v in sources.items()}
    rgw = {} if data.get("rgw") is None else data["rgw"]
    if not isinstance(rgw, dict):
        raise ConfigError("rgw: expected a mapping")
    bad = sorted(set(rgw) - RGW_KEYS)
    if bad:
        raise ConfigError(f"rgw: unknown key(s) {', '.join(bad)}; secrets go in credentials_file, never here")
    for key, value in rgw.items():
        wanted = RGW_KINDS.get(key, str)
        if not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)) or value == "":
            said = {bool: "true or false", int: "a whole number", str: "a non-empty string"}[wanted]
            raise ConfigError(f"rgw.{key}: expected {said}, got {value!r}")
    if not 1 <= rgw.get("max_response_mb", 1) <= MAX_RESPONSE_MB:
        raise ConfigError(f"rgw.max_response_mb: expected 1 to {MAX_RESPONSE_MB}, got {rgw['max_response_mb']!r}")
    if rgw.get("reshard_backend", "rados") not in ("rados", "radosgw-admin"):
        raise ConfigError("rgw.reshard_backend: expected rados or radosgw-admin")
    cfg.rgw = dict(rgw)
    return cfg


def check_one_perf_setting(cfg: FileConfig, discovery_setting: str) -> None:
    """perf_discovery (or its flag) goes alone: perf_urls or mgr_prometheus_url name the endpoints."""
    for other in ("perf_urls", "mgr_prometheus_url"):
        if getattr(cfg, other):
            raise ConfigError(f"{discovery_setting} and {other}: set one of them")


def is_http_url(url: Any) -> bool:
    if not isinstance(url, str):
        return False
    parsed = urllib.parse.urlsplit(url)
    return parsed.scheme in ("http", "https") and bool(parsed.hostname)
