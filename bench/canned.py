"""The sidecar's real sources (exporter/sidecar/sources), run on canned clients that answer
with the synthetic state's bytes: the benchmark measures the code the sidecar runs, not a
copy of it.

Each client answers as the cluster would, from memory: the Ceph commands from the captured
JSON, the Admin Ops bucket stats from its body, the manager's /metrics from a file URL, the
reshard queue through the radosgw-admin backend (a `cat` of the captured list).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from exporter.core.admin_ops import AdminOps
from exporter.sidecar.ceph_client import CephClient, CephCommandError
from exporter.sidecar.sources import ALL_SOURCES, Deadline, SourceContext

# The file that answers each Ceph command the sources send.
COMMAND_FILES = {
    "osd df": "osd_df.json",
    "osd dump": "osd_dump.json",
    "osd metadata": "osd_metadata.json",
    "df": "df_detail.json",
    "pg dump": "pg_dump_pgs.json",
    "health": "health_detail.json",
}
BUCKET_STATS_FILE = "admin_api_bucket_stats.json"
PROMETHEUS_FILE = "mgr_prometheus_metrics.txt"
RESHARD_FILE = "reshard_list.json"
CONFIG_FILE = "config_get.json"
# The inputs each source reads (osd dump twice: the osd_map and capacity sources each read it).
SOURCE_FILES = {
    "osd_map": ("osd_df.json", "osd_dump.json", "osd_metadata.json"),
    "capacity": ("df_detail.json", "osd_dump.json"),
    "perf": (PROMETHEUS_FILE,),
    "pgs": ("pg_dump_pgs.json",),
    "settings": (CONFIG_FILE,),
    "health": ("health_detail.json",),
    "buckets": (BUCKET_STATS_FILE,),
    "reshard": (RESHARD_FILE,),
}


class CannedCeph(CephClient):
    """`ceph` commands answered from the captured bytes. A cluster with no RGW in its service
    map and no readable index objects: the synthetic state has neither."""

    def __init__(self, raws: dict[str, bytes]) -> None:
        self.raws = raws
        self.config: dict[str, Any] = json.loads(raws[CONFIG_FILE]) if CONFIG_FILE in raws else {}

    def command_raw(self, prefix: str, timeout: float, **args: Any) -> bytes:
        if prefix == "config get":
            return json.dumps(self.config.get(args["key"])).encode()
        if prefix == "service dump":
            return b'{"services": {}}'
        name = COMMAND_FILES.get(prefix)
        if name is None or name not in self.raws:
            raise CephCommandError(f"`ceph {prefix}`: not in the canned state")
        return self.raws[name]

    def object_exists(self, pool: str, oid: str, timeout: float) -> bool:
        return False


class CannedAdminOps(AdminOps):
    def __init__(self, body: bytes) -> None:
        super().__init__("http://canned.invalid", "canned", "canned")
        self.body = body

    def bucket_stats_raw(self, timeout: float) -> bytes:
        return self.body


def context(raws: dict[str, bytes], data_dir: Path) -> SourceContext:
    return SourceContext(
        ceph=CannedCeph(raws),
        rgw=CannedAdminOps(raws[BUCKET_STATS_FILE]) if BUCKET_STATS_FILE in raws else None,
        perf_urls=((data_dir / PROMETHEUS_FILE).resolve().as_uri(),),
        reshard_backend="radosgw-admin",
        radosgw_admin_argv=("sh", "-c", 'cat "$0"', str(data_dir / RESHARD_FILE)),
    )


COLLECTORS = {s.name: s for s in ALL_SOURCES}


def collect(name: str, raws: dict[str, bytes], data_dir: Path, t: float) -> Any:
    """One collection of the sidecar's source `name`, its part stamped at `t`."""
    source = COLLECTORS[name](context(raws, data_dir))
    part = source.collect(Deadline(600.0))
    return dataclasses.replace(part, collected_at=t)
