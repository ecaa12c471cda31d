"""What the exporter alerts read over a day and a week, with a week of history: the raw
`ceph_scale_build_info` every 30 s against its 5-minute presence record.

    python -m bench.presence [--clusters 100] [--days 7] [--repeat 5]

The exporter alerts (`ceph-scale-exporter.alerts` in rules/alerts.yml) tell an exporter target
by its having served `ceph_scale_build_info` within a day or a week. They read the presence
record `cluster_job_instance:ceph_scale_build_info:max5m`, which the group
`ceph-scale-exporter-presence.rules` writes every 5 minutes. The rule benchmark (bench.rules)
backfills an hour, so it cannot show what those windows cost once a fleet has weeks of data.

1. The series: for each of --clusters clusters, a sidecar target and a mgr-module target, each
   with `ceph_scale_build_info` every 30 s and the presence record every 300 s, over --days
   days (as the recording group leaves it), written as OpenMetrics and backfilled with
   `promtool tsdb create-blocks-from openmetrics`.
2. A real Prometheus (/usr/bin/prometheus, its own temporary directory, stopped by its PID)
   loads the blocks. Each alert's expression of the shipped exporter group is run through the
   query API with `stats=all` --repeat times as it is, and as it read before the record (the
   record's name replaced by `ceph_scale_build_info`): the samples each reads and the median
   of its evaluation time, both in this one run, and their ratios. The recording rule's own
   read, once per 5 minutes, is shown per 30 s round (a tenth of one evaluation).

Nothing else runs in that Prometheus: nothing is scraped and no rule is loaded.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.rules import launched, stopped, until_answering  # noqa: E402
from bench.rules_profile import query_stats  # noqa: E402
from cluster.testcluster import free_port  # noqa: E402

RAW, STEP = "ceph_scale_build_info", 30
RECORD, RECORD_STEP = "cluster_job_instance:ceph_scale_build_info:max5m", 300
GROUP, RECORDING_GROUP = "ceph-scale-exporter.alerts", "ceph-scale-exporter-presence.rules"
ROUND = 30  # seconds between evaluations of the alert group, the usual interval


def shipped_rules() -> tuple[str, dict[str, str]]:
    """(the recording rule's expression, {alert: expression} of the exporter group reading the record)."""
    recording = yaml.safe_load((REPO / "rules" / "recording.yml").read_text())
    alerts = yaml.safe_load((REPO / "rules" / "alerts.yml").read_text())
    record = next(
        r["expr"]
        for g in recording["groups"]
        if g["name"] == RECORDING_GROUP
        for r in g["rules"]
        if r["record"] == RECORD
    )
    group = next(g for g in alerts["groups"] if g["name"] == GROUP)
    reading = {r["alert"]: r["expr"] for r in group["rules"] if "alert" in r and RECORD in r["expr"]}
    if not reading:
        raise SystemExit(f"no alert of {GROUP} reads {RECORD}: nothing to measure")
    return record, reading


def write_openmetrics(path: Path, clusters: int, start: int, end: int) -> int:
    """Both targets of each cluster: the raw series every STEP, the record every RECORD_STEP."""
    count = 0
    with open(path, "w", encoding="utf-8", buffering=1 << 22) as f:
        for name, step in ((RAW, STEP), (RECORD, RECORD_STEP)):
            f.write(f"# TYPE {name} gauge\n")
            times = range(start - start % step, end + 1, step)
            for c in range(clusters):
                for producer, port in (("sidecar", 9926), ("module", 9283)):
                    target = f'instance="c{c:03d}-{producer}:{port}",job="ceph-scale"'
                    labels = f'cluster="c{c:03d}",{target},producer="{producer}"'
                    f.write("".join(f"{name}{{{labels}}} 1 {t}\n" for t in times))
                    count += len(times)
        f.write("# EOF\n")
    return count


def measured(port: int, expr: str, repeat: int) -> tuple[int, float]:
    """(samples read, median seconds) of `expr`, run `repeat` times."""
    runs = [query_stats(port, expr) for _ in range(repeat)]
    return runs[0][1], statistics.median(t for t, _ in runs)


def history_args(doc: str | None, days: float, min_days: float, argv: list[str] | None) -> argparse.Namespace:
    """The options of a benchmark over backfilled history (--clusters, --days, --repeat), checked,
    and the tools it needs found."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clusters", type=int, default=100)
    p.add_argument("--days", type=float, default=days)
    p.add_argument("--repeat", type=int, default=5, help="runs of each expression, for the median time")
    args = p.parse_args(argv)
    for tool in ("promtool", "prometheus"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} not found (apt install prometheus)")
    if args.clusters < 1 or args.days < min_days or args.days <= 0 or args.repeat < 1:
        raise SystemExit(f"--clusters and --repeat must be at least 1, --days above 0 and at least {min_days:g}")
    return args


@contextlib.contextmanager
def history_prometheus(
    name: str, write: Callable[[Path, int, int], int], days: float, probe: str, what: str
) -> Iterator[int]:
    """The port of a Prometheus on `days` of the series `write(path, start, end)` writes as
    OpenMetrics, backfilled with promtool and answering `probe` with data; stopped by its PID and
    its directory removed on leaving."""
    work = Path(tempfile.mkdtemp(prefix=f"ceph-scale-{name}-"))
    proc = None
    try:
        end = int(time.time()) - 60
        om = work / "series.om"
        n = write(om, end - int(days * 86400), end)
        print(f"{what}, {days:g} days: {n:,} samples", flush=True)
        tsdb = work / "tsdb"
        subprocess.run(
            ["promtool", "tsdb", "create-blocks-from", "openmetrics", str(om), str(tsdb)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        om.unlink()
        port = free_port()
        config = work / "prometheus.yml"
        config.write_text("global: {}\n")
        proc = launched(config, tsdb, port, work, f"--storage.tsdb.retention.time={int(days) + 30}d")
        until_answering(proc, work, port, probe, 300, data=True)
        print(f"  prometheus pid {proc.pid} on port {port}", flush=True)
        yield port
    finally:
        stopped(proc, work)


def main(argv: list[str] | None = None) -> int:
    args = history_args(__doc__, 7.0, 0.0, argv)
    record_expr, alerts = shipped_rules()
    with history_prometheus(
        "presence",
        lambda om, start, end: write_openmetrics(om, args.clusters, start, end),
        args.days,
        f"count({RAW})",
        f"{args.clusters} clusters x 2 targets",
    ) as port:
        rows, totals = [], [0, 0.0, 0, 0.0]
        for alert, expr in sorted(alerts.items()):
            after = measured(port, expr, args.repeat)
            before = measured(port, expr.replace(RECORD, RAW), args.repeat)
            rows.append((alert, before, after))
            totals = [totals[0] + before[0], totals[1] + before[1], totals[2] + after[0], totals[3] + after[1]]
        record_read = measured(port, record_expr, args.repeat)
        per_round = (record_read[0] * ROUND / RECORD_STEP, record_read[1] * ROUND / RECORD_STEP)
        print(f"\n{'alert':38} {'samples read: raw':>18} {'record':>10} {'ms: raw':>9} {'record':>8}")
        for alert, before, after in rows:
            print(f"{alert:38} {before[0]:>18,} {after[0]:>10,} {before[1] * 1e3:>9.1f} {after[1] * 1e3:>8.1f}")
        recording_row = f"{'the recording rule, per 30 s round':38} {'':>18} {per_round[0]:>10,.0f}"
        print(f"{recording_row} {'':>9} {per_round[1] * 1e3:>8.1f}")
        after_samples, after_seconds = totals[2] + per_round[0], totals[3] + per_round[1]
        print(
            f"\none round of the exporter alerts with {args.days:g} days of history, {args.clusters} clusters: "
            f"{totals[0]:,} samples read raw, {after_samples:,.0f} with the record "
            f"({totals[0] / after_samples:.1f}x fewer); {totals[1] * 1e3:.0f} ms against {after_seconds * 1e3:.0f} ms "
            f"of evaluation ({totals[1] / after_seconds:.1f}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
