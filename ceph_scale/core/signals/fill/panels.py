"""The fill signal's panels: raw fill of the cluster, its pools and its fullest OSDs against the
fill lines in force, the headroom left and the time to the fill target [000, 001, 003]."""

from __future__ import annotations

from ...panel_queries import CL, PICKED_POOLS, config, m, top
from ...panel_spec import (
    CRIT,
    DAY,
    FILL,
    OK,
    SOON,
    WARN,
    Panel,
    Query,
    Step,
    bars,
    dashed,
    gg,
    runbook,
    st,
    tbl,
    ts,
)

PAST_TARGET = runbook("CephScaleFillPastTarget")
FORECAST = runbook("CephScaleFillPredictedToCrossTarget")
OSD_FULLEST = runbook("CephScaleOsdFullestPastTarget")
POOL = runbook("CephScalePoolPastFillTarget")
HEADROOM: list[Step] = [(None, CRIT), (0.0, WARN), (0.1, OK)]  # < 0: the line was crossed
# The headroom is computed here from what the exporter exports (the lines in force, the raw size,
# use and ratio): the same arithmetic as the exporter did, so the same values (docs/metrics.md, "Changed").
TARGET = f"max by (cluster) ({config('fill_target_ratio')})"
BYTES_TO_TARGET = (
    f"{TARGET} * on (cluster) max by (cluster) ({m('ceph_scale_cluster_size_bytes')})"
    f" - on (cluster) max by (cluster) ({m('ceph_scale_cluster_used_bytes')})"
)
USED = f"max by (cluster) ({m('ceph_scale_cluster_used_ratio')})"
LINE_NAMES = ("warn", "target", "critical")
OSD_HEADROOM = "Fullest OSDs: headroom to the fill target"
# Gauge and bar-gauge colours are static steps: Grafana has no per-series threshold from a query
# (its "config from query results" transform takes one value for every cluster selected), so
# they sit at the default fill lines and the panel says so; the time series draw the lines in force.
STATIC_FILL_COLOURS = (
    " Colours at the default fill lines, 70 / 80 / 90 % [000, 001]: static, they do not follow "
    "fill_*_ratio (the fill trends draw the lines in force)."
)


def fill_lines() -> list[Query]:
    """The fill lines in force (fill_warn_ratio, fill_target_ratio, fill_critical_ratio), as
    dashed series that move with the settings, where static threshold steps would not."""
    return [Query(config("fill_(warn|target|critical)_ratio", "=~"), f"{CL} line {{{{option}}}}")]


def raw_fill(h: int = 5) -> Panel:
    return gg(
        "Raw fill",
        "percentunit",
        [Query(m("ceph_scale_cluster_used_ratio"), CL)],
        desc="Raw used / size." + STATIC_FILL_COLOURS,
        runbook=PAST_TARGET,
        thresholds=FILL,
        h=h,
    )


def time_to_target_glance() -> Panel:
    return st(
        "Time to the fill target at the current fill rate",
        "s",
        [Query(m("ceph_scale_cluster_fill_seconds_to_threshold", 'threshold="target"'), CL)],
        desc="Predicted from the fitted raw fill rate; 0 once crossed; empty when not filling.",
        runbook=FORECAST,
        thresholds=SOON,
        no_value="not filling",
        graph=False,
    )


def fill_trend() -> Panel:
    return ts(
        "Raw fill and fullest OSD vs the fill lines",
        "percentunit",
        [
            Query(m("ceph_scale_cluster_used_ratio"), f"{CL} cluster raw"),
            Query(f"max by (cluster) ({m('ceph_scale_osd_fullest_used_ratio')})", f"{CL} fullest OSD"),
            *fill_lines(),
        ],
        desc="Raw used / size for the cluster and the fullest in OSD (it fills first). Dashed: the lines in "
        "force, by default 70 % (degradation starts [000]), 80 % (Ceph's recommended ceiling [001]) and 90 % "
        "('alarming' [000]).",
        runbook=PAST_TARGET,
        overrides=[dashed(".* line .*")],
        min_val=0,
        max_val=1,
        w=12,
    )


def fullest_osds_glance() -> Panel:
    return bars(
        "Fullest OSDs",
        "percentunit",
        [Query(top(5, "ceph_scale_osd_used_ratio"), f"{CL} {{{{ceph_daemon}}}}", instant=True)],
        desc="The OSDs that reach the fill target first." + STATIC_FILL_COLOURS,
        runbook=OSD_FULLEST,
        thresholds=FILL,
        max_val=1,
        w=6,
    )


def bytes_to_target() -> Panel:
    return st(
        "Raw bytes left before the fill target",
        "bytes",
        [Query(BYTES_TO_TARGET, CL)],
        desc="Raw capacity x 0.8 - raw used (fill_target_ratio); negative once crossed.",
        runbook=PAST_TARGET,
        thresholds=[(None, CRIT), (0, OK)],
        w=5,
        h=6,
    )


def headroom_to(line: str) -> str:
    return f"max by (cluster) ({config(f'fill_{line}_ratio')}) - on (cluster) {USED}"


