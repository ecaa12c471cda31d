"""The sidecar's real sources (exporter/sidecar/sources), run on canned clients that answer
with the synthetic state's bytes: the benchmark measures the code the sidecar runs, not a
copy of it.

Each client answers as the cluster would, from memory: the Ceph commands from the captured
JSON, the manager's /metrics from a file URL, the reshard queue through the radosgw-admin
backend (a `cat` of the captured list), and the Admin Ops API of the bucket poll: the
metadata listings a page at a time, and one bucket's stats record from
admin_api_bucket_stats.json (mapped, never read whole). The bucket poll runs in its steady
state: the one source object across cycles, restored from the synthetic saved state
(every bucket read within the last three hours), each cycle with a full interval's budget.
"""

from __future__ import annotations

import array
import dataclasses
import json
import mmap
import time
from pathlib import Path
from typing import Any

from ceph_scale.core import queued_bucket_ops
from ceph_scale.core.registry import SOURCES
from ceph_scale.io.admin_ops import LIST_PAGE, AdminOps, AdminOpsError
from exporter.sidecar.ceph_client import CephClient, CephCommandError
from exporter.sidecar.sources import ALL_SOURCES, Deadline, SourceContext
from exporter.sidecar.sources.buckets import BucketsSource

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
BUCKET_LISTINGS = ("admin_api_metadata_bucket.json", "admin_api_metadata_bucket_instance.json")
PROMETHEUS_FILE = "mgr_prometheus_metrics.txt"
RESHARD_FILE = "reshard_list.json"
CONFIG_FILE = "config_get.json"
# The file that holds each input of the registry's parsers (SourceSpec.inputs); the perf
# counters as the mgr prometheus module's text, which the sidecar reads by default.
INPUT_FILES = {
    **COMMAND_FILES,
    "perf counters": PROMETHEUS_FILE,
    "config get": CONFIG_FILE,
    "bucket stats": BUCKET_STATS_FILE,
    "reshard list": RESHARD_FILE,
}
if set(INPUT_FILES) != {name for s in SOURCES for name in s.inputs}:
    raise ImportError(f"canned inputs {sorted(INPUT_FILES)} do not match the registry's parsers' inputs")
# The files each registered parser reads (osd dump twice: the osd_map and capacity parsers each read it).
PARSER_FILES = {s.name: tuple(INPUT_FILES[name] for name in s.inputs) for s in SOURCES}
# The files each sidecar source reads: the parsers' but for the bucket poll's listings (and
# a budget's worth of bucket records, read from the mapped stats).
SOURCE_FILES = {**PARSER_FILES, "buckets": BUCKET_LISTINGS}


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
        if prefix == "scale bucket-ops":  # the scale module of a Pacific manager: no labeled calls
            return json.dumps(queued_bucket_ops.reply((), queued_bucket_ops.NO_LABELED_CALLS)).encode()
        name = COMMAND_FILES.get(prefix)
        if name is None or name not in self.raws:
            raise CephCommandError(f"`ceph {prefix}`: not in the canned state")
        return self.raws[name]

    def object_exists(self, pool: str, oid: str, timeout: float) -> bool:
        return False


class CannedAdminOps(AdminOps):
    """The bucket poll's requests answered from the synthetic state: listing pages from the
    listings, one bucket's record by its offset in the mapped stats file (the synthetic
    bucket names carry their index)."""

    def __init__(self, data_dir: Path, listings: dict[str, bytes]) -> None:
        super().__init__("http://canned.invalid", "canned", "canned")
        self.pages: dict[str, list[bytes]] = {}
        for section, name in zip(("bucket", "bucket.instance"), BUCKET_LISTINGS):
            keys = json.loads(listings[name])
            self.pages[section] = [
                page(keys[i : i + LIST_PAGE], i // LIST_PAGE + 1, len(keys)) for i in range(0, len(keys), LIST_PAGE)
            ]
        offsets = json.loads((data_dir / "bucket_offsets.json").read_bytes())
        self.spans = array.array("q", (x for o in offsets for x in o[2:]))
        del offsets
        with open(data_dir / BUCKET_STATS_FILE, "rb") as f:
            self.stats = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)

    def get_raw(self, path: str, params: dict[str, str], timeout: float) -> bytes:
        if path.startswith("/admin/metadata/"):
            pages = self.pages[path.rsplit("/", 1)[1]]
            return pages[int(params.get("marker") or 0)] if pages else b'{"keys":[],"truncated":"false"}'
        if path == "/admin/bucket" and "bucket" in params:
            b = int(params["bucket"].rsplit("-", 1)[1])
            start, length = self.spans[2 * b], self.spans[2 * b + 1]
            return self.stats[start : start + length]
        raise AdminOpsError(f"canned Admin Ops: {path} {params} is not in the synthetic state", 404)


def page(keys: list[str], number: int, total: int) -> bytes:
    """A listing page as RGW answers it; the marker is the next page's number here."""
    more = number * LIST_PAGE < total
    body = {"keys": keys, "truncated": "true" if more else "false", "count": len(keys)}
    if more:
        body["marker"] = str(number)
    return json.dumps(body, separators=(",", ":")).encode()


def context(raws: dict[str, bytes], data_dir: Path) -> SourceContext:
    return SourceContext(
        ceph=CannedCeph(raws),
        perf_urls=((data_dir / PROMETHEUS_FILE).resolve().as_uri(),),
        reshard_backend="radosgw-admin",
        radosgw_admin_argv=("sh", "-c", 'cat "$0"', str(data_dir / RESHARD_FILE)),
    )


COLLECTORS = {s.name: s for s in ALL_SOURCES}
_POLLS: dict[Path, Any] = {}


def bucket_source(raws: dict[str, bytes], data_dir: Path) -> Any:
    """The one buckets source of a data directory, restored from its saved state with the stats'
    read times moved to now (as if it had run all along), made on first use."""
    source = _POLLS.get(data_dir)
    if source is None:
        ctx = context(raws, data_dir)
        ctx.rgw = CannedAdminOps(data_dir, raws)
        ctx.state_file = str(data_dir / "state.json")
        source = COLLECTORS["buckets"](ctx)
        assert isinstance(source, BucketsSource)
        manifest = json.loads((data_dir / "manifest.json").read_text())
        shift = time.time() - manifest["now"]
        for e in source.poll.entries.values():
            assert e.bucket is not None  # a restored entry is one read before (bucket_entries.from_table)
            e.bucket = dataclasses.replace(e.bucket, stats_at=e.bucket.stats_at + shift)
        users = source.poll.users  # the owners' user quotas, read within the last day as well
        users.read_at = {o: t + shift for o, t in users.read_at.items()}
        users.quotas = {o: dataclasses.replace(q, read_at=q.read_at + shift) for o, q in users.quotas.items()}
        _POLLS[data_dir] = source
    return source


def collect(name: str, raws: dict[str, bytes], data_dir: Path, t: float) -> Any:
    """One collection of the sidecar's source `name`, its part stamped at `t`."""
    if name == "buckets":
        source = bucket_source(raws, data_dir)
        # A full interval's budget, as 120 s after the previous poll.
        source.poll.tokens, source.poll.refilled_at = None, time.time()
    else:
        source = COLLECTORS[name](context(raws, data_dir))
    part = source.collect(Deadline(600.0))
    return dataclasses.replace(part, collected_at=t)
