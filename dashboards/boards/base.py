"""What the boards share: study numbers drawn on them, query pieces, panel helpers."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db
from grafana_foundation_sdk.models import dashboard as dm

from ..common import CRIT, OK, WARN, C, Q, m, rate
from ..panel_kinds import dashed, ts
from ..runbooks import RB

DAY = 86400.0
# Time-to-threshold colouring: red under a week, yellow under a month.
SOON = [(None, CRIT), (7 * DAY, WARN), (30 * DAY, OK)]
LOAD = [(None, OK), (0.8, WARN), (1.0, CRIT)]
CL = "{{cluster}}"
OVERVIEW_OPS = "S3 ops/s (orange marks: reshards)"
RGW_OPS = "S3 ops/s with reshards marked (orange)"
OSD_HEADROOM = "Fullest OSDs: headroom to the fill target"
HISTOGRAM = "Buckets by shard fill (clusters summed)"
# Gauge and bar-gauge colours are static steps: Grafana has no per-series threshold from a query
# (its "config from query results" transform takes one value for every cluster selected), so
# they sit at the default fill lines and the panel says so; the time series draw the lines in force.
STATIC_FILL_COLOURS = (
    " Colours at the default fill lines, 70 / 80 / 90 % [000, 001]: static, they do not follow "
    "fill_*_ratio (the fill trends draw the lines in force)."
)
ALERT_PREFIX = "CephScale"

# Sums first take the max over producers of one series (the sidecar and the mgr module, or two
# scrape jobs, may both export a cluster), as rules/recording.yml does, so nothing counts twice.
S3_OPS = f"sum by (cluster, op) (max by (cluster, instance_id, op) ({rate('ceph_scale_rgw_s3_ops_total')}))"
S3_BYTES = f"sum by (cluster, op) (max by (cluster, instance_id, op) ({rate('ceph_scale_rgw_s3_bytes_total')}))"
PER_HDD = f" / on (cluster) group_left () max by (cluster) ({m('ceph_scale_hdd_osds')})"


def top(k: int, name: str, by: str = "ceph_daemon", fn: str = "topk") -> str:
    """The k largest (or smallest) of a per-daemon family, one series per cluster and daemon."""
    return f"{fn}({k}, max by (cluster, {by}) ({m(name)}))"


def config(option: str, op: str = "=") -> str:
    """The value of a threshold or baseline in force (ceph_scale_config), one series per cluster
    and option whichever producers export it, for reference lines that move with the setting."""
    selector = m("ceph_scale_config", f'option{op}"{option}"')
    return f"max by (cluster, option) ({selector})"


def osd_variable(metric: str) -> db.QueryVariable:
    """The OSDs to draw, in numeric order (osd.2 before osd.10), several at once if picked.

    No All option, as ceph-mixin's OSD board and node_exporter's boards do: with All offered
    and no saved selection Grafana selects All, about 950 lines at 318 OSDs. Without it Grafana
    selects the first OSD; the top-K panels, which this variable does not narrow, name the OSDs
    worth picking."""
    return (
        db.QueryVariable("osd")
        .label("OSD")
        .datasource(dm.DataSourceRef(type_val="prometheus", uid="${datasource}"))
        .query(f"label_values({metric}{{{C}}}, ceph_daemon)")
        .refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(dm.VariableSort.NUMERICAL_ASC)
        .multi(True)
        .include_all(False)
    )


def fill_lines() -> list:
    """The fill lines in force (fill_warn_ratio, fill_target_ratio, fill_critical_ratio), as
    dashed series that move with the settings, where static threshold steps would not."""
    return [Q(config("fill_(warn|target|critical)_ratio", "=~"), f"{CL} line {{{{option}}}}")]


def fill_trend(w: int = 12) -> object:
    return ts(
        "Raw fill and fullest OSD vs the fill lines",
        "percentunit",
        [
            Q(m("ceph_scale_cluster_used_ratio"), f"{CL} cluster raw"),
            Q(f"max by (cluster) ({m('ceph_scale_osd_fullest_used_ratio')})", f"{CL} fullest OSD"),
            *fill_lines(),
        ],
        desc="Raw used / size for the cluster and the fullest in OSD (it fills first). Dashed: the lines in "
        "force, by default 70 % (degradation starts [000]), 80 % (Ceph's recommended ceiling [001]) and 90 % "
        "('alarming' [000]).",
        runbook=RB["fill"],
        overrides=[dashed(".* line .*")],
        min_val=0,
        max_val=1,
        w=w,
    )


def s3_ops(title: str, w: int) -> object:
    return ts(
        title,
        "ops",
        [Q(S3_OPS, f"{CL} {{{{op}}}}")],
        desc="S3 PUT and GET operations per second from the RGW perf counters. Orange marks: completed "
        "bucket reshards; the study saw 'sudden plunges' in throughput at each one [000]. Red regions: "
        "plunges the exporter detected, titled with their likely cause and its evidence.",
        runbook=RB["reshard"],
        w=w,
        min_val=0,
        axis_label="S3 ops/s",
    )


# --- overview --------------------------------------------------------------------------------
