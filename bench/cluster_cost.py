"""What each way of watching buckets and PGs costs a real cluster, measured on one.

    python -m bench.cluster_cost --release pacific            # starts a cluster, ~6 minutes
    python -m bench.cluster_cost --dir DIR                    # a cluster `cluster.testcluster start` left running

Creates buckets of 1 and of 11 index shards, then counts what each read costs:

- RADOS ops: the RGW's own client counters (`ceph daemon client.rgw.a perf dump objecter`,
  `op`: every op it sent, object listings included, which the OSDs' and pools' read counters
  leave out), less the RGW's background rate measured just before; the pools they went to
  from `ceph df detail` read-op deltas; the producer's own librados reads (reshard queue,
  generation probes) from the OSDs' `op` counters;
- RGW time: the request's wall time on the otherwise idle cluster;
- the manager's CPU for `pg dump pgs` (its process's utime+stime) against the time the `scale`
  module's own PG read takes inside it, at the cluster's PG count and with a pool of extra PGs,
  per PG.

RGW's metadata cache holds 10,000 entries (`rgw_cache_lru_size`); at 100,000+ buckets a
bucket's entrypoint and instance are rarely in it. The reads are measured with the cache
cut to 10 entries (cold, as at study scale) and at its default (warm, as on a small cluster).
Prints one JSON document; `--out bench/cluster_cost.json` merges it under the release's name
(the benchmark, bench/run.py, scales its per-source costs from that file).
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import os
import statistics
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from ceph_scale.io.admin_ops import AdminOps  # noqa: E402
from cluster import s3load  # noqa: E402
from cluster.helpers import RGW_NAME, wait_for  # noqa: E402
from cluster.testcluster import TestCluster  # noqa: E402

COST_FILE = REPO / "bench" / "cluster_cost.json"
RGW_QUIET = ("rgw_bucket_quota_ttl", "rgw_user_quota_bucket_sync_interval", "rgw_user_quota_sync_interval")


class Meter:
    def __init__(self, c: TestCluster) -> None:
        self.c = c
        self.ops = AdminOps(c.rgw_endpoint, *c.exporter_rgw_keys)  # as the exporter reads

    def rgw_ops(self) -> int:
        """Ops sent by every RADOS client of the RGW (Tentacle's has three)."""
        dump = self.c.admin_socket(RGW_NAME, "perf", "dump")
        return sum(int(v["op"]) for k, v in dump.items() if k == "objecter" or k.startswith("objecter-"))

    def osd_ops(self) -> int:
        return sum(int(self.c.admin_socket(f"osd.{i}", "perf", "dump", "osd")["osd"]["op"]) for i in range(self.c.osds))

    def pool_reads(self) -> dict[str, int]:
        return {p["name"]: int(p["stats"]["rd"]) for p in self.c.ceph("df", "detail")["pools"]}

    def measure(self, fn: Callable[[], Any], counter: str = "rgw") -> dict:
        """RADOS ops `fn` caused (less the background rate of the 5 s before), its wall time,
        and the pools' read-op deltas once the OSDs reported them."""
        read = self.rgw_ops if counter == "rgw" else self.osd_ops
        b0, t0 = read(), time.monotonic()
        time.sleep(10)
        background = (read() - b0) / (time.monotonic() - t0)
        pools0 = self.pool_reads()
        before = read()
        t = time.monotonic()
        out = fn()
        seconds = time.monotonic() - t
        ops = read() - before - background * seconds
        time.sleep(12)  # the OSDs report pool stats every 5 s
        pools = {k: v - pools0.get(k, 0) for k, v in self.pool_reads().items()}
        return {
            "ops": round(ops, 1),
            "seconds": round(seconds, 4),
            "pool_reads": {k: v for k, v in pools.items() if v and not k.endswith(".rgw.log")},
            "result": out if isinstance(out, (int, float, list)) else None,
        }

    def get(self, path: str, **params: str) -> Any:
        return self.ops.get_json(path, params, 300)

    def pages(self, section: str, page: int = 1000) -> int:
        marker, pages = "", 0
        while True:
            params = {"max-entries": str(page), **({"marker": marker} if marker else {})}
            body = self.get(f"/admin/metadata/{section}", **params)
            pages += 1
            if str(body.get("truncated")).lower() != "true":
                return pages
            marker = body["marker"]


def make_buckets(c: TestCluster, prefix: str, n: int, shards: int) -> list[str]:
    c.ceph("config", "set", "client.rgw", "rgw_override_bucket_index_max_shards", str(shards), fmt_json=False)
    time.sleep(2)
    s3 = s3load.client(c.rgw_endpoint, *c.user_keys, concurrency=32)
    names = [f"{prefix}-{i:06d}" for i in range(n)]
    with ThreadPoolExecutor(32) as ex:
        list(ex.map(lambda b: s3.create_bucket(Bucket=b), names))
    return names


def set_cache(c: TestCluster, entries: int | None) -> None:
    if entries is None:
        c.ceph("config", "rm", "client.rgw", "rgw_cache_lru_size", fmt_json=False)
    else:
        c.ceph("config", "set", "client.rgw", "rgw_cache_lru_size", str(entries), fmt_json=False)
    c.restart_daemon(RGW_NAME)
    wait_for(c.rgw_answers, 60, interval=0.5, what="the RGW after restart")
    time.sleep(30)  # its start-up reads are over: the background rate is its steady one again


def bucket_reads(m: Meter, ones: list[str], elevens: list[str]) -> dict:
    out: dict[str, Any] = {}
    shards = len(ones) + 11 * len(elevens)
    buckets = len(ones) + len(elevens)
    full = m.measure(lambda: m.get("/admin/bucket", stats="true") and None)
    out["full_stats"] = {**full, "buckets": buckets, "shards": shards,
                         "ops_per_bucket_beyond_shards": round((full["ops"] - shards) / buckets, 2)}  # fmt: skip
    out["bucket_list_no_stats"] = m.measure(lambda: m.get("/admin/bucket") and None)
    for section in ("bucket", "bucket.instance"):
        listing = m.measure(functools.partial(m.pages, section))
        out[f"metadata_{section}_pages"] = {**listing, "keys": buckets, "pages": listing["result"]}
    sample = 200
    for name, group, n_shards in (("one_bucket_stats_1_shard", ones, 1), ("one_bucket_stats_11_shards", elevens, 11)):
        pick = group[:sample]
        r = m.measure(functools.partial(stats_each, m, pick))
        out[name] = {**r, "buckets": len(pick), "ops_per_bucket": round(r["ops"] / len(pick), 2),
                     "overhead_per_bucket": round(r["ops"] / len(pick) - n_shards, 2),
                     "ms_per_bucket": round(1000 * r["seconds"] / len(pick), 3)}  # fmt: skip
    pick = elevens[:sample]
    ids = {b: m.get("/admin/bucket", bucket=b)["id"] for b in pick}
    r = m.measure(lambda: [m.get("/admin/metadata/bucket.instance", key=f"{b}:{i}") for b, i in ids.items()] and None)
    out["one_instance_metadata"] = {**r, "ops_per_bucket": round(r["ops"] / len(pick), 2)}
    return out


def stats_each(m: Meter, buckets: list[str]) -> None:
    for b in buckets:
        m.get("/admin/bucket", bucket=b, stats="true")


def librados_reads(c: TestCluster, m: Meter, bucket: str) -> dict:
    """The producer's own reads: the reshard queue (one omap page per log object) and a
    generation probe (one stat per generation tried), counted at the OSDs."""
    import rados

    from ceph_scale.core.index_generation import index_generation
    from ceph_scale.core.reshard_queue import OMAP_PAGE, RESHARD_NAMESPACE, read_queue
    from ceph_scale.io.rados_reads import omap_page, stat_exists

    handle = rados.Rados(conffile=str(c.conf_path), conf={"keyring": str(c.keyring_path)})
    handle.connect(timeout=10)
    try:
        log_io = handle.open_ioctx("default.rgw.log")
        log_io.set_namespace(RESHARD_NAMESPACE)
        index_io = handle.open_ioctx("default.rgw.buckets.index")
        calls = {"omap": 0, "stat": 0}

        def read_omap(pool: str, oid: str, after: str):
            calls["omap"] += 1
            return omap_page(rados, log_io, oid, after, OMAP_PAGE)

        def exists(oid: str) -> bool:
            calls["stat"] += 1
            return stat_exists(index_io, "index", oid, 5.0)

        bucket_id = c.bucket_stats(bucket)["id"]
        rounds = 20
        queue = m.measure(
            lambda: [read_queue(read_omap, ["default.rgw.log"], 16) for _ in range(rounds)] and None, "osd"
        )
        probe = m.measure(lambda: [index_generation(exists, bucket_id) for _ in range(rounds)] and None, "osd")
    finally:
        handle.shutdown()
    queue["reads_per_poll"], queue["omap_reads_made"] = round(queue["ops"] / rounds, 1), calls["omap"] // rounds
    probe["reads_per_probe"], probe["stats_made"] = round(probe["ops"] / rounds, 1), calls["stat"] // rounds
    return {"reshard_queue": queue, "generation_probe": probe}


def mgr_cpu(c: TestCluster) -> float:
    pid = c.pids[f"mgr.{c.active_mgr}"]
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pg_costs(c: TestCluster, extra_pgs: int, scale_port: int) -> dict:
    """Manager CPU per `pg dump pgs` (the sidecar's read) and the scale module's own PG read
    time, at the cluster's PG count and with a pool of `extra_pgs` more."""
    out: dict[str, Any] = {}
    for label in ("base", "more"):
        if label == "more":
            c.ceph("config", "set", "global", "mon_max_pg_per_osd", "2000", fmt_json=False)
            c.ceph("osd", "pool", "create", "cost-pgs", str(extra_pgs), str(extra_pgs), fmt_json=False)
            wait_for(lambda: c._pgs_clean(), 900, interval=2, what=f"{extra_pgs} more PGs active+clean")
        pgs = int(c.ceph("pg", "stat")["pg_summary"]["num_pgs"])
        idle0, t0 = mgr_cpu(c), time.monotonic()
        time.sleep(30)
        idle = (mgr_cpu(c) - idle0) / (time.monotonic() - t0)
        n = 30
        cpu0, t0 = mgr_cpu(c), time.monotonic()
        for _ in range(n):
            c.ceph("pg", "dump", "pgs", fmt_json=False)
        dump = (mgr_cpu(c) - cpu0 - idle * (time.monotonic() - t0)) / n
        module = module_pg_read(scale_port)
        out[label] = {"pgs": pgs, "mgr_cpu_per_pg_dump": round(dump, 4), "module_pg_read_seconds": module}
    base, more = out["base"], out["more"]
    span = more["pgs"] - base["pgs"]
    out["mgr_cpu_per_pg_per_dump"] = (more["mgr_cpu_per_pg_dump"] - base["mgr_cpu_per_pg_dump"]) / span
    out["module_seconds_per_pg_per_read"] = (more["module_pg_read_seconds"] - base["module_pg_read_seconds"]) / span
    return out


def module_pg_read(port: int) -> float:
    """The scale module's pgs source duration (the manager's pg_stats and the core's parse, in
    the manager), median of its last polls at a 2 s interval."""
    url = f"http://127.0.0.1:{port}/metrics"
    seen: list[float] = []
    end = time.monotonic() + 40
    while time.monotonic() < end and len(seen) < 8:
        time.sleep(2.5)
        try:
            text = urllib.request.urlopen(url, timeout=10).read().decode()
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith("ceph_scale_source_duration_seconds{") and 'source="pgs"' in line:
                seen.append(float(line.rsplit(" ", 1)[1]))
    return round(statistics.median(seen[2:] or seen or [float("nan")]), 4)


def enable_scale_module(c: TestCluster) -> int:
    port = 19284
    for key, value in (("mgr/scale/server_addr", "127.0.0.1"), ("mgr/scale/server_port", str(port)),
                       ("mgr/scale/pgs_interval", "2"), ("mgr/scale/rgw_source", "off")):  # fmt: skip
        c.ceph("config", "set", "mgr", key, value, fmt_json=False)
    c.ceph("mgr", "module", "enable", "scale", fmt_json=False)
    wait_for(lambda: _answers(f"http://127.0.0.1:{port}/metrics"), 120, interval=2, what="the scale module's /metrics")
    return port


def _answers(url: str) -> bool:
    try:
        return b"ceph_scale_source_duration_seconds" in urllib.request.urlopen(url, timeout=5).read()
    except OSError:
        return False


def run(c: TestCluster, ones: int, elevens: int, extra_pgs: int) -> dict:
    for option in RGW_QUIET:  # the test cluster's fast quota syncs read the metadata pool in the background
        c.ceph("config", "rm", "client.rgw", option, fmt_json=False)
    c.radosgw_admin("user", "modify", "--uid", "loadgen", "--max-buckets", "1000000")
    t = time.monotonic()
    one = make_buckets(c, "cost1", ones, 1)
    eleven = make_buckets(c, "cost11", elevens, 11)
    created = time.monotonic() - t
    c.ceph("config", "set", "client.rgw", "rgw_override_bucket_index_max_shards", "1", fmt_json=False)
    m = Meter(c)
    result: dict[str, Any] = {
        "release": c.ceph("version")["version"],
        "date": datetime.date.today().isoformat(),
        "buckets": {"one_shard": ones, "eleven_shards": elevens, "created_in_seconds": round(created, 1)},
    }
    set_cache(c, 10)
    result["cold"] = bucket_reads(m, one, eleven)
    set_cache(c, None)
    m.get("/admin/bucket", stats="true")  # fills the cache
    result["warm"] = bucket_reads(m, one, eleven)
    try:
        result["librados"] = librados_reads(c, m, eleven[0])
    except Exception as e:  # the host's client and this release's keys (Tentacle's need Tentacle's client)
        result["librados"] = {"error": f"{type(e).__name__}: {e}"}
    result["pgs"] = pg_costs(c, extra_pgs, enable_scale_module(c))
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", help="a running cluster's directory (else one is started and stopped)")
    p.add_argument("--release", default="pacific")
    p.add_argument("--one-shard", type=int, default=1000, help="buckets of 1 index shard")
    p.add_argument("--eleven-shards", type=int, default=300, help="buckets of 11 index shards")
    p.add_argument("--extra-pgs", type=int, default=1024)
    p.add_argument("--out", type=Path, help=f"merge the result into this file under the release (e.g. {COST_FILE})")
    args = p.parse_args(argv)
    owned = args.dir is None
    if owned:
        c = TestCluster(release_name=args.release, extra_mgr_modules={"scale": str(REPO / "mgr_module" / "scale")})
    else:
        c = TestCluster.attach(args.dir)
    try:
        if owned:
            c.start()
        result = run(c, args.one_shard, args.eleven_shards, args.extra_pgs)
    finally:
        if owned:
            c.stop()
    print(json.dumps(result, indent=1))
    if args.out:
        data = json.loads(args.out.read_text()) if args.out.exists() else {}
        data[c.release.name] = result
        args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
