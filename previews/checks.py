"""What a previews run must show, checked against its Prometheus at the end: the rules loaded
and evaluated, and the signals of the conditions the run makes happen not just zeros."""

from __future__ import annotations

import math
from pathlib import Path

import yaml

from dashboards.queries import all_queries
from demo.monitoring import Prometheus, http_json

from .style import sample_value

REPO = Path(__file__).resolve().parent.parent
RULE_FILES = ("recording.yml", "alerts.yml")

# Panel queries whose signal the conditions make happen. For these a series that is all zeros
# does not count as data: Prometheus returns it, but the panel shows nothing of the condition.
# (board, panel title, refId)
MUST_BE_NONZERO = (
    ("overview", "BlueFS bytes spilled to HDD", "A"),
    ("bluefs", "Spilled bytes per OSD", "A"),
    ("overview", "PGs overdue for scrub / deep scrub", "A"),
    ("scrub", "PGs overdue, and all PGs", "A"),
    ("overview", "PGs overdue for scrub / deep scrub", "B"),
    ("scrub", "PGs scrubbing now vs S3 ops/s", "A"),
    ("scrub", "Scrubs completed per second", "A"),
    ("rgw-resharding", "Reshards completed and queued", "A"),
    ("overview", "S3 ops/s (orange marks: reshards)", "A"),
    ("rgw-resharding", "S3 ops/s with reshards marked (orange)", "A"),
    ("scrub", "PGs scrubbing now vs S3 ops/s", "B"),
    ("load", "S3 ops/s per HDD OSD vs 60 PUT / 90 GET", "A"),
)
# The same conditions in plain PromQL, evaluated at the end of the run over all of it.
NONZERO_OVER_RUN = {
    "spilled bytes": "max_over_time(ceph_scale_cluster_bluefs_spilled_bytes[{window}])",
    "PGs overdue": "max_over_time(ceph_scale_pg_scrub_overdue[{window}])",
    "reshard events": "increase(ceph_scale_rgw_reshard_events_total[{window}])",
    "PGs scrubbing now": "max_over_time(ceph_scale_pg_scrubbing[{window}])",
    "S3 ops rate": "max_over_time(ceph_scale_s3_ops_per_second[{window}])",
}


PLUNGE_SEEN = "max by (cause) (max_over_time(ceph_scale_s3_plunge_info[{window}]))"


# A recording rule with a series as soon as the exporter is scraped (every producer emits
# ceph_scale_config): its samples show that Prometheus evaluates the recording rules.
RECORDED_ALWAYS = "cluster_option:ceph_scale_config:max"


def rule_files() -> list[Path]:
    return [REPO / "rules" / n for n in RULE_FILES if (REPO / "rules" / n).exists()]


def rules_not_loaded(prom: Prometheus, at: float) -> list[str]:
    """What of rule_files() the run's Prometheus did not load or evaluate: a group it does not
    list or lists with another number of rules, a rule whose last evaluation failed or has not
    happened, no samples of RECORDED_ALWAYS at `at`. A group with an interval of its own (the
    exporter's presence record, every 5 minutes) may not have come due in a run of minutes:
    Prometheus first evaluates it at an offset of up to that interval; its rules not yet
    evaluated are not reported, a failed one is."""
    groups = [g for f in rule_files() for g in yaml.safe_load(f.read_text())["groups"]]
    loaded = {g["name"]: g["rules"] for g in http_json(f"{prom.url}/api/v1/rules")["data"]["groups"]}
    bad = []
    for group in groups:
        rules = loaded.get(group["name"])
        if rules is None:
            bad.append(f"rule group {group['name']}: not loaded")
            continue
        if len(rules) != len(group["rules"]):
            bad.append(f"rule group {group['name']}: {len(rules)} rules loaded of {len(group['rules'])}")
        for rule in rules:
            not_due = "interval" in group and str(rule.get("lastEvaluation", "")).startswith("0001")
            if rule.get("health") != "ok" and not not_due:
                bad.append(f"rule {rule['name']} ({group['name']}): {rule.get('health')} {rule.get('lastError', '')}")
    if not any(r.get("record") == RECORDED_ALWAYS for g in groups for r in g["rules"]):
        bad.append(f"{RECORDED_ALWAYS}: no such recording rule in {', '.join(f.name for f in rule_files())}")
    elif not prom.query(RECORDED_ALWAYS, at=at):
        bad.append(f"{RECORDED_ALWAYS}: no samples, the recording rules were not evaluated")
    return bad


def _nonzero(x: str) -> bool:
    v = sample_value(x)
    return v != 0 and not math.isnan(v)


def undriven(prom, start: float, end: float, step: float = 5) -> list[str]:
    """The signals of MUST_BE_NONZERO and NONZERO_OVER_RUN that stayed at zero (or had no data)
    over [start, end]; a listed panel that no board has is reported too."""
    queries = {(q.board, q.panel, q.ref): q for q in all_queries()}
    bad = []
    for key in MUST_BE_NONZERO:
        q = queries.get(key)
        if q is None:
            bad.append(f"{key}: no such panel query")
            continue
        expr = q.resolved()
        if q.instant:
            hit = any(_nonzero(r["value"][1]) for r in prom.query(expr, at=end))
        else:
            hit = any(_nonzero(v) for r in prom.query_range(expr, start, end, step) for _t, v in r["values"])
        if not hit:
            bad.append(f"{q.name}: only zeros or no data: {expr}")
    window = f"{math.ceil(end - start) + 10}s"
    for what, template in NONZERO_OVER_RUN.items():
        expr = template.format(window=window)
        if not any(_nonzero(r["value"][1]) for r in prom.query(expr, at=end)):
            bad.append(f"{what}: {expr} is zero or empty")
    return bad
