"""Make the study's conditions happen on a real test cluster while a real Prometheus scrapes the
exporter, so that every panel of every board has real data. Used by tests/dashboards and to
produce the committed previews:

    python -m previews.scenario --out dashboards/previews/

starts a throwaway cluster (cluster.testcluster), the sidecar exporter, Prometheus (with
rules/recording.yml and rules/alerts.yml when present), runs the conditions, renders the PNG
previews and stops everything it started, by PID.

Conditions: BlueFS spillover (built into the test cluster: osd.0 has a 256 MiB DB), scrubs blocked
with short intervals until PGs are overdue then released, a mixed 64 KB S3 load, a bucket filled
past the per-shard limit so that RGW reshards it, deep scrubs of every PG, slowed down so that
they are seen running (a deep-scrub storm under S3 load), and small writes until the DB's growth
is forecast, a bucket owner whose buckets all have quotas growing (its quota runway), buckets past
a lowered rgw_bucket_objects_advised, and an OSD down for a few seconds (the OSDs-down marks); then
a steady S3 load during which an OSD stops for 40 s (a plunge, annotated with its cause on the S3
ops panels).

It exits 1 if a panel had no data, if a signal the conditions make happen (MUST_BE_NONZERO,
NONZERO_OVER_RUN) stayed at zero, or if Prometheus did not load and evaluate the rules.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Callable

from cluster import s3load
from demo.monitoring import Prometheus, scratch_dir, wait_until

from .checks import PLUNGE_SEEN, rule_files, rules_not_loaded, undriven
from .quota_owner import SteadyGrowth, make_quota_owner

REPO = Path(__file__).resolve().parent.parent
SCRAPE = "2s"
# The pgs source as often as Prometheus scrapes, so a PG's scrubbing state is seen within a scrape.
SIDECAR_SOURCES = {"pgs": {"interval": 2, "timeout": 2}}
# The studies' ~100 K objects per bucket, lowered to what the run's buckets hold (the reshard
# bucket gets 150 objects, each S3 load round 80), so that buckets are past it and the RGW board's
# count and list of them have data.
# More buckets and tenants with their own usage series than the defaults (10, 20), so that the
# run's buckets and its quota owner, among those the session's other tests made, are each in the
# RGW board's tables rather than summed into "(others)".
SIDECAR_THRESHOLDS = {"rgw_bucket_objects_advised": 60, "rgw_bucket_usage_top": 50, "rgw_tenant_series": 100}

# A scrub of a nearly empty PG takes milliseconds, far less than the pgs source's interval, so
# "scrubbing now" would read 0 through a whole storm. Each chunk of a scrub waits osd_scrub_sleep
# first (operator-requested scrubs too), and osd_scrub_chunk_max 1 makes chunks as small as Ceph
# allows (3 objects): every PG then scrubs for seconds, one PG per OSD at a time (osd_max_scrubs).
# Set with `ceph tell` because the test cluster's ceph.conf sets osd_scrub_sleep = 0, and a
# config file overrides the config database; `config unset` drops the override again.
SLOW_SCRUB = {"osd_scrub_sleep": "3", "osd_scrub_chunk_min": "1", "osd_scrub_chunk_max": "1"}


def start_prometheus(workdir: Path, exporter_url: str) -> Prometheus:
    target = exporter_url.split("//", 1)[1].split("/", 1)[0]
    return Prometheus(
        Path(workdir), {"ceph-scale": [target]}, rule_files=rule_files(), scrape_interval=SCRAPE,
        evaluation_interval=SCRAPE,
    ).start()  # fmt: skip


def _value(prom: Prometheus, expr: str) -> float | None:
    res = prom.query(expr)
    return max(float(r["value"][1]) for r in res) if res else None


@contextlib.contextmanager
def slow_scrubs(cluster, log: Callable[[str], None] = print) -> Iterator[None]:
    """Scrubs that last seconds per PG while inside; the OSDs' own settings again after, even on
    failure."""
    apply_slow_scrubs(cluster)
    log(f"scrubs slowed down: {', '.join(f'{k} {v}' for k, v in SLOW_SCRUB.items())}")
    try:
        yield
    finally:
        restore_slow_scrubs(cluster)


def apply_slow_scrubs(cluster) -> None:
    for key, value in SLOW_SCRUB.items():
        cluster.ceph("tell", "osd.*", "config", "set", key, value, fmt_json=False)


def restore_slow_scrubs(cluster) -> None:
    errors = []
    for key in SLOW_SCRUB:
        try:
            cluster.ceph("tell", "osd.*", "config", "unset", key, fmt_json=False)
        except Exception as e:  # one failed key must not leave the others set
            errors.append(f"{key}: {e}")
    if errors:
        raise RuntimeError("could not restore the scrub settings: " + "; ".join(errors))


def make_conditions(cluster, prom: Prometheus, log: Callable[[str], None] = print) -> tuple[dict, float]:
    """Run the conditions (about two minutes); returns timings and the run's end (a time at which
    Prometheus holds them all, for the boards' instant queries). Scrubs are always released, the
    scrub intervals removed from the config database and the scrub speed restored, even on
    failure."""
    t0 = time.monotonic()
    timings: dict[str, float] = {}

    def mark(what: str) -> None:
        timings[what] = round(time.monotonic() - t0, 1)
        log(f"[{timings[what]:6.1f}s] {what}")

    owner = make_quota_owner(cluster)
    with SteadyGrowth(cluster, owner):
        mark(f"{owner.uid}: {len(owner.buckets)} buckets with quotas, growing steadily")
        _conditions(cluster, prom, mark, owner.uid)
        end = _end_with_both_runways(prom, owner.uid)
    mark("done")
    return timings, end


def _conditions(cluster, prom: Prometheus, mark: Callable[[str], None], quota_owner: str) -> None:
    access, secret = cluster.user_keys
    cluster.block_scrubs(max_interval=30, deep_interval=40, min_interval=10)
    try:
        apply_slow_scrubs(cluster)
        mark("scrubs blocked (max 30 s, deep 40 s) and slowed down")
        r = s3load.run(cluster.rgw_endpoint, access, secret, "dash-load-1", objects=80, size=65536, concurrency=8)
        if r.errors:
            raise RuntimeError(f"S3 load: {r.errors} errors")
        mark(f"S3 load 1: {r.puts} PUT {r.put_rate:.0f}/s, {r.gets} GET {r.get_rate:.0f}/s")
        bucket = f"dash-reshard-{int(time.time())}"  # new each run: one shard at creation
        # The exporter must know the bucket's first instance before RGW replaces it, or the
        # reshard is a bucket first seen resharded, not an event: create it, wait until the
        # scraped bucket count has it, then fill it.
        s3load.client(cluster.rgw_endpoint, access, secret).create_bucket(Bucket=bucket)
        count = len(cluster.radosgw_admin("bucket", "list"))
        wait_until(lambda: _value(prom, "ceph_scale_rgw_buckets") == count, 60, 1, what=f"{bucket} in Prometheus")
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
        # block_scrubs' short intervals stay until restore_scrubs: a PG then stays overdue until a
        # scrub reaches it, so the backlog drains at the (slowed) scrub rate with a finite time to
        # clear, instead of vanishing at once when longer intervals move the overdue line.
        cluster.unblock_scrubs(restore_intervals=False)
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
        wait_until(lambda: (_value(prom, "sum(ceph_scale_pg_scrubbing)") or 0) > 0, 60, 1,
                   what="PGs scrubbing in Prometheus")  # fmt: skip
        mark("PGs seen scrubbing")
        r = s3load.run(cluster.rgw_endpoint, access, secret, "dash-load-3", objects=60, size=65536, concurrency=8)
        mark(f"S3 load 3: {r.puts} PUT, {r.gets} GET")
        deep = 'ceph_scale_pg_scrub_overdue{kind="deep_scrub"}'
        # Below its peak: the drain and a finite time to clear are on the boards before
        # restore_scrubs moves the overdue line back out to days. (It does not drain much further
        # here: deep-scrubbed PGs are overdue again after 70 s, about the time a slowed-down round
        # of all PGs takes, so the backlog holds, as at scale when scrubs cannot keep up.)
        shrinking = f"max({deep}) < max(max_over_time({deep}[10m]))"
        wait_until(lambda: _value(prom, shrinking) is not None, 150, 1, what="the deep-scrub backlog to shrink")
        mark("deep-scrub backlog shrinking")
    finally:
        restore_scrubs(cluster)
    # The OSD stop before the fits are waited for: it stalls the quota owner's writes, and the
    # tenants table's instant queries read the runways as they are at the run's end (one CI run
    # lost the held runway in the 16 s between its wait and the end, the OSD stopped in between).
    osd_down_briefly(cluster, prom)
    mark("osd.2 down and back, PGs clean")
    # The forecasts and runways are fitted once a minute of history is there (the sidecar's
    # forecast_min_span_seconds): a quick scenario on a quiet machine can end before that.
    wait_until(lambda: _value(prom, "count(ceph_scale_runway_growth_steady)"), 120, 1, what="fitted runways")
    mark("forecasts fitted")
    grow_rocksdb(cluster, prom)
    mark("RocksDB growth fitted")
    # Both kinds of runway: the byte quota's within what the history supports, the object quota's
    # held to it (the tenants table's two runway columns), last, so that the end has them.
    for query in _runway_kinds(quota_owner):
        wait_until(lambda query=query: _value(prom, query), 120, 1, what=f"{quota_owner}'s runway: {query}")
    mark(f"{quota_owner}: quota runways fitted")


def _runway_kinds(owner: str) -> list[str]:
    return [
        f'count(ceph_scale_rgw_tenant_quota_runway_seconds{{user="{owner}", bounded="{bounded}"}} < +Inf)'
        for bounded in ("false", "true")
    ]


def _end_with_both_runways(prom: Prometheus, owner: str, timeout: float = 120) -> float:
    """The run's end: an instant, two scrapes after the last condition, at which Prometheus holds
    both of the owner's runway kinds. A fit can judge the growth flat for a while after the writes
    stalled (a CI run lost the held runway in the 5 s after it was seen): the instant queries of
    the boards read the end, so it is one checked, not one assumed."""
    deadline = time.monotonic() + timeout
    while True:
        time.sleep(5)  # two more scrapes so that the last values include everything above
        at = time.time()
        if all(prom.query(q, at=at) for q in _runway_kinds(owner)):
            return at
        if time.monotonic() > deadline:
            raise TimeoutError(f"{owner}'s two runway kinds were never held together for {timeout:.0f} s")


# Small writes for the DB growth: below bluestore_prefer_deferred_size_hdd, so each goes through
# RocksDB's WAL on the DB device with its onode.
DB_GROWTH_POOL = "default.rgw.buckets.data"
DB_GROWTH_RUN = "dash-db-growth"


def grow_rocksdb(cluster, prom: Prometheus, timeout: float = 120) -> None:
    """Rounds of small writes until the time to the next RocksDB level is forecast. The OSDs' DB
    use grows in BlueFS allocation units (1 MiB on Pacific): the S3 rounds above may not cross one
    on the OSDs without spillover, and a flat DB has no time to its next level. The objects are
    removed afterwards, even on failure."""
    deadline = time.monotonic() + timeout
    try:
        while not _value(prom, "count(ceph_scale_bluefs_db_next_level_seconds)"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no RocksDB growth forecast after {timeout:.0f} s of small writes")
            cluster.rados("-p", DB_GROWTH_POOL, "bench", "3", "write", "-b", "4096", "-t", "8",
                          "--no-cleanup", "--run-name", DB_GROWTH_RUN)  # fmt: skip
            time.sleep(4)  # two scrapes of the perf source's next poll
    finally:
        cluster.rados("-p", DB_GROWTH_POOL, "cleanup", "--run-name", DB_GROWTH_RUN, timeout=120)


DOWN_IN = 'max(ceph_scale_osds{state="down_in"})'


def osd_down_briefly(cluster, prom: Prometheus, osd: int = 2) -> None:
    """osd.N stopped and marked down at once (not after the heartbeat grace), until Prometheus
    has scraped it down; then up again and the PGs clean, for the tests after the run."""
    cluster.stop_daemon(f"osd.{osd}")
    try:
        cluster.ceph("osd", "down", str(osd), fmt_json=False)
        wait_until(lambda: (_value(prom, DOWN_IN) or 0) > 0, 30, 1, what=f"osd.{osd} down in Prometheus")
    finally:
        cluster.osd_up(osd)
    wait_until(lambda: pgs_clean(cluster), 180, 2, what="PGs clean again")


def pgs_clean(cluster) -> bool:
    s = cluster.ceph("pg", "stat", timeout=10)
    s = s.get("pg_summary", s)  # Pacific nests the counts under pg_summary
    clean = sum(x["num"] for x in s.get("num_pg_by_state", []) if x["name"].startswith("active+clean"))
    return 0 < s.get("num_pgs", 0) == clean


def sustain_load(cluster, seconds: float, log: Callable[[str], None] = print) -> None:
    """A steady mixed 64 KB S3 load for `seconds` (cluster/steady_load.py: 50 keys rewritten and
    read, no new objects, no reshard). A third of the way in, osd.2 stops for 40 s: requests to its
    PGs stall, a plunge the exporter names with its cause (OSDs down) on the S3 ops panels. Two
    thirds in, one more round of (slowed-down) deep scrubs of every PG: a deep-scrub storm under
    load. The previews show ops over time, the plunge's annotation, and the storm."""
    from cluster.steady_load import SteadyLoad

    access, secret = cluster.user_keys
    start = time.monotonic()
    with slow_scrubs(cluster, log), SteadyLoad(cluster.rgw_endpoint, access, secret, "dash-steady") as load:
        load.wait_warm()
        time.sleep(max(0.0, seconds / 3 - (time.monotonic() - start)))
        cluster.stop_daemon("osd.2")
        log("osd.2 stopped under the steady load")
        try:
            time.sleep(40)
        finally:
            cluster.osd_up(2)
        log("osd.2 back")
        time.sleep(max(0.0, 2 * seconds / 3 - (time.monotonic() - start)))
        cluster.ceph("osd", "deep-scrub", "all", fmt_json=False)
        time.sleep(max(0.0, seconds - (time.monotonic() - start)))
        rates = load.rates(10)
    log(f"sustained S3 load for {time.monotonic() - start:.0f} s, last 10 s: {rates}")


