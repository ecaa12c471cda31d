"""Where a rule round goes: each rule's evaluation time, its expression's own cost, the samples it reads.

Prometheus' rules API reports each rule's last evaluation time; for an alerting
rule that includes expanding the annotations of every pending or firing alert,
with the queries they hold. Running the same expression once more through the
query API with `stats=all` gives its own time and the samples it reads, so the
rest of an alerting rule's time is its annotations.
"""

from __future__ import annotations

import json
import statistics
import urllib.parse
import urllib.request


def rule_times(groups: list) -> dict[tuple[str, str], tuple[str, float]]:
    """(group, rule name) -> (last evaluation stamp, seconds) from /api/v1/rules."""
    out = {}
    for group in groups:
        for rule in group["rules"]:
            out[(group["name"], rule["name"])] = (rule.get("lastEvaluation", ""), float(rule["evaluationTime"]))
    return out


class RuleTimes:
    """Each rule's evaluation time, once per evaluation (a poll that finds the same stamp adds nothing)."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], str] = {}
        self.times: dict[tuple[str, str], list[float]] = {}
        self.queries: dict[tuple[str, str], str] = {}
        self.kinds: dict[tuple[str, str], str] = {}
        self.alerts: dict[tuple[str, str], int] = {}

    def add(self, groups: list) -> None:
        for group in groups:
            for rule in group["rules"]:
                key = (group["name"], rule["name"])
                self.queries[key], self.kinds[key] = rule["query"], rule["type"]
                self.alerts[key] = len(rule.get("alerts") or ())
        for key, (stamp, seconds) in rule_times(groups).items():
            if stamp.startswith("0001") or self.seen.get(key) == stamp:
                continue
            self.seen[key] = stamp
            self.times.setdefault(key, []).append(seconds)


def query_stats(port: int, expr: str) -> tuple[float, int]:
    """(seconds the query's evaluation took, samples it read) of one instant query."""
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr, "stats": "all"})
    with urllib.request.urlopen(url, timeout=60) as r:
        stats = json.loads(r.read())["data"]["stats"]
    return float(stats["timings"]["evalTotalTime"]), int(stats["samples"]["totalQueryableSamples"])


def profile(port: int, times: RuleTimes) -> list[dict]:
    """One row per rule, dearest first: median evaluation, expression alone, annotations, samples read.

    Only a rule with pending or firing alerts expands annotations; for the others the
    difference between the two timings is noise (2 cores shared by every group).
    """
    rows: list[dict] = []
    for key, values in times.times.items():
        expr_seconds, samples = query_stats(port, times.queries[key])
        median = statistics.median(values)
        alerts = times.alerts.get(key, 0)
        rows.append(
            {
                "group": key[0],
                "rule": key[1],
                "kind": times.kinds[key],
                "median_seconds": median,
                "expression_seconds": expr_seconds,
                # The rest of an alerting rule's evaluation: expanding its alerts' labels and annotations.
                "annotation_seconds": max(0.0, median - expr_seconds) if alerts else 0.0,
                "active_alerts": alerts,
                "samples_read": samples,
            }
        )
    rows.sort(key=lambda r: -float(r["median_seconds"]))
    return rows


def print_profile(rows: list[dict], top: int) -> None:
    print(f"  rules, dearest first (median evaluation; the expression alone, once; samples it reads), top {top}:")
    print(f"    {'rule':48s} {'median':>9s} {'expr':>9s} {'annot.':>9s} {'alerts':>7s} {'samples read':>13s}")
    for r in rows[:top]:
        print(
            f"    {r['rule'][:48]:48s} {r['median_seconds'] * 1000:6.1f} ms {r['expression_seconds'] * 1000:6.1f} ms "
            f"{r['annotation_seconds'] * 1000:6.1f} ms {r['active_alerts']:7,d} {r['samples_read']:13,d}"
        )
    total = sum(r["samples_read"] for r in rows)
    annotations = sum(r["annotation_seconds"] for r in rows)
    print(f"    all {len(rows)} rules: {total:,} samples read by their expressions; annotations {annotations:.2f} s")