def headroom_to_lines() -> Panel:
    return st(
        "Headroom to the warn, target and critical fill lines",
        "percentunit",
        [Query(headroom_to(line), f"{CL} to {line}") for line in LINE_NAMES],
        desc="Line - used ratio, for the lines in force: fill_warn_ratio, fill_target_ratio and "
        "fill_critical_ratio (by default 70 / 80 / 90 %).",
        runbook=PAST_TARGET,
        thresholds=HEADROOM,
        w=5,
        h=6,
        graph=False,
    )


def time_to_target() -> Panel:
    return st(
        "Time to the fill target",
        "s",
        [Query(m("ceph_scale_cluster_fill_seconds_to_threshold", 'threshold="target"'), CL)],
        desc="From the fitted raw fill rate over fill_forecast_window_seconds; 0 once crossed.",
        runbook=FORECAST,
        thresholds=SOON,
        no_value="not filling",
        w=5,
        h=6,
        graph=False,
    )


def fill_rate() -> Panel:
    return st(
        "Raw fill rate",
        "Bps",
        [Query(m("ceph_scale_cluster_fill_rate_bytes_per_second"), CL)],
        desc="Fitted raw bytes per second (can be negative while deleting).",
        runbook=FORECAST,
        w=5,
        h=6,
    )


def time_to_each_line() -> Panel:
    return ts(
        "Time to each fill line (log scale)",
        "s",
        [Query(m("ceph_scale_cluster_fill_seconds_to_threshold"), f"{CL} to {{{{threshold}}}}")],
        desc="Predicted time to each line at the fitted fill rate. Lines: one week and 30 days.",
        runbook=FORECAST,
        thresholds=SOON,
        log=10,
        soft_max=35 * DAY,
    )


def pool_fill() -> Panel:
    return ts(
        "Pool fill vs the fill target",
        "percentunit",
        [Query(m("ceph_scale_pool_used_ratio", PICKED_POOLS), f"{CL} {{{{name}}}}"), *fill_lines()],
        desc="percent_used of `ceph df detail` per pool. Dashed: the fill lines in force (by default 70 / 80 / 90 %).",
        runbook=POOL,
        overrides=[dashed(".* line .*")],
        min_val=0,
        max_val=1,
    )


def pools_table() -> Panel:
    used = m("ceph_scale_pool_used_ratio", PICKED_POOLS)
    queries = [
        used,
        f"{TARGET} - on (cluster) group_right {used}",
        *(
            m(name, PICKED_POOLS)
            for name in (
                "ceph_scale_pool_fill_headroom_bytes",
                "ceph_scale_pool_fill_seconds_to_target",
                "ceph_scale_pool_space_amplification_ratio",
                "ceph_scale_pool_expected_amplification_ratio",
            )
        ),
    ]
    return tbl(
        "Pools: headroom to the fill target, time to it, space amplification",
        "none",
        [Query(q, instant=True, fmt="table") for q in queries],
        desc="Client bytes each pool can still take before the fill target, when it gets there, and raw/stored "
        "(EC 4+2 ideal 1.5; 64 KB objects on 64 KB min_alloc give more [000]).",
        runbook=POOL,
        columns={
            "A": ("used", "percentunit"),
            "B": ("headroom to the target", "percentunit"),
            "C": ("bytes left", "bytes"),
            "D": ("time to the target", "dtdurations"),  # "2 years, 3 months", not "120662.6 week"
            "E": ("amplification", "suffix:×"),
            "F": ("expected", "suffix:×"),
        },
        keep=["cluster", "name"],
        sort_by="used",
    )


def fullest_osds() -> Panel:
    return bars(
        "Fullest OSDs: raw fill",
        "percentunit",
        [Query(top(10, "ceph_scale_osd_used_ratio"), f"{CL} {{{{ceph_daemon}}}}", instant=True)],
        desc="The fullest OSD fills first: its headroom is the cluster's real headroom." + STATIC_FILL_COLOURS,
        runbook=OSD_FULLEST,
        thresholds=FILL,
        max_val=1,
    )


def osd_headroom() -> Panel:
    return bars(
        OSD_HEADROOM,
        "percentunit",
        [
            Query(
                f"sort(bottomk(10, {config('fill_target_ratio')} - on (cluster) group_right () "
                f"max by (cluster, ceph_daemon) ({m('ceph_scale_osd_used_ratio')})))",
                f"{CL} {{{{ceph_daemon}}}}",
                instant=True,
            )
        ],
        desc="fill_target_ratio (by default 80 %, 'Ceph recommends not exceeding 80%' [001]) - used ratio of the "
        "10 fullest OSDs, least headroom first; negative once an OSD is past the line. The fullest OSD "
        "fills first, so its headroom is what the cluster really has left.",
        runbook=OSD_FULLEST,
        thresholds=HEADROOM,
        max_val=1,
    )


def ceph_full_ratios() -> Panel:
    return st(
        "Ceph's nearfull / backfillfull / full ratios",
        "percentunit",
        [Query(m("ceph_scale_osd_full_ratio"), f"{CL} {{{{kind}}}}")],
        desc="The ratios the cluster enforces (ceph osd set-nearfull-ratio ...), to compare with the fill lines.",
        runbook=PAST_TARGET,
        w=8,
        h=8,
        graph=False,
    )