def restore_scrubs(cluster) -> None:
    """Undo make_conditions: scrubs allowed, the intervals it set removed, the scrub speed back
    to the OSDs' own settings. Every step is tried; the first failure is raised after."""
    steps = [cluster.unblock_scrubs]
    for key in ("osd_scrub_min_interval", "osd_scrub_max_interval", "osd_deep_scrub_interval"):
        steps.append(lambda key=key: cluster.ceph("config", "rm", "global", key, fmt_json=False))
    steps.append(lambda: restore_slow_scrubs(cluster))
    first: Exception | None = None
    for step in steps:
        try:
            step()
        except Exception as e:
            first = first or e
    if first:
        raise first


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m previews.scenario", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--out", type=Path, default=REPO / "dashboards" / "previews")
    p.add_argument("--workdir", type=Path, help="scratch directory, kept (default: a temp dir, removed)")
    p.add_argument("--settle", type=float, default=180, help="seconds of steady S3 load after the conditions")
    args = p.parse_args(argv)
    from cluster.testcluster import TestCluster
    from demo.sidecar import Sidecar

    from .render import render_all

    work = args.workdir or scratch_dir("ceph-scale-dash-")
    work.mkdir(parents=True, exist_ok=True)
    cluster = TestCluster(base_dir=str(work / "cluster"), osds=3, db_sizes=("256M", "1G", "1G"), standby_mgr=True,
                          rgw=True)  # fmt: skip
    exporter = prom = None
    missing_any = False
    try:
        cluster.start()
        exporter = Sidecar(cluster, work, sources=SIDECAR_SOURCES, thresholds=SIDECAR_THRESHOLDS).start()
        prom = start_prometheus(work, exporter.url)
        start = time.time()
        wait_until(prom.targets_up, 30, what="Prometheus to scrape the exporter")
        make_conditions(cluster, prom)
        sustain_load(cluster, args.settle)
        end = time.time()
        res = render_all(prom.url, args.out, start, end, {"__rate_interval": "30s"})
        for path, missing in res.items():
            missing_any = missing_any or bool(missing)
            print(
                path, f"{Path(path).stat().st_size // 1024} KB", ("no data: " + ", ".join(missing)) if missing else ""
            )
        for what in undriven(prom, start, end):
            missing_any = True
            print("not driven:", what)
        for what in rules_not_loaded(prom, end):
            missing_any = True
            print("rules:", what)
        # The steady load's OSD stop (sustain_load): a plunge named with its cause on the boards.
        window = f"{math.ceil(end - start) + 10}s"
        causes = {r["metric"].get("cause") for r in prom.query(PLUNGE_SEEN.format(window=window), at=end)}
        print("plunges annotated:", sorted(c for c in causes if c) or "none")
        if "osds_down" not in causes:
            missing_any = True
            print("not driven: no plunge blamed on the OSD stopped under load")
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
