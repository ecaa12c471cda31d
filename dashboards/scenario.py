"""Make the study's conditions happen on a real test cluster while a real Prometheus scrapes the
exporter, so that every panel of every board has real data. Used by tests/dashboards and to
produce the committed previews:

    python -m dashboards.scenario --out dashboards/previews/

starts a throwaway cluster (cluster.testcluster), the sidecar exporter, Prometheus (with
rules/recording.yml and rules/alerts.yml when present), runs the conditions, renders the PNG
previews and stops everything it started, by PID.

Conditions: BlueFS spillover (built into the test cluster: osd.0 has a 256 MiB DB), scrubs blocked
with short intervals until PGs are overdue then released, a mixed 64 KB S3 load, and a bucket
filled past the per-shard limit so that RGW reshards it.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import Callable

from cluster import s3load
from demo.monitoring import Prometheus, scratch_dir, wait_until

REPO = Path(__file__).resolve().parent.parent
RULE_FILES = ("recording.yml", "alerts.yml")
SCRAPE = "2s"


def rule_files() -> list[Path]:
    return [REPO / "rules" / n for n in RULE_FILES if (REPO / "rules" / n).exists()]


def start_prometheus(workdir: Path, exporter_url: str) -> Prometheus:
    target = exporter_url.split("//", 1)[1].split("/", 1)[0]
    return Prometheus(
        Path(workdir), {"ceph-scale": [target]}, rule_files=rule_files(), scrape_interval=SCRAPE,
        evaluation_interval=SCRAPE,
    ).start()  # fmt: skip


def _value(prom: Prometheus, expr: str) -> float | None:
    res = prom.query(expr)
    return max(float(r["value"][1]) for r in res) if res else None


def make_conditions(cluster, prom: Prometheus, log: Callable[[str], None] = print) -> dict:
    """Run the conditions (about two minutes); returns timings. Scrubs are always released and the
    scrub intervals removed from the config database again, even on failure."""
    t0 = time.monotonic()
    timings: dict[str, float] = {}

    def mark(what: str) -> None:
        timings[what] = round(time.monotonic() - t0, 1)
        log(f"[{timings[what]:6.1f}s] {what}")

    access, secret = cluster.user_keys
    cluster.block_scrubs(max_interval=30, deep_interval=40, min_interval=10)
    try:
        mark("scrubs blocked (max 30 s, deep 40 s)")
        r = s3load.run(cluster.rgw_endpoint, access, secret, "dash-load-1", objects=80, size=65536, concurrency=8)
        if r.errors:
            raise RuntimeError(f"S3 load: {r.errors} errors")
        mark(f"S3 load 1: {r.puts} PUT {r.put_rate:.0f}/s, {r.gets} GET {r.get_rate:.0f}/s")
        bucket = f"dash-reshard-{int(time.time())}"  # new each run: one shard at creation
        r = s3load.run(cluster.rgw_endpoint, access, secret, bucket, objects=150, size=4096, gets=False)
        mark(f"{r.puts} objects into {bucket} (limit {cluster.reshard_objs_per_shard}/shard)")
        wait_until(lambda: cluster.bucket_stats(bucket)["num_shards"] > 1, 120, 1, what=f"RGW to reshard {bucket}")
        mark(f"{bucket} resharded")
        wait_until(lambda: (_value(prom, "ceph_scale_rgw_reshard_events_total") or 0) > 0, 60, 1,
                   what="the reshard event in Prometheus")  # fmt: skip
        wait_until(
            lambda: (_value(prom, 'min(ceph_scale_pg_scrub_overdue{kind=~"scrub|deep_scrub"})') or 0) > 0, 150, 1,
            what="PGs overdue for scrub and deep scrub",
        )  # fmt: skip
        mark("PGs overdue for scrub and deep scrub")
        completed = _value(prom, 'sum(ceph_scale_pg_scrubs_completed_total{kind="deep_scrub"})') or 0
        cluster.unblock_scrubs()
        # The OSDs keep the scrub schedule they computed with the long default intervals, so the
        # backlog is cleared the way an operator would: deep scrubs of every PG (one at a time per
        # OSD), here under an S3 load, as in the study's deep-scrub storm [001, 003].
        cluster.ceph("osd", "deep-scrub", "all", fmt_json=False)
        mark("scrubs released, deep scrubs of all PGs requested")
        r = s3load.run(cluster.rgw_endpoint, access, secret, "dash-load-2", objects=80, size=65536, concurrency=8)
        mark(f"S3 load 2: {r.puts} PUT, {r.gets} GET")
        wait_until(
            lambda: (_value(prom, 'sum(ceph_scale_pg_scrubs_completed_total{kind="deep_scrub"})') or 0) > completed,
            150, 1, what="deep scrubs to complete",
        )  # fmt: skip
        mark("scrubs completing")
        r = s3load.run(cluster.rgw_endpoint, access, secret, "dash-load-3", objects=60, size=65536, concurrency=8)
        mark(f"S3 load 3: {r.puts} PUT, {r.gets} GET")
    finally:
        restore_scrubs(cluster)
    # two more scrapes so that the last values include everything above
    time.sleep(5)
    mark("done")
    return timings


def sustain_load(cluster, seconds: float, log: Callable[[str], None] = print) -> None:
    """A steady mixed 64 KB S3 load for `seconds` (the same 80 keys rewritten and read: no new
    objects, no reshard), with one more round of deep scrubs of every PG half-way through, so
    the previews show ops over time and a deep-scrub burst under load."""
    access, secret = cluster.user_keys
    end = time.monotonic() + seconds
    scrubbed = False
    rounds = 0
    while time.monotonic() < end:
        if not scrubbed and end - time.monotonic() < seconds / 2:
            cluster.ceph("osd", "deep-scrub", "all", fmt_json=False)
            scrubbed = True
        s3load.run(cluster.rgw_endpoint, access, secret, "dash-load-1", objects=80, size=65536, concurrency=4,
                   max_seconds=max(1.0, end - time.monotonic()))  # fmt: skip
        rounds += 1
    log(f"sustained S3 load: {rounds} rounds of 80 PUT + 80 GET in {seconds:.0f} s")


def restore_scrubs(cluster) -> None:
    cluster.unblock_scrubs()
    for key in ("osd_scrub_min_interval", "osd_scrub_max_interval", "osd_deep_scrub_interval"):
        cluster.ceph("config", "rm", "global", key, fmt_json=False)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dashboards.scenario", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--out", type=Path, default=REPO / "dashboards" / "previews")
    p.add_argument("--workdir", type=Path, help="scratch directory, kept (default: a temp dir, removed)")
    p.add_argument("--settle", type=float, default=120, help="seconds of steady S3 load after the conditions")
    args = p.parse_args(argv)
    from cluster.testcluster import TestCluster
    from demo.sidecar import Sidecar

    from .preview import render_all

    work = args.workdir or scratch_dir("ceph-scale-dash-")
    work.mkdir(parents=True, exist_ok=True)
    cluster = TestCluster(base_dir=str(work / "cluster"), osds=3, db_sizes=("256M", "1G", "1G"), standby_mgr=True,
                          rgw=True)  # fmt: skip
    exporter = prom = None
    missing_any = False
    try:
        cluster.start()
        exporter = Sidecar(cluster, work).start()
        prom = start_prometheus(work, exporter.url)
        start = time.time()
        wait_until(prom.targets_up, 30, what="Prometheus to scrape the exporter")
        make_conditions(cluster, prom)
        sustain_load(cluster, args.settle)
        res = render_all(prom.url, args.out, start, time.time(), {"__rate_interval": "30s"})
        for path, missing in res.items():
            missing_any = missing_any or bool(missing)
            print(
                path, f"{Path(path).stat().st_size // 1024} KB", ("no data: " + ", ".join(missing)) if missing else ""
            )
    finally:
        if prom:
            prom.stop()
        if exporter:
            exporter.stop()
        cluster.stop()
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if missing_any else 0


if __name__ == "__main__":
    sys.exit(main())
