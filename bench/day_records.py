"""What the two day-window recording rules read, with a day of history: the raw counters every
30 s against their 5-minute records.

    python -m bench.day_records [--clusters 100] [--days 2] [--repeat 5]

`cluster:ceph_scale_rgw_reshard_events:increase1d` and
`cluster_kind:ceph_scale_pg_scrubs_completed:rate1d` are evaluated every 30 s round over a
day. They read the counters' 5-minute records (`...:last5m`, the groups
`ceph-scale-reshard-5m.rules` and `ceph-scale-scrub-5m.rules` at `interval: 5m`). The rule
benchmark (bench.rules) backfills an hour, so it cannot show what a day's window costs.

1. The series: for each of --clusters clusters, one exporter target with
   `ceph_scale_rgw_reshard_events_total` and `ceph_scale_pg_scrubs_completed_total` of both
   kinds every 30 s, and their records every 300 s (the counter's value then, as the recording
   groups leave them), over --days days, backfilled as bench.presence does.
2. A real Prometheus (stopped by its PID) loads the blocks. Each record's expression as shipped
   and as it read before (the 5-minute record's name replaced by the counter's) is run through
   the query API with `stats=all` --repeat times: the samples each reads and the median of its
   evaluation time, in this one run, and their ratios. The 5-minute records' own reads, once per
   5 minutes, are shown per 30 s round (a tenth of one evaluation). The day records' values as
   shipped and as before are printed side by side: they differ by the record's lag of up to
   5 minutes and its coarser extrapolation.

Nothing else runs in that Prometheus: nothing is scraped and no rule is loaded.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.presence import ROUND, history_args, history_prometheus, measured  # noqa: E402
from bench.rules import query  # noqa: E402

STEP, RECORD_STEP = 30, 300
# The day record -> (the 5-minute record it reads, the counter that record samples, its kinds).
DAY_RECORDS = {
    "cluster:ceph_scale_rgw_reshard_events:increase1d": (
        "cluster_job_instance:ceph_scale_rgw_reshard_events_total:last5m",
        "ceph_scale_rgw_reshard_events_total",
        (),
    ),
    "cluster_kind:ceph_scale_pg_scrubs_completed:rate1d": (
        "cluster_kind_job_instance:ceph_scale_pg_scrubs_completed_total:last5m",
        "ceph_scale_pg_scrubs_completed_total",
        ("scrub", "deep_scrub"),
    ),
}
# Completions a second of each counter in the data: a reshard every ~30 min, scrubs every ~2 min.
PER_SECOND = {"ceph_scale_rgw_reshard_events_total": 1 / 1800, "ceph_scale_pg_scrubs_completed_total": 1 / 120}


def shipped_rules() -> dict[str, tuple[str, str]]:
    """{day record: (its expression, the expression of the 5-minute record it reads)} as shipped."""
    recording = yaml.safe_load((REPO / "rules" / "recording.yml").read_text())
    exprs = {r["record"]: r["expr"] for g in recording["groups"] for r in g["rules"] if "record" in r}
    intervals = {r["record"]: g.get("interval") for g in recording["groups"] for r in g["rules"] if "record" in r}
    out = {}
    for day, (record, _, _) in DAY_RECORDS.items():
        if record not in exprs or intervals[record] != "5m" or record not in exprs[day]:
            raise SystemExit(f"{day} does not read {record} of a 5-minute group: nothing to measure")
        out[day] = (exprs[day], exprs[record])
    return out


def before(expr: str) -> str:
    """`expr` as it read before the 5-minute records: each record's name replaced by its counter's."""
    for record, counter, _ in DAY_RECORDS.values():
        expr = expr.replace(record, counter)
    return expr


def write_openmetrics(path: Path, clusters: int, start: int, end: int) -> int:
    """Each cluster's counters every STEP and their records every RECORD_STEP (the counter's value
    at that time); returns the number of samples."""
    count = 0
    with open(path, "w", encoding="utf-8", buffering=1 << 22) as f:
        for record, counter, kinds in DAY_RECORDS.values():
            for name, step in ((counter, STEP), (record, RECORD_STEP)):
                # OpenMetrics wants a counter's samples named <family>_total: typed unknown here.
                f.write(f"# TYPE {name} unknown\n")
                times = range(start - start % step, end + 1, step)
                for c in range(clusters):
                    target = f'instance="c{c:03d}-sidecar:9928",job="ceph-scale"'
                    for kind in kinds or (None,):
                        labels = f'cluster="c{c:03d}",{target}' + (f',kind="{kind}"' if kind else "")
                        # Clusters apart in phase, so their counters do not step together.
                        rate, phase = PER_SECOND[counter], c * 37
                        f.write("".join(f"{name}{{{labels}}} {int((t + phase) * rate)} {t}\n" for t in times))
                        count += len(times)
        f.write("# EOF\n")
    return count


def main(argv: list[str] | None = None) -> int:
    args = history_args(__doc__, 2.0, 1.0, argv)  # the window is a day
    rules = shipped_rules()
    with history_prometheus(
        "day-records",
        lambda om, start, end: write_openmetrics(om, args.clusters, start, end),
        args.days,
        f"count({next(iter(DAY_RECORDS.values()))[1]})",
        f"{args.clusters} clusters",
    ) as port:
        rows, totals = [], [0, 0.0, 0.0, 0.0]
        for day, (expr, record_expr) in sorted(rules.items()):
            raw = measured(port, before(expr), args.repeat)
            shipped = measured(port, expr, args.repeat)
            own = measured(port, record_expr, args.repeat)
            own_round = (own[0] * ROUND / RECORD_STEP, own[1] * ROUND / RECORD_STEP)
            values = (query(port, f"sum({before(expr)})"), query(port, f"sum({expr})"))
            rows.append((day, raw, shipped, own_round, values))
            totals = [
                totals[0] + raw[0],
                totals[1] + raw[1],
                totals[2] + shipped[0] + own_round[0],
                totals[3] + shipped[1] + own_round[1],
            ]
        print(f"\n{'record':52} {'samples read: raw':>18} {'5m record':>10} {'ms: raw':>8} {'5m record':>10}")
        for day, raw, shipped, own_round, _ in rows:
            print(f"{day:52} {raw[0]:>18,} {shipped[0]:>10,} {raw[1] * 1e3:>8.1f} {shipped[1] * 1e3:>10.1f}")
            label = "  + its 5-minute record, per 30 s round"
            print(f"{label:52} {'':>18} {own_round[0]:>10,.0f} {'':>8} {own_round[1] * 1e3:>10.1f}")
        print(
            f"\none round of the two day records with {args.days:g} days of history, {args.clusters} clusters: "
            f"{totals[0]:,} samples read raw, {totals[2]:,.0f} with the 5-minute records "
            f"({totals[0] / totals[2]:.1f}x fewer); {totals[1] * 1e3:.1f} ms against {totals[3] * 1e3:.1f} ms "
            f"of evaluation ({totals[1] / totals[3]:.1f}x)"
        )
        print("\nthe values, summed over the clusters (raw, 5m record):")
        for day, *_, (raw_value, shipped_value) in rows:
            print(f"  {day}: {_value(raw_value):.6g}, {_value(shipped_value):.6g}")
    return 0


def _value(result: list) -> float:
    return float(result[0]["value"][1]) if result else float("nan")


if __name__ == "__main__":
    raise SystemExit(main())
