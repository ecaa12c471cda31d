"""The ceph-mgr module's path in the benchmark: the module package as the manager imports it,
and a manager handle canned from the synthetic state.

`manager_data` is the one translation of the CLI's JSON into what ceph-mgr hands a module
(`MgrModule.get`); the tests' fake manager (tests/mgr/fake_mgr.py) fills itself with it too.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
import time
import types
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent


def manager_data(osd_df: Any, osd_dump: Any, osd_metadata: Any, df: Any, pg_stats: Any, health: Any) -> dict:
    """`osd_stats` and `osd_map_crush` rebuilt from `osd df` (same statfs numbers, same classes),
    `osd_metadata` keyed by id, health wrapped in {"json": ...}: as the manager keeps them."""
    nodes = osd_df["nodes"]
    return {
        "osd_map": osd_dump,
        "osd_stats": {
            "osd_stats": [
                {"osd": n["id"], "kb": n["kb"], "kb_used": n["kb_used"], "kb_avail": n["kb_avail"]} for n in nodes
            ]
        },
        "osd_map_crush": {"devices": [{"id": n["id"], "name": n["name"], "class": n["device_class"]} for n in nodes]},
        "osd_metadata": {str(m["id"]): m for m in osd_metadata},
        "df": df,
        "pg_stats": pg_stats,
        "health": {"json": json.dumps(health)},
    }


def mgr_package() -> dict[str, types.ModuleType]:
    """mgr_module/scale as the manager imports it, without its __init__ (which needs Ceph's
    mgr_module), and the core and I/O packages it imports (ceph_scale)."""
    name = "_bench_mgr_scale"
    if name not in sys.modules:
        pkg = types.ModuleType(name)
        pkg.__path__ = [str(REPO / "mgr_module" / "scale")]
        sys.modules[name] = pkg
    return {
        "sources": importlib.import_module(f"{name}.sources"),
        "options": importlib.import_module(f"{name}.options"),
        "registry": importlib.import_module("ceph_scale.core.registry"),
        "inputs": importlib.import_module("ceph_scale.core.inputs"),
        "derive": importlib.import_module("ceph_scale.core.derive"),
        "snapshot": importlib.import_module("ceph_scale.core.snapshot"),
        "exposition": importlib.import_module("ceph_scale.core.exposition"),
        "config": importlib.import_module("ceph_scale.core.config"),
        "bucket_poll": importlib.import_module("ceph_scale.core.bucket_poll"),
        "bucket_poll_limits": importlib.import_module("ceph_scale.core.bucket_poll_limits"),
        "admin_ops": importlib.import_module("ceph_scale.io.admin_ops"),
    }


class CannedCounters:
    """The manager's perf counter calls over `counters` ("osd.3" -> {path: value}, averaged
    counters as "<path>.sum" / "<path>.count", as the prometheus text names them)."""

    counters: dict[str, dict[str, float]]

    def get_perf_schema(self, kind: str, ident: str) -> dict:
        """As the manager: an averaged counter once, by its own path, typed time + average."""
        daemon = f"{kind}.{ident}"
        schema = {}
        for path in self.counters.get(daemon, {}):
            base, _, part = path.rpartition(".")
            if part in ("sum", "count") and base:
                schema[base] = {"type": 5, "priority": 5}  # PERFCOUNTER_TIME | PERFCOUNTER_LONGRUNAVG
            else:
                schema[path] = {"type": 2, "priority": 5}
        return {daemon: schema}

    def get_latest_avg(self, kind: str, ident: str, path: str) -> tuple[float, int]:
        """The sum in nanoseconds, as the manager hands a time counter."""
        counters = self.counters.get(f"{kind}.{ident}", {})
        return round(counters.get(f"{path}.sum", 0) * 1e9), int(counters.get(f"{path}.count", 0))


class CannedMgr(CannedCounters):
    """What ceph-mgr hands the module (MgrModule.get & co.), as Python objects, from the synthetic state."""

    def __init__(self, dec: dict[str, Any], counters: dict[str, dict[str, float]]) -> None:
        self.data = manager_data(
            dec["osd_df.json"],
            dec["osd_dump.json"],
            dec["osd_metadata.json"],
            dec["df_detail.json"],
            dec["pg_dump_pgs.json"],
            dec["health_detail.json"],
        )
        self.data["service_map"] = {"services": {}}  # no RGW registered, as the canned `service dump`
        self.config = dec["config_get.json"]
        self.counters = counters
        hosts: dict[str, list] = {}
        for daemon in counters:
            kind, _, ident = daemon.partition(".")
            hosts.setdefault(f"host{len(hosts) // 60}", []).append({"type": kind, "id": ident})
        self.servers = [{"hostname": h, "services": s} for h, s in hosts.items()]

    def get(self, name: str) -> Any:
        return self.data.get(name)

    def list_servers(self) -> list:
        return self.servers

    def get_latest(self, kind: str, ident: str, path: str) -> Any:
        return self.counters[f"{kind}.{ident}"][path]

    def get_ceph_option(self, key: str) -> Any:
        return self.config.get(key)

    def mon_command(self, cmd: dict, inbuf: Any = None) -> tuple[int, str, str]:
        if cmd.get("prefix") == "config get" and cmd.get("key") in self.config:
            return 0, json.dumps(self.config[cmd["key"]]), ""
        return -2, "", "not set"


_POLLS: dict[Path, Any] = {}


def mgr_bucket_poll(m: dict, data_dir: Path, rgw: Any) -> Callable[[], Any]:
    """One bucket poll of the module's own core copy over the canned Admin Ops API `rgw`, in its
    steady state as the sidecar's (bench/canned.py): restored once, a full budget each call."""
    poll = _POLLS.get(data_dir)
    if poll is None:
        poll = m["bucket_poll"].BucketPoll.from_dict(json.loads((data_dir / "state.json.buckets").read_bytes()))
        shift = time.time() - json.loads((data_dir / "manifest.json").read_text())["now"]
        for e in poll.entries.values():
            e.bucket = dataclasses.replace(e.bucket, stats_at=e.bucket.stats_at + shift)
        _POLLS[data_dir] = poll
    limits = m["bucket_poll_limits"].PollLimits.of(m["config"].Thresholds(), 100_000)
    reader = m["admin_ops"].AdminOpsBuckets(rgw)

    def collect() -> Any:
        poll.tokens, poll.refilled_at = None, time.time()
        return poll.poll(time.time(), reader, limits, frozenset(), lambda: 600.0, None)

    return collect


def manager_data_sources(m: dict) -> tuple[str, ...]:
    """The sources whose data the manager holds itself, by the module's registry; the RGW ones
    come from RGW (Admin Ops API / radosgw-admin) or its pools, which the canned manager has
    not: the benchmark feeds those."""
    return tuple(s.name for s in m["registry"].SOURCES if not s.rgw)


def mgr_parts(m: dict, mgr: CannedMgr, dec: dict[str, Any], buckets: Callable[[], Any]) -> dict[str, Any]:
    """Every part through the module's own collectors (its registry-ordered table); `buckets`
    is its bucket poll (mgr_bucket_poll)."""
    settings = m["options"].ModuleSettings()
    collectors = m["sources"].source_functions(mgr, lambda: settings)
    t = time.time()
    spec = m["registry"].SOURCE_BY_NAME
    parts = {name: collectors[name](spec[name].timeout) for name in manager_data_sources(m)}
    parts["buckets"] = buckets()
    parts["reshard"] = m["inputs"].reshard_part(dec["reshard_list.json"], t)
    return parts
