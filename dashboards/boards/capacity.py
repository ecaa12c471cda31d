"""The capacity board: distance to the 80 % fill line, per cluster, pool and OSD [000, 001]."""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard as db

from ..board_frame import new_board
from ..common import CRIT, FILL, HEADROOM, OK, Q, m
from ..panel_kinds import bars, dashed, gg, st, tbl, ts
from ..runbooks import RB
from .base import (
    CL,
    DAY,
    OSD_HEADROOM,
    SOON,
    STATIC_FILL_COLOURS,
    config,
    fill_lines,
    fill_trend,
    top,
)


def capacity():
    panels = [
        db.Row("Cluster"),
        gg(
            "Raw fill",
            "percentunit",
            [Q(m("ceph_scale_cluster_used_ratio"), CL)],
            desc="Raw used / size." + STATIC_FILL_COLOURS,
            runbook=RB["fill"],
            thresholds=FILL,
            h=6,
        ),
        st(
            "Raw bytes left before the fill target",
            "bytes",
            [Q(m("ceph_scale_cluster_fill_headroom_bytes", 'threshold="target"'), CL)],
            desc="Raw capacity x 0.8 - raw used (fill_target_ratio); negative once crossed.",
            runbook=RB["fill"],
            thresholds=[(None, CRIT), (0, OK)],
            w=5,
            h=6,
        ),
        st(
            "Headroom to the warn, target and critical fill lines",
            "percentunit",
            [Q(m("ceph_scale_cluster_fill_headroom_ratio"), f"{CL} to {{{{threshold}}}}")],
            desc="Line - used ratio, for the lines in force: fill_warn_ratio, fill_target_ratio and "
            "fill_critical_ratio (by default 70 / 80 / 90 %).",
            runbook=RB["fill"],
            thresholds=HEADROOM,
            w=5,
            h=6,
            graph=False,
        ),
        st(
            "Time to the fill target",
            "s",
            [Q(m("ceph_scale_cluster_fill_seconds_to_threshold", 'threshold="target"'), CL)],
            desc="From the fitted raw fill rate over fill_forecast_window_seconds; 0 once crossed.",
            runbook=RB["fill_forecast"],
            thresholds=SOON,
            no_value="not filling",
            w=5,
            h=6,
            graph=False,
        ),
        st(
            "Raw fill rate",
            "Bps",
            [Q(m("ceph_scale_cluster_fill_rate_bytes_per_second"), CL)],
            desc="Fitted raw bytes per second (can be negative while deleting).",
            runbook=RB["fill_forecast"],
            w=5,
            h=6,
        ),
        db.Row("Trends"),
        fill_trend(),
        ts(
            "Time to each fill line (log scale)",
            "s",
            [Q(m("ceph_scale_cluster_fill_seconds_to_threshold"), f"{CL} to {{{{threshold}}}}")],
            desc="Predicted time to each line at the fitted fill rate. Lines: one week and 30 days.",
            runbook=RB["fill_forecast"],
            thresholds=SOON,
            log=10,
            soft_max=35 * DAY,
        ),
        db.Row("Pools"),
        ts(
            "Pool fill vs the fill target",
            "percentunit",
            [Q(m("ceph_scale_pool_used_ratio"), f"{CL} {{{{name}}}}"), *fill_lines()],
            desc="percent_used of `ceph df detail` per pool. Dashed: the fill lines in force (by default "
            "70 / 80 / 90 %).",
            runbook=RB["pool_fill"],
            overrides=[dashed(".* line .*")],
            min_val=0,
            max_val=1,
        ),
        tbl(
            "Pools: headroom to the fill target, time to it, space amplification",
            "none",
            [
                Q(m("ceph_scale_pool_used_ratio"), instant=True, fmt="table"),
                Q(m("ceph_scale_pool_fill_headroom_ratio"), instant=True, fmt="table"),
                Q(m("ceph_scale_pool_fill_headroom_bytes"), instant=True, fmt="table"),
                Q(m("ceph_scale_pool_fill_seconds_to_target"), instant=True, fmt="table"),
                Q(m("ceph_scale_pool_space_amplification_ratio"), instant=True, fmt="table"),
                Q(m("ceph_scale_pool_expected_amplification_ratio"), instant=True, fmt="table"),
            ],
            desc="Client bytes each pool can still take before the fill target, when it gets there, and raw/stored "
            "(EC 4+2 ideal 1.5; 64 KB objects on 64 KB min_alloc give more [000]).",
            runbook=RB["pool_fill"],
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
        ),
        db.Row("OSDs"),
        bars(
            "Fullest OSDs: raw fill",
            "percentunit",
            [Q(top(10, "ceph_scale_osd_used_ratio"), f"{CL} {{{{ceph_daemon}}}}", instant=True)],
            desc="The fullest OSD fills first: its headroom is the cluster's real headroom." + STATIC_FILL_COLOURS,
            runbook=RB["osd_fill"],
            thresholds=FILL,
            max_val=1,
        ),
        bars(
            OSD_HEADROOM,
            "percentunit",
            [
                Q(
                    f"sort(bottomk(10, {config('fill_target_ratio')} - on (cluster) group_right () "
                    f"max by (cluster, ceph_daemon) ({m('ceph_scale_osd_used_ratio')})))",
                    f"{CL} {{{{ceph_daemon}}}}",
                    instant=True,
                )
            ],
            desc="fill_target_ratio (by default 80 %, 'Ceph recommends not exceeding 80%' [001]) - used ratio of the "
            "10 fullest OSDs, least headroom first; negative once an OSD is past the line. The fullest OSD "
            "fills first, so its headroom is what the cluster really has left.",
            runbook=RB["osd_fill"],
            thresholds=HEADROOM,
            max_val=1,
        ),
        st(
            "Ceph's nearfull / backfillfull / full ratios",
            "percentunit",
            [Q(m("ceph_scale_osd_full_ratio"), f"{CL} {{{{kind}}}}")],
            desc="The ratios the cluster enforces (ceph osd set-nearfull-ratio ...), to compare with the fill lines.",
            runbook=RB["fill"],
            w=8,
            h=8,
            graph=False,
        ),
    ]
    return new_board(
        "capacity",
        "Ceph scale: capacity and distance to the fill target",
        "Headroom to the fill lines in force (by default 70 / 80 / 90 %) for the cluster, each pool and the "
        "fullest OSDs, and the predicted time to the fill target [001, 000, 003].",
        panels,
        time_from="now-7d",
    )


# --- RGW resharding ----------------------------------------------------------------------------
